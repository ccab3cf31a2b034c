"""Which rules predict better: score rule versions on a history.

``evaluate(events, sides)`` replays a history under each version of the
rules (a :class:`~uschess.apps.compare.RuleSide`, written as in ``compare``)
and scores every rated game by the ratings that version had given its two
players *before* the event: the expected score is sec. 4.2's winning
expectancy We(R, Ri) (:func:`uschess.formulas.we`), the observed score 1, 1/2
or 0.  A player with no rating yet is scored at the version's step-1 initial
rating (sec. 2), the rating that version starts them from.

Every game is scored from both players' sides (both sides give the same
log-loss and Brier score, so the means are those of the games; the splits by
status and band put each side where its player belongs).  A dual-rated game
is scored once in each system it is rated in.

The measures:

``log_loss``
    mean binomial deviance ``-(S ln E + (1 - S) ln(1 - E))`` with a draw as
    S = 1/2 (E kept within [1e-15, 1 - 1e-15]); lower is better; 0.693 is
    what a coin that always says 1/2 scores on decisive games.
``brier``
    mean ``(E - S)^2``; lower is better; 0.25 is the always-1/2 coin.
``calibration``
    per bin of the rating difference R - Ri (``CALIBRATION_WIDTH`` points;
    the outermost bins take everything beyond ``CALIBRATION_LIMIT``): the
    number of player-games, the mean expected and the mean observed score.
    A calibrated version has observed = expected in every bin.
``drift``
    at the end of each year, in one system (OTBR unless told): the mean
    rating of a fixed cohort (the players established at the first year end
    at which at least ``COHORT_MIN`` are; chosen under each version, the same
    players unless a version changes who is established), and the mean
    rating of the pool (players rated in that system who played in it that
    year).  With true strengths, the same means of the truth.
``truth``
    on a generated history (``truth.csv`` beside the events): over every
    player-event with a pre-event rating, the root mean square error of the
    pre-event rating against the player's true strength in that system on
    the event's date, and Spearman's rank correlation between them.
``ranking``
    the versions ordered by log-loss; each version's difference in log-loss
    and Brier from the first version given, with a paired bootstrap interval
    over events (``BOOTSTRAP`` resamples of the events with replacement, the
    same resamples for every version, a fixed seed: the same input gives the
    same interval).
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import math
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional, Sequence

from uschess.apps.compare import RuleSide, order_events
from uschess.calendar.rulebook import RuleBook
from uschess.errors import InputError
from uschess.formulas import we
from uschess.io.eventfile import number_field, mapping, parse_date
from uschess.io.textdata import kind_of, refuse_unknown
from uschess.model import Event
from uschess.rating.pipeline import EventResult, RatingOptions

#: Width of a calibration bin (rating points of R - Ri) and the difference
#: beyond which everything shares the outermost bin.
CALIBRATION_WIDTH = 50.0
CALIBRATION_LIMIT = 600.0
#: Edges of the rating bands of the split by band (below the first, between
#: two, from the last); a player's band is that of the rating the game was
#: scored with.
BANDS = (1000.0, 1400.0, 1800.0, 2200.0)
#: Least number of established players the drift cohort starts with.
COHORT_MIN = 50
#: Bootstrap resamples and seed.
BOOTSTRAP = 1000
BOOTSTRAP_SEED = 20010101
#: E is kept this far from 0 and 1 in the log-loss.
CLIP = 1e-15
STATUSES = ("established", "provisional", "unrated")
#: What one player-game adds to each sum of a tally at most (and at least 0).
MAX_PER_GAME = {"log_loss": -math.log(CLIP), "brier": 1.0, "expected": 1.0, "observed": 1.0}
#: The most player-games a count of a results file may hold.
MAX_COUNT = 10**12


# ------------------------------------------------------------------ the chain

def replay_chain(events: Iterable, options: RatingOptions, *,
                 book: Optional[RuleBook] = None) -> list[tuple[str, object, EventResult]]:
    """The history (events and FIDE updates) rated in chain order under
    ``options``, each player's record after an event carried into their
    next: ``(key, event or update, result)``.

    The one place this module touches the in-memory chain of ``compare``
    (:func:`uschess.apps.compare.replay`)."""
    from uschess.apps.compare import replay
    ordered = order_events(events)
    results = replay(ordered, dataclasses.replace(options, trace=False), book=book)
    return [(key, ev, res) for (key, ev), res in zip(ordered, results)]


# ------------------------------------------------------------------ tallies

@dataclass
class Tally:
    """Sums over player-games: count, log-loss, Brier, expected and observed score."""

    n: int = 0
    log_loss: float = 0.0
    brier: float = 0.0
    expected: float = 0.0
    observed: float = 0.0

    def add(self, e: float, s: float, loss: float, sq: float) -> None:
        self.n += 1
        self.log_loss += loss
        self.brier += sq
        self.expected += e
        self.observed += s

    def means(self) -> dict:
        n = self.n
        return {"n": n,
                "log_loss": self.log_loss / n if n else None,
                "brier": self.brier / n if n else None,
                "expected": self.expected / n if n else None,
                "observed": self.observed / n if n else None}

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict, what: str = "tally") -> "Tally":
        """A tally as :meth:`as_dict` wrote it, checked as input (a results
        file is read back): a count, and sums that many player-games can
        make (each adds 0 to ``MAX_PER_GAME`` to each; none when there is
        none; a margin of 1e-9 for the rounding of the sums)."""
        d = _fields(d, {"n", *MAX_PER_GAME}, what)
        n = number_field(d, "n", what, integer=True, required=True, lo=0, hi=MAX_COUNT)
        return cls(n, **{k: number_field(d, k, what, required=True, lo=0.0, hi=n * most * (1.0 + 1e-9))
                         for k, most in MAX_PER_GAME.items()})


def game_scores(e: float, s: float) -> tuple[float, float]:
    """(log-loss, Brier) of expected score ``e`` against observed ``s``."""
    ec = min(1.0 - CLIP, max(CLIP, e))
    return -(s * math.log(ec) + (1.0 - s) * math.log(1.0 - ec)), (e - s) ** 2


def band_of(rating: float) -> str:
    """The label of the rating band (``BANDS``) ``rating`` falls in."""
    if rating < BANDS[0]:
        return f"<{BANDS[0]:.0f}"
    for lo, hi in zip(BANDS, BANDS[1:] + (None,)):
        if hi is None:
            return f"{lo:.0f}+"
        if rating < hi:
            return f"{lo:.0f}-{hi - 1:.0f}"
    raise AssertionError(rating)


def calibration_bin(diff: float) -> float:
    """The centre of the calibration bin of rating difference ``diff``."""
    d = max(-CALIBRATION_LIMIT, min(CALIBRATION_LIMIT, diff))
    k = math.floor(d / CALIBRATION_WIDTH + 0.5)
    return k * CALIBRATION_WIDTH


@dataclass
class DriftPoint:
    """Means at one year end in the drift system (None: nobody to average)."""

    date: _dt.date
    cohort_mean: Optional[float]
    cohort_n: int
    pool_mean: Optional[float]
    pool_n: int
    cohort_true: Optional[float] = None
    pool_true: Optional[float] = None

    def as_dict(self) -> dict:
        d = dataclasses.asdict(self)
        d["date"] = self.date.isoformat()
        return d

    @classmethod
    def from_dict(cls, d: dict, what: str = "drift point") -> "DriftPoint":
        """A point as :meth:`as_dict` wrote it, checked as input."""
        d = _fields(d, {f.name for f in dataclasses.fields(cls)}, what)
        counts = {k: number_field(d, k, what, integer=True, required=True, lo=0, hi=MAX_COUNT)
                  for k in ("cohort_n", "pool_n")}
        means = {k: number_field(d, k, what)
                 for k in ("cohort_mean", "pool_mean", "cohort_true", "pool_true")}
        return cls(parse_date(d["date"], f"{what}: date"), **counts, **means)


@dataclass
class TruthScore:
    """Pre-event ratings against the true strengths."""

    n: int
    rmse: Optional[float]
    mean_error: Optional[float]
    spearman: Optional[float]

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict, what: str = "truth score") -> "TruthScore":
        """A score as :meth:`as_dict` wrote it, checked as input."""
        d = _fields(d, {f.name for f in dataclasses.fields(cls)}, what)
        return cls(number_field(d, "n", what, integer=True, required=True, lo=0, hi=MAX_COUNT),
                   number_field(d, "rmse", what, lo=0), number_field(d, "mean_error", what),
                   number_field(d, "spearman", what))


@dataclass
class VersionScores:
    """Everything measured for one version of the rules."""

    spec: str
    label: str
    overall: Tally = field(default_factory=Tally)
    systems: dict = field(default_factory=dict)       # system -> Tally
    statuses: dict = field(default_factory=dict)      # established/provisional/unrated -> Tally
    bands: dict = field(default_factory=dict)         # band label -> Tally
    calibration: dict = field(default_factory=dict)   # bin centre -> Tally
    events: list = field(default_factory=list)        # [(event key, Tally)] in chain order
    drift_system: str = "OTBR"
    drift: list = field(default_factory=list)         # [DriftPoint]
    truth: dict = field(default_factory=dict)         # "all"/system -> TruthScore

    def as_dict(self) -> dict:
        return {
            "spec": self.spec, "label": self.label, **self.overall.means(),
            "systems": {k: v.means() for k, v in sorted(self.systems.items())},
            "statuses": {k: self.statuses[k].means() for k in STATUSES if k in self.statuses},
            "bands": {k: v.means() for k, v in sorted(self.bands.items(), key=_band_order)},
            "calibration": [{"diff": b, **self.calibration[b].means()}
                            for b in sorted(self.calibration)],
            "drift_system": self.drift_system,
            "drift": [p.as_dict() for p in self.drift],
            "truth": {k: v.as_dict() for k, v in self.truth.items()},
        }

    def to_state(self) -> dict:
        """Every sum, for a results file (:meth:`from_state` reads it back exactly)."""
        return {"spec": self.spec, "label": self.label, "overall": self.overall.as_dict(),
                "systems": {k: v.as_dict() for k, v in self.systems.items()},
                "statuses": {k: v.as_dict() for k, v in self.statuses.items()},
                "bands": {k: v.as_dict() for k, v in self.bands.items()},
                "calibration": [[b, t.as_dict()] for b, t in self.calibration.items()],
                "events": [[k, t.as_dict()] for k, t in self.events],
                "drift_system": self.drift_system,
                "drift": [p.as_dict() for p in self.drift],
                "truth": {k: v.as_dict() for k, v in self.truth.items()}}

    @classmethod
    def from_state(cls, d: dict, what: str = "state") -> "VersionScores":
        """The scores of :meth:`to_state`, every part checked as input (a
        results file is read back): an InputError names the part."""
        d = _fields(d, STATE_KEYS, what)
        texts = {k: _text(d[k], f"{what}.{k}") for k in ("spec", "label", "drift_system")}

        def tallies(key: str) -> dict:
            return {_text(k, f"{what}.{key}"): Tally.from_dict(v, f"{what}.{key}.{k}")
                    for k, v in mapping(d[key], f"{what}.{key}").items()}

        def pairs(key: str) -> list:
            return [(first, Tally.from_dict(t, f"{what}.{key}[{i}]"))
                    for i, (first, t) in enumerate(_pairs(d[key], f"{what}.{key}"))]

        calibration = {}
        for i, (b, t) in enumerate(pairs("calibration")):
            calibration[number_field({"bin": b}, "bin", f"{what}.calibration[{i}]", required=True)] = t
        return cls(**texts, overall=Tally.from_dict(d["overall"], f"{what}.overall"),
                   systems=tallies("systems"), statuses=tallies("statuses"),
                   bands=tallies("bands"), calibration=calibration,
                   events=[(_text(k, f"{what}.events[{i}]"), t)
                           for i, (k, t) in enumerate(pairs("events"))],
                   drift=[DriftPoint.from_dict(p, f"{what}.drift[{i}]")
                          for i, p in enumerate(_list(d["drift"], f"{what}.drift"))],
                   truth={_text(k, f"{what}.truth"): TruthScore.from_dict(v, f"{what}.truth.{k}")
                          for k, v in mapping(d["truth"], f"{what}.truth").items()})


#: The parts of a version's state (:meth:`VersionScores.to_state`).
STATE_KEYS = {"spec", "label", "overall", "systems", "statuses", "bands", "calibration",
              "events", "drift_system", "drift", "truth"}


def _fields(d, keys: set, what: str) -> dict:
    """``d``, a mapping of exactly ``keys``."""
    d = mapping(d, what)
    refuse_unknown(d, keys, what)
    missing = sorted(keys - d.keys())
    if missing:
        raise InputError(f"{what}: missing {', '.join(repr(k) for k in missing)}")
    return d


def _text(value, what: str) -> str:
    if not isinstance(value, str):
        raise InputError(f"{what} must be text, not {kind_of(value)}")
    return value


def _list(value, what: str) -> list:
    if not isinstance(value, list):
        raise InputError(f"{what} must be a list, not {kind_of(value)}")
    return value


def _pairs(value, what: str) -> list:
    """``value``, a list of two-item lists."""
    for i, item in enumerate(_list(value, what)):
        if not isinstance(item, list) or len(item) != 2:
            raise InputError(f"{what}[{i}] must be a list of two items, not {kind_of(item)}"
                             + (f" of {len(item)}" if isinstance(item, list) else ""))
    return value


def _band_order(item) -> float:
    label = item[0]
    return float(label.lstrip("<").split("-")[0].rstrip("+")) - (1e6 if label.startswith("<") else 0)


# ------------------------------------------------------------------ scoring

def _ranks(values: Sequence[float]) -> list[float]:
    """Ranks 1..n, ties sharing their mean rank."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        mean = (i + j) / 2.0 + 1.0
        for k in range(i, j + 1):
            ranks[order[k]] = mean
        i = j + 1
    return ranks


def spearman(xs: Sequence[float], ys: Sequence[float]) -> Optional[float]:
    """Spearman's rank correlation (Pearson's on mid-ranks); None below 3 pairs
    or when either side is constant."""
    if len(xs) < 3:
        return None
    rx, ry = _ranks(xs), _ranks(ys)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    if sxx == 0 or syy == 0:
        return None
    return sxy / math.sqrt(sxx * syy)


def _truth_score(pairs: list[tuple[float, float]]) -> TruthScore:
    if not pairs:
        return TruthScore(0, None, None, None)
    errs = [r - t for r, t in pairs]
    return TruthScore(len(pairs), math.sqrt(sum(e * e for e in errs) / len(errs)),
                      sum(errs) / len(errs), spearman([r for r, _ in pairs], [t for _, t in pairs]))


def _year_ends(first: _dt.date, last: _dt.date) -> list[_dt.date]:
    return [_dt.date(y, 12, 31) for y in range(first.year, last.year + 1)]


def score_version(side: RuleSide, rated: Sequence[tuple[str, Event, EventResult]], *,
                  truth: Optional[dict] = None, drift_system: str = "OTBR",
                  cohort: Optional[set] = None) -> tuple[VersionScores, set]:
    """Score one version's replay (``rated``: :func:`replay_chain`'s output).
    ``cohort``: the drift cohort's ids (None: chosen here, see the module
    text).  Returns the scores and the cohort used."""
    vs = VersionScores(side.spec, side.label, drift_system=drift_system)
    current: dict[str, float] = {}          # drift system: id -> rating now
    latest_truth: dict[str, float] = {}     # drift system: id -> true strength last seen
    games: dict[str, int] = {}              # drift system: id -> N
    established_games = None
    active_year: set = set()
    truth_pairs: dict[str, list] = {}
    ends = _year_ends(rated[0][2].event.end, rated[-1][2].event.end) if rated else []
    end_i = 0

    def snapshot(on: _dt.date) -> None:
        nonlocal cohort
        if cohort is None and established_games is not None:
            est = {pid for pid, n in games.items() if n > established_games}
            if len(est) >= COHORT_MIN:
                cohort = est
        # sorted: sums in one order whatever the process's string hashing
        members = sorted(pid for pid in (cohort or ()) if pid in current)
        pool = sorted(pid for pid in active_year if pid in current)

        def mean(ids, src):
            vals = [src[i] for i in ids if i in src]
            return sum(vals) / len(vals) if vals else None

        vs.drift.append(DriftPoint(
            on, mean(members, current), len(members), mean(pool, current), len(pool),
            mean(members, latest_truth) if truth else None,
            mean(pool, latest_truth) if truth else None))
        active_year.clear()

    for key, _, result in rated:
        event = result.event  # an event, or a FIDE update as a one-section event
        while end_i < len(ends) and ends[end_i] < event.end:
            snapshot(ends[end_i])
            end_i += 1
        tally = Tally()
        for sr in result.sections:
            system = sr.system
            players = {p.pair: p for p in sr.players if p.m}
            entries = {p.pair: p for p in sr.section.players}
            used = {}
            for pair, pr in players.items():
                # a FIDE update's player has no games here (their games are abroad)
                used[pair] = pr.pre if pr.pre is not None else getattr(pr.initial, "rating", None)
            est = sr.rules.p.established_games
            if system == drift_system:
                established_games = est
            sys_tally = vs.systems.setdefault(system, Tally())
            for pair, pr in players.items():
                r = used[pair]
                if pr.pre is None:
                    status = "unrated"
                elif pr.games_before > est:
                    status = "established"
                else:
                    status = "provisional"
                band = band_of(r)
                st_tally = vs.statuses.setdefault(status, Tally())
                band_tally = vs.bands.setdefault(band, Tally())
                for rnd in entries[pair].rounds:
                    if not rnd.rated:
                        continue
                    ri = used[rnd.opponent]
                    e = we(r, ri)
                    s = rnd.points
                    loss, sq = game_scores(e, s)
                    for t in (vs.overall, sys_tally, st_tally, band_tally, tally,
                              vs.calibration.setdefault(calibration_bin(r - ri), Tally())):
                        t.add(e, s, loss, sq)
                if truth is not None and pr.pre is not None:
                    true = truth.get((event.id, pr.id))
                    if true is not None and system in true:
                        truth_pairs.setdefault(system, []).append((pr.pre, true[system]))
                if system == drift_system:
                    current[pr.id] = pr.post
                    games[pr.id] = pr.games_after
                    active_year.add(pr.id)
                    if truth is not None:
                        true = truth.get((event.id, pr.id))
                        if true is not None:
                            latest_truth[pr.id] = true[system]
        vs.events.append((key, tally))
    while end_i < len(ends):
        snapshot(ends[end_i])
        end_i += 1
    if truth is not None:
        everything = [x for pairs in truth_pairs.values() for x in pairs]
        vs.truth["all"] = _truth_score(everything)
        for system in sorted(truth_pairs):
            vs.truth[system] = _truth_score(truth_pairs[system])
    return vs, cohort or set()


def evaluate_side(side: RuleSide, events: Sequence[Event], *, truth: Optional[dict] = None,
                  drift_system: str = "OTBR", cohort: Optional[set] = None,
                  book: Optional[RuleBook] = None) -> tuple[VersionScores, set]:
    """Replay ``events`` under ``side`` and score it (:func:`score_version`)."""
    rated = replay_chain(events, side.options, book=book)
    return score_version(side, rated, truth=truth, drift_system=drift_system, cohort=cohort)


# ------------------------------------------------------------------ ranking

def _ratio(rows: Sequence[Tally], idx: Sequence[int], attr: str) -> Optional[float]:
    n = sum(rows[i].n for i in idx)
    return sum(getattr(rows[i], attr) for i in idx) / n if n else None


def bootstrap_difference(ref: VersionScores, other: VersionScores, attr: str, *,
                         resamples: int = BOOTSTRAP, seed: int = BOOTSTRAP_SEED) -> dict:
    """The difference ``other - ref`` in the mean of ``attr`` ("log_loss" or
    "brier") and its 95% paired bootstrap interval over events (events
    resampled with replacement; both versions take the same resample)."""
    keys_ref = [k for k, _ in ref.events]
    if keys_ref != [k for k, _ in other.events]:
        raise InputError(f"{other.spec}: not rated from the same history as {ref.spec}")
    a = [t for _, t in ref.events]
    b = [t for _, t in other.events]
    n = len(a)
    everything = range(n)
    base_a, base_b = _ratio(a, everything, attr), _ratio(b, everything, attr)
    diff = None if base_a is None or base_b is None else base_b - base_a
    rng = random.Random(seed)
    draws = []
    for _ in range(resamples if n else 0):
        idx = rng.choices(everything, k=n)
        xa, xb = _ratio(a, idx, attr), _ratio(b, idx, attr)
        if xa is not None and xb is not None:
            draws.append(xb - xa)
    draws.sort()
    low = draws[int(0.025 * (len(draws) - 1))] if draws else None
    high = draws[int(math.ceil(0.975 * (len(draws) - 1)))] if draws else None
    return {"diff": diff, "low": low, "high": high, "resamples": len(draws)}


def ranking(versions: Sequence[VersionScores]) -> list[dict]:
    """The versions by mean log-loss (lowest first; ties by Brier, then
    order given), each with its differences from the first version given."""
    ref = versions[0]
    rows = []
    for i, v in enumerate(versions):
        m = v.overall.means()
        row = {"spec": v.spec, "label": v.label, "n": m["n"], "log_loss": m["log_loss"],
               "brier": m["brier"], "order": i}
        if i:
            row["vs_first"] = {attr: bootstrap_difference(ref, v, attr)
                               for attr in ("log_loss", "brier")}
        else:
            row["vs_first"] = None
        if v.truth.get("all"):
            row["rmse"] = v.truth["all"].rmse
            row["spearman"] = v.truth["all"].spearman
        rows.append(row)
    rows.sort(key=lambda r: (math.inf if r["log_loss"] is None else r["log_loss"],
                             math.inf if r["brier"] is None else r["brier"], r["order"]))
    for rank, row in enumerate(rows, start=1):
        row["rank"] = rank
    return rows


@dataclass
class Evaluation:
    """The versions' scores, in the order given, and what they were scored on."""

    versions: list[VersionScores]
    events: int
    truth: bool

    def as_dict(self) -> dict:
        return {"events": self.events, "truth": self.truth,
                "reference": self.versions[0].spec,
                "ranking": ranking(self.versions),
                "versions": [v.as_dict() for v in self.versions],
                "measures": {"log_loss": "mean binomial deviance, draws as 1/2 (lower is better)",
                             "brier": "mean squared error of We (lower is better)",
                             "n": "player-games scored (each game from both sides, "
                                  "once per system it is rated in)",
                             "bootstrap": f"95% paired interval over events, {BOOTSTRAP} resamples"}}


def evaluate(events: Sequence[Event], sides: Sequence[RuleSide], *, truth: Optional[dict] = None,
             drift_system: str = "OTBR", book: Optional[RuleBook] = None,
             progress=None) -> Evaluation:
    """Score every version of ``sides`` on ``events``, one after another
    (each version on its own: the same result as one task per version)."""
    if not sides:
        raise InputError("give at least one --rules version to evaluate")
    book = book or RuleBook.load()
    out = []
    for side in sides:
        vs, _ = evaluate_side(side, events, truth=truth, drift_system=drift_system, book=book)
        out.append(vs)
        if progress:
            progress(vs)
    return Evaluation(out, len(events), truth is not None)


# ------------------------------------------------------------------ loading

def find_truth(paths: Sequence[str]) -> Optional[Path]:
    """``truth.csv`` in a directory given as HISTORY (the first found)."""
    from uschess.apps.generate import TRUTH_FILE
    for raw in paths:
        p = Path(raw)
        if p.is_dir() and (p / TRUTH_FILE).is_file():
            return p / TRUTH_FILE
    return None


# ------------------------------------------------------------------ text

def format_mean(x: Optional[float], digits: int = 4, signed: bool = False) -> str:
    """A mean (or a difference of means) as the reports print it: ``-`` for
    None, a mean of nothing (no rated game, nobody to average)."""
    if x is None:
        return "-"
    return f"{x:+.{digits}f}" if signed else f"{x:.{digits}f}"


def _interval(d: Optional[dict], digits: int = 4) -> str:
    if not d or d["diff"] is None:
        return "-"
    low, high = (format_mean(d[k], digits, True) for k in ("low", "high"))
    return f"{format_mean(d['diff'], digits, True)} [{low}, {high}]"


def format_ranking(rows: Sequence[dict], reference: str) -> list[str]:
    """The ranking table as text lines."""
    width = max([len(r["spec"]) for r in rows] + [7])
    has_truth = any("rmse" in r for r in rows)
    head = (f"{'rank':>4}  {'version':<{width}} {'player-games':>12} {'log-loss':>9} {'Brier':>8}  "
            f"{'log-loss vs first [95%]':<32} {'Brier vs first [95%]':<32}")
    if has_truth:
        head += f" {'RMSE':>7} {'Spearman':>8}"
    lines = [head, "-" * len(head)]
    for r in rows:
        line = (f"{r['rank']:>4}  {r['spec']:<{width}} {r['n']:>12} "
                f"{format_mean(r['log_loss'], 5):>9} {format_mean(r['brier'], 5):>8}  "
                f"{(_interval(r['vs_first']['log_loss'], 5) if r['vs_first'] else '(first)'):<32} "
                f"{(_interval(r['vs_first']['brier'], 5) if r['vs_first'] else '(first)'):<32}")
        if has_truth:
            line += f" {format_mean(r.get('rmse'), 1):>7} {format_mean(r.get('spearman'), 4):>8}"
        lines.append(line)
    lines.append(f"differences: version minus {reference}; intervals from {BOOTSTRAP} paired "
                 "bootstrap resamples of the events")
    return lines


def format_text(ev: Evaluation) -> str:
    """The evaluation as a report: ranking, splits, calibration, drift, truth."""
    data = ev.as_dict()
    vs = data["versions"]
    lines = []
    for i, v in enumerate(vs):
        lines.append(f"{chr(65 + i) if i < 26 else i} = {v['spec']}: {v['label']}")
    lines.append(f"{ev.events} events; every rated game scored by the pre-event ratings "
                 "(unrated players at their step-1 initial rating), from both players' sides")
    lines.append("")
    lines += format_ranking(data["ranking"], data["reference"])
    names = [chr(65 + i) if i < 26 else str(i) for i in range(len(vs))]

    def table(title: str, key: str, order: Sequence[str]) -> None:
        lines.append("")
        lines.append(title)
        lines.append(f"  {'':<14}" + "".join(f" {n + ' n':>9} {n + ' log-loss':>11} {n + ' Brier':>9}"
                                             for n in names))
        for k in order:
            cells = ""
            for v in vs:
                m = v[key].get(k)
                cells += (f" {m['n']:>9} {format_mean(m['log_loss'], 5):>11} "
                          f"{format_mean(m['brier'], 5):>9}"
                          if m else f" {'-':>9} {'-':>11} {'-':>9}")
            lines.append(f"  {k:<14}" + cells)

    systems = sorted({s for v in vs for s in v["systems"]})
    table("per system", "systems", systems)
    table("by player status (the rating used: pre-event, or step-1 initial when unrated)",
          "statuses", [s for s in STATUSES if any(s in v["statuses"] for v in vs)])
    bands = sorted({b for v in vs for b in v["bands"]}, key=lambda b: _band_order((b, None)))
    table("by rating band of the rating used", "bands", bands)

    lines.append("")
    lines.append(f"calibration: mean expected (We) and observed score by rating difference "
                 f"R - Ri (bins of {CALIBRATION_WIDTH:.0f}; the outermost take all beyond "
                 f"{CALIBRATION_LIMIT:.0f})")
    lines.append(f"  {'R - Ri':>7}" + "".join(f" {n + ' n':>9} {n + ' exp':>7} {n + ' obs':>7}"
                                              for n in names))
    bins = sorted({c["diff"] for v in vs for c in v["calibration"]})
    for b in bins:
        cells = ""
        for v in vs:
            c = next((c for c in v["calibration"] if c["diff"] == b), None)
            cells += (f" {c['n']:>9} {format_mean(c['expected'], 3):>7} "
                      f"{format_mean(c['observed'], 3):>7}"
                      if c else f" {'-':>9} {'-':>7} {'-':>7}")
        lines.append(f"  {b:>+7.0f}" + cells)

    lines.append("")
    system = vs[0]["drift_system"]
    lines.append(f"drift in {system} at each year end: mean rating of a fixed cohort "
                 f"(established at the first year end with {COHORT_MIN} or more) and of the "
                 "pool (rated players active that year)" + ("; 'true' columns: the same "
                                                             "players' true strengths" if ev.truth else ""))
    head = f"  {'year':<6}" + "".join(f" {n + ' cohort':>10} {n + ' pool':>10}" for n in names)
    if ev.truth:
        head += f" {'true cohort':>12} {'true pool':>10}"
    head += f" {'cohort n':>9} {'pool n':>7}"
    lines.append(head)
    for i, point in enumerate(vs[0]["drift"]):
        row = f"  {point['date'][:4]:<6}"
        for v in vs:
            p = v["drift"][i]
            row += f" {format_mean(p['cohort_mean'], 1):>10} {format_mean(p['pool_mean'], 1):>10}"
        if ev.truth:
            row += (f" {format_mean(point['cohort_true'], 1):>12} "
                    f"{format_mean(point['pool_true'], 1):>10}")
        row += f" {point['cohort_n']:>9} {point['pool_n']:>7}"
        lines.append(row)
    if ev.truth:
        lines.append("")
        lines.append("against the true strengths (pre-event ratings of rated players): "
                     "RMSE, mean error (rating - truth), Spearman")
        for n, v in zip(names, vs):
            parts = []
            for k, t in v["truth"].items():
                parts.append(f"{k} n={t['n']} RMSE {format_mean(t['rmse'], 1)} "
                             f"mean {format_mean(t['mean_error'], 1, True)} "
                             f"rho {format_mean(t['spearman'], 3)}")
            lines.append(f"  {n}: " + "; ".join(parts))
    return "\n".join(lines) + "\n"
