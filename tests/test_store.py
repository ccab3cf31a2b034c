"""The ratings store: schema, full-precision floats, one transaction per event,
audits, and the connection layer's portability."""

from __future__ import annotations

import builtins
import datetime as dt
import sqlite3

import pytest
from helpers import store_write as _write

from engine.errors import InputError
from engine.model import ForeignRating
from engine.store import SCHEMA, SCHEMA_VERSION, Store, _Connection, _redact

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


def test_floats_round_trip_exactly(tmp_path):
    values = [1234.5678901234567, 1 / 3, 2199.9999999999995, 100.00000000000001]
    with Store.open(tmp_path / "r.db") as store:
        for i, v in enumerate(values):
            store.apply_event(_write(f"E{i}", rating=v, pid=str(i)))
    with Store.open(tmp_path / "r.db", create=False) as store:
        for i, v in enumerate(values):
            rec = store.ratings_of(str(i))["OTBR"]
            assert rec.rating == v and rec.games == 4 and rec.date == D(2020, 1, 5)
            assert store.history(str(i))[0]["post"] == v
        info = store.player("0")
        assert info.birth_date == D(2000, 2, 29) and info.fide == ForeignRating(1900.0, D(2019, 12, 1))
        assert store.rules("fp1") == {"parameters": {"k": 1}}
        assert store.has_rules("fp1") and not store.has_rules("nope")


def test_event_is_written_whole_or_not_at_all(tmp_path):
    with Store.open(tmp_path / "r.db") as store:
        assert store.apply_event(_write("E1")) == 1
        before = {t: store.dump(t) for t in ("players", "ratings", "events", "changes")}
        with pytest.raises(InputError, match="E1 is already applied"):
            store.apply_event(_write("E1", rating=1500.0, pid="200"))
        # a failure in the middle of the transaction leaves nothing behind

        def boom():
            raise RuntimeError("killed")
        with pytest.raises(RuntimeError):
            store.apply_event(_write("E2", pid="300"), during=boom)
        assert {t: store.dump(t) for t in before} == before
        assert store.applied(["E1", "E2"]).keys() == {"E1"}
        assert store.apply_event(_write("E2", pid="300")) == 2
        assert [e["id"] for e in store.events()] == ["E1", "E2"]


def test_upsert_replaces_the_state(tmp_path):
    with Store.open(tmp_path / "r.db") as store:
        store.apply_event(_write("E1", rating=1500.0))
        store.apply_event(_write("E2", rating=1510.25, pre=1500.0))
        assert store.ratings_of("100")["OTBR"].rating == 1510.25
        assert [(h["event"], h["pre"], h["post"]) for h in store.history("100")] == [
            ("E1", None, 1500.0), ("E2", 1500.0, 1510.25)]
        assert store.counts()["ratings"] == 1 and store.counts()["players"] == 1


def test_published_ratings_and_audit(tmp_path):
    with Store.open(tmp_path / "r.db") as store:
        store.apply_event(_write("E1", rating=1500.4))
        store.record_published("E1", [("100", "OTBR", 1500), ("999", "OTBR", 1200)])
        assert store.audit() == [{"event": "E1", "player": "999", "system": "OTBR",
                                  "published": 1200.0, "computed": None}]
        store.record_published("E1", [("100", "OTBR", 1502)])
        assert [a["player"] for a in store.audit(event_id="E1")] == ["100", "999"]


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


def test_schema_version_mismatch_is_refused(tmp_path):
    db = tmp_path / "r.db"
    Store.open(db).close()
    raw = sqlite3.connect(db)
    raw.execute("UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    raw.commit()
    raw.close()
    with pytest.raises(InputError, match="schema version 99"):
        Store.open(db)


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
