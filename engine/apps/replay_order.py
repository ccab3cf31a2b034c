"""The events of a replay (:mod:`uschess.apps.replay`), read and put in
replay order: by end date, then start date, then id (the event's ``id``, or
its file's stem; a FIDE update's :func:`store_event_id`).

Paths are told apart by peeking: a YAML/JSON file holding a mapping with
``kind: fide-update`` is a FIDE update, any other YAML/JSON file an event
file; TRF files and DBF report directories are events (:func:`load_item`).
Events up to :data:`KEEP_PLAYERS` player entries are read in full and kept;
beyond that, each YAML/JSON event file's header is glanced at and the file
read, in full and checked, at its turn (:func:`index_items`); the order keys
and paths of all the events are kept in a temporary SQLite file, not in
Python objects (:class:`OrderIndex`).  Events already ordered stream
through :func:`_stream`, checked to be in order with distinct ids.
"""

from __future__ import annotations

import datetime as _dt
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Mapping, Optional, Union

from uschess.errors import InputError
from uschess.io.eventfile import (MAX_FILE_BYTES, event_dates, event_from_dict, load_event,
                                  read_data)
from uschess.io.textdata import peek_top_level, read_limited
from uschess.io.formats.detect import load_event_any
from uschess.io.fide_file import FideUpdate, fide_update_from_dict, is_fide_update_data
from uschess.io.store import Store
from uschess.model import Event

#: Events kept in memory between the ordering pass and the rating pass
#: (counted in player entries, about 600 bytes each); beyond this, the ordering
#: pass only peeks at each event file's header and the rating pass reads the
#: files one at a time.
KEEP_PLAYERS = 30_000
#: Ids asked of the store at a time when a run starts, whether applied.
APPLIED_CHUNK = 10_000

#: What a replay rates: an event or a FIDE update.
Item = Union[Event, FideUpdate]
EventLike = Union[Event, FideUpdate, str, Path]
#: Files peeked at for ``kind: fide-update``.
DATA_SUFFIXES = (".yaml", ".yml", ".json")


def event_id(event: Event) -> str:
    """The event's id, or its file's stem."""
    if event.id:
        return str(event.id)
    if event.source:
        return Path(event.source).stem
    raise InputError(f"event {event.name!r} has no id and no file to name it by")


def item_id(item: Item) -> str:
    """The id an event or a FIDE update is kept under in the store."""
    if isinstance(item, FideUpdate):
        return store_event_id(item)
    return event_id(item)


def event_key(event: Item) -> tuple:
    """Replay order: end date, then start date, then id (events and FIDE
    updates alike)."""
    return (event.end, event.start, item_id(event))


def _any_format(path) -> Event:
    """An event from any format the program reads (detected from the path)."""
    return load_event_any(path)


def load_item(path, loader: Optional[Callable[[str], Event]] = None) -> Item:
    """An event or a FIDE update from a path.  A YAML/JSON file is read once
    and peeked at: a mapping with ``kind: fide-update`` is a FIDE update
    (:func:`~uschess.rating.fide_update.fide_update_from_dict`), one with another
    ``kind`` an error, anything else an event file (read from the same data,
    or by ``loader`` when one is given and reads event files: see
    :func:`_reads_event_files`).  Other paths (TRF files, DBF report
    directories) go to ``loader``, by default the reader of every format."""
    p = Path(path)
    if _is_data_file(p):
        data = None
        loader_reads = _reads_event_files(loader)
        if loader_reads:
            data = _peek(p)  # the loader reads the file itself: a glance will do
        if data is None or (isinstance(data, Mapping) and "kind" in data):
            data = read_data(p)  # read and checked
        if is_fide_update_data(data):
            return fide_update_from_dict(data, source=str(path))
        if isinstance(data, Mapping) and "kind" in data:
            raise InputError(f"'kind' is {data['kind']!r}: a replay takes event files (no "
                             "'kind') and FIDE updates ('kind: fide-update')", file=path)
        if not loader_reads:
            return event_from_dict(data, source=str(path), text_checked=True)
    return (loader or _any_format)(str(path))


def _reads_event_files(loader) -> bool:
    """Whether ``loader`` reads YAML/JSON event files itself: not when it
    is None or :func:`~uschess.io.eventfile.load_event`, or says it reads
    them as that does (its attribute ``reads_event_files`` false: a
    command's reader that merges nothing into an event file and says nothing
    of it).  Otherwise the replay reads such a file twice: a glance at its
    header first, then the loader's reading."""
    return (loader is not None and loader is not load_event
            and getattr(loader, "reads_event_files", True))


def _is_data_file(path: Path) -> bool:
    return path.suffix.lower() in DATA_SUFFIXES and not path.is_dir()


def load_event_file(path, loader) -> Event:
    """The event of a YAML/JSON file already known to be an event file."""
    if not _reads_event_files(loader):
        return load_event(path)
    return loader(str(path))


def _peek(path: Path) -> Optional[dict]:
    """The ``event`` and ``kind`` of a YAML/JSON file as the plain parsers
    read them, without the checks (None when it does not read: the checked
    reader then says why)."""
    try:
        data = read_limited(path, MAX_FILE_BYTES, "file")
    except InputError:
        return None
    return peek_top_level(data, ("event", "kind"), json_format=path.suffix.lower() == ".json")


def _header_key(path: Path) -> Optional[tuple]:
    """The replay order key of an event file from a glance at its header
    (the plain parsers, no checks), or None when the glance says nothing
    for sure (a FIDE update, another ``kind``, a header that does not
    read): the file is then read in full."""
    data = _peek(path)
    if not isinstance(data, dict) or "kind" in data or not isinstance(data.get("event"), dict):
        return None
    ev = data["event"]
    try:
        start, end = event_dates(ev)
    except InputError:
        return None
    given = ev.get("id")
    eid = str(given) if given is not None else None
    return (end, start, eid or path.stem)


def _size(item: Item) -> int:
    if isinstance(item, FideUpdate):
        return 1
    return sum(len(s.players) for s in item.sections)


# --------------------------------------------------------------- ordering
@dataclass
class Indexed:
    """One event or FIDE update of a replay, in the ordering pass: its order
    key, the item itself while it is kept in memory (None: read again when
    its turn comes), its path, and whether it is known to be an event file."""

    key: tuple
    item: Optional[Item]
    path: Optional[str]
    event_file: bool = False
    occurrence: int = 1  # the item's place among those of its id, in replay order
    applied: Optional[str] = None  # when the store applied it, if it did


class OrderIndex:
    """The items of a run with their order keys, handed out in replay order,
    in memory that does not grow with the number of items.

    The keys and paths go to a private temporary SQLite database
    (``sqlite3.connect("")``: a file deleted when it is closed, whose page
    cache is bounded; its sort spills to temporary files), not to Python
    objects, which took hundreds of bytes an event;
    only the items kept in memory (those :func:`index_items` keeps, and
    events given as objects) are held, by row.  A key is (end, start, id)
    with dates: dates are stored as ISO text, whose order is theirs, and the
    id as text, whose order (UTF-8 bytes) is that of Python's strings; equal
    keys keep the order given."""

    def __init__(self):
        try:
            self._db = sqlite3.connect("")
            self._db.execute("CREATE TABLE items (end_date TEXT NOT NULL, "
                             "start_date TEXT NOT NULL, id TEXT NOT NULL, path TEXT, "
                             "event_file INTEGER NOT NULL, applied TEXT)")
        except sqlite3.Error as err:
            raise _temporary_failed(err) from None
        self._held: dict[int, Item] = {}
        self._count = 0
        self._sorted = False

    def add(self, key: tuple, item: Optional[Item], path: Optional[str],
            event_file: bool = False) -> None:
        end, start, eid = key
        cur = self._db.execute("INSERT INTO items VALUES (?, ?, ?, ?, ?, NULL)",
                               (end.isoformat(), start.isoformat(), eid, path, int(event_file)))
        if item is not None:
            self._held[cur.lastrowid] = item
        self._count += 1
        self._sorted = False

    def __len__(self) -> int:
        return self._count

    def held(self) -> list[Item]:
        """The items kept in memory, in the order given."""
        return [self._held[row] for row in sorted(self._held)]

    def _rows(self, columns: str):
        if not self._sorted:
            self._db.execute("CREATE INDEX IF NOT EXISTS items_order "
                             "ON items (end_date, start_date, id)")
            self._sorted = True
        return self._db.execute(f"SELECT {columns} FROM items "
                                "ORDER BY end_date, start_date, id, rowid")

    def first_duplicate(self) -> Optional[tuple[str, str, str]]:
        """The first id given twice in replay order: (id, where it came
        first, where again), or None.  Where: the path, the kept event's
        source, or "(in memory)"."""
        row = self._db.execute(
            "SELECT id, first, again FROM (SELECT id, end_date, start_date, rowid AS r, "
            "FIRST_VALUE(rowid) OVER w AS first, ROW_NUMBER() OVER w AS n, rowid AS again "
            "FROM items WINDOW w AS (PARTITION BY id ORDER BY end_date, start_date, rowid)) "
            "WHERE n = 2 ORDER BY end_date, start_date, id, r LIMIT 1").fetchone()
        if row is None:
            return None
        return (row[0], self._where(row[1]) or "(in memory)",
                self._where(row[2]) or "(in memory)")

    def id_chunks(self, size: int) -> Iterator[list[str]]:
        """The ids, ``size`` at a time, in the order given (each chunk its
        own query: the index may be written between two)."""
        last = 0
        while True:
            rows = self._db.execute("SELECT rowid, id FROM items WHERE rowid > ? "
                                    "ORDER BY rowid LIMIT ?", (last, size)).fetchall()
            if not rows:
                return
            last = rows[-1][0]
            yield [r[1] for r in rows]

    def mark_applied(self, applied: dict) -> None:
        """Note which ids a store has applied (id -> when)."""
        if not applied:
            return
        self._db.execute("CREATE INDEX IF NOT EXISTS items_id ON items (id)")
        self._db.executemany("UPDATE items SET applied = ? WHERE id = ?",
                             [(when, eid) for eid, when in applied.items()])

    def first_applied(self) -> Optional[tuple[str, str, str, int]]:
        """The first item in replay order that the store has applied: (id,
        when, where (None for an event given in memory), how many items are
        applied in all), or None."""
        count = self._db.execute("SELECT COUNT(*) FROM items "
                                 "WHERE applied IS NOT NULL").fetchone()[0]
        if not count:
            return None
        row = self._db.execute("SELECT id, applied, rowid FROM items WHERE applied IS NOT NULL "
                               "ORDER BY end_date, start_date, id, rowid LIMIT 1").fetchone()
        return row[0], row[1], self._where(row[2]), count

    def _where(self, row: int) -> Optional[str]:
        path = self._db.execute("SELECT path FROM items WHERE rowid = ?", (row,)).fetchone()[0]
        item = self._held.get(row)
        return path or (item.source if item is not None else None)

    def entries(self) -> Iterator[Indexed]:
        """Every item in replay order, a kept item let go as it is handed out
        (with its occurrence: 2 for the second item of an id, and so on)."""
        held, day = self._held, _dt.date.fromisoformat
        try:
            rows = self._rows("rowid, end_date, start_date, id, path, event_file, ROW_NUMBER() "
                              "OVER (PARTITION BY id ORDER BY end_date, start_date, rowid), "
                              "applied")
            while True:
                got = rows.fetchone()
                if got is None:
                    return
                row, end, start, eid, path, event_file, n, applied = got
                yield Indexed((day(end), day(start), eid), held.pop(row, None), path,
                              bool(event_file), n, applied)
        except sqlite3.Error as err:
            raise _temporary_failed(err) from None

    def close(self) -> None:
        self._held.clear()
        self._db.close()


def _temporary_failed(err: Exception) -> InputError:
    """The one line for a temporary file of the order that fails (no room
    in the temporary directory, one that cannot be written)."""
    return InputError(f"cannot keep the order of the events in a temporary file: {err} "
                      "(set TMPDIR to a directory with room)")


def index_items(items: Iterable[EventLike], loader, key: Callable[[Item], tuple] = None
                ) -> OrderIndex:
    """Each item (an event, a FIDE update or a path) with its order key, as
    given.  Events up to :data:`KEEP_PLAYERS` player entries are read in full
    and kept (a bad file among them stops the run before anything is
    written); beyond that, a YAML or JSON event file's header is enough to
    order it, and the file is read, in full and checked, when its turn comes.
    The keys go to an :class:`OrderIndex`, so that memory stays bounded
    whatever the history's size.  ``key``: the order key of an item read
    (default: :func:`event_key`)."""
    key = key or event_key
    out = OrderIndex()
    kept = 0
    try:
        for item in items:
            if isinstance(item, (Event, FideUpdate)):
                out.add(key(item), item, None)
                continue
            path = Path(item)
            if kept >= KEEP_PLAYERS and path.suffix.lower() in DATA_SUFFIXES:
                header = _header_key(path)  # (a directory does not read: it goes on below)
                if header is not None:
                    out.add(header, None, str(item), event_file=True)
                    continue
            event = load_item(item, loader)
            size = _size(event)
            keep = kept + size <= KEEP_PLAYERS
            kept += size
            out.add(key(event), event if keep else None, str(item),
                    event_file=isinstance(event, Event) and _is_data_file(path))
    except sqlite3.Error as err:
        out.close()
        raise _temporary_failed(err) from None
    except BaseException:
        out.close()
        raise
    return out


def _ordered(items: Iterable[EventLike], loader) -> OrderIndex:
    """The items indexed (:func:`index_items`), to be handed out in replay
    order; an id given twice is refused."""
    out = index_items(items, loader)
    try:
        twice = out.first_duplicate()
    except sqlite3.Error as err:
        out.close()
        raise _temporary_failed(err) from None
    if twice is not None:
        out.close()
        eid, first, again = twice
        raise InputError(f"event id {eid} is given twice: {first} and {again}")
    return out


def store_event_id(update: FideUpdate) -> str:
    """The id a FIDE update is kept under in a ratings store."""
    return update.event_id or f"fide-update:{update.player_id}:{update.start.isoformat()}"


def _mark_applied(store: Store, items: OrderIndex) -> None:
    """Note in the index which items the store has applied, asking it
    :data:`APPLIED_CHUNK` ids at a time (nothing is asked of a store that
    holds no event)."""
    if not store.last_seq():
        return
    try:
        for chunk in items.id_chunks(APPLIED_CHUNK):
            items.mark_applied(store.applied(chunk))
    except sqlite3.Error as err:
        items.close()
        raise _temporary_failed(err) from None


def _release(items: OrderIndex):
    """The events in replay order, each let go once handed out; the index
    closed at the end, however the run ends."""
    try:
        for entry in items.entries():
            yield (entry.key, entry.item, entry.path, entry.applied is not None,
                   entry.event_file)
    finally:
        items.close()


def _stream(events: Iterable[EventLike], loader):
    """Events as given, checked to be in replay order with distinct ids."""
    previous = None
    seen: set[str] = set()
    for item in events:
        event = item if isinstance(item, (Event, FideUpdate)) else load_item(item, loader)
        key = event_key(event)
        where = event.source or key[2]
        if previous is not None and key < previous:
            raise InputError(f"event {key[2]} (end {key[0]}) comes after event {previous[2]} "
                             f"(end {previous[0]}): not in replay order", file=where)
        if key[2] in seen:
            raise InputError(f"event id {key[2]} is given twice", file=where)
        seen.add(key[2])
        previous = key
        yield key, event, None, None, False
