"""The synthetic-history generator: deterministic, loadable, realistic enough."""

from __future__ import annotations

import datetime as dt
from collections import Counter

import pytest

from uschess.cli import main
from uschess.errors import InputError
from uschess.io.eventfile import event_to_dict, load_event
from uschess.apps.generate import FORMATS, generate_history, player_games, write_history
from uschess.rating.pipeline import systems_for
from uschess.apps.replay import event_key
from uschess.calendar.rulebook import RuleBook
from uschess.timecontrol import parse_time_control


@pytest.fixture(scope="module")
def events():
    return list(generate_history(11, 400, 200))


def test_same_seed_same_history(events):
    again = list(generate_history(11, 400, 200))
    assert [event_to_dict(e) for e in again] == [event_to_dict(e) for e in events]
    other = list(generate_history(12, 400, 200))
    assert [event_to_dict(e) for e in other] != [event_to_dict(e) for e in events]


def test_files_load_and_round_trip(tmp_path, capsys):
    assert main(["generate", "--players", "80", "--events", "15", "--seed", "5",
                 "-o", str(tmp_path / "json")]) == 0
    assert "wrote 15 event files" in capsys.readouterr().err
    paths = sorted((tmp_path / "json").glob("*.json"))
    expected = list(generate_history(5, 80, 15))
    assert len(paths) == len(expected)
    by_id = {e.id: e for e in expected}
    for path in paths:
        loaded = load_event(path)
        assert event_to_dict(loaded) == event_to_dict(by_id[loaded.id])
    yaml_paths = write_history(tmp_path / "yaml", 5, 80, 15, fmt="yaml")
    assert [event_to_dict(load_event(p)) for p in yaml_paths] == \
        [event_to_dict(e) for e in expected]


def test_events_come_in_replay_order_within_the_era(events):
    keys = [event_key(e) for e in events]
    assert keys == sorted(keys)
    assert len({k[2] for k in keys}) == len(keys)
    assert dt.date(2001, 1, 1) <= events[0].start and events[-1].end <= dt.date(2025, 12, 31)


def test_each_system_only_once_it_exists(events):
    book = RuleBook.load()
    first_day = {"OTBB": dt.date(2013, 3, 1), "OLB": dt.date(2014, 10, 1),
                 "OLQ": dt.date(2015, 3, 1), "OLR": dt.date(2020, 6, 1)}
    seen = Counter()
    for e in events:
        for s in e.sections:
            rules = book.rules(s.start)
            systems = systems_for(s, rules, parse_time_control(s.time_control))
            for system in systems:
                seen[system] += 1
                assert s.start >= first_day.get(system, dt.date(2001, 1, 1))
    assert set(seen) == {"OTBR", "OTBQ", "OTBB", "OLR", "OLQ", "OLB"}
    assert {tc for _, tc, *_ in FORMATS} == {s.time_control for e in events for s in e.sections}


def test_files_carry_no_ratings_but_identity(events):
    players = [p for e in events for s in e.sections for p in s.players]
    assert all(not p.ratings for p in players)
    assert sum(1 for p in players if p.birth_date) > 0.7 * len(players)
    assert any(p.fide for p in players) and any(p.cfc and p.cfc.canadian for p in players)
    assert any(p.birth_date is None and p.adult for p in players)
    for p in players:
        for f in (p.fide, p.cfc):
            assert f is None or f.date is not None


def test_sections_are_swiss_and_round_robins(events):
    kinds = Counter(s.kind for e in events for s in e.sections)
    assert kinds["swiss"] > kinds["round-robin"] > 0
    for e in events:
        for s in e.sections:
            if s.kind == "round-robin":
                for p in s.players:  # everyone meets everyone once
                    opps = [r.opponent for r in p.rounds if r.opponent is not None]
                    assert sorted(opps) == sorted(q.pair for q in s.players if q is not p)


def test_swiss_pairs_by_score_and_rarely_repeats(events):
    rematches = games = 0
    for e in events:
        for s in e.sections:
            if s.kind != "swiss":
                continue
            for p in s.players:
                opps = [r.opponent for r in p.rounds if r.opponent is not None]
                games += len(opps)
                rematches += len(opps) - len(set(opps))
            # round 1: the top half of the seeds meets the bottom half
            n = sum(1 for p in s.players if p.rounds[0].opponent is not None)
            if n >= 8:
                top = [p for p in s.players[: len(s.players) // 2] if p.rounds[0].opponent]
                assert sum(1 for p in top if p.rounds[0].opponent > len(s.players) // 2) \
                    >= len(top) - 2
    assert rematches < 0.02 * games


def test_results_follow_strength(events):
    """Higher seeds (stronger) score more: the first seeds outscore the last."""
    top = bottom = 0.0
    for e in events:
        for s in e.sections:
            if len(s.players) >= 10:
                top += sum(p.total for p in s.players[:3])
                bottom += sum(p.total for p in s.players[-3:])
    assert top > 1.5 * bottom
    assert sum(player_games(e) for e in events) > 10 * len(events)


def test_bad_sizes_are_input_errors():
    with pytest.raises(InputError):
        list(generate_history(1, 1, 10))
    with pytest.raises(InputError):
        list(generate_history(1, 10, 0))
