"""The synthetic-history generator: deterministic, loadable, realistic enough."""

from __future__ import annotations

import datetime as dt
import json
import os
from pathlib import Path
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
                 "--uncalibrated", "-o", str(tmp_path / "json")]) == 0
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


# ------------------------------------------------- exact sizes, truth, output folder
@pytest.mark.parametrize("players,events", [(10, 5), (2, 1), (300, 60), (64, 1)])
def test_exactly_the_players_and_events_asked(players, events):
    truth = []
    got = list(generate_history(4, players, events, truth=truth))
    assert len(got) == events
    ids = {p.id for e in got for s in e.sections for p in s.players}
    assert len(ids) == players
    assert all(len(s.players) >= 2 for e in got for s in e.sections)
    # one true strength per player per event played, in every system
    assert len(truth) == sum(len(s.players) for e in got for s in e.sections)
    assert {(t.event, t.id) for t in truth} == {(e.id, p.id) for e in got
                                               for s in e.sections for p in s.players}


def test_sizes_that_cannot_be_met_say_why(capsys, tmp_path):
    with pytest.raises(InputError, match="65 players cannot all play in 1 event"):
        list(generate_history(1, 65, 1))
    assert main(["generate", "--players", "1000", "--events", "3", "-o", str(tmp_path / "h")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "at least 16 events" in err
    assert not (tmp_path / "h").exists() or not any((tmp_path / "h").iterdir())


def test_results_follow_we_of_the_true_strengths():
    """The expected score of a game is sec. 4.2's We of the true difference:
    the mean score of the stronger player matches the mean We within noise."""
    from uschess.formulas import we
    truth = []
    events = list(generate_history(21, 300, 150, truth=truth))
    true = {(t.event, t.id): t.strengths for t in truth}
    fam_system = {"G/90;d30": "OTBR", "G/45;d5": "OTBR", "G/20;d5": "OTBQ", "G/5;d0": "OTBB",
                  "G/3+2": "OLB", "G/15+2": "OLB", "G/60+5": "OLB"}
    expected = observed = 0.0
    n = 0
    for e in events:
        for s in e.sections:
            system = fam_system[s.time_control]
            for p in s.players:
                for r in p.rounds:
                    if not r.rated:
                        continue
                    q = s.players[r.opponent - 1]
                    a, b = true[(e.id, p.id)][system], true[(e.id, q.id)][system]
                    if a > b:
                        expected += we(a, b)
                        observed += r.points
                        n += 1
    assert n > 2000
    assert abs(observed / n - expected / n) < 0.02


def test_truth_file_beside_the_events(tmp_path, capsys):
    from uschess.apps.generate import TRUTH_COLUMNS, read_truth
    out = tmp_path / "hist"
    assert main(["generate", "--players", "40", "--events", "8", "--seed", "2", "-o", str(out),
                 "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["events"] == 8 and data["players"] == 40 and data["player_games"] > 0
    assert (out / "truth.csv").read_text().splitlines()[0] == ",".join(TRUTH_COLUMNS)
    truth = read_truth(out / "truth.csv")
    events = [load_event(p) for p in sorted(out.glob("*.json"))]
    assert len(events) == 8
    assert set(truth) == {(e.id, p.id) for e in events for s in e.sections for p in s.players}
    # the replay takes the events and leaves the truth alone
    assert main(["replay", str(out), "--db", str(tmp_path / "r.db")]) == 0


def test_non_empty_folder_is_refused_without_force(tmp_path, capsys):
    out = tmp_path / "hist"
    assert main(["generate", "--players", "30", "--events", "6", "--seed", "1", "-o", str(out)]) == 0
    before = sorted(p.name for p in out.iterdir())
    capsys.readouterr()
    assert main(["generate", "--players", "30", "--events", "4", "--seed", "2", "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(out) in err and "--force" in err and "not empty" in err
    assert sorted(p.name for p in out.iterdir()) == before
    # --force replaces the generated history: no file of the first one is left
    assert main(["generate", "--players", "30", "--events", "4", "--seed", "2", "-o", str(out),
                 "--force"]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert len(names) == 5 and "truth.csv" in names and all(
        n.startswith("S2-") for n in names if n != "truth.csv")


@pytest.mark.parametrize("where", ["file", "no-parent", "unwritable"])
def test_bad_output_places_are_one_located_line(tmp_path, capsys, where):
    if where == "file":
        target = tmp_path / "afile"
        target.write_text("x")
        words = "not a directory"
    elif where == "no-parent":
        target = tmp_path / "missing" / "hist"
        words = "does not exist"
    elif os.geteuid() != 0:
        locked = tmp_path / "locked"
        locked.mkdir()
        locked.chmod(0o500)
        target = locked / "hist"
        words = "cannot"
    elif Path("/proc").is_dir():
        target = Path("/proc/uschess-history")  # unwritable even for root
        words = "cannot"
    else:
        pytest.skip("no place this user cannot write to")
    assert main(["generate", "--players", "20", "--events", "3", "-o", str(target)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert str(target) in err and words in err


def test_true_strengths_move_and_newcomers_start_unlike_their_initial_rating():
    """Juniors improve, older players decline, everyone wanders; a newcomer's
    step-1 initial rating is not their true strength."""
    from uschess.apps.evaluate import replay_chain
    from uschess.rating.pipeline import RatingOptions
    truth = []
    events = list(generate_history(8, 400, 300, truth=truth))
    born = {p.id: p.birth_date for e in events for s in e.sections for p in s.players}
    seen: dict = {}
    for t in truth:
        seen.setdefault(t.id, []).append(t)
    junior, senior, moved = [], [], 0
    for pid, rows in seen.items():
        first, last = rows[0], rows[-1]
        years = (last.date - first.date).days / 365.25
        if years < 2 or born[pid] is None:
            continue
        change = (last.strengths["OTBR"] - first.strengths["OTBR"]) / years
        moved += change != 0.0
        age = (first.date - born[pid]).days / 365.25
        if age < 14:
            junior.append(change)
        elif age > 58:
            senior.append(change)
    assert moved > 50 and len(junior) > 10 and len(senior) > 5
    assert sum(junior) / len(junior) > 40      # points a year
    assert sum(junior) / len(junior) > sum(senior) / len(senior)
    true = {(t.event, t.id): t.strengths for t in truth}
    gaps = [abs(pr.initial.rating - true[(res.event.id, pr.id)][sr.system])
            for _, _, res in replay_chain(events, RatingOptions()) for sr in res.sections
            for pr in sr.players if pr.m and pr.pre is None]
    assert len(gaps) > 300 and sum(gaps) / len(gaps) > 150
