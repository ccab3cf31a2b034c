"""How well the published ratings predict: the games of real pages scored
by sec. 4.2's winning expectancy, with intervals, and simple alternatives
fitted on the same games.

:func:`score_published` takes the games of :mod:`uschess.apps.published_games`
(each game seen from its two players' sides, as ``evaluate`` scores a
history) and measures:

* log-loss and Brier score of We(R, Ri) (:func:`uschess.formulas.we`;
  :func:`uschess.apps.evaluate.game_scores`), the mean expected and
  observed score and the share of draws, overall and by system, era (the
  edition of the rules in force on the section's date), event type
  (Swiss, round robin, match), rating band and player status;
* calibration: the same by bin of the rating difference R - Ri
  (:func:`uschess.apps.evaluate.calibration_bin`);
* draws: the share of drawn games by the pair's mean rating and by the
  difference;
* four predictions compared out of sample (``FOLDS``-fold cross-validation,
  the folds made of whole events): We itself; We with sec. 4.1's PWe for a
  player the special formula rated; a logistic curve of the difference with
  a fitted scale; the same with a fitted offset added to a provisional
  player's rating.  The fitted values on all games are shown apart, as
  in-sample figures.

The headline set is the games between two players who both have a
published pre-event rating; a game with an unrated player is scored at the
rules' step-1 initial rating and counted in the "unrated" status row only.

Every interval is a 95% interval that treats each event as one cluster (the
games of one event share players): the mean of a group is a ratio of sums,
its variance the linearized cluster estimate
``C/(C-1) sum_c (x_c - m n_c)^2 / (sum_c n_c)^2`` over the C events
(``Z95`` standard errors either side).  A difference between two
predictions is the mean of the paired per-game differences with the same
interval.
"""

from __future__ import annotations

import math
import zlib
from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from uschess.apps.evaluate import band_of, calibration_bin, game_scores
from uschess.apps.published_games import PageGame
from uschess.formulas import pwe, we

#: Standard errors either side of a 95% interval.
Z95 = 1.959963984540054
#: Cross-validation folds (events are split by a hash of their id: the same
#: games always give the same folds).
FOLDS = 5
#: Sums kept per group and event: player-games, log-loss, Brier, expected,
#: observed, draws.
N, LOSS, BRIER, EXP, OBS, DRAW = range(6)
#: The predictions compared, in the order shown.
MODELS = ("we", "we_pwe", "logistic", "logistic_provisional")
MODEL_LABELS = {
    "we": "We of sec. 4.2 (scale 400)",
    "we_pwe": "We; sec. 4.1's PWe for a player rated by the special formula",
    "logistic": "logistic curve, scale fitted",
    "logistic_provisional": "logistic curve, scale and provisional offset fitted",
}


@dataclass
class Estimate:
    """A mean with its 95% interval over events (None: too few events)."""

    n: int
    mean: Optional[float]
    low: Optional[float] = None
    high: Optional[float] = None

    def as_dict(self) -> dict:
        return {"n": self.n, "mean": self.mean, "low": self.low, "high": self.high}


def clustered_mean(per_event: Iterable[tuple[float, float]]) -> Estimate:
    """The ratio ``sum x / sum n`` of per-event (x, n) sums and its 95%
    interval (linearized cluster variance; none below two events)."""
    rows = [(x, n) for x, n in per_event if n]
    total_n = sum(n for _, n in rows)
    if not total_n:
        return Estimate(0, None)
    m = sum(x for x, _ in rows) / total_n
    c = len(rows)
    if c < 2:
        return Estimate(int(total_n), m)
    var = c / (c - 1) * sum((x - m * n) ** 2 for x, n in rows) / total_n ** 2
    half = Z95 * math.sqrt(var)
    return Estimate(int(total_n), m, m - half, m + half)


class Groups:
    """Sums per group label and event: :meth:`add` one player-game,
    :meth:`estimate` a measure of a group."""

    def __init__(self):
        self.sums: dict = {}  # label -> event -> [n, loss, brier, exp, obs, draws]

    def add(self, label, event: str, e: float, s: float) -> None:
        loss, sq = game_scores(e, s)
        row = self.sums.setdefault(label, {}).setdefault(event, [0, 0.0, 0.0, 0.0, 0.0, 0])
        row[N] += 1
        row[LOSS] += loss
        row[BRIER] += sq
        row[EXP] += e
        row[OBS] += s
        row[DRAW] += s == 0.5

    def estimate(self, label, what: int) -> Estimate:
        return clustered_mean((row[what], row[N]) for row in self.sums.get(label, {}).values())

    def row(self, label) -> dict:
        """Every measure of one group."""
        events = self.sums.get(label, {})
        return {"n": sum(r[N] for r in events.values()), "events": len(events),
                "log_loss": self.estimate(label, LOSS).as_dict(),
                "brier": self.estimate(label, BRIER).as_dict(),
                "expected": self.estimate(label, EXP).mean,
                "observed": self.estimate(label, OBS).as_dict(),
                "draws": self.estimate(label, DRAW).as_dict()}

    def table(self, order=None) -> dict:
        labels = order if order is not None else sorted(self.sums, key=str)
        return {str(k): self.row(k) for k in labels if k in self.sums}


def era_of(on, editions: Sequence) -> str:
    """The edition of the rules in force on ``on`` (``from DATE``), from
    the sorted edition dates of the rule book."""
    i = bisect_right(list(editions), on)
    return f"before {editions[0].isoformat()}" if i == 0 else f"from {editions[i - 1].isoformat()}"


def fold_of(event: str) -> int:
    """The cross-validation fold of an event (a hash of its id)."""
    return zlib.crc32(event.encode("utf-8")) % FOLDS


def published(g: PageGame) -> bool:
    """Both players have a published pre-event rating."""
    return g.status != "unrated" and g.status_i != "unrated"


def _provisional(status: str) -> int:
    return 1 if status == "provisional" else 0


# ------------------------------------------------------------------ fitting

@dataclass
class Logistic:
    """``E = 1/(1 + exp(-slope (R - Ri + offset (p - pi))))``, p 1 for a
    provisional player; ``scale`` = ln 10 / slope is the 400 of We."""

    slope: float
    offset: float = 0.0

    @property
    def scale(self) -> float:
        return math.log(10.0) / self.slope

    def expect(self, d: float, q: int) -> float:
        z = self.slope * (d + self.offset * q)
        if z >= 0:
            return 1.0 / (1.0 + math.exp(-z))
        ez = math.exp(z)
        return ez / (1.0 + ez)


def _grouped(games: Iterable[PageGame]) -> dict:
    """(R - Ri, p - pi) -> [games, points of the first player]."""
    out: dict = {}
    for g in games:
        key = (g.r - g.ri, _provisional(g.status) - _provisional(g.status_i))
        row = out.setdefault(key, [0, 0.0])
        row[0] += 1
        row[1] += g.score
    return out


def _loss(model: Logistic, grouped: dict) -> float:
    total = 0.0
    for (d, q), (n, t) in grouped.items():
        e = min(1.0 - 1e-15, max(1e-15, model.expect(d, q)))
        total -= t * math.log(e) + (n - t) * math.log(1.0 - e)
    return total


def fit_logistic(games: Iterable[PageGame], *, offset: bool) -> Logistic:
    """The logistic curve of least log-loss on ``games`` (draws as half a
    point): its slope, and with ``offset`` the provisional offset too, by
    Newton's method with step halving (Fisher information as the Hessian)."""
    grouped = _grouped(games)
    model = Logistic(math.log(10.0) / 400.0, 0.0)
    if not grouped:
        return model
    current = _loss(model, grouped)
    for _ in range(100):
        gx = gd = hxx = hxd = hdd = 0.0
        for (d, q), (n, t) in grouped.items():
            u = d + model.offset * q
            e = model.expect(d, q)
            r = n * e - t
            w = n * e * (1.0 - e)
            jx, jd = u, model.slope * q
            gx += r * jx
            hxx += w * jx * jx
            if offset:
                gd += r * jd
                hxd += w * jx * jd
                hdd += w * jd * jd
        if offset and hxx * hdd - hxd * hxd > 1e-12 * max(1.0, hxx * hdd):
            det = hxx * hdd - hxd * hxd
            sx, sd = (hdd * gx - hxd * gd) / det, (hxx * gd - hxd * gx) / det
        else:
            sx, sd = (gx / hxx if hxx else 0.0), 0.0
        step = 1.0
        while step > 1e-6:
            trial = Logistic(model.slope - step * sx, model.offset - step * sd)
            if trial.slope > 0:
                loss = _loss(trial, grouped)
                if loss <= current:
                    break
            step /= 2.0
        else:
            break
        moved = abs(trial.slope - model.slope) / model.slope + abs(trial.offset - model.offset) / 400.0
        model, current = trial, loss
        if moved < 1e-10:
            break
    return model


def _side_expectations(g: PageGame, models: dict) -> dict:
    """Each prediction's expected score of both players: (E of a, E of b)."""
    d, q = g.r - g.ri, _provisional(g.status) - _provisional(g.status_i)
    e = we(g.r, g.ri)
    out = {"we": (e, 1.0 - e),
           "we_pwe": (pwe(g.r, g.ri) if g.special else e,
                      pwe(g.ri, g.r) if g.special_i else 1.0 - e)}
    for name, model in models.items():
        x = model.expect(d, q)
        out[name] = (x, 1.0 - x)
    return out


def compare_models(games: Sequence[PageGame]) -> dict:
    """The predictions of ``MODELS`` scored out of sample (each fold's
    games by curves fitted on the other folds), with paired differences
    from We; and the curves fitted on every game (in sample)."""
    folds = [[] for _ in range(FOLDS)]
    for g in games:
        folds[fold_of(g.event)].append(g)
    sums = {m: {} for m in MODELS}        # model -> event -> [games, loss, brier]
    diffs = {m: {} for m in MODELS[1:]}   # model -> event -> [games, loss - loss of We]
    fitted_by_fold = []
    for k in range(FOLDS):
        train = [g for j in range(FOLDS) if j != k for g in folds[j]]
        models = {"logistic": fit_logistic(train, offset=False),
                  "logistic_provisional": fit_logistic(train, offset=True)}
        fitted_by_fold.append({m: {"scale": v.scale, "offset": v.offset} for m, v in models.items()})
        for g in folds[k]:
            per = _side_expectations(g, models)
            base = None
            for m in MODELS:
                ea, eb = per[m]
                la, sa = game_scores(ea, g.score)
                lb, sb = game_scores(eb, 1.0 - g.score)
                loss, brier = (la + lb) / 2.0, (sa + sb) / 2.0
                row = sums[m].setdefault(g.event, [0, 0.0, 0.0])
                row[0] += 1
                row[1] += loss
                row[2] += brier
                if m == "we":
                    base = (loss, brier)
                else:
                    drow = diffs[m].setdefault(g.event, [0, 0.0, 0.0])
                    drow[0] += 1
                    drow[1] += loss - base[0]
                    drow[2] += brier - base[1]
    whole = {"logistic": fit_logistic(games, offset=False),
             "logistic_provisional": fit_logistic(games, offset=True)}
    in_sample = {}
    for m, model in whole.items():
        loss = sum((game_scores(model.expect(g.r - g.ri, _provisional(g.status)
                                             - _provisional(g.status_i)), g.score)[0])
                   for g in games)
        in_sample[m] = {"scale": model.scale, "offset": model.offset,
                        "log_loss": loss / len(games) if games else None}
    rows = []
    for m in MODELS:
        row = {"model": m, "label": MODEL_LABELS[m],
               "log_loss": clustered_mean((r[1], r[0]) for r in sums[m].values()).as_dict(),
               "brier": clustered_mean((r[2], r[0]) for r in sums[m].values()).as_dict()}
        if m != "we":
            row["log_loss_vs_we"] = clustered_mean((r[1], r[0]) for r in diffs[m].values()).as_dict()
            row["brier_vs_we"] = clustered_mean((r[2], r[0]) for r in diffs[m].values()).as_dict()
        rows.append(row)
    return {"folds": FOLDS, "games": len(games), "out_of_sample": rows,
            "fitted_by_fold": fitted_by_fold, "in_sample": in_sample}


# ------------------------------------------------------------------ scoring

@dataclass
class PublishedScore:
    """Everything measured on the games of a set of pages."""

    pages: int
    skipped: list = field(default_factory=list)   # "file: reason"
    repeats: int = 0
    tables: dict = field(default_factory=dict)
    calibration: list = field(default_factory=list)
    draws: dict = field(default_factory=dict)
    models: dict = field(default_factory=dict)

    def as_dict(self) -> dict:
        return {"pages": self.pages, "skipped": list(self.skipped),
                "repeated_sections": self.repeats, "tables": self.tables,
                "calibration": self.calibration, "draws": self.draws, "models": self.models,
                "measures": {
                    "log_loss": "mean binomial deviance of We, draws as 1/2 (lower is better)",
                    "brier": "mean squared error of We",
                    "n": "player-games: each game from both players' sides, once per system "
                         "(status, band, calibration); games, from the favourite's side "
                         "(overall, system, era, type)",
                    "interval": "95%, events as clusters (linearized variance of a ratio)",
                    "headline": "games between two players with a published pre-event rating"}}


def score_published(games: Sequence[PageGame], editions: Sequence, *, pages: int,
                    skipped: Sequence[str] = (), repeats: int = 0) -> PublishedScore:
    """Score ``games`` (see the module text); ``editions``: the sorted dates
    of the rule book's editions (the eras)."""
    keys = ("overall", "system", "era", "type", "band", "status", "calibration")
    groups = {k: Groups() for k in keys}
    draws_level, draws_diff = Groups(), Groups()
    editions = sorted(editions)
    headline = [g for g in games if published(g)]
    for g in games:
        e = we(g.r, g.ri)
        sides = ((g.r, g.ri, g.status, e, g.score), (g.ri, g.r, g.status_i, 1.0 - e, 1.0 - g.score))
        for r, ri, status, ex, s in sides:
            groups["status"].add(status, g.event, ex, s)
        if not published(g):
            continue
        era = era_of(g.on, editions)
        for r, ri, status, ex, s in sides:
            groups["band"].add(band_of(r), g.event, ex, s)
            groups["calibration"].add(calibration_bin(r - ri), g.event, ex, s)
        # a group holding both sides of its games would show expected =
        # observed = 1/2: these hold each game once, from the favourite's side
        _, _, _, ex, s = sides[0] if g.r >= g.ri else sides[1]
        for key, label in (("overall", "all"), ("system", g.system), ("era", era),
                           ("type", g.kind)):
            groups[key].add(label, g.event, ex, s)
        draws_level.add(band_of((g.r + g.ri) / 2.0), g.event, e, g.score)
        draws_diff.add(calibration_bin(abs(g.r - g.ri)), g.event, e, g.score)
    bands = sorted(groups["band"].sums, key=_band_key)
    tables = {"overall": groups["overall"].table(),
              "status": groups["status"].table([s for s in ("established", "provisional", "unrated")]),
              "system": groups["system"].table(), "era": groups["era"].table(),
              "type": groups["type"].table(), "band": groups["band"].table(bands)}
    calibration = []
    for b in sorted(groups["calibration"].sums):
        row = groups["calibration"].row(b)
        row["diff"] = b
        calibration.append(row)
    draws = {"by_level": draws_level.table(sorted(draws_level.sums, key=_band_key)),
             "by_difference": draws_diff.table(sorted(draws_diff.sums))}
    models = compare_models(headline) if headline else {}
    return PublishedScore(pages, list(skipped), repeats, tables, calibration, draws, models)


def _band_key(label) -> float:
    label = str(label)
    if label.startswith("<"):
        return -1e9
    return float(label.rstrip("+").split("-")[0])


# ------------------------------------------------------------------ text

def _num(x: Optional[float], digits: int, signed: bool = False) -> str:
    if x is None:
        return "-"
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def _ci(est: dict, digits: int, signed: bool = False) -> str:
    """``mean [low, high]`` of an :class:`Estimate` as a dict."""
    if est is None or est.get("mean") is None:
        return "-"
    if est.get("low") is None:
        return _num(est["mean"], digits, signed)
    return (f"{_num(est['mean'], digits, signed)} [{_num(est['low'], digits, signed)}, "
            f"{_num(est['high'], digits, signed)}]")


def _group_lines(title: str, table: dict, unit: str = "player-games") -> list[str]:
    lines = ["", title,
             f"  {'':<18} {unit:>12} {'events':>6}  {'log-loss [95%]':<26} "
             f"{'Brier [95%]':<26} {'expected':>8}  {'observed [95%]':<23} {'draws [95%]':<23}"]
    for label, row in table.items():
        lines.append(f"  {label:<18} {row['n']:>12,} {row['events']:>6}  "
                     f"{_ci(row['log_loss'], 4):<26} {_ci(row['brier'], 4):<26} "
                     f"{_num(row['expected'], 3):>8}  {_ci(row['observed'], 3):<23} "
                     f"{_ci(row['draws'], 3):<23}")
    return lines


def format_published(score: PublishedScore) -> str:
    """The scores as a report: groups, calibration, draws, the predictions compared."""
    d = score.as_dict()
    t = d["tables"]
    lines = [f"{d['pages']} pages read, {len(d['skipped'])} left out, "
             f"{d['repeated_sections']} repeated sections taken once; every rated game scored "
             "by the printed pre-event ratings with We (sec. 4.2), from both players' sides",
             "headline: games between two players with a published pre-event rating; "
             "intervals 95%, events as clusters"]
    fav = "; expected and observed: the favourite's score (the higher rated player)"
    lines += _group_lines("overall" + fav, t["overall"], "games")
    lines += _group_lines("by system" + fav, t["system"], "games")
    lines += _group_lines("by era (edition of the rules in force)" + fav, t["era"], "games")
    lines += _group_lines("by event type" + fav, t["type"], "games")
    lines += _group_lines("by player status (an unrated player at the rules' step-1 initial "
                          "rating; all games)", t["status"])
    lines += _group_lines("by rating band of the player", t["band"])
    lines += ["", "calibration by rating difference R - Ri (bins of 50; the outermost hold all "
              "beyond 600)",
              f"  {'R - Ri':>7} {'player-games':>12} {'expected':>8}  {'observed [95%]':<23} "
              f"{'draws [95%]':<23}"]
    for row in d["calibration"]:
        lines.append(f"  {row['diff']:>+7.0f} {row['n']:>12,} {_num(row['expected'], 3):>8}  "
                     f"{_ci(row['observed'], 3):<23} {_ci(row['draws'], 3):<23}")
    for key, title in (("by_level", "draws by the pair's mean rating (games)"),
                       ("by_difference", "draws by |R - Ri| (games)")):
        lines += ["", title, f"  {'':<10} {'games':>9}  {'draws [95%]':<23}"]
        for label, row in d["draws"][key].items():
            shown = f"{float(label):.0f}" if key == "by_difference" else label
            lines.append(f"  {shown:<10} {row['n']:>9,}  {_ci(row['draws'], 3):<23}")
    m = d["models"]
    if m:
        lines += ["", f"predictions compared out of sample ({m['folds']}-fold cross-validation "
                  f"by event, {m['games']:,} games; differences from We paired by game)",
                  f"  {'prediction':<62} {'log-loss [95%]':<26} {'vs We [95%]':<28} "
                  f"{'Brier [95%]':<26} {'vs We [95%]':<28}"]
        for row in m["out_of_sample"]:
            vs = {k: _ci(row[k], 4, True) if k in row else "(reference)"
                  for k in ("log_loss_vs_we", "brier_vs_we")}
            lines.append(f"  {row['label']:<62} {_ci(row['log_loss'], 4):<26} "
                         f"{vs['log_loss_vs_we']:<28} {_ci(row['brier'], 4):<26} "
                         f"{vs['brier_vs_we']:<28}")
        ins = m["in_sample"]
        lines.append("  fitted on every game (in sample): logistic scale "
                     f"{_num(ins['logistic']['scale'], 1)} (log-loss "
                     f"{_num(ins['logistic']['log_loss'], 4)}); with the provisional offset: scale "
                     f"{_num(ins['logistic_provisional']['scale'], 1)}, offset "
                     f"{_num(ins['logistic_provisional']['offset'], 1, True)} points (log-loss "
                     f"{_num(ins['logistic_provisional']['log_loss'], 4)})")
    if d["skipped"]:
        lines += ["", "pages left out:"] + [f"  {s}" for s in d["skipped"]]
    return "\n".join(lines) + "\n"
