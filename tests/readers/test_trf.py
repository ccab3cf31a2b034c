"""FIDE TRF (TRF-16 and TRF26): reading, writing, round trips, refusals."""

from __future__ import annotations

import datetime as dt
from dataclasses import replace
from pathlib import Path

import pytest

from uschess.errors import InputError
from uschess.io.eventfile import event_from_dict, event_to_dict, load_event
from uschess.io.formats.players import load_players, merge_players, players_from_event
from uschess.io.formats.trf import (TrfPlayerDetails, looks_like_trf, parse_trf, read_trf,
                                write_trf, write_trf_file)

ROOT = Path(__file__).resolve().parents[2]
TRF = ROOT / "fixtures" / "trf"
CLUB_YAML = ROOT / "fixtures" / "events" / "club-championship.yaml"
CLUB_PLAYERS = ROOT / "fixtures" / "events" / "club-championship.players.yaml"


def rounds_of(section):
    return {p.pair: [str(r) for r in p.rounds] for p in section.players}


# --------------------------------------------------------------------------
# Reading

def test_trf16_every_result_code():
    details = {}
    event = read_trf(TRF / "trf16-budapest.trf", details=details)
    assert (event.name, event.start, event.end, event.id) == \
        ("Budapest Spring Open 2024", dt.date(2024, 4, 2), dt.date(2024, 4, 6), None)
    (sec,) = event.sections
    assert (sec.name, sec.kind, sec.systems, sec.time_control) == \
        ("Budapest Spring Open 2024", "swiss", None, "90 min/40 moves + 30 min + 30 sec/move")
    assert rounds_of(sec) == {
        # 1 W, W (game under one move) -> X, F (full-point bye) -> B
        1: ["W4", "X3", "D2", "B", "W6", "W3"],
        # + forfeit win -> X, Z (zero-point bye) -> U
        2: ["X5", "W6", "D1", "L3", "D4", "U"],
        # L (under one move) -> F, H half-point bye
        3: ["D6", "F1", "H", "W2", "L5", "L1"],
        # D (under one move) -> Z, U (pairing-allocated bye) -> B, double forfeit -> F,
        # a missing sixth block -> U
        4: ["L1", "Z5", "B", "F", "D2", "U"],
        # - forfeit loss -> F, blank result against 0000 -> U
        5: ["F2", "Z4", "L6", "U", "W3", "D6"],
        6: ["D3", "L2", "W5", "F", "L1", "D5"],
    }
    p1, p2, _, _, p5, _ = sec.players
    assert p1.id == "700123" and p5.id == "trf-5"            # FIDE id, else trf-<rank>
    assert p1.fide.rating == 2512 and p1.fide.date == event.start
    assert p5.fide is None                                    # blank FIDE rating
    assert p1.birth_date == dt.date(1985, 3, 2)
    # 1992/00/00 and 1978: the year only, kept as a year (tests/rules/test_age_birth_year.py)
    assert (repr(p2.birth_date), repr(p5.birth_date)) == ("BirthYear(1992)", "BirthYear(1978)")
    assert all(p.ratings == {} for p in sec.players)
    info = details[(sec.name, 1)]
    assert (info.sex, info.title, info.federation, info.fide_id) == ("m", "GM", "HUN", "700123")
    assert info.colours == ["W", "B", "W", None, "B", "W"]


def test_trf26_national_records():
    event = read_trf(TRF / "trf26-cleveland.trf")
    (sec,) = event.sections
    ids = {p.pair: p.id for p in sec.players}
    # USA national number, else FIDE id, else trf-<starting rank>
    assert ids == {1: "12701234", 2: "15508800", 3: "30122334", 4: "trf-4", 5: "11112222"}
    assert {p.pair: p.state for p in sec.players} == {1: "OH", 2: "OH", 3: "OH", 4: "PA", 5: None}
    # the national rating is only displayed: no rating record
    assert all(p.ratings == {} for p in sec.players)
    assert sec.players[0].fide.rating == 2288
    # tag 142 says five rounds; four were played
    assert rounds_of(sec) == {1: ["W3", "D2", "W5", "W4", "U"], 2: ["W4", "D1", "X3", "L5", "U"],
                              3: ["L1", "W5", "F2", "H", "U"], 4: ["L2", "B", "U", "L1", "U"],
                              5: ["B", "L3", "L1", "W2", "U"]}
    assert sec.time_control == "G/90;+30"


def test_trf_from_bytes_and_encodings():
    text = (TRF / "trf16-budapest.trf").read_text()
    as_cp1252 = text.replace("Kovacs", "Kovács").encode("cp1252")
    assert parse_trf(as_cp1252).sections[0].players[0].name == "Kovács, Andras"
    as_utf8 = "\ufeff" + text.replace("Kovacs", "Kovács")
    assert parse_trf(as_utf8.encode("utf-8")).sections[0].players[0].name == "Kovács, Andras"


def test_looks_like_trf():
    assert looks_like_trf("\n012 Open\n")
    assert looks_like_trf("### comment\n001    1")
    assert not looks_like_trf("Round 1 pairings")
    assert not looks_like_trf("0123")
    assert not looks_like_trf("")


def test_several_blocks_without_metadata():
    text = (TRF / "trf16-budapest.trf").read_text()
    event = parse_trf(text + text)
    assert [s.name for s in event.sections] == ["Budapest Spring Open 2024",
                                                "Budapest Spring Open 2024 (2)"]


# --------------------------------------------------------------------------
# Round trips

def as_dict(event):
    return event_to_dict(event)


def test_club_championship_round_trip():
    event = load_event(CLUB_YAML)
    text = write_trf(event)
    back = parse_trf(text)
    assert [s.name for s in back.sections] == ["OPEN", "U1600"]
    assert back.id == "202403251012"
    assert as_dict(merge_players(back, load_players(CLUB_PLAYERS))) == as_dict(event)
    assert as_dict(merge_players(back, players_from_event(event))) == as_dict(event)
    assert (TRF / "club-championship.trf").read_bytes() == \
        text.replace("\n", "\r\n").encode("utf-8")


def synthetic():
    raw = {
        "event": {"name": "Summer Online & OTB Festival", "id": "202408010042",
                  "start": "2024-07-28", "end": "2024-08-05", "online": True},
        "sections": [
            {"name": "Championship", "time_control": "G/120;d5", "start": "2024-08-01",
             "end": "2024-08-03", "systems": ["OTBR"], "online": False, "half_k": True,
             "type": "round-robin",
             "players": [
                 {"pair": 1, "id": "12345678", "name": "Ábrahám, Zsófia", "state": "NY",
                  "birth_date": "2009-04-30", "fide": {"rating": 2010, "date": "2024-07-28"},
                  "rounds": ["W2", "X3", "D4"]},
                 {"pair": 2, "id": "23456789", "name": "Bell, Tom",
                  "rounds": ["L1", "Z4", "F3"]},
                 {"pair": 3, "id": "trf-3", "name": "Cruz, Ana",
                  "rounds": ["H", "F1", "X2"]},
                 {"pair": 4, "id": "NEW 0004".replace(" ", "-"), "name": "Dunn, Ed",
                  "rounds": ["B", "Z2", "D1"]}]},
            {"name": "Online Blitz", "time_control": "G/3;+2", "systems": ["OLB", "OLQ"],
             "type": "match", "start": "2024-08-05",
             "players": [{"pair": 7, "id": "34567890", "name": "Ng, Al", "rounds": ["X", "U"]},
                         {"pair": 9999, "id": "trf-9998", "name": "Oz, Bo",
                          "rounds": ["F", "Z"]}]},
        ],
    }
    return event_from_dict(raw)


def test_synthetic_round_trip():
    event = synthetic()
    text = write_trf(event)
    assert "### uschess event-start=2024/07/28" in text
    assert "### uschess online=no" in text
    assert as_dict(parse_trf(text)) == as_dict(event)


def test_trf_to_event_to_trf_keeps_details():
    for name in ("trf16-budapest.trf", "trf26-cleveland.trf"):
        details = {}
        event = read_trf(TRF / name, details=details)
        again_details = {}
        again = parse_trf(write_trf(event, details=details), details=again_details)
        assert as_dict(again) == as_dict(event)
        assert again_details == details


def test_write_trf_columns():
    event = read_trf(TRF / "trf26-cleveland.trf")
    details = {}
    read_trf(TRF / "trf26-cleveland.trf", details=details)
    lines = write_trf(event, details=details).splitlines()
    first = next(line for line in lines if line.startswith("001    1"))
    assert first[14:47].rstrip() == "Rivera, Carlos"
    assert first[48:52] == "2288" and first[53:56] == "USA" and first[57:68] == "    2045678"
    assert first[69:79] == "1994/06/11" and first[80:84] == " 3.5" and first[85:89] == "   1"
    assert first[91:99] == "   3 w 1" and first[101:109] == "   2 b ="
    usa = next(line for line in lines if line.startswith("USA    4"))
    assert usa[53:55] == "PA" and usa[57:68].strip() == ""
    # without details, colours are unknown: '-'
    plain = write_trf(event).splitlines()
    assert next(line for line in plain if line.startswith("001    1"))[91:99] == "   3 - 1"


def test_write_trf_file_crlf_and_atomic(tmp_path):
    path = tmp_path / "out.trf"
    write_trf_file(load_event(CLUB_YAML), path)
    data = path.read_bytes()
    assert data.count(b"\r\n") == data.count(b"\n") > 40
    assert [p.name for p in tmp_path.iterdir()] == ["out.trf"]


@pytest.mark.parametrize("edit,words", [
    (lambda e: setattr(e.sections[0].players[0], "name", "X" * 34), "33 columns"),
    (lambda e: setattr(e.sections[0].players[0], "id", "has space"), "national number"),
    (lambda e: setattr(e.sections[0].players[0], "id", "123456789012"), "national number"),
    (lambda e: setattr(e.sections[0].players[0], "state", "ILLINOIS"), "national origin"),
    (lambda e: setattr(e.sections[0], "time_control", " G/90"), "surrounding blanks"),
    (lambda e: setattr(e.sections[0], "kind", "knockout"), "no TRF equivalent"),
])
def test_write_trf_refusals(edit, words):
    event = load_event(CLUB_YAML)
    edit(event)
    with pytest.raises(InputError, match=words):
        write_trf(event)


def test_write_trf_refuses_large_pairs():
    event = synthetic()
    sec = event.sections[1]
    sec.players[1].pair = 10000
    sec.players[0].rounds[0] = replace(sec.players[0].rounds[0], opponent=None)
    with pytest.raises(InputError, match="starting rank"):
        write_trf(event)


# --------------------------------------------------------------------------
# Refusals

BASE = (TRF / "trf16-budapest.trf").read_text()


def replace_line(prefix: str, new: str) -> str:
    lines = BASE.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(prefix))
    lines[index] = new
    return "\n".join(lines) + "\n"


def with_cell(rank: int, rnd: int, cell: str) -> str:
    lines = BASE.splitlines()
    index = next(i for i, line in enumerate(lines) if line.startswith(f"001 {rank:>4}"))
    line = lines[index].ljust(91 + 10 * rnd)
    start = 91 + 10 * (rnd - 1)
    lines[index] = (line[:start] + cell.ljust(8) + line[start + 8:]).rstrip()
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize("text,words,record", [
    (with_cell(1, 1, "   x w 1"), "not a starting rank", 13),
    (with_cell(1, 1, "   4 q 1"), "colour", 13),
    (with_cell(1, 1, "   4 w ?"), "unknown result code", 13),
    (with_cell(1, 1, "   4 w  "), "has no result", 13),
    (with_cell(1, 1, "0000 - 1"), "no opponent", 13),
    (with_cell(1, 1, "   4 w H"), "is a bye", 13),
    (with_cell(1, 1, "   4 w ="), "results disagree", None),
    (with_cell(1, 1, "  99 w 1"), "does not exist", None),
    (replace_line("042", "042 2024/02/30"), "not a date", 4),
    (replace_line("122", "122"), "no time control", None),
    (replace_line("001    2", "001    0 w IM Petrova"), "outside 1..9999", 14),
    (replace_line("001    2", "001  abc"), "not a number", 14),
    (replace_line("001    2", "001    2 w IM Petrova, Elena                    23x8"),
     "FIDE rating", 14),
    (replace_line("001    2", "001    2 w IM Petrova, Elena                    2398 BUL     29o1234"),
     "FIDE id", 14),
    (replace_line("001    2", "001    2 w IM Petrova, Elena                    2398 BUL     2901234 1992/13/45"),
     "calendar date", 14),
    (replace_line("001    2", "001    2 w IM Petrova, Elena                    2398 BUL     2901234 19-2"),
     "birth date", 14),
    (replace_line("022", "Budapest"), "TRF record code", 2),
    (replace_line("022", "022Budapest"), "TRF record code", 2),
    (replace_line("022", "USA    9                                        2201 OH     12701234"),
     "no 001 record", 2),
    (replace_line("022", "### uschess colour=white"), "unknown uschess comment key", 2),
    (replace_line("022", "### uschess systems=OTBR,FIDE"), "systems=", 2),
    (replace_line("022", "### uschess online=maybe"), "yes or no", 2),
    (replace_line("XXR", "XXR 120"), "number of rounds", 19),
    (replace_line("XXR", "XXR " + "9" * 5001), "number of rounds", 19),  # not converted
    ("012 Empty\n042 2024/01/01\n", "no player records", None),
    ("", "no player records", None),
])
def test_refusals(text, words, record):
    with pytest.raises(InputError, match=words) as info:
        parse_trf(text, source="t.trf")
    assert info.value.file == "t.trf"
    if record is not None:
        assert info.value.record == record


def test_missing_start_date_falls_back_to_round_dates():
    text = replace_line("042", "062 6").replace("052 2024/04/06\n", "")
    event = parse_trf(text)
    assert (event.start, event.end) == (dt.date(2024, 4, 2), dt.date(2024, 4, 6))
    no_dates = "\n".join(line for line in text.splitlines() if not line.startswith("132"))
    with pytest.raises(InputError, match="no start date"):
        parse_trf(no_dates)


def test_rounds_tag_with_leading_zeros():
    """The rounds tag's digits are counted without leading zeros."""
    assert parse_trf(replace_line("XXR", "XXR 0000000000005")).sections[0].players


def test_too_many_rounds_refused():
    line = next(line for line in BASE.splitlines() if line.startswith("001    1"))
    long_line = line.ljust(91) + "0000 - Z  " * 120
    with pytest.raises(InputError, match="more than 99 rounds"):
        parse_trf(BASE.replace(line, long_line.rstrip()))


def test_details_type():
    assert TrfPlayerDetails().colours == []


if __name__ == "__main__":  # regenerate the club championship TRF
    write_trf_file(load_event(CLUB_YAML), TRF / "club-championship.trf")
