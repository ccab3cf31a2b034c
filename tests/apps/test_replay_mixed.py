"""A replay mixing events, a FIDE update and matches (fixtures/replay-mixed):
the same store whatever the argument order and however it is split, killed
and resumed; match caps from the store; refusal of a FIDE update applied
twice; the schema migration; a granted floor request kept for later events."""

from __future__ import annotations

import datetime as dt
import json
import os
import random
import shutil
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from helpers import store_snapshot as snapshot
import yaml

from uschess.cli import main
from uschess.errors import InputError
from uschess.io.eventfile import load_event
from uschess.io.fide_file import FideGame, FideUpdate, load_fide_update
from uschess.rating.fide_update import fide_update
from uschess.model import SystemRecord
from uschess.rating.pipeline import RatingOptions, rate_event
from uschess.apps.replay import apply_fide_update, event_key, load_item, replay, store_event_id
from uschess.io.store import EventWrite, PlayerInfo, Store
import uschess.io.store as store_mod
ROOT = Path(__file__).resolve().parents[2]
MIXED = ROOT / "fixtures" / "replay-mixed"
FILES = sorted(str(p) for p in MIXED.iterdir() if p.suffix == ".yaml")
FIDE_FILE = str(MIXED / "f1-open-abroad.yaml")
ORDER = ["E1", "fide-update:A:2024-02-10", "M1", "M4", "M2", "M3", "E2"]
END = dt.date(2024, 7, 6)


def options(grant=True) -> RatingOptions:
    return RatingOptions(trace=False, grant_floor_requests=grant)




def in_date_order(files=FILES) -> list[str]:
    return sorted(files, key=lambda f: event_key(load_item(f)))


def one_by_one(db, opts, files=FILES) -> None:
    """Each file on its own, in date order: events through their own replay
    (a fresh replay every time: everything comes from the store), the FIDE
    update through apply_fide_update."""
    with Store.open(db) as store:
        for path in in_date_order(files):
            item = load_item(path)
            if isinstance(item, FideUpdate):
                apply_fide_update(item, store, opts)
            else:
                replay([path], store, opts)


def cli(*args, env=None, kill_at=None):
    """``uschess ARGS``; ``kill_at`` (after:N, during:N) kills it at that write (tests/crash.py)."""
    run = ["-m", "uschess"] if kill_at is None else [str(ROOT / "tests" / "crash.py"), kill_at]
    return subprocess.run([sys.executable, *run, *map(str, args)], cwd=ROOT,
                          env={**os.environ, **(env or {})}, capture_output=True, text=True)


@pytest.fixture(scope="module")
def full(tmp_path_factory):
    """The store of one uninterrupted command-line run, floors granted."""
    db = tmp_path_factory.mktemp("mixed") / "full.db"
    assert main(["replay", str(MIXED), "--db", str(db), "--grant-floor-requests"]) == 0
    return db


def change(store, pid, event):
    row = next(r for r in store.history(pid, "OTBR") if r["event"] == event)
    return row["post"] - row["pre"]


# ------------------------------------------------------------- one order
@pytest.mark.parametrize("seed", [1, 2])
def test_shuffled_replay_is_the_store_of_one_by_one(tmp_path, seed):
    shuffled = FILES[:]
    random.Random(seed).shuffle(shuffled)
    with Store.open(tmp_path / "run.db") as store:
        summary = replay(shuffled, store, options())
    assert summary.applied == ORDER and summary.fide_updates == 1
    assert summary.as_dict()["fide_updates_applied"] == 1
    one_by_one(tmp_path / "each.db", options())
    run, each = snapshot(tmp_path / "run.db"), snapshot(tmp_path / "each.db")
    assert [e[0] for e in run["events"]] == ORDER
    assert run == each


def test_command_line_run_counts_the_fide_update(full, tmp_path, capsys):
    assert [e[0] for e in snapshot(full)["events"]] == ORDER
    db = tmp_path / "r.db"
    assert main(["replay", *FILES, "--db", str(db), "--grant-floor-requests"]) == 0
    out = capsys.readouterr()
    assert "7 event(s) applied (1 of them FIDE updates)" in out.out
    assert out.err.count("disagreement") == 2  # A's stale record, A's match_history
    assert snapshot(db) == snapshot(full)


def test_fide_update_is_rated_from_the_store(full):
    with Store.open(full) as store:
        e1, fide = store.history("A", "OTBR")[:2]
    assert (fide["event"], fide["section"]) == ("fide-update:A:2024-02-10", "FIDE")
    assert fide["pre"] == e1["post"] and fide["games_before"] == e1["games_after"]
    assert fide["games_after"] == fide["games_before"] + 2 and fide["post"] > fide["pre"]


# ------------------------------------------------------------- match caps
def test_third_match_is_held_by_the_180_day_cap_from_the_store(full, tmp_path):
    with Store.open(full) as store:
        assert change(store, "A", "M1") == pytest.approx(50.0)
        assert change(store, "A", "M2") == pytest.approx(50.0)
        assert change(store, "A", "M3") == pytest.approx(0.0)   # net 100 in 180 days
        b = [change(store, "B", m) for m in ("M1", "M2", "M3")]
        assert b[0] == pytest.approx(-50.0) and sum(b) == pytest.approx(-100.0)
    # the cap comes from the store: the same match rated on its own (the
    # file's match_history only) would not be capped
    db = tmp_path / "upto-m2.db"
    with Store.open(db) as store:
        replay([f for f in FILES if "m3" not in f and "e2" not in f], store, options())
        event = load_event(MIXED / "m3-match.yaml")
        for pl in event.sections[0].players:
            pl.ratings = {"OTBR": store.states([pl.id])[(pl.id, "OTBR")]}
        alone = {p.id: p for p in rate_event(event, options()).sections[0].players}
        a = alone["A"]
        assert a.history_source == "event" and a.change > 30
        assert a.change == pytest.approx(a.change_uncapped)
        fed = {p.id: p for p in rate_event(event, RatingOptions(match_history=store))
               .sections[0].players}
        assert fed["A"].change == pytest.approx(0.0) and fed["A"].history_source == "store"


def test_a_file_match_history_the_store_overrides_is_reported(tmp_path):
    with Store.open(tmp_path / "r.db") as store:
        summary = replay(FILES, store, options())
    found = [d for d in summary.disagreements if d.what == "match_history"]
    assert len(found) == 1
    d = found[0]
    assert (d.event, d.player, d.system) == ("M3", "A", "OTBR")
    assert d.file == [{"date": "2023-12-01", "change": -50.0}]
    assert [h["date"] for h in d.store] == ["2024-03-02", "2024-05-04"]
    assert "match_history in the file" in str(d) and "store's is used" in str(d)
    rating = [d for d in summary.disagreements if d.what == "rating"]
    assert [(d.event, d.player) for d in rating] == [("fide-update:A:2024-02-10", "A")]


def test_a_file_match_history_serves_for_a_player_the_store_has_not_seen(tmp_path):
    raw = yaml.safe_load((MIXED / "m4-floor-match.yaml").read_text())
    raw["sections"][0]["players"][0]["match_history"] = [
        {"date": "2024-02-01", "change": -50.0}, {"date": "2024-03-01", "change": -45.0}]
    path = tmp_path / "m4.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    with Store.open(tmp_path / "r.db") as store:
        summary = replay([path], store, options())
        assert change(store, "G", "M4") == pytest.approx(-5.0)  # net -100 in 180 days
    assert summary.disagreements == []


def test_match_sections_of_one_event_see_each_other(tmp_path):
    """The store's history includes the earlier sections of the event being
    rated (written, not yet committed)."""
    raw = yaml.safe_load((MIXED / "m1-match.yaml").read_text())
    raw["event"].update(start="2024-03-01", end="2024-03-03")
    first = raw["sections"][0]
    raw["sections"] = [dict(json.loads(json.dumps(first)), name=f"GAME {i}",
                            start=f"2024-03-0{i}", end=f"2024-03-0{i}") for i in (1, 2, 3)]
    path = tmp_path / "three.yaml"
    path.write_text(yaml.safe_dump(raw), encoding="utf-8")
    with Store.open(tmp_path / "r.db") as store:
        replay([MIXED / "e1-winter-swiss.yaml", path], store, options())
        steps = [r["post"] - r["pre"] for r in store.history("A", "OTBR")[1:]]
    assert steps == [pytest.approx(50.0), pytest.approx(50.0), pytest.approx(0.0)]


# ------------------------------------------------------------- kill and resume
@pytest.mark.parametrize("when", ["during:2", pytest.param("after:4", marks=pytest.mark.slow), "during:7"])
def test_killed_mixed_replay_resumes_to_the_same_store(full, tmp_path, when):
    """during:2 dies inside the FIDE update's transaction, after:4 right after
    the floor match (the lowered floor must come back from the store),
    during:7 inside the last event's (one transaction per event)."""
    db = tmp_path / "killed.db"
    run = cli("replay", MIXED, "--db", db, "--grant-floor-requests", "--commit-every", 1,
              kill_at=when)
    assert run.returncode == -signal.SIGKILL
    n = int(when.split(":")[1])
    with Store.open(db, create=False) as store:
        assert [e["id"] for e in store.events()] == ORDER[:n - 1 if when[0] == "d" else n]
    refused = cli("replay", MIXED, "--db", db, "--grant-floor-requests")
    assert refused.returncode == 2 and "already applied" in refused.stderr
    done = cli("replay", MIXED, "--db", db, "--grant-floor-requests", "--skip-applied")
    assert done.returncode == 0, done.stderr
    assert snapshot(db) == snapshot(full)


# ------------------------------------------------------------- applied twice
def test_a_fide_update_applied_twice_is_refused(tmp_path, capsys):
    db = tmp_path / "r.db"
    with Store.open(db) as store:
        replay([FIDE_FILE], store)
        before = snapshot(db)
        with pytest.raises(InputError, match="already applied"):
            replay([FIDE_FILE], store)
        with pytest.raises(InputError, match="already applied"):
            apply_fide_update(load_fide_update(FIDE_FILE), store)
        summary = replay([FIDE_FILE], store, skip_applied=True)
        assert summary.skipped == ["fide-update:A:2024-02-10"] and summary.applied == []
    assert snapshot(db) == before
    assert main(["replay", FIDE_FILE, "--db", str(db)]) == 2
    err = capsys.readouterr().err
    assert "fide-update:A:2024-02-10 is already applied" in err and "Traceback" not in err
    # applied by apply_fide_update first, a replay refuses it too
    other = tmp_path / "o.db"
    with Store.open(other) as store:
        apply_fide_update(load_fide_update(FIDE_FILE), store)
        with pytest.raises(InputError, match="already applied"):
            replay([FIDE_FILE], store)
    # the same update twice in one run
    copy_ = tmp_path / "copy.yaml"
    shutil.copy(FIDE_FILE, copy_)
    with Store.open(tmp_path / "t.db") as store:
        with pytest.raises(InputError, match="given twice"):
            replay([FIDE_FILE, copy_], store)


def test_kinds_are_told_apart_by_peeking(tmp_path):
    assert isinstance(load_item(FIDE_FILE), FideUpdate)
    assert store_event_id(load_item(FIDE_FILE)) == "fide-update:A:2024-02-10"
    data = yaml.safe_load(Path(FIDE_FILE).read_text())
    as_json = tmp_path / "upd.json"
    as_json.write_text(json.dumps(data), encoding="utf-8")
    assert isinstance(load_item(as_json), FideUpdate)  # the name says nothing
    assert load_item(MIXED / "e1-winter-swiss.yaml").id == "E1"
    data["kind"] = "fide_update"
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(data), encoding="utf-8")
    with pytest.raises(InputError, match="'kind' is 'fide_update'"):
        load_item(bad)


# ------------------------------------------------------------- floors
def test_a_granted_floor_request_persists_into_the_next_event(full, tmp_path):
    with Store.open(full) as store:
        g = store.ratings_of("G")["OTBR"]
        m4, e2 = store.history("G", "OTBR")
    assert (g.lowered_floor, g.lowered_from) == (1700.0, 1800.0)
    assert m4["post"] < 1800 and not m4["floor_applied"]
    # E2: a loss takes G further below 1800, judged against the lowered floor
    assert e2["pre"] == m4["post"] and 1700 < e2["post"] < e2["pre"] and not e2["floor_applied"]
    raw = sqlite3.connect(full)
    row = raw.execute("SELECT lowered_floor, lowered_from FROM ratings WHERE player_id = 'G'")
    assert row.fetchone() == (1700.0, 1800.0)
    assert raw.execute("SELECT COUNT(*) FROM ratings WHERE lowered_floor IS NOT NULL"
                       ).fetchone()[0] == 1
    raw.close()
    # not granted: G is held at the floor 1800 in the match and in E2
    with Store.open(tmp_path / "held.db") as store:
        replay(FILES, store, options(grant=False))
        m4, e2 = store.history("G", "OTBR")
        assert m4["post"] == 1800.0 and m4["floor_applied"]
        assert e2["post"] == 1800.0 and e2["floor_applied"]
        assert store.ratings_of("G")["OTBR"].lowered_floor is None


def test_a_fide_update_honours_a_lowered_floor():
    def rated(record):
        return fide_update(FideUpdate(player_id="G", record=record, start=END, end=END,
                                      games=[FideGame("L", 2000.0)]))
    base = dict(rating=1780.0, games=105, wins=40, draws=20, losses=45, events3=21, peak=2000.0)
    held = rated(SystemRecord(**base))
    assert held.post == 1800.0 and held.floor_applied
    lowered = rated(SystemRecord(**base, lowered_floor=1700.0, lowered_from=1800.0))
    assert lowered.post < 1780 and not lowered.floor_applied and lowered.floor == 1700.0
    assert lowered.record_after.lowered_floor == 1700.0


def test_a_new_peak_ends_a_lowered_floor(tmp_path):
    """The lowering lasts while the sec. 5 floor it replaced is the one
    computed: a new peak that raises the floor ends it."""
    with Store.open(tmp_path / "r.db") as store:
        write = EventWrite(id="seed", name="seed", start=END, end=END)
        write.players += [PlayerInfo(id="G"), PlayerInfo(id="K")]
        write.ratings[("G", "OTBR")] = SystemRecord(
            rating=2095.0, games=150, wins=60, draws=30, losses=60, events3=30, peak=2099.0,
            lowered_floor=1700.0, lowered_from=1800.0)
        write.ratings[("K", "OTBR")] = SystemRecord(rating=2300.0, games=300)
        store.apply_event(write)
        event = {"event": {"name": "Later", "id": "later", "start": "2024-08-03"},
                 "sections": [{"name": "OPEN", "time_control": "G/90;d30", "players": [
                     {"pair": 1, "id": "G", "name": "G", "rounds": ["W2", "W2"]},
                     {"pair": 2, "id": "K", "name": "K", "rounds": ["L1", "L1"]}]}]}
        path = tmp_path / "later.yaml"
        path.write_text(yaml.safe_dump(event), encoding="utf-8")
        replay([path], store)
        g = store.ratings_of("G")["OTBR"]
    assert g.peak >= 2100 and type(g) is SystemRecord  # floor 1900 now: nothing lowered


# ------------------------------------------------------------- migration
def _downgrade(db) -> None:
    """Turn a version-2 store into the version-1 layout."""
    raw = sqlite3.connect(db)
    raw.execute("ALTER TABLE ratings DROP COLUMN lowered_floor")
    raw.execute("ALTER TABLE ratings DROP COLUMN lowered_from")
    raw.execute("UPDATE meta SET value = '1' WHERE key = 'schema_version'")
    raw.commit()
    raw.close()


def _columns(db) -> list[str]:
    raw = sqlite3.connect(db)
    try:
        return [r[1] for r in raw.execute("PRAGMA table_info(ratings)")]
    finally:
        raw.close()


def test_an_old_schema_store_is_migrated(full, tmp_path):
    db = tmp_path / "old.db"
    first = in_date_order()[:3]
    with Store.open(db) as store:
        replay(first, store, options())
    before = snapshot(db)
    _downgrade(db)
    assert "lowered_floor" not in _columns(db)
    with Store.open(db, create=False) as store:
        assert store.schema_version() == store_mod.SCHEMA_VERSION == 2
        meta = dict(store.dump("meta"))
        assert "migrated_from_1_at" in meta
    assert _columns(db)[-2:] == ["lowered_floor", "lowered_from"]
    assert snapshot(db) == before  # the rows, new columns empty, as a fresh store has them
    # and it carries on as if it had never been old
    assert main(["replay", str(MIXED), "--db", str(db), "--grant-floor-requests",
                 "--skip-applied"]) == 0
    assert snapshot(db) == snapshot(full)


def test_a_failed_migration_leaves_the_store_as_it_was(tmp_path, monkeypatch):
    db = tmp_path / "old.db"
    with Store.open(db) as store:
        replay(in_date_order()[:1], store, options())
    _downgrade(db)
    monkeypatch.setitem(store_mod.MIGRATIONS, 1, [store_mod.MIGRATIONS[1][0],
                                                  "ALTER TABLE no_such_table ADD COLUMN x"])
    with pytest.raises(InputError, match="no_such_table"):
        Store.open(db)
    raw = sqlite3.connect(db)
    assert raw.execute("SELECT value FROM meta WHERE key = 'schema_version'").fetchone() == ("1",)
    raw.close()
    assert "lowered_floor" not in _columns(db)  # the first ALTER was rolled back


def test_a_newer_store_is_refused(tmp_path):
    db = tmp_path / "new.db"
    Store.open(db).close()
    raw = sqlite3.connect(db)
    raw.execute("UPDATE meta SET value = '3' WHERE key = 'schema_version'")
    raw.commit()
    raw.close()
    with pytest.raises(InputError, match="schema version 3"):
        Store.open(db)
