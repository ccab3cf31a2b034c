"""The benchmarks' yardstick (``benchmarks/minimal.py``) gives the engine's
posts: on the bundled event, on generated sections, on hand-made edge cases
(floors, all-wins and all-losses histories, the dual-rating K, FIDE and CFC
newcomers, bonus eligibility), and as a replay into SQLite (the same store
rows).  And a benchmark's child process is measured on its own."""

from __future__ import annotations

import datetime as dt
import json
import subprocess
import sys

import pytest

from helpers import ROOT, event
from uschess.cli import main as cli
from uschess.rating.pipeline import RatingOptions, rate_event

sys.path.insert(0, str(ROOT / "benchmarks"))

import common as C  # noqa: E402
import minimal  # noqa: E402

P = minimal.load_params(C.DAY)["p"]


def _agree(ev) -> int:
    engine = C.engine_posts(rate_event(ev, RatingOptions(trace=False)))
    mini = C.minimal_posts(minimal.rate_event(minimal.sections_from_event(ev), P))
    return C.check_posts(engine, mini)


def test_generated_sections_agree():
    assert _agree(C.swiss_event(3, 31, 5, seed=4)) == 93


def _p(pair, rounds, **extra):
    for rec in extra.get("ratings", {}).values():
        rec.setdefault("date", "2025-02-15")  # blended initialization in OTBQ reads it
    return {"pair": pair, "id": f"{20000000 + pair}", "name": f"P{pair}", "rounds": rounds, **extra}


def test_edge_cases_agree():
    """Each player below exercises a branch of the minimal implementation."""
    players = [
        # rated over 2200 at a dual-rated time control: the OTBR-only K exception
        _p(1, ["W8", "W2", "W3", "W4"], ratings={"OTBR": {"rating": 2380.0, "games": 300, "peak": 2400.0}}),
        # an established floor of 1700 to bind
        _p(2, ["W7", "L1", "L8", "L3"], ratings={"OTBR": {"rating": 1702.0, "games": 80, "peak": 1950.0}}),
        # an all-wins and an all-losses history (R0' and S' adjusted)
        _p(3, ["W6", "W7", "L1", "W2"], ratings={"OTBR": {"rating": 1500.0, "games": 4, "wins": 4,
                                                          "draws": 0, "losses": 0}}),
        _p(4, ["L5", "W6", "W7", "L1"], ratings={"OTBR": {"rating": 900.0, "games": 5, "wins": 0,
                                                          "draws": 0, "losses": 5}}),
        # newcomers: FIDE (blended), CFC for a Canadian (blended), neither (750)
        _p(5, ["W4", "L8", "W6", "X7"], fide={"rating": 2210, "date": "2025-02-01"}, adult=True),
        _p(6, ["L3", "L4", "L5", "W8"], cfc={"rating": 1650, "date": "2024-12-01", "canadian": True},
           birth_date="2009-07-04"),
        # the personal absolute floor
        _p(7, ["L2", "L3", "L4", "F5"], ratings={"OTBR": {"rating": 118.0, "games": 40, "wins": 3,
                                                          "draws": 2, "losses": 35, "events3": 8}}),
        _p(8, ["L1", "W5", "W2", "L6"]),
        _p(9, ["B", "H", "U", "B"]),
    ]
    # G/45;d5 is dual-rated (OTBR and OTBQ)
    assert _agree(event(players, tc="G/45;d5")) == 16
    assert _agree(event(players, tc="G/90;d30")) == 8


def test_repeated_opponent_agrees():
    # m = 3 with an opponent met twice: no bonus under the 2020-09 wording
    players = [_p(1, ["W2", "W2", "W3"], ratings={"OTBR": {"rating": 1400.0, "games": 30}}),
               _p(2, ["L1", "L1", "W4"], ratings={"OTBR": {"rating": 1900.0, "games": 30}}),
               _p(3, ["D4", "D4", "L1"], ratings={"OTBR": {"rating": 1600.0, "games": 12}}),
               _p(4, ["D3", "D3", "L2"], birth_date="2019-03-01")]
    assert _agree(event(players)) == 4


def test_bundled_event_agrees_through_both_commands(capsys):
    path = ROOT / "fixtures" / "events" / "wfcc15.yaml"
    assert cli(["rate", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    engine = {(s["name"], s["system"], p["id"]): p["post"]
              for s in out["sections"] for p in s["players"] if p["m"]}
    run = subprocess.run([sys.executable, str(C.MINIMAL), str(path), "--json"],
                         capture_output=True, text=True, check=True)
    mini = {(p["section"], p["system"], p["id"]): p["post"] for p in json.loads(run.stdout)}
    assert C.check_posts(engine, mini) == 16


def test_other_rules_are_refused():
    with pytest.raises(SystemExit, match="not the ones this file follows"):
        minimal.load_params(dt.date(2016, 3, 1))


@pytest.mark.slow
def test_minimal_replay_writes_the_engine_store(tmp_path, capsys):
    paths, games = C.write_year(tmp_path / "h", seed=5, players=200, events=25)
    assert C.one_rule_set(dt.date.fromisoformat(json.loads(p.read_text())["event"]["start"])
                          for p in paths)
    params = tmp_path / "params.json"
    C.write_params(params)
    assert cli(["replay", str(tmp_path / "h"), "--db", str(tmp_path / "e.db"), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["player_games"] == games
    run = C.run_child([sys.executable, C.MINIMAL, "--replay", tmp_path / "h",
                       "--db", tmp_path / "m.db", "--params", params])
    assert run.out.strip() == f"25 events, {games} player-games"
    ratings, changes, events = C.check_stores(str(tmp_path / "e.db"), str(tmp_path / "m.db"))
    assert ratings > 100 and changes >= ratings and events == 25
    # committed in batches and with the first files' events kept from the
    # ordering pass, as the replay benchmark runs it, from files whose names
    # are not in replay order: the same store
    shuffled = tmp_path / "shuffled"
    shuffled.mkdir()
    for i, path in enumerate(paths):
        (shuffled / f"{(i * 7) % 25:02d}.json").write_bytes(path.read_bytes())
    run = C.run_child([sys.executable, C.MINIMAL, "--replay", shuffled, "--db", tmp_path / "m7.db",
                       "--params", params, "--commit-every", 7, "--keep-players", 300])
    assert run.out.strip() == f"25 events, {games} player-games"
    assert C.check_stores(str(tmp_path / "e.db"), str(tmp_path / "m7.db")) == (ratings, changes,
                                                                              events)
    # without a store: the same reading and rating, nothing written
    run = C.run_child([sys.executable, C.MINIMAL, "--replay", shuffled, "--params", params])
    assert run.out.strip() == f"25 events, {games} player-games"
    assert sorted(p.name for p in tmp_path.glob("*.db")) == ["e.db", "m.db", "m7.db"]


def test_stores_that_differ_are_caught(tmp_path):
    paths, _ = C.write_year(tmp_path / "h", seed=6, players=200, events=12)
    for name in ("a.db", "b.db"):
        minimal.replay([str(p) for p in paths], str(tmp_path / name), P)
    import sqlite3
    con = sqlite3.connect(tmp_path / "b.db")
    con.execute("UPDATE ratings SET rating = rating + 1e-9 WHERE rowid = (SELECT min(rowid) FROM ratings)")
    con.commit()
    con.close()
    with pytest.raises(SystemExit, match="differ in 1 ratings rows"):
        C.check_stores(str(tmp_path / "a.db"), str(tmp_path / "b.db"))


@pytest.mark.slow
def test_child_measured_on_its_own():
    """The launcher keeps the benchmark's own memory out of a child's peak
    RSS, and a failing child stops the benchmark."""
    ballast = bytearray(200 * 2**20)  # this process: well above 200 MB
    ballast[::4096] = b"x" * len(ballast[::4096])
    run = C.run_child([sys.executable, "-c", "x = sum(range(3_000_000))"])
    assert run.rss_mb < 100 and run.cpu > 0
    # and the bytes it read, where the system counts them
    size = (ROOT / "engine" / "io" / "store.py").stat().st_size
    run = C.run_child([sys.executable, "-c", f"open({str(ROOT / 'engine' / 'io' / 'store.py')!r}, 'rb').read()"])
    assert run.read is None or run.read >= size
    with pytest.raises(SystemExit, match="failed"):
        C.run_child([sys.executable, "-c", "raise SystemExit(3)"])


@pytest.mark.parametrize("script", ["rate_bench.py", "replay_bench.py", "compare_bench.py",
                                    "read_bench.py", "minimal.py"])
def test_benchmarks_have_help(script):
    run = subprocess.run([sys.executable, str(C.BENCH / script), "--help"],
                         capture_output=True, text=True)
    assert run.returncode == 0 and "usage:" in run.stdout


def test_phases_of_both_replays(tmp_path):
    """``replay_bench.py --phases`` times the engine's phases and the
    yardstick's on the same history; the yardstick's three phases add up to
    its whole time, and its functions are left as they were."""
    import replay_bench

    C.write_year(tmp_path / "h", seed=7, players=120, events=10)
    params = tmp_path / "params.json"
    C.write_params(params)
    before = (minimal.json, minimal.event_from_dict, minimal.rate_event, minimal._glance)
    text = replay_bench.phases_of_minimal(tmp_path / "h", params, 4, 300)
    assert (minimal.json, minimal.event_from_dict, minimal.rate_event, minimal._glance) == before
    lines = text.splitlines()
    total = float(lines[0].split()[0])
    parts = [float(line.split()[0]) for line in lines[1:]]
    assert len(parts) == 3 and total > 0
    assert sum(parts) == pytest.approx(total, abs=0.02)
    assert "rating" in lines[2] and "rows' statements" in lines[3]
    engine = replay_bench.phases_of_replay(tmp_path / "h")
    assert "rating (the chain, steps 1-5, finish)" in engine


@pytest.mark.slow
@pytest.mark.skipif(__import__("shutil").which("valgrind") is None, reason="valgrind is not installed")
def test_instructions_are_counted_and_the_same_each_time():
    """``--instructions``: the count of a child's instructions, the same in
    two runs of one command in one state of the machine (its hash seed
    fixed; a first run that writes the bytecode cache counts the compiling
    too, so one runs first), larger for more work."""
    small = [sys.executable, "-S", "-c", "pass"]
    more = [sys.executable, "-S", "-c", "sum(range(200000))"]
    C.instructions(small)
    a, b, c = C.instructions(small), C.instructions(small), C.instructions(more)
    assert a > 1_000_000 and abs(a - b) <= a * 1e-3
    assert c - a > 10 * 200_000
    with pytest.raises(SystemExit, match="failed under valgrind"):
        C.instructions([sys.executable, "-S", "-c", "raise SystemExit(3)"])


def test_results_are_written_for_the_docs(tmp_path, monkeypatch):
    """A benchmark's table goes to benchmarks/results/NAME.md (date,
    machine, command above it) and NAME.json (the same, full precision)."""
    monkeypatch.setattr(C, "RESULTS", tmp_path / "results")
    md = C.write_results("x", "A title", "python benchmarks/x.py --games 10", ["command", "CPU s"],
                         [["one", "1.50"], ["two", "3.00"]], ["a note"], {"cpu": [1.5, 3.0]},
                         {"Phases:": "0.1 s reading"})
    text = md.read_text(encoding="utf-8")
    assert text.startswith("**A title**") and "    python benchmarks/x.py --games 10" in text
    assert "| one | 1.50 |" in text and "- a note" in text and "0.1 s reading" in text
    assert C.machine().split(",")[0] in text
    data = json.loads((tmp_path / "results" / "x.json").read_text(encoding="utf-8"))
    assert data["rows"] == [["one", "1.50"], ["two", "3.00"]] and data["data"] == {"cpu": [1.5, 3.0]}
    assert data["date"].endswith("UTC") and data["command"].endswith("--games 10")
