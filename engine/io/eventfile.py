"""Reading and writing the event file (YAML or JSON, one structure).

The structure is published as JSON Schema in ``engine/event.schema.json`` and
documented field by field in the docs (reference/event-file.md, generated from
the schema).  Everything here validates as it
reads and raises :class:`~uschess.errors.InputError` naming the file, section,
player and round of the first problem.  Files are read by the one YAML/JSON
reader, :mod:`uschess.io.textdata` (safe loading only; duplicate keys,
aliases beyond a budget, control characters and over-long numbers refused).
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

from uschess import collector
from uschess.errors import InputError
from uschess.io.files import write_text_atomic
from uschess.io.reentry import merge_reentries
from uschess.io.textdata import (MAX_DATA_BYTES, check_field, kind_of, read_data_file,
                                 refuse_unknown, use_json_int)
from uschess.model import (BYE_CODES, FORFEIT_CODES, GAME_CODES, MIRROR, SYSTEMS, BirthYear,
                           Event, ForeignRating, MatchChange, Player, PublishedPost, Round,
                           Section, SystemRecord)

ROUND_RE = re.compile(r"^\s*([WLDXFZBHU])\s*(\d{1,6})?\s*$", re.IGNORECASE | re.ASCII)
#: The one bound on ratings, read and written alike: no rating, converted
#: rating or published post in a real record is near it, and a rating
#: computed above it is refused too (so whatever is written can be read).
MAX_RATING = 4000.0
#: The lowest rating a record or a published post may hold: the absolute
#: floor of every edition (rulesets/floors.yaml, 002 "Rating floors"; checked
#: against it in tests).  A pre-event rating of 0 is a blank read as a number.
MIN_RATING = 100.0
#: The largest event (or FIDE update) file read (see textdata.MAX_DATA_BYTES).
MAX_FILE_BYTES = MAX_DATA_BYTES
#: The dates any record may hold.  Nobody rated was born before 1900, and no
#: event is dated after 2099; outside these, a date is a typing error (and
#: the staleness weights of blended initialization would underflow).
EARLIEST_DATE = _dt.date(1900, 1, 1)
LATEST_DATE = _dt.date(2099, 12, 31)
_ISO_DATE_RE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})$", re.ASCII)
PLAYER_KEYS = {"pair", "id", "name", "rounds", "ratings", "birth_date", "adult", "fide", "cfc",
               "state", "match_history", "initial"}
#: The keys of an event file, of its ``event:`` and of a section (as
#: ``engine/event.schema.json`` has them: any other is refused).
FILE_KEYS = {"event", "sections", "published"}
EVENT_KEYS = {"id", "name", "start", "end", "online"}
#: A section's ``type``: ``fide-update`` is a FIDE event abroad as a page
#: prints it, each player updated by sec. 6 from the FIDE ratings of the
#: opponents whose id begins ``fide-opponent-``
#: (:func:`uschess.rating.fide_update.rate_fide_section`).
SECTION_TYPES = ("swiss", "round-robin", "match", "fide-update")
SECTION_KEYS = {"name", "time_control", "players", "start", "end", "online", "half_k", "type",
                "systems", "match_as_rated"}
RECORD_KEYS = {"rating", "games", "wins", "draws", "losses", "events3", "peak", "olm",
               "prize_floor", "date", "games_above_2200", "lowered_floor", "lowered_from"}
FOREIGN_KEYS = {"rating", "date", "canadian"}
#: The prize floors a record may carry: 100-point levels in this range (an
#: input bound, read back from a store by the same rule).
PRIZE_FLOORS = (100, 3000)


#: Text dates and round cells already read (the same few thousand recur in
#: every file of a history): each text is parsed once, up to this many.
PARSED_CACHE = 100_000
#: The largest pair number an event file may give (an input bound, no rule:
#: no real section comes near it).
MAX_PAIR = 100_000
_DATES: dict[str, _dt.date] = {}
_CELLS: dict[str, Round] = {}


def _remember(cache: dict, text: str, value):
    if len(cache) >= PARSED_CACHE:
        cache.clear()
    cache[text] = value
    return value


def parse_date(value: Any, what: str) -> _dt.date:
    """A calendar date: a YAML date, or text ``YYYY-MM-DD`` (nothing
    shorter, no week or ordinal dates, no times), between
    :data:`EARLIEST_DATE` and :data:`LATEST_DATE`."""
    if type(value) is str:
        day = _DATES.get(value)
        if day is not None:
            return day
    if isinstance(value, _dt.datetime):
        raise InputError(f"{what}: {value.isoformat()!r} is a time, not a date (use YYYY-MM-DD)")
    if isinstance(value, _dt.date):
        return check_date(value, what)
    if isinstance(value, str):
        if value != value.strip():
            raise InputError(f"{what}: {value!r} has spaces around the date (use YYYY-MM-DD)")
        match = _ISO_DATE_RE.match(value)
        if match:
            try:
                day = _dt.date(*map(int, match.groups()))
            except ValueError as err:
                raise InputError(f"{what}: {value!r} is not a date ({err})")
            return _remember(_DATES, value, check_date(day, what)) if type(value) is str \
                else check_date(day, what)
    raise InputError(f"{what}: {value!r} is not a date (use YYYY-MM-DD)")


def optional_date(raw: Mapping, key: str, what: str, default=None) -> Optional[_dt.date]:
    """The date ``raw[key]``, or ``default`` where the key is left out or
    null; any other value must be a date (``false``, ``0``, ``""``, ``[]``
    or ``no`` is refused, never read as "not given")."""
    value = raw.get(key)
    return default if value is None else parse_date(value, what)


def check_date(day: _dt.date, what: str) -> _dt.date:
    """``day`` if it lies between EARLIEST_DATE and LATEST_DATE."""
    if not EARLIEST_DATE <= day <= LATEST_DATE:
        raise InputError(f"{what}: {day.isoformat()} is impossible (dates are read from "
                         f"{EARLIEST_DATE.isoformat()} to {LATEST_DATE.isoformat()})")
    return day


def parse_birth_date(value: Any, what: str = "birth_date") -> _dt.date:
    """A birth date (:func:`parse_date`), or a year alone (``1980`` or
    ``"1980"``): a :class:`~uschess.model.BirthYear`, the age then known to
    within a year."""
    if isinstance(value, int) and not isinstance(value, bool) or (
            isinstance(value, str) and len(value) == 4 and value.isdigit()):
        year = int(value)
        if not EARLIEST_DATE.year <= year <= LATEST_DATE.year:  # (a date cannot hold it)
            raise InputError(f"{what}: {value!r} is impossible (years are read from "
                             f"{EARLIEST_DATE.year} to {LATEST_DATE.year})")
        return check_date(BirthYear(year), what)
    return parse_date(value, what)


def birth_date_text(day: _dt.date) -> str:
    """A birth date as a file states it: ``YYYY-MM-DD``, or the year alone."""
    return day.text if isinstance(day, BirthYear) else day.isoformat()


def flag(raw: dict, key: str, what: str, default: Optional[bool] = False) -> Optional[bool]:
    """A yes/no field: ``true`` or ``false`` only (``"no"`` or ``0`` are
    refused rather than read as true)."""
    value = raw.get(key)
    if value is None:
        return default
    if not isinstance(value, bool):
        raise InputError(f"{what}: '{key}' must be true or false, not {value!r}")
    return value


def parse_round(cell: Any) -> Round:
    """A round cell such as ``W12``, ``D 3``, ``X5``, ``B`` or ``H``."""
    if not isinstance(cell, str):
        raise InputError(f"round cell {cell!r} is not text like 'W12' or 'B'")
    match = ROUND_RE.match(cell)
    if not match:
        raise InputError(f"round cell {cell!r} is not W/L/D/X/F/Z with an opponent pair, or a B/H/U bye")
    code = match.group(1).upper()
    opp = int(match.group(2)) if match.group(2) else None
    if code in GAME_CODES and opp is None:
        raise InputError(f"round cell {cell!r}: a played game needs the opponent's pair number")
    if code in BYE_CODES and opp is not None:
        raise InputError(f"round cell {cell!r}: a bye has no opponent")
    return _remember(_CELLS, cell, Round(code, opp)) if type(cell) is str else Round(code, opp)


def parse_rounds(cells: list) -> list[Round]:
    """The round cells of one player, in order (a cell read before gives
    the same :class:`Round` value, which nothing can change); a bad cell is
    an InputError located at its round."""
    try:
        rounds = list(map(_CELLS.get, cells))
    except TypeError:  # a cell that is no text (a list, a mapping)
        rounds = [None] * len(cells)
    if not all(rounds):  # a cell not read before (None), or a bad one
        for i, cell in enumerate(cells, start=1):
            if rounds[i - 1] is None:
                try:
                    rounds[i - 1] = parse_round(cell)
                except InputError as err:
                    raise err.located(round=i)
    return rounds


def text_field(raw: Mapping, key: str, what: str) -> None:
    """Refuse ``raw[key]`` that is neither text nor a whole number (a name
    or time control written as ``false`` or a list is no name)."""
    value = raw.get(key)
    if value is not None and (isinstance(value, bool) or not isinstance(value, (str, int))):
        raise InputError(f"{what}: '{key}' must be text, not {kind_of(value)}")


def mapping(value: Any, what: str) -> dict:
    """``value`` if it is a mapping, else a located InputError."""
    if not isinstance(value, dict):
        raise InputError(f"{what} must be a mapping, not {kind_of(value)}")
    return value


def event_dates(ev: dict) -> tuple[_dt.date, _dt.date]:
    """(start, end) of an ``event:`` mapping; end defaults to start and may
    not come before it."""
    if ev.get("start") is None:
        raise InputError("event: missing 'start'")
    start = parse_date(ev["start"], "event start")
    end = optional_date(ev, "end", "event end", start)
    if end < start:
        raise InputError(f"event end {end} is before start {start}")
    return start, end


def number_field(raw: dict, key: str, what: str, *, integer=False, required=False,
                 lo=None, hi=None):
    """The number ``raw[key]`` of the record ``what`` (None when absent or
    null, unless ``required``): finite, whole when ``integer``, within
    ``lo``..``hi``; one InputError naming the record and key otherwise."""
    if key not in raw or raw[key] is None:
        if required:
            raise InputError(f"{what}: missing '{key}'")
        return None
    value = raw[key]
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise InputError(f"{what}: '{key}' must be a number, not {value!r}")
    if isinstance(value, float) and not math.isfinite(value):
        raise InputError(f"{what}: '{key}' must be finite")
    if integer and int(value) != value:
        raise InputError(f"{what}: '{key}' must be a whole number, not {value!r}")
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise InputError(f"{what}: '{key}' = {value!r} is impossible (allowed "
                         f"{'' if lo is None else f'{lo:g}'}..{'' if hi is None else f'{hi:g}'})")
    return int(value) if integer else float(value)


def parse_record(raw: Any, system: str) -> SystemRecord:
    what = f"rating {system}"
    raw = mapping(raw, what)
    refuse_unknown(raw, RECORD_KEYS, what)
    rec = SystemRecord(
        rating=number_field(raw, "rating", what, required=True, lo=MIN_RATING, hi=MAX_RATING),
        games=number_field(raw, "games", what, integer=True, required=True, lo=1, hi=10**6),
        wins=number_field(raw, "wins", what, integer=True, lo=0, hi=10**6),
        draws=number_field(raw, "draws", what, integer=True, lo=0, hi=10**6),
        losses=number_field(raw, "losses", what, integer=True, lo=0, hi=10**6),
        events3=number_field(raw, "events3", what, integer=True, lo=0, hi=10**6),
        peak=number_field(raw, "peak", what, lo=MIN_RATING, hi=MAX_RATING),
        olm=flag(raw, "olm", what),
        prize_floor=number_field(raw, "prize_floor", what, integer=True, lo=PRIZE_FLOORS[0],
                                 hi=PRIZE_FLOORS[1]),
        date=optional_date(raw, "date", f"{what}: date"),
        games_above_2200=number_field(raw, "games_above_2200", what, integer=True, lo=0, hi=10**6),
        lowered_floor=number_field(raw, "lowered_floor", what, lo=0, hi=MAX_RATING),
        lowered_from=number_field(raw, "lowered_from", what, lo=0, hi=MAX_RATING),
    )
    if (rec.lowered_floor is None) != (rec.lowered_from is None):
        raise InputError(f"{what}: lowered_floor and lowered_from go together (a floor lowered "
                         "after a match, sec. 7, and the sec. 5 floor it replaced)")
    counted = [c for c in (rec.wins, rec.draws, rec.losses) if c is not None]
    if sum(counted) > rec.games:
        raise InputError(f"{what}: wins + draws + losses = {sum(counted)} exceeds games = {rec.games}")
    if len(counted) == 3 and sum(counted) != rec.games:
        raise InputError(f"{what}: wins + draws + losses = {sum(counted)} but games = {rec.games}")
    if rec.prize_floor is not None and rec.prize_floor % 100:
        raise InputError(f"{what}: prize_floor {rec.prize_floor} is not a 100-point level")
    return rec


def parse_initial(raw: Any, ratings: dict) -> dict:
    """A player's ``initial``: per system unrated there, the initial rating
    and N a crosstable states (``{OTBR: {rating: 1300, games: 0}}``), which
    step 1 takes as stated."""
    out = {}
    for system, rec in mapping(raw, "initial").items():
        what = f"initial {system}"
        if system not in SYSTEMS:
            raise InputError(f"initial: unknown rating system {system!r} (one of "
                             f"{', '.join(SYSTEMS)})")
        if system in ratings:
            raise InputError(f"{what}: the player is rated in {system}; an initial rating is "
                             "for a system the player is unrated in")
        rec = mapping(rec, what)
        refuse_unknown(rec, {"rating", "games"}, what)
        out[system] = SystemRecord(
            rating=number_field(rec, "rating", what, required=True, lo=100, hi=MAX_RATING),
            games=number_field(rec, "games", what, integer=True, required=True, lo=0, hi=999))
    return out


def parse_foreign(raw: Any, what: str) -> ForeignRating:
    """A FIDE or CFC rating ``{rating, date?, canadian?}``."""
    raw = mapping(raw, what)
    refuse_unknown(raw, FOREIGN_KEYS, what)
    return ForeignRating(
        rating=number_field(raw, "rating", what, required=True, lo=0, hi=MAX_RATING),
        date=optional_date(raw, "date", f"{what}: date"),
        canadian=flag(raw, "canadian", what),
    )


#: What refuse_unknown says of a player's key that is not read.
_PLAYER_KEY_NOTES = {"history": "earlier match changes go in 'match_history'"}


def parse_player(raw: Any, *, text_checked: bool = False) -> Player:
    """A player of a section.  ``text_checked``: the data was read by the
    checked reader (:func:`uschess.io.textdata.parse_data`), which has
    already refused control characters and lone surrogates in every string
    of it, so the texts are not scanned again."""
    if type(raw) is not dict:
        raw = mapping(raw, "player")  # (a mapping, else what is wrong)
    pair = raw.get("pair")
    if type(pair) is not int or not 1 <= pair <= MAX_PAIR:  # else say what is wrong
        pair = number_field(raw, "pair", "player", integer=True, required=True, lo=1, hi=MAX_PAIR)
    try:
        if not PLAYER_KEYS.issuperset(raw):  # (the usual case: one C call) say which
            refuse_unknown(raw, PLAYER_KEYS, notes=_PLAYER_KEY_NOTES)
        get = raw.get
        pid, name, rounds_raw, state = get("id"), get("name"), get("rounds"), get("state")
        if not (text_checked and type(pid) is str and type(name) is str
                and type(rounds_raw) is list and (state is None or type(state) is str)):
            _check_player_texts(pid, name, rounds_raw, state, text_checked)
        rounds = parse_rounds(rounds_raw)
        ratings = {}
        ratings_raw = get("ratings")
        if ratings_raw is not None:
            for system, rec in mapping(ratings_raw, "ratings").items():
                if system not in SYSTEMS:
                    raise InputError(f"unknown rating system {system!r} (one of "
                                     f"{', '.join(SYSTEMS)})")
                if rec is not None:
                    ratings[system] = parse_record(rec, system)
        initial = parse_initial(get("initial"), ratings) if get("initial") else {}
        history = None
        if get("match_history") is not None:
            history = parse_history(raw["match_history"])
        birth, fide, cfc, adult = get("birth_date"), get("fide"), get("cfc"), get("adult")
        if adult is not None and type(adult) is not bool:
            flag(raw, "adult", "player")  # says what is wrong
        # positional, in the order of Player's fields (tests/readers hold
        # it): less than half the time of twelve keywords, once per player
        return Player(
            pair,                                                   # pair
            pid if type(pid) is str else str(pid),                  # id
            name if type(name) is str else str(name),               # name
            rounds,                                                 # rounds
            ratings,                                                # ratings
            (_DATES.get(birth) if type(birth) is str else None)       # birth_date: a date
            or (parse_birth_date(birth) if birth is not None else None),  # read before, or read
            adult,                                                  # adult
            parse_foreign(fide, "fide") if fide is not None else None,   # fide
            parse_foreign(cfc, "cfc") if cfc is not None else None,     # cfc
            (state if type(state) is str else str(state)) if state is not None else None,
            history,                                                # match_history
            initial,                                                # initial
        )
    except InputError as err:
        name = raw.get("name", "?")
        shown = name if isinstance(name, str) and name.isprintable() else ascii(name)
        raise err.located(player=f"{pair} ({shown})")


def _check_player_texts(pid, name, rounds_raw, state, text_checked: bool) -> None:
    """Refuse a player's id, name, rounds or state that is missing (but the
    state) or not what it must be; the texts' characters are checked unless
    ``text_checked``."""
    for key, value in (("id", pid), ("name", name), ("rounds", rounds_raw)):
        if value is None:
            raise InputError(f"missing '{key}'")
    for key, value in (("id", pid), ("name", name), ("state", state)):
        if type(value) is str:
            if not text_checked:
                check_field(value, f"'{key}'")
        elif value is not None and (isinstance(value, bool)
                                    or not isinstance(value, (str, int))):
            raise InputError(f"'{key}' must be text, not {kind_of(value)}")
        elif isinstance(value, str):
            check_field(value, f"'{key}'")
    if not isinstance(rounds_raw, list):
        raise InputError("'rounds' must be a list of cells like 'W12'")


def parse_section(raw: Any, event: dict) -> Section:
    raw = mapping(raw, "section")
    given = raw.get("name")
    name = "" if given is None or isinstance(given, bool) else str(given)
    try:
        text_field(raw, "name", "section")
        if not name:
            raise InputError("missing 'name'")
        check_field(name, "the section's 'name'")
        refuse_unknown(raw, SECTION_KEYS)
        if raw.get("time_control") is None or raw["time_control"] == "":
            raise InputError("missing 'time_control'")
        text_field(raw, "time_control", "section")
        players_raw = raw.get("players")
        if not isinstance(players_raw, list) or not players_raw:
            raise InputError("'players' must be a non-empty list")
        start = optional_date(raw, "start", "start", event["start"])
        end = optional_date(raw, "end", "end", event["end"])
        if end < start:
            raise InputError(f"end {end} is before start {start}")
        systems = raw.get("systems")
        if systems is not None:
            if not isinstance(systems, list) or not all(s in SYSTEMS for s in systems):
                raise InputError(f"'systems' must list systems from {', '.join(SYSTEMS)}")
        text_checked = event.get("text_checked", False)
        players = READER.players(players_raw, text_checked) if READER is not None else None
        if players is None:  # the reference reads them (and says what is wrong)
            players = [parse_player(p, text_checked=text_checked) for p in players_raw]
        section = Section(
            name=name,
            time_control=str(raw["time_control"]),
            players=players,
            start=start,
            end=end,
            online=flag(raw, "online", "section", default=event["online"]),
            half_k=flag(raw, "half_k", "section"),
            kind=str(raw.get("type", "swiss")),
            systems=systems,
            match_as_rated=flag(raw, "match_as_rated", "section"),
        )
        check_birth_dates(section)
        if section.kind not in SECTION_TYPES:
            raise InputError(f"type {section.kind!r} is not {', '.join(SECTION_TYPES[:-1])} or "
                             f"{SECTION_TYPES[-1]}")
        if section.match_as_rated and section.kind != "match":
            raise InputError("'match_as_rated' is for a section of type match")
        section, notes = merge_reentries(section)
        section.notes.extend(notes)
        validate_section(section)
        return section
    except InputError as err:
        raise err.located(section=name or "?")


def match_pairs(section: Section, idle: bool = False) -> Optional[list[tuple[Player, Player]]]:
    """The two-player matches of a match section, in pairing order: two
    players, or a team match (several pairs, each player's rated games all
    against one opponent whose rated games are all against them, as the
    ``Tnmt Type: M`` pages of team matches show).  ``idle``: a player without
    rated games (a forfeit) may be listed too, and is left out.  None when the
    section is not made of such pairs."""
    by_pair = {pl.pair: pl for pl in section.players}
    opponents = {}
    for pl in section.players:
        opps = {r.opponent for r in pl.rounds if r.rated}
        if len(opps) > 1 or (not opps and not idle):
            return None
        if opps:
            opponents[pl.pair] = opps.pop()
    pairs, seen = [], set()
    for pl in section.players:
        o = opponents.get(pl.pair)
        if o is None or pl.pair in seen:
            continue
        if opponents.get(o) != pl.pair:
            return None
        seen.update((pl.pair, o))
        pairs.append((pl, by_pair[o]))
    return pairs


def check_birth_dates(section: Section) -> None:
    """Refuse a player born after the section starts."""
    for p in section.players:
        if p.birth_date is not None and p.birth_date > section.start:
            raise InputError(f"birth date {p.birth_date} is after the section's start "
                             f"{section.start}", section=section.name, player=p.label)


def validate_section(section: Section) -> None:
    """Cross-checks between players: unique pairs and ids, equal round counts,
    opponents that exist and results that agree from both sides."""
    if READER is not None and READER.valid(section.players):
        return  # the compiled kernel found nothing to refuse
    players = section.players
    by_pair: dict[int, Player] = {p.pair: p for p in players}
    if len(by_pair) < len(players) or len({p.id for p in players}) < len(players):
        _refuse_listed_twice(players)  # a pair or an id twice: say which
    counts = {len(p.rounds) for p in players}
    if len(counts) > 1:
        first = section.players[0]
        for p in section.players:
            if len(p.rounds) != len(first.rounds):
                raise InputError(
                    f"has {len(p.rounds)} rounds but player {first.label} has {len(first.rounds)}",
                    player=p.label)
    mirror = MIRROR
    for p in players:
        pair = p.pair
        for i, r in enumerate(p.rounds, start=1):
            opponent = r.opponent
            if opponent is None:
                continue
            if opponent == pair:
                raise InputError("paired against themself", player=p.label, round=i)
            opp = by_pair.get(opponent)
            if opp is None:
                raise InputError(f"opponent pair {opponent} does not exist", player=p.label,
                                 round=i)
            back = opp.rounds[i - 1]
            if back.opponent == pair and mirror[r.code] == back.code:
                continue  # the usual case: both sides agree
            if back.opponent is None and r.code in FORFEIT_CODES:
                continue  # a forfeit recorded on one side only
            if back.opponent != pair:
                raise InputError(f"{r} but pair {opp.pair}'s round {i} is {back}",
                                 player=p.label, round=i)
            raise InputError(f"results disagree: {r} here, {back} for pair {opp.pair}",
                             player=p.label, round=i)


def _refuse_listed_twice(players: list) -> None:
    """The InputError for the first player whose pair number or id an
    earlier player of the section has."""
    by_pair: dict[int, Player] = {}
    ids: dict[str, Player] = {}
    for p in players:
        if p.pair in by_pair:
            raise InputError("pair number listed twice", player=p.label)
        by_pair[p.pair] = p
        if p.id in ids:
            raise InputError(f"id {p.id} listed twice (also pair {ids[p.id].pair})", player=p.label)
        ids[p.id] = p


def event_from_dict(raw: Any, source: str | None = None, *, text_checked: bool = False) -> Event:
    """The event of an event file's data.  ``text_checked``: the data comes
    from the checked reader (:func:`read_data`), whose strings are all
    checked already (see :func:`parse_player`)."""
    with collector.paused():  # records in trees: see uschess.collector
        return _event_from_dict(raw, source, text_checked)


def _event_from_dict(raw: Any, source: Optional[str], text_checked: bool) -> Event:
    try:
        raw = mapping(raw, "the file")
        refuse_unknown(raw, FILE_KEYS, "the file")
        ev = mapping(raw.get("event"), "'event'") if "event" in raw else None
        if ev is None:
            raise InputError("missing 'event'")
        refuse_unknown(ev, EVENT_KEYS, "event")
        text_field(ev, "name", "event")
        start, end = event_dates(ev)
        sections_raw = raw.get("sections")
        if not isinstance(sections_raw, list) or not sections_raw:
            raise InputError("'sections' must be a non-empty list")
        ctx = {"start": start, "end": end, "online": flag(ev, "online", "event"),
               "text_checked": text_checked}
        sections = [parse_section(s, ctx) for s in sections_raw]
        names: set = set()
        for s in sections:
            if s.name in names:
                raise InputError("section name used twice", section=s.name)
            names.add(s.name)
        for s in sections:
            if s.start < start or s.end > end:
                raise InputError(f"section dates {s.start}..{s.end} fall outside the event's "
                                 f"{start}..{end}", section=s.name)
        return Event(name=str(ev.get("name") or "(unnamed event)"), start=start, end=end,
                     sections=sections, online=ctx["online"],
                     id=str(ev["id"]) if ev.get("id") is not None else None, source=source,
                     published=parse_published(raw.get("published")))
    except InputError as err:
        raise err.located(file=source)


PUBLISHED_KEYS = {"id", "system", "post", "pre", "section", "name"}


def parse_published(raw: Any) -> list[PublishedPost]:
    """The ``published:`` list an event imported from a page (or a
    published-results file, :func:`uschess.apps.audit.published_from_dict`)
    carries: each entry's player id, system and published post; ``pre``,
    ``section`` and ``name`` are what the page printed beside it (the audit
    reads them).  The one reader of such a list's entries."""
    if raw is None:
        return []
    if not isinstance(raw, list):
        raise InputError("'published' must be a list of {id, system, post} entries")
    out = []
    for i, entry in enumerate(raw, start=1):
        what = f"published entry {i}"
        entry = mapping(entry, what)
        refuse_unknown(entry, PUBLISHED_KEYS, what)
        pid = entry.get("id")
        if not isinstance(pid, (str, int)) or isinstance(pid, bool) or str(pid).strip() == "":
            raise InputError(f"{what}: 'id' must be a member id")
        system = entry.get("system")
        if system not in SYSTEMS:
            raise InputError(f"{what}: unknown rating system {system!r} (one of {', '.join(SYSTEMS)})")
        post = number_field(entry, "post", what, required=True, lo=MIN_RATING, hi=MAX_RATING)
        pre = number_field(entry, "pre", what, lo=MIN_RATING, hi=MAX_RATING)
        section, name = entry.get("section"), entry.get("name")
        for key, value in (("section", section), ("name", name)):
            if value is not None and (not isinstance(value, (str, int)) or isinstance(value, bool)):
                raise InputError(f"{what}: '{key}' must be text, not {kind_of(value)}")
        out.append(PublishedPost(str(pid), system, float(post),
                                 None if pre is None else float(pre),
                                 None if section is None else str(section), "pre" in entry,
                                 None if name is None else str(name)))
    return out


#: How far a rating report's header dates may reach beyond its sections'
#: (a registration day, an unrated side event, a league's first meeting):
#: up to a year; a header dated years away from every section is a typing
#: error that would move the event in replay order.
MAX_HEADER_REACH = _dt.timedelta(days=366)


def check_header_dates(event: Event, what: str, **where) -> Event:
    """Refuse a rating report (DBF, TRF) whose header dates reach more than
    :data:`MAX_HEADER_REACH` beyond its sections' first start or last end."""
    first = min(s.start for s in event.sections)
    last = max(s.end for s in event.sections)
    if first - event.start > MAX_HEADER_REACH or event.end - last > MAX_HEADER_REACH:
        raise InputError(f"{what} dates {event.start}..{event.end} lie over a year beyond its "
                         f"sections' dates {first}..{last}", **where)
    return event


def read_data(path: str | Path, limit: int = MAX_FILE_BYTES, what: str = "file") -> Any:
    """The data of a YAML (safe loading only) or JSON file of at most
    ``limit`` bytes, checked by :func:`uschess.io.textdata.parse_data`
    (duplicate keys, aliases, control characters, numbers), with every
    failure an :class:`InputError` of one located line."""
    return read_data_file(path, limit, what)


# ------------------------------------------------------ earlier match changes
HISTORY_KEYS = {"date", "change", "system"}


def parse_history_entry(raw: Any, what: str = "match_history entry") -> MatchChange:
    """A :class:`MatchChange` from a mapping ``{date, change, system?}``, a
    tuple ``(date, change[, system])`` or a MatchChange; InputError otherwise."""
    if isinstance(raw, MatchChange):
        raw = {"date": raw.date, "change": raw.change, "system": raw.system}
    elif isinstance(raw, (tuple, list)):
        if len(raw) not in (2, 3):
            raise InputError(f"{what}: {raw!r} is not (date, change) or (date, change, system)")
        raw = dict(zip(("date", "change", "system"), raw))
    if not isinstance(raw, Mapping):
        raise InputError(f"{what}: {raw!r} is not a mapping like {{date: 2024-05-01, change: 40.0}}")
    refuse_unknown(raw, HISTORY_KEYS, what)
    if raw.get("date") is None:
        raise InputError(f"{what}: missing 'date'")
    if "change" not in raw or raw["change"] is None:
        raise InputError(f"{what}: missing 'change'")
    change = raw["change"]
    if isinstance(change, bool) or not isinstance(change, (int, float)) or not math.isfinite(change):
        raise InputError(f"{what}: 'change' must be a finite number, not {change!r}")
    system = raw.get("system")
    if system is not None and system not in SYSTEMS:
        raise InputError(f"{what}: unknown rating system {system!r} (one of {', '.join(SYSTEMS)})")
    return MatchChange(parse_date(raw["date"], f"{what}: date"), float(change), system)


def parse_history(raw: Any, what: str = "match_history") -> list[MatchChange]:
    if raw is None:
        return []
    if isinstance(raw, (str, bytes, Mapping)) or not isinstance(raw, Iterable):
        raise InputError(f"{what} must be a list of {{date, change}} entries")
    return [parse_history_entry(e, f"{what} entry {i}") for i, e in enumerate(raw, start=1)]


def load_event(path: str | Path) -> Event:
    """Load an event file (``.yaml``, ``.yml`` or ``.json``)."""
    return event_from_dict(read_data(path), source=str(path), text_checked=True)


def _date(d):
    return d.isoformat() if d else None


def record_to_dict(rec: SystemRecord) -> dict:
    """A record as an event file writes it (what is unknown left out)."""
    return rec.as_dict(compact=True)


def player_to_dict(p: Player) -> dict:
    out: dict = {"pair": p.pair, "id": p.id, "name": p.name}
    if p.state:
        out["state"] = p.state
    if p.birth_date:
        out["birth_date"] = birth_date_text(p.birth_date)
    if p.adult is not None:
        out["adult"] = p.adult
    for key in ("fide", "cfc"):
        f = getattr(p, key)
        if f:
            out[key] = {"rating": f.rating, **({"date": _date(f.date)} if f.date else {}),
                        **({"canadian": True} if f.canadian else {})}
    if p.ratings:
        out["ratings"] = {s: record_to_dict(r) for s, r in p.ratings.items()}
    if p.initial:
        out["initial"] = {s: {"rating": r.rating, "games": r.games} for s, r in p.initial.items()}
    out["rounds"] = [str(r) for r in p.rounds]
    if p.match_history:
        out["match_history"] = [h.as_dict() for h in p.match_history]
    return out


def event_to_dict(event: Event) -> dict:
    """The event-file form of an event (inverse of :func:`event_from_dict`)."""
    head = {"name": event.name, "start": _date(event.start), "end": _date(event.end),
            "online": event.online}
    if event.id:
        head["id"] = event.id
    sections = []
    for s in event.sections:
        sec: dict = {"name": s.name, "time_control": s.time_control}
        if s.start != event.start:
            sec["start"] = _date(s.start)
        if s.end != event.end:
            sec["end"] = _date(s.end)
        if s.online != event.online:
            sec["online"] = s.online
        if s.half_k:
            sec["half_k"] = True
        if s.kind != "swiss":
            sec["type"] = s.kind
        if s.match_as_rated:
            sec["match_as_rated"] = True
        if s.systems:
            sec["systems"] = list(s.systems)
        sec["players"] = [player_to_dict(p) for p in s.players]
        sections.append(sec)
    out = {"event": head, "sections": sections}
    if event.published:
        out["published"] = [p.as_dict() for p in event.published]
    return out


def write_event(event: Event, path: str | Path) -> None:
    """Write an event file (YAML, or JSON for ``.json``) atomically."""
    path = Path(path)
    data = event_to_dict(event)
    if path.suffix.lower() == ".json":
        text = json.dumps(data, indent=2) + "\n"
    else:
        import yaml  # (only here: reading JSON needs none of PyYAML)

        text = yaml.safe_dump(data, sort_keys=False, allow_unicode=True)
    write_text_atomic(path, text)


def _reader() -> tuple:
    """The compiled kernel of the reader's players (``reader_kernel.pyx``,
    built with the formulas' kernel) and a word on it; None, and why, where
    the formulas' kernel does not run, where ``USCHESS_PURE=reader`` sets
    this one aside, or where :func:`uschess.formulas.load_kernel` finds it
    not built or older than its sources (this module, the model's classes
    it builds and the JSON reader whose integer check it gives among them)."""
    from uschess import formulas  # noqa: PLC0415 - the kernel imports this module's helpers

    here = Path(__file__).resolve()
    return formulas.companion_kernel("reader_kernel", "reader",
                                     [here, here.parent.parent / "model.py",
                                      here.with_name("textdata.py")])


#: The compiled kernel of a section's players (:func:`parse_section`,
#: :func:`validate_section`) where it is built and current (the same
#: events: ``tests/engine/test_reader_kernel.py``), else None: the reference reads.
#: Loaded last, once the helpers the kernel asks are defined.
READER, READER_STATUS = _reader()
if READER is not None:  # the JSON reader's check of an integer, compiled too
    use_json_int(READER.json_int)
