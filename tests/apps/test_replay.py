"""Replay into a store: order, exactness, refusal of events applied twice,
disagreements, resuming after a kill, and the player command."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from dataclasses import replace
from pathlib import Path

import pytest
from helpers import STORE_TABLES as TABLES
from helpers import store_snapshot as snapshot
from helpers import count_calls

from uschess.cli import main
from uschess.errors import InputError
from uschess.io.eventfile import load_event, write_event
from uschess.apps.generate import generate_history, player_games, write_history
from uschess.model import SYSTEMS
from uschess.rating.pipeline import RatingOptions, rate_event
from uschess.apps.replay import COMMIT_EVERY, _SharedRules, event_key, replay
from uschess.calendar.rulebook import RuleBook
from uschess.io.store import Store
from uschess.io.store_connection import CACHE_KIB

ROOT = Path(__file__).resolve().parents[2]
WFCC = ROOT / "fixtures" / "events" / "wfcc15.yaml"




@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """A generated history as files, and the store of an uninterrupted replay."""
    base = tmp_path_factory.mktemp("history")
    files = write_history(base / "events", seed=7, players=250, events=120)
    db = base / "full.db"
    assert main(["replay", str(base / "events"), "--db", str(db)]) == 0
    return base, files, db


def cli(*args, env=None, kill_at=None, **kw):
    """``uschess ARGS``; ``kill_at`` (after:N, during:N) kills it at that write (tests/crash.py)."""
    run = ["-m", "uschess"] if kill_at is None else [str(ROOT / "tests" / "crash.py"), kill_at]
    return subprocess.run([sys.executable, *run, *map(str, args)], cwd=ROOT,
                          env={**os.environ, **(env or {})}, capture_output=True, text=True, **kw)


# ------------------------------------------------------------- exactness
def test_store_holds_rate_event_results_exactly(tmp_path):
    event = load_event(WFCC)
    expected = rate_event(event, RatingOptions(trace=False))
    with Store.open(tmp_path / "r.db") as store:
        summary = replay([WFCC], store)
        assert summary.applied == ["wfcc15"] and summary.disagreements == []
        got = {(h["system"], pid): h for pid in {p.id for s in event.sections for p in s.players}
               for h in store.history(pid)}
        n = 0
        for sr in expected.sections:
            for pr in sr.players:
                if pr.m == 0:
                    continue
                row = got[(sr.system, pr.id)]
                assert row["post"] == pr.post and row["pre"] == pr.pre  # exact floats
                assert row["fingerprint"] == sr.rules.fingerprint
                rec = store.ratings_of(pr.id)[sr.system]
                assert rec == pr.record_after
                n += 1
        assert summary.player_updates == n
        assert store.counts()["changes"] == n
        rules = store.rules(expected.sections[0].rules.fingerprint)
        assert rules["parameters"]["absolute_floor"]["source"] == "002"


def test_dual_rated_section_updates_both_systems(tmp_path):
    with Store.open(tmp_path / "r.db") as store:
        replay([WFCC], store)
        assert set(store.ratings_of("32510077")) == {"OTBR", "OTBQ"}  # unrated before


def test_replay_orders_by_end_start_and_id(tmp_path):
    events = list(generate_history(3, 60, 12))
    shuffled = events[:]
    random.Random(1).shuffle(shuffled)
    with Store.open(tmp_path / "a.db") as a, Store.open(tmp_path / "b.db") as b:
        summary = replay(events, a)
        replay(shuffled, b)
        assert summary.player_games == sum(player_games(e) for e in events) > 0
        assert [e["id"] for e in b.events()] == [e.id for e in sorted(events, key=event_key)]
        for t in TABLES:
            assert a.dump(t) == b.dump(t)


def test_shared_rules_match_the_rule_book():
    book = RuleBook.load()
    shared = _SharedRules(book)
    rng = random.Random(5)
    for _ in range(150):
        on = dt.date(2001, 1, 1) + dt.timedelta(days=rng.randrange(9300))
        for kw in ({}, {"readings": {"revision-2020": "2020-09-proposal"}},
                   {"known_on": dt.date(2016, 1, 1)}):
            a, b = book.rules(on, **kw), shared.rules(on, **kw)
            assert a.as_dict() == b.as_dict()
            assert shared.fingerprint(b) == a.fingerprint


# ------------------------------------------------------------- applied twice
def test_same_event_twice_is_refused_and_can_be_skipped(tmp_path, capsys):
    db = tmp_path / "r.db"
    assert main(["replay", str(WFCC), "--db", str(db)]) == 0
    before = snapshot(db)
    capsys.readouterr()
    assert main(["replay", str(WFCC), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "wfcc15 is already applied" in err and "--skip-applied" in err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert snapshot(db) == before
    assert main(["replay", str(WFCC), "--db", str(db), "--skip-applied", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["events_applied"] == 0 and out["skipped"] == ["wfcc15"]
    assert snapshot(db) == before


def test_same_event_id_twice_in_one_run_is_refused(tmp_path):
    copy_ = tmp_path / "copy.yaml"
    copy_.write_text(WFCC.read_text())
    (tmp_path / "wfcc15.yaml").write_text(WFCC.read_text())
    with Store.open(tmp_path / "r.db") as store:
        with pytest.raises(InputError, match="given twice"):
            replay([WFCC, tmp_path / "wfcc15.yaml"], store)
        assert store.discarded  # a new store, nothing written: removed
    assert not (tmp_path / "r.db").exists()


def store_files(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("r.db"))


def test_a_new_store_whose_input_is_refused_is_not_left_behind(tmp_path, capsys):
    """The one input refused, or one of several (every file is read before
    anything is written): status 2, one line, and no store file, journal or
    writer lock left where there was none."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("event: [\n")
    for inputs in ([bad], [WFCC, bad]):
        assert main(["replay", *map(str, inputs), "--db", str(tmp_path / "r.db")]) == 2
        err = capsys.readouterr().err
        assert "bad.yaml" in err and err.count("\n") == 1 and "Traceback" not in err
        assert store_files(tmp_path) == []


def test_a_successful_replay_leaves_no_writer_lock_file(tmp_path):
    """The writer lock's file goes with the lock: after a replay only the
    store itself is left beside it (its WAL files are checkpointed away)."""
    assert main(["replay", str(WFCC), "--db", str(tmp_path / "r.db")]) == 0
    assert main(["replay", str(WFCC), "--db", str(tmp_path / "r.db"), "--skip-applied"]) == 0
    assert not any(name.endswith("-writer") for name in store_files(tmp_path))
    assert "r.db" in store_files(tmp_path)


@pytest.mark.parametrize("verbose", [False, True])
def test_a_new_store_interrupted_while_reading_is_removed(tmp_path, capsys, monkeypatch, verbose):
    """Interrupted in the replay's own reading of an event file, or (with
    ``-v``, which has the command's reader say what it read) in the
    command's."""
    import uschess.apps.replay_order as R
    import uschess.commands.replay as command

    def interrupted(*args, **kw):
        raise KeyboardInterrupt
    monkeypatch.setattr(R, "event_from_dict", interrupted)
    monkeypatch.setattr(command, "load_event_input", interrupted)
    assert main(["replay", str(WFCC), "--db", str(tmp_path / "r.db"),
                 *(["-v"] if verbose else [])]) == 130
    err = capsys.readouterr().err
    assert "nothing was applied" in err and "is removed" in err and err.count("\n") == 1
    assert store_files(tmp_path) == []


def test_an_event_file_is_read_once_unless_the_command_has_more_to_do(tmp_path, monkeypatch):
    """``uschess replay`` of event files reads each once, as the replay
    reads them, unless a players file is merged into them or ``-v`` has
    each reading said: then the command's reader reads them, after the
    replay's glance at the header."""
    import uschess.apps.replay_order as R
    import uschess.commands.replay as command

    glances = count_calls(monkeypatch, R, "_peek")
    commands = count_calls(monkeypatch, command, "load_event_input")
    assert main(["replay", str(WFCC), "--db", str(tmp_path / "a.db")]) == 0
    assert (len(glances), len(commands)) == (0, 0)
    assert main(["replay", str(WFCC), "--db", str(tmp_path / "b.db"), "-v"]) == 0
    assert (len(glances), len(commands)) == (1, 1)
    assert snapshot(tmp_path / "a.db") == snapshot(tmp_path / "b.db")


def test_a_store_that_existed_is_kept_when_an_input_is_refused(tmp_path, capsys):
    db = tmp_path / "r.db"
    bad = tmp_path / "bad.yaml"
    bad.write_text("event: [\n")
    db.touch()  # an empty file given as the store: it existed, so it is not removed
    assert main(["replay", str(bad), "--db", str(db)]) == 2
    assert db.exists()
    db.unlink()
    assert main(["replay", str(WFCC), "--db", str(db)]) == 0
    before = snapshot(db)
    assert main(["replay", str(bad), "--db", str(db)]) == 2
    assert snapshot(db) == before


def test_a_replay_waiting_on_a_new_store_that_is_removed_writes_nothing(tmp_path):
    """Two replays open the same new file; the first, holding the writer
    lock, writes nothing and removes it: the second, taking the lock, finds
    its file gone and is refused instead of writing into a removed file."""
    db = tmp_path / "r.db"
    first, second = Store.open(db), Store.open(db)
    try:
        with first.writer(wait=0):
            assert first.discard_if_new()
        assert store_files(tmp_path) == []
        with pytest.raises(InputError, match="removed while this program waited"):
            with second.writer(wait=0):
                raise AssertionError("the lock was taken on a removed store")
    finally:
        second.close()
    assert store_files(tmp_path) == []


def test_streamed_events_must_come_in_order(tmp_path):
    events = list(generate_history(4, 40, 6))
    with Store.open(tmp_path / "r.db") as store:
        with pytest.raises(InputError, match="not in replay order"):
            replay(list(reversed(events)), store, ordered=True)
        assert store.counts()["events"] == 1  # the first one is whole


# ------------------------------------------------------------- disagreements
def test_file_disagreeing_with_store_is_reported(tmp_path, capsys):
    db = tmp_path / "r.db"
    assert main(["replay", str(WFCC), "--db", str(db)]) == 0
    event = load_event(WFCC)
    event.id = "wfcc16"
    with Store.open(db) as store:
        stored = {p.id: store.ratings_of(p.id) for s in event.sections for p in s.players}
    # Pabon's OTBR in the file: the pre-event 1206 (the store has his post-event
    # rating); everyone else agrees with the store up to rounding.
    for s in event.sections:
        for p in s.players:
            for system, rec in list(p.ratings.items()):
                if not (p.id == "32207444" and system == "OTBR"):
                    have = stored[p.id][system]
                    p.ratings[system] = replace(have, rating=float(round(have.rating)))
    path = tmp_path / "wfcc16.yaml"
    write_event(event, path)
    capsys.readouterr()
    assert main(["replay", str(path), "--db", str(db)]) == 0
    err = capsys.readouterr().err
    assert err.count("disagreement") == 1
    assert "32207444" in err and "OTBR" in err and "1206" in err
    with Store.open(db) as store:
        h = store.history("32207444", "OTBR")
        assert h[1]["pre"] == h[0]["post"]  # the store's state was used, not the file's
    with Store.open(tmp_path / "fresh.db") as fresh:
        assert replay([path], fresh).disagreements == []  # a new store takes the file's


# ------------------------------------------------------------- kill and resume
@pytest.mark.parametrize("when,every,kept", [
    ("during:30", 1, 29),                            # one transaction per event
    pytest.param("after:70", 1, 70, marks=pytest.mark.slow),
    pytest.param("during:70", 32, 64, marks=pytest.mark.slow),  # 32 events to a transaction
    pytest.param("after:64", 32, 64, marks=pytest.mark.slow),
    pytest.param("after:70", 32, 64, marks=pytest.mark.slow),
    pytest.param("during:65", 5, 60, marks=pytest.mark.slow),
    ("after:119", None, 0)])                         # the default: 1,024 events to a commit
def test_killed_replay_resumes_to_the_same_store(history, tmp_path, when, every, kept):
    """Killed inside an event's writes (during:N) or right after an event is
    written (after:N): the store holds the events up to the last commit,
    whole, and a resumed run ends with the store of an uninterrupted one."""
    base, files, full = history
    db = tmp_path / "killed.db"
    commit = [] if every is None else ["--commit-every", every]
    run = cli("replay", base / "events", "--db", db, *commit, kill_at=when)
    assert run.returncode == -signal.SIGKILL
    assert COMMIT_EVERY == 1024
    with Store.open(db, create=False) as store, Store.open(full, create=False) as whole:
        assert store.counts()["events"] == kept
        assert [e["id"] for e in store.events()] == [e["id"] for e in whole.events()[:kept]]
    if kept:
        refused = cli("replay", base / "events", "--db", db)
        assert refused.returncode == 2 and "already applied" in refused.stderr
    done = cli("replay", base / "events", "--db", db, "--skip-applied")
    assert done.returncode == 0, done.stderr
    assert snapshot(db) == snapshot(full)
    assert indexes(db) == indexes(full) and "changes_player" in indexes(db)


def indexes(db) -> set:
    raw = sqlite3.connect(db)
    try:
        return {r[0] for r in raw.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    finally:
        raw.close()


def test_changes_index_is_built_after_the_rows_of_a_new_store(history, tmp_path):
    """Into a store without changes, the index by player is built after the
    rows: absent while they are written, built by the first lookup by
    player (a match's earlier changes) or at the end, even when the replay
    stops on an error; into a store with changes (or one a killed replay
    left without it) it is there from the start."""
    base, files, full = history
    db = tmp_path / "r.db"
    seen = []
    with Store.open(db) as store:
        with store.changes_index_after():
            seen.append("changes_player" in indexes(db))
            store.history("10000001")
            seen.append("changes_player" in indexes(db))
        assert "changes_player" in indexes(db)
        # built with a small page cache (its sort's memory), then the store's again
        assert store.conn.fetchall("PRAGMA cache_size")[0][0] == -CACHE_KIB
    assert seen == [False, True]
    with Store.open(tmp_path / "rolled.db") as store:
        with store.changes_index_after():
            store.conn.begin(write=True)
            store.history("10000001")  # built in a transaction then rolled back
            store.conn.rollback()
            assert "changes_player" not in indexes(tmp_path / "rolled.db")
    assert "changes_player" in indexes(tmp_path / "rolled.db")
    Store.open(tmp_path / "stopped.db").close()  # not new: kept when the run stops
    with Store.open(tmp_path / "stopped.db") as store:
        with pytest.raises(InputError):
            with store.changes_index_after():
                replay([files[0], files[0]], store)
        assert store.counts()["changes"] == 0  # the run was refused before it wrote
    assert "changes_player" in indexes(tmp_path / "stopped.db")
    with Store.open(tmp_path / "s.db") as store:
        replay(files[:3], store)
        store.conn.execute("DROP INDEX changes_player")  # as a killed replay leaves it
        with store.changes_index_after():
            assert "changes_player" in indexes(tmp_path / "s.db")
    assert indexes(full) == indexes(db) | {"changes_player"}


def test_sigkill_at_any_moment_leaves_whole_events(history, tmp_path):
    base, files, full = history
    db = tmp_path / "timed.db"
    # small batches, so that commits are seen well before the end
    proc = subprocess.Popen([sys.executable, "-m", "uschess", "replay", str(base / "events"),
                             "--db", str(db), "--commit-every", "5"], cwd=ROOT,
                            stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)
    deadline = time.time() + 20
    while time.time() < deadline and proc.poll() is None:
        if db.exists():
            try:
                raw = sqlite3.connect(db, timeout=0.1)
                n = raw.execute("SELECT COUNT(*) FROM events").fetchone()[0]
                raw.close()
            except sqlite3.Error:
                n = 0
            if n >= 5:
                break
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL  # killed, not finished
    killed, whole = snapshot(db), snapshot(full)
    applied = [e[0] for e in killed["events"]]
    assert 5 <= len(applied) < len(files)
    assert killed["events"] == whole["events"][:len(applied)]
    # each applied event has every one of its changes, and nothing else is there
    assert killed["changes"] == [r for r in whole["changes"] if r[0] in set(applied)]
    assert cli("replay", base / "events", "--db", db, "--skip-applied").returncode == 0
    assert snapshot(db) == whole


# ------------------------------------------------------------- the whole history
def test_generated_history_rates_in_all_six_systems(history):
    base, files, db = history
    with Store.open(db, create=False) as store:
        systems = {r[1] for r in store.dump("ratings")}
        assert systems == set(SYSTEMS)
        counts = store.counts()
        assert counts["events"] == len(files)
        assert counts["rulesets"] > 5  # many eras


# ------------------------------------------------------------- player
def test_player_json_has_exactly_the_documented_keys(history, capsys):
    base, files, db = history
    with Store.open(db, create=False) as store:
        pid = store.dump("changes")[0][4]
        expected_history = store.history(pid)
    capsys.readouterr()
    assert main(["player", pid, "--db", str(db), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"id", "systems"} and data["id"] == pid
    assert data["systems"]
    for system, s in data["systems"].items():
        assert set(s) == {"rating", "games", "wins", "draws", "losses", "events3", "peak",
                          "floor", "history"}
        assert s["floor"] >= 100
        for h in s["history"]:
            assert set(h) == {"event", "end", "pre", "post"}
        mine = [h for h in expected_history if h["system"] == system]
        assert [h["post"] for h in s["history"]] == [h["post"] for h in mine]
        assert s["history"][-1]["post"] == s["rating"]
    assert main(["player", pid, "--db", str(db)]) == 0
    assert pid in capsys.readouterr().out


def test_unknown_player_is_an_input_error(history, tmp_path, capsys):
    base, files, db = history
    assert main(["player", "no-such-id", "--db", str(db), "--json"]) == 2
    assert "no player with id no-such-id" in capsys.readouterr().err
    assert main(["player", "1", "--db", str(tmp_path / "none.db")]) == 2
    assert not (tmp_path / "none.db").exists()


# ------------------------------------------------------------- details
def test_player_in_two_sections_starts_the_second_from_the_first(tmp_path):
    event = load_event(WFCC)
    open_, = [s for s in event.sections if s.name == "OPEN"]
    extra = replace(open_, name="BLITZ SIDE", time_control="G/90;d5")
    extra.players = [replace(p, ratings={}) for p in open_.players]  # same people
    event.sections.append(extra)
    event.id = "two-sections"
    with Store.open(tmp_path / "r.db") as store:
        replay([event], store)
        h = store.history("12743305", "OTBR")
        assert [x["section"] for x in h] == ["OPEN", "BLITZ SIDE"]
        assert h[1]["pre"] == h[0]["post"]
        assert store.ratings_of("12743305")["OTBR"].rating == h[1]["post"]
        assert store.ratings_of("12743305")["OTBR"].games == 640 + 3 + 3


def test_an_event_earlier_than_the_store_is_flagged(tmp_path):
    events = list(generate_history(4, 40, 6))
    with Store.open(tmp_path / "r.db") as store:
        replay(events[3:], store)
        summary = replay(events[:1], store)
        assert len(summary.warnings) == 1 and "later in replay order" in summary.warnings[0]


def test_progress_bar_only_when_asked_or_on_a_terminal(tmp_path, capsys):
    assert main(["replay", str(WFCC), "--db", str(tmp_path / "a.db")]) == 0
    out = capsys.readouterr()
    assert out.err == "" and "1 event(s) applied" in out.out
    assert main(["replay", str(WFCC), "--db", str(tmp_path / "b.db"), "--progress"]) == 0
    err = capsys.readouterr().err
    assert "reading:" in err and "0/1 [" in err and "rating:" in err and "event/s" in err
    assert main(["replay", str(WFCC), "--db", str(tmp_path / "c.db"), "--progress", "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_summary_says_what_it_counts(tmp_path, capsys):
    assert main(["replay", str(WFCC), "--db", str(tmp_path / "a.db")]) == 0
    out = capsys.readouterr().out
    assert "player update(s) of" not in out
    assert "rating change(s) written (one per player, event section and system) for" in out
    assert "new to the store" in out


def test_ctrl_c_says_how_many_events_are_applied_and_how_to_resume(tmp_path, capsys,
                                                                   monkeypatch):
    from uschess.apps import replay as replay_module
    events = list(generate_history(4, 40, 5))
    for e in events:
        write_event(e, tmp_path / f"{e.id}.json")
    committed = replay_module._Replayer.committed
    calls = []

    def interrupt_after_three(self, write):
        committed(self, write)
        calls.append(1)
        if len(calls) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(replay_module._Replayer, "committed", interrupt_after_three)
    db = tmp_path / "r.db"
    assert main(["replay", str(tmp_path), "--db", str(db)]) == 130
    err = capsys.readouterr().err
    assert "interrupted: 3 event(s) of this run are applied" in err
    assert "rerun the same command with --skip-applied to resume" in err
    monkeypatch.setattr(replay_module._Replayer, "committed", committed)
    assert main(["replay", str(tmp_path), "--db", str(db), "--skip-applied"]) == 0
    assert f"{len(events) - 3} event(s) applied, 3 skipped" in capsys.readouterr().out


def test_a_bad_event_stops_the_run_after_whole_events(tmp_path, capsys):
    events = list(generate_history(4, 40, 5))
    bad = events[3]
    bad.sections[0].time_control = "G/1"   # rated in no system
    for e in events:
        write_event(e, tmp_path / f"{e.id}.json")
    db = tmp_path / "r.db"
    assert main(["replay", str(tmp_path), "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert bad.id in err and "3 event(s) before it are applied" in err
    with Store.open(db) as store:
        assert [e["id"] for e in store.events()] == [e.id for e in events[:3]]
    assert "changes_player" in indexes(db)  # built after the rows, though the run stopped


def test_a_replay_leaves_no_cyclic_garbage(tmp_path):
    """Everything a replay makes is freed by reference counts, the players'
    cache included once the run ends, so that the collector can run as
    seldom as it does (GC_THRESHOLD).  The replayer and its store base
    referred to each other: the cache stayed in memory until a collection."""
    import gc

    events = list(generate_history(12, 60, 5))
    paths = []
    for e in events:
        paths.append(tmp_path / f"{e.id}.json")
        write_event(e, paths[-1])
    with Store.open(tmp_path / "r.db") as store:
        replay([str(paths[0])], store)  # the modules' first use (caches) before counting
        gc.collect()
        gc.disable()
        try:
            summary = replay([str(p) for p in paths[1:]], store)
            found = gc.collect()
        finally:
            gc.enable()
    assert summary.events_applied == len(events) - 1
    assert found == 0


def test_a_replay_runs_the_collector_less_often_and_restores_it(tmp_path, monkeypatch):
    import gc

    import uschess.apps.replay as replay_module
    seen = []
    prepare = replay_module._Replayer.prepare

    def spy(self, *args, **kw):
        seen.append(gc.get_threshold())
        return prepare(self, *args, **kw)
    monkeypatch.setattr(replay_module._Replayer, "prepare", spy)
    before = gc.get_threshold()
    with Store.open(tmp_path / "r.db") as store:
        replay([WFCC], store)
        assert seen == [(max(before[0], replay_module.GC_THRESHOLD), *before[1:])]
        assert gc.get_threshold() == before
        with pytest.raises(InputError, match="already applied"):
            replay([WFCC], store)
        assert gc.get_threshold() == before


def test_summary_counts_the_players_this_replay_rated(history, tmp_path):
    """The summary's players are those the replay's own events rated, counted
    in the store: a second replay into the same store counts its events'
    players only, not the store's."""
    _, files, _ = history
    files = sorted(files)
    first, second = files[:60], files[60:]

    def rated(paths):
        ids = set()
        for path in paths:
            for sr in rate_event(load_event(path), RatingOptions(trace=False)).sections:
                ids.update(pr.id for pr in sr.players if pr.m)
        return ids

    with Store.open(tmp_path / "two.db") as store:
        one = replay(first, store, RatingOptions(trace=False))
        two = replay(second, store, RatingOptions(trace=False))
        everyone = len({pid for pid, _ in store.conn.fetchall(
            "SELECT player_id, system FROM ratings")})
    assert one.players == len(rated(first))
    assert two.players == len(rated(second))
    assert two.players < everyone


def test_a_cache_emptied_during_the_replay_writes_the_same_store(history, tmp_path, monkeypatch):
    """With room for fewer players than the history has, the replay's cache
    of players' state fills and is emptied many times, and the players left
    out are read back from the store: the same rows as a replay that keeps
    them all."""
    import uschess.apps.replay as R

    _, files, full = history
    monkeypatch.setattr(R, "CACHE_PLAYERS", 80)
    emptied = []
    load = R._Replayer._load

    def counted(self, ids):
        before = len(self._infos)
        load(self, ids)
        emptied.append(len(self._infos) < before)

    monkeypatch.setattr(R._Replayer, "_load", counted)
    with Store.open(tmp_path / "small.db") as store:
        replay(files, store, RatingOptions(trace=False))
    assert sum(emptied) > 5
    assert snapshot(tmp_path / "small.db") == snapshot(full)
