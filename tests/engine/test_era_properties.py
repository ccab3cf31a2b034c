"""Properties over generated events of every era (2001 to today: uniform
dates and the day before and the day of every dated change): the K exception
of sec. 4.2 never applies outside a dual-rated section, and a final rating
is never below the personal floor the event's own results prove (sec. 5)."""

from __future__ import annotations

import datetime as dt
import itertools

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uschess.calendar.rulebook import RuleBook
from uschess.errors import RuleError
from uschess.io.eventfile import event_from_dict
from uschess.model import SYSTEMS
from uschess.rating.pipeline import RatingOptions, rate_event

from helpers import examples

BOOK = RuleBook.load()
FIRST, LAST = dt.date(2001, 1, 1), dt.date(2025, 12, 31)
CHANGES = sorted({e.effective for t in [*BOOK.timelines.values(), *BOOK.slots.values()]
                  for e in t.entries if FIRST <= e.effective <= LAST})
EDGES = sorted({d + dt.timedelta(days=k) for d in CHANGES for k in (-1, 0)} - {FIRST - dt.timedelta(days=1)})
CONTROLS = ["G/3+2", "G/5;d0", "G/10;d0", "G/15;d5", "G/25;d5", "G/25+5", "G/30;d0", "G/45;d5",
            "G/55;d5", "G/60;d0", "G/60;d5", "G/61;d5", "G/90;d30", "40/120, SD/30;d5"]

# around the floors, the established levels and the K exception's bounds
RATINGS = [100, 104, 120, 150, 1250, 1800, 2201, 2250, 2350, 2450, 2501, 2650]

dates = st.one_of(st.sampled_from(EDGES),
                  st.integers(0, (LAST - FIRST).days).map(lambda n: FIRST + dt.timedelta(days=n)))


@st.composite
def records(draw, start):
    """A pre-event record in one system, counts known or not (each on its own)."""
    games = draw(st.integers(1, 300))
    rating = draw(st.one_of(st.integers(100, 2700), st.sampled_from(RATINGS)))
    rec = {"rating": float(rating), "games": games,
           "date": (start - dt.timedelta(days=30)).isoformat()}
    if draw(st.booleans()):
        wins = draw(st.integers(0, games))
        draws = draw(st.integers(0, games - wins))
        rec.update(wins=wins, draws=draws, losses=games - wins - draws)
    if draw(st.booleans()):
        rec["events3"] = draw(st.integers(0, max(0, games // 3)))
    return rec


@st.composite
def events(draw):
    start = draw(dates)
    online = draw(st.booleans())
    tc = draw(st.sampled_from(CONTROLS))
    ours = [s for s in SYSTEMS if s.startswith("OL") == online]
    declared = draw(st.one_of(st.none(), st.lists(st.sampled_from(ours), min_size=1, max_size=2,
                                                  unique=True)))
    n = draw(st.integers(2, 5))
    pairs = list(itertools.combinations(range(1, n + 1), 2))
    results = draw(st.lists(st.sampled_from(["W", "D", "L", None]), min_size=len(pairs),
                            max_size=len(pairs)))
    games = [(a, b, r) for (a, b), r in zip(pairs, results) if r is not None]
    if not games:
        games = [(1, 2, "W")]
    other = {"W": "L", "L": "W", "D": "D"}
    players = []
    for i in range(1, n + 1):
        rounds = []
        for a, b, r in games:
            rounds.append(f"{r}{b}" if i == a else f"{other[r]}{a}" if i == b else "U")
        rated_in = draw(st.lists(st.sampled_from(SYSTEMS), unique=True, max_size=len(SYSTEMS)))
        ratings = {s: draw(records(start)) for s in rated_in}
        players.append({"pair": i, "id": f"{20000000 + i}", "name": f"Player {i}", "adult": True,
                        "rounds": rounds, "ratings": ratings})
    section = {"name": "S", "time_control": tc, "players": players}
    if declared:
        section["systems"] = declared
    return event_from_dict({"event": {"name": "Generated", "start": start.isoformat(),
                                      "online": online}, "sections": [section]},
                           source="generated.yaml")


def _rate(ev):
    try:
        return rate_event(ev, RatingOptions(trace=False))
    except RuleError:
        return None  # a time control rated in no system on that date, and none declared


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events())
def test_k_exception_only_in_dual_rated_sections(ev):
    result = _rate(ev)
    if result is None:
        return
    rated_in = {s.system for s in result.sections}
    for sec in result.sections:
        p = sec.rules.p
        dual = bool(p.dual_rating_systems) and set(p.dual_rating_systems) <= rated_in
        for pr in sec.players:
            if pr.k is None:
                continue
            plain = p.k_numerator / (pr.n_eff + pr.m)
            if len(rated_in) == 1 or not dual:
                assert pr.k == plain, (sec.system, sorted(rated_in), pr.id)


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(events())
def test_floor_never_below_what_the_event_proves(ev):
    result = _rate(ev)
    if result is None:
        return
    for sec in result.sections:
        p = sec.rules.p
        if sec.rules.plugins["floors"].value != "floors-sec5" or sec.system not in p.personal_floor_systems:
            continue
        pf = p.personal_floor
        for pr in sec.players:
            if not pr.m:
                continue
            wins = sum(1 for r in ev.sections[0].players[pr.pair - 1].rounds
                       if r.opponent is not None and r.code == "W")
            draws = sum(1 for r in ev.sections[0].players[pr.pair - 1].rounds
                        if r.opponent is not None and r.code == "D")
            proved = min(pf["base"] + pf["win"] * wins + pf["draw"] * draws
                         + pf["event"] * (1 if pr.m >= 3 else 0), pf["cap"])
            assert pr.floor >= proved and pr.post >= proved, (sec.system, pr.id, pr.floor_reason)
