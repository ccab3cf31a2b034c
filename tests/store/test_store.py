"""The ratings store, SQLite specifics: WAL, files that are not stores, and
the connection layer's portability.  The behaviour shared by both backends
(full-precision floats, one transaction per event, upserts, published ratings,
schema versions) is tested on SQLite and PostgreSQL alike in
tests/store/test_store_backends.py."""

from __future__ import annotations

import builtins
import datetime as dt
import sqlite3

import pytest

from uschess.errors import InputError
from uschess.io.store import SCHEMA, SCHEMA_VERSION, Store, _Connection, _redact

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
    from uschess.io import store as store_mod

    def own(value):
        return "theirs"
    key = (type(None), sqlite3.PrepareProtocol)
    monkeypatch.setattr(sqlite3, "adapters", {key: own})  # the process's, not this module's

    def registered(tp, fn):
        raise AssertionError("an adapter the process registered was replaced")
    monkeypatch.setattr(sqlite3, "register_adapter", registered)
    store_mod._bind_none_as_null()
    assert sqlite3.adapters[key] is own
