"""The ratings store's tables and the typed rows written to them
(:mod:`uschess.io.store`): the SQL both databases run to create, migrate
and write them, and each row's conversion to and from the values of the
engine's model, with the checks that refuse a damaged row in one line."""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass, field
from typing import Optional

from uschess.io.eventfile import MAX_RATING, PRIZE_FLOORS
from uschess.model import ForeignRating, SystemRecord

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
