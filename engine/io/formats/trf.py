"""FIDE Tournament Report File (TRF-16 and TRF26), read and written.

Player records ``001`` have fixed columns (1-based): 5-8 starting rank, 10
sex, 11-13 title, 15-47 name, 49-52 FIDE rating, 54-56 federation, 58-68 FIDE
id, 70-79 birth date, 81-84 points, 86-89 rank, then one 10-column block per
round from column 92: opponent's starting rank (``0000`` or blank for none),
colour (``w``/``b``/``-``) and result.  Tags read: 012 name, 042/052 start and
end (``YYYY/MM/DD``; ``YYYY-MM-DD``, ``YYYY.MM.DD``, ``DD.MM.YYYY`` and
``DD/MM/YYYY`` accepted), 092 type, 122 time control, 132 round dates (only
when 042/052 are missing), 142 (or JaVaFo's XXR) number of rounds.  Other
tags, team and bye records are ignored; ``###`` lines are comments.

Results -> event model codes:

====================  =========================================
TRF                   model
====================  =========================================
``1`` ``=`` ``0``     W D L (rated games; need an opponent)
``+`` ``-``           X F (forfeit win, loss)
``W`` ``D`` ``L``     X Z F: a game of under one move is not
                      rated, so it is kept as an unrated result
``H``                 H (half-point bye)
``F`` ``U``           B (full-point bye; U is the pairing-allocated
                      bye, worth a win by TRF default)
``Z`` or blank        U (zero-point bye, absence)
====================  =========================================

``+ - W D L`` against ``0000`` are forfeits without an opponent.  A double
forfeit (both ``-`` against each other) becomes two forfeit losses without
an opponent.  When writing, X/F/Z with an opponent become ``+ - D``, B
becomes ``F``, U becomes ``Z``; without an opponent X/F/Z become ``+ - D``
against ``0000``.

TRF26 National Rating Support records (``USA`` in columns 1-3, same
columns as ``001``): the national number is the US Chess id and the origin
(54-56) the state.  Player.id is the US Chess id when present, else the FIDE
id, else ``trf-<starting rank>``.  The FIDE rating becomes ``Player.fide``
dated at the event's start.  National ratings, like any displayed rating
without a game count, are not rating records.

A TRF describes one tournament.  An event of several sections is written as
consecutive TRF blocks, one per section, each opening with its ``012`` tag;
a ``012`` after player records starts the next section.  What the model
holds and TRF does not is carried in comment lines that other programs
skip (project convention): ``### uschess section=<name>``,
``systems=OTBR,OTBQ``, ``online=yes|no``, ``half-k=yes`` per section and
``event=<name>`` (when not the 012 name), ``event-id=``, ``event-start=``,
``event-end=``, ``event-online=yes`` in the first block.  Without them the
section is named after its 012 tag.
Not carried: colours (written ``-`` unless given through ``details``), round
dates (132 is not written), rating records, CFC ratings, ``adult``, and the
date of a FIDE rating (read back as the event's start); a players file
(:mod:`uschess.io.formats.players`) restores them.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from uschess.errors import InputError
from uschess.io.eventfile import check_date, check_header_dates, event_from_dict, validate_section
from uschess.model import SYSTEMS, BirthYear, Event, Round
from uschess.io.files import atomic_write
from uschess.io.textdata import check_text, read_limited

#: Largest TRF read.
MAX_FILE_BYTES = 16 * 1024 * 1024
MAX_ROUNDS = 99
MAX_START = 9999
ROUND_COLUMN = 91  # 0-based column of round 1's block
BLOCK = 10
NAME_WIDTH = 33

_CODE = re.compile(r"^(?:[0-9]{3}|[A-Z]{3})$", re.ASCII)
_META = re.compile(r"^###\s*uschess\s+([a-z-]+)\s*=\s*(.*?)\s*$", re.ASCII | re.IGNORECASE)
_DIGITS = re.compile(r"^[0-9]+$", re.ASCII)
_RATING = re.compile(r"^[0-9]{1,4}$", re.ASCII)
_NATIONAL_ID = re.compile(r"^\S{1,11}$")
_GAME = {"1": "W", "=": "D", "0": "L", "+": "X", "-": "F", "W": "X", "D": "Z", "L": "F"}
_BYE = {"H": "H", "F": "B", "U": "B", "Z": "U", " ": "U"}
_WRITE_PAIRED = {"W": "1", "D": "=", "L": "0", "X": "+", "F": "-", "Z": "D"}
_WRITE_ALONE = {"X": "+", "F": "-", "Z": "D", "B": "F", "H": "H", "U": "Z"}
_KIND_WRITE = {"swiss": "Swiss System", "round-robin": "Round Robin", "match": "Match"}
_META_KEYS = {"section", "systems", "online", "half-k", "event", "event-id", "event-start",
              "event-end", "event-online"}


@dataclass
class TrfPlayerDetails:
    """What a 001 record holds beyond the event model (kept for writing)."""

    sex: str = ""
    title: str = ""
    federation: str = ""
    fide_id: str = ""
    colours: list = field(default_factory=list)


@dataclass
class _Block:
    line: int
    tags: dict = field(default_factory=dict)
    meta: dict = field(default_factory=dict)
    players: list = field(default_factory=list)  # (line number, dict, details)
    national: dict = field(default_factory=dict)  # start rank -> (line, id, state)


def looks_like_trf(text: str) -> bool:
    """Whether the first non-blank line opens a TRF (a 3-digit tag or a
    ``###`` comment followed by a space)."""
    for line in text.lstrip("\ufeff").splitlines():
        if line.strip():
            return bool(re.match(r"^(?:[0-9]{3}|###)(?: |$)", line))
    return False


def read_trf(path, *, details: Optional[dict] = None) -> Event:
    """Read a TRF file; see :func:`parse_trf`."""
    path = Path(path)
    return parse_trf(read_limited(path, MAX_FILE_BYTES, "TRF file"), source=str(path),
                     details=details)


def _decode(data) -> str:
    if isinstance(data, str):
        return data
    data = bytes(data)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return data.decode("cp1252", errors="replace")


def parse_trf(data, *, source=None, details: Optional[dict] = None) -> Event:
    """The Event of a TRF text (str, or bytes: UTF-8, else cp1252).

    If ``details`` is a dict it receives ``(section name, starting rank) ->``
    :class:`TrfPlayerDetails` for every player.
    """
    text = _decode(data)
    if len(text) > MAX_FILE_BYTES:
        raise InputError(f"TRF text is over {MAX_FILE_BYTES:,} characters: refused (no real "
                         "one comes near)", file=source)
    check_text(text.lstrip("\ufeff"), source)
    blocks: list[_Block] = []
    for number, line in enumerate(re.split(r"\r\n|\r|\n", text.lstrip("\ufeff")), start=1):
        where = dict(file=source, record=number)
        if not line.strip():
            continue
        if line.startswith("###"):
            m = _META.match(line)
            if m:
                key = m.group(1).lower()
                if key not in _META_KEYS:
                    raise InputError(f"unknown uschess comment key {key!r}", **where)
                block = _current(blocks, number)
                block.meta[key] = (number, m.group(2))
            continue
        code = line[:3]
        if not _CODE.match(code) or (len(line) > 3 and line[3] != " "):
            raise InputError(f"line does not start with a TRF record code and a space "
                             f"({line[:12]!r})", **where)
        if code == "012":
            if not blocks or "012" in blocks[-1].tags or blocks[-1].players:
                blocks.append(_Block(number))
        block = _current(blocks, number)
        if code == "001":
            block.players.append(_player(line, number, source))
        elif code == "USA":
            rank, ident, state = _national(line, number, source)
            if rank in block.national:
                raise InputError(f"second USA record for starting rank {rank}", **where)
            block.national[rank] = (number, ident, state)
        elif code[0].isdigit() and code.endswith("2"):
            block.tags.setdefault(code, (number, line[4:].rstrip()))
        elif code == "XXR":
            block.tags.setdefault("142", (number, line[4:].rstrip()))
    blocks = [b for b in blocks if b.players or b.tags]
    if not blocks or not any(b.players for b in blocks):
        raise InputError("no player records (001) found: not a TRF", file=source)
    return _assemble(blocks, source, details)


def _current(blocks: list[_Block], number: int) -> _Block:
    if not blocks:
        blocks.append(_Block(number))
    return blocks[-1]


def _int_field(line: str, lo: int, hi: int, number: int, source, what: str,
               *, low=None, high=None) -> Optional[int]:
    text = line[lo:hi].strip()
    if not text:
        return None
    if not _DIGITS.match(text):
        raise InputError(f"{what} {text!r} is not a number", file=source, record=number,
                         field=f"{what} (columns {lo + 1}-{hi})")
    value = int(text)
    if (low is not None and value < low) or (high is not None and value > high):
        raise InputError(f"{what} {value} is outside {low}..{high}", file=source, record=number,
                         field=f"{what} (columns {lo + 1}-{hi})")
    return value


def _player(line: str, number: int, source):
    where = dict(file=source, record=number)
    start = _int_field(line, 4, 8, number, source, "starting rank", low=1, high=MAX_START)
    if start is None:
        raise InputError("no starting rank (columns 5-8)", field="starting rank", **where)
    rating = _int_field(line, 48, 52, number, source, "FIDE rating", low=0, high=4000)
    fide_id = line[57:68].strip()
    if fide_id and not _DIGITS.match(fide_id):
        raise InputError(f"FIDE id {fide_id!r} is not a number", field="FIDE id (columns 58-68)",
                         **where)
    if fide_id and int(fide_id) == 0:
        fide_id = ""
    birth = _birth(line[69:79], number, source)
    info = TrfPlayerDetails(sex=line[9:10].strip(), title=line[10:13].strip(),
                            federation=line[53:56].strip(), fide_id=fide_id)
    rounds: list[Round] = []
    tail = line[ROUND_COLUMN:]
    if len(tail.rstrip()) > MAX_ROUNDS * BLOCK:
        raise InputError(f"more than {MAX_ROUNDS} rounds", **where)
    for i in range(0, len(tail.rstrip()), BLOCK):
        r = i // BLOCK + 1
        cell = tail[i:i + 8].ljust(8)
        col = f"round {r} (columns {ROUND_COLUMN + i + 1}-{ROUND_COLUMN + i + 8})"
        try:
            rnd, colour = _cell(cell)
        except InputError as err:
            raise err.located(field=col, round=r, **where)
        rounds.append(rnd)
        info.colours.append(colour)
    raw = {"pair": start, "name": line[14:47].strip(), "rounds": rounds}
    if rating:
        raw["fide"] = rating
    if birth:
        raw["birth_date"] = birth
    return number, raw, info


def _cell(cell: str) -> tuple[Round, Optional[str]]:
    opp_text, colour, result = cell[0:4].strip(), cell[5], cell[7].upper()
    if opp_text and not _DIGITS.match(opp_text):
        raise InputError(f"opponent {opp_text!r} is not a starting rank")
    opp = int(opp_text) if opp_text else 0
    if colour.lower() not in ("w", "b", "-", " "):
        raise InputError(f"colour {colour!r} is not w, b or -")
    colour = colour.upper() if colour.lower() in ("w", "b") else None
    if opp:
        if result in _GAME:
            return Round(_GAME[result], opp), colour
        if result == " ":
            raise InputError(f"the game against {opp} has no result")
        if result in _BYE:
            raise InputError(f"result {result!r} is a bye but an opponent ({opp}) is given")
    else:
        if result in _BYE:
            return Round(_BYE[result]), colour
        if result in "+-WDL":
            return Round(_GAME[result]), colour
        if result in "1=0":
            raise InputError(f"result {result!r} is a game but no opponent is given")
    raise InputError(f"unknown result code {result!r}")


def _birth(text: str, number: int, source) -> Optional[_dt.date]:
    text = text.strip()
    if not text:
        return None
    m = re.fullmatch(r"([0-9]{4})(?:[/.-]([0-9]{2})[/.-]([0-9]{2}))?", text)
    if not m:
        raise InputError(f"birth date {text!r} is not YYYY/MM/DD", file=source, record=number,
                         field="birth date (columns 70-79)")
    if int(m.group(1)) == 0:
        return None  # no year: nothing known
    if not m.group(2) or m.group(2) == "00" or m.group(3) == "00":
        # the year only: kept as a year (the age known to within a year),
        # named in the member data report's warning
        try:
            return check_date(BirthYear(int(m.group(1))), "birth date")
        except InputError as err:
            raise InputError(str(err), file=source, record=number,
                             field="birth date (columns 70-79)") from None
    try:
        return _dt.date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
    except ValueError:
        raise InputError(f"birth date {text!r} is not a calendar date", file=source,
                         record=number, field="birth date (columns 70-79)")


def _national(line: str, number: int, source):
    rank = _int_field(line, 4, 8, number, source, "starting rank", low=1, high=MAX_START)
    if rank is None:
        raise InputError("no starting rank (columns 5-8)", file=source, record=number,
                         field="starting rank")
    _int_field(line, 48, 52, number, source, "national rating", low=0, high=4000)
    return rank, line[57:68].strip(), line[53:56].strip()


def _parse_day(text: str) -> _dt.date:
    text = text.strip()
    for pattern, order in ((r"([0-9]{4})[/.-]([0-9]{1,2})[/.-]([0-9]{1,2})", (1, 2, 3)),
                           (r"([0-9]{1,2})[/.]([0-9]{1,2})[/.]([0-9]{4})", (3, 2, 1)),
                           (r"([0-9]{2})/([0-9]{2})/([0-9]{2})", (1, 2, 3))):
        m = re.fullmatch(pattern, text)
        if m:
            y, mo, d = (int(m.group(i)) for i in order)
            if y < 100:
                y += 1900 if y >= 70 else 2000
            return _dt.date(y, mo, d)
    raise ValueError(text)


def _tag_date(block: _Block, tag: str, source) -> Optional[_dt.date]:
    if tag not in block.tags:
        return None
    number, text = block.tags[tag]
    if not text.strip():
        return None
    try:
        return _parse_day(text)
    except ValueError:
        raise InputError(f"tag {tag}: {text.strip()!r} is not a date (YYYY/MM/DD)", file=source,
                         record=number, field=tag)


def _round_dates(block: _Block, source) -> list[_dt.date]:
    if "132" not in block.tags:
        return []
    number, text = block.tags["132"]
    line = "132 " + text
    out = []
    for i in range(ROUND_COLUMN, len(line), BLOCK):
        chunk = line[i:i + 8].strip()
        if chunk:
            try:
                out.append(_parse_day(chunk))
            except ValueError:
                raise InputError(f"round date {chunk!r} is not YY/MM/DD", file=source,
                                 record=number, field="132")
    return out


def _meta_flag(block: _Block, key: str, source) -> Optional[bool]:
    if key not in block.meta:
        return None
    number, value = block.meta[key]
    if value.lower() in ("yes", "true", "y"):
        return True
    if value.lower() in ("no", "false", "n"):
        return False
    raise InputError(f"{key}={value!r} is not yes or no", file=source, record=number, field=key)


def _meta_date(block: _Block, key: str, source) -> Optional[_dt.date]:
    if key not in block.meta:
        return None
    number, value = block.meta[key]
    try:
        return _parse_day(value)
    except ValueError:
        raise InputError(f"{key}={value!r} is not a date", file=source, record=number, field=key)


def _assemble(blocks: list[_Block], source, details) -> Event:
    first = blocks[0]
    ev_online = bool(_meta_flag(first, "event-online", source))
    sections = []
    names: set[str] = set()
    for block in blocks:
        if not block.players:
            raise InputError("a tournament block has no player records (001)", file=source,
                             record=block.line)
        dates = None
        start = _tag_date(block, "042", source)
        end = _tag_date(block, "052", source)
        if start is None or end is None:
            dates = _round_dates(block, source)
            start = start or (min(dates) if dates else None)
            end = end or (max(dates) if dates else start)
        if start is None:
            raise InputError("no start date (tag 042)", file=source, record=block.line,
                             field="042")
        title = block.tags.get("012", (0, ""))[1].strip()
        name = block.meta["section"][1] if "section" in block.meta else (title or "Section")
        base, n = name, 2
        while name in names:
            name, n = f"{base} ({n})", n + 1
        names.add(name)
        kind_text = block.tags.get("092", (0, ""))[1].lower()
        kind = ("round-robin" if "robin" in kind_text
                else "match" if "match" in kind_text else "swiss")
        systems = None
        if "systems" in block.meta:
            number, value = block.meta["systems"]
            systems = [s.strip() for s in value.split(",") if s.strip()]
            if not systems or not all(s in SYSTEMS for s in systems):
                raise InputError(f"systems={value!r} is not a list of {', '.join(SYSTEMS)}",
                                 file=source, record=number, field="systems")
        online = _meta_flag(block, "online", source)
        declared = None
        if "142" in block.tags:
            number, value = block.tags["142"]
            digits = value.strip()
            if digits:  # counted before converted: Python will not convert past 4,300 digits
                if (not _DIGITS.match(digits) or len(digits.lstrip("0")) > len(str(MAX_ROUNDS))
                        or int(digits) > MAX_ROUNDS):
                    raise InputError(f"number of rounds {digits!r} is not 0..{MAX_ROUNDS}",
                                     file=source, record=number, field="142")
                declared = int(digits)
        count = max([declared or 0] + [len(p[1]["rounds"]) for p in block.players])
        players = []
        line_of = {}
        for number, raw, info in block.players:
            raw = dict(raw)
            rounds = raw["rounds"] + [Round("U")] * (count - len(raw["rounds"]))
            info.colours += [None] * (count - len(info.colours))
            nat = block.national.get(raw["pair"])
            us_id, state = (nat[1], nat[2]) if nat else ("", "")
            raw["id"] = us_id or info.fide_id or f"trf-{raw['pair']}"
            if state:
                raw["state"] = state
            raw["rounds"] = rounds
            line_of[raw["pair"]] = number
            players.append(raw)
            if details is not None:
                details[(name, raw["pair"])] = info
        for rank, (number, _, _) in block.national.items():
            if rank not in line_of:
                raise InputError(f"USA record for starting rank {rank}, which has no 001 record",
                                 file=source, record=number)
        _double_forfeits(players)
        sections.append({"name": name, "start": start, "end": end or start, "kind": kind,
                         "systems": systems, "online": online, "players": players,
                         "half_k": bool(_meta_flag(block, "half-k", source)),
                         "time_control": block.tags.get("122", (0, ""))[1].strip(),
                         "line": block.line})
    ev_start = _meta_date(first, "event-start", source) or min(s["start"] for s in sections)
    ev_end = _meta_date(first, "event-end", source) or max(s["end"] for s in sections)
    raw_sections = []
    for s in sections:
        if not s["time_control"]:
            raise InputError("no time control (tag 122)", file=source, record=s["line"],
                             section=s["name"], field="122")
        out = {"name": s["name"], "time_control": s["time_control"], "start": s["start"],
               "end": s["end"], "type": s["kind"], "half_k": s["half_k"],
               "online": ev_online if s["online"] is None else s["online"]}
        if s["systems"]:
            out["systems"] = s["systems"]
        players = []
        for raw in s["players"]:
            raw = dict(raw)
            if "fide" in raw:
                raw["fide"] = {"rating": raw["fide"], "date": ev_start}
            raw["rounds"] = [str(r) for r in raw["rounds"]]
            players.append(raw)
        out["players"] = players
        raw_sections.append(out)
    head = {"name": (first.meta["event"][1] if "event" in first.meta
                     else first.tags.get("012", (0, ""))[1].strip()) or "(unnamed event)",
            "start": ev_start, "end": ev_end, "online": ev_online}
    if "event-id" in first.meta and first.meta["event-id"][1]:
        head["id"] = first.meta["event-id"][1]
    event = event_from_dict({"event": head, "sections": raw_sections}, source=source)
    return check_header_dates(event, "event-start/event-end: the event's", file=source)


def _double_forfeits(players: list[dict]) -> None:
    by_pair = {p["pair"]: p for p in players}
    for p in players:
        for i, rnd in enumerate(p["rounds"]):
            if rnd.code == "F" and rnd.opponent is not None:
                opp = by_pair.get(rnd.opponent)
                if opp and i < len(opp["rounds"]):
                    back = opp["rounds"][i]
                    if back.code == "F" and back.opponent == p["pair"]:
                        p["rounds"][i] = Round("F")
                        opp["rounds"][i] = Round("F")


# --------------------------------------------------------------------------
# Writing

def write_trf(event: Event, *, details: Optional[dict] = None) -> str:
    """The TRF text of ``event`` (lines ended by ``\\n``), one block per
    section.  ``details`` (as filled by :func:`parse_trf`) supplies sex,
    title, federation, FIDE id and colours; without it colours are ``-``.
    What cannot be written is an InputError naming the event's file."""
    try:
        return _write_trf(event, details)
    except InputError as err:
        raise err.located(file=event.source)


def _write_trf(event: Event, details: Optional[dict]) -> str:
    details = details or {}
    lines: list[str] = []
    starts = [s.start for s in event.sections]
    ends = [s.end for s in event.sections]
    for index, s in enumerate(event.sections):
        validate_section(s)
        where = dict(section=s.name)
        if s.kind not in _KIND_WRITE:
            raise InputError(f"section type {s.kind!r} has no TRF equivalent", **where)
        rounds = max((len(p.rounds) for p in s.players), default=0)
        if rounds > MAX_ROUNDS:
            raise InputError(f"{rounds} rounds is more than a TRF line holds", **where)
        lines.append(f"012 {event.name}")
        lines.append(f"042 {s.start:%Y/%m/%d}")
        lines.append(f"052 {s.end:%Y/%m/%d}")
        lines.append(f"062 {len(s.players)}")
        lines.append(f"092 {_KIND_WRITE[s.kind]}")
        lines.append(f"122 {s.time_control}")
        lines.append(f"142 {rounds}")
        body, national = [], []
        for value, what in ((s.name, "section name"), (s.time_control, "time control")):
            if not value or value != value.strip():
                raise InputError(f"{what} {value!r} is blank or has surrounding blanks", **where)
        for p in s.players:
            info = details.get((s.name, p.pair)) or TrfPlayerDetails()
            rank = 1 + sum(1 for q in s.players if q.total > p.total)
            body.append(_player_line(p, info, rank, s.name))
            nat = _national_line(p, info, s)
            if nat:
                national.append(nat)
        if national:
            lines.append("172 USA OTHER")
        lines.append(f"### uschess section={s.name}")
        if s.systems:
            lines.append(f"### uschess systems={','.join(s.systems)}")
        if s.online != event.online:
            lines.append(f"### uschess online={'yes' if s.online else 'no'}")
        if s.half_k:
            lines.append("### uschess half-k=yes")
        if index == 0:
            if event.name != event.name.strip() or (event.id or "") != (event.id or "").strip():
                raise InputError("event name or id has surrounding blanks")
            if event.id:
                lines.append(f"### uschess event-id={event.id}")
            if event.start != min(starts):
                lines.append(f"### uschess event-start={event.start:%Y/%m/%d}")
            if event.end != max(ends):
                lines.append(f"### uschess event-end={event.end:%Y/%m/%d}")
            if event.online:
                lines.append("### uschess event-online=yes")
        lines.extend(body)
        lines.extend(national)
    for text in lines:
        if "\n" in text or "\r" in text:
            raise InputError(f"line break inside a value: {text[:40]!r}")
    return "\n".join(lines) + "\n"


def _player_line(p, info: TrfPlayerDetails, rank: int, section: str) -> str:
    where = dict(section=section, player=p.label)
    if not 1 <= p.pair <= MAX_START:
        raise InputError(f"pair {p.pair} does not fit TRF's starting rank 1..{MAX_START}", **where)
    if len(p.name) > NAME_WIDTH or p.name != p.name.strip():
        raise InputError(f"name {p.name!r} does not fit TRF's {NAME_WIDTH} columns", **where)
    rating = ""
    if p.fide and p.fide.rating:
        if p.fide.rating > 9999:
            raise InputError(f"FIDE rating {p.fide.rating} does not fit 4 columns", **where)
        rating = str(int(round(p.fide.rating)))
    birth = ("" if not p.birth_date or p.birth_date.year < 1000
             else f"{p.birth_date.year}/00/00" if isinstance(p.birth_date, BirthYear)
             else p.birth_date.strftime("%Y/%m/%d"))
    fide_id = info.fide_id if _DIGITS.match(info.fide_id or "") and len(info.fide_id) <= 11 else ""
    head = (f"001 {p.pair:>4} {(info.sex or ' ')[:1]}{(info.title or '')[:3]:>3} "
            f"{p.name:<{NAME_WIDTH}} {rating:>4} {(info.federation or '')[:3]:<3} "
            f"{fide_id:>11} {birth:>10} {p.total:>4.1f} {rank:>4}")
    head = head.ljust(ROUND_COLUMN)
    blocks = []
    for i, rnd in enumerate(p.rounds):
        colour = info.colours[i] if i < len(info.colours) else None
        col = colour.lower() if colour in ("W", "B") else "-"
        if rnd.opponent is not None:
            if rnd.opponent > MAX_START:
                raise InputError(f"opponent {rnd.opponent} does not fit 4 columns", **where)
            blocks.append(f"{rnd.opponent:>4} {col} {_WRITE_PAIRED[rnd.code]}")
        else:
            blocks.append(f"0000 {col} {_WRITE_ALONE[rnd.code]}")
    return (head + "".join(b.ljust(BLOCK) for b in blocks)).rstrip()


def _national_line(p, info: TrfPlayerDetails, s) -> Optional[str]:
    ident = "" if p.id in (f"trf-{p.pair}", info.fide_id) else p.id
    state = p.state or ""
    if not ident and not state:
        return None
    where = dict(section=s.name, player=p.label)
    if ident and not _NATIONAL_ID.match(ident):
        raise InputError(f"id {ident!r} does not fit the 11-column national number", **where)
    if len(state) > 3 or state != state.strip():
        raise InputError(f"state {state!r} does not fit the 3-column national origin", **where)
    primary = (s.systems or (["OLR"] if s.online else ["OTBR"]))[0]
    shown = p.ratings.get(primary)
    rating = str(int(round(shown.rating))) if shown else ""
    return (f"USA {p.pair:>4} {'':1}{'':>3} {'':<{NAME_WIDTH}} {rating:>4} {state:<3} "
            f"{ident:>11}").rstrip()


def write_trf_file(event: Event, path, *, details: Optional[dict] = None) -> None:
    """Write :func:`write_trf` text atomically, UTF-8, lines ended by CR LF."""
    text = write_trf(event, details=details).replace("\n", "\r\n")
    atomic_write({Path(path): text.encode("utf-8")})
