"""Which players of a rating report or TRF have no member data.

A DBF rating report and a TRF name the players and their games but carry no
rating records (a DBF's D_RATING and a TRF's ratings are displayed numbers
without game counts).  What the rating algorithm needs comes from a players
file (:mod:`uschess.io.formats.players`); a player it has no entry for is
rated as unrated.  :func:`member_data_report` lists those players, with the
rating the file displays for them, so that a command can say so instead of
rating them silently.

An event file (YAML/JSON) holds member data itself: a player without
``ratings`` there is unrated by the file's own statement, and is not listed.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, Optional

from uschess.model import BirthYear, Event

#: Names listed in a one-line message before "and N more".
NAMES_SHOWN = 10


@dataclass
class MissingMember:
    """A player of the report whom no players-file entry describes."""

    id: str
    name: str
    section: str
    pair: int
    shown: Optional[str] = None  # the rating the report displays, e.g. "2215" or "FIDE 2140"

    def label(self) -> str:
        shown = f", report shows {self.shown}" if self.shown else ""
        return f"{self.id} {self.name} (section {self.section!r}, pair {self.pair}{shown})"

    def as_dict(self) -> dict:
        return {"id": self.id, "name": self.name, "section": self.section, "pair": self.pair,
                "shown": self.shown}


@dataclass
class MemberDataReport:
    """Member data coverage of one report (``format`` is ``dbf`` or ``trf``)."""

    source: str
    format: str
    players: int                                  # distinct ids in the report
    players_file: Optional[str] = None
    missing: list[MissingMember] = field(default_factory=list)
    #: set when ``missing`` lists only the players a ratings store had no
    #: record of either (a replay): the store's name
    store: Optional[str] = None
    #: the players whose birth date the report gives by its year only
    #: (:class:`~uschess.model.BirthYear`), none of them from a players file
    birth_years: list[MissingMember] = field(default_factory=list)

    @property
    def missing_ids(self) -> int:
        return len({m.id for m in self.missing})

    @property
    def all_missing(self) -> bool:
        return self.players > 0 and self.missing_ids == self.players

    def summary(self) -> str:
        """``3 of 12 players have no member data in players.yaml and are rated
        as unrated`` (or ``... no players file was given ...``)."""
        if self.store is not None:
            return (f"{self.source}: {self.missing_ids} of {self.players} player(s) have no "
                    f"member data in the report and no record in {self.store}, and were rated "
                    "as unrated")
        where = (f"in {self.players_file}" if self.players_file
                 else "(no players file was given: --players FILE)")
        return (f"{self.missing_ids} of {self.players} player(s) have no member data {where} "
                "and are rated as unrated")

    def message(self, limit: Optional[int] = NAMES_SHOWN) -> str:
        """The summary and the players' names on one line; ``limit`` names at
        most (None: all)."""
        shown = self.missing if limit is None else self.missing[:limit]
        names = "; ".join(m.label() for m in shown)
        more = len(self.missing) - len(shown)
        return f"{self.summary()}: {names}" + (f"; and {more} more" if more > 0 else "")

    def birth_year_message(self, limit: Optional[int] = NAMES_SHOWN) -> str:
        """The players with a birth year only, on one line (``limit`` names
        at most; None: all)."""
        shown = self.birth_years if limit is None else self.birth_years[:limit]
        more = len(self.birth_years) - len(shown)
        return (f"{len(self.birth_years)} player(s) have a birth year but no day: the age "
                "(sec. 2.3) is taken from 2 July of that year, within half a year of the "
                f"true one: {'; '.join(m.label() for m in shown)}"
                + (f"; and {more} more" if more > 0 else ""))

    def lines(self, limit: Optional[int] = None) -> list[str]:
        """The summary, then one indented line per player (at most ``limit``)."""
        shown = self.missing if limit is None else self.missing[:limit]
        more = len(self.missing) - len(shown)
        return ([f"{self.summary()}:"] + [f"  {m.label()}" for m in shown]
                + ([f"  and {more} more (all of them with --verbose or --json)"] if more > 0 else []))

    def as_dict(self) -> dict:
        return {"source": self.source, "format": self.format, "players": self.players,
                "players_file": self.players_file, "store": self.store,
                "missing_count": self.missing_ids, "missing": [m.as_dict() for m in self.missing],
                "birth_year_only": [m.as_dict() for m in self.birth_years]}


def member_data_report(event: Event, fmt: str, members: Optional[Mapping] = None, *,
                       players_file: Optional[str] = None,
                       shown: Optional[Mapping[tuple[str, int], str]] = None) -> MemberDataReport:
    """The players of ``event`` (read from a ``fmt`` report) that ``members``
    (a players file's entries by id; None when no file was given) does not
    describe.  ``shown`` maps ``(section name, pair)`` to the rating the
    report displays."""
    members = members or {}
    shown = shown or {}
    ids: set[str] = set()
    missing, birth_years = [], []
    for section in event.sections:
        for p in section.players:
            ids.add(p.id)
            if isinstance(p.birth_date, BirthYear):
                birth_years.append(MissingMember(p.id, p.name, section.name, p.pair,
                                                 f"born {p.birth_date.text}"))
            if p.id in members:
                continue
            display = shown.get((section.name, p.pair))
            if display is None and p.fide is not None and p.fide.rating:
                display = f"FIDE {p.fide.rating:g}"
            missing.append(MissingMember(p.id, p.name, section.name, p.pair, display))
    return MemberDataReport(source=str(event.source or ""), format=fmt, players=len(ids),
                            players_file=str(players_file) if players_file is not None else None,
                            missing=missing, birth_years=birth_years)
