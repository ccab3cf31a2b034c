"""The ratings store on both backends: SQLite, and PostgreSQL against a
throwaway cluster on loopback.

A session-wide fixture starts a temporary cluster (``initdb`` into a temporary
directory, ``pg_ctl`` with its socket there and TCP on 127.0.0.1 only; as
root, run as the ``postgres`` user or a ``uschess-test`` user created for it),
and each test gets a fresh database in it.  The databases use an ICU
``en-US`` collation where the server has ICU, so that a text order taken
from the database's collation instead of the bytes would show.

The store tests run on both backends with the same bodies (``target`` is a
SQLite file or a ``postgresql://`` URL); the replay tests compare a
PostgreSQL replay with a SQLite replay of the same generated history row by
row, floats bit for bit.  Everything PostgreSQL is skipped, with the reason,
only when the PostgreSQL binaries or psycopg are not installed.
"""

from __future__ import annotations

import math
import datetime as dt
import glob
import json
import os
import pwd
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from helpers import TEACHING_MSA, store_write as _write

from uschess.cli import main
from uschess.errors import InputError
from uschess.io.formats.msa import load_msa
from uschess.apps.generate import generate_history, write_history
from uschess.model import SYSTEMS, ForeignRating
from uschess.apps.replay import replay
from uschess.io.store import SCHEMA_VERSION, Store

try:
    import psycopg
except ImportError:  # the 'postgres' extra is not installed
    psycopg = None

ROOT = Path(__file__).resolve().parents[2]
WFCC = ROOT / "fixtures" / "events" / "wfcc15.yaml"
MSA = TEACHING_MSA
D = dt.date
#: Tables compared between stores (events apart: applied_at is a clock).
TABLES = ("players", "ratings", "changes", "rulesets", "published")
TEST_USER = "uschess-test"
NO_PSYCOPG = "psycopg is not installed (pip install -e '.[postgres]')"


# ------------------------------------------------------------- the cluster
def _version(path: str) -> tuple:
    part = Path(path).parts[-3]  # /usr/lib/postgresql/<version>/bin/initdb
    return tuple(int(x) if x.isdigit() else 0 for x in part.split("."))


def find_pg_bin() -> Path | None:
    """The directory of initdb and pg_ctl: the newest Debian-style
    /usr/lib/postgresql/*/bin, else the PATH's."""
    found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"), key=_version)
    for initdb in reversed(found):
        if os.access(Path(initdb).parent / "pg_ctl", os.X_OK):
            return Path(initdb).parent
    on_path = shutil.which("initdb")
    if on_path and shutil.which("pg_ctl"):
        return Path(on_path).parent
    return None


def _unprivileged_user() -> str | None:
    """As root, the user the server runs as (it refuses to run as root)."""
    if os.geteuid() != 0:
        return None
    for name in (TEST_USER, "postgres"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            pass
    subprocess.run(["useradd", "--system", "--no-create-home", "--home-dir", "/nonexistent",
                    "--shell", "/usr/sbin/nologin", TEST_USER],
                   check=True, capture_output=True, text=True)
    return TEST_USER


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Cluster:
    """A temporary PostgreSQL cluster listening on 127.0.0.1 only."""

    def __init__(self, bindir: Path):
        self.bindir = bindir
        self.user = _unprivileged_user()
        # not under pytest's basetemp: its parents are private to root
        self.base = Path(tempfile.mkdtemp(prefix="uschess-pg-"))
        if self.user:
            shutil.chown(self.base, user=self.user)
        self.data = self.base / "data"
        self.log = self.base / "server.log"
        self.port = None
        self._n = 0
        self._icu = True

    def _run(self, *args, check=True) -> subprocess.CompletedProcess:
        cmd = [str(self.bindir / args[0]), *map(str, args[1:])]
        if self.user:
            cmd = ["runuser", "-u", self.user, "--", *cmd]
        env = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
        run = subprocess.run(cmd, cwd=self.base, env=env, capture_output=True, text=True,
                             timeout=120)
        if check and run.returncode != 0:
            log = self.log.read_text(errors="replace")[-3000:] if self.log.exists() else ""
            raise RuntimeError(f"{' '.join(cmd)} failed ({run.returncode}):\n{run.stdout}"
                               f"{run.stderr}\n{log}")
        return run

    def start(self) -> None:
        self._run("initdb", "-D", self.data, "-U", "postgres", "-A", "trust", "-E", "UTF8",
                  "--no-locale", "--no-sync")
        for attempt in range(3):
            self.port = _free_port()
            opts = (f"-k {self.base} -p {self.port} -c listen_addresses=127.0.0.1 "
                    "-c fsync=off -c synchronous_commit=off -c full_page_writes=off")
            run = self._run("pg_ctl", "-D", self.data, "-l", self.log, "-w", "-t", "60",
                            "-o", opts, "start", check=attempt == 2)
            if run.returncode == 0:
                return

    def stop(self) -> None:
        try:
            if self.port is not None:
                self._run("pg_ctl", "-D", self.data, "-m", "immediate", "-w", "stop", check=False)
        finally:
            shutil.rmtree(self.base, ignore_errors=True)

    def url(self, db: str = "postgres", password: str | None = None) -> str:
        cred = "postgres" + (f":{password}" if password else "")
        return f"postgresql://{cred}@127.0.0.1:{self.port}/{db}"

    def admin(self, db: str = "postgres"):
        return psycopg.connect(self.url(db), autocommit=True)

    def new_database(self) -> str:
        """A fresh empty database; its URL."""
        self._n += 1
        name = f"t{self._n}"
        with self.admin() as conn:
            if self._icu:
                try:
                    conn.execute(f"CREATE DATABASE {name} TEMPLATE template0 "
                                 "LOCALE_PROVIDER icu ICU_LOCALE 'en-US'")
                    return self.url(name)
                except psycopg.Error:  # a server before 15, or built without ICU
                    self._icu = False
            conn.execute(f"CREATE DATABASE {name}")
        return self.url(name)


@pytest.fixture(scope="session")
def pg_cluster():
    if psycopg is None:
        pytest.skip(NO_PSYCOPG)
    bindir = find_pg_bin()
    if bindir is None:
        pytest.skip("PostgreSQL binaries (initdb, pg_ctl) not found under "
                    "/usr/lib/postgresql/*/bin or on PATH (apt-get install postgresql)")
    cluster = Cluster(bindir)
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.fixture
def pg_url(pg_cluster) -> str:
    return pg_cluster.new_database()


@pytest.fixture(params=["sqlite", "postgresql"])
def target(request, tmp_path) -> str:
    """A store that does not exist yet: a SQLite path or a PostgreSQL URL."""
    if request.param == "sqlite":
        return str(tmp_path / "r.db")
    return request.getfixturevalue("pg_url")


def raw_execute(target: str, sql: str) -> None:
    """Run one statement on a store's database behind the store's back."""
    if target.startswith("postgresql://"):
        with psycopg.connect(target, autocommit=True) as conn:
            conn.execute(sql)
    else:
        conn = sqlite3.connect(target)
        conn.execute(sql)
        conn.commit()
        conn.close()


# ------------------------------------------------------------- the store, on both


def test_new_store_has_versioned_schema(target):
    with Store.open(target) as store:
        assert store.schema_version() == SCHEMA_VERSION
        assert store.counts() == {"players": 0, "ratings": 0, "events": 0, "changes": 0,
                                  "rulesets": 0, "published": 0}
        assert {r[0] for r in store.dump("meta")} == {"created_at", "schema_version"}
    with Store.open(target, create=False) as store:  # opened again, not created again
        assert store.schema_version() == SCHEMA_VERSION and store.events() == []


def test_floats_round_trip_exactly(target):
    # every kind of float a rating can be: subnormal, 17 significant digits,
    # the largest below the program's bound (a store holds none above it)
    values = [1234.5678901234567, 1 / 3, 2199.9999999999995, 100.00000000000001, 0.1 + 0.2,
              1500, 5e-324, math.nextafter(4000.0, 0.0)]
    with Store.open(target) as store:
        for i, v in enumerate(values):
            store.apply_event(_write(f"E{i}", rating=v, pid=str(i)))
    with Store.open(target, create=False) as store:
        for i, v in enumerate(values):
            rec = store.ratings_of(str(i))["OTBR"]
            assert type(rec.rating) is float and rec.rating.hex() == float(v).hex()
            assert rec.games == 4 and rec.date == D(2020, 1, 5)
            assert store.history(str(i))[0]["post"].hex() == float(v).hex()
        info = store.player("0")
        assert info.birth_date == D(2000, 2, 29) and info.fide == ForeignRating(1900.0, D(2019, 12, 1))
        assert store.rules("fp1") == {"parameters": {"k": 1}}
        assert store.has_rules("fp1") and not store.has_rules("nope")


def test_event_is_written_whole_or_not_at_all(target):
    with Store.open(target) as store:
        assert store.apply_event(_write("E1")) == 1
        before = {t: store.dump(t) for t in ("players", "ratings", "events", "changes")}
        with pytest.raises(InputError, match="E1 is already applied"):
            store.apply_event(_write("E1", rating=1500.0, pid="200"))

        def boom():
            raise RuntimeError("killed")
        with pytest.raises(RuntimeError):
            store.apply_event(_write("E2", pid="300"), during=boom)
        assert {t: store.dump(t) for t in before} == before
        assert store.applied(["E1", "E2"]).keys() == {"E1"}
        assert store.apply_event(_write("E2", pid="300")) == 2  # the connection is usable
        assert [e["id"] for e in store.events()] == ["E1", "E2"]


def _other_events(target) -> list:
    """The event ids another connection sees (committed ones only)."""
    with Store.open(target, create=False) as other:
        return [e["id"] for e in other.events()]


def test_a_batch_commits_whole_events_several_at_a_time(target):
    def boom():
        raise RuntimeError("killed")

    with Store.open(target) as store:
        with store.batch(3):
            for i in range(1, 5):
                store.apply_event(_write(f"E{i}", pid=str(100 + i)))
                # this connection reads what it wrote; others see commits only
                assert store.is_applied(f"E{i}") and store.has_rules("fp1")
                assert _other_events(target) == (["E1", "E2", "E3"] if i > 2 else [])
        assert _other_events(target) == ["E1", "E2", "E3", "E4"]  # the rest at the end

        # an error between two events: the events before it are committed
        with pytest.raises(KeyError):
            with store.batch(10):
                store.apply_event(_write("E5", pid="105"))
                raise KeyError("a bad file")
        assert _other_events(target)[-1] == "E5"

        # an error inside an event's writes: the open transaction goes, whole
        before = {t: store.dump(t) for t in ("players", "ratings", "events", "changes")}
        with pytest.raises(RuntimeError):
            with store.batch(10):
                store.apply_event(_write("E6", pid="106"))
                store.apply_event(_write("E7", pid="107"), during=boom)
        assert {t: store.dump(t) for t in before} == before
        with pytest.raises(InputError, match="E1 is already applied"):
            with store.batch(10):
                store.apply_event(_write("E6", pid="106"))
                store.apply_event(_write("E1", pid="101"))
        assert {t: store.dump(t) for t in before} == before
        assert store.apply_event(_write("E6", pid="106")) == 6  # the connection is usable
        assert [e["id"] for e in store.events()] == [f"E{i}" for i in range(1, 7)]
        with pytest.raises(ValueError):
            with store.batch(0):
                pass
        # another write within a batch commits the batch's events first
        with store.batch(10):
            store.apply_event(_write("E7", pid="107"))
            assert store.record_published("E7", [("107", "OTBR", 1500.0)]) == 1
            assert _other_events(target)[-1] == "E7"
            store.apply_event(_write("E8", pid="108"))
        assert _other_events(target)[-2:] == ["E7", "E8"]


def test_a_batch_is_committed_once_it_holds_enough_changes(target, monkeypatch):
    import uschess.io.store as store_module
    monkeypatch.setattr(store_module, "BATCH_CHANGES", 2)  # each _write holds one change
    with Store.open(target) as store:
        with store.batch(100):
            for i in range(1, 6):
                store.apply_event(_write(f"E{i}", pid=str(100 + i)))
                assert len(_other_events(target)) == i // 2 * 2
        assert len(_other_events(target)) == 5


def test_a_batch_writes_a_players_rows_once_per_commit(target):
    """The players' and ratings rows of a batch are held back to its commit
    (or the next read), one row per key: what the store holds at a commit is
    what writing every event's rows in turn would leave."""
    from uschess.io.store_schema import _UPSERT_PLAYER, _UPSERT_RATING

    with Store.open(target) as store:
        sent = []
        executemany = store.conn.executemany

        def counted(text, rows):
            rows = list(rows)
            if text in (_UPSERT_RATING, _UPSERT_PLAYER):
                sent.append(("ratings" if text == _UPSERT_RATING else "players", len(rows)))
            executemany(text, rows)
        store.conn.executemany = counted
        with store.batch(10):
            for i in range(1, 4):
                store.apply_event(_write(f"E{i}", rating=1500.0 + i, pid="100"))
            assert sent == []  # held back
            rec = store.ratings_of("100")["OTBR"]  # a read sees the last of them
            assert rec.rating == 1503.0 and sent == [("players", 1), ("ratings", 1)]
            store.apply_event(_write("E4", rating=1504.0, pid="100"))
            store.apply_event(_write("E5", rating=1200.0, pid="200"))
            store.apply_event(_write("E6", rating=1505.0, pid="100"))
        assert sent[2:] == [("players", 2), ("ratings", 2)]
        assert _other_events(target) == [f"E{i}" for i in range(1, 7)]
        with Store.open(target, create=False) as other:  # committed, as seen from outside
            assert other.ratings_of("100")["OTBR"].rating == 1505.0
            assert other.ratings_of("200")["OTBR"].rating == 1200.0
            assert [r[0] for r in other.dump("ratings")] == ["100", "200"]
            assert [r[13] for r in other.dump("ratings")] == ["E6", "E5"]  # last_event
        # a batch rolled back forgets its held rows: nothing of E7 is written later
        before = {t: store.dump(t) for t in ("players", "ratings", "events", "changes")}
        with pytest.raises(InputError, match="E1 is already applied"):
            with store.batch(10):
                store.apply_event(_write("E7", rating=1900.0, pid="300"))
                store.apply_event(_write("E8", rating=1901.0, pid="100"))
                store.apply_event(_write("E1", pid="301"))
        assert {t: store.dump(t) for t in before} == before
        store.apply_event(_write("E7", rating=1700.0, pid="302"))
        assert store.ratings_of("300") == {} and store.player("300") is None
        assert store.ratings_of("100")["OTBR"].rating == 1505.0
        assert store.counts()["ratings"] == 3 and store.counts()["players"] == 3


def test_held_rows_that_fail_to_write_leave_whole_events_only(target):
    """A batch's held players' and ratings rows written before a read, or at
    its commit, and failing (a full disk, a refused value): the open
    transaction is rolled back, events and all, and the read says so in one
    line naming the store; the events committed before stay."""
    from uschess.io.store_schema import _UPSERT_RATING

    with Store.open(target) as store:
        store.apply_event(_write("E1", pid="100"))
        executemany = store.conn.executemany

        def failing(text, rows):
            if text == _UPSERT_RATING:
                raise store.conn.write_errors[0]("disk full")
            executemany(text, rows)
        store.conn.executemany = failing
        with pytest.raises(InputError) as err:
            with store.batch(10):
                store.apply_event(_write("E2", pid="200"))
                store.apply_event(_write("E3", pid="300"))
                store.ratings_of("200")  # a read: the held rows go first, and fail
        said = str(err.value)
        assert "disk full" in said and "not applied" in said and store.name in said
        assert "\n" not in said
        with pytest.raises(InputError, match="cannot write the last 1 event"):
            with store.batch(10):
                store.apply_event(_write("E4", pid="400"))  # fails at the commit
        store.conn.executemany = executemany
        assert _other_events(target) == ["E1"]
        assert [r[0] for r in store.dump("ratings")] == ["100"]
        assert [r[0] for r in store.dump("players")] == ["100"]
        store.apply_event(_write("E2", pid="200"))  # the connection is usable
        assert _other_events(target) == ["E1", "E2"]


def test_upsert_replaces_the_state(target):
    with Store.open(target) as store:
        store.apply_event(_write("E1", rating=1500.0))
        store.apply_event(_write("E2", rating=1510.25, pre=1500.0))
        assert store.ratings_of("100")["OTBR"].rating == 1510.25
        assert [(h["event"], h["pre"], h["post"]) for h in store.history("100")] == [
            ("E1", None, 1500.0), ("E2", 1500.0, 1510.25)]
        assert store.counts()["ratings"] == 1 and store.counts()["players"] == 1


def test_published_ratings_and_audit(target):
    with Store.open(target) as store:
        store.apply_event(_write("E1", rating=1500.4))
        store.record_published("E1", [("100", "OTBR", 1500), ("999", "OTBR", 1200)])
        assert store.audit() == [{"event": "E1", "player": "999", "system": "OTBR",
                                  "published": 1200.0, "computed": None}]
        store.record_published("E1", [("100", "OTBR", 1502)])
        assert [a["player"] for a in store.audit(event_id="E1")] == ["100", "999"]
        assert store.audit(event_id="E2") == []


def test_long_ids_and_names_are_kept_whole(target):
    eid, pid = "E" * 300, "9" * 64
    with Store.open(target) as store:
        w = _write(eid, pid=pid)
        w.players[0].name = "N" * 500
        store.apply_event(w)
        assert store.history(pid)[0]["event"] == eid
        assert store.player(pid).name == "N" * 500


def test_text_is_ordered_by_its_bytes(target):
    """Player ids sort the same in both databases, whatever the collation."""
    ids = ["b", "a-1", "B", "A2", "10", "9"]
    with Store.open(target) as store:
        for i, pid in enumerate(ids):
            store.apply_event(_write(f"E{i}", pid=pid))
        assert [r[0] for r in store.dump("players")] == sorted(ids, key=str.encode)
        store.record_published("E0", [(pid, "OTBR", 100.0) for pid in ids])
        assert [a["player"] for a in store.audit(event_id="E0")] == sorted(ids, key=str.encode)


def test_what_is_not_a_store_is_refused(target):
    raw_execute(target, "CREATE TABLE other (a INTEGER)")
    with pytest.raises(InputError, match="not a ratings store"):
        Store.open(target, create=False)
    if target.startswith("postgresql://"):
        with Store.open(target) as store:  # a shared database can hold one beside other tables
            assert store.counts()["events"] == 0
    else:  # a SQLite file of other data (a --db given by mistake) is left as it was
        with pytest.raises(InputError, match="an SQLite database of other tables"):
            Store.open(target)
        conn = sqlite3.connect(target)
        assert conn.execute("SELECT name FROM sqlite_master").fetchall() == [("other",)]
        conn.close()


def test_schema_version_mismatch_is_refused(target):
    Store.open(target).close()
    raw_execute(target, "UPDATE meta SET value = '99' WHERE key = 'schema_version'")
    with pytest.raises(InputError, match="schema version 99"):
        Store.open(target)


# ------------------------------------------------------------- PostgreSQL only
def test_floats_are_exact_whatever_the_server_sets(pg_cluster, pg_url):
    db = pg_url.rsplit("/", 1)[1]
    with pg_cluster.admin() as conn:  # 0 would print floats with 15 digits only
        conn.execute(f"ALTER DATABASE {db} SET extra_float_digits = 0")
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT 1::float8 / 3").fetchone()[0] != 1 / 3
    with Store.open(pg_url) as store:
        store.apply_event(_write(rating=1 / 3))
    with Store.open(pg_url, create=False) as store:
        assert store.ratings_of("100")["OTBR"].rating == 1 / 3


def test_reads_leave_no_transaction_open(pg_url):
    with Store.open(pg_url) as store:
        store.apply_event(_write())
        store.history("100"), store.counts(), store.dump("changes")
        assert not store.conn.in_transaction()
        with psycopg.connect(pg_url, autocommit=True) as other:  # DDL would wait on a lock
            other.execute("SET lock_timeout = '2s'")
            other.execute("ALTER TABLE published ADD COLUMN note TEXT")


def test_concurrent_writers_take_turns(pg_url):
    """Two connections applying events at once: each gets its own sequence
    number (without the store's lock both would take MAX(seq) + 1)."""
    Store.open(pg_url).close()
    errors, seqs = [], []
    inside = threading.Event()

    def first():
        try:
            with Store.open(pg_url) as store:
                seqs.append(store.apply_event(_write("A", pid="1"),
                                              during=lambda: (inside.set(), time.sleep(0.5))))
        except Exception as err:  # reported by the main thread
            errors.append(err)

    t = threading.Thread(target=first)
    t.start()
    assert inside.wait(10)
    with Store.open(pg_url) as store:
        seqs.append(store.apply_event(_write("B", pid="2")))
    t.join(10)
    assert errors == [] and sorted(seqs) == [1, 2]
    with Store.open(pg_url) as store:
        assert [e["id"] for e in store.events()] == ["A", "B"]


def test_unreachable_server_is_an_input_error():
    if psycopg is None:
        pytest.skip(NO_PSYCOPG)
    url = f"postgresql://rater:s3cret-pw@127.0.0.1:{_free_port()}/ratings?connect_timeout=5"
    with pytest.raises(InputError, match="cannot connect") as err:
        Store.open(url)
    assert "s3cret-pw" not in str(err.value) and "rater@127.0.0.1" in str(err.value)
    capsys_free = main(["player", "1", "--db", url])
    assert capsys_free == 2


def test_missing_database_is_an_input_error(pg_cluster, capsys):
    url = pg_cluster.url("no_such_db", password="hunter2")
    assert main(["replay", str(WFCC), "--db", url]) == 2
    err = capsys.readouterr().err
    assert "cannot connect" in err and "no_such_db" in err and "hunter2" not in err
    assert err.count("\n") == 1 and "Traceback" not in err


# ------------------------------------------------------------- replay, against SQLite
def snapshot(target) -> dict:
    with Store.open(target, create=False) as store:
        out = {t: store.dump(t) for t in TABLES}
        out["events"] = [(e["id"], e["seq"], e["name"], e["start"], e["end"], e["source"])
                         for e in store.events()]
    return out


def assert_same_rows(a: dict, b: dict) -> None:
    """Equal row by row, with the same Python types (1500 is not 1500.0) and
    floats bit for bit."""
    assert a.keys() == b.keys()
    for table in a:
        assert len(a[table]) == len(b[table]), table
        for i, (ra, rb) in enumerate(zip(a[table], b[table])):
            assert [type(v) for v in ra] == [type(v) for v in rb], (table, i, ra, rb)
            assert [v.hex() if isinstance(v, float) else v for v in ra] == \
                [v.hex() if isinstance(v, float) else v for v in rb], (table, i, ra, rb)


def cli(*args, env=None, kill_at=None):
    """``uschess ARGS``; ``kill_at`` (after:N, during:N) kills it at that write (tests/crash.py)."""
    run = ["-m", "uschess"] if kill_at is None else [str(ROOT / "tests" / "crash.py"), kill_at]
    return subprocess.run([sys.executable, *run, *map(str, args)], cwd=ROOT,
                          env={**os.environ, **(env or {})}, capture_output=True, text=True,
                          timeout=300)


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """A generated history as files, and the SQLite store of a whole replay."""
    base = tmp_path_factory.mktemp("pg-history")
    files = write_history(base / "events", seed=7, players=250, events=120)
    db = base / "full.db"
    assert main(["replay", str(base / "events"), "--db", str(db)]) == 0
    return base / "events", files, str(db)


def test_replay_matches_sqlite_row_by_row(history, pg_url, capsys):
    events, files, sqlite_db = history
    capsys.readouterr()
    assert main(["replay", str(events), "--db", pg_url, "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["events_applied"] == len(files) and summary["disagreements"] == []
    want, got = snapshot(sqlite_db), snapshot(pg_url)
    assert_same_rows(got, want)
    assert {r[1] for r in got["ratings"]} == set(SYSTEMS)
    assert len(got["changes"]) > 1000 and len(got["rulesets"]) > 5
    # every player's history and state, through the store's own reads
    with Store.open(pg_url, create=False) as pg, Store.open(sqlite_db, create=False) as lite:
        assert pg.counts() == lite.counts()
        for (pid,) in {(r[0],) for r in got["players"]}:
            assert pg.history(pid) == lite.history(pid)
            assert pg.ratings_of(pid) == lite.ratings_of(pid)
            assert pg.player(pid) == lite.player(pid)
        assert all(pg.rules(r[0]) == lite.rules(r[0]) for r in got["rulesets"])
    # the player command prints the same thing from either store
    pid = got["changes"][0][4]
    outs = []
    for db in (sqlite_db, pg_url):
        assert main(["player", pid, "--db", db, "--json"]) == 0
        outs.append(json.loads(capsys.readouterr().out))
    assert outs[0] == outs[1] and outs[0]["systems"]


def test_generated_history_in_memory_replays_the_same(tmp_path, pg_url):
    """Events given as objects (no files): same rows on both backends."""
    events = list(generate_history(3, 80, 30))
    with Store.open(pg_url) as pg, Store.open(tmp_path / "r.db") as lite:
        a, b = replay(events, pg), replay(events, lite)
        assert a.applied == b.applied and a.player_updates == b.player_updates > 0
    assert_same_rows(snapshot(pg_url), snapshot(str(tmp_path / "r.db")))


@pytest.mark.shared_data
def test_audit_of_a_store_on_postgresql(tmp_path, pg_url, capsys):
    ct = load_msa(MSA, start=D(2016, 1, 15), name="tournamentinfo")
    ct.event.id = "tinfo"
    published = [(p.id, "OTBR", p.post) for p in ct.published.values()]
    reports = []
    for db in (str(tmp_path / "r.db"), pg_url):
        with Store.open(db) as store:
            replay([ct.event], store)
            store.record_published("tinfo", published)
        capsys.readouterr()
        assert main(["audit", "--db", db, "--json"]) == 0
        data = json.loads(capsys.readouterr().out)
        data.pop("source")
        reports.append(data)
    assert (reports[1]["reproduced"], reports[1]["total"]) == (62, 64)
    assert reports[1] == reports[0]


def test_same_event_twice_is_refused(pg_cluster, pg_url, capsys):
    url = pg_url.replace("postgres@", "postgres:hunter2@")  # trust: the password is not used
    assert main(["replay", str(WFCC), "--db", url]) == 0
    before = snapshot(pg_url)
    capsys.readouterr()
    assert main(["replay", str(WFCC), "--db", url]) == 2
    err = capsys.readouterr().err
    assert "wfcc15 is already applied" in err and "--skip-applied" in err
    assert err.count("\n") == 1 and "hunter2" not in err
    assert snapshot(pg_url) == before
    assert main(["replay", str(WFCC), "--db", url, "--skip-applied", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["skipped"] == ["wfcc15"]
    assert snapshot(pg_url) == before


@pytest.mark.parametrize("when,every,done", [
    ("during:30", 1, 29),
    pytest.param("after:70", 1, 70, marks=pytest.mark.slow),
    pytest.param("during:70", 32, 64, marks=pytest.mark.slow)])
def test_killed_replay_resumes_to_the_same_store(history, pg_url, when, every, done):
    """A replay killed (SIGKILL) inside an event's transaction or between two
    events: the server rolls the open transaction back (with every event
    since the last commit), and a resumed run ends with the rows of an
    uninterrupted SQLite replay."""
    events, files, sqlite_db = history
    run = cli("replay", events, "--db", pg_url, "--commit-every", every, kill_at=when)
    assert run.returncode == -signal.SIGKILL, run.stderr
    # the killed session's transaction is gone once the server sees the socket close
    deadline = time.time() + 10
    with psycopg.connect(pg_url, autocommit=True) as conn:
        while conn.execute("SELECT COUNT(*) FROM pg_stat_activity WHERE datname = "
                           "current_database() AND pid <> pg_backend_pid()").fetchone()[0]:
            assert time.time() < deadline
            time.sleep(0.05)
    partial = snapshot(pg_url)
    whole = snapshot(sqlite_db)
    assert [e[0] for e in partial["events"]] == [e[0] for e in whole["events"][:done]]
    applied = {e[0] for e in partial["events"]}
    assert partial["changes"] == [r for r in whole["changes"] if r[0] in applied]
    refused = cli("replay", events, "--db", pg_url)
    assert refused.returncode == 2 and "already applied" in refused.stderr
    resumed = cli("replay", events, "--db", pg_url, "--skip-applied")
    assert resumed.returncode == 0, resumed.stderr
    assert_same_rows(snapshot(pg_url), whole)


# ------------------------------------------------------------- two writers
def _replay_proc(events: Path, target: str) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, "-m", "uschess", "replay", str(events), "--db", target],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _broken_chains(target: str) -> list:
    """Every player-system whose changes do not chain: a change's pre must
    be the post of the same player's previous event in that system, and the
    stored state the last post."""
    broken = []
    with Store.open(target, create=False) as store:
        pairs = {(r[0], r[1]) for r in store.dump("ratings")}
        states = {(r[0], r[1]): r for r in store.dump("ratings")}
        for pid, system in sorted(pairs):
            rows = store.history(pid, system)
            for before, after in zip(rows, rows[1:]):
                if after["pre"] != before["post"]:
                    broken.append((pid, system, before["event"], after["event"],
                                   before["post"], after["pre"]))
            if rows and store.ratings_of(pid)[system].rating != rows[-1]["post"]:
                broken.append((pid, system, "state", rows[-1]["post"], states[(pid, system)]))
    return broken


@pytest.fixture(scope="module")
def two_histories(tmp_path_factory):
    """Two generated histories with the same players (seeds 5 and 1005 share
    the id base) and different events (``*.json``, beside generate's other
    files)."""
    base = tmp_path_factory.mktemp("two-writers")
    write_history(base / "a", seed=5, players=60, events=40)
    write_history(base / "b", seed=1005, players=60, events=40)
    return base / "a", base / "b"


def test_two_replays_at_once_keep_every_chain(two_histories, target):
    """Two replay processes into one store with histories that share players:
    both finish, every event is applied once, and every player's changes
    chain (the second replay rated from what the first wrote)."""
    a, b = two_histories
    Store.open(target).close()
    procs = [_replay_proc(a, target), _replay_proc(b, target)]
    outs = [p.communicate(timeout=600) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], outs
    with Store.open(target, create=False) as store:
        ids = [e["id"] for e in store.events()]
        shared = {r[0] for r in store.dump("changes") if r[0].startswith("S5-")} and \
            {r[4] for r in store.dump("changes") if r[0].startswith("S5-")} & \
            {r[4] for r in store.dump("changes") if r[0].startswith("S1005-")}
    assert len(ids) == len(set(ids)) == len(list(a.glob("*.json"))) + len(list(b.glob("*.json")))
    assert shared, "the histories must share players for this test to mean anything"
    assert _broken_chains(target) == []


@pytest.mark.slow  # waits for the other writer by design
def test_second_writer_waits_and_says_so(two_histories, target):
    """While the writer lock is held, a replay says it is waiting, then runs
    when the lock is released."""
    a, _ = two_histories
    with Store.open(target) as holder:
        with holder.writer(wait=0):
            proc = _replay_proc(a, target)
            line = proc.stderr.readline()
            assert "another replay is writing" in line and "waiting for it to finish" in line
            time.sleep(0.5)
            assert proc.poll() is None  # still waiting
    out, err = proc.communicate(timeout=600)
    assert proc.returncode == 0, err
    with Store.open(target, create=False) as store:
        assert len(store.events()) == len(list(a.glob("*.json")))


def test_writer_that_may_not_wait_is_refused(two_histories, target):
    a, _ = two_histories
    with Store.open(target) as holder, holder.writer(wait=0):
        with Store.open(target) as other:
            with pytest.raises(InputError, match="another replay is writing .*one replay at a "
                                                 "time may write a store"):
                replay(sorted(a.glob("*.json")), other, wait=0)
            assert other.counts()["events"] == 0
    with Store.open(target) as other:  # released with the block
        assert replay(sorted(a.glob("*.json"))[:2], other, wait=0).applied


@pytest.mark.parametrize("value", ["two", "", "1e3", "9" * 400])
def test_schema_version_not_a_number_is_refused(target, value, capsys):
    Store.open(target).close()
    raw_execute(target, f"UPDATE meta SET value = '{value}' WHERE key = 'schema_version'")
    with pytest.raises(InputError, match="is not a number: not a store this program wrote"):
        Store.open(target)
    assert main(["player", "1", "--db", target]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "schema version" in err
