"""US Chess DBF rating reports: the dBase layer, the report reader and writer.

The quirk fixtures under ``fixtures/dbf/`` are built by the functions at the
top of this file with ``struct``, independently of ``uschess.io.formats.dbase``;
regenerate them with ``python tests/readers/test_dbf.py``.  ``dbfread`` is used as an
independent check of the files.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import struct
from pathlib import Path

import dbfread
import pytest

from uschess.errors import InputError
from uschess.io.eventfile import event_from_dict, event_to_dict, load_event
from uschess.io.formats import dbase, uscf_dbf
from uschess.io.formats.dbase import DbfField, build_dbf, parse_dbf, read_dbf
from uschess.io.formats.detect import detect_format, load_event_any
from uschess.io.formats.players import (load_players, merge_players, parse_players,
                                    players_from_event, players_to_dict)
from uschess.io.formats.uscf_dbf import (build_uscf_dbf, find_report_files, parse_cell,
                                     parse_uscf_dbf, read_uscf_dbf, write_uscf_dbf)
from uschess.model import Round

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures" / "dbf"
EVENTS = ROOT / "fixtures" / "events"
CLUB_YAML = EVENTS / "club-championship.yaml"
CLUB_PLAYERS = EVENTS / "club-championship.players.yaml"


# --------------------------------------------------------------------------
# Hand-built report files


def raw_dbf(fields, rows, *, deleted=(), header_pad=b"", eof=True, stamp=(124, 5, 8)):
    """dBase III bytes.  ``fields``: (name, type, width[, decimals]);
    ``rows``: lists of text (C left-justified, N right-justified here).
    ``deleted``: row indexes flagged '*'.  ``header_pad``: bytes after the
    0x0D terminator counted in the header length (WinTD writes a NUL)."""
    record_len = 1 + sum(f[2] for f in fields)
    header_len = 32 + 32 * len(fields) + 1 + len(header_pad)
    out = bytearray(struct.pack("<B3BIHH20x", 3, *stamp, len(rows), header_len, record_len))
    for f in fields:
        dec = f[3] if len(f) > 3 else 0
        out += struct.pack("<11sc4xBB14x", f[0].encode(), f[1].encode(), f[2], dec)
    out += b"\r" + header_pad
    for i, row in enumerate(rows):
        out += b"*" if i in deleted else b" "
        for f, value in zip(fields, row, strict=True):
            text = value.encode("cp1252")
            assert len(text) <= f[2], (f, value)
            out += text.rjust(f[2]) if f[1] == "N" else text.ljust(f[2])
    if eof:
        out += b"\x1a"
    return bytes(out)


H_2C = [("H_EVENT_ID", "C", 12), ("H_NAME", "C", 35), ("H_FORMAT", "C", 2),
        ("H_TOT_SECT", "C", 2), ("H_BEG_DATE", "C", 8), ("H_END_DATE", "C", 8),
        ("H_AFF_ID", "C", 8), ("H_CITY", "C", 21), ("H_STATE", "C", 2),
        ("H_ZIPCODE", "C", 10), ("H_COUNTRY", "C", 21), ("H_SENDCROS", "C", 1),
        ("H_CTD_ID", "C", 8), ("H_ATD_ID", "C", 8), ("H_OTHER_TD", "C", 40)]
S_2C = [("S_EVENT_ID", "C", 12), ("S_SEC_NUM", "C", 2), ("S_SEC_NAME", "C", 30),
        ("S_R_SYSTEM", "C", 1), ("S_TIMECTL", "C", 40), ("S_CTD_ID", "C", 8),
        ("S_ATD_ID", "C", 8), ("S_TRN_TYPE", "C", 1), ("S_TOT_RNDS", "C", 2),
        ("S_LST_PAIR", "C", 4), ("S_BEG_DATE", "C", 8), ("S_END_DATE", "C", 8),
        ("S_SCH_LVL", "C", 1), ("S_GR_PRIX", "C", 1), ("S_GP_PTS", "C", 3),
        ("S_FIDE", "C", 1)]
D_2C = [("D_EVENT_ID", "C", 12), ("D_SEC_NUM", "C", 2), ("D_PAIR_NUM", "C", 4),
        ("D_MEM_ID", "C", 8), ("D_NAME", "C", 30), ("D_STATE", "C", 2), ("D_RATING", "C", 4)]


def compact_2c():
    """SwissSys-like 2C report: lower-case file names, every field C, dates
    as YYYYMMDD text, numbers left-justified, compact cells with colours
    (``W4W``, ``L1B``, ``B0``, ``X0``, ``Z6``...) and a fifth round column
    padded ``U0`` past S_TOT_RNDS = 4."""
    ev = "202405077719"
    header = raw_dbf(H_2C, [[ev, "Tuesday Night Action", "2C", "1", "20240507", "20240507",
                             "A6012345", "Evanston", "IL", "60201", "USA", "N", "12004567",
                             "", ""]])
    sections = raw_dbf(S_2C, [[ev, "1", "Action", "D", "G/30;d5", "12004567", "", "S", "4",
                               "6", "20240507", "20240507", "", "N", "", "N"]])
    players = [
        ("1", "12345678", "FERRIS, ALAN", "MA", "1850", ["W4W", "D2B", "W3W", "X0", "U0"]),
        ("2", "23456789", "GOMEZ, RITA", "IL", "1702", ["D5B", "D1W", "Z6", "L4B", "U0"]),
        ("3", "34567890", "HARTMANN, JENS", "WI", "1688", ["X6", "W5W", "L1B", "F0", "U0"]),
        ("4", "45678901", "IBARRA, SOFIA", "IL", "1540", ["L1B", "B0", "W5B", "W2W", "U0"]),
        ("5", "56789012", "JOSHI, RAVI", "IL", "", ["D2W", "L3B", "L4W", "U0", "U0"]),
        ("6", "67890123", "KRUGER, EMMA", "IN", "1211", ["F3", "H0", "Z2", "H0", "U0"]),
    ]
    d = D_2C + [(f"D_RND{i:02d}", "C", 7) for i in range(1, 6)]
    details = raw_dbf(d, [[ev, "1", pair, mem, name, st, rating, *cells]
                          for pair, mem, name, st, rating, cells in players])
    return {"thexport.dbf": header, "tsexport.dbf": sections, "tdexport.dbf": details}


def padded_2c():
    """WinTD-like 2C report: D fields for dates, N fields for numbers, a NUL
    after each header terminator, a deleted player record, padded cells in
    both spellings (``W   4W`` with colour, ``W    4`` without), a dual-rated
    round robin and a quick Swiss."""
    h = [f if f[0] not in ("H_TOT_SECT", "H_BEG_DATE", "H_END_DATE") else
         (f[0], "N", 2) if f[0] == "H_TOT_SECT" else (f[0], "D", 8) for f in H_2C]
    s = [(f[0], "N", f[2]) if f[0] in ("S_SEC_NUM", "S_TOT_RNDS", "S_LST_PAIR", "S_GP_PTS")
         else (f[0], "D", 8) if f[0] in ("S_BEG_DATE", "S_END_DATE") else f for f in S_2C]
    d = [(f[0], "N", f[2]) if f[0] in ("D_SEC_NUM", "D_PAIR_NUM", "D_RATING") else f
         for f in D_2C] + [(f"D_RND{i:02d}", "C", 7) for i in range(1, 4)]
    ev = "202406159901"
    nul = b"\x00"
    header = raw_dbf(h, [[ev, "Summer Quads & Blitz", "2C", "2", "20240615", "20240616",
                          "A6054321", "Chicago", "IL", "60614", "USA", "Y", "12004567",
                          "13007777", ""]], header_pad=nul)
    sections = raw_dbf(s, [
        [ev, "1", "Quad 1", "D", "G/45;d5", "12004567", "", "R", "3", "4", "20240615",
         "20240615", "", "N", "", "N"],
        [ev, "2", "Blitz", "Q", "G/15;+5", "13007777", "", "S", "2", "4", "20240616",
         "20240616", "", "N", "", "N"],
    ], header_pad=nul)
    rows = [
        [ev, "1", "1", "11112222", "Lee, Jonathan", "IL", "1980", "W    4", "D    3", "W    2"],
        [ev, "1", "2", "22223333", "Müller, Katrin", "IL", "1912", "D   3B", "W   4W", "L   1B"],
        [ev, "1", "9", "99990000", "Deleted, Entry", "IL", "1000", "U    0", "U    0", "U    0"],
        [ev, "1", "3", "33334444", "O'Brien, Niamh", "IL", "1890", "D   2W", "D   1B", "W   4W"],
        [ev, "1", "4", "44445555", "Zhang, Li", "IL", "1801", "L    1", "L    2", "L    3"],
        [ev, "2", "1", "11112222", "Lee, Jonathan", "IL", "1950", "W   3W", "H    0", "U    0"],
        [ev, "2", "2", "55556666", "Novak, Pavel", "IL", "", "B    0", "W   4B", "U    0"],
        [ev, "2", "3", "66667777", "Santos, Ines", "IL", "1400", "L   1B", "H    0", "U    0"],
        [ev, "2", "4", "77778888", "Tanaka, Yui", "IL", "1322", "U    0", "L   2W", "U    0"],
    ]
    details = raw_dbf(d, rows, deleted={2}, header_pad=nul)
    return {"THEXPORT.DBF": header, "TSEXPORT.DBF": sections, "TDEXPORT.DBF": details}


#: A quadruple round robin of four players: pairings repeat every 3 rounds;
#: the first-named player's result in each game of rounds 1..12.
OLD_PAIRINGS = [((1, 4), (2, 3)), ((1, 3), (4, 2)), ((1, 2), (3, 4))]
OLD_RESULTS = ["WD", "LW", "DD", "WL", "WW", "DL", "LD", "WD", "DW", "WW", "DL", "LD"]


def old_rounds():
    """The 12 rounds of the old-layout marathon section, by pair."""
    cells = {p: [] for p in range(1, 5)}
    flip = {"W": "L", "L": "W", "D": "D"}
    for r in range(12):
        for (a, b), res in zip(OLD_PAIRINGS[r % 3], OLD_RESULTS[r]):
            cells[a].append(f"{res}{b}")
            cells[b].append(f"{flip[res]}{a}")
    return cells


def old_layout():
    """The older layout: no H_FORMAT, a 9-character event id, S_K_FACTOR
    (H half, Q quick), D_REC_SEQ continuation records carrying rounds 11-12
    in D_RND01..D_RND02, cells ``W   2`` five characters wide, blank cells
    past the round count."""
    h = [("H_EVENT_ID", "C", 9), ("H_NAME", "C", 30), ("H_TOT_SECT", "C", 2),
         ("H_BEG_DATE", "C", 8), ("H_END_DATE", "C", 8), ("H_AFF_ID", "C", 8),
         ("H_CITY", "C", 21), ("H_STATE", "C", 2), ("H_ZIPCODE", "C", 10),
         ("H_COUNTRY", "C", 21), ("H_SENDCROS", "C", 1), ("H_CTD_ID", "C", 8),
         ("H_ATD_ID", "C", 8)]
    s = [("S_EVENT_ID", "C", 9), ("S_SEC_NUM", "C", 2), ("S_SEC_NAME", "C", 30),
         ("S_K_FACTOR", "C", 1), ("S_R_SYSTEM", "C", 1), ("S_TIMECTL", "C", 20),
         ("S_TOT_RNDS", "C", 2), ("S_BEG_DATE", "C", 8), ("S_END_DATE", "C", 8)]
    d = [("D_EVENT_ID", "C", 9), ("D_SEC_NUM", "C", 2), ("D_PAIR_NUM", "C", 4),
         ("D_REC_SEQ", "C", 1), ("D_MEM_ID", "C", 8), ("D_NAME", "C", 30),
         ("D_RATING", "C", 4)] + [(f"D_RND{i:02d}", "C", 5) for i in range(1, 11)]
    ev = "980517003"
    stamp = (98, 5, 19)
    header = raw_dbf(h, [[ev, "Memorial Weekend Quads", "2", "19980516", "19980518",
                          "A1234567", "Dayton", "OH", "45402", "USA", "N", "10001234", ""]],
                     stamp=stamp)
    sections = raw_dbf(s, [
        [ev, " 1", "Marathon Quad", "H", "R", "40/2,SD/1", "12", "19980516", "19980518"],
        [ev, " 2", "Quick Quad", "Q", "", "G/25", " 3", "19980518", "19980518"],
    ], stamp=stamp)
    names = {1: ("10203040", "ADAMS, ROBERT"), 2: ("10203041", "BAKER, SUSAN"),
             3: ("10203042", "CLARK, DAVID"), 4: ("10203043", "DIAZ, MARIA")}
    marathon = {p: [f"{c[0]}{c[1:]:>4}" for c in cells] for p, cells in old_rounds().items()}
    quick = {1: ["W   2", "D   3", "L   4"], 2: ["L   1", "W   4", "W   3"],
             3: ["L   4", "D   1", "L   2"], 4: ["W   3", "L   2", "W   1"]}
    rows = []
    for pair in range(1, 5):
        mem, name = names[pair]
        rows.append([ev, " 1", f"{pair:>4}", "1", mem, name, "1700", *marathon[pair][:10]])
    for pair in range(1, 5):  # continuation records after all the first records
        rows.append([ev, " 1", f"{pair:>4}", "2", "", "", "", *marathon[pair][10:],
                     *["U   0"] * 8])
    for pair in range(1, 5):
        mem, name = names[pair]
        rows.append([ev, " 2", f"{pair:>4}", "1", mem, name, "", *quick[pair], *[""] * 7])
    details = raw_dbf(d, rows, stamp=stamp)
    return {"THEXPORT.DBF": header, "TSEXPORT.DBF": sections, "TDEXPORT.DBF": details}


BUILDERS = {"compact-2c": compact_2c, "padded-2c": padded_2c, "old-layout": old_layout}


def regenerate():
    """Rewrite the quirk fixtures and the club championship report."""
    for name, build in BUILDERS.items():
        folder = FIXTURES / name
        folder.mkdir(parents=True, exist_ok=True)
        for filename, data in build().items():
            (folder / filename).write_bytes(data)
    write_uscf_dbf(load_event(CLUB_YAML), FIXTURES / "club-championship", **CLUB_WRITE)


CLUB_WRITE = dict(last_update=dt.date(2024, 3, 26), header={
    "H_AFF_ID": "A6041234", "H_CITY": "Springfield", "H_STATE": "IL", "H_ZIPCODE": "62701",
    "H_COUNTRY": "USA", "H_SENDCROS": "Y", "H_CTD_ID": "12004567"})


def parse_files(files: dict, **kw):
    """parse_uscf_dbf on a {file name: bytes} dict of any spelling."""
    by_role = {}
    for name, data in files.items():
        for role, canonical in uscf_dbf.FILE_NAMES.items():
            if name.upper().endswith(canonical):
                by_role[role] = data
    return parse_uscf_dbf(by_role["header"], by_role["sections"], by_role["details"], **kw)


def as_dict(event):
    return event_to_dict(event)


# --------------------------------------------------------------------------
# Fixtures are the builders' output


@pytest.mark.parametrize("name", sorted(BUILDERS))
def test_committed_fixture_matches_builder(name):
    for filename, data in BUILDERS[name]().items():
        assert (FIXTURES / name / filename).read_bytes() == data, filename


def test_committed_club_report_matches_writer(tmp_path):
    write_uscf_dbf(load_event(CLUB_YAML), tmp_path, **CLUB_WRITE)
    for name in uscf_dbf.FILE_NAMES.values():
        assert (tmp_path / name).read_bytes() == (FIXTURES / "club-championship" / name).read_bytes()


# --------------------------------------------------------------------------
# dBase layer, checked against dbfread

TYPED_FIELDS = [DbfField("NAME", "C", 20), DbfField("COUNT", "N", 5),
                DbfField("SCORE", "N", 6, 1), DbfField("RATIO", "F", 10, 3),
                DbfField("PLAYED", "D", 8), DbfField("ACTIVE", "L", 1)]
TYPED_ROWS = [
    {"NAME": "Müller, Jörg", "COUNT": 12, "SCORE": 3.5, "RATIO": 0.125,
     "PLAYED": dt.date(2024, 3, 4), "ACTIVE": True},
    {"NAME": "", "COUNT": -7, "SCORE": 0.0, "RATIO": -12.5, "PLAYED": None, "ACTIVE": False},
    {"NAME": "O'Neil", "COUNT": None, "SCORE": None, "RATIO": None, "PLAYED": dt.date(1999, 12, 31),
     "ACTIVE": None},
]


def test_dbase_typed_round_trip_and_dbfread(tmp_path):
    path = tmp_path / "TYPED.DBF"
    dbase.write_dbf(path, TYPED_FIELDS, TYPED_ROWS, last_update=dt.date(2024, 3, 5))
    table = read_dbf(path)
    assert table.fields == TYPED_FIELDS
    assert table.last_update == dt.date(2024, 3, 5)
    assert [dict(r) for r in table.records] == TYPED_ROWS
    assert [r.number for r in table.records] == [1, 2, 3]
    theirs = [dict(r) for r in dbfread.DBF(str(path), encoding="cp1252")]
    assert theirs == TYPED_ROWS


def all_fixture_files():
    for folder in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        for path in sorted(folder.iterdir()):
            if path.suffix.lower() == ".dbf":
                yield path


@pytest.mark.parametrize("path", list(all_fixture_files()), ids=lambda p: f"{p.parent.name}/{p.name}")
def test_fixture_files_agree_with_dbfread(path):
    mine = read_dbf(path)
    theirs = dbfread.DBF(str(path), encoding="cp1252")
    assert [f.name for f in mine.fields] == theirs.field_names
    assert [dict(r) for r in mine.records] == [dict(r) for r in theirs]


def test_deleted_records_are_skipped_or_kept_on_request():
    data = padded_2c()["TDEXPORT.DBF"]
    live = parse_dbf(data)
    everything = parse_dbf(data, include_deleted=True)
    assert len(live.records) == 8 and len(everything.records) == 9
    assert everything.records[2].deleted and everything.records[2]["D_NAME"] == "Deleted, Entry"
    assert [r.number for r in live.records][:3] == [1, 2, 4]


def header_of(data: bytes):
    return struct.unpack_from("<B3BIHH", data, 0)


def patched(data: bytes, offset: int, fmt: str, value) -> bytes:
    out = bytearray(data)
    struct.pack_into(fmt, out, offset, value)
    return bytes(out)


@pytest.mark.parametrize("offset,fmt,value,words", [
    (4, "<I", 0xFFFFFFFF, "promises"),          # record count
    (4, "<I", 2 ** 31, "promises"),
    (8, "<H", 0xFFFF, "header length"),         # header length past the file
    (8, "<H", 20, "header length"),             # shorter than a header
    (10, "<H", 0xFFFF, "record length"),        # record length
    (10, "<H", 1, "record length"),
    (0, "<B", 0x42, "not a dBase"),              # version byte
    (32 + 16, "<B", 255, "record length"),      # first field width 255
    (32 + 11, "<B", ord("Q"), "unknown field type"),
    (32, "<B", 0, "invalid name"),
])
def test_dbase_refuses_lying_headers(offset, fmt, value, words):
    data = compact_2c()["tdexport.dbf"]
    with pytest.raises(InputError) as info:
        parse_dbf(patched(data, offset, fmt, value), source="x.dbf")
    assert words in str(info.value)
    assert info.value.file == "x.dbf"


def test_dbase_refuses_truncation_and_garbage():
    data = compact_2c()["tdexport.dbf"]
    for cut in (0, 10, 32, 100, len(data) - 60):
        with pytest.raises(InputError):
            parse_dbf(data[:cut])
    # a deletion flag that is neither ' ' nor '*'
    header_len = header_of(data)[5]
    broken = bytearray(data)
    broken[header_len] = ord("#")
    with pytest.raises(InputError, match="deletion flag") as info:
        parse_dbf(bytes(broken))
    assert info.value.record == 1
    # descriptors never terminated
    no_end = data.replace(b"\r ", b"X ", 1)
    with pytest.raises(InputError):
        parse_dbf(no_end)


def test_dbase_refuses_bad_typed_values():
    fields = [("N1", "N", 4), ("D1", "D", 8), ("L1", "L", 1)]
    for row, field in ((["ab", "", ""], "N1"), (["", "20241332", ""], "D1"),
                       (["", "", "x"], "L1"), (["nan", "", ""], "N1")):
        with pytest.raises(InputError) as info:
            parse_dbf(raw_dbf(fields, [row]))
        assert info.value.field == field and info.value.record == 1
    # raw mode never interprets, so it cannot refuse a value
    table = parse_dbf(raw_dbf(fields, [["ab", "20241332", "x"]]), raw=True)
    assert dict(table.records[0]) == {"N1": "ab", "D1": "20241332", "L1": "x"}


def test_read_dbf_refuses_oversized_file(tmp_path, monkeypatch):
    path = tmp_path / "BIG.DBF"
    path.write_bytes(compact_2c()["thexport.dbf"])
    monkeypatch.setattr(dbase, "MAX_FILE_BYTES", 100)
    with pytest.raises(InputError, match="refused"):
        read_dbf(path)


def test_build_dbf_refuses_values_that_do_not_fit():
    with pytest.raises(InputError, match="longer") as info:
        build_dbf([DbfField("A", "C", 3)], [{"A": "abcd"}])
    assert info.value.field == "A" and info.value.record == 1
    with pytest.raises(InputError, match="cannot hold"):
        build_dbf([DbfField("A", "C", 10)], [{"A": "Łukasz"}])
    with pytest.raises(InputError, match="fit"):
        build_dbf([DbfField("N", "N", 2)], [{"N": 123}])
    with pytest.raises(InputError):
        build_dbf([DbfField("D", "D", 8)], [{"D": "soon"}])


# --------------------------------------------------------------------------
# Round cells

@pytest.mark.parametrize("cell,code,opp,colour", [
    ("W12B", "W", 12, "B"), ("L3W", "L", 3, "W"), ("D5B", "D", 5, "B"),
    ("B0", "B", None, None), ("H0", "H", None, None), ("U0", "U", None, None),
    ("X0", "X", None, None), ("F0", "F", None, None), ("Z0", "Z", None, None),
    ("W   12B", "W", 12, "B"), ("W    12", "W", 12, None), ("W  12", "W", 12, None),
    ("X   7W", "X", 7, "W"), ("F  9", "F", 9, None), ("Z 4", "Z", 4, None),
    ("B    0 ", "B", None, None), ("h", "H", None, None), ("", "U", None, None),
    ("   ", "U", None, None), ("w12b", "W", 12, "B"),
])
def test_parse_cell_spellings(cell, code, opp, colour):
    assert parse_cell(cell) == (Round(code, opp), colour)


@pytest.mark.parametrize("cell,words", [
    ("$12", "double-game"), ("#3W", "double-game"), ("%  7", "double-game"),
    ("W0", "opponent"), ("D", "opponent"), ("B5", "bye has no opponent"),
    ("Q12", "unknown result code"), ("W12X", "not a result code"), ("12W", "not a result code"),
])
def test_parse_cell_refusals(cell, words):
    with pytest.raises(InputError, match=words):
        parse_cell(cell)


# --------------------------------------------------------------------------
# Reading the quirk fixtures

def test_compact_2c_report(tmp_path):
    colours = {}
    event = read_uscf_dbf(FIXTURES / "compact-2c", colours=colours)
    assert event.id == "202405077719" and event.name == "Tuesday Night Action"
    assert event.start == event.end == dt.date(2024, 5, 7)
    (sec,) = event.sections
    assert (sec.name, sec.time_control, sec.systems, sec.kind) == \
        ("Action", "G/30;d5", ["OTBR", "OTBQ"], "swiss")
    rounds = {p.pair: [str(r) for r in p.rounds] for p in sec.players}
    assert rounds == {1: ["W4", "D2", "W3", "X"], 2: ["D5", "D1", "Z6", "L4"],
                      3: ["X6", "W5", "L1", "F"], 4: ["L1", "B", "W5", "W2"],
                      5: ["D2", "L3", "L4", "U"], 6: ["F3", "H", "Z2", "H"]}
    # D_RATING is displayed only: nobody gets a rating record
    assert all(p.ratings == {} for p in sec.players)
    assert sec.players[0].state == "MA" and sec.players[0].id == "12345678"
    assert colours[("Action", 1)] == ["W", "B", "W", None]
    assert event.source == str(FIXTURES / "compact-2c")


def test_padded_2c_report():
    event = read_uscf_dbf(FIXTURES / "padded-2c")
    quad, blitz = event.sections
    assert (quad.kind, quad.systems, quad.start, quad.end) == \
        ("round-robin", ["OTBR", "OTBQ"], dt.date(2024, 6, 15), dt.date(2024, 6, 15))
    assert [p.pair for p in quad.players] == [1, 2, 3, 4]  # the deleted pair 9 is gone
    assert quad.players[1].name == "Müller, Katrin"
    assert [str(r) for r in quad.players[0].rounds] == ["W4", "D3", "W2"]
    assert (blitz.systems, blitz.start) == (["OTBQ"], dt.date(2024, 6, 16))
    assert {p.pair: [str(r) for r in p.rounds] for p in blitz.players} == {
        1: ["W3", "H"], 2: ["B", "W4"], 3: ["L1", "H"], 4: ["U", "L2"]}
    assert event.end == dt.date(2024, 6, 16)


def test_old_layout_with_continuation_records():
    event = read_uscf_dbf(FIXTURES / "old-layout")
    assert event.id == "980517003"
    marathon, quick = event.sections
    assert marathon.half_k and marathon.systems == ["OTBR"] and marathon.kind == "swiss"
    expected = old_rounds()
    for p in marathon.players:
        assert [str(r) for r in p.rounds] == expected[p.pair]
    assert len(marathon.players) == 4 and marathon.players[0].name == "ADAMS, ROBERT"
    assert not quick.half_k and quick.systems == ["OTBQ"]
    assert [str(r) for r in quick.player(2).rounds] == ["L1", "W4", "W3"]


def test_old_layout_continuation_errors():
    files = old_layout()
    d = [("D_EVENT_ID", "C", 9), ("D_SEC_NUM", "C", 2), ("D_PAIR_NUM", "C", 4),
         ("D_REC_SEQ", "C", 1), ("D_MEM_ID", "C", 8), ("D_NAME", "C", 30),
         ("D_RATING", "C", 4)] + [(f"D_RND{i:02d}", "C", 5) for i in range(1, 11)]
    cells = [f"{c[0]}{c[1:]:>4}" for c in old_rounds()[1]]
    first = ["980517003", " 1", "   1", "1", "10203040", "ADAMS, ROBERT", "", *cells[:10]]
    # record 3 without record 2
    gap = raw_dbf(d, [first, ["980517003", " 1", "   1", "3", "", "", "", *[""] * 10]])
    with pytest.raises(InputError, match="continuation"):
        parse_files({**files, "TDEXPORT.DBF": gap})
    # the continuation is missing: 12 rounds declared, 10 cells held
    short = raw_dbf(d, [first])
    with pytest.raises(InputError, match="12 rounds"):
        parse_files({**files, "TDEXPORT.DBF": short})
    dup = raw_dbf(d, [first, first])
    with pytest.raises(InputError, match="listed twice"):
        parse_files({**files, "TDEXPORT.DBF": dup})


# --------------------------------------------------------------------------
# Report-level refusals

def compact_with(**replace):
    files = compact_2c()
    files.update(replace)
    return files


def section_row(**over):
    row = dict(zip([f[0] for f in S_2C],
                   ["202405077719", "1", "Action", "D", "G/30;d5", "12004567", "", "S", "4",
                    "6", "20240507", "20240507", "", "N", "", "N"]))
    row.update(over)
    return [row[f[0]] for f in S_2C]


@pytest.mark.parametrize("over,words,field", [
    ({"S_R_SYSTEM": "X"}, "S_R_SYSTEM", "S_R_SYSTEM"),
    ({"S_TRN_TYPE": "K"}, "S_TRN_TYPE", "S_TRN_TYPE"),
    ({"S_SEC_NUM": "on"}, "whole number", "S_SEC_NUM"),
    ({"S_BEG_DATE": "20241301"}, "not a date", "S_BEG_DATE"),
    ({"S_TOT_RNDS": "3"}, "past the section", "D_RND04"),
    ({"S_EVENT_ID": "209901010000"}, "does not match", "S_EVENT_ID"),
])
def test_bad_section_records(over, words, field):
    files = compact_with(**{"tsexport.dbf": raw_dbf(S_2C, [section_row(**over)])})
    with pytest.raises(InputError, match=words) as info:
        parse_files(files, source="report")
    assert info.value.field == field
    assert info.value.file.upper().endswith(("TSEXPORT.DBF", "TDEXPORT.DBF"))


def details_with(cell_edits=(), **over):
    base = compact_2c()
    table = parse_dbf(base["tdexport.dbf"], raw=True)
    fields = [(f.name, f.type, f.length) for f in table.fields]
    rows = [[rec[f[0]] for f in fields] for rec in table.records]
    for (r, name), value in dict(cell_edits).items():
        rows[r][[f[0] for f in fields].index(name)] = value
    return compact_with(**{"tdexport.dbf": raw_dbf(fields, rows)})


@pytest.mark.parametrize("edits,words,where", [
    ({(0, "D_RND02"): "$2"}, "double-game", ("D_RND02", 1, 2)),
    ({(0, "D_RND01"): "W9"}, "does not exist", (None, None, 1)),
    ({(0, "D_RND01"): "W5"}, "but pair 5", (None, None, 1)),
    ({(0, "D_SEC_NUM"): "7"}, "not in TSEXPORT", ("D_SEC_NUM", 1, None)),
    ({(1, "D_PAIR_NUM"): "1"}, "listed twice", ("D_PAIR_NUM", 2, None)),
    ({(0, "D_PAIR_NUM"): "0"}, "outside", ("D_PAIR_NUM", 1, None)),
    ({(0, "D_RND05"): "W2"}, "past the section", ("D_RND05", 1, 5)),
])
def test_bad_player_records(edits, words, where):
    with pytest.raises(InputError, match=words) as info:
        parse_files(details_with(edits), source="report")
    field, record, rnd = where
    if field:
        assert info.value.field == field and info.value.record == record
    if rnd:
        assert info.value.round == rnd
    assert info.value.file


def test_double_game_error_names_the_cell():
    with pytest.raises(InputError) as info:
        parse_files(details_with({(2, "D_RND03"): "%1B"}), source="report")
    err = info.value
    assert (err.field, err.record, err.round, err.section) == ("D_RND03", 3, 3, "Action")
    assert "HARTMANN" in err.player and "'%1B'" in err.message


def test_header_layout_and_events():
    files = compact_2c()
    h_fields = H_2C
    row = ["202405077719", "Tuesday Night Action", "2C", "1", "20240507", "20240507",
           "A6012345", "Evanston", "IL", "60201", "USA", "N", "12004567", "", ""]
    bad_format = list(row)
    bad_format[2] = "3Z"
    with pytest.raises(InputError, match="H_FORMAT"):
        parse_files({**files, "thexport.dbf": raw_dbf(h_fields, [bad_format])})
    wrong_count = list(row)
    wrong_count[3] = "2"
    with pytest.raises(InputError, match="H_TOT_SECT"):
        parse_files({**files, "thexport.dbf": raw_dbf(h_fields, [wrong_count])})
    no_date = list(row)
    no_date[4] = ""
    with pytest.raises(InputError, match="blank") as info:
        parse_files({**files, "thexport.dbf": raw_dbf(h_fields, [no_date])})
    assert info.value.field == "H_BEG_DATE"
    with pytest.raises(InputError, match="no event record"):
        parse_files({**files, "thexport.dbf": raw_dbf(h_fields, [])})
    # two events in one file set: one must be chosen; the other's records are skipped
    other = list(row)
    other[0], other[1] = "202405149999", "Another Night"
    two = {**files, "thexport.dbf": raw_dbf(h_fields, [row, other])}
    with pytest.raises(InputError, match="choose one"):
        parse_files(two)
    assert parse_files(two, event_id="202405077719").name == "Tuesday Night Action"
    with pytest.raises(InputError, match="no sections for event 202405149999"):
        parse_files(two, event_id="202405149999")  # its sections are absent
    with pytest.raises(InputError, match="no event '1'"):
        parse_files(two, event_id="1")


def test_missing_fields_are_named():
    files = compact_2c()
    table = parse_dbf(files["tdexport.dbf"], raw=True)
    fields = [(f.name, f.type, f.length) for f in table.fields if f.name != "D_PAIR_NUM"]
    rows = [[rec[f[0]] for f in fields] for rec in table.records]
    with pytest.raises(InputError, match="D_PAIR_NUM is missing"):
        parse_files({**files, "tdexport.dbf": raw_dbf(fields, rows)})


def test_blank_member_id_and_online_and_extension_codes():
    rows = [["", "1", "1", "", "Walk-in, Pat", "", "", "W2"],
            ["", "1", "2", "12345678", "Known, Kim", "IL", "", "L1"]]
    d = D_2C + [("D_RND01", "C", 7)]
    h = raw_dbf(H_2C + [("H_ONLINE", "C", 1)],
                [["", "Online Blitz", "2C", "1", "20240101", "20240101", *[""] * 9, "Y"]])
    s = raw_dbf(S_2C, [["", "1", "Blitz", "", "G/3;+2", "", "", "M", "1", "2", "", "", "",
                        "", "", ""]])
    event = parse_uscf_dbf(h, s, raw_dbf(d, rows))
    (sec,) = event.sections
    assert event.online and sec.online and sec.kind == "match" and sec.systems is None
    assert event.id is None
    assert [p.id for p in sec.players] == ["dbf-1-1", "12345678"]
    # an online system code (project extension) implies online
    s3 = raw_dbf([*S_2C[:3], ("S_R_SYSTEM", "C", 9), *S_2C[4:]],
                 [["", "1", "Blitz", "OLB", "G/3;+2", "", "", "S", "1", "2", "", "", "", "",
                   "", ""]])
    h_off = raw_dbf(H_2C, [["", "Online Blitz", "2C", "1", "20240101", "20240101", *[""] * 9]])
    sec3 = parse_uscf_dbf(h_off, s3, raw_dbf(d, rows)).sections[0]
    assert sec3.online and sec3.systems == ["OLB"]


# --------------------------------------------------------------------------
# Locating the files

def test_find_report_files_case_and_prefix(tmp_path):
    for name, data in compact_2c().items():
        (tmp_path / name).write_bytes(data)
    found = find_report_files(tmp_path)
    assert {k: p.name for k, p in found.items()} == {
        "header": "thexport.dbf", "sections": "tsexport.dbf", "details": "tdexport.dbf"}
    prefixed = tmp_path / "prefixed"
    prefixed.mkdir()
    for name, data in compact_2c().items():
        (prefixed / f"CLUB_{name.upper()}").write_bytes(data)
    assert read_uscf_dbf(prefixed).name == "Tuesday Night Action"
    for name, data in compact_2c().items():
        (prefixed / f"OTHER{name.upper()}").write_bytes(data)
    with pytest.raises(InputError, match="several rating reports"):
        find_report_files(prefixed)
    empty = tmp_path / "empty"
    empty.mkdir()
    (empty / "THEXPORT.DBF").write_bytes(b"")
    with pytest.raises(InputError, match="missing TSEXPORT.DBF, TDEXPORT.DBF"):
        find_report_files(empty)
    with pytest.raises(InputError, match="no such directory"):
        find_report_files(tmp_path / "nowhere")


# --------------------------------------------------------------------------
# Writing and round trips

def synthetic_event():
    """Every model feature the report can carry."""
    raw = {
        "event": {"name": "Weekend Festival — Ünïcode Edition", "start": "2024-07-01",
                  "end": "2024-07-07", "online": False},
        "sections": [
            {"name": "Championship With A Long Section Name Here", "time_control": "40/120;SD/30;d5",
             "start": "2024-07-02", "systems": ["OTBR"], "half_k": True,
             "players": [
                 {"pair": 1, "id": "12345678", "name": "Škoda, Jan", "state": "CA",
                  "rounds": ["W2", "X3", "D2"]},
                 {"pair": 2, "id": "23456789", "name": "A Very Long Player Name, Exceeding Thirty",
                  "rounds": ["L1", "B", "D1"]},
                 {"pair": 3, "id": "NEW-0003", "name": "Walk-in, Lee",
                  "rounds": ["H", "F1", "U"]}]},
            {"name": "Quick Match", "time_control": "G/15;d5", "type": "match",
             "systems": ["OTBQ", "OTBR"], "end": "2024-07-03",
             "players": [{"pair": 7, "id": "34567890", "name": "Ng, Al", "rounds": ["W12", "Z12"]},
                         {"pair": 12, "id": "45678901", "name": "Oz, Bo", "rounds": ["L7", "Z7"]}]},
            {"name": "Online Blitz", "time_control": "G/3;+2", "online": True, "type": "round-robin",
             "players": [{"pair": 1, "id": "34567890", "name": "Ng, Al", "rounds": ["X", "F2"]},
                         {"pair": 2, "id": "45678901", "name": "Oz, Bo", "rounds": ["Z", "X1"]}]},
            {"name": "Online Rapid", "time_control": "G/10;+5", "online": True,
             "systems": ["OLQ"],
             "players": [{"pair": 1, "id": "34567890", "name": "Ng, Al", "rounds": ["D2"]},
                         {"pair": 2, "id": "45678901", "name": "Oz, Bo", "rounds": ["D1"]}]},
        ],
    }
    return event_from_dict(raw)


def test_synthetic_round_trip_through_dbf(tmp_path):
    event = synthetic_event()
    event.sections[0].players[0].ratings = {}
    write_uscf_dbf(event, tmp_path)
    back = read_uscf_dbf(tmp_path)
    assert as_dict(back) == as_dict(event)
    # dbfread reads what was written
    for name in uscf_dbf.FILE_NAMES.values():
        assert len(list(dbfread.DBF(str(tmp_path / name), encoding="cp1252"))) > 0


def test_club_championship_round_trip(tmp_path):
    event = load_event(CLUB_YAML)
    write_uscf_dbf(event, tmp_path)
    back = read_uscf_dbf(tmp_path)
    # the report carries no member data ...
    assert all(p.ratings == {} and p.fide is None for s in back.sections for p in s.players)
    # ... which the players file restores
    assert as_dict(merge_players(back, players_from_event(event))) == as_dict(event)
    table = {r["D_MEM_ID"]: r for r in dbfread.DBF(str(tmp_path / "TDEXPORT.DBF"))}
    assert table["12873461"]["D_RATING"] == "2215"
    assert table["31554208"]["D_RATING"] == ""
    assert table["12650034"]["D_RND03"].strip() == "U    0".strip()


def test_club_championship_same_from_yaml_dbf_and_trf():
    from_yaml = load_event_any(CLUB_YAML)
    from_dbf = load_event_any(FIXTURES / "club-championship", CLUB_PLAYERS)
    from_trf = load_event_any(ROOT / "fixtures" / "trf" / "club-championship.trf", CLUB_PLAYERS)
    assert as_dict(from_dbf) == as_dict(from_yaml)
    assert as_dict(from_trf) == as_dict(from_yaml)
    open_, u1600 = from_dbf.sections
    assert len(open_.players) == 8 and len(open_.players[0].rounds) == 4
    assert len(u1600.players) == 6 and u1600.systems == ["OTBR", "OTBQ"]
    unrated = [p.id for s in from_dbf.sections for p in s.players if not p.ratings]
    assert unrated == ["31554208", "31601177", "31601198"]


def test_writer_refuses_and_leaves_nothing(tmp_path):
    event = load_event(CLUB_YAML)
    event.sections[1].players[0].name = "Łukasiewicz, Jan"  # not in cp1252
    with pytest.raises(InputError, match="cp1252") as info:
        write_uscf_dbf(event, tmp_path / "out")
    assert info.value.field == "D_NAME"
    assert not (tmp_path / "out").exists() or not list((tmp_path / "out").iterdir())


def test_writer_failure_keeps_the_previous_report(tmp_path, monkeypatch):
    event = load_event(CLUB_YAML)
    write_uscf_dbf(event, tmp_path)
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    event.name = "Renamed"
    calls = []

    def failing_fsync(fd):
        calls.append(fd)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", failing_fsync)
    with pytest.raises(InputError, match="No space left"):
        write_uscf_dbf(event, tmp_path)
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before


def test_writer_overwrites_existing_spelling(tmp_path):
    for name, data in compact_2c().items():
        (tmp_path / name).write_bytes(data)
    event = load_event(CLUB_YAML)
    paths = write_uscf_dbf(event, tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["tdexport.dbf", "thexport.dbf",
                                                         "tsexport.dbf"]
    assert paths["header"].name == "thexport.dbf"
    assert as_dict(merge_players(read_uscf_dbf(tmp_path), players_from_event(event))) == \
        as_dict(event)


def test_writer_header_fields():
    blobs = build_uscf_dbf(load_event(CLUB_YAML), header={"H_AFF_ID": "A1"})
    head = parse_dbf(blobs["THEXPORT.DBF"]).records[0]
    assert head["H_AFF_ID"] == "A1" and head["H_FORMAT"] == "2C"
    with pytest.raises(InputError, match="cannot set"):
        build_uscf_dbf(load_event(CLUB_YAML), header={"H_NAME": "x"})


# --------------------------------------------------------------------------
# Players file

def test_players_file_merge_rules():
    event = read_uscf_dbf(FIXTURES / "compact-2c")
    players = parse_players({"players": {
        12345678: {"ratings": {"OTBR": {"rating": 1850, "games": 40}}, "adult": True,
                   "state": "NH", "name": "Ignored, Name"},
        "23456789": {"fide": {"rating": 1700, "date": "2024-05-01"}, "birth_date": "2012-01-02"},
        "99999999": {"ratings": {"OTBQ": {"rating": 1000, "games": 5}}},
    }})
    merged = merge_players(event, players)
    p1, p2, p3 = merged.sections[0].players[:3]
    assert p1.ratings["OTBR"].rating == 1850 and p1.ratings["OTBR"].games == 40
    assert p1.adult is True and p1.state == "NH" and p1.name == "FERRIS, ALAN"
    assert p2.fide.rating == 1700 and p2.fide.date == dt.date(2024, 5, 1)
    assert p2.birth_date == dt.date(2012, 1, 2) and p2.ratings == {}
    assert p3.ratings == {}  # not in the file: unrated
    assert event.sections[0].players[0].ratings == {}  # the input is unchanged


@pytest.mark.parametrize("raw,words", [
    ([], "mapping of member ids to entries"),
    ({"players": []}, "map member ids"),
    ({"players": {}, "extra": 1}, "unknown top-level"),
    ({"players": {"1": {"rating": 1500}}}, "unknown field"),
    ({"players": {"1": {"ratings": {"OTBR": {"rating": 1500}}}}}, "missing 'games'"),
    ({"players": {"1": {"ratings": {"XYZ": {"rating": 1500, "games": 3}}}}}, "unknown rating system"),
    ({"players": {"1": {"adult": "yes"}}}, "true or false"),
    ({"players": {"1": {"fide": {"rating": "high"}}}}, "'rating' must be a number"),
    ({"players": {"1": {"birth_date": "someday"}}}, "not a date"),
    ({"players": {"1": "text"}}, "must be a mapping"),
    ({"players": {1: {}, "1": {}}}, "listed twice"),
    ({"12": {"id": "13"}}, "not the id it is listed under"),
    ({"12": {"ratings": {"OTBR": {"rating": 1500}}}}, "missing 'games'"),
])
def test_players_file_refusals(raw, words):
    with pytest.raises(InputError, match=words):
        parse_players(raw, source="players.yaml")


def test_players_file_may_be_a_plain_mapping_whose_entries_repeat_their_ids():
    wrapped = parse_players({"players": {"12873461": {"ratings": {"OTBR": {"rating": 2215,
                                                                           "games": 412}}}}})
    plain = parse_players({12873461: {"id": 12873461, "ratings": {"OTBR": {"rating": 2215,
                                                                          "games": 412}}},
                           "30000001": {"id": "30000001", "adult": True}})
    assert plain["12873461"] == wrapped["12873461"]
    assert plain["30000001"].adult is True


def test_players_file_round_trip_and_json(tmp_path):
    import json
    event = load_event(CLUB_YAML)
    data = players_to_dict(players_from_event(event))
    path = tmp_path / "players.json"
    path.write_text(json.dumps(data))
    loaded = load_players(path)
    assert as_dict(merge_players(read_uscf_dbf(FIXTURES / "club-championship"), loaded)) == \
        as_dict(event)
    bad = tmp_path / "bad.yaml"
    bad.write_text("players: {a: [1, 2")
    with pytest.raises(InputError, match="malformed YAML") as info:
        load_players(bad)
    assert info.value.file == str(bad)
    with pytest.raises(InputError, match="no such file"):
        load_players(tmp_path / "missing.yaml")


# --------------------------------------------------------------------------
# Detection

def test_detect_formats(tmp_path):
    assert detect_format(FIXTURES / "compact-2c") == "dbf"
    assert detect_format(FIXTURES / "padded-2c" / "TDEXPORT.DBF") == "dbf"
    assert detect_format(CLUB_YAML) == "event"
    assert detect_format(ROOT / "fixtures" / "trf" / "club-championship.trf") == "trf"
    assert load_event_any(FIXTURES / "old-layout" / "THEXPORT.DBF").id == "980517003"
    txt = tmp_path / "notes.txt"
    txt.write_text("Round 1 pairings\n")
    with pytest.raises(InputError, match="TRF") as info:
        load_event_any(txt)
    assert info.value.file == str(txt)
    other = tmp_path / "event.pgn"
    other.write_text("[Event]")
    with pytest.raises(InputError, match="unknown event format") as info:
        load_event_any(other)
    assert info.value.file == str(other)
    with pytest.raises(InputError, match="no such file"):
        load_event_any(tmp_path / "missing.trf")
    not_report = tmp_path / "empty-dir"
    not_report.mkdir()
    with pytest.raises(InputError, match="not a rating report"):
        load_event_any(not_report)
    trf_txt = tmp_path / "export.txt"
    shutil.copy(ROOT / "fixtures" / "trf" / "club-championship.trf", trf_txt)
    assert load_event_any(trf_txt, CLUB_PLAYERS).id == "202403251012"


if __name__ == "__main__":
    regenerate()
