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
import os
import sqlite3
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Iterable, Iterator, Optional

from uschess.errors import InputError
from uschess.io.store_connection import (CACHE_KIB, PG_LOCK_KEY, _connect, _Connection,
                                         _identity, _one_line, _redact)
from uschess.io.store_lock import WriterLock
from uschess.io.store_schema import (CHANGES_INDEX, MIGRATIONS, PLAYER_COLUMNS, RATING_COLUMNS,
                                     SCHEMA, SCHEMA_VERSION, TABLES, _INSERT_CHANGE,
                                     _UPSERT_PLAYER, _UPSERT_PUBLISHED, _UPSERT_RATING,
                                     Change, DamagedRow, EventWrite, PlayerInfo, _date, _iso,
                                     _number, _player_rows, _shown, record_from_row,
                                     record_rows)
from uschess.model import SYSTEMS, SystemRecord

#: What the rest of the engine writes and reads through: the store, the rows
#: an event writes, and the schema version it writes.
__all__ = ["Store", "EventWrite", "Change", "PlayerInfo", "SCHEMA_VERSION", "record_rows",
           "record_from_row"]

#: The most changes a batch of events (:meth:`Store.batch`) holds before it
#: is committed, however few its events: a transaction's rows stay in the
#: page cache and the journal until its commit, and its players' and ratings
#: rows in memory (:meth:`_Connection.upsert_later`; a few MB at this size).
BATCH_CHANGES = 50_000

#: The page cache while the index of the changes by player is built after a
#: replay's rows (:meth:`Store.changes_index_after`), in KiB: SQLite's sort
#: of the index takes as much memory as the page cache allows, so a small one
#: keeps the peak where the replay had it (sorted runs spill to a file).
INDEX_CACHE_KIB = 2_000

#: Largest IN (...) list sent at once (SQLite's old default limit is 999).
CHUNK = 500



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



class Store(WriterLock):
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
            if not have_meta and create:
                # another process may be creating it: wait for it, then look
                # again.  (SQLite cannot turn this read transaction into a
                # write once another has written: it would fail at once, not
                # wait; a write transaction from the start waits its turn.)
                if c.kind == "postgresql":
                    c.execute("SELECT pg_advisory_xact_lock(?)", (PG_LOCK_KEY,))
                else:
                    c.rollback()
                    c.cur.execute("BEGIN IMMEDIATE")
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
