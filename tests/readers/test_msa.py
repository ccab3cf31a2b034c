"""The MSA crosstable reader and writer (engine/formats/msa.py)."""

from __future__ import annotations

import datetime as dt

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uschess.errors import InputError
from uschess.io.formats.msa import (ESTABLISHED_GAMES, MsaRow, format_msa, load_msa,
                                looks_like_msa, parse_msa, rows_from_crosstable)
from uschess.model import Round

from helpers import TEACHING_MSA, examples

FIXTURE = TEACHING_MSA
TEXT = FIXTURE.read_text(encoding="utf-8") if FIXTURE.is_file() else ""
pytestmark = pytest.mark.shared_data
START = dt.date(2016, 1, 15)


def parse(text: str, **kw):
    return parse_msa(text, source="t.txt", start=START, **kw)


def line1(pair: int) -> int:
    """Line number of a pair's first line in the fixture (4 header lines, 3 a player)."""
    return 5 + 3 * (pair - 1)


def edit(text: str, number: int, old: str, new: str) -> str:
    """Replace ``old`` (which must occur) on line ``number``."""
    lines = text.split("\n")
    assert old in lines[number - 1], (old, lines[number - 1])
    lines[number - 1] = lines[number - 1].replace(old, new, 1)
    return "\n".join(lines)


@pytest.fixture(scope="module")
def ct():
    return load_msa(FIXTURE, start=START)


# ---------------------------------------------------------------- the real file

def test_shape(ct):
    assert len(ct.event.sections) == 1
    section = ct.section
    assert len(section.players) == 64 and ct.rounds == 7
    assert [p.pair for p in section.players] == list(range(1, 65))
    assert set(ct.published) == set(range(1, 65))
    assert ct.event.source == str(FIXTURE)
    assert section.start == section.end == START and section.time_control == "G/120"


def test_pair_1(ct):
    p = ct.section.player(1)
    pub = ct.published[1]
    assert (p.name, p.id, p.state) == ("GARY HUA", "15445895", "ON")
    assert pub.total == 6.0 == p.total
    assert [str(r) for r in p.rounds] == ["W39", "W21", "W18", "W14", "W7", "D12", "D4"]
    assert (pub.pre, pub.pre_games, pub.post, pub.post_games) == (1794, None, 1817, None)
    assert pub.games_assumed
    assert p.ratings["OTBR"].rating == 1794 and p.ratings["OTBR"].games == ESTABLISHED_GAMES
    assert pub.norm == "N:2" and pub.colours == ["W", "B", "W", "B", "W", "B", "W"]


def test_pair_8_provisional(ct):
    pub = ct.published[8]
    assert (pub.pre, pub.pre_games, pub.post, pub.post_games) == (1641, 17, 1657, 24)
    assert not pub.games_assumed
    rec = ct.section.player(8).ratings["OTBR"]
    assert (rec.rating, rec.games) == (1641, 17)


def test_provisional_becoming_established(ct):
    pub = ct.published[21]  # 1563P22->1562
    assert (pub.pre, pub.pre_games, pub.post, pub.post_games) == (1563, 22, 1562, None)


def test_pair_12_half_point_bye(ct):
    p = ct.section.player(12)
    assert p.rounds[4] == Round("H", None)
    assert p.total == ct.published[12].total == 4.5
    assert ct.published[12].colours[4] == ""


def test_forfeit_and_unplayed(ct):
    p = ct.section.player(41)
    assert p.rounds[4:] == [Round("X", None), Round("U", None), Round("U", None)]
    assert ct.section.player(37).rounds[0] == Round("B", None)


def test_unrated_player():
    for spelling in ("Unrated", "UNR", "(unr.)", ""):
        text = edit(TEXT, line1(46) + 1, " 377P3 ->", f"{spelling}->")
        ct = parse(text)
        pub = ct.published[46]
        assert pub.pre is None and pub.pre_games is None and not pub.games_assumed
        assert ct.section.player(46).ratings == {}
        assert "Unrated->1076P10" in format_msa(rows_from_crosstable(ct), 7)


def test_looks_like_msa():
    assert looks_like_msa(TEXT)
    assert looks_like_msa("\n".join(TEXT.split("\n")[4:12]))  # no header
    assert not looks_like_msa("event:\n  name: x\n")
    assert not looks_like_msa("a | b | c | d | e |")
    assert not looks_like_msa(None)


# ---------------------------------------------------------------- writing

def test_round_trip_is_byte_identical(ct):
    assert format_msa(rows_from_crosstable(ct), 7) == TEXT


def same(a, b):
    assert [(p.pair, p.id, p.name, p.state, p.rounds, p.ratings) for p in a.section.players] == \
        [(p.pair, p.id, p.name, p.state, p.rounds, p.ratings) for p in b.section.players]
    assert a.published == b.published


def test_round_trip(ct):
    same(parse(format_msa(rows_from_crosstable(ct), 7)), ct)


def test_format_from_cells_and_floats():
    rows = [
        MsaRow(1, "A B", 1.5, ["W   2", "H"], "MI", "12345678", 1500.4, None, 1512.5, None),
        MsaRow(2, "C D", 0.5, [Round("L", 1), Round("H")], None, "23456789", None, None,
               1400, 2, colours=["B", ""]),
        MsaRow(3, "E F" * 20, 1.0, [Round("B"), Round("F", 4)], "OH", "3", 980, 3, 990, 5),
        MsaRow(4, "G", 1.0, [Round("U"), Round("X", 3)], "OH", "4", 2200, None, 2210, None),
    ]
    out = format_msa(rows, 2)
    assert "12345678 / R: 1500   ->1513" in out
    assert "23456789 / R: Unrated->1400P2" in out
    assert " 980P3 -> 990P5" in out
    ct = parse(out)
    assert ct.published[2].pre is None and ct.published[3].name == "E F" * 20
    assert ct.section.player(3).rounds == [Round("B"), Round("F", 4)]


@pytest.mark.parametrize("change, message", [
    (dict(name="A|B"), "cannot be written"),
    (dict(rounds=["W   2"]), "has 1 rounds"),
    (dict(rounds=["W", "H"]), "opponent"),
    (dict(colours=["W"]), "colours"),
    (dict(post=float("nan")), "not a number"),
])
def test_format_rejects(change, message):
    row = dict(pair=1, name="A B", total=1.0, rounds=["W   2", "H"], state="MI",
               id="12345678", pre=1500, pre_games=None, post=1510, post_games=None)
    row.update(change)
    with pytest.raises(InputError, match=message):
        format_msa([MsaRow(**row)], 2)


# ---------------------------------------------------------------- broken input

BROKEN = {
    "truncated line": (lambda t: edit(t, line1(1), "D  12|D   4|", "D  1"),
                       line1(1), "does not end with '|'"),
    "garbage rating": (lambda t: edit(t, line1(1) + 1, "1794 ", "17x4 "),
                       line1(1) + 1, "is not a rating"),
    "rating out of range": (lambda t: edit(t, line1(8) + 1, "1641P17", "9641P17"),
                            line1(8) + 1, "impossible"),
    "provisional count": (lambda t: edit(t, line1(8) + 1, "1641P17", "1641P0 "),
                          line1(8) + 1, "1 to 25 games"),
    "opponent 99": (lambda t: edit(t, line1(1), "W  39", "W  99"),
                    line1(1), "opponent pair 99 does not exist"),
    "W against W": (lambda t: edit(edit(t, line1(39), "L   1", "W   1"), line1(39), "3.0", "4.0"),
                    line1(1), "results disagree"),
    "wrong total": (lambda t: edit(t, line1(2), "6.0", "5.0"), line1(2), "add up to 6"),
    "bad code": (lambda t: edit(t, line1(3), "L   8", "Q   8"), line1(3), "round cell"),
    "bye with opponent": (lambda t: edit(t, line1(12), "H    ", "H  20"), line1(12), "bye"),
    "game without opponent": (lambda t: edit(t, line1(12), "W  42", "W    "), line1(12),
                              "needs the opponent"),
    "bad colour": (lambda t: edit(t, line1(1) + 1, "|W    |B", "|G    |B"), line1(1) + 1, "colour"),
    "wrong label": (lambda t: edit(t, line1(1) + 1, "R: 1794", "Q: 1794"), line1(1) + 1,
                    "labelled 'Q:'"),
    "missing second line": (lambda t: "\n".join(l for i, l in enumerate(t.split("\n"), 1)
                                                if i != line1(5) + 1),
                            line1(5), "second line (state | ID / R: pre->post | ...) is missing"),
    "extra round cell": (lambda t: edit(t, line1(4), "D   1|", "D   1|U    |"), line1(4),
                         "8 round cells, expected 7"),
    "pair listed twice": (lambda t: edit(t, line1(5), "    5 |", "    4 |"), line1(5),
                          "listed twice"),
    "stray text": (lambda t: edit(t, 4, "-" * 89, "hello"), 4, "expected a player line"),
    "second line replaced": (lambda t: "\n".join(l for i, l in enumerate(t.split("\n"), 1)
                                                 if i not in (line1(5) + 1, line1(5) + 2)),
                             line1(5) + 1, "found a player line where the second line"),
    "garbled ID": (lambda t: edit(t, line1(6) + 1, "15055204 /", "15055204 "),
                   line1(6) + 1, "expected 'ID / R"),
    # thousands of digits, which Python will not convert (past 4,300): refused
    # by their count, as any impossible pair number is
    "opponent of 5001 digits": (lambda t: edit(t, line1(12), "W  42", "W " + "4" * 5001),
                                line1(12), "a pair number of 5001 digits is impossible"),
    "pair of 5001 digits": (lambda t: edit(t, line1(5), "    5 |", "5" * 5001 + " |"), line1(5),
                            "a pair number of 5001 digits is impossible"),
    "cell of 5001 letters": (lambda t: edit(t, line1(12), "W  42", "W" * 5001), line1(12),
                             "'WWWWWWWWWWWWWWWWWWWWWWWW'... is not W/L/D/X/F/Z"),
}


@pytest.mark.parametrize("case", BROKEN)
def test_broken_input(case):
    make, number, message = BROKEN[case]
    with pytest.raises(InputError) as info:
        parse(make(TEXT))
    err = info.value
    assert err.file == "t.txt" and err.record == number, str(err)
    assert message in err.message, str(err)
    assert f"record {number}" in str(err)


def test_error_names_player():
    with pytest.raises(InputError) as info:
        parse(edit(TEXT, line1(8) + 1, "1641P17", "16x1P17"))
    assert info.value.player == "8 (EZEKIEL HOUGHTON)"


def test_arguments_and_files(tmp_path):
    with pytest.raises(InputError, match="no such file"):
        load_msa(tmp_path / "missing.txt", start=START)
    with pytest.raises(InputError, match="is a directory, not a crosstable"):
        load_msa(tmp_path, start=START)
    with pytest.raises(InputError, match="no players"):
        parse("")
    with pytest.raises(InputError, match="unknown rating system"):
        parse(TEXT, system="XYZ")
    with pytest.raises(InputError, match="before start"):
        parse(TEXT, end=dt.date(2016, 1, 1))
    ct = parse(TEXT.replace("\n", "\r\n"), end="2016-01-17", name="Open")
    assert ct.event.end == dt.date(2016, 1, 17) and ct.section.name == "Open"


# ---------------------------------------------------------------- fuzzing

FUZZ_CHARS = st.one_of(st.sampled_from(list("WLDXFZBHUP0123456789|-> .:/\n\r\t")),
                       st.characters())


@st.composite
def mutated(draw):
    """The fixture with one to four random edits."""
    text = TEXT
    for _ in range(draw(st.integers(1, 4))):
        if not text:
            break
        kind = draw(st.sampled_from(["replace", "insert", "delete", "swap", "truncate",
                                     "drop line", "repeat line"]))
        pos = draw(st.integers(0, len(text) - 1))
        if kind == "replace":
            text = text[:pos] + draw(FUZZ_CHARS) + text[pos + 1:]
        elif kind == "insert":
            text = text[:pos] + draw(FUZZ_CHARS) + text[pos:]
        elif kind == "delete":
            text = text[:pos] + text[pos + draw(st.integers(1, 12)):]
        elif kind == "truncate":
            text = text[:pos]
        else:
            lines = text.split("\n")
            i = draw(st.integers(0, len(lines) - 1))
            j = draw(st.integers(0, len(lines) - 1))
            if kind == "swap":
                lines[i], lines[j] = lines[j], lines[i]
            elif kind == "drop line":
                del lines[i]
            else:
                lines.insert(j, lines[i])
            text = "\n".join(lines)
    return text


@pytest.mark.slow
@settings(max_examples=examples(2500), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(mutated())
def test_fuzz_parse_succeeds_or_raises_input_error(text):
    try:
        ct = parse(text)
    except InputError as err:
        assert err.file == "t.txt"
        assert "cannot read the crosstable" not in err.message, err  # no wrapped bug
        return
    # Whatever is accepted can be written and read back unchanged.
    same(parse(format_msa(rows_from_crosstable(ct), ct.rounds)), ct)


def test_provisional_limit_matches_the_rule_book():
    import datetime as _dt

    from uschess.io.formats.msa import MAX_PROVISIONAL
    from uschess.calendar.rulebook import RuleBook
    book = RuleBook.load()
    values = {e.value for e in book.timelines["established_games"].entries}
    assert values == {MAX_PROVISIONAL}
    assert book.rules(_dt.date(2016, 1, 15)).p.established_games == MAX_PROVISIONAL


def test_scored_cells_name_only_a_pair_that_can_be():
    """A page's N/R cell names an opponent when its number can be a pair
    (1..99999); thousands of digits are not converted (Python refuses past
    4,300) and leave the bye the reader read."""
    from uschess.io.formats.msa import scored_cell

    assert scored_cell("N 12") == ("N", 12) and scored_cell("R7") == ("R", 7)
    assert scored_cell("N " + "4" * 5001) is None
    assert scored_cell("N 0") is None and scored_cell("R 100000") is None
    assert scored_cell("W 3") is None
