"""The ratings store, SQLite specifics: WAL, files that are not stores, and
the connection layer's portability.  The behaviour shared by both backends
(full-precision floats, one transaction per event, upserts, published ratings,
schema versions) is tested on SQLite and PostgreSQL alike in
tests/store/test_store_backends.py."""

from __future__ import annotations

import builtins
import datetime as dt
import sqlite3
import time

import pytest

from uschess.errors import InputError
from uschess.io.store import SCHEMA, SCHEMA_VERSION, Store
from uschess.io.store_connection import _Connection, _redact

D = dt.date




def test_new_store_has_versioned_schema_and_wal(tmp_path):
    db = tmp_path / "r.db"
    with Store.open(db) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.counts() == {"players": 0, "ratings": 0, "events": 0, "changes": 0,
                                  "rulesets": 0, "published": 0}
    raw = sqlite3.connect(db)
    assert raw.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert dict(raw.execute("SELECT key, value FROM meta"))["schema_version"] == str(SCHEMA_VERSION)


def test_refuses_what_is_not_a_store(tmp_path):
    with pytest.raises(InputError, match="no such ratings store"):
        Store.open(tmp_path / "missing.db", create=False)
    junk = tmp_path / "junk.db"
    junk.write_text("not a database at all " * 100)
    with pytest.raises(InputError, match="SQLite"):
        Store.open(junk)
    other = tmp_path / "other.db"
    sqlite3.connect(other).execute("CREATE TABLE x (a)")
    with pytest.raises(InputError, match="not a ratings store"):
        Store.open(other, create=False)
    with pytest.raises(InputError, match="directory"):
        Store.open(tmp_path)


def test_postgresql_url_needs_psycopg(monkeypatch):
    real_import = builtins.__import__

    def no_psycopg(name, *args, **kwargs):
        if name == "psycopg":
            raise ImportError(name)
        return real_import(name, *args, **kwargs)
    monkeypatch.setattr(builtins, "__import__", no_psycopg)
    with pytest.raises(InputError, match="psycopg") as err:
        Store.open("postgresql://rater:secret@db.example/ratings")
    assert "secret" not in str(err.value)


def test_sql_is_portable():
    """Placeholders are rewritten for psycopg; the DDL uses no SQLite-only syntax."""
    conn = _Connection(sqlite3.connect(":memory:"), "postgresql")
    assert conn.sql("SELECT a FROM t WHERE a = ? AND b IN (?, ?)") == \
        "SELECT a FROM t WHERE a = %s AND b IN (%s, %s)"
    text = " ".join(SCHEMA).upper()
    for sqlite_only in ("AUTOINCREMENT", "INSERT OR", "REPLACE INTO", "WITHOUT ROWID", "PRAGMA",
                        " REAL", " BLOB"):
        assert sqlite_only not in text
    assert _redact("postgresql://u:pw@h:5432/d") == "postgresql://u@h:5432/d"


def test_an_event_is_applied_at_the_time_now_in_utc_to_the_second():
    import datetime as dt

    from uschess.io.store import _now

    before = dt.datetime.now(dt.timezone.utc).replace(microsecond=0)
    texts = [_now() for _ in range(3)]
    after = dt.datetime.now(dt.timezone.utc)
    for text in texts:
        assert len(text) == len("2026-01-01T00:00:00+00:00") and text.endswith("+00:00")
        assert before <= dt.datetime.fromisoformat(text) <= after


def test_none_is_bound_as_null_through_the_stores_adapter(tmp_path):
    """Opening a store registers an adapter for None (found at once, where
    the sqlite3 module would otherwise search the types for one) that
    returns it: None still binds as NULL, in the store and in any other
    connection of the process."""
    with Store.open(tmp_path / "r.db") as store:
        store.conn.execute("INSERT INTO players (id, name, birth_date) VALUES (?, ?, ?)",
                           ("12345678", "Doe, Jo", None))
        assert store.conn.fetchall("SELECT typeof(birth_date), typeof(name) FROM players") == \
            [("null", "text")]
    adapter = sqlite3.adapters.get((type(None), sqlite3.PrepareProtocol))
    assert adapter is not None and adapter(None) is None
    raw = sqlite3.connect(":memory:")
    raw.execute("CREATE TABLE t (a, b)")
    raw.execute("INSERT INTO t VALUES (?, ?)", (None, 1))
    assert raw.execute("SELECT a IS NULL, typeof(a) FROM t").fetchone() == (1, "null")
    raw.close()


def test_an_adapter_for_none_the_process_registered_is_left_alone(monkeypatch):
    from uschess.io import store_connection as store_mod

    def own(value):
        return "theirs"
    key = (type(None), sqlite3.PrepareProtocol)
    monkeypatch.setattr(sqlite3, "adapters", {key: own})  # the process's, not this module's

    def registered(tp, fn):
        raise AssertionError("an adapter the process registered was replaced")
    monkeypatch.setattr(sqlite3, "register_adapter", registered)
    store_mod._bind_none_as_null()
    assert sqlite3.adapters[key] is own


# ------------------------------------------------- writers creating a store
def test_openings_of_a_new_store_at_the_same_instant_all_wait(tmp_path):
    """Four connections open one new file at the same instant, 25 times: one
    creates the store, the others wait for it and find it (none is refused
    with 'database is locked'), and the schema is made once."""
    import threading

    for trial in range(25):
        db = tmp_path / f"new-{trial}.db"
        start = threading.Barrier(4)
        errors: list = []

        def open_it():
            start.wait()
            try:
                Store.open(db).close()
            except InputError as err:  # pragma: no cover - what the test is for
                errors.append(str(err))

        threads = [threading.Thread(target=open_it) for _ in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert errors == [], (trial, errors)
        raw = sqlite3.connect(db)
        assert raw.execute("SELECT COUNT(*) FROM meta WHERE key = 'schema_version'"
                           ).fetchone()[0] == 1
        raw.close()


#: A replay started when the file named first exists (the process has
#: imported everything before): two start within a millisecond of each other.
_GATED = ("import os, sys, time\n"
          "from uschess.cli import main\n"
          "while not os.path.exists(sys.argv[1]):\n"
          "    time.sleep(0.0005)\n"
          "sys.exit(main(sys.argv[2:]))\n")


@pytest.mark.slow  # 50 processes
def test_two_replays_starting_together_on_a_new_store(tmp_path):
    """Two replays of different histories start at the same instant into a
    new SQLite store, 25 times: both exit 0 every time (the second waits for
    the first) and the store holds both histories."""
    import subprocess
    import sys
    from pathlib import Path

    from uschess.apps.generate import write_history

    root = Path(__file__).resolve().parents[1]
    a = write_history(tmp_path / "a", seed=5, players=12, events=3)
    b = write_history(tmp_path / "b", seed=1005, players=12, events=3)
    for trial in range(25):
        db, go = tmp_path / f"s{trial}.db", tmp_path / f"go{trial}"
        procs = [subprocess.Popen([sys.executable, "-c", _GATED, str(go), "replay",
                                   str(history[0].parent), "--db", str(db)],
                                  cwd=root, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  text=True) for history in (a, b)]
        time.sleep(1.5)  # both have imported the program and are polling
        go.touch()
        outs = [p.communicate(timeout=300) for p in procs]
        assert [p.returncode for p in procs] == [0, 0], (trial, outs)
        with Store.open(db, create=False) as store:
            assert len(store.events()) == len(a) + len(b), trial
