"""The generator's model fitted to the record: what real pages show about
new players, sections and draws, kept in one data file
(``engine/generator_calibration.json``, package data) that
``uschess generate --calibrated`` draws from.

:func:`fit_generator` makes the file's content from the records of
:mod:`uschess.apps.published_games` (``uschess evaluate --published PAGES
--fit-generator FILE`` writes it, and the file names the pages and the
command).  What it holds, per rating system of the section:

``first_ratings``
    quantiles (every 5%) of the first published rating of a player unrated
    before the section (the post the page prints for them), by system and,
    where ``MIN_COUNT`` first ratings or more support it, by era and system;
``first_seen``
    how the pages first show each player, by system: the shares first
    shown unrated, provisional and established, and the quantiles of the
    pre-event ratings of the latter two (with the provisional players'
    games before it): a history's players are first seen as often rated,
    and at such ratings (:meth:`CalibratedModel.prior_record`);
``sections``
    quantiles of the number of players of a section, the rounds of its
    Swiss sections (counts), the share of round robins, the mean share of
    unrated players;
``formats``
    how many sections were rated in each combination of systems (the
    generator's formats: regular, dual, quick, blitz, online);
``draws``
    a logistic curve of the chance of a draw in the pair's mean rating and
    their rating difference, ``1/(1 + exp(-(a + b (level - 1500)/400 +
    c |R - Ri|/400)))``, fitted on the games between two rated players;
``rating_changes``
    the mean and standard deviation of post minus pre-event rating,
    established and provisional players apart (figures to compare, not
    drawn from);
``targets``
    the figures a calibrated history is held against (:func:`record_figures`):
    log-loss and calibration by difference of the ratings the pages print,
    and the quantiles of first ratings, with their intervals;
``careers``
    juniors' improvement, newcomers' strength above their first rating and
    each player's form in an event (:data:`CAREERS`): model choices, not
    fitted from the pages but chosen by a search against the targets (the
    file says so); the other parts of a career (drift, activity) are the
    generator's own.
"""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Optional, Sequence

from uschess.apps.calibration import era_of, published, score_published
from uschess.apps.published_games import PageRecords
from uschess.errors import InputError

CALIBRATION_FILE = Path(__file__).resolve().parent.parent / "generator_calibration.json"
FORMAT = "uschess-generator-calibration-2"
#: The careers of a calibrated history (``careers`` in the file), model
#: choices: the pages show no careers.
#:
#: * ``junior_below``, ``junior_room``, ``junior_pace``: a newcomer whose
#:   strength is below ``junior_below`` is a junior, whose ceiling lies an
#:   exponential ``junior_room`` points above on average and who closes
#:   ``junior_pace`` of the gap a year (1 - exp(-pace t));
#: * ``first_lift``, ``first_lift_below``: a newcomer's strength is a first
#:   rating of the record raised by ``first_lift`` times itself (at most
#:   times ``first_lift_below``);
#: * ``form``: the standard deviation of a player's form in one event (the
#:   strength the results of that event are drawn from is the true strength
#:   plus a normal draw of this spread, one per player and event);
#: * ``veteran_games``: the games of the OTBR record a player first seen
#:   established brings (``first_seen``): the pages print no game counts
#:   of established players; 50 is at least sec. 3's effective number N'
#:   at every rating, so such a player has the K of a long history.
#:
#: ``junior_below``, ``junior_room`` and ``junior_pace`` are the earlier
#: search's (a grid of room 150 to 800 and pace 0.2 to 1.0 on seeds 1-3),
#: kept.  ``form`` (70, 80 or 90) and ``first_lift`` (0: with players first
#: seen rated, the opponents' ratings no longer lag their strengths, the
#: cause of the earlier lift) were chosen on the histories of seeds 1, 2
#: and 3 (3,000 players, 1,000 events): the form whose log-loss overlapped
#: the record's interval on all three with the most calibration bins and
#: first-rating quantiles overlapping the record's.  Those figures are
#: in-sample on seeds 1 to 3 (docs/findings-calibration.md says what else
#: was tried).
CAREERS = {"junior_below": 1300.0, "junior_room": 250.0, "junior_pace": 0.35,
           "first_lift": 0.0, "first_lift_below": 1200.0, "form": 80.0,
           "veteran_games": 50,
           "source": "model choices, not fitted from the pages: form and first_lift chosen "
                     "from a grid on generated histories of seeds 1-3 (3,000 players, 1,000 "
                     "events) as the values whose log-loss overlapped the record's interval "
                     "with the most calibration bins and first-rating quantiles overlapping "
                     "the record's; those figures are in-sample; veteran_games is at least "
                     "sec. 3's N' at every rating (uschess.apps.generator_fit.CAREERS)"}
#: Quantile levels kept (0%, 5%, ..., 100%).
LEVELS = tuple(k / 20.0 for k in range(21))
#: Fewest values a quantile table is kept for (else the coarser table is used).
MIN_COUNT = 50
#: The system the target figures are taken in (every corpus has it).
TARGET_SYSTEM = "OTBR"
#: The generator's formats by the systems a section was rated in.
FORMAT_OF = {("OTBR",): "regular", ("OTBQ", "OTBR"): "dual", ("OTBQ",): "quick",
             ("OTBB",): "blitz", ("OLB",): "online-blitz", ("OLQ",): "online-quick",
             ("OLR",): "online-regular"}


def quantiles(values: Sequence[float], levels: Sequence[float] = LEVELS) -> list[float]:
    """The quantiles of ``values`` at ``levels`` (linear between order
    statistics)."""
    xs = sorted(values)
    if not xs:
        return []
    out = []
    for q in levels:
        pos = q * (len(xs) - 1)
        i = int(math.floor(pos))
        j = min(i + 1, len(xs) - 1)
        out.append(xs[i] + (xs[j] - xs[i]) * (pos - i))
    return out


def quantile_intervals(values: Sequence[float], levels: Sequence[float] = LEVELS) -> dict:
    """95% intervals of the quantiles of ``values`` at ``levels``, free of
    any distribution: the order statistics at ranks (from 1) n q -+ 1.96
    sqrt(n q (1 - q)), rounded outwards (the binomial's normal
    approximation).  They take the values
    as independent, which first ratings of one section are not quite: a
    little narrow, if anything."""
    xs = sorted(values)
    n = len(xs)
    if not n:
        return {"low": [], "high": []}
    low, high = [], []
    for q in levels:
        half = 1.96 * math.sqrt(n * q * (1.0 - q))
        low.append(xs[max(0, min(n - 1, int(math.floor(n * q - half)) - 1))])
        high.append(xs[max(0, min(n - 1, int(math.ceil(n * q + half)) - 1))])
    return {"low": low, "high": high}


def draw_from(rng, table: Sequence[float]) -> float:
    """A value drawn from a quantile table (every level equally wide)."""
    u = rng.random() * (len(table) - 1)
    i = min(int(u), len(table) - 2)
    return table[i] + (table[i + 1] - table[i]) * (u - i)


def _fit_draws(games) -> dict:
    """The draw curve of least log-loss (Newton's method on the games
    grouped by level and difference bins of 10 points)."""
    grouped: dict = {}
    for g in games:
        key = (round((g.r + g.ri) / 20.0) * 10.0, round(abs(g.r - g.ri) / 10.0) * 10.0)
        row = grouped.setdefault(key, [0, 0])
        row[0] += 1
        row[1] += g.score == 0.5
    beta = [-2.0, 0.0, 0.0]

    def features(level, diff):
        return (1.0, (level - 1500.0) / 400.0, diff / 400.0)

    for _ in range(50):
        grad = [0.0] * 3
        hess = [[0.0] * 3 for _ in range(3)]
        for (level, diff), (n, k) in grouped.items():
            x = features(level, diff)
            z = sum(b * xi for b, xi in zip(beta, x))
            p = 1.0 / (1.0 + math.exp(-z))
            for i in range(3):
                grad[i] += (n * p - k) * x[i]
                for j in range(3):
                    hess[i][j] += n * p * (1.0 - p) * x[i] * x[j]
        step = _solve(hess, grad)
        beta = [b - s for b, s in zip(beta, step)]
        if max(abs(s) for s in step) < 1e-10:
            break
    return {"intercept": beta[0], "level": beta[1], "difference": beta[2],
            "games": sum(n for n, _ in grouped.values())}


def _solve(a, b) -> list[float]:
    """``a x = b`` for a small symmetric positive system (Gauss-Jordan)."""
    n = len(b)
    m = [list(row) + [v] for row, v in zip(a, b)]
    for c in range(n):
        piv = max(range(c, n), key=lambda r: abs(m[r][c]))
        m[c], m[piv] = m[piv], m[c]
        if abs(m[c][c]) < 1e-300:
            return [0.0] * n
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [x - f * y for x, y in zip(m[r], m[c])]
    return [m[i][n] / m[i][i] for i in range(n)]


def draw_chance(draws: dict, level: float, diff: float) -> float:
    """The fitted chance of a draw between players of mean rating ``level``
    and rating difference ``diff``."""
    z = (draws["intercept"] + draws["level"] * (level - 1500.0) / 400.0
         + draws["difference"] * abs(diff) / 400.0)
    return 1.0 / (1.0 + math.exp(-z))


def _sd(xs: Sequence[float]) -> Optional[float]:
    if len(xs) < 2:
        return None
    m = sum(xs) / len(xs)
    return math.sqrt(sum((x - m) ** 2 for x in xs) / (len(xs) - 1))


def _spread(shapes) -> Optional[float]:
    """The within-section standard deviation of pre-event ratings, pooled
    over sections of four or more rated players (weighted by players)."""
    rows = [(s.spread, s.players) for s in shapes
            if s.spread is not None and s.players - s.unrated >= 4]
    total = sum(n for _, n in rows)
    return math.sqrt(sum(sd * sd * n for sd, n in rows) / total) if total else None


def record_figures(records: Sequence[PageRecords], editions, *,
                   system: str = TARGET_SYSTEM) -> dict:
    """The figures a corpus and a generated history are compared by, in one
    system: log-loss of the printed (or replayed) pre-event ratings, the
    calibration by difference, and the quantiles of first ratings."""
    games = [g for r in records for g in r.games if g.system == system]
    score = score_published(games, editions, pages=len(records))
    firsts = [c.post for r in records for c in r.changes
              if c.system == system and c.status == "unrated"]
    overall = score.tables["overall"].get("all")
    return {"system": system, "games": len([g for g in games if published(g)]),
            "log_loss": overall["log_loss"] if overall else None,
            "calibration": [{"diff": c["diff"], "n": c["n"], "expected": c["expected"],
                             "observed": c["observed"]} for c in score.calibration],
            "logistic_scale": (score.models["in_sample"]["logistic"]["scale"]
                               if score.models else None),
            "first_ratings": {"n": len(firsts), "quantiles": quantiles(firsts),
                              **quantile_intervals(firsts)},
            "rating_changes": {status: _change_spread(records, system, status)
                               for status in ("established", "provisional")},
            "activity": activity(records, system)}


def activity(records, system: str) -> dict:
    """Quantiles of the events and rated games per player and calendar year
    in ``system``, over the player-years with at least one event in the
    records (a corpus holds only some of its players' events: these are
    lower bounds of the players' activity)."""
    years: dict = {}
    seen: set = set()
    for r in records:
        for c in r.changes:
            if c.system != system or not c.player or (c.event, c.player) in seen:
                continue
            seen.add((c.event, c.player))  # two sections of one event: one event
            row = years.setdefault((c.player, c.on.year), [0, 0])
            row[0] += 1
    for r in records:
        for c in r.changes:
            if c.system == system and c.player:
                years.setdefault((c.player, c.on.year), [0, 0])[1] += c.played
    return {"player_years": len(years),
            "events": quantiles([e for e, _ in years.values()]),
            "games": quantiles([g for _, g in years.values()])}


def _change_spread(records, system: str, status: str) -> dict:
    diffs = [c.post - c.pre for r in records for c in r.changes
             if c.system == system and c.status == status and c.pre is not None]
    return {"n": len(diffs), "mean": sum(diffs) / len(diffs) if diffs else None, "sd": _sd(diffs)}


def first_seen(changes) -> dict:
    """By system, how the records first show each player (the earliest of a
    player's changes; their order on a tie): the shares of ``unrated``,
    ``provisional`` and ``established`` players, and for the latter two the
    quantiles of the pre-event rating (and, provisional, of the games
    before it: printed games after the section less its rated games).
    Systems with fewer than ``MIN_COUNT`` players of either are left out."""
    first: dict = {}
    for c in changes:
        if c.player:
            old = first.get((c.system, c.player))
            if old is None or c.on < old.on:
                first[(c.system, c.player)] = c
    by_system: dict = {}
    for (system, _), c in first.items():
        by_system.setdefault(system, []).append(c)
    out = {}
    for system, rows in sorted(by_system.items()):
        prov = [c for c in rows if c.status == "provisional"]
        est = [c for c in rows if c.status == "established"]
        if len(prov) < MIN_COUNT or len(est) < MIN_COUNT:
            continue
        out[system] = {
            "players": len(rows), "unrated": 1.0 - (len(prov) + len(est)) / len(rows),
            "provisional": {"share": len(prov) / len(rows), "n": len(prov),
                            "quantiles": quantiles([c.pre for c in prov]),
                            "games": quantiles([max(0, c.games - c.played) for c in prov])},
            "established": {"share": len(est) / len(rows), "n": len(est),
                            "quantiles": quantiles([c.pre for c in est])}}
    return out


def fit_generator(records: Sequence[PageRecords], editions, *, source: dict) -> dict:
    """The calibration file's content fitted to ``records`` (see the module
    text); ``source`` says which pages and command it came from."""
    shapes = [s for r in records for s in r.shapes]
    changes = [c for r in records for c in r.changes]
    games = [g for r in records for g in r.games if published(g)]
    if not shapes or not games:
        raise InputError("no rated games to fit the generator to")
    systems = sorted({s.system for s in shapes})
    first: dict = {}
    by_era: dict = {}
    for c in changes:
        if c.status == "unrated":
            first.setdefault(c.system, []).append(c.post)
            by_era.setdefault(era_of(c.on, editions), {}).setdefault(c.system, []).append(c.post)
    sections: dict = {}
    for system in systems:
        mine = [s for s in shapes if s.system == system and s.players >= 2]
        if not mine:
            continue
        rounds: dict = {}
        for s in mine:
            if s.kind == "swiss":
                rounds[str(s.rounds)] = rounds.get(str(s.rounds), 0) + 1
        sections[system] = {
            "count": len(mine), "players": quantiles([s.players for s in mine]),
            "swiss_rounds": dict(sorted(rounds.items(), key=lambda kv: int(kv[0]))),
            "round_robin_share": sum(s.kind == "round-robin" for s in mine) / len(mine),
            "unrated_share": sum(s.unrated / s.players for s in mine) / len(mine),
            "rating_spread": _spread(mine),
            "spreads": quantiles([s.spread for s in mine
                                  if s.spread is not None and s.players - s.unrated >= 4]),
            "pool_spread": _sd([c.pre for c in changes
                                if c.system == system and c.pre is not None])}
    combos: dict = {}
    for s in shapes:
        combos.setdefault((s.event, s.section), set()).add(s.system)
    formats: dict = {}
    for found in combos.values():
        name = FORMAT_OF.get(tuple(sorted(found)))
        if name:
            formats[name] = formats.get(name, 0) + 1
    changes_sd = {}
    for system in systems:
        row = {}
        for status in ("established", "provisional"):
            diffs = [c.post - c.pre for c in changes
                     if c.system == system and c.status == status and c.pre is not None]
            row[status] = {"n": len(diffs), "mean": sum(diffs) / len(diffs) if diffs else None,
                           "sd": _sd(diffs)}
        changes_sd[system] = row
    if len(first.get("OTBR", ())) < MIN_COUNT:
        raise InputError(f"the pages hold {len(first.get('OTBR', ()))} first OTBR ratings of "
                         f"new players: the generator's fit needs at least {MIN_COUNT}")
    return {
        "format": FORMAT, "source": source,
        "first_ratings": {s: {"n": len(v), "quantiles": quantiles(v)}
                          for s, v in sorted(first.items()) if len(v) >= MIN_COUNT},
        "first_ratings_by_era": {
            era: {s: {"n": len(v), "quantiles": quantiles(v)}
                  for s, v in sorted(rows.items()) if len(v) >= MIN_COUNT}
            for era, rows in sorted(by_era.items())},
        "first_seen": first_seen(changes),
        "sections": sections, "formats": dict(sorted(formats.items())),
        "draws": _fit_draws(games), "rating_changes": changes_sd,
        "targets": record_figures(records, editions), "careers": dict(CAREERS)}


def write_calibration(path, content: dict) -> None:
    """The calibration as JSON (full precision, keys in a fixed order), all
    or nothing."""
    from uschess.io.files import write_text_atomic
    write_text_atomic(Path(path), json.dumps(content, indent=1) + "\n")


def load_calibration(path=None) -> dict:
    """The calibration file (default: the one the package carries), checked
    for its format."""
    from uschess.io.textdata import parse_data, read_limited_text
    path = Path(path) if path is not None else CALIBRATION_FILE
    data = parse_data(read_limited_text(path, 64 * 1024 * 1024, "calibration file"),
                      json_format=True, source=path)
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise InputError(f"not a generator calibration (format {FORMAT})", file=path)
    try:
        check_calibration(data)
    except InputError as err:
        raise err.located(file=path)
    return data


def _number(x, what: str, lo: float = -math.inf, hi: float = math.inf) -> float:
    if isinstance(x, bool) or not isinstance(x, (int, float)) or not lo <= x <= hi:
        raise InputError(f"{what}: {x!r} is not a number from {lo:g} to {hi:g}")
    return x


def _table(raw, what: str) -> None:
    """A quantile table: at least two ratings, never decreasing."""
    if not isinstance(raw, dict) or not isinstance(raw.get("quantiles"), list) \
            or len(raw["quantiles"]) < 2:
        raise InputError(f"{what}: give the quantiles as a list of two or more numbers")
    qs = [_number(q, what, -4000.0, 4000.0) for q in raw["quantiles"]]
    if any(b < a for a, b in zip(qs, qs[1:])):
        raise InputError(f"{what}: the quantiles decrease")


def check_calibration(data: dict) -> None:
    """Refuse, in one line naming the entry, a calibration ``generate
    --calibrated`` could not draw from (a file edited by hand)."""
    for key in ("first_ratings", "first_ratings_by_era", "sections", "formats", "draws",
                "careers"):
        if not isinstance(data.get(key), dict):
            raise InputError(f"the calibration has no {key!r} table")
    if "OTBR" not in data["first_ratings"] or "OTBR" not in data["sections"]:
        raise InputError("the calibration has no OTBR first ratings or sections")
    for system, raw in data["first_ratings"].items():
        _table(raw, f"first_ratings {system}")
    for era, rows in data["first_ratings_by_era"].items():
        for system, raw in (rows.items() if isinstance(rows, dict) else [(None, None)]):
            _table(raw, f"first_ratings_by_era {era} {system or ''}".rstrip())
    for system, seen in (data.get("first_seen") or {}).items():
        for status in ("provisional", "established"):
            raw = seen.get(status) if isinstance(seen, dict) else None
            _table(raw, f"first_seen {system} {status}")
            _number(raw.get("share"), f"first_seen {system} {status} share", 0.0, 1.0)
        _table({"quantiles": seen["provisional"].get("games")},
               f"first_seen {system} provisional games")
    for system, sec in data["sections"].items():
        what = f"sections {system}"
        if not isinstance(sec, dict):
            raise InputError(f"{what}: not a table")
        _table({"quantiles": sec.get("players")}, f"{what} players")
        rounds = sec.get("swiss_rounds")
        if not isinstance(rounds, dict) or not all(
                k.isdigit() and 0 < int(k) <= 999 and _number(v, f"{what} swiss_rounds", 0) >= 0
                for k, v in rounds.items()):
            raise InputError(f"{what} swiss_rounds: give counts by a number of rounds 1..999")
        for key in ("round_robin_share", "unrated_share"):
            _number(sec.get(key), f"{what} {key}", 0.0, 1.0)
        if sec.get("spreads") is not None:
            _table({"quantiles": sec["spreads"]}, f"{what} spreads")
        for key in ("rating_spread", "pool_spread"):
            if sec.get(key) is not None:
                _number(sec[key], f"{what} {key}", 0.0, 4000.0)
    weights = [_number(v, f"formats {k}", 0.0) for k, v in data["formats"].items()]
    if not any(weights):
        raise InputError("formats: no format has a section")
    for key in ("intercept", "level", "difference"):
        _number(data["draws"].get(key), f"draws {key}", -50.0, 50.0)
    careers = data["careers"]
    for key, lo, hi in (("junior_below", 0.0, 4000.0), ("junior_room", 1.0, 4000.0),
                        ("junior_pace", 0.0, 10.0), ("first_lift", 0.0, 1.0),
                        ("first_lift_below", 0.0, 4000.0), ("form", 0.0, 1000.0)):
        _number(careers.get(key), f"careers {key}", lo, hi)
    if "veteran_games" in careers:
        _number(careers["veteran_games"], "careers veteran_games", 0, 100000)


#: The system whose tables a generated format draws its sections from.
FORMAT_SYSTEM = {"regular": "OTBR", "dual": "OTBR", "quick": "OTBQ", "blitz": "OTBB",
                 "online-blitz": "OLB", "online-quick": "OLQ", "online-regular": "OLR"}


class CalibratedModel:
    """What ``generate --calibrated`` draws from a calibration: the format
    of an event, the size, rounds and type of its section, the seats
    newcomers take, a newcomer's strength (the first published ratings of
    the era and system) and the chance of a draw."""

    def __init__(self, data: dict, editions: Sequence):
        self.data = data
        self.editions = sorted(editions)
        careers = data["careers"]
        self.junior_below = careers["junior_below"]
        self.junior_room = careers["junior_room"]
        self.junior_pace = careers["junior_pace"]
        self.form = careers["form"]
        seen = (data.get("first_seen") or {}).get("OTBR")
        self.first_seen = seen if seen and "veteran_games" in careers else None
        self.veteran_games = int(careers.get("veteran_games", 0))

    def format_weight(self, kind: str) -> float:
        return float(self.data["formats"].get(kind, 0))

    def _section(self, kind: str) -> dict:
        system = FORMAT_SYSTEM[kind]
        return self.data["sections"].get(system) or self.data["sections"]["OTBR"]

    def size(self, rng, kind: str, most: int) -> int:
        return max(4, min(most, int(round(draw_from(rng, self._section(kind)["players"])))))

    def rounds(self, rng, kind: str) -> int:
        counts = self._section(kind)["swiss_rounds"] or {"4": 1}
        total = sum(counts.values())
        x = rng.random() * total
        for rounds, k in counts.items():
            x -= k
            if x < 0:
                return int(rounds)
        return int(rounds)

    def round_robin(self, rng, kind: str) -> bool:
        return rng.random() < self._section(kind)["round_robin_share"]

    def level_width(self, kind: str, rng=None) -> Optional[float]:
        """The width of the acceptance curve by strength that makes a
        section drawn from a pool of the record's spread of ratings have
        the record's spread within sections (normal curves:
        1/sd_section^2 = 1/sd_pool^2 + 1/width^2); None when the sections
        are as spread as the pool.  With ``rng``, the section's spread is
        drawn from the record's spreads of single sections (``spreads``,
        where the calibration has them), else it is the record's pooled
        one."""
        sec = self._section(kind)
        inner, pool = sec.get("rating_spread"), sec.get("pool_spread")
        if rng is not None and sec.get("spreads"):
            inner = draw_from(rng, sec["spreads"])
        if not inner or not pool or inner >= pool:
            return None
        return 1.0 / math.sqrt(inner ** -2 - pool ** -2)

    def newcomer_seats(self, kind: str, size: int) -> int:
        return int(math.ceil(self._section(kind)["unrated_share"] * size))

    def first_strength(self, rng, on) -> float:
        """A newcomer's over-the-board strength: a first published OTBR
        rating of the era of ``on`` (of every era where the era has too few)."""
        era = self.data["first_ratings_by_era"].get(era_of(on, self.editions), {})
        table = (era.get("OTBR") or self.data["first_ratings"]["OTBR"])["quantiles"]
        return draw_from(rng, table)

    def newcomer_strength(self, rng, on) -> float:
        """A newcomer's strength at the first event: a first rating
        (:meth:`first_strength`) raised by the careers' ``first_lift``."""
        careers = self.data["careers"]
        first = self.first_strength(rng, on)
        return first + careers["first_lift"] * min(first, careers["first_lift_below"])

    def prior_record(self, rng) -> Optional[tuple[float, int]]:
        """The OTBR rating and games a player brings to the first event:
        None (a newcomer, unrated) as often as the record first shows its
        players unrated; else provisional or established as often as it
        shows them so, at a rating of those it shows (and, provisional, the
        games before it; established: the careers' ``veteran_games``).
        Always None when the calibration has no ``first_seen`` table or its
        careers no ``veteran_games``."""
        seen = self.first_seen
        if not seen:
            return None
        u = rng.random()
        prov, est = seen["provisional"], seen["established"]
        if u < prov["share"]:
            games = int(round(draw_from(rng, prov["games"])))
            return draw_from(rng, prov["quantiles"]), max(1, games)
        if u < prov["share"] + est["share"]:
            return draw_from(rng, est["quantiles"]), self.veteran_games
        return None

    def draw_chance(self, a: float, b: float) -> float:
        return draw_chance(self.data["draws"], (a + b) / 2.0, a - b)


def calibrated_model(path=None) -> CalibratedModel:
    """The model of the calibration file ``path`` (default: the package's)."""
    import datetime as _dt
    from uschess.calendar.rulebook import RuleBook
    editions = [_dt.date.fromisoformat(k) for k in RuleBook.load().editions]
    return CalibratedModel(load_calibration(path), editions)


def history_figures(events, editions, *, book=None) -> dict:
    """:func:`record_figures` of a history replayed under the rules in
    force: each event as a page printing the ratings the replay gave."""
    from uschess.apps.evaluate import replay_chain
    from uschess.apps.published_games import history_records
    from uschess.rating.pipeline import RatingOptions
    rated = replay_chain(events, RatingOptions(trace=False), book=book)
    return record_figures(history_records(rated), editions)
