"""Reading an update from a foreign FIDE event (sec. 6): a YAML/JSON file or
a TRF of the foreign event with the player's id.  Rated by
:mod:`uschess.rating.fide_update`.

File structure::

    kind: fide-update
    event: {name: "Open abroad", start: "2024-03-10", end: "2024-03-15", youth: false}
    player: {id: "12345678", name: "Doe, Jane", ratings: {OTBR: {rating: 2100.0, games: 120}}}
    games: [{opponent: "Smith", fide: 1900, result: W}, {fide: 2050, result: D}, {result: L}]
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass
from typing import Any, Mapping, Optional

from uschess.errors import InputError
from uschess.io.eventfile import (MAX_RATING, event_dates, mapping, parse_record, read_data,
                                  text_field)
from uschess.io.formats.detect import load_event_any
from uschess.io.textdata import refuse_unknown
from uschess.model import GAME_CODES, SystemRecord

#: The system a FIDE update changes (sec. 6: established OTBR players only).
SYSTEM = "OTBR"
TOP_KEYS = {"kind", "event", "player", "games"}
EVENT_KEYS = {"name", "start", "end", "youth", "id"}
PLAYER_KEYS = {"id", "name", "ratings"}
GAME_KEYS = {"opponent", "fide", "result"}


@dataclass
class FideGame:
    """One game of the foreign event: the opponent's name (optional), FIDE
    rating (None: unrated, the game is ignored) and the player's result."""

    result: str
    fide: Optional[float] = None
    opponent: Optional[str] = None

    @property
    def points(self) -> float:
        return GAME_CODES[self.result]


@dataclass
class FideUpdate:
    """A foreign FIDE-rated event for one player."""

    player_id: str
    record: Optional[SystemRecord]  # the player's OTBR record before the event
    games: list[FideGame]
    start: _dt.date
    end: _dt.date
    youth: bool = False
    event_name: str = "(foreign FIDE event)"
    event_id: Optional[str] = None
    player_name: Optional[str] = None
    source: Optional[str] = None


def parse_game(raw: Any, number: int) -> FideGame:
    what = f"game {number}"
    raw = mapping(raw, what)
    refuse_unknown(raw, GAME_KEYS, what)
    result = raw.get("result")
    if not isinstance(result, str) or result.strip().upper() not in GAME_CODES:
        raise InputError(f"{what}: 'result' must be W, D or L, not {result!r}")
    fide = raw.get("fide")
    if fide is not None:
        if isinstance(fide, bool) or not isinstance(fide, (int, float)) or not math.isfinite(fide):
            raise InputError(f"{what}: 'fide' must be a number, not {fide!r}")
        if not 0 < fide <= MAX_RATING:
            raise InputError(f"{what}: FIDE rating {fide!r} is impossible (leave 'fide' out "
                             "for an opponent without one)")
        fide = float(fide)
    opponent = raw.get("opponent")
    if opponent is not None and not isinstance(opponent, (str, int)):
        raise InputError(f"{what}: 'opponent' must be a name, not {opponent!r}")
    return FideGame(result.strip().upper(), fide,
                    str(opponent) if opponent is not None else None)


def fide_update_from_dict(raw: Any, source: Optional[str] = None) -> FideUpdate:
    """A :class:`FideUpdate` from the file structure (module docstring)."""
    try:
        raw = mapping(raw, "the file")
        refuse_unknown(raw, TOP_KEYS, "the file")
        if raw.get("kind") != "fide-update":
            raise InputError("'kind' must be fide-update (is this an event file? rate it "
                             "with 'uschess rate')")
        ev = mapping(raw.get("event"), "'event'")
        refuse_unknown(ev, EVENT_KEYS, "event")
        text_field(ev, "name", "event")
        start, end = event_dates(ev)
        youth = ev.get("youth", False)
        if not isinstance(youth, bool):
            raise InputError(f"event: 'youth' must be true or false, not {youth!r}")
        pl = mapping(raw.get("player"), "'player'")
        refuse_unknown(pl, PLAYER_KEYS, "player")
        if pl.get("id") is None or str(pl["id"]).strip() == "":
            raise InputError("player: missing 'id'")
        pid = str(pl["id"])
        try:
            ratings = mapping({} if pl.get("ratings") is None else pl["ratings"], "ratings")
            record = None
            for system, rec in ratings.items():
                if system != SYSTEM:
                    raise InputError(f"only the {SYSTEM} rating is updated from a FIDE event; "
                                     f"leave out {system!r}")
                record = parse_record(rec, system) if rec is not None else None
        except InputError as err:
            raise err.located(player=pid)
        games_raw = raw.get("games")
        if not isinstance(games_raw, list) or not games_raw:
            raise InputError("'games' must be a non-empty list of {opponent, fide, result}")
        games = [parse_game(g, i) for i, g in enumerate(games_raw, start=1)]
        return FideUpdate(player_id=pid, record=record, games=games, start=start, end=end,
                          youth=youth, event_name=str(ev.get("name") or "(foreign FIDE event)"),
                          event_id=str(ev["id"]) if ev.get("id") is not None else None,
                          player_name=str(pl["name"]) if pl.get("name") is not None else None,
                          source=source)
    except InputError as err:
        raise err.located(file=source)


def is_fide_update_data(raw: Any) -> bool:
    """Whether a file's data is a FIDE update (a mapping with ``kind: fide-update``)."""
    return isinstance(raw, Mapping) and raw.get("kind") == "fide-update"


def load_fide_update(path) -> FideUpdate:
    """Read a FIDE update file (``.yaml``, ``.yml`` or ``.json``)."""
    return fide_update_from_dict(read_data(path), source=str(path))


def fide_update_from_trf(path, player_id: str, *, players_file=None, youth: bool = False,
                         record: Optional[SystemRecord] = None) -> FideUpdate:
    """The games of player ``player_id`` (US Chess id, else FIDE id, as
    :mod:`uschess.io.formats.trf` names players) in a TRF of the foreign event.
    The TRF carries no US Chess rating: the OTBR record comes from
    ``players_file`` (see :mod:`uschess.io.formats.players`) or ``record``."""
    event = load_event_any(path, players_file=players_file)
    found = [(s, p) for s in event.sections for p in s.players if p.id == str(player_id)]
    if not found:
        raise InputError(f"no player with id {player_id} in this TRF", file=path)
    if len(found) > 1:
        raise InputError(f"player {player_id} is in more than one section of this TRF", file=path)
    section, pl = found[0]
    opponents = {p.pair: p for p in section.players}
    games = []
    for r in pl.rounds:
        if not r.rated:
            continue  # forfeits and byes are not games
        opp = opponents[r.opponent]
        rating = opp.fide.rating if opp.fide is not None and opp.fide.rating else None
        games.append(FideGame(r.code, float(rating) if rating else None, opp.name))
    if not games:
        raise InputError(f"player {player_id} has no played games in this TRF", file=path)
    rec = record if record is not None else pl.ratings.get(SYSTEM)
    return FideUpdate(player_id=pl.id, record=rec, games=games, start=section.start,
                      end=section.end, youth=youth, event_name=event.name, event_id=event.id,
                      player_name=pl.name, source=str(path))
