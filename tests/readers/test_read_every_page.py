"""Every real page is read or refused in one line: what touches one cell,
game or section is noted and the rest read (engine/io/formats/msa.py,
pages.py, page_event.py); the real pages that show each case, and small
pages under fixtures/pages/ made like them."""

from __future__ import annotations

import pytest

from uschess.apps.audit import audit, load_published
from uschess.cli import main
from uschess.errors import InputError
from uschess.io.formats.msa import repaired_name
from uschess.io.formats.pages import read_page

from helpers import ROOT, SHARED_DATA

PAGES = ROOT / "fixtures" / "pages"
TOURNEY = SHARED_DATA / "real" / "tourneydata-2001-2014" / "tourneyInfo"


def _notes(pub, text):
    return [n for n in pub.notes if text in n]


# ------------------------------------------------------------ made pages

def test_unknown_cells_are_kept_as_unknown_with_a_note():
    pub = load_published(PAGES / "unknown-cells.txt")
    assert len(pub.entries) == 4
    assert _notes(pub, "player 1 (ANNA BELL): round 2: the cell 'ERRS=' is no result")
    assert _notes(pub, "player 2 (CARL DODD): round 3: the cell 'E' is no result")
    assert _notes(pub, "total 1.0, the rounds read add up to 0.5")
    sec = pub.event.sections[0]
    anna, carl, _, gus = sec.players
    assert anna.rounds[1].code == "U" and carl.rounds[2].code == "U"
    assert gus.state is None  # printed '-'


def test_a_double_win_loses_that_game_and_a_bad_section_only_itself():
    pub = load_published(PAGES / "double-win.txt")
    assert [s.name for s in pub.event.sections] == ["OPEN"]
    assert _notes(pub, "round 1: pair 1 prints W2, pair 2 prints W1: the two sides disagree; "
                       "the game is not rated")
    assert _notes(pub, "section RESERVE: not read (line 40, player 2 (KAI LANE): expected")
    anna, carl = pub.event.sections[0].players[:2]
    assert anna.rounds[0].code == carl.rounds[0].code == "U"
    assert [r.code for r in anna.rounds[1:]] == ["W", "U"]  # her other game is rated


def test_a_name_read_as_latin1_is_repaired_with_a_note():
    pub = load_published(PAGES / "double-win.txt")
    eva = pub.event.sections[0].players[2]
    assert eva.name == "EVA SEGU\u00ed"
    assert _notes(pub, "is UTF-8 read as Latin-1: read as 'EVA SEGU\u00ed'")
    assert repaired_name("JOS\u00c3\u00a9") == "JOS\u00e9"
    assert repaired_name("JOS\u00e9") is None and repaired_name("\u00c3\u00a9\u20ac") is None


def test_a_fide_event_abroad_is_audited_as_sec_6_updates_each_player():
    """Rating Sys G: the cells print the opponents' FIDE ratings; each
    player's post is the one 'uschess fide-update' computes from them."""
    import datetime as dt

    from uschess.io.fide_file import FideGame, FideUpdate
    from uschess.model import SystemRecord
    from uschess.rating.fide_update import fide_update

    pub = load_published(PAGES / "fide-abroad.txt")
    assert _notes(pub, "Rating Sys G, a FIDE event abroad: the cells print the opponents' "
                       "FIDE ratings")
    assert [e.id for e in pub.entries] == ["12000001", "12000002"]
    a = audit(pub)
    row = next(r for r in a.rows if r.entry.id == "12000001")
    day = dt.date(2012, 3, 10)
    alone = fide_update(FideUpdate("12000001", SystemRecord(2400.0, 50),
                                   [FideGame("W", 2410.0), FideGame("D", 2455.0),
                                    FideGame("D", 2390.0)], day, day))
    assert row.computed == alone.post


def test_the_td_table_without_its_header_is_read_as_one_section(tmp_path, capsys):
    body = tmp_path / "body.txt"
    body.write_text(" Memb ID PAIR       NAME        ST PRERATE PSTRATE   1     2   TOTAL\n"
                    "-------- ---- ----------------- -- ------- ------- ----- ----- -----\n"
                    "12000001    1 BELL, ANNA        IL 1800*   1812*   W---2 W---3  2.0 \n"
                    "12000002    2 DODD, CARL        IL 1700*   1690*   L---1 D---3  0.5 \n"
                    "12000003    3 FINCH, EVA        WI 1300/00 1290/02 D---2 L---1  0.5 \n",
                    encoding="utf-8")
    page = read_page(body)
    assert page.layout == "td" and [len(s.players) for s in page.sections] == [3]
    assert any("without its header" in w for w in page.warnings)
    assert main(["audit", str(body)]) == 2  # no dates printed: one line asks for them
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--start" in err
    pub = load_published(body, start="2012-03-10")
    assert len(pub.entries) == 3


@pytest.mark.parametrize("text, looks", [
    ("", "an empty file"),
    ("<html><head><title>Tournament report</title></head><body>x</body></html>",
     "not an MSA page: an HTML page titled 'Tournament report' with no crosstable"),
    ("ID,RATING,RESULT\n12000001,1800,W\n", "text of 2 lines with no crosstable layout, "
                                          "beginning 'ID,RATING,RESULT'")])
def test_a_file_no_reader_reads_is_refused_saying_what_it_looks_like(tmp_path, capsys,
                                                                       text, looks):
    f = tmp_path / "report.txt"
    f.write_text(text, encoding="utf-8")
    assert main(["audit", str(f)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and looks in err and str(f) in err


# ------------------------------------------------------------ real pages

@pytest.mark.shared_data
@pytest.mark.parametrize("page, note", [
    ("2002/09/tourneyInfo-200209225620.2", "round 2: the cell 'E' is no result"),
    ("2002/09/tourneyInfo-200209225620.2", "round 1: the cell '3' is no result"),
    ("2005/02/tourneyInfo-200502202071.1", "round 5: the cell 'L   0' is no result"),

    ("2003/12/tourneyInfo-200312142730.15", "round 1: pair 99 prints D118, pair 118 prints "
                                            "W99: the two sides disagree"),
    ("2002/12/tourneyInfo-200212156780.6", "pre-event rating printed as 0P0: taken as unrated"),
])
def test_real_pages_read_with_a_note(page, note):
    pub = load_published(TOURNEY / page)
    assert pub.entries and _notes(pub, note), pub.notes


@pytest.mark.shared_data
def test_real_pages_with_no_processed_date_or_state_read():
    pub = load_published(TOURNEY / "2004/12/tourneyInfo-200412291751.1")
    assert len(pub.entries) == 75  # 'Entered: 0000-00-00' is no date
    pub = load_published(TOURNEY / "2005/05/tourneyInfo-200505225811.1")
    kojima = next(p for s in pub.event.sections for p in s.players if p.id == "12910637")
    assert kojima.state is None  # printed '-'


@pytest.mark.shared_data
def test_a_real_empty_page_is_refused_in_one_line():
    with pytest.raises(InputError) as err:
        load_published(TOURNEY / "2010/01/tourneyInfo-201001241591.1")
    assert "neither a crosstable page nor a published-results file: an empty file" in str(
        err.value) and "\n" not in str(err.value)


@pytest.mark.shared_data
def test_the_world_cup_page_abroad_reproduces_11_of_12_from_what_it_prints():
    """2009 World Cup (Rating Sys G): twelve US players' OTBR ratings
    updated from their opponents' FIDE ratings; the twelfth is off by 2
    points, within the rounding of his printed pre-event rating."""
    a = audit(load_published(TOURNEY / "2009/11/tourneyInfo-200911213841.1"))
    assert (a.reproduced, a.total) == (11, 12)
    miss, = a.mismatches
    assert miss.entry.id == "12513936" and miss.causes[0].cause == "rounding"
