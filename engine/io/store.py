"""The ratings store: every player's state in every system, and every change.

A store is a SQLite file by default (the standard library's ``sqlite3``,
nothing to start, WAL journal) or a PostgreSQL database given as a
``postgresql://`` URL (through psycopg 3, imported only then; the database
must exist, the tables are created in its current schema on first use).  The
SQL is written once for both: plain types (TEXT, INTEGER, DOUBLE PRECISION;
no length limits, which SQLite would not enforce and PostgreSQL would),
``INSERT ... ON CONFLICT ... DO UPDATE`` upserts, ``?`` placeholders that the
PostgreSQL connection rewrites to ``%s``, explicit ``BEGIN``/``COMMIT`` on an
autocommit connection in both (reads take no transaction), and text sorted by
its bytes (``COLLATE "C"`` on PostgreSQL, whose default collation may be a
locale's) wherever an order is returned.

Ratings are stored as 8-byte floats, so a rating read back is the very float
the engine computed (a PostgreSQL session sets ``extra_float_digits = 3``:
exact text output whatever the server's setting).  Flags are INTEGER 0/1 and
dates ISO text (``YYYY-MM-DD``), the same values in both databases.

On PostgreSQL a transaction that writes (creating the schema, applying an
event) first takes a transaction-scoped advisory lock, so that concurrent
writers take their turns instead of colliding on the event sequence.

A replay reads players' states and writes their changes event after event,
so two replays into one store would rate from states the other is about to
change.  :meth:`Store.writer` is the store's writer lock, held for a whole
replay: a second replay waits for the first to finish (saying so), or is
refused when it may not wait.  On SQLite it is an exclusive ``flock`` on
the file ``STORE-writer`` beside the store (removed when released; the
kernel releases the lock when the process ends, however it ends); on
PostgreSQL a session advisory lock (released when the connection closes).
A new SQLite store a failed replay wrote nothing into is removed with its
lock file (:meth:`Store.discard_if_new`); a lock taken on a lock file
removed meanwhile is taken again on the one at the path, and a store whose
file was removed while its program waited for the lock is refused.

Tables (schema version in ``meta``):

``players``   identity: name, birth date, adult flag, state, FIDE and CFC
              ratings with their dates;
``ratings``   one row per player and system: the state the next event starts
              from (rating, N, W/D/L, events with 3+ games, highest
              established rating, games while established above 2200, OLM
              flag, prize floor, the date it was computed, a floor lowered
              after a match and the sec. 5 floor it replaced (sec. 7,
              restriction 4), the last
              event);
``events``    the applied events in order (``seq``), with ``applied_at``;
``changes``   every rating change: event, section, system, player, pre, post,
              games before/after, the formula, whether a floor bound, and the
              fingerprint of the rules combination;
``rulesets``  each fingerprint's rules with their sources (``Rules.as_dict``
              as JSON, stored once);
``published`` post ratings as published, for audits (:meth:`Store.audit`).

One event is written in one transaction (:meth:`Store.apply_event`), or
several (:meth:`Store.batch`, as a replay writes them): a store killed at any
moment holds whole events only.

Schema versions: 1, the first; 2 adds ``ratings.lowered_floor`` and
``ratings.lowered_from``.  Opening a store of an older version migrates it in
place, in one transaction (:data:`MIGRATIONS`); a newer version is refused.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import sqlite3
import stat
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional
from urllib.parse import unquote

from uschess.errors import InputError
from uschess.io.eventfile import MAX_RATING, PRIZE_FLOORS
from uschess.model import SYSTEMS, ForeignRating, SystemRecord

SCHEMA_VERSION = 2

#: The index of the changes by player (a player's history, a match's earlier
#: changes); :meth:`Store.changes_index_after` builds it after a replay's rows.
CHANGES_INDEX = "CREATE INDEX IF NOT EXISTS changes_player ON changes (player_id, system)"

SCHEMA = [
    """CREATE TABLE IF NOT EXISTS meta (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS players (
        id TEXT PRIMARY KEY,
        name TEXT,
        birth_date TEXT,
        adult INTEGER,
        state TEXT,
        fide_rating DOUBLE PRECISION,
        fide_date TEXT,
        cfc_rating DOUBLE PRECISION,
        cfc_date TEXT,
        cfc_canadian INTEGER)""",
    """CREATE TABLE IF NOT EXISTS ratings (
        player_id TEXT NOT NULL,
        system TEXT NOT NULL,
        rating DOUBLE PRECISION NOT NULL,
        games INTEGER NOT NULL,
        wins INTEGER,
        draws INTEGER,
        losses INTEGER,
        events3 INTEGER,
        peak DOUBLE PRECISION,
        games_above_2200 INTEGER,
        olm INTEGER NOT NULL,
        prize_floor INTEGER,
        rated_on TEXT,
        last_event TEXT,
        lowered_floor DOUBLE PRECISION,
        lowered_from DOUBLE PRECISION,
        PRIMARY KEY (player_id, system))""",
    """CREATE TABLE IF NOT EXISTS events (
        id TEXT PRIMARY KEY,
        seq INTEGER NOT NULL,
        name TEXT,
        start_date TEXT NOT NULL,
        end_date TEXT NOT NULL,
        source TEXT,
        applied_at TEXT NOT NULL)""",
    "CREATE UNIQUE INDEX IF NOT EXISTS events_seq ON events (seq)",
    """CREATE TABLE IF NOT EXISTS changes (
        event_id TEXT NOT NULL,
        pos INTEGER NOT NULL,
        section TEXT NOT NULL,
        system TEXT NOT NULL,
        player_id TEXT NOT NULL,
        pre DOUBLE PRECISION,
        post DOUBLE PRECISION NOT NULL,
        games_before INTEGER NOT NULL,
        games_after INTEGER NOT NULL,
        m INTEGER NOT NULL,
        score DOUBLE PRECISION NOT NULL,
        formula TEXT NOT NULL,
        floor_applied INTEGER NOT NULL,
        fingerprint TEXT NOT NULL,
        PRIMARY KEY (event_id, pos))""",
    CHANGES_INDEX,
    """CREATE TABLE IF NOT EXISTS rulesets (
        fingerprint TEXT PRIMARY KEY,
        rules TEXT NOT NULL)""",
    """CREATE TABLE IF NOT EXISTS published (
        event_id TEXT NOT NULL,
        player_id TEXT NOT NULL,
        system TEXT NOT NULL,
        post DOUBLE PRECISION NOT NULL,
        PRIMARY KEY (event_id, player_id, system))""",
]

#: The tables of a store (every one must be there).
TABLES = ("meta", "players", "ratings", "events", "changes", "rulesets", "published")

#: Statements that take a store from version N to N + 1, run in one
#: transaction with the version bump (:meth:`Store._migrate`).
MIGRATIONS = {
    1: ["ALTER TABLE ratings ADD COLUMN lowered_floor DOUBLE PRECISION",
        "ALTER TABLE ratings ADD COLUMN lowered_from DOUBLE PRECISION"],
}

#: The ratings columns after (player_id, system); ``last_event`` stays last
#: (:meth:`Store.states` reads all but it).
RATING_COLUMNS = ("rating", "games", "wins", "draws", "losses", "events3", "peak",
                  "games_above_2200", "olm", "prize_floor", "rated_on", "lowered_floor",
                  "lowered_from", "last_event")
CHANGE_COLUMNS = ("event_id", "pos", "section", "system", "player_id", "pre", "post",
                  "games_before", "games_after", "m", "score", "formula", "floor_applied",
                  "fingerprint")
PLAYER_COLUMNS = ("id", "name", "birth_date", "adult", "state", "fide_rating", "fide_date",
                  "cfc_rating", "cfc_date", "cfc_canadian")

_UPSERT_RATING = (
    f"INSERT INTO ratings (player_id, system, {', '.join(RATING_COLUMNS)}) "
    f"VALUES ({', '.join('?' * (len(RATING_COLUMNS) + 2))}) "
    "ON CONFLICT (player_id, system) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in RATING_COLUMNS))
_UPSERT_PLAYER = (
    f"INSERT INTO players ({', '.join(PLAYER_COLUMNS)}) "
    f"VALUES ({', '.join('?' * len(PLAYER_COLUMNS))}) "
    "ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(f"{c} = excluded.{c}" for c in PLAYER_COLUMNS[1:]))
_UPSERT_PUBLISHED = ("INSERT INTO published (event_id, player_id, system, post) VALUES (?, ?, ?, ?) "
                     "ON CONFLICT (event_id, player_id, system) DO UPDATE SET post = excluded.post")
_INSERT_CHANGE = (f"INSERT INTO changes ({', '.join(CHANGE_COLUMNS)}) "
                  f"VALUES ({', '.join('?' * len(CHANGE_COLUMNS))})")

#: The most changes a batch of events (:meth:`Store.batch`) holds before it
#: is committed, however few its events: a transaction's rows stay in the
#: page cache and the journal until its commit, and its players' and ratings
#: rows in memory (:meth:`_Connection.upsert_later`; a few MB at this size).
BATCH_CHANGES = 50_000

#: A SQLite store's page cache, in KiB (``PRAGMA cache_size``).
CACHE_KIB = 16_000
#: The page cache while the index of the changes by player is built after a
#: replay's rows (:meth:`Store.changes_index_after`), in KiB: SQLite's sort
#: of the index takes as much memory as the page cache allows, so a small one
#: keeps the peak where the replay had it (sorted runs spill to a file).
INDEX_CACHE_KIB = 2_000

#: Largest IN (...) list sent at once (SQLite's old default limit is 999).
CHUNK = 500


def _iso(d: Optional[_dt.date]) -> Optional[str]:
    return d.isoformat() if d is not None else None


class DamagedRow(ValueError):
    """A value read from a store that this program would never have written
    there (text where a number belongs, a date that does not read): the
    store was changed by hand or by another program.  The store's reading
    methods turn it into a located :class:`InputError`."""


def _date(s: Optional[str], *, required: bool = False) -> Optional[_dt.date]:
    """A stored date (None when empty and not ``required``); a
    :class:`DamagedRow` when it does not read."""
    if not s and not required:
        return None
    try:
        return _dt.date.fromisoformat(s)
    except (TypeError, ValueError):
        raise DamagedRow(f"date {_shown(s)} is not YYYY-MM-DD") from None


def _shown(value) -> str:
    """A stored value as a message shows it: short, on one line."""
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


def _number(value, what: str, *, integer: bool = False, required: bool = False,
            lo: float = 0, hi: Optional[float] = None):
    """``value`` read from a store as a number of column ``what`` (None
    when empty and not ``required``), within ``lo``..``hi`` (the bounds an
    event file's values have: the program writes no other); a
    :class:`DamagedRow` otherwise."""
    if value is None:
        if required:
            raise DamagedRow(f"{what} is empty")
        return None
    if type(value) is int or (type(value) is float and not integer and math.isfinite(value)):
        if hi is not None and not lo <= value <= hi:
            raise DamagedRow(f"{what} is {_shown(value)}, outside {lo:g}..{hi:g}")
        if value < lo:
            raise DamagedRow(f"{what} is {_shown(value)}, below {lo:g}")
        return value
    raise DamagedRow(f"{what} is {_shown(value)}, not {'a whole number' if integer else 'a number'}")


@dataclass
class PlayerInfo:
    """What the store knows of a player beyond the ratings."""

    id: str
    name: Optional[str] = None
    birth_date: Optional[_dt.date] = None
    adult: Optional[bool] = None
    state: Optional[str] = None
    fide: Optional[ForeignRating] = None
    cfc: Optional[ForeignRating] = None

    def row(self) -> tuple:
        f, c = self.fide, self.cfc
        return (self.id, self.name, _iso(self.birth_date),
                None if self.adult is None else int(bool(self.adult)), self.state,
                f.rating if f else None, _iso(f.date) if f else None,
                c.rating if c else None, _iso(c.date) if c else None,
                int(bool(c.canadian)) if c else None)

    @classmethod
    def from_row(cls, row) -> "PlayerInfo":
        """The identity of a players row (a :class:`DamagedRow` when a value
        is not of its column's type)."""
        (pid, name, birth, adult, state, fr, fd, cr, cd, cc) = row
        for what, text in (("name", name), ("state", state)):
            if text is not None and type(text) is not str:
                raise DamagedRow(f"{what} is {_shown(text)}, not text")
        _number(adult, "adult", integer=True, hi=1)
        _number(fr, "fide_rating", hi=MAX_RATING)
        _number(cr, "cfc_rating", hi=MAX_RATING)
        _number(cc, "cfc_canadian", integer=True, hi=1)
        return cls(id=pid, name=name, birth_date=_date(birth),
                   adult=None if adult is None else bool(adult), state=state,
                   fide=ForeignRating(fr, _date(fd)) if fr is not None else None,
                   cfc=ForeignRating(cr, _date(cd), bool(cc)) if cr is not None else None)


def record_rows(held) -> list[tuple]:
    """The ratings rows of ``held``, pairs ((player_id, system), (record,
    last_event)): player_id, system, then the columns of RATING_COLUMNS,
    the id of the event that last changed the record last.  One loop builds
    every row (a replay writes thousands at each commit)."""
    return [(pid, system, r.rating, r.games, r.wins, r.draws, r.losses, r.events3, r.peak,
             r.games_above_2200, 1 if r.olm else 0, r.prize_floor,
             None if r.date is None else r.date.isoformat(), r.lowered_floor, r.lowered_from,
             last_event)
            for (pid, system), (r, last_event) in held]


def _player_rows(held) -> list[tuple]:
    """The players rows of ``held``, pairs (player_id, PlayerInfo)."""
    return [info.row() for _, info in held]


def record_from_row(row) -> SystemRecord:
    """The record of a ratings row (the columns of RATING_COLUMNS but the
    last event), a floor lowered after a match included."""
    (rating, games, wins, draws, losses, events3, peak, g2200, olm, prize, rated_on,
     lowered, lowered_from) = row[:13]
    _number(rating, "rating", required=True, hi=MAX_RATING)
    _number(games, "games", integer=True, required=True)
    for what, value in (("wins", wins), ("draws", draws), ("losses", losses),
                        ("events3", events3), ("games_above_2200", g2200)):
        _number(value, what, integer=True)
    _number(olm, "olm", integer=True, hi=1)
    if _number(prize, "prize_floor", integer=True, lo=PRIZE_FLOORS[0],
               hi=PRIZE_FLOORS[1]) is not None and prize % 100:
        raise DamagedRow(f"prize_floor is {prize}, not a 100-point level")
    for what, value in (("peak", peak), ("lowered_floor", lowered),
                        ("lowered_from", lowered_from)):
        _number(value, what, hi=MAX_RATING)
    return SystemRecord(rating=rating, games=games, wins=wins, draws=draws, losses=losses,
                        events3=events3, peak=peak, olm=bool(olm), prize_floor=prize,
                        date=_date(rated_on), games_above_2200=g2200, lowered_floor=lowered,
                        lowered_from=lowered_from)


@dataclass(slots=True)
class Change:
    """One rating change as the store keeps it (a row of ``changes``)."""

    event_id: str
    pos: int
    section: str
    system: str
    player_id: str
    pre: Optional[float]
    post: float
    games_before: int
    games_after: int
    m: int
    score: float
    formula: str
    floor_applied: bool
    fingerprint: str

    def row(self) -> tuple:
        return (self.event_id, self.pos, self.section, self.system, self.player_id, self.pre,
                self.post, self.games_before, self.games_after, self.m, self.score,
                self.formula, int(self.floor_applied), self.fingerprint)


@dataclass
class EventWrite:
    """Everything one event changes, written by :meth:`Store.apply_event`."""

    id: str
    name: str
    start: _dt.date
    end: _dt.date
    source: Optional[str] = None
    changes: list[Change] = field(default_factory=list)
    ratings: dict = field(default_factory=dict)     # (player_id, system) -> SystemRecord
    players: list = field(default_factory=list)     # PlayerInfo to insert or update
    rulesets: dict = field(default_factory=dict)    # fingerprint -> rules as dict
    published: list = field(default_factory=list)   # PublishedPost rows a page printed


@dataclass
class _Batch:
    """An open :meth:`Store.batch`: events per transaction, the events
    written since the last commit, their changes and the rules combinations
    among them."""

    events: int
    pending: int = 0
    changes: int = 0
    rulesets: dict = field(default_factory=dict)
    #: the sequence number of the last event written in the open
    #: transaction (None: none yet; the next is read from the table)
    seq: Optional[int] = None


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
        raw = sqlite3.connect(str(path), isolation_level=None, timeout=30.0)
        # a file of other data (a --db given by mistake) is left as it is:
        # nothing is written to it, not even the journal mode
        tables = [r[0] for r in raw.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        if "meta" not in tables and (tables or not create):
            raw.close()
            if not tables:
                raise InputError("not a ratings store (no meta table)", file=path)
            raise InputError(f"not a ratings store: an SQLite database of other tables "
                             f"({_shown(tables[0])}...)" + ("; give a new file" if create else ""),
                             file=path)
        raw.execute("PRAGMA journal_mode=WAL")
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


class Store:
    """A ratings store.  ``Store.open(path_or_url)``; use as a context manager."""

    def __init__(self, conn: _Connection, target: str):
        self.conn = conn
        self.target = target
        conn.name = self.name
        self._fingerprints: set[str] = set()
        self._batch: Optional[_Batch] = None
        self.created = False
        self.discarded = False
        self._identity: Optional[tuple[int, int]] = None
        #: the changes' index by player is to be built (:meth:`changes_index_after`)
        self._index_pending = False

    # ------------------------------------------------------------ opening
    @classmethod
    def open(cls, target, *, create: bool = True) -> "Store":
        target = str(target)
        sqlite = not target.startswith(("postgresql://", "postgres://"))
        existed = not sqlite or os.path.lexists(target)
        conn = _connect(target, create)
        store = cls(conn, target)
        #: a SQLite file this opening created (see :meth:`discard_if_new`)
        store.created = not existed
        try:
            store._init_schema(create)
        except Exception:
            conn.close()
            raise
        #: the SQLite file's identity once opened (see :meth:`writer`)
        store._identity = _identity(target) if sqlite else None
        return store

    def _init_schema(self, create: bool) -> None:
        c = self.conn
        try:
            c.begin()
            have_meta = self._has_table("meta")
            if not have_meta and create and c.kind == "postgresql":
                # another process may be creating it: wait for it, then look again
                c.execute("SELECT pg_advisory_xact_lock(?)", (PG_LOCK_KEY,))
                have_meta = self._has_table("meta")
            if have_meta:
                rows = c.fetchall("SELECT value FROM meta WHERE key = ?", ("schema_version",))
                version = _version(rows[0][0], self.name) if rows else None
                if version != SCHEMA_VERSION:
                    c.rollback()
                    if version is None or not 1 <= version < SCHEMA_VERSION:
                        raise InputError(f"store schema version {version}, this program reads "
                                         f"version {SCHEMA_VERSION}", file=self.name)
                    self._migrate()
                    c.begin()
                missing = [t for t in TABLES if not self._has_table(t)]
                if missing:
                    c.rollback()
                    raise self.damaged(f"table(s) {', '.join(missing)}",
                                       "missing from the store")
            elif not create:
                c.rollback()
                raise InputError("not a ratings store (no meta table)", file=self.name)
            else:
                for ddl in SCHEMA:
                    c.execute(ddl)
                c.execute("INSERT INTO meta (key, value) VALUES (?, ?)",
                          ("schema_version", str(SCHEMA_VERSION)))
                c.execute("INSERT INTO meta (key, value) VALUES (?, ?)",
                          ("created_at", _now()))
            c.commit()
            self._fingerprints = {r[0] for r in c.fetchall("SELECT fingerprint FROM rulesets")}
        except InputError:
            c.rollback()
            raise
        except c.errors as err:
            c.rollback()
            what = "a usable SQLite store" if c.kind == "sqlite" else "a usable ratings store"
            raise InputError(f"not {what}: {_one_line(err)}", file=self.name)

    def _migrate(self) -> None:
        """Bring an older store to SCHEMA_VERSION in one transaction (a write
        transaction from the start, so two programs opening the same old store
        migrate it once); killed or failing half-way, the store is unchanged."""
        c = self.conn
        if c.kind == "sqlite":
            c.cur.execute("BEGIN IMMEDIATE")
            lock = ""
        else:  # the writers' lock, and the version row's: a second migrator waits
            c.begin(write=True)
            lock = " FOR UPDATE"
        try:
            version = _version(c.fetchall("SELECT value FROM meta WHERE key = ?" + lock,
                                          ("schema_version",))[0][0], self.name)
            for step in range(version, SCHEMA_VERSION):
                for ddl in MIGRATIONS[step]:
                    c.execute(ddl)
            if version < SCHEMA_VERSION:
                c.execute("UPDATE meta SET value = ? WHERE key = ?",
                          (str(SCHEMA_VERSION), "schema_version"))
                c.execute("INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) "
                          "DO UPDATE SET value = excluded.value",
                          (f"migrated_from_{version}_at", _now()))
            c.commit()
        except BaseException:
            c.rollback()
            raise

    def _has_table(self, name: str) -> bool:
        if self.conn.kind == "sqlite":
            q = "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = ?"
        else:  # the schema the tables are created in (the first of search_path)
            q = ("SELECT 1 FROM information_schema.tables "
                 "WHERE table_schema = current_schema() AND table_name = ?")
        return bool(self.conn.fetchall(q, (name,)))

    @property
    def name(self) -> str:
        return _redact(self.target)

    def close(self) -> None:
        self.conn.close()

    def discard_if_new(self) -> bool:
        """Remove a SQLite store this program created and wrote nothing into
        (a new replay whose input was refused, or stopped before its first
        event), so that a failed run leaves no file behind; the connection is
        closed.  Called holding the writer lock: any other program that
        opened the same file meanwhile finds it gone when it takes the lock
        (:meth:`writer`) and writes nothing.  Whether it was removed."""
        if not self.created or self.conn.kind != "sqlite":
            return False
        try:
            if any(self.counts().values()):
                return False
        except self.conn.errors:
            return False
        self.close()
        self.discarded = True
        # the lock file last: whoever waits on it finds it gone, takes the
        # new one, then finds the store it opened gone too (:meth:`writer`)
        for suffix in ("", "-wal", "-shm", "-journal", "-writer"):
            try:
                os.unlink(self.target + suffix)
            except OSError:
                pass  # left as it is (an empty store is still a valid one)
        return True

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, kind, err, tb) -> None:
        """Close the store; a driver's error that reached here (a page of
        the file damaged, a column dropped by hand: found by a read the
        program makes in good faith) becomes one line naming the store."""
        self.close()
        if isinstance(err, self.conn.errors):
            if self.conn.kind == "sqlite":  # the file itself
                raise self.damaged("cannot use the store", _one_line(err)) from None
            raise InputError(f"cannot use the store: {_one_line(err)}", file=self.name) from None

    # ------------------------------------------------------------ reading
    def schema_version(self) -> int:
        return _version(self.conn.fetchall("SELECT value FROM meta WHERE key = ?",
                                           ("schema_version",))[0][0], self.name)

    def _chunked(self, query: str, keys: list, extra=()) -> Iterator[tuple]:
        """Run ``query`` (with one ``{marks}`` IN list) over ``keys`` in chunks."""
        for i in range(0, len(keys), CHUNK):
            part = keys[i:i + CHUNK]
            yield from self.conn.fetchall(query.format(marks=", ".join("?" * len(part))),
                                          (*part, *extra))

    def applied(self, event_ids: Iterable[str]) -> dict[str, str]:
        """Which of these events are applied: id -> applied_at."""
        ids = list(dict.fromkeys(event_ids))
        return {r[0]: r[1] for r in
                self._chunked("SELECT id, applied_at FROM events WHERE id IN ({marks})", ids)}

    def is_applied(self, event_id: str) -> bool:
        return bool(self.applied([event_id]))

    def events(self) -> list[dict]:
        rows = self.conn.fetchall("SELECT id, seq, name, start_date, end_date, source, applied_at "
                                  "FROM events ORDER BY seq")
        keys = ("id", "seq", "name", "start", "end", "source", "applied_at")
        return [dict(zip(keys, r)) for r in rows]

    def last_event(self) -> Optional[dict]:
        """The id and dates (``end``, ``start``: dates) of the last event applied."""
        rows = self.conn.fetchall("SELECT id, end_date, start_date FROM events "
                                  "ORDER BY seq DESC LIMIT 1")
        if not rows:
            return None
        eid, end, start = rows[0]
        try:
            return {"id": eid, "end": _date(end, required=True),
                    "start": _date(start, required=True)}
        except DamagedRow as err:
            raise self.damaged(f"the last event applied ({_shown(eid)})", err)

    def states(self, player_ids: Iterable[str]) -> dict[tuple[str, str], SystemRecord]:
        """Current records: (player_id, system) -> SystemRecord."""
        ids = list(dict.fromkeys(player_ids))
        cols = ", ".join(RATING_COLUMNS[:-1])
        out = {}
        for row in self._chunked(f"SELECT player_id, system, {cols} FROM ratings "
                                 "WHERE player_id IN ({marks})", ids):
            try:
                if row[1] not in SYSTEMS:
                    raise DamagedRow(f"system {_shown(row[1])} is none of {', '.join(SYSTEMS)}")
                out[(row[0], row[1])] = record_from_row(row[2:])
            except DamagedRow as err:
                raise self.damaged(f"the ratings row of player {_shown(row[0])}, system "
                                   f"{_shown(row[1])}", err)
        return out

    def players(self, player_ids: Iterable[str]) -> dict[str, PlayerInfo]:
        ids = list(dict.fromkeys(player_ids))
        out = {}
        for r in self._chunked(f"SELECT {', '.join(PLAYER_COLUMNS)} FROM players "
                               "WHERE id IN ({marks})", ids):
            try:
                out[r[0]] = PlayerInfo.from_row(r)
            except DamagedRow as err:
                raise self.damaged(f"the players row of {_shown(r[0])}", err)
        return out

    def damaged(self, where: str, what) -> InputError:
        """The one-line error of a value the program did not write (the store
        was changed by hand or by another program): ``what`` (a text or a
        :class:`DamagedRow`) found at ``where``."""
        return InputError(f"{where}: {what}; the store was changed outside this program "
                          "(restore it from a copy, or replay into a new one)", file=self.name)

    def last_seq(self) -> int:
        """The sequence number of the last event applied (0 in a new store)."""
        seq = self.conn.fetchall("SELECT MAX(seq) FROM events")[0][0] or 0
        if type(seq) is not int:
            raise self.damaged("the events' sequence numbers",
                               f"the last is {_shown(seq)}, not a whole number")
        return seq

    def event_ids_after(self, seq: int) -> list[str]:
        """The ids of the events applied after sequence number ``seq``, in
        the order applied."""
        return [r[0] for r in self.conn.fetchall(
            "SELECT id FROM events WHERE seq > ? ORDER BY seq", (seq,))]

    def players_rated_after(self, seq: int) -> int:
        """How many players have a record last written by an event applied
        after sequence number ``seq``: the players the events since then
        rated (a record is written by every event that rates the player in
        its system, and names that event)."""
        return self.conn.fetchall(
            "SELECT COUNT(DISTINCT r.player_id) FROM ratings r JOIN events e "
            "ON e.id = r.last_event WHERE e.seq > ?", (seq,))[0][0]

    def has_players(self) -> bool:
        """Whether the store holds any player (a new store holds none)."""
        return bool(self.conn.fetchall("SELECT 1 FROM players LIMIT 1"))

    def player(self, player_id: str) -> Optional[PlayerInfo]:
        return self.players([player_id]).get(player_id)

    def ratings_of(self, player_id: str) -> dict[str, SystemRecord]:
        got = {s: r for (_, s), r in self.states([player_id]).items()}
        order = {s: i for i, s in enumerate(SYSTEMS)}
        return dict(sorted(got.items(), key=lambda kv: (order.get(kv[0], 99), kv[0])))

    def history(self, player_id: str, system: Optional[str] = None) -> list[dict]:
        """Every change of a player, in the order applied."""
        if self._index_pending:  # the first lookup by player builds the index
            self._index_changes()
        q = ("SELECT c.event_id, e.end_date, c.section, c.system, c.pre, c.post, c.games_before, "
             "c.games_after, c.m, c.score, c.formula, c.floor_applied, c.fingerprint "
             "FROM changes c JOIN events e ON e.id = c.event_id WHERE c.player_id = ?")
        params: tuple = (player_id,)
        if system:
            q += " AND c.system = ?"
            params += (system,)
        q += " ORDER BY e.seq, c.pos"
        keys = ("event", "end", "section", "system", "pre", "post", "games_before",
                "games_after", "m", "score", "formula", "floor_applied", "fingerprint")
        rows = self.conn.fetchall(q, params)
        for r in rows:
            try:
                _date(r[1], required=True)  # the event's end
                _number(r[4], "pre")
                _number(r[5], "post", required=True)
                for what, value in zip(("games_before", "games_after", "m"), r[6:9]):
                    _number(value, what, integer=True, required=True)
                _number(r[9], "score", required=True)
            except DamagedRow as err:
                raise self.damaged(f"the change of player {_shown(player_id)} in event "
                                   f"{_shown(r[0])}", err)
        return [dict(zip(keys, r)) for r in rows]

    def rules(self, fingerprint: str) -> Optional[dict]:
        rows = self.conn.fetchall("SELECT rules FROM rulesets WHERE fingerprint = ?",
                                  (fingerprint,))
        if not rows:
            return None
        try:
            rules = json.loads(rows[0][0])
        except (TypeError, ValueError):
            rules = None
        if not isinstance(rules, dict):
            raise self.damaged(f"the rules {_shown(fingerprint)}",
                               f"{_shown(rows[0][0])} is not a JSON object")
        return rules

    def has_rules(self, fingerprint: str) -> bool:
        """Whether a rules combination is stored (known at open or written since)."""
        return fingerprint in self._fingerprints or (
            self._batch is not None and fingerprint in self._batch.rulesets)

    def counts(self) -> dict[str, int]:
        return {t: self.conn.fetchall(f"SELECT COUNT(*) FROM {t}")[0][0]
                for t in ("players", "ratings", "events", "changes", "rulesets", "published")}

    def dump(self, table: str) -> list[tuple]:
        """Every row of a table in a stable order (for comparisons and tests)."""
        text = self.conn.text_order
        order = {"players": text("id"), "ratings": text("player_id", "system"), "events": "seq",
                 "changes": f"{text('event_id')}, pos", "rulesets": text("fingerprint"),
                 "published": text("event_id", "player_id", "system"), "meta": text("key")}
        if table not in order:
            raise InputError(f"no table {table!r} (one of {', '.join(order)})")
        return [tuple(r) for r in self.conn.fetchall(f"SELECT * FROM {table} ORDER BY {order[table]}")]

    # ------------------------------------------------------------ writing
    @contextmanager
    def writer(self, *, wait: Optional[float] = None,
               on_wait: Optional[Callable[[str], None]] = None):
        """Hold the store's writer lock (see the module text) for the block.

        If another program holds it, ``on_wait`` is called once with a
        message and the lock is tried again every :data:`WRITER_POLL`
        seconds for ``wait`` seconds (None: until it is free; 0: not at
        all), then refused with an InputError."""
        release = self._try_writer()
        if release is None:
            message = f"another replay is writing {self.name}{self._holder()}"
            if on_wait is not None and wait != 0:
                on_wait(f"{message}; waiting for it to finish")
            deadline = None if wait is None else time.monotonic() + wait
            while release is None:
                if deadline is not None and time.monotonic() >= deadline:
                    raise InputError(f"{message}: one replay at a time may write a store "
                                     "(run this one when it has finished)")
                time.sleep(WRITER_POLL)
                release = self._try_writer()
        if self._identity is not None and _identity(self.target) != self._identity:
            if not os.path.lexists(self.target):  # a lock of no store (see above)
                try:
                    os.unlink(self._writer_path())
                except OSError:
                    pass
            release()
            raise InputError("the store was removed while this program waited for it (a "
                             "replay into it as a new file wrote nothing and removed it): "
                             "run this one again", file=self.name)
        try:
            yield self
        finally:
            release()

    def _writer_path(self) -> Path:
        return Path(self.target + "-writer")

    def _holder(self) -> str:
        """" (pid N)" of the program holding a SQLite store's writer lock."""
        if self.conn.kind != "sqlite":
            return ""
        try:
            pid = self._writer_path().read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return ""
        return f" (pid {pid})" if pid.isdigit() else ""

    def _try_writer(self) -> Optional[Callable[[], None]]:
        """Take the writer lock if it is free: its release, or None."""
        c = self.conn
        if c.kind == "postgresql":
            try:
                got = c.fetchall("SELECT pg_try_advisory_lock(?)", (PG_WRITER_KEY,))[0][0]
            except c.errors as err:
                raise InputError(f"cannot lock the store: {_one_line(err)}", file=self.name)
            if not got:
                return None

            def release_pg() -> None:
                try:
                    c.fetchall("SELECT pg_advisory_unlock(?)", (PG_WRITER_KEY,))
                except c.errors:
                    pass  # a closed connection has released it already
            return release_pg
        try:
            import fcntl  # noqa: PLC0415 - POSIX only
        except ImportError:  # no flock: a SQLite store elsewhere takes no writer lock
            return lambda: None

        path = self._writer_path()
        while True:
            try:  # never through a link: the pid is written into the file opened
                fd = os.open(path, os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o666)
            except OSError as err:
                if os.path.islink(path):
                    raise InputError(f"the writer lock {path} is a symbolic link, not the "
                                     "lock file this program makes: remove it", file=self.name)
                raise InputError(f"cannot create the writer lock {path}: "
                                 f"{err.strerror or err}", file=self.name)
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise InputError(f"the writer lock {path} is not a regular file: remove it",
                                 file=self.name)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
            except OSError as err:
                os.close(fd)
                raise InputError(f"cannot lock {path}: {err.strerror or err}", file=self.name)
            # the lock holds only while its file is still the one at the path
            # (a new store's removal removes it too): otherwise take it again
            st = os.fstat(fd)
            if _identity(str(path)) == (st.st_dev, st.st_ino):
                break
            os.close(fd)
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        except OSError:
            pass  # the pid is only for messages

        def release_file() -> None:
            # the lock file goes with the lock (no empty file left beside the
            # store); removed while still held, so that a program waiting on
            # this file finds it gone and takes the lock on a new one (above)
            try:
                if _identity(str(path)) == (st.st_dev, st.st_ino):
                    os.unlink(path)
            except OSError:
                pass
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        return release_file

    @contextmanager
    def transaction(self):
        """One writing transaction (on PostgreSQL, holding the store's lock);
        within a batch, the events it holds are committed first."""
        if self._batch is not None:
            self._commit_batch()
        self.conn.begin(write=True)
        try:
            yield self.conn
        except BaseException:
            self.conn.rollback()
            raise
        else:
            self.conn.commit()

    @contextmanager
    def changes_index_after(self):
        """For the block (a replay into a SQLite store that holds no change
        yet), the index of the changes by player is built in one pass after
        the rows instead of kept up row by row: the same index, for about a
        fifth less time writing the rows (``benchmarks/replay_bench.py
        --store-variants``).  A lookup by player in the block (a match's
        earlier changes, :meth:`history`) builds it first.  The rows are
        whatever the index: a replay killed in the block leaves whole events
        only, and a store left without the index gets it back when the next
        replay enters this block (lookups by player scan the changes until
        then).  Elsewhere (a store with changes, PostgreSQL) the index is
        kept up as the rows come, as outside the block."""
        c = self.conn
        if c.kind != "sqlite" or self._index_pending:
            yield self
            return
        if c.fetchall("SELECT 1 FROM changes LIMIT 1"):
            self._index_changes()  # left without it by a replay killed in this block
            yield self
            return
        c.execute("DROP INDEX IF EXISTS changes_player")
        self._index_pending = True
        # at the end the index is built if it is not there (a lookup by player
        # may have built it in a transaction rolled back since)
        try:
            yield self
        except BaseException:
            try:
                if not self.discarded:
                    self._index_changes()
            except InputError:
                pass  # the error under way is the one to tell; the next replay builds it
            raise
        self._index_changes()

    def _index_changes(self) -> None:
        """Build the changes' index by player if the store lacks it (in the
        open transaction, if any: a batch's rows and the index commit together)."""
        self._index_pending = False
        c = self.conn
        try:
            c.execute(f"PRAGMA cache_size=-{INDEX_CACHE_KIB}")
            try:
                c.execute(CHANGES_INDEX)
            finally:
                c.execute(f"PRAGMA cache_size=-{CACHE_KIB}")
        except c.write_errors as err:
            raise InputError(f"cannot index the changes by player: {_one_line(err)}; the "
                             "events committed are kept (a replay builds the index when it "
                             "starts; lookups by player are slower until then)", file=self.name)

    @contextmanager
    def batch(self, events: int):
        """Commit the events applied in the block (:meth:`apply_event`)
        ``events`` at a time (or as many as hold :data:`BATCH_CHANGES`
        changes, if fewer), in one transaction each, and those left when
        the block ends, however it ends (an error between two events keeps
        the events written before it).  An error while an event is written
        rolls back the whole open transaction: a store killed or failing at
        any moment holds whole events only, every event up to the last
        commit.  Inside a batch the store's own reads see the events written
        and not yet committed.  ``events`` 1: one transaction per event."""
        if events < 1:
            raise ValueError("a batch holds at least one event")
        if self._batch is not None:  # within a batch already: it rules
            yield self
            return
        self._batch = _Batch(events)
        try:
            yield self
        finally:
            try:
                if self._batch.pending:
                    self._commit_batch()
                else:
                    self.conn.rollback()  # an empty transaction, if one is open
            finally:
                self._batch = None

    def apply_event(self, write: EventWrite, *, during=None) -> int:
        """Write one event in one transaction (within :meth:`batch`, in the
        batch's open transaction); returns its sequence number.
        An event already in the store is refused with an InputError.
        ``during`` (tests) is called inside the transaction after the rows
        are written, before the commit."""
        if self._batch is not None:
            return self._apply_in_batch(write, during)
        c = self.conn
        try:
            with self.transaction():
                seq = self._write_event(write, during)
        except c.write_errors as err:
            raise InputError(f"cannot write event {write.id}: {_one_line(err)}", file=self.name)
        self._fingerprints.update(write.rulesets)
        return seq

    def _apply_in_batch(self, write: EventWrite, during) -> int:
        c, batch = self.conn, self._batch
        try:
            if not c.in_transaction():
                c.begin(write=True)
                batch.seq = None
            seq = batch.seq = self._write_event(write, during, batch.seq)
        except BaseException as err:
            batch.seq = None
            batch.pending = batch.changes = 0
            batch.rulesets.clear()
            c.rollback()
            if isinstance(err, c.write_errors):
                raise InputError(f"cannot write event {write.id}: {_one_line(err)}",
                                 file=self.name) from None
            raise
        batch.pending += 1
        batch.changes += len(write.changes)
        batch.rulesets.update(write.rulesets)
        if batch.pending >= batch.events or batch.changes >= BATCH_CHANGES:
            self._commit_batch()
        return seq

    def _commit_batch(self) -> None:
        """Commit the events of the open batch (a failed commit rolls them
        back, and says how many)."""
        c, batch = self.conn, self._batch
        pending = batch.pending
        batch.pending = batch.changes = 0
        if not c.in_transaction():
            return
        try:
            c.commit()
        except c.write_errors as err:
            batch.rulesets.clear()
            c.rollback()
            raise InputError(f"cannot write the last {pending} event(s): {_one_line(err)}",
                             file=self.name)
        self._fingerprints.update(batch.rulesets)
        batch.rulesets.clear()

    def _write_event(self, write: EventWrite, during, last: Optional[int] = None) -> int:
        """The rows of one event, in the open transaction.  ``last``: the
        sequence number of the event written before it in this transaction
        (which holds the writers' lock: nobody else has written since)."""
        c = self.conn
        if last is None:
            last = self.last_seq()
        seq = last + 1
        try:
            c.execute("INSERT INTO events (id, seq, name, start_date, end_date, source, "
                      "applied_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                      (write.id, seq, write.name, _iso(write.start), _iso(write.end),
                       write.source, _now()))
        except Exception as err:
            if _is_integrity(err):
                raise InputError(f"event {write.id} is already applied to {self.name}")
            raise
        new_rules = [(fp, json.dumps(r, sort_keys=True, default=str))
                     for fp, r in write.rulesets.items() if fp not in self._fingerprints]
        c.executemany("INSERT INTO rulesets (fingerprint, rules) VALUES (?, ?) "
                      "ON CONFLICT (fingerprint) DO NOTHING", new_rules)
        c.upsert_later(_UPSERT_PLAYER, {p.id: p for p in write.players}, _player_rows)
        try:
            c.executemany(_INSERT_CHANGE, [ch.row() for ch in write.changes])
        except Exception as err:
            if _is_integrity(err):  # changes kept of an event whose row is gone
                raise self.damaged(f"event {write.id}",
                                   "the store holds changes of it but no events row")
            raise
        c.executemany(_UPSERT_PUBLISHED, [(write.id, p.id, p.system, float(p.post))
                                          for p in write.published])
        eid = write.id
        c.upsert_later(_UPSERT_RATING, {key: (rec, eid) for key, rec in write.ratings.items()},
                       record_rows)
        if during is not None:
            during()
        return seq

    def record_published(self, event_id: str, rows: Iterable[tuple[str, str, float]]) -> int:
        """Record published post ratings (player_id, system, post) of an event."""
        rows = [(event_id, pid, system, float(post)) for pid, system, post in rows]
        try:
            with self.transaction() as c:
                c.executemany(_UPSERT_PUBLISHED, rows)
        except self.conn.write_errors as err:
            raise InputError(f"cannot record the published ratings of {event_id}: "
                             f"{_one_line(err)}", file=self.name)
        return len(rows)

    def audit(self, tolerance: float = 0.5, event_id: Optional[str] = None) -> list[dict]:
        """Published post ratings that differ from the computed ones by more
        than ``tolerance`` (0.5: a published integer is a rounding of ours),
        or that have no computed counterpart (post None)."""
        q = ("SELECT p.event_id, p.player_id, p.system, p.post, c.post FROM published p "
             "LEFT JOIN changes c ON c.event_id = p.event_id AND c.player_id = p.player_id "
             "AND c.system = p.system")
        params: tuple = ()
        if event_id is not None:
            q += " WHERE p.event_id = ?"
            params = (event_id,)
        out = []
        q += " ORDER BY " + self.conn.text_order("p.event_id", "p.player_id", "p.system")
        for ev, pid, system, published, computed in self.conn.fetchall(q, params):
            try:
                if system not in SYSTEMS:
                    raise DamagedRow(f"system {_shown(system)} is none of {', '.join(SYSTEMS)}")
                _number(published, "the published post", required=True)
                _number(computed, "the computed post")
            except DamagedRow as err:
                raise self.damaged(f"event {_shown(ev)}, player {_shown(pid)}, system "
                                   f"{_shown(system)}", err)
            if computed is None or abs(published - computed) > tolerance:
                out.append({"event": ev, "player": pid, "system": system,
                            "published": published, "computed": computed})
        return out


def _version(value, name: str) -> int:
    """The schema version of a ``meta`` row, which must be a whole number."""
    text = str(value).strip()
    if not text.isdigit() or len(text) > 9:
        raise InputError(f"store schema version {str(value)[:40]!r} is not a number: not a "
                         f"store this program wrote (it writes version {SCHEMA_VERSION})",
                         file=name)
    return int(text)


def _is_integrity(err: Exception) -> bool:
    return isinstance(err, sqlite3.IntegrityError) or type(err).__name__ in (
        "IntegrityError", "UniqueViolation")


def _now() -> str:
    """The time now in UTC, to the second, as ISO text (an events row's
    ``applied_at``); the text of the last second asked is kept, since a
    replay asks once per event, many events a second."""
    global _NOW
    second = int(time.time())
    if _NOW[0] != second:
        _NOW = (second, _dt.datetime.fromtimestamp(second, _dt.timezone.utc)
                .isoformat(timespec="seconds"))
    return _NOW[1]


#: The second :func:`_now` last wrote, and its text (replaced whole).
_NOW: tuple = (None, "")
