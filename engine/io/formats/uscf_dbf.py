"""The US Chess rating report: three dBase III files, read and written.

Pairing programs (SwissSys, WinTD, Swiss-Manager) report an event as

* ``THEXPORT.DBF``: the event (H_EVENT_ID, H_NAME, H_TOT_SECT, H_BEG_DATE,
  H_END_DATE, H_AFF_ID, H_CITY, H_STATE, H_ZIPCODE, H_COUNTRY, H_SENDCROS,
  H_CTD_ID, H_ATD_ID, H_OTHER_TD and, in the current layout, H_FORMAT "2C");
* ``TSEXPORT.DBF``: one record per section (S_EVENT_ID, S_SEC_NUM, S_SEC_NAME,
  S_R_SYSTEM, S_TIMECTL, S_CTD_ID, S_ATD_ID, S_TRN_TYPE, S_TOT_RNDS,
  S_LST_PAIR, S_BEG_DATE, S_END_DATE, S_SCH_LVL, S_GR_PRIX, S_GP_PTS, S_FIDE);
* ``TDEXPORT.DBF``: one record per player (D_EVENT_ID, D_SEC_NUM, D_PAIR_NUM,
  D_MEM_ID, D_NAME, D_STATE, D_RATING, D_RND01..D_RNDnn).

File names are matched case-insensitively; a common prefix (``CLUBTHEXPORT.DBF``
...) is accepted when exactly one complete set is present.

Reading, field by field:

* Every field may be C (text, numbers left- or right-justified) or N; dates
  may be ``YYYYMMDD`` text or D fields (``YYYY-MM-DD`` and ``MM/DD/YYYY`` text
  are accepted too).
* S_R_SYSTEM: R -> OTBR, Q -> OTBQ, D -> OTBR + OTBQ, B -> OTBB.  Project
  extension (no US Chess code is known for online sections): the system
  names themselves, one or several joined by ``+`` (``OLR``, ``OTBQ+OTBB``).
  Blank leaves ``Section.systems`` None (classified by time control).
  Anything else is refused.
* S_TRN_TYPE: S (or blank) Swiss, R round robin, 2 double Swiss (read as a
  Swiss of single games, which is how pairing programs export it), and the
  project extension M for a match.
* Round cells, compact (``W12B``, ``B0``) or padded (``W   12B``, ``W    12``,
  ``W  12``): a code, an optional opponent pair (0 = none) and an optional
  colour W/B (kept only in the ``colours`` output of :func:`parse_uscf_dbf`).
  W L D are games; X F Z forfeit win, loss, draw; B H U full bye, half bye,
  unplayed.  A blank cell is unplayed (U).  The double-game codes ``$``,
  ``#`` and ``%`` put two games in one round cell, which the event model
  (one game per cell) cannot hold: such a cell is refused with an
  InputError naming it.  Cells past a section's S_TOT_RNDS must be blank or
  unplayed (``U0``); without S_TOT_RNDS the round count is the last column
  any player of the section used.
* D_RATING is only a displayed rating (no game count): it is not a rating
  record; it is handed out (``shown``) only to name players who lack one.
  Member data comes from a players file (:mod:`uschess.io.formats.players`).
  A blank D_MEM_ID becomes the id ``dbf-<section>-<pair>``.
* The older layout (no H_FORMAT, 9-character event ids, cells like
  ``W  12``) is recognised by its fields: S_K_FACTOR (F full, H half ->
  ``Section.half_k``, Q quick: full K, and OTBQ when S_R_SYSTEM is blank)
  and D_REC_SEQ, whose records 2, 3, ... continue a player's rounds
  (with ten round columns, record 2 holds rounds 11-20).
* Project extension fields, written only when needed: H_ONLINE / S_ONLINE
  (Y/N) for online events and S_K_FACTOR for half-K sections in a 2C report.

Every problem raises :class:`~uschess.errors.InputError` naming the file,
record and field (and section, player, round where known).
"""

from __future__ import annotations

import datetime as _dt
import re
from pathlib import Path
from typing import Mapping, Optional

from uschess.errors import InputError
from uschess.io.eventfile import check_header_dates, event_from_dict, validate_section
from uschess.model import BYE_CODES, FORFEIT_CODES, GAME_CODES, SYSTEMS, Event, Round
from uschess.io.files import atomic_write
from uschess.io.formats.dbase import (MAX_FILE_BYTES, DbfField, DbfRecord, build_dbf,
                    parse_dbf)
from uschess.io.textdata import read_limited

#: The three files of a report, by role.
FILE_NAMES = {"header": "THEXPORT.DBF", "sections": "TSEXPORT.DBF", "details": "TDEXPORT.DBF"}
#: S_R_SYSTEM codes of US Chess.
SYSTEM_CODES = {"R": ["OTBR"], "Q": ["OTBQ"], "D": ["OTBR", "OTBQ"], "B": ["OTBB"]}
#: S_TRN_TYPE codes (M is a project extension).
KIND_CODES = {"S": "swiss", "": "swiss", "2": "swiss", "R": "round-robin", "M": "match"}
KIND_WRITE = {"swiss": "S", "round-robin": "R", "match": "M"}
#: Double-game codes (two games in one cell); see the module docstring.
DOUBLE_CODES = "$#%"
MAX_ROUNDS = 99
MAX_PAIR = 99999

_CELL = re.compile(r"^([A-Z$#%])\s*([0-9]{1,6})?\s*([WB])?$", re.ASCII)
_RND = re.compile(r"^D_RND([0-9]{2})$", re.ASCII)
_INT = re.compile(r"^[+-]?[0-9]{1,9}(?:\.0*)?$", re.ASCII)

# (name, type, width) of the 2C layout as written here.  C widths grow to fit
# longer values.
HEADER_FIELDS = [
    ("H_EVENT_ID", "C", 12), ("H_NAME", "C", 35), ("H_FORMAT", "C", 2),
    ("H_TOT_SECT", "C", 2), ("H_BEG_DATE", "D", 8), ("H_END_DATE", "D", 8),
    ("H_AFF_ID", "C", 8), ("H_CITY", "C", 21), ("H_STATE", "C", 2),
    ("H_ZIPCODE", "C", 10), ("H_COUNTRY", "C", 21), ("H_SENDCROS", "C", 1),
    ("H_CTD_ID", "C", 8), ("H_ATD_ID", "C", 8), ("H_OTHER_TD", "C", 40),
]
SECTION_FIELDS = [
    ("S_EVENT_ID", "C", 12), ("S_SEC_NUM", "C", 2), ("S_SEC_NAME", "C", 30),
    ("S_R_SYSTEM", "C", 1), ("S_TIMECTL", "C", 40), ("S_CTD_ID", "C", 8),
    ("S_ATD_ID", "C", 8), ("S_TRN_TYPE", "C", 1), ("S_TOT_RNDS", "C", 2),
    ("S_LST_PAIR", "C", 4), ("S_BEG_DATE", "D", 8), ("S_END_DATE", "D", 8),
    ("S_SCH_LVL", "C", 1), ("S_GR_PRIX", "C", 1), ("S_GP_PTS", "C", 3),
    ("S_FIDE", "C", 1),
]
DETAIL_FIELDS = [
    ("D_EVENT_ID", "C", 12), ("D_SEC_NUM", "C", 2), ("D_PAIR_NUM", "C", 4),
    ("D_MEM_ID", "C", 8), ("D_NAME", "C", 30), ("D_STATE", "C", 2), ("D_RATING", "C", 4),
]
#: Header fields a caller may fill through ``header=`` when writing.
WRITABLE_HEADER = ("H_AFF_ID", "H_CITY", "H_STATE", "H_ZIPCODE", "H_COUNTRY", "H_SENDCROS",
                   "H_CTD_ID", "H_ATD_ID", "H_OTHER_TD")
CELL_WIDTH = 7


# --------------------------------------------------------------------------
# Locating and reading the files

def find_report_files(directory) -> dict[str, Path]:
    """The three report files in ``directory`` by role (header, sections,
    details), matched case-insensitively, with an optional common prefix."""
    directory = Path(directory)
    try:
        entries = [p for p in directory.iterdir() if p.is_file()]
    except FileNotFoundError:
        raise InputError("no such directory", file=directory)
    except OSError as err:
        raise InputError(f"cannot list the directory: {err.strerror or err}", file=directory)
    sets: dict[str, dict[str, list[Path]]] = {}
    for p in entries:
        upper = p.name.upper()
        for role, name in FILE_NAMES.items():
            if upper.endswith(name):
                sets.setdefault(upper[:-len(name)], {}).setdefault(role, []).append(p)
    complete = {prefix: roles for prefix, roles in sets.items() if len(roles) == 3}
    if not complete:
        missing = [n for r, n in FILE_NAMES.items() if r not in sets.get("", {})]
        raise InputError(f"not a rating report: missing {', '.join(missing)}", file=directory)
    if "" in complete:
        prefix = ""
    elif len(complete) == 1:
        prefix = next(iter(complete))
    else:
        raise InputError("holds several rating reports (prefixes "
                         f"{', '.join(sorted(complete))}); give a directory with one",
                         file=directory)
    out = {}
    for role, paths in complete[prefix].items():
        if len(paths) > 1:
            raise InputError(f"{FILE_NAMES[role]} is present in several spellings: "
                             f"{', '.join(sorted(p.name for p in paths))}", file=directory)
        out[role] = paths[0]
    return out


def read_uscf_dbf(directory, *, event_id: Optional[str] = None,
                  colours: Optional[dict] = None, shown: Optional[dict] = None) -> Event:
    """Read the rating report in ``directory``; see :func:`parse_uscf_dbf`."""
    directory = Path(directory)
    paths = find_report_files(directory)
    blobs = {role: read_limited(p, MAX_FILE_BYTES, "DBF file") for role, p in paths.items()}
    return parse_uscf_dbf(blobs["header"], blobs["sections"], blobs["details"],
                          source=str(directory), names={r: str(p) for r, p in paths.items()},
                          event_id=event_id, colours=colours, shown=shown)


def parse_uscf_dbf(header: bytes, sections: bytes, details: bytes, *, source=None,
                   names: Optional[Mapping[str, str]] = None, event_id: Optional[str] = None,
                   colours: Optional[dict] = None, shown: Optional[dict] = None) -> Event:
    """The Event of a rating report given the bytes of its three files.

    ``names`` gives each file's name for error messages (roles ``header``,
    ``sections``, ``details``).  When THEXPORT holds several events,
    ``event_id`` picks one.  If ``colours`` is a dict it receives, for every
    player, ``(section name, pair) -> [colour or None per round]``; if
    ``shown`` is a dict it receives ``(section name, pair) -> D_RATING`` for
    every player whose D_RATING is not blank (a displayed rating, used only to
    name players without member data, :mod:`uschess.io.formats.member_data`).
    """
    names = dict(names or {})
    for role, name in FILE_NAMES.items():
        names.setdefault(role, f"{source}/{name}" if source else name)
    h_table = parse_dbf(header, source=names["header"], raw=True)
    s_table = parse_dbf(sections, source=names["sections"], raw=True)
    d_table = parse_dbf(details, source=names["details"], raw=True)
    for table, required in ((h_table, ("H_EVENT_ID", "H_BEG_DATE")),
                            (s_table, ("S_SEC_NUM", "S_TIMECTL")),
                            (d_table, ("D_SEC_NUM", "D_PAIR_NUM", "D_NAME"))):
        for name in required:
            if table.field(name) is None:
                raise InputError(f"field {name} is missing", file=table.source, field=name)
    head = _pick_header(h_table, event_id)
    fmt = _text(head, "H_FORMAT").upper()
    if fmt not in ("", "2C"):
        raise InputError(f"H_FORMAT {fmt!r} is not a layout this reader knows (2C, or the "
                         "older layout without H_FORMAT)", file=h_table.source,
                         record=head.number, field="H_FORMAT")
    hw = _Where(h_table.source, head)
    ev_id = _text(head, "H_EVENT_ID")
    start = hw.date("H_BEG_DATE", required=True)
    end = hw.date("H_END_DATE") or start
    online = hw.flag("H_ONLINE") or False

    strict = len(h_table.records) == 1
    secs = _read_sections(s_table, ev_id, online, strict)
    if not secs:
        raise InputError(f"no sections for event {ev_id or '(blank id)'}", file=s_table.source)
    total = hw.int("H_TOT_SECT", lo=0, hi=999)
    if total and total != len(secs):
        raise InputError(f"H_TOT_SECT says {total} sections but TSEXPORT has {len(secs)}",
                         file=h_table.source, record=head.number, field="H_TOT_SECT")
    _read_players(d_table, ev_id, secs, colours, strict, shown)

    raw_sections = []
    for sec in secs.values():
        if not sec["players"]:
            raise InputError("section has no players in TDEXPORT", file=s_table.source,
                             record=sec["record"], section=sec["name"])
        out = {"name": sec["name"], "time_control": sec["time_control"],
               "players": sec["players"], "online": sec["online"], "half_k": sec["half_k"],
               "type": sec["kind"]}
        for key in ("start", "end", "systems"):
            if sec[key] is not None:
                out[key] = sec[key]
        raw_sections.append(out)
    raw = {"event": {"name": _text(head, "H_NAME") or "(unnamed event)", "start": start,
                     "end": end, "online": online, **({"id": ev_id} if ev_id else {})},
           "sections": raw_sections}
    event = event_from_dict(raw, source=str(source) if source is not None else names["header"])
    return check_header_dates(event, "H_BEG_DATE/H_END_DATE: the event's", file=h_table.source,
                              record=head.number)


def _pick_header(table, event_id) -> DbfRecord:
    records = table.records
    if not records:
        raise InputError("THEXPORT holds no event record", file=table.source)
    if event_id is not None:
        for rec in records:
            if _text(rec, "H_EVENT_ID") == str(event_id).strip():
                return rec
        raise InputError(f"no event {event_id!r} in THEXPORT", file=table.source,
                         field="H_EVENT_ID")
    if len(records) > 1:
        ids = ", ".join(_text(r, "H_EVENT_ID") or "(blank)" for r in records)
        raise InputError(f"THEXPORT holds {len(records)} events ({ids}); choose one with "
                         "event_id", file=table.source, field="H_EVENT_ID")
    return records[0]


def _belongs(rec, field: str, ev_id: str, strict: bool, source) -> bool:
    """Whether a record belongs to the chosen event (a blank id always does).
    With ``strict`` (THEXPORT holds one event) another id is an error."""
    value = _text(rec, field)
    if not value or not ev_id or value == ev_id:
        return True
    if strict:
        raise InputError(f"event id {value!r} does not match H_EVENT_ID {ev_id!r}",
                         file=source, record=rec.number, field=field)
    return False


def _read_sections(table, ev_id: str, online: bool, strict: bool) -> dict[int, dict]:
    secs: dict[int, dict] = {}
    for rec in table.records:
        if not _belongs(rec, "S_EVENT_ID", ev_id, strict, table.source):
            continue
        w = _Where(table.source, rec)
        num = w.int("S_SEC_NUM", required=True, lo=1, hi=999)
        if num in secs:
            raise w.error(f"section number {num} is listed twice", "S_SEC_NUM")
        name = _text(rec, "S_SEC_NAME") or f"Section {num}"
        k_factor = _text(rec, "S_K_FACTOR").upper()
        if k_factor not in ("", "F", "H", "Q"):
            raise w.error(f"S_K_FACTOR {k_factor!r} is not F (full), H (half) or Q (quick)",
                          "S_K_FACTOR", section=name)
        systems = _systems(_text(rec, "S_R_SYSTEM"), w, name)
        if systems is None and k_factor == "Q":
            systems = ["OTBQ"]
        sec_online = w.flag("S_ONLINE")
        if sec_online is None:
            sec_online = bool(systems) and all(s.startswith("OL") for s in systems) or online
        kind_code = _text(rec, "S_TRN_TYPE").upper()
        if kind_code not in KIND_CODES:
            raise w.error(f"S_TRN_TYPE {kind_code!r} is not S (Swiss), R (round robin) or "
                          "2 (double Swiss)", "S_TRN_TYPE", section=name)
        secs[num] = {
            "record": rec.number, "name": name, "num": num,
            "time_control": _text(rec, "S_TIMECTL"),
            "rounds": w.int("S_TOT_RNDS", lo=0, hi=MAX_ROUNDS),
            "start": w.date("S_BEG_DATE"), "end": w.date("S_END_DATE"),
            "systems": systems, "online": sec_online, "half_k": k_factor == "H",
            "kind": KIND_CODES[kind_code], "players": [], "cells": [],
        }
    return secs


def _systems(code: str, w: "_Where", section: str) -> Optional[list[str]]:
    code = code.strip().upper()
    if not code:
        return None
    if code in SYSTEM_CODES:
        return list(SYSTEM_CODES[code])
    parts = [p.strip() for p in re.split(r"[+,]", code)]
    if all(p in SYSTEMS for p in parts) and len(set(parts)) == len(parts):
        return parts
    raise w.error(f"S_R_SYSTEM {code!r} is not R, Q, D, B or a list of systems "
                  f"({', '.join(SYSTEMS)})", "S_R_SYSTEM", section=section)


def _round_columns(table) -> list[str]:
    cols = []
    for f in table.fields:
        m = _RND.match(f.name)
        if m:
            cols.append((int(m.group(1)), f.name))
    cols.sort()
    for i, (n, name) in enumerate(cols, start=1):
        if n != i:
            raise InputError(f"round columns are not D_RND01..D_RND{len(cols):02d} in sequence "
                             f"({name} found where D_RND{i:02d} was expected)",
                             file=table.source, field=name)
    return [name for _, name in cols]


def _read_players(table, ev_id: str, secs: dict[int, dict], colours, strict: bool,
                  shown: Optional[dict] = None) -> None:
    columns = _round_columns(table)
    has_seq = table.field("D_REC_SEQ") is not None
    # (section number, pair) -> {seq: record}, in order of first appearance
    grouped: dict[tuple[int, int], dict[int, DbfRecord]] = {}
    for rec in table.records:
        if not _belongs(rec, "D_EVENT_ID", ev_id, strict, table.source):
            continue
        w = _Where(table.source, rec)
        num = w.int("D_SEC_NUM", required=True, lo=1, hi=999)
        if num not in secs:
            raise w.error(f"section {num} is not in TSEXPORT", "D_SEC_NUM")
        pair = w.int("D_PAIR_NUM", required=True, lo=1, hi=MAX_PAIR)
        seq = (w.int("D_REC_SEQ", lo=1, hi=MAX_ROUNDS) or 1) if has_seq else 1
        key = (num, pair)
        parts = grouped.setdefault(key, {})
        if seq in parts:
            what = f"record {seq} of pair {pair}" if has_seq else f"pair {pair}"
            raise w.error(f"{what} is listed twice in section {secs[num]['name']!r}",
                          "D_REC_SEQ" if has_seq else "D_PAIR_NUM", section=secs[num]["name"])
        parts[seq] = rec
    for key in grouped:
        num, pair = key
        sec = secs[num]
        parts = grouped[key]
        if sorted(parts) != list(range(1, len(parts) + 1)):
            rec = next(iter(parts.values()))
            raise InputError(f"continuation records {sorted(parts)} of pair {pair} are not "
                             "1, 2, ... in sequence", file=table.source, record=rec.number,
                             field="D_REC_SEQ", section=sec["name"])
        first = parts[1]
        cells = []
        for seq in range(1, len(parts) + 1):
            rec = parts[seq]
            cells.extend((rec, col, _text(rec, col)) for col in columns)
        name = _text(first, "D_NAME")
        player = {"pair": pair, "id": _text(first, "D_MEM_ID") or f"dbf-{num}-{pair}",
                  "name": name}
        state = _text(first, "D_STATE")
        if state:
            player["state"] = state
        sec["players"].append(player)
        sec["cells"].append((player, cells))
        if shown is not None and _text(first, "D_RATING"):
            shown[(sec["name"], pair)] = _text(first, "D_RATING")
    for sec in secs.values():
        _fill_rounds(sec, table.source, colours)


def _fill_rounds(sec: dict, source, colours) -> None:
    parsed = []
    for player, cells in sec["cells"]:
        rounds = []
        for i, (rec, col, text) in enumerate(cells, start=1):
            where = dict(file=source, record=rec.number, field=col, section=sec["name"],
                         player=f"{player['pair']} ({player['name']})", round=i)
            try:
                rounds.append(parse_cell(text))
            except InputError as err:
                raise err.located(**where)
        parsed.append((player, cells, rounds))
    count = sec["rounds"]
    if count is None:
        count = 0
        for _, _, rounds in parsed:
            for i, (rnd, _) in enumerate(rounds, start=1):
                if not (rnd.code == "U" and rnd.opponent is None):
                    count = max(count, i)
        if count > MAX_ROUNDS:
            raise InputError(f"{count} rounds is more than the {MAX_ROUNDS} a report can hold",
                             file=source, section=sec["name"])
    for player, cells, rounds in parsed:
        label = f"{player['pair']} ({player['name']})"
        if len(rounds) < count:
            rec = cells[-1][0] if cells else None
            raise InputError(f"the section has {count} rounds but the player's records hold "
                             f"only {len(rounds)} round cells", file=source,
                             record=rec.number if rec else None, section=sec["name"],
                             player=label)
        for i in range(count, len(rounds)):
            rnd, _ = rounds[i]
            if not (rnd.code == "U" and rnd.opponent is None):
                rec, col, text = cells[i]
                raise InputError(f"round {i + 1} cell {text!r} is past the section's {count} "
                                 "rounds (S_TOT_RNDS)", file=source, record=rec.number,
                                 field=col, section=sec["name"], player=label, round=i + 1)
        player["rounds"] = [str(r) for r, _ in rounds[:count]]
        if colours is not None:
            colours[(sec["name"], player["pair"])] = [c for _, c in rounds[:count]]


def parse_cell(text: str) -> tuple[Round, Optional[str]]:
    """A report round cell -> (Round, colour ``"W"``/``"B"`` or None).

    Accepts ``W12B``, ``W   12B``, ``W    12``, ``W  12``, ``B0``, ``X0``, a
    blank cell (unplayed); refuses double-game codes ``$ # %``.
    """
    s = (text or "").strip().upper()
    if not s:
        return Round("U"), None
    m = _CELL.match(s)
    if not m:
        raise InputError(f"round cell {text!r} is not a result code with an optional "
                         "opponent pair and colour (like W12B or B0)")
    code, digits, colour = m.groups()
    if code in DOUBLE_CODES:
        raise InputError(f"round cell {text!r}: double-game code {code!r} (two games in one "
                         "round) cannot be represented; the event model holds one game per "
                         "round cell, so report the games as separate rounds")
    if code not in GAME_CODES and code not in FORFEIT_CODES and code not in BYE_CODES:
        raise InputError(f"round cell {text!r}: unknown result code {code!r} "
                         "(W L D X F Z B H U)")
    opp = int(digits) if digits else None
    if opp == 0:
        opp = None
    if code in GAME_CODES and opp is None:
        raise InputError(f"round cell {text!r}: a played game needs the opponent's pair")
    if code in BYE_CODES and opp is not None:
        raise InputError(f"round cell {text!r}: a bye has no opponent")
    return Round(code, opp), colour


# --------------------------------------------------------------------------
# Field access with locations

def _text(rec: Mapping, name: str) -> str:
    value = rec.get(name)
    return "" if value is None else str(value).strip()


class _Where:
    """Coerces one record's fields, raising InputErrors that locate them."""

    def __init__(self, source, rec: DbfRecord):
        self.source = source
        self.rec = rec

    def error(self, message: str, field: str, **more) -> InputError:
        return InputError(message, file=self.source, record=self.rec.number, field=field, **more)

    def int(self, name: str, *, required=False, lo=None, hi=None) -> Optional[int]:
        text = _text(self.rec, name)
        if not text:
            if required:
                raise self.error("is blank", name)
            return None
        if not _INT.match(text):
            raise self.error(f"{text!r} is not a whole number", name)
        value = int(float(text)) if "." in text else int(text)
        if (lo is not None and value < lo) or (hi is not None and value > hi):
            raise self.error(f"{value} is outside {lo}..{hi}", name)
        return value

    def date(self, name: str, *, required=False) -> Optional[_dt.date]:
        text = _text(self.rec, name)
        if not text or text.strip("0") == "":
            if required:
                raise self.error("is blank", name)
            return None
        try:
            return _parse_date_text(text)
        except ValueError:
            raise self.error(f"{text!r} is not a date (YYYYMMDD)", name)

    def flag(self, name: str) -> Optional[bool]:
        text = _text(self.rec, name).upper()
        if not text:
            return None
        if text in ("Y", "T", "1"):
            return True
        if text in ("N", "F", "0"):
            return False
        raise self.error(f"{text!r} is not Y or N", name)


def _parse_date_text(text: str) -> _dt.date:
    text = text.strip()
    if re.fullmatch(r"[0-9]{8}", text):
        return _dt.date(int(text[:4]), int(text[4:6]), int(text[6:]))
    m = re.fullmatch(r"([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})", text)
    if m:
        return _dt.date(int(m[1]), int(m[2]), int(m[3]))
    m = re.fullmatch(r"([0-9]{1,2})/([0-9]{1,2})/([0-9]{4})", text)
    if m:
        return _dt.date(int(m[3]), int(m[1]), int(m[2]))
    raise ValueError(text)


# --------------------------------------------------------------------------
# Writing

def build_uscf_dbf(event: Event, *, header: Optional[Mapping[str, str]] = None,
                   last_update: Optional[_dt.date] = None) -> dict[str, bytes]:
    """The three files of a 2C report for ``event``, by file name.

    ``header`` may fill the event fields the model does not hold
    (:data:`WRITABLE_HEADER`, e.g. ``{"H_AFF_ID": "A6012345"}``).  Colours
    are not known to the model and are left blank in the cells.
    """
    header = dict(header or {})
    unknown = set(header) - set(WRITABLE_HEADER)
    if unknown:
        raise InputError(f"cannot set header field(s) {sorted(unknown)}")
    widths = {name: width for name, _, width in HEADER_FIELDS}
    for name, value in header.items():  # the affiliate's and TDs' fields are fixed ids
        if len(str(value)) > widths[name]:
            raise InputError(f"header field {name}: {len(str(value))} characters where the 2C "
                             f"layout holds {widths[name]} ({str(value)[:40]!r})")
    if not event.sections:
        raise InputError("the event has no sections")
    ev_id = event.id or ""
    any_online = event.online or any(s.online for s in event.sections)
    any_half = any(s.half_k for s in event.sections)
    n_rounds = 1
    for s in event.sections:
        validate_section(s)
        n_rounds = max(n_rounds, max((len(p.rounds) for p in s.players), default=0))
    if n_rounds > MAX_ROUNDS:
        raise InputError(f"{n_rounds} rounds do not fit D_RND01..D_RND{MAX_ROUNDS}")

    h_rec = {"H_EVENT_ID": ev_id, "H_NAME": event.name, "H_FORMAT": "2C",
             "H_TOT_SECT": str(len(event.sections)), "H_BEG_DATE": event.start,
             "H_END_DATE": event.end, **header}
    h_fields = list(HEADER_FIELDS)
    if any_online:
        h_fields.append(("H_ONLINE", "C", 1))
        h_rec["H_ONLINE"] = "Y" if event.online else "N"

    s_fields = list(SECTION_FIELDS)
    if any_online:
        s_fields.append(("S_ONLINE", "C", 1))
    if any_half:
        s_fields.append(("S_K_FACTOR", "C", 1))
    d_fields = list(DETAIL_FIELDS) + [(f"D_RND{i:02d}", "C", CELL_WIDTH)
                                      for i in range(1, n_rounds + 1)]
    s_recs, d_recs = [], []
    for num, s in enumerate(event.sections, start=1):
        where = dict(section=s.name)
        if s.kind not in KIND_WRITE:
            raise InputError(f"section type {s.kind!r} has no S_TRN_TYPE code", **where)
        rounds = len(s.players[0].rounds) if s.players else 0
        rec = {"S_EVENT_ID": ev_id, "S_SEC_NUM": f"{num:>2}", "S_SEC_NAME": s.name,
               "S_R_SYSTEM": _system_code(s.systems), "S_TIMECTL": s.time_control,
               "S_CTD_ID": header.get("H_CTD_ID", ""), "S_ATD_ID": header.get("H_ATD_ID", ""),
               "S_TRN_TYPE": KIND_WRITE[s.kind], "S_TOT_RNDS": str(rounds),
               "S_LST_PAIR": str(max((p.pair for p in s.players), default=0)),
               "S_BEG_DATE": s.start, "S_END_DATE": s.end}
        if any_online:
            rec["S_ONLINE"] = "Y" if s.online else "N"
        if any_half:
            rec["S_K_FACTOR"] = "H" if s.half_k else "F"
        s_recs.append(rec)
        primary = (s.systems or (["OLR"] if s.online else ["OTBR"]))[0]
        for p in s.players:
            shown = p.ratings.get(primary)
            rec = {"D_EVENT_ID": ev_id, "D_SEC_NUM": f"{num:>2}", "D_PAIR_NUM": f"{p.pair:>4}",
                   "D_MEM_ID": p.id, "D_NAME": p.name, "D_STATE": p.state or "",
                   "D_RATING": str(int(round(shown.rating))) if shown else ""}
            for i in range(1, n_rounds + 1):
                rnd = p.rounds[i - 1] if i <= len(p.rounds) else Round("U")
                rec[f"D_RND{i:02d}"] = format_cell(rnd)
            d_recs.append(rec)
    out = {}
    for name, spec, recs in ((FILE_NAMES["header"], h_fields, [h_rec]),
                             (FILE_NAMES["sections"], s_fields, s_recs),
                             (FILE_NAMES["details"], d_fields, d_recs)):
        out[name] = build_dbf(_fit(spec, recs), recs, last_update=last_update, source=name)
    return out


def _system_code(systems) -> str:
    if not systems:
        return ""
    for code, names in SYSTEM_CODES.items():
        if list(systems) == names:
            return code
    return "+".join(systems)


def format_cell(rnd: Round, colour: Optional[str] = None) -> str:
    """The padded report cell of a round: code, opponent right-justified in
    five columns (0 when none), colour (blank when unknown)."""
    return f"{rnd.code}{rnd.opponent or 0:>5}{colour or ' '}"


def _fit(spec, records) -> list[DbfField]:
    """Descriptors for ``spec``, C fields widened to the longest value."""
    fields = []
    for name, kind, width in spec:
        if kind == "C":
            for rec in records:
                value = rec.get(name)
                if value is not None:
                    width = max(width, len(str(value)))
            if width > 254:
                raise InputError(f"a value of {width} characters is too long for {name}",
                                 field=name)
        fields.append(DbfField(name, kind, width))
    return fields


def write_uscf_dbf(event: Event, directory, *, header: Optional[Mapping[str, str]] = None,
                   last_update: Optional[_dt.date] = None) -> dict[str, Path]:
    """Write ``event`` as a 2C report (THEXPORT/TSEXPORT/TDEXPORT.DBF) into
    ``directory`` (created if needed).  All three files are built in memory,
    then staged as temporary files and renamed into place, so a failure
    leaves no half-written report.  Returns the paths by role."""
    directory = Path(directory)
    try:
        blobs = build_uscf_dbf(event, header=header, last_update=last_update)
    except InputError as err:  # what the event holds and a report cannot
        raise err.located(file=event.source)
    try:
        directory.mkdir(parents=True, exist_ok=True)
        existing = {p.name.upper(): p for p in directory.iterdir() if p.is_file()}
    except OSError as err:
        raise InputError(f"cannot use the directory: {err.strerror or err}", file=directory)
    targets = {}
    for name, data in blobs.items():
        targets[existing.get(name, directory / name)] = data
    atomic_write(targets)
    by_name = {p.name.upper(): p for p in targets}
    return {role: by_name[name] for role, name in FILE_NAMES.items()}
