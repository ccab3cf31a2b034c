"""Rating without a trace (``RatingOptions(trace=False)``: replay, compare,
the benchmarks) runs the same body of steps 1-5 and the finish step with a
recorder that keeps nothing (no per-player reads or details).  It must give
exactly what the traced rating gives (whose results the golden files pin),
bit for bit, under every edition of the rules and for every kind of rated
unit."""

from __future__ import annotations

import copy
import dataclasses
import datetime as dt
import random
import sys

import pytest

from helpers import ROOT, TEACHING_MSA
from uschess.io.eventfile import event_from_dict, load_event
from uschess.io.fide_file import fide_update_from_dict
from uschess.rating.fide_update import fide_update
from uschess.rating.pipeline import RatingOptions, rate_event
from uschess.rating.results import PlayerResult

sys.path.insert(0, str(ROOT / "benchmarks"))
import common as C  # noqa: E402

#: what a result says, whatever the trace (rule warnings and the trace itself
#: are only written with one)
FIELDS = [f.name for f in dataclasses.fields(PlayerResult)
          if f.name not in ("depends", "warnings", "trace")]
EVENTS = ["wfcc15", "club-championship"]
OPTIONS = {
    "baseline": {},
    "known-on-2025-05-01": {"known_on": dt.date(2025, 5, 1)},
    "edition-2001": {"edition": "2001-02-22", "rules_on": dt.date(2003, 5, 2)},
    "edition-2017": {"edition": "2017-04-24", "rules_on": dt.date(2017, 5, 2)},
    "edition-2020-06": {"edition": "2020-06-11", "rules_on": dt.date(2020, 7, 2)},
    "rules-2004": {"rules_on": dt.date(2004, 6, 30)},
    "rules-2011": {"rules_on": dt.date(2011, 3, 1)},
    "rules-2019": {"rules_on": dt.date(2019, 3, 1)},
}


def rows(result) -> dict:
    out = {}
    for sec in result.sections:
        for p in sec.players:
            row = {name: getattr(p, name) for name in FIELDS}
            row["record_after"] = dataclasses.astuple(p.record_after) if p.record_after else None
            out[sec.section.name, sec.system, p.pair] = row
    return out


def assert_same(event, **options):
    traced = rate_event(event, RatingOptions(trace=True, **options))
    untraced = rate_event(event, RatingOptions(trace=False, **options))
    a, b = rows(traced), rows(untraced)
    assert a and a.keys() == b.keys()
    for key in a:
        assert a[key] == b[key], key  # floats compared exactly
    for sec in untraced.sections:
        assert all(not p.trace and not p.depends for p in sec.players)
    return len(a)


@pytest.mark.parametrize("options", list(OPTIONS))
@pytest.mark.parametrize("name", EVENTS)
def test_bundled_events_under_every_edition(name, options):
    assert assert_same(load_event(ROOT / "fixtures" / "events" / f"{name}.yaml"), **OPTIONS[options])


def _dated(event, day: dt.date, tc: str, online: bool = False):
    sections = [dataclasses.replace(s, start=day, end=day, time_control=tc, online=online)
                for s in event.sections]
    return dataclasses.replace(event, start=day, end=day, sections=sections)


@pytest.mark.parametrize("day", ["2002-06-01", "2009-06-01", "2014-06-01", "2018-06-01",
                                 "2020-07-01", "2021-06-01", "2025-03-21"])
@pytest.mark.parametrize("tc", ["G/90;d30", "G/45;d5", "G/10;d5"])
def test_generated_sections_on_many_dates(day, tc):
    """Established, provisional and new players (birth dates, adults), dual
    rating (G/45;d5, where the K exception applies above 2200) and quick
    time controls, across the editions' dates."""
    on = dt.date.fromisoformat(day)
    event = C.swiss_event(2, 41, 5, seed=sum(map(ord, day + tc)))
    for section in event.sections:
        for i, pl in enumerate(section.players):
            for rec in pl.ratings.values():
                rec.date = on - dt.timedelta(days=30)  # blended initialization reads it
                if i < 6 and section is event.sections[0]:
                    rec.rating += 900.0  # strong players: the K exception
    assert assert_same(_dated(event, on, tc)) >= 82


def test_online_sections():
    event = C.swiss_event(1, 30, 4, seed=9)
    for pl in event.sections[0].players:
        for rec in pl.ratings.values():
            rec.date = dt.date(2021, 5, 1)
    assert assert_same(_dated(event, dt.date(2021, 6, 1), "G/15;d5", online=True))


def test_repeated_opponents_and_all_wins_histories():
    """Bonus eligibility with an opponent met twice, players whose every
    earlier game was a win or a loss (the special formula's R0')."""
    rng = random.Random(3)
    raw = {"event": {"name": "Six", "start": "2025-03-21", "end": "2025-03-21"},
           "sections": [{"name": "Q", "time_control": "G/90;d30", "players": []}]}
    # a double round robin of six by the circle method: everyone meets everyone twice
    ring = [2, 3, 4, 5, 6]
    cells = {i: [] for i in range(1, 7)}
    for _ in range(2):
        for r in range(5):
            turn = ring[r:] + ring[:r]
            for a, b in ((1, turn[0]), (turn[1], turn[4]), (turn[2], turn[3])):
                res = rng.choice("WDL")
                cells[a].append(f"{res}{b}")
                cells[b].append(f"{dict(W='L', L='W', D='D')[res]}{a}")
    records = [{"rating": 1500.0, "games": 10, "wins": 10, "draws": 0, "losses": 0},
               {"rating": 900.0, "games": 8, "wins": 0, "draws": 0, "losses": 8},
               {"rating": 1800.0, "games": 300, "wins": 150, "draws": 50, "losses": 100,
                "peak": 2050.0, "events3": 40},
               {"rating": 2250.0, "games": 400, "peak": 2300.0},
               None, {"rating": 1200.0, "games": 3}]
    for i in range(1, 7):
        p = {"pair": i, "id": f"1000000{i}", "name": f"P{i}", "rounds": cells[i],
             "birth_date": "2001-05-05"}
        if records[i - 1] is not None:
            p["ratings"] = {"OTBR": records[i - 1]}
        raw["sections"][0]["players"].append(p)
    assert assert_same(event_from_dict(raw, source="quad.yaml")) == 6


def test_matches():
    a = {"OTBR": {"rating": 1850.0, "games": 140, "peak": 1900.0}}
    b = {"OTBR": {"rating": 2100.0, "games": 300, "peak": 2160.0}}
    for rounds in (("W2", "D2", "W2", "W2"), ("L2", "L2", "L2", "L2"), ("D2", "L2")):
        p1 = {"pair": 1, "id": "20000001", "name": "A", "rounds": list(rounds), "ratings": a}
        p2 = {"pair": 2, "id": "20000002", "name": "B", "ratings": b,
              "rounds": [{"W": "L", "L": "W", "D": "D"}[r[0]] + "1" for r in rounds]}
        raw = {"event": {"name": "Match", "start": "2024-06-01", "end": "2024-06-04"},
               "sections": [{"name": "M", "type": "match", "time_control": "G/90;d30",
                             "players": [p1, p2]}]}
        for grant in (False, True):
            assert assert_same(event_from_dict(copy.deepcopy(raw), source="m.yaml"),
                               grant_floor_requests=grant) == 2


def test_fide_updates():
    raw = {"kind": "fide-update",
           "event": {"name": "Open abroad", "start": "2024-03-10", "end": "2024-03-15",
                     "youth": False},
           "player": {"id": "12345678", "name": "Doe, Jane",
                      "ratings": {"OTBR": {"rating": 2100.0, "games": 120}}},
           "games": [{"opponent": "Smith", "fide": 1900, "result": "W"},
                     {"opponent": "Jones", "fide": 2050, "result": "D"},
                     {"opponent": "Brown", "result": "L"}]}
    update = fide_update_from_dict(raw, source="u.yaml")
    traced = fide_update(update, RatingOptions(trace=True))
    untraced = fide_update(update, RatingOptions(trace=False))
    for name in ("post", "record_after", "k", "expected", "bonus", "step4", "m"):
        if hasattr(traced, name):
            assert getattr(traced, name) == getattr(untraced, name), name


@pytest.mark.shared_data
def test_real_crosstable():
    from uschess.io.formats.msa import load_msa

    ct = load_msa(TEACHING_MSA, start=dt.date(2016, 1, 15))
    assert assert_same(ct.event) > 50


def test_player_result_fields_in_the_order_the_finish_step_passes_them():
    """The finish step builds PlayerResult positionally (the hot path)."""
    assert [f.name for f in dataclasses.fields(PlayerResult)][:25] == [
        "pair", "id", "name", "system", "pre", "games_before", "m", "score", "post",
        "games_after", "formula", "initial", "n_eff", "step3", "step4", "step5", "k", "bonus",
        "expected", "floor", "floor_reason", "floor_applied", "record_after", "depends",
        "warnings"]


def test_players_and_identities_built_positionally_land_in_their_fields():
    """The reader builds Player, and the replay PlayerInfo, positionally (the
    hot path): every field read from a player given all of them is where
    its name says."""
    from uschess.apps.replay import _merge_info
    from uschess.io.eventfile import parse_player

    pl = parse_player({"pair": 3, "id": "12345678", "name": "Name", "rounds": ["W1", "B"],
                       "ratings": {"OTBR": {"rating": 1500, "games": 30}},
                       "birth_date": "2001-02-03", "adult": True,
                       "fide": {"rating": 1600, "date": "2024-01-01"},
                       "cfc": {"rating": 1400, "date": "2023-01-01", "canadian": True},
                       "state": "TX",
                       "match_history": [{"date": "2024-05-01", "change": 40.0}],
                       "initial": {"OTBQ": {"rating": 1300, "games": 0}}})
    assert (pl.pair, pl.id, pl.name, [str(r) for r in pl.rounds]) == (3, "12345678", "Name",
                                                                      ["W1", "B"])
    assert pl.ratings["OTBR"].rating == 1500 and pl.birth_date == dt.date(2001, 2, 3)
    assert pl.adult is True and pl.state == "TX"
    assert (pl.fide.rating, pl.cfc.rating, pl.cfc.canadian) == (1600, 1400, True)
    assert pl.match_history[0].change == 40.0 and pl.initial["OTBQ"].rating == 1300
    info = _merge_info(pl, None, "E", "Open", [])
    assert (info.id, info.name, info.birth_date, info.adult, info.state, info.fide, info.cfc) \
        == (pl.id, pl.name, pl.birth_date, pl.adult, pl.state, pl.fide, pl.cfc)
    # the store's identity completed by the file: each field from where it should come
    from uschess.io.store_schema import PlayerInfo
    from uschess.model import ForeignRating

    older = ForeignRating(1500.0, dt.date(2020, 1, 1))
    known = PlayerInfo("12345678", None, None, None, None, older, None)
    merged = _merge_info(pl, known, "E", "Open", [])
    assert (merged.id, merged.name, merged.birth_date, merged.adult, merged.state) == (
        "12345678", "Name", dt.date(2001, 2, 3), True, "TX")
    assert merged.fide is pl.fide and merged.cfc is pl.cfc
