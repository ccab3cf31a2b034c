"""The ratings store's connection (:mod:`uschess.io.store`): the few
operations it needs, on sqlite3 or psycopg, with the placeholders, the
transactions and the driver's errors made the same for both; opening a
target, and the messages that name it without its password."""

from __future__ import annotations

import os
import sqlite3
import time
from pathlib import Path
from typing import Optional
from urllib.parse import unquote

from uschess.errors import InputError
from uschess.io.store_schema import _shown

#: A SQLite store's page cache, in KiB (``PRAGMA cache_size``).
CACHE_KIB = 16_000


#: The key of the PostgreSQL advisory lock a writing transaction takes
#: (advisory locks are per database: stores in other databases never wait).
PG_LOCK_KEY = 0x7573636865737321
#: The key of the PostgreSQL session advisory lock a replay holds throughout.
PG_WRITER_KEY = 0x7573636865737322
#: How often a waiting writer tries the lock again (seconds).
WRITER_POLL = 0.1


class _Connection:
    """The few operations the store needs, for sqlite3 or psycopg.

    Both connections are in autocommit mode: a statement outside
    :meth:`begin` ... :meth:`commit` commits by itself (reads leave no
    transaction open), and a transaction is the explicit one between them."""

    kind = "sqlite"

    def __init__(self, raw, kind: str, errors: tuple = (sqlite3.DatabaseError,),
                 write_errors: tuple = (sqlite3.OperationalError, sqlite3.DataError)):
        self.raw = raw
        self.kind = kind
        self.cur = raw.cursor()
        #: any error of the driver, and those a write can meet through no
        #: fault of the program (locked, disconnected, a value it refuses)
        self.errors = errors
        self.write_errors = write_errors
        #: upserts held back until the transaction's next read or its commit
        #: (:meth:`upsert_later`): statement -> (its rows' maker, key -> the
        #: key's last item)
        self._later: dict[str, tuple] = {}
        #: the store as messages name it (set by :class:`Store`)
        self.name = "the store"

    def sql(self, text: str) -> str:
        return text.replace("?", "%s") if self.kind == "postgresql" else text

    def text_order(self, *columns: str) -> str:
        """An ORDER BY list sorting text columns by their bytes in both
        databases (SQLite's BINARY; PostgreSQL's default is a locale's)."""
        if self.kind == "postgresql":
            return ", ".join(f'{c} COLLATE "C"' for c in columns)
        return ", ".join(columns)

    def execute(self, text: str, params=()):
        self.cur.execute(self.sql(text), params)
        return self.cur

    def executemany(self, text: str, rows) -> None:
        rows = list(rows)
        if rows:
            self.cur.executemany(self.sql(text), rows)

    def upsert_later(self, text: str, items: dict, rows_of) -> None:
        """Run the upsert ``text`` before the transaction's next read
        (:meth:`fetchall`) or at its commit, on the rows of ``items`` (key ->
        what its row is made of; a key is the values of the statement's
        conflict target) with only the last item of each key: a row replaced
        by a later one of the same key in one transaction is never written,
        nor made.  ``rows_of`` makes the rows of the (key, item) pairs then
        (the same function for every call with this ``text``), so an item is
        read when its row is written: it must not be changed after this call
        (a replay's records and identities are not).  A replay commits many
        events at once and most players play several of them, so their
        ratings rows are made and written once per commit instead of once per
        event (about two fifths fewer in the replay benchmark).  The store's
        contents are the same at every commit, and so are SQLite's rowids (a
        key's first row is the one inserted, in its place).  A rollback
        forgets them with the rest of the transaction."""
        held = self._later.get(text)
        if held is None:
            held = self._later[text] = (rows_of, {})
        held[1].update(items)

    def _write_held(self) -> None:
        """Run the upserts held back; if one fails, the whole transaction
        is rolled back (its events would otherwise be committed without
        their players' and ratings rows)."""
        later, self._later = self._later, {}
        try:
            for text, (rows_of, held) in later.items():
                self.executemany(text, rows_of(held.items()))
        except BaseException:
            self.rollback()
            raise

    def fetchall(self, text: str, params=()) -> list:
        if self._later:  # a read inside a batch: its rows first
            try:
                self._write_held()
            except self.write_errors as err:
                raise InputError(f"cannot write the open transaction's players and ratings: "
                                 f"{_one_line(err)}; its events are not applied",
                                 file=self.name) from None
        return self.execute(text, params).fetchall()

    def begin(self, *, write: bool = False) -> None:
        self.cur.execute("BEGIN")
        if write and self.kind == "postgresql":
            self.cur.execute("SELECT pg_advisory_xact_lock(%s)", (PG_LOCK_KEY,))

    def in_transaction(self) -> bool:
        if self.kind == "postgresql":
            return self.raw.info.transaction_status.name != "IDLE"
        return self.raw.in_transaction

    def commit(self) -> None:
        """Write the upserts held back (:meth:`upsert_later`) and commit; if
        they fail, the transaction is rolled back."""
        if self._later:
            self._write_held()
        self.cur.execute("COMMIT")

    def rollback(self) -> None:
        self._later.clear()
        if self.in_transaction():
            self.cur.execute("ROLLBACK")

    def close(self) -> None:
        self._later.clear()
        self.raw.close()


def _connect(target: str, create: bool) -> _Connection:
    if target.startswith(("postgresql://", "postgres://")):
        try:
            import psycopg  # noqa: PLC0415 - optional, imported only for PostgreSQL stores
        except ImportError:
            raise InputError(f"{_redact(target)}: a PostgreSQL store needs psycopg "
                             "(pip install 'psycopg[binary]', or the project's 'postgres' "
                             "extra); SQLite files need nothing")
        try:
            raw = psycopg.connect(target, autocommit=True)
        except psycopg.Error as err:  # OperationalError and friends; bad URLs too
            raise InputError(f"{_redact(target)}: cannot connect: {_scrub(err, target)}")
        try:
            # floats as text with the shortest exact digits, whatever the
            # server or database sets (0 would round them to 15 digits)
            raw.execute("SET extra_float_digits = 3")
        except psycopg.Error as err:
            raw.close()
            raise InputError(f"{_redact(target)}: cannot use the connection: "
                             f"{_scrub(err, target)}")
        return _Connection(raw, "postgresql", errors=(psycopg.Error,),
                           write_errors=(psycopg.OperationalError, psycopg.DataError))
    if target in (":memory:", "-") or not target.strip() or target.startswith("file:"):
        # SQLite would open a database in memory (':memory:', 'file:...'),
        # or a file named '-' or ' ': a replay would report events written
        # to nothing the next command finds
        raise InputError(f"{target!r} is not a ratings store's file name: give the path of "
                         "an SQLite file (or a postgresql:// address)")
    path = Path(target)
    if not create and not path.exists():
        raise InputError("no such ratings store (run 'uschess replay' to create one)", file=path)
    if path.exists() and path.is_dir():
        raise InputError("is a directory, not a ratings store", file=path)
    if not create and path.stat().st_size == 0:  # (SQLite would make it a database)
        raise InputError("not a ratings store (an empty file)", file=path)
    try:
        _bind_none_as_null()
        raw = sqlite3.connect(str(path), isolation_level=None, timeout=OPEN_WAIT_SECONDS)
        # a file of other data (a --db given by mistake) is left as it is:
        # nothing is written to it, not even the journal mode
        tables = [r[0] for r in _when_unlocked(raw,
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        if "meta" not in tables and (tables or not create):
            raw.close()
            if not tables:
                raise InputError("not a ratings store (no meta table)", file=path)
            raise InputError(f"not a ratings store: an SQLite database of other tables "
                             f"({_shown(tables[0])}...)" + ("; give a new file" if create else ""),
                             file=path)
        _when_unlocked(raw, "PRAGMA journal_mode=WAL")
        # WAL: readers never block the writer, a commit is an append; NORMAL
        # syncs at checkpoints only (a killed process loses nothing committed);
        # checkpoints every ~40 MB of WAL rather than 4 MB (each one syncs).
        raw.execute("PRAGMA synchronous=NORMAL")
        raw.execute("PRAGMA wal_autocheckpoint=10000")
        # a page cache of up to 16 MB rather than 2 MB: a replay's batch of
        # events changes pages all over the indexes of the players' rows,
        # and a smaller cache spills them before the commit
        raw.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
    except sqlite3.DatabaseError as err:
        raise InputError(f"not a usable SQLite store: {err}", file=path)
    return _Connection(raw, "sqlite")


#: How long an opening waits for another process's lock (the connections'
#: busy timeout).
OPEN_WAIT_SECONDS = 30.0


def _when_unlocked(raw, statement: str) -> list:
    """The rows of ``statement``, run again while SQLite answers "database
    is locked" without waiting (as it may while another connection creates
    the file or switches it to WAL), up to :data:`OPEN_WAIT_SECONDS`."""
    deadline = time.monotonic() + OPEN_WAIT_SECONDS
    while True:
        try:
            return raw.execute(statement).fetchall()
        except sqlite3.OperationalError as err:
            if "locked" not in str(err) or time.monotonic() > deadline:
                raise
            time.sleep(0.01)


def _bind_none_as_null() -> None:
    """Have the sqlite3 module bind None without searching for an adapter.
    It binds an int, float or str at once but looks every other value up
    (the registry, then ``__adapt__`` and ``__conform__`` on the types):
    3,300 instructions for each None, of which a replay's rows hold some
    hundreds of thousands (unknown counts, floors and dates).  A registered
    adapter for None that returns it is found by the first lookup, and None
    is bound as NULL as before.  Left alone where the process has already
    registered one."""
    if (type(None), sqlite3.PrepareProtocol) not in sqlite3.adapters:
        sqlite3.register_adapter(type(None), _AS_ITSELF)


#: None for any hashable value, in C: the adapter of None (it returns None).
_AS_ITSELF = {}.get


#: Opening a path that is a symbolic link fails (where the system has it).
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


def _identity(path: str) -> Optional[tuple[int, int]]:
    """A file's device and inode (None when there is none at ``path``)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def _one_line(err: Exception) -> str:
    """A driver's message on one line (psycopg's may span several)."""
    return " ".join(str(err).split())


def _scrub(err: Exception, url: str) -> str:
    """A driver's message on one line, without the URL's password (a
    message about a malformed URL may quote it)."""
    text = _one_line(err)
    if "@" in url and "://" in url:
        cred = url.split("://", 1)[1].rsplit("@", 1)[0]
        if ":" in cred:
            secret = cred.split(":", 1)[1]
            for form in {secret, unquote(secret)} - {""}:
                text = text.replace(form, "***")
    return text


def _redact(url: str) -> str:
    """A URL without its password, for messages."""
    if "@" in url and "://" in url:
        scheme, rest = url.split("://", 1)
        cred, host = rest.rsplit("@", 1)
        return f"{scheme}://{cred.split(':', 1)[0]}@{host}"
    return url
