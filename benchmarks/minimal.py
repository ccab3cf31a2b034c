"""A minimal pure-Python rating of sec. 1, the yardstick of the benchmarks.

    python benchmarks/minimal.py EVENT.json|EVENT.yaml [--params FILE] [--json]
    python benchmarks/minimal.py --replay DIR --db FILE [--params FILE]
    python benchmarks/minimal.py --write-params FILE --on 2025-03-21

It rates sections whose rules are those in force on one date, the five steps
of sec. 1 written out in one place: step 1 (blended initialization of sec. 2
from the player's ratings in the other US Chess systems as they stand before
the section, FIDE and CFC, or the age-based rating of sec. 2.3 with the
2020-09 fallbacks), step 2 (N' = min(N, N*), sec. 3), step 3 (the special
formula with N' = 1 for new players, sec. 1), steps 4 and 5 (the special
formula's knot walk of sec. 4.1 and the standard formula of sec. 4.2 with the
K exception for OTBR in dual-rated sections and the 2020-09 bonus
eligibility), the absolute floor at each of steps 3-5, the personal floors of
sec. 5 on the final rating (personal absolute, with the event's own counts
where earlier ones are unknown; established; OLM) and ratings stored as
floats.  Sections of an event are rated one after another, a player's result
in one system feeding the next section he plays in it.

Every number comes from the project's rule book, read once
(``RuleBook.load().rules(date).p``) or from a file written from it
(``--write-params``), so that a child process need not load the rule book:
nothing is typed twice.

What it leaves out (the benchmark events contain none of it): other dates'
rules (priority-list initialization, integer storage, older wordings; the
rules in force are checked on load and anything else is refused), matches,
FIDE updates, half-K events, prize floors, floors lowered after a match,
declared ``systems``, time controls other than ``G/mm;dS``, ``G/mm+S`` and
``G/mm``, input validation, warnings, traces.

``--replay`` reads the JSON event files of a directory as the engine's
replay does (an ordering pass that reads the first files in full and keeps
their events, up to ``--keep-players`` player entries, and glances at the
header of the others, read again at their turn), rates them in replay order
(end date, start date, id) with every player's state in memory, and writes
each event, its changes and the players' new records with the plain
``sqlite3`` module, ``--commit-every N`` events to a transaction, in WAL mode
with ``synchronous=NORMAL`` as the engine's store.  Without ``--db`` it
writes nothing: the reading and the rating alone.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import math
import re
import sqlite3
import sys
from bisect import bisect_left, bisect_right
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

#: The rules this implementation follows, slot by slot (the rule book's names;
#: match_unallowed is read only in a match section, which this file does not rate).
PLUGINS = {"classify": "classify-ranges", "age": "age-2020-09", "initialize": "blended",
           "special": "special-knot-walk", "k_factor": "k-dual-otbr", "bonus": "bonus-2020-09",
           "floors": "floors-sec5", "storage": "store-float",
           "match_unallowed": "match-hold-provisional"}
SCORES = {"W": 1.0, "D": 0.5, "L": 0.0}
_TC = re.compile(r"^G/(\d+(?:\.\d+)?)(?:\s*(?:;\s*d|d|\+)\s*(\d+))?$", re.IGNORECASE)


# ------------------------------------------------------------------ inputs
@dataclass(slots=True)
class Rec:
    """A player's record in one system (as ``uschess.model.SystemRecord``)."""

    rating: float
    games: int
    wins: Optional[int] = None
    draws: Optional[int] = None
    losses: Optional[int] = None
    events3: Optional[int] = None
    peak: Optional[float] = None
    olm: bool = False
    date: Optional[_dt.date] = None
    above2200: Optional[int] = None


@dataclass(slots=True)
class Entry:
    """One player of a section: identity, other ratings and the rated games."""

    pair: int
    id: str
    birth: Optional[_dt.date]
    adult: Optional[bool]
    fide: Optional[tuple]          # (rating, date)
    cfc: Optional[tuple]           # (rating, date, canadian)
    ratings: dict                  # system -> Rec, as in the file
    opps: list                     # opponent pairs of the rated games
    score: float = 0.0
    wins: int = 0
    losses: int = 0


@dataclass(slots=True)
class Sec:
    name: str
    total: float                   # mm + ss
    online: bool
    end: _dt.date
    players: list


@dataclass(slots=True)
class Post:
    """One player's result in one system."""

    system: str
    section: str
    pair: int
    id: str
    pre: Optional[float]
    post: float
    rec: Rec


def _date(x) -> Optional[_dt.date]:
    if x is None or isinstance(x, _dt.date):
        return x
    return _dt.date.fromisoformat(str(x))


def _rec(raw: dict) -> Rec:
    return Rec(float(raw["rating"]), int(raw.get("games", 0)), raw.get("wins"), raw.get("draws"),
               raw.get("losses"), raw.get("events3"), raw.get("peak"), bool(raw.get("olm")),
               _date(raw.get("date")), raw.get("games_above_2200"))


def _entry(pair, pid, birth, adult, fide, cfc, ratings, cells) -> Entry:
    e = Entry(pair, pid, birth, adult, fide, cfc, ratings, [])
    for code, opp in cells:
        if opp is not None and code in SCORES:
            s = SCORES[code]
            e.opps.append(opp)
            e.score += s
            e.wins += s == 1.0
            e.losses += s == 0.0
    return e


def _cell(text: str):
    text = str(text).strip().upper()
    return text[0], (int(text[1:]) if text[1:] else None)


def _total(tc: str) -> float:
    m = _TC.match(tc.strip())
    if m is None:
        raise SystemExit(f"minimal.py: time control {tc!r} is not G/mm;dS, G/mm+S or G/mm")
    return float(m.group(1)) + float(m.group(2) or 0)


def event_from_dict(raw: dict) -> tuple[str, _dt.date, _dt.date, list]:
    """(id, start, end, sections) of an event file's data."""
    ev = raw["event"]
    start = _date(ev["start"])
    end = _date(ev.get("end") or start)
    secs = []
    for s in raw["sections"]:
        players = []
        for p in s["players"]:
            fide = p.get("fide")
            cfc = p.get("cfc")
            players.append(_entry(
                int(p["pair"]), str(p["id"]), _date(p.get("birth_date")), p.get("adult"),
                (float(fide["rating"]), _date(fide.get("date"))) if fide else None,
                (float(cfc["rating"]), _date(cfc.get("date")), bool(cfc.get("canadian")))
                if cfc else None,
                {k: _rec(v) for k, v in (p.get("ratings") or {}).items()},
                [_cell(c) for c in p.get("rounds", [])]))
        secs.append(Sec(s["name"], _total(s["time_control"]), bool(s.get("online", ev.get("online"))),
                        _date(s.get("end") or end), players))
    return str(ev.get("id") or ev["name"]), start, end, secs


def sections_from_event(event) -> list:
    """The sections of a ``uschess.model.Event`` (read by attribute only)."""
    out = []
    for s in event.sections:
        players = [_entry(
            p.pair, p.id, p.birth_date, p.adult,
            (p.fide.rating, p.fide.date) if p.fide else None,
            (p.cfc.rating, p.cfc.date, p.cfc.canadian) if p.cfc else None,
            {k: Rec(r.rating, r.games, r.wins, r.draws, r.losses, r.events3, r.peak, r.olm,
                    r.date, r.games_above_2200) for k, r in p.ratings.items()},
            [(r.code, r.opponent) for r in p.rounds]) for p in s.players]
        out.append(Sec(s.name, _total(s.time_control), s.online, s.end, players))
    return out


# ------------------------------------------------------------------ rules
def load_params(on: _dt.date, path: Optional[str] = None) -> dict:
    """The parameters in force on ``on``, from the rule book or a file
    written by :func:`write_params`; refuses rules this file does not follow."""
    if path:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    else:
        data = params_from_book(on)
    p = data["p"]
    if data["plugins"] != PLUGINS or p["special_start"] != "prior" or not p["special_p_inclusive"]:
        raise SystemExit(f"minimal.py: the rules in force ({data['plugins']}) are not the "
                         f"ones this file follows ({PLUGINS})")
    p["systems"] = data["systems"]
    return data


def params_from_book(on: _dt.date) -> dict:
    from uschess.calendar.rulebook import RuleBook
    rules = RuleBook.load().rules(on)
    from uschess.model import SYSTEMS
    return {"on": on.isoformat(), "fingerprint": rules.fingerprint, "systems": list(SYSTEMS),
            "plugins": {k: v.value for k, v in rules.plugins.items()}, "p": dict(rules.p.__dict__)}


def systems(P: dict, total: float, online: bool) -> list:
    """Sec. 1 footnote 1: the systems whose range admits mm + ss."""
    out = []
    for row in P["time_control_ranges"]:
        if row["system"].startswith("OL") != online:
            continue
        if ("from" in row and total < row["from"]) or ("above" in row and total <= row["above"]) \
                or ("upto" in row and total > row["upto"]) or ("below" in row and total >= row["below"]):
            continue
        out.append(row["system"])
    return out


# ------------------------------------------------------------------ step 1
def age_rating(e: Entry, on: _dt.date, P: dict) -> float:
    """Sec. 2.3 (2020-09 fallbacks): 100 under 2, 50 x Age to 26, 1300 over;
    no birth date or an age under 3: 1300 for an adult, else 750."""
    a = P["age_formula"]
    if e.birth is not None:
        age = (on - e.birth).days / a["days_per_year"]
        if age >= a["miscoded_below"]:
            if age < a["young_below"]:
                return a["young"]
            return a["old"] if age > a["old_above"] else a["per_year"] * age
    return a["adult"] if e.adult else P["unrated_default"]


def _convert(x: float, pieces: list) -> float:
    for piece in pieces:
        if ("below" in piece and not x < piece["below"]) or ("upto" in piece and not x <= piece["upto"]):
            continue
        return piece["intercept"] + piece["slope"] * x
    raise ValueError(x)


def initial(e: Entry, ratings: dict, system: str, end: _dt.date, P: dict) -> tuple[float, int]:
    """Sec. 2, blended from ``ratings`` (the player's records in every system
    before the section), FIDE and CFC: R0 = sum(W_k X_k)/sum(W_k) rounded,
    W_k = G_k S_k, N = ceil(min(10, sum W_k)); no source: the age-based
    rating, N = 0."""
    b = P["blended"]
    src = []
    for other, rec in ratings.items():
        if other != system:
            g = b["by_target"].get(system, {}).get(other, b["by_source"].get(other, b["default_factor"]))
            src.append((rec.rating, min(g, rec.games), rec.date))
    if e.fide is not None:
        f, when = e.fide
        src.append((_convert(f, P["fide_conversion"]),
                    b["fide_high"] if f > b["fide_above"] else b["fide_low"], when))
    if e.cfc is not None and (e.cfc[2] or not b["cfc_canadian_only"]):
        src.append((_convert(e.cfc[0], P["cfc_conversion"]), b["cfc_factor"], e.cfc[1]))
    if not src:
        return age_rating(e, end, P), 0
    sw = swx = 0.0
    for x, g, when in src:
        d = max(0, (end - when).days)
        z = min(b["z_cap"], (x - age_rating(e, when, P)) / b["z_scale"])
        w = g * math.exp(b["staleness_rate"] * (z - b["z_cap"]) * d / b["days_per_year"])
        sw += w
        swx += w * x
    return float(math.floor(swx / sw + 0.5)), math.ceil(min(b["n_cap"], sw))


# ------------------------------------------------------------- steps 3-5
def special(r0: float, n_eff: float, opps: list, score: float, all_wins: bool,
            all_losses: bool, P: dict) -> float:
    """Sec. 4.1: the R with N' PWe(R, R0') + sum PWe(R, Ri) = S', by the knot
    walk from M = R0'; a flat stretch at the root gives the point nearest R0;
    capped at 2700."""
    eps = P["special_eps"]
    if all_wins:
        r0a, sa = r0 - 400.0, score + n_eff
    elif all_losses:
        r0a, sa = r0 + 400.0, score
    else:
        r0a, sa = r0, score + n_eff / 2.0

    def f(r):
        x = r - r0a
        t = n_eff * (0.0 if x <= -400.0 else 1.0 if x >= 400.0 else 0.5 + x / 800.0) - sa
        for ri in opps:
            x = r - ri
            if x > -400.0:
                t += 1.0 if x >= 400.0 else 0.5 + x / 800.0
        return t

    knots = sorted({r0a - 400.0, r0a + 400.0, *[ri - 400.0 for ri in opps],
                    *[ri + 400.0 for ri in opps]})
    m = r0a
    fm = f(m)
    for _ in range(4 * len(knots) + 8):
        if fm > eps:                                   # move left to the next knot
            i = bisect_left(knots, m)
            if i == 0:
                break
            za = knots[i - 1]
            fa = f(za)
            m = za if abs(fm - fa) < eps else max(za, m - fm * (m - za) / (fm - fa))
        elif fm < -eps:                                # move right
            j = bisect_right(knots, m)
            if j == len(knots):
                break
            zb = knots[j]
            fb = f(zb)
            m = zb if abs(fb - fm) < eps else min(zb, m - fm * (zb - m) / (fb - fm))
        else:
            break
        fm = f(m)
    # step 4 of 4.1: no PWe term on its slope means M is in a flat stretch
    if abs(fm) <= eps and abs(m - r0a) > 400.0 and all(abs(m - ri) > 400.0 for ri in opps):
        i, j = bisect_left(knots, m), bisect_right(knots, m)
        za = knots[i - 1] if i > 0 else -math.inf
        zb = knots[j] if j < len(knots) else math.inf
        if j > i:                                      # on a knot: the flat side of it
            if i > 0 and abs(f(za)) <= eps:
                zb = m
            else:
                za = m
        m = r0 if za <= r0 <= zb else (za if r0 < za else zb)
    return min(m, P["special_cap"])


def standard(r0: float, k: float, opps: list, score: float, eligible: bool, P: dict) -> float:
    """Sec. 4.2: R0 + K(S - E) + max(0, K(S - E) - B sqrt(max(m, 4)))."""
    e = 0.0
    for ri in opps:
        e += 1.0 / (1.0 + 10.0 ** (-(r0 - ri) / 400.0))
    gain = k * (score - e)
    bonus = max(0.0, gain - P["bonus_multiplier"] * math.sqrt(max(len(opps), P["bonus_m_prime_min"]))) \
        if eligible else 0.0
    return r0 + gain + bonus


# ------------------------------------------------------------- a section
def rate_section(sec: Sec, system: str, before: dict, dual: bool, P: dict) -> list[Post]:
    """Steps 1-5 and the finish for one section in one system; ``before``
    maps a pair to its records by system before the section; ``dual``: the
    section is rated in every system of dual rating."""
    records = {pair: r.get(system) for pair, r in before.items()}
    floor100 = P["absolute_floor"]
    ns = P["nstar"]
    est = P["established_games"]
    kd = P["k_dual"]
    playing = [e for e in sec.players if e.opps]
    by_pair = {e.pair: e for e in playing}
    r0, n, n_eff, sp, fresh = {}, {}, {}, {}, {}
    for e in playing:                                  # steps 1 and 2
        rec = records.get(e.pair)
        if rec is None:
            r0[e.pair], n[e.pair] = initial(e, before[e.pair], system, sec.end, P)
            fresh[e.pair] = n[e.pair] == 0
        else:
            r0[e.pair], n[e.pair] = rec.rating, rec.games
        r = r0[e.pair]
        nstar = ns["cap"] if r > ns["flat_above"] else \
            ns["cap"] / math.sqrt(ns["a"] + ns["b"] * (ns["center"] - r) ** 2)
        n_eff[e.pair] = min(float(n[e.pair]), nstar)
        aw = rec is not None and rec.games > 0 and rec.wins == rec.games
        al = rec is not None and rec.games > 0 and rec.losses == rec.games
        sp[e.pair] = (aw, al) if (n[e.pair] <= P["special_max_games"] or aw or al) else None
    k, elig = {}, {}
    for e in playing:
        if sp[e.pair] is None:
            m = len(e.opps)
            r = r0[e.pair]
            if system == "OTBR" and dual and kd["time_from"] <= sec.total <= kd["time_to"] \
                    and r > kd["above"]:
                num = kd["top_numerator"] if r >= kd["top"] else \
                    P["k_numerator"] * (kd["slope_a"] - kd["slope_b"] * r)
            else:
                num = P["k_numerator"]
            k[e.pair] = num / (n_eff[e.pair] + m)
            most = max(Counter(e.opps).values())
            elig[e.pair] = (m > 3 and most <= 2) or (m == 3 and most <= 1)
    seed = dict(r0)
    for pair, new in fresh.items():                    # step 3
        if new:
            e = by_pair[pair]
            seed[pair] = max(special(r0[pair], P["step3_n_eff"], [r0[o] for o in e.opps],
                                     e.score, False, False, P), floor100)

    def step(opp_rating):                              # steps 4 and 5
        out = {}
        for e in playing:
            opps = [opp_rating[o] for o in e.opps]
            if sp[e.pair] is not None:
                v = special(r0[e.pair], n_eff[e.pair], opps, e.score, *sp[e.pair], P)
            else:
                v = standard(r0[e.pair], k[e.pair], opps, e.score, elig[e.pair], P)
            out[e.pair] = max(v, floor100)
        return out

    step5 = step(step(seed))
    posts = []
    for e in playing:                                  # floors, storage, record
        rec = records.get(e.pair)
        value = step5[e.pair]
        m = len(e.opps)
        draws = m - e.wins - e.losses
        three = 1 if m >= P["event_rated_games"] else 0

        def add(before, extra):
            return extra if rec is None else (None if before is None else before + extra)

        games = (rec.games if rec else n[e.pair]) + m    # a new player: step 1's N + m
        was_est = rec is not None and rec.games > est
        peak = rec.peak if rec else None
        for x in (rec.rating if was_est else None, value if games > est else None):
            if x is not None and (peak is None or x > peak):
                peak = x
        olm = P["olm"]
        a2200 = None if rec is not None and rec.above2200 is None else \
            (rec.above2200 if rec else 0) + (m if was_est and rec.rating > olm["above"] else 0)
        after = Rec(value, games, add(rec.wins if rec else 0, e.wins),
                    add(rec.draws if rec else 0, draws), add(rec.losses if rec else 0, e.losses),
                    add(rec.events3 if rec else 0, three), peak,
                    bool(rec and rec.olm) or (a2200 is not None and a2200 >= olm["games"]),
                    sec.end, a2200)
        floor = floor100                               # sec. 5 on the final rating
        if system in P["personal_floor_systems"]:
            pf = P["personal_floor"]
            # an unknown earlier count: the event's own (every history reaches it)
            nw = e.wins if after.wins is None else after.wins
            nd = draws if after.draws is None else after.draws
            nr = three if after.events3 is None else after.events3
            floor = max(floor, min(pf["base"] + pf["win"] * nw + pf["draw"] * nd
                                   + pf["event"] * nr, pf["cap"]))
        if after.peak is not None:
            target = math.floor(after.peak + 0.5) - P["floor_drop"]
            levels = [lv for lv in P["floor_levels"] if lv <= target]
            if levels:
                floor = max(floor, max(levels))
        if after.olm and system in P["olm_systems"]:
            floor = max(floor, olm["floor"])
        post = float(floor) if value < floor else value   # stored as a float
        after.rating = post
        if games > est:
            after.peak = post if after.peak is None else max(after.peak, post)
        posts.append(Post(system, sec.name, e.pair, e.id, rec.rating if rec else None, post, after))
    return posts


def rate_event(sections: list, P: dict, state: Optional[dict] = None) -> list[Post]:
    """Every section in every system, in order; ``state`` maps (id, system)
    to the latest record and is updated (a fresh one: the file's records).
    Each section starts from every system's record as it stands before it
    (the state's, else the file's)."""
    state = {} if state is None else state
    order = P["systems"]
    out = []
    for sec in sections:
        before = {}
        for e in sec.players:
            ratings = dict(e.ratings)
            for system in order:
                rec = state.get((e.id, system))
                if rec is not None:
                    ratings[system] = rec
            before[e.pair] = ratings
        rated = systems(P, sec.total, sec.online)
        dual = bool(P["dual_rating_systems"]) and all(s in rated for s in P["dual_rating_systems"])
        for system in rated:
            posts = rate_section(sec, system, before, dual, P)
            for p in posts:
                state[(p.id, system)] = p.rec
            out.extend(posts)
    return out


# ------------------------------------------------------------------ replay
SCHEMA = ["CREATE TABLE events (id TEXT PRIMARY KEY, start_date TEXT, end_date TEXT)",
          "CREATE TABLE changes (event_id TEXT, pos INTEGER, section TEXT, system TEXT, "
          "player_id TEXT, pre REAL, post REAL, PRIMARY KEY (event_id, pos))",
          "CREATE TABLE ratings (player_id TEXT, system TEXT, rating REAL, games INTEGER, "
          "wins INTEGER, draws INTEGER, losses INTEGER, events3 INTEGER, peak REAL, "
          "PRIMARY KEY (player_id, system))"]


_JSON = json.JSONDecoder()


def _glance(data: bytes) -> dict:
    """The ``event`` header of an event file written by the engine (the
    value of its first ``"event"`` key, decoded alone, the rest unread)."""
    text = data.decode("utf-8")
    at = text.index(":", text.index('"event"')) + 1
    return _JSON.raw_decode(text, json.decoder.WHITESPACE.match(text, at).end())[0]


def _key(ev: dict, path: str) -> tuple:
    """Replay order: end date, start date, id (the file's stem without one)."""
    start = _date(ev["start"])
    return (_date(ev.get("end") or start), start, str(ev.get("id") or Path(path).stem))


def order(paths: list, keep_players: int) -> list:
    """(key, path, sections or None) of every file, in replay order, read as
    the engine's replay reads them: files are read in full, and their events
    kept, until ``keep_players`` player entries are; after that, a glance at
    each file's header orders it and the file is read again at its turn."""
    items, kept = [], 0
    for path in paths:
        data = Path(path).read_bytes()
        if kept >= keep_players:
            items.append((_key(_glance(data), path), path, None))
            continue
        raw = json.loads(data)
        sections = event_from_dict(raw)[3]
        size = sum(len(sec.players) for sec in sections)
        kept += size
        items.append((_key(raw["event"], path), path, sections if kept <= keep_players else None))
    items.sort(key=lambda item: item[0])
    return items


def replay(paths: list, db: Optional[str], P: dict, commit_every: int = 1,
           keep_players: int = 0) -> tuple[int, int]:
    """Rate the event files in replay order (:func:`order`) into a new SQLite
    file, committing every ``commit_every`` events, or into nothing where
    ``db`` is None (the rating alone); returns (events, player-games)."""
    con = None
    if db is not None:
        con = sqlite3.connect(db, isolation_level=None)
        con.execute("PRAGMA journal_mode=WAL")     # the durability the engine's store has
        con.execute("PRAGMA synchronous=NORMAL")
        for stmt in SCHEMA:
            con.execute(stmt)
    state: dict = {}
    info: dict = {}                                    # id -> (birth, adult, fide, cfc)
    games = written = 0
    for (end, start, eid), path, sections in order(paths, keep_players):
        if sections is None:                           # read at its turn
            sections = event_from_dict(json.loads(Path(path).read_bytes()))[3]
        for sec in sections:                           # the store's identity, refreshed by the file
            for e in sec.players:
                known = info.get(e.id)
                if known is not None:
                    e.birth = known[0] if known[0] is not None else e.birth
                    e.adult = known[1] if known[1] is not None else e.adult
                    if e.fide is None or (known[2] is not None and (known[2][1] or _dt.date.min) > (e.fide[1] or _dt.date.min)):
                        e.fide = known[2]
                    if e.cfc is None or (known[3] is not None and (known[3][1] or _dt.date.min) > (e.cfc[1] or _dt.date.min)):
                        e.cfc = known[3]
                info[e.id] = (e.birth, e.adult, e.fide, e.cfc)
            games += sum(len(e.opps) for e in sec.players)
        posts = rate_event(sections, P, state)
        if con is None:
            continue
        if not con.in_transaction:
            con.execute("BEGIN")
        con.execute("INSERT INTO events VALUES (?, ?, ?)", (eid, start.isoformat(), end.isoformat()))
        con.executemany("INSERT INTO changes VALUES (?, ?, ?, ?, ?, ?, ?)",
                        [(eid, i, p.section, p.system, p.id, p.pre, p.post) for i, p in enumerate(posts)])
        con.executemany("INSERT OR REPLACE INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                        [(p.id, p.system, p.rec.rating, p.rec.games, p.rec.wins, p.rec.draws,
                          p.rec.losses, p.rec.events3, p.rec.peak) for p in posts])
        written += 1
        if written % commit_every == 0:
            con.execute("COMMIT")
    if con is not None:
        if con.in_transaction:
            con.execute("COMMIT")
        con.close()
    return len(paths), games


# ------------------------------------------------------------------ command
def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="A minimal five-step rating (the benchmarks' yardstick).")
    ap.add_argument("event", nargs="?", help="an event file (JSON or YAML)")
    ap.add_argument("--params", help="parameters written by --write-params (else the rule book)")
    ap.add_argument("--json", action="store_true", help="print the posts as JSON")
    ap.add_argument("--replay", metavar="DIR", help="rate the event files of DIR into --db")
    ap.add_argument("--db", help="the SQLite file --replay writes (must not exist; without "
                                 "it, the replay writes nothing)")
    ap.add_argument("--commit-every", type=int, default=1, metavar="N",
                    help="--replay: events per transaction (1)")
    ap.add_argument("--keep-players", type=int, default=0, metavar="N",
                    help="--replay: player entries whose events the ordering pass keeps, "
                         "as the engine's replay does (0: every file read again at its turn)")
    ap.add_argument("--on", help="the rules' date for --replay and --write-params (YYYY-MM-DD)")
    ap.add_argument("--write-params", metavar="FILE", help="write the parameters in force --on")
    args = ap.parse_args(argv)
    if args.write_params:
        on = _dt.date.fromisoformat(args.on)
        data = params_from_book(on)
        load_params(on, None)
        Path(args.write_params).write_text(json.dumps(data), encoding="utf-8")
        return 0
    if args.replay:
        paths = sorted(str(p) for p in Path(args.replay).iterdir() if p.suffix == ".json")
        on = _date(args.on) if args.on else None
        if on is None and not args.params:
            raise SystemExit("minimal.py: --replay needs --params or --on")
        P = load_params(on, args.params)["p"]
        events, games = replay(paths, args.db, P, max(1, args.commit_every),
                               max(0, args.keep_players))
        print(f"{events} events, {games} player-games")
        return 0
    text = Path(args.event).read_text(encoding="utf-8")
    if args.event.endswith(".json"):
        raw = json.loads(text)
    else:
        import yaml
        raw = yaml.load(text, Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    eid, start, end, sections = event_from_dict(raw)
    P = load_params(start, args.params)["p"]
    posts = rate_event(sections, P)
    if args.json:
        print(json.dumps([{"section": p.section, "system": p.system, "pair": p.pair, "id": p.id,
                           "pre": p.pre, "post": p.post} for p in posts]))
    else:
        for p in posts:
            print(f"{p.section:20.20} {p.system:5} {p.pair:4} {p.id:>10} "
                  f"{'' if p.pre is None else f'{p.pre:.2f}':>8} -> {p.post!r}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
