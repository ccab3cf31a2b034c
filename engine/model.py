"""The event data the engine rates.

These classes are the single in-memory form of a tournament, whatever file it
came from (event YAML/JSON, MSA crosstable, DBF rating report, TRF).  Dates are
``datetime.date`` values (read as strict ``YYYY-MM-DD`` by the readers).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Optional

#: The six rating systems (2025 edition, introduction and footnote 1).
SYSTEMS = ("OTBR", "OTBQ", "OTBB", "OLR", "OLQ", "OLB")
#: The label of each system on a published crosstable (``R: 1500 ->1510``)
#: and in its header (``Rating Sys: OQ``); ``D`` there means OTBR and OTBQ.
SYSTEM_LABELS = {"OTBR": "R", "OTBQ": "Q", "OTBB": "B", "OLR": "OR", "OLQ": "OQ", "OLB": "OB"}

#: Result codes of a round cell.  Only W, L and D against an opponent are
#: rated games; forfeits (X, F, Z) and byes (B, H, U) are not ("Games in which
#: one player makes no move are not rated", sec. 7 of every edition).
GAME_CODES = {"W": 1.0, "D": 0.5, "L": 0.0}
FORFEIT_CODES = {"X": 1.0, "Z": 0.5, "F": 0.0}
BYE_CODES = {"B": 1.0, "H": 0.5, "U": 0.0}
POINTS = {**GAME_CODES, **FORFEIT_CODES, **BYE_CODES}
#: What the opponent's cell must say for each code of a paired round.
#: How the id of an opponent known only by a FIDE rating begins: the
#: opponents of a FIDE event abroad (sec. 6), a section of type
#: ``fide-update`` (:func:`uschess.rating.fide_update.rate_fide_section`).
FIDE_OPPONENT_ID = "fide-opponent-"
MIRROR = {"W": "L", "L": "W", "D": "D", "X": "F", "F": "X", "Z": "Z"}


def copy_with(obj, **changes):
    """A copy of a dataclass value (Player, Section, Event) with ``changes``
    made: what :func:`dataclasses.replace` gives for these classes (no
    ``__post_init__``, no slots, no init-only fields), made by copying the
    fields at once instead of through ``__init__`` one by one.  A name that
    is not a field would add an entry: the copy's fields would outnumber the
    original's."""
    state = obj.__dict__
    fields = state.copy()
    fields.update(changes)
    if len(fields) != len(state):
        raise TypeError(f"{type(obj).__name__} has no field(s) "
                        f"{sorted(changes.keys() - state.keys())}")
    new = object.__new__(type(obj))
    new.__dict__ = fields
    return new


@dataclass(slots=True)
class SystemRecord:
    """A player's standing in one rating system before (or after) an event.

    ``games`` is N of sec. 1; ``wins``/``draws``/``losses`` are the rated game
    counts (None when unknown: a mixed history is then assumed); ``events3``
    is N_R of sec. 5 (events with three or more rated games); ``peak`` the
    highest established rating; ``olm`` the Original Life Master floor;
    ``prize_floor`` a floor earned by a cash prize; ``date`` when the rating
    was computed (the staleness D_k of the blended initialization, sec. 2);
    ``lowered_floor`` a floor lowered at the player's request after a match
    (sec. 7, restriction 4) and ``lowered_from`` the sec. 5 floor it replaced:
    it holds while sec. 5 still gives ``lowered_from``.
    """

    rating: float
    games: int
    wins: Optional[int] = None
    draws: Optional[int] = None
    losses: Optional[int] = None
    events3: Optional[int] = None
    peak: Optional[float] = None
    olm: bool = False
    prize_floor: Optional[int] = None
    date: Optional[_dt.date] = None
    games_above_2200: Optional[int] = None
    lowered_floor: Optional[float] = None
    lowered_from: Optional[float] = None

    @property
    def all_wins(self) -> bool:
        """Every earlier rated game a win (project reading 3: needs games)."""
        return self.games > 0 and self.wins is not None and self.wins == self.games

    @property
    def all_losses(self) -> bool:
        """Every earlier rated game a loss (project reading 3)."""
        return self.games > 0 and self.losses is not None and self.losses == self.games


    def as_dict(self, compact: bool = False) -> dict:
        """The record as plain data, the one serializer: every field (None
        where unknown) for JSON output; ``compact`` leaves out what is
        unknown or false, as event files write it."""
        out = {"rating": self.rating, "games": self.games, "wins": self.wins,
               "draws": self.draws, "losses": self.losses, "events3": self.events3,
               "peak": self.peak, "olm": self.olm, "prize_floor": self.prize_floor,
               "games_above_2200": self.games_above_2200,
               "date": self.date.isoformat() if self.date else None,
               "lowered_floor": self.lowered_floor, "lowered_from": self.lowered_from}
        if compact:
            out = {k: v for k, v in out.items() if v is not None and v is not False}
        return out


@dataclass(frozen=True)
class MatchChange:
    """One earlier match's change to a player's rating (post - pre), for the
    caps of sec. 7 restriction 2.  ``system`` None: the system of the match
    being rated."""

    date: _dt.date
    change: float
    system: Optional[str] = None

    def as_dict(self) -> dict:
        out = {"date": self.date.isoformat(), "change": self.change}
        if self.system:
            out["system"] = self.system
        return out


@dataclass
class ForeignRating:
    """A FIDE or CFC rating, with the date it was published."""

    rating: float
    date: Optional[_dt.date] = None
    canadian: bool = False


@dataclass(frozen=True, slots=True)
class Round:
    """One round cell: a code and, for paired rounds, the opponent's pair.
    A value: readers hand out the same Round for the same cell text."""

    code: str
    opponent: Optional[int] = None

    @property
    def rated(self) -> bool:
        return self.code in GAME_CODES and self.opponent is not None

    @property
    def points(self) -> float:
        return POINTS[self.code]

    def __str__(self) -> str:
        return f"{self.code}{self.opponent if self.opponent is not None else ''}"


class BirthYear(_dt.date):
    """A birth date known by its year only (a TRF's ``1980/00/00``, an event
    file's ``birth_date: "1980"``).  Sec. 2.3 of 000 (sec. 2.6 of 004)
    defines Age = (Tournament End Date - Birth Date)/365.25 from a whole
    date; with a year only the birth date is taken as 2 July, the middle day
    of the year, so the age is off by at most half a year (at most 25 points
    of 50 x Age; none past 26, where the rating is 1300 whatever the day).
    A date in every other respect; written back as the year alone
    (:attr:`text`).  A date moved by arithmetic is a plain date."""

    #: The month and day taken for the unknown day of birth.
    MIDDLE = (7, 2)

    def __new__(cls, year: int, month: int = MIDDLE[0], day: int = MIDDLE[1]):
        if (month, day) != cls.MIDDLE:
            return _dt.date(year, month, day)
        return super().__new__(cls, year, month, day)

    def __reduce__(self):
        return (type(self), (self.year,))

    def __repr__(self) -> str:
        return f"BirthYear({self.year})"

    @property
    def text(self) -> str:
        """The year, as a file states it."""
        return f"{self.year:04d}"


@dataclass
class Player:
    pair: int
    id: str
    name: str
    rounds: list[Round]
    ratings: dict[str, SystemRecord] = field(default_factory=dict)
    birth_date: Optional[_dt.date] = None
    adult: Optional[bool] = None
    fide: Optional[ForeignRating] = None
    cfc: Optional[ForeignRating] = None
    state: Optional[str] = None
    match_history: Optional[list] = None  # earlier match changes (MatchChange)
    #: per system, the initial rating (and its N) the source states for a
    #: player unrated there (a TD crosstable's ``1300/00``): step 1 takes it
    #: as stated instead of computing it (:func:`uschess.rating.steps.initial_rating`)
    initial: dict = field(default_factory=dict)

    @property
    def label(self) -> str:
        return f"{self.pair} ({self.name})"

    @property
    def total(self) -> float:
        return sum(r.points for r in self.rounds)


@dataclass
class Section:
    name: str
    time_control: str
    players: list[Player]
    start: _dt.date
    end: _dt.date
    online: bool = False
    half_k: bool = False
    kind: str = "swiss"
    systems: Optional[list[str]] = None  # explicit override of classification
    notes: list[str] = field(default_factory=list)  # what a reader changed (a merged re-entry)
    #: a match section as US Chess rated it (a page's ``Tnmt Type: M``): a pair
    #: sec. 7 does not allow is rated by the record's rule in force
    #: (slot ``match_unallowed``) instead of refused
    match_as_rated: bool = False

    def player(self, pair: int) -> Player:
        for p in self.players:
            if p.pair == pair:
                return p
        raise KeyError(pair)


@dataclass(frozen=True)
class PublishedPost:
    """One post-event rating a published page printed (an event file's
    ``published:`` entry): the player's member id, the system, the post and
    what the page printed beside it (the pre-event rating, None with
    ``pre_given`` for one printed unrated; the section; the name)."""

    id: str
    system: str
    post: float
    pre: Optional[float] = None
    section: Optional[str] = None
    pre_given: bool = False
    name: Optional[str] = None

    def as_dict(self) -> dict:
        """The event-file form: ``pre`` when given (null: printed unrated),
        ``section`` when known."""
        out: dict = {"id": self.id, "system": self.system, "post": self.post}
        if self.pre_given or self.pre is not None:
            out["pre"] = self.pre
        if self.section is not None:
            out["section"] = self.section
        if self.name is not None:
            out["name"] = self.name
        return out


@dataclass
class Event:
    name: str
    start: _dt.date
    end: _dt.date
    sections: list[Section]
    online: bool = False
    id: Optional[str] = None
    source: Optional[str] = None
    #: what a published page printed, for an event imported from one; kept
    #: by a replay in the store and by an import of the event file
    published: list[PublishedPost] = field(default_factory=list)
