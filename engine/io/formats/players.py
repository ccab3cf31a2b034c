"""Member data kept beside a rating report: the players file.

A DBF report or a TRF names the players and their games but not what the
rating algorithm needs about each member (ratings with game counts, birth
date, FIDE/CFC ratings).  The players file supplies it, keyed by member id::

    players:
      12873461:
        name: Okafor, Daniel          # optional; used only if the event has none
        birth_date: 2009-05-14
        adult: false
        fide: {rating: 1985, date: 2024-03-01}
        cfc: {rating: 2010, date: 2024-02-01}
        state: IL
        ratings:
          OTBR: {rating: 1912, games: 63, wins: 30, draws: 12, losses: 21}

The ``players:`` key may be left out (the file is then the mapping of ids to
entries itself), and an entry may repeat its own id (``id: "12873461"``).
YAML or JSON (``.json``), read by :mod:`uschess.io.textdata`.  Each entry takes the
player fields of the event file; ratings are parsed with
:func:`uschess.io.eventfile.parse_record`.  :func:`merge_players` copies the
entries into an Event by member id: a value given in the file replaces the
report's, a key left out keeps it, and a player without an entry keeps what
the report said (from a DBF: unrated).
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Mapping, Optional

from uschess.errors import InputError
from uschess.io.eventfile import (birth_date_text, check_birth_dates, parse_birth_date,
                                  parse_foreign, parse_record, record_to_dict)
from uschess.io.textdata import (MAX_DATA_BYTES, decode_utf8, kind_of, parse_data, read_limited,
                                 refuse_unknown)
from uschess.model import SYSTEMS, Event, ForeignRating, SystemRecord

#: Largest players file read.
MAX_FILE_BYTES = MAX_DATA_BYTES
_KEYS = {"name", "birth_date", "adult", "fide", "cfc", "state", "ratings"}


@dataclass
class MemberData:
    """One entry of a players file; None means "not given"."""

    name: Optional[str] = None
    birth_date: Any = None
    adult: Optional[bool] = None
    fide: Optional[ForeignRating] = None
    cfc: Optional[ForeignRating] = None
    state: Optional[str] = None
    ratings: Optional[dict[str, SystemRecord]] = None


def load_players(path) -> dict[str, MemberData]:
    """Read a players file (``.json`` as JSON, anything else as YAML)."""
    path = Path(path)
    data = read_limited(path, MAX_FILE_BYTES, "players file")
    return parse_players_text(data, json_format=path.suffix.lower() == ".json", source=str(path))


def parse_players_text(data, *, json_format: bool = False, source=None) -> dict[str, MemberData]:
    """Parse the text (str or UTF-8 bytes) of a players file."""
    if isinstance(data, (bytes, bytearray)):
        data = decode_utf8(data, source)
    return parse_players(parse_data(data, json_format=json_format, source=source), source=source)


def parse_players(raw: Any, source=None) -> dict[str, MemberData]:
    """Validate the loaded structure: ``{"players": {id: entry}}``, or the
    plain mapping ``{id: entry}``.  An entry may repeat its own id
    (``id: "12873461"``); one that names another id is refused."""
    if not isinstance(raw, dict):
        raise InputError("a players file is a mapping of member ids to entries (optionally "
                         "under a 'players' key)", file=source)
    if "players" in raw:
        extra = set(raw) - {"players"}
        if extra:
            raise InputError(f"unknown top-level key(s) {sorted(map(str, extra))} beside "
                             "'players'", file=source)
        entries = raw["players"]
    else:
        entries = raw
    if entries is None:
        return {}
    if not isinstance(entries, dict):
        raise InputError("'players' must map member ids to entries", file=source)
    out: dict[str, MemberData] = {}
    for key, entry in entries.items():
        if isinstance(key, bool) or not isinstance(key, (str, int)):
            raise InputError(f"member id {key!r} is not text or a number", file=source)
        member = str(key).strip()
        if not member:
            raise InputError("blank member id", file=source)
        if member in out:
            raise InputError("member id listed twice", file=source, player=member)
        if isinstance(entry, dict) and "id" in entry:
            entry = dict(entry)
            own = entry.pop("id")
            if isinstance(own, bool) or not isinstance(own, (str, int)) or str(own).strip() != member:
                raise InputError(f"the entry's id {own!r} is not the id it is listed under",
                                 file=source, player=member, field="id")
        try:
            out[member] = _entry(entry)
        except InputError as err:
            raise err.located(file=source, player=member)
    return out


def _entry(raw: Any) -> MemberData:
    if raw is None:
        return MemberData()
    if not isinstance(raw, dict):
        raise InputError(f"entry must be a mapping, not {kind_of(raw)}")
    refuse_unknown(raw, _KEYS)
    m = MemberData()
    if raw.get("name") is not None:
        if not isinstance(raw["name"], str):
            raise InputError("'name' must be text", field="name")
        m.name = raw["name"]
    if raw.get("state") is not None:
        if not isinstance(raw["state"], str):
            raise InputError("'state' must be text", field="state")
        m.state = raw["state"]
    if raw.get("birth_date") is not None:
        m.birth_date = parse_birth_date(raw["birth_date"])
    if raw.get("adult") is not None:
        if not isinstance(raw["adult"], bool):
            raise InputError("'adult' must be true or false", field="adult")
        m.adult = raw["adult"]
    for key in ("fide", "cfc"):
        if raw.get(key) is not None:
            setattr(m, key, _foreign(raw[key], key))
    if "ratings" in raw:
        ratings = raw["ratings"] or {}
        if not isinstance(ratings, dict):
            raise InputError("'ratings' must map systems to records", field="ratings")
        m.ratings = {}
        for system, rec in ratings.items():
            if system not in SYSTEMS:
                raise InputError(f"unknown rating system {system!r} (one of {', '.join(SYSTEMS)})",
                                 field="ratings")
            if rec is not None:
                try:
                    m.ratings[system] = parse_record(rec, system)
                except InputError as err:
                    raise err.located(field=f"ratings.{system}")
    return m


def _foreign(raw: Any, key: str) -> ForeignRating:
    try:
        return parse_foreign(raw, key)
    except InputError as err:
        raise err.located(field=key)


def merge_players(event: Event, players: Mapping[str, MemberData]) -> Event:
    """A copy of ``event`` with each player's member data taken from
    ``players`` by id.  The input event is not changed."""
    out = copy.deepcopy(event)
    for section in out.sections:
        for p in section.players:
            m = players.get(p.id)
            if m is None:
                continue
            if m.name and not p.name:
                p.name = m.name
            for key in ("birth_date", "adult", "fide", "cfc", "state"):
                value = getattr(m, key)
                if value is not None:
                    setattr(p, key, copy.deepcopy(value))
            if m.ratings is not None:
                p.ratings = copy.deepcopy(m.ratings)
        check_birth_dates(section)
    return out


def players_from_event(event: Event) -> dict[str, MemberData]:
    """The member data held in an event, by id (the first section in which
    an id appears wins): what :func:`merge_players` needs to restore it."""
    out: dict[str, MemberData] = {}
    for section in event.sections:
        for p in section.players:
            if p.id in out:
                continue
            out[p.id] = MemberData(name=p.name, birth_date=p.birth_date, adult=p.adult,
                                   fide=copy.deepcopy(p.fide), cfc=copy.deepcopy(p.cfc),
                                   state=p.state, ratings=copy.deepcopy(p.ratings))
    return out


def players_to_dict(players: Mapping[str, MemberData]) -> dict:
    """The file form of member data (inverse of :func:`parse_players`)."""
    entries = {}
    for member, m in players.items():
        entry: dict = {}
        if m.name:
            entry["name"] = m.name
        if m.state:
            entry["state"] = m.state
        if m.birth_date:
            entry["birth_date"] = birth_date_text(m.birth_date)
        if m.adult is not None:
            entry["adult"] = m.adult
        for key in ("fide", "cfc"):
            f = getattr(m, key)
            if f:
                entry[key] = {"rating": f.rating, **({"date": f.date.isoformat()} if f.date else {}),
                              **({"canadian": True} if f.canadian else {})}
        if m.ratings:
            entry["ratings"] = {s: record_to_dict(r) for s, r in m.ratings.items()}
        entries[member] = entry
    return {"players": entries}
