"""A sweep's answer over several histories: how much of it is the history's.

One history's ranking carries intervals from a paired bootstrap over its
events (:func:`uschess.apps.evaluate.bootstrap_difference`): they say how
the answer varies with the events of that history, not with the players'
careers, which differ from one generated history to another.  Two
histories drawn alike (``uschess generate`` with two seeds) can rank a
version on opposite sides of the baseline, each beyond its own interval.

So ``uschess sweep --each H1 H2 ...`` evaluates every version on each
history, and here, per version, the mean over the histories of its
difference in log-loss from the baseline is given with a 95% interval
from the spread between histories (Student's t with one degree of freedom
fewer than the histories), with on how many histories the version was
resolved better (its bootstrap interval below 0) or worse (above 0), and
its mean rank.  Such an answer, found on one set of seeds, can be checked
on another: a reproduced ranking is one whose intervals between histories
agree in sign.
"""

from __future__ import annotations

import math
import statistics
from dataclasses import dataclass, field
from typing import Optional, Sequence

from uschess.apps.evaluate import format_mean

#: Student's t at 97.5% for 1 to 30 degrees of freedom (beyond: 1.96, the
#: normal's); the standard table.
T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df: int) -> float:
    """Student's t quantile at 97.5% for ``df`` degrees of freedom."""
    if df < 1:
        raise ValueError("at least one degree of freedom")
    return T975[df - 1] if df <= len(T975) else 1.96


@dataclass
class VersionAcross:
    """One version (not the baseline) over the histories."""

    spec: str
    #: its difference in log-loss from the baseline on each history
    diffs: list
    mean: float
    low: float
    high: float
    #: histories on which its own bootstrap interval lies below 0 / above 0
    better: int
    worse: int
    mean_rank: float

    def as_dict(self) -> dict:
        return {"spec": self.spec, "diffs": self.diffs, "mean": self.mean, "low": self.low,
                "high": self.high, "better": self.better, "worse": self.worse,
                "mean_rank": self.mean_rank}

    def verdict(self) -> str:
        """'better', 'worse' or 'not resolved' than the baseline, by the
        interval between histories."""
        return "better" if self.high < 0 else "worse" if self.low > 0 else "not resolved"


@dataclass
class Across:
    """The versions over the histories (``names``), from each history's
    ranking rows (:func:`uschess.apps.evaluate.ranking`)."""

    names: list
    rankings: list
    versions: list = field(default_factory=list)
    baseline_rank: Optional[float] = None

    def as_dict(self) -> dict:
        return {"histories": self.names, "baseline_mean_rank": self.baseline_rank,
                "versions": [v.as_dict() for v in self.versions],
                "interval": "95%, Student's t over the histories' differences from the baseline"}

    def format(self) -> list[str]:
        """Each history's ranking on a line, then the versions over them."""
        lines = ["per history: versions by log-loss (best first); difference from the baseline "
                 "[95% paired bootstrap over that history's events]"]
        for name, rows in zip(self.names, self.rankings):
            shown = "; ".join(r["spec"] + (f" {_diff(r['vs_first']['log_loss'])}"
                                           if r["vs_first"] else "") for r in rows)
            lines.append(f"  {name} ({rows[0]['n']:,} player-games): {shown}")
        n = len(self.names)
        lines.append(f"over the {n} histories: mean difference in log-loss from the baseline "
                     "[95% between histories]; histories on which the version was resolved "
                     "better / worse; mean rank (1 best)")
        width = max([len(v.spec) for v in self.versions] + [8])
        heads = [f"  {v.spec:<{width}} {format_mean(v.mean, 5, True)} "
                 f"[{format_mean(v.low, 5, True)}, {format_mean(v.high, 5, True)}]  "
                 f"{v.verdict():<12}  better {v.better}, worse {v.worse}   " for v in self.versions]
        room = max(len(h) for h in heads)
        lines.extend(f"{h:<{room}}mean rank {v.mean_rank:.1f}" for h, v in zip(heads, self.versions))
        lines.append(f"{'  baseline':<{room}}mean rank {self.baseline_rank:.1f}")
        return lines


def _diff(d: dict) -> str:
    return (f"{format_mean(d['diff'], 5, True)} [{format_mean(d['low'], 5, True)}, "
            f"{format_mean(d['high'], 5, True)}]")


def across(names: Sequence[str], rankings: Sequence[Sequence[dict]], baseline: str) -> Across:
    """The versions of ``rankings`` (one ranking per history, each row with
    ``spec``, ``rank`` and ``vs_first``, the difference from ``baseline``,
    the first version given) over the histories ``names``."""
    if len(rankings) < 2:
        raise ValueError("an answer over histories needs two histories or more")
    out = Across(list(names), [list(r) for r in rankings])
    specs = [r["spec"] for r in rankings[0] if r["spec"] != baseline]
    specs.sort(key=lambda s: next(r["order"] for r in rankings[0] if r["spec"] == s))
    t = t975(len(rankings) - 1)
    for spec in specs:
        rows = [next(r for r in rows if r["spec"] == spec) for rows in rankings]
        diffs = [r["vs_first"]["log_loss"]["diff"] for r in rows]
        mean = statistics.fmean(diffs)
        half = t * statistics.stdev(diffs) / math.sqrt(len(diffs))
        out.versions.append(VersionAcross(
            spec, diffs, mean, mean - half, mean + half,
            sum(r["vs_first"]["log_loss"]["high"] < 0 for r in rows),
            sum(r["vs_first"]["log_loss"]["low"] > 0 for r in rows),
            statistics.fmean(r["rank"] for r in rows)))
    out.baseline_rank = statistics.fmean(next(r["rank"] for r in rows if r["spec"] == baseline)
                                         for rows in rankings)
    return out
