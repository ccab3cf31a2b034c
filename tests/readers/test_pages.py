"""Published pages in every layout, audited as a user runs it (engine/io/formats/pages.py,
engine/io/formats/page_event.py, engine/apps/audit_infer.py, ``uschess audit PAGE``)."""

from __future__ import annotations

import json
import random

import pytest

from uschess.apps.audit import audit, load_published
from uschess.cli import main
from uschess.errors import InputError
from uschess.io.formats.pages import parse_page, read_page

from helpers import ROOT, SHARED_DATA, TEACHING_MSA, examples

REAL = SHARED_DATA / "real"
WAUKESHA_MSA = REAL / "waukesha-2022-late-spring" / "LateSpring-USCF.txt"
WAUKESHA_TD = REAL / "waukesha-2022-late-spring" / "LateSpring-Jim.txt"
WFCC = REAL / "wfcc-15-2025" / "XtblMain-202503213862.html"
PACL = REAL / "pacl-2001-2021" / "sections"
#: The four Waukesha posts that sit on floors the pages cannot show.
WAUKESHA_FLOORS = {"10310547": 2200, "12539124": 1900, "11300855": 1500, "30298526": 108}

pytestmark = pytest.mark.shared_data


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


# ------------------------------------------------------------------ reading

def test_msa_text_page_states_everything():
    page = read_page(WAUKESHA_MSA)
    assert page.layout == "msa-text"
    assert [(s.number, s.name, len(s.players)) for s in page.sections] == [
        (1, "OPEN", 23), (2, "RESERVE", 11)]
    s = page.sections[0]
    assert (str(s.start), str(s.end), str(s.rated)) == ("2022-05-25", "2022-06-15", "2022-06-16")
    assert (s.rounds, s.player_count, s.k_factor, s.rating_sys, s.tnmt_type, s.time_control) == (
        4, 23, "F", "R", "S", "G/100;d5")
    p = next(p for p in s.players if p.id == "30617972")
    r = p.ratings["OTBR"]
    assert (r.pre, r.post, r.post_games) == (None, 1878, 1)
    p = next(p for p in page.sections[1].players if p.id == "30617972")
    assert (p.ratings["OTBR"].pre, p.ratings["OTBR"].pre_games) == (1878, 1)


def test_td_layout_states_games_and_initial_rating():
    page = read_page(WAUKESHA_TD)
    assert (page.layout, page.event_id, page.event_name) == ("td", "202206155692",
                                                             "2022 LATE SPRING SWISS")
    s = page.sections[0]
    assert (s.rating_sys, s.k_factor, s.tnmt_type, str(s.rerated)) == ("R", "F", "S", "2022-06-16")
    by_id = {p.id: p for p in s.players}
    assert by_id["30617972"].initial == 1300 and by_id["30617972"].ratings["OTBR"].pre is None
    assert by_id["30456341"].ratings["OTBR"].pre_games == 12
    assert [str(r) for r in by_id["12854458"].rounds] == ["H", "W21", "W12", "W5"]


def test_html_all_sections_dual_rated():
    page = read_page(WFCC)
    assert (page.layout, page.event_name, page.event_id) == ("msa-html", "WFCC 15", "202503213862")
    assert [s.name for s in page.sections] == ["OPEN", "UNDER 1400"]
    for s in page.sections:
        assert s.systems == ["OTBR", "OTBQ"] and s.time_control == "G/60;d5"
        assert all(set(p.ratings) == {"OTBR", "OTBQ"} for p in s.players)
    first = page.sections[0].players[0]
    assert (first.name, first.ratings["OTBQ"].pre, first.ratings["OTBQ"].post) == (
        "KEN CARBERRY", 1857, 1875)


def test_the_two_waukesha_layouts_agree_on_every_player():
    a = audit(load_published(WAUKESHA_MSA, adult={"30617972"}))
    b = audit(load_published(WAUKESHA_TD))
    key = lambda r: (r.entry.section, r.entry.id, r.entry.system)  # noqa: E731
    ra, rb = {key(r): r for r in a.rows}, {key(r): r for r in b.rows}
    assert set(ra) == set(rb) and len(ra) == 34
    for k in ra:
        assert ra[k].entry.post == rb[k].entry.post
        assert ra[k].computed == pytest.approx(rb[k].computed, abs=1e-9), k


# ------------------------------------------------------------------ done-when

def _floors_exact(a):
    bad = {r.entry.id: r for r in a.mismatches}
    assert set(bad) == set(WAUKESHA_FLOORS)
    for pid, level in WAUKESHA_FLOORS.items():
        r = bad[pid]
        assert r.entry.post == level and r.computed < level
        assert r.causes[0].cause == "floor" and r.causes[0].computed == level
    assert "personal absolute floor of 108" in bad["30298526"].causes[0].detail
    assert "Original Life Master" in bad["10310547"].causes[0].detail


def test_waukesha_msa_page_with_no_options(capsys):
    code, out, err = run(capsys, "audit", WAUKESHA_MSA)
    assert code == 0 and not err
    n = int(out.split("\n")[[i for i, l in enumerate(out.split("\n"))
                                if "reproduced within" in l][0]].split()[0])
    assert n >= 29 and "of 34 reproduced within 1 point" in out
    assert "section OPEN, OTBR:" in out and "section RESERVE, OTBR:" in out
    a = audit(load_published(WAUKESHA_MSA))
    miss = {r.entry.id: r for r in a.mismatches}
    # the unrated player's initialization the page cannot show
    assert any(c.cause == "initialization" and "adult" in c.detail
               for c in miss["30617972"].causes)


def test_waukesha_adult_and_td_layout_give_30_with_four_floors(capsys):
    a = audit(load_published(WAUKESHA_MSA, adult={"30617972"}))
    assert (a.reproduced, a.total) == (30, 34)
    _floors_exact(a)
    b = audit(load_published(WAUKESHA_TD))
    assert (b.reproduced, b.total) == (30, 34)
    _floors_exact(b)
    assert any("1300/00" in n or "initial rating 1300" in n for n in b.published.notes)
    code, out, _ = run(capsys, "audit", WAUKESHA_MSA, "--adult", "30617972")
    assert code == 0 and "30 of 34 reproduced" in out
    code, out, _ = run(capsys, "audit", WAUKESHA_TD)
    assert code == 0 and "30 of 34 reproduced" in out
    # the 30th: 30617972's RESERVE pre is the OPEN result, at full precision
    assert ("RESERVE", "OTBR", "30617972") in a.chained and not a.overruled
    assert ("RESERVE", "OTBR", "30617972") in b.chained


def test_waukesha_printed_pre_wins_over_a_chain_that_disagrees():
    a = audit(load_published(WAUKESHA_MSA))
    assert [(o.section, o.id, o.printed) for o in a.overruled] == [("RESERVE", "30617972", 1878)]
    assert a.overruled[0].chained == pytest.approx(1872.77, abs=0.01)
    row = next(r for r in a.rows if r.entry.section == "RESERVE" and r.entry.id == "30617972")
    assert row.reproduced


def test_wfcc_as_rated_and_today(capsys):
    rated = audit(load_published(WFCC), known_on=load_published(WFCC).rated_on)
    assert rated.reproduced_inferred >= 35 and rated.total == 36
    assert [(i.id, i.value) for i in rated.inferred] == [("32245491", 1300), ("32245491", 1300)]
    code, out, _ = run(capsys, "audit", WFCC, "--as-rated", "--adult", "32245491")
    assert code == 0 and "35 of 36 reproduced" in out and "as known on 2025-03-21" in out
    # today's rules (B = 10): every rating that differs from the as-rated
    # audit is attributed to the 2025 change
    pub = load_published(WFCC, adult={"32245491"})
    today, then = audit(pub), audit(pub, known_on=pub.rated_on)
    assert then.reproduced == 35
    ok_then = {(r.entry.section, r.entry.id, r.entry.system) for r in then.rows if r.reproduced}
    moved = [r for r in today.mismatches
             if (r.entry.section, r.entry.id, r.entry.system) in ok_then]
    assert moved
    for r in moved:
        cause = next(c for c in r.causes if c.cause == "known_on")
        assert "2025-03-21" in cause.detail and "bonus_multiplier 12 -> 10" in cause.detail


def test_own_export_reads_back_and_audits_all_reproduced(tmp_path, capsys):
    out = tmp_path / "x.txt"
    event = ROOT / "fixtures" / "events" / "club-championship.yaml"
    if not event.exists():
        event = ROOT / "fixtures" / "events" / "wfcc15.yaml"
    code, _, err = run(capsys, "export", "crosstable", event, "--format", "msa", "-o", out)
    assert code == 0, err
    assert read_page(out).layout == "export"
    a = audit(load_published(out))
    assert a.total > 0 and a.reproduced == a.total, [r.entry for r in a.mismatches]


def test_teaching_table_still_needs_its_date(capsys):
    code, _, err = run(capsys, "audit", TEACHING_MSA)
    assert code == 2 and "--start" in err and err.count("\n") == 1


def test_member_listed_twice_is_one_player():
    f = PACL / "XtblMain_200209216150_1.html"
    pub = load_published(f)
    assert any("12687052 is listed 2 times (pairs 5, 27)" in n for n in pub.notes)
    entries = [e for e in pub.entries if e.id == "12687052"]
    assert len(entries) == 1
    sec = pub.event.sections[0]
    me = [p for p in sec.players if p.id == "12687052"]
    assert len(me) == 1 and sum(r.rated for r in me[0].rounds) > 4
    a = audit(pub)
    assert a.total == 27


def test_entries_of_one_member_that_both_played_a_round():
    """Event 201807080972 section 3 lists 17 members twice; both entries of
    12688571 have a game in round 1: the games are laid out apart and the
    page audits to its floors."""
    pub = load_published(PACL / "XtblMain_201807080972_3.html", section="3")
    assert any("the entries of 12688571" in n and "same round" in n for n in pub.notes)
    me = next(p for p in pub.event.sections[0].players if p.id == "12688571")
    assert sum(r.rated for r in me.rounds) == 10  # 9 games of pair 22, 1 of pair 211
    a = audit(pub, known_on=pub.rated_on)
    assert (a.reproduced, a.total) == (195, 202)
    assert {r.causes[0].cause for r in a.mismatches} == {"floor"}


def test_misprinted_opponent_number_is_mended_with_a_note():
    """World Amateur Team 2014: pair 566 prints L1119 in round 5, pair 1119
    has no game that round and pair 1001 prints W566."""
    pub = load_published(PACL / "XtblMain_201402175282_1.html", section="1")
    assert any("pair 566 prints L1119 in round 5" in n and "pair 1001 prints W566" in n
               for n in pub.notes)
    sec = pub.event.sections[0]
    me = next(p for p in sec.players if p.pair == 566)
    assert me.rounds[4].code == "L" and me.rounds[4].opponent == 1001


def test_unreadable_forfeit_cell_is_read_as_the_forfeit(capsys):
    """Event 201102102521 prints 'F W10' for pair 10 and 'F L11' for pair
    11: forfeits without an opponent, which the totals agree with."""
    code, out, err = run(capsys, "audit", PACL / "XtblMain_201102102521_1.html", "--as-rated")
    assert code == 0, err
    assert "the cell 'F W10' is read as its first letter, F" in out
    assert "12 of 12 reproduced" in out


def test_html_report_lists_misses_first(tmp_path, capsys):
    html_out = tmp_path / "r.html"
    code, _, _ = run(capsys, "audit", WAUKESHA_MSA, "--html", html_out)
    text = html_out.read_text()
    assert code == 0 and text.index("Not reproduced") < text.index("<table>")
    # the count reproduced with inferred inputs in the summary, the values
    # inferred (the unrated player's initial rating) after the misses
    assert text.index("inferred from it:") < text.index("Not reproduced") \
        < text.index("Inferred from the page (1)") < text.index("<table>")


def test_json_has_sections_and_inferred(capsys):
    code, out, _ = run(capsys, "audit", WFCC, "--json", "--as-rated")
    data = json.loads(out)
    assert code == 0 and data["rated_on"] == "2025-03-21" and data["format"] == "msa-html"
    assert {(s["section"], s["system"]) for s in data["by_section"]} == {
        ("OPEN", "OTBR"), ("OPEN", "OTBQ"), ("UNDER 1400", "OTBR"), ("UNDER 1400", "OTBQ")}
    assert data["inferred"] and data["reproduced_inferred"] >= 35


def test_page_value_wins_over_an_option(capsys):
    code, out, _ = run(capsys, "audit", WAUKESHA_MSA, "--start", "2022-01-01",
                       "--time-control", "G/30")
    assert code == 0
    assert "the page states start date 2022-05-25" in out
    assert "the page states time control G/100;d5" in out


# ------------------------------------------------------------------ fuzzing

def _mutations(text: str, rng: random.Random, n: int):
    lines = text.split("\n")
    for _ in range(n):
        kind = rng.randrange(5)
        new = list(lines)
        i = rng.randrange(len(new))
        if kind == 0:
            del new[i]
        elif kind == 1 and new[i]:
            j = rng.randrange(len(new[i]))
            new[i] = new[i][:j] + rng.choice("|/->0123456789XWLDPQR* <&") + new[i][j + 1:]
        elif kind == 2:
            new.insert(i, new[rng.randrange(len(new))])
        elif kind == 3 and new[i]:
            new[i] = new[i][: rng.randrange(len(new[i]))]
        else:
            new[i] = new[i].replace("|", "", 1)
        yield "\n".join(new)


@pytest.mark.parametrize("path", [WAUKESHA_MSA, WAUKESHA_TD, WFCC,
                                  PACL / "XtblMain_201903311192_1.html"])
def test_fuzzed_pages_give_a_located_line_or_a_result(path, tmp_path, capsys):
    text = path.read_text(encoding="latin-1")
    rng = random.Random(11)
    for k, mutated in enumerate(_mutations(text, rng, examples(40))):
        f = tmp_path / f"m{k}{path.suffix}"
        f.write_text(mutated, encoding="latin-1")
        code, out, err = run(capsys, "audit", f, "--start", "2022-05-25")
        assert code in (0, 2), (k, err)
        if code == 2:
            assert err.count("\n") == 1 and str(f) in err, err
        else:
            assert "reproduced within" in out


def test_parse_page_errors_are_located():
    with pytest.raises(InputError) as info:
        parse_page("hello\nworld\n", "x.txt")
    assert info.value.file == "x.txt"


# ------------------------------------------------------------------ import, replay, audit --db

def test_import_page_then_rate_replay_and_audit_the_store(tmp_path, capsys):
    out = tmp_path / "hist" / "waukesha.yaml"
    out.parent.mkdir()
    code, text, err = run(capsys, "import", WAUKESHA_TD, "-o", out)
    assert code == 0, err
    assert "34 published ratings" in err and "30617972 1300/00" in err  # wrote and notes: stderr
    import yaml
    data = yaml.safe_load(out.read_text())
    assert len(data["published"]) == 34 and data["event"]["id"] == "202206155692"
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "engine" / "event.schema.json").read_text())
    jsonschema.validate(json.loads(json.dumps(data, default=str)), schema)
    code, text, _ = run(capsys, "audit", out)
    assert code == 0 and "30 of 34 reproduced" in text
    # importing the event file again keeps what the page printed, null pre-event ratings too
    again = tmp_path / "again.json"
    code, _, err = run(capsys, "import", out, "-o", again)
    assert code == 0, err
    assert json.loads(again.read_text())["published"] == json.loads(json.dumps(data["published"]))
    assert any(e["pre"] is None for e in data["published"])
    code, text, _ = run(capsys, "audit", again)
    assert code == 0 and "30 of 34 reproduced" in text
    code, text, _ = run(capsys, "rate", out)
    assert code == 0 and "OPEN" in text
    db = tmp_path / "r.db"
    code, _, err = run(capsys, "replay", out.parent, "--db", db)
    assert code == 0, err
    code, text, _ = run(capsys, "audit", "--db", db)
    # the store keeps one published post per event, player and system
    assert code == 0 and "29 of 33 reproduced" in text and "likely cause (floor)" in text


def test_import_page_options_only_for_pages(tmp_path, capsys):
    code, _, err = run(capsys, "import", ROOT / "fixtures" / "events" / "wfcc15.yaml",
                       "-o", tmp_path / "x.yaml", "--adult", "1")
    assert code == 2 and "only for a published crosstable page" in err


# ------------------------------------------------------------------ learned from the record

def test_online_half_k_learned_from_the_record(capsys):
    """An online section re-rated 2021-06-16 shows about 0.55 of the full-K
    change (+84 where full K gives +168): half K, as known before the
    re-rating of 2021-06-23 (rulesets/learned.yaml)."""
    page = PACL / "XtblMain_202004068732_1.html"
    pub = load_published(page)
    assert str(pub.rated_on) == "2021-06-16"
    as_rated = audit(pub, known_on=pub.rated_on)
    assert as_rated.reproduced >= 59 and as_rated.total == 60
    today = audit(pub)
    assert today.reproduced < 10
    explained = [r for r in today.mismatches if any(
        c.cause == "known_on" and "online_half_k True -> False" in c.detail for c in r.causes)]
    assert len(explained) >= 50
    code, out, _ = run(capsys, "audit", page, "--as-rated")
    assert code == 0 and "59 of 60 reproduced" in out


def test_online_full_k_after_the_2021_06_23_rerating():
    page = PACL / "XtblMain_202105263472_1.html"
    pub = load_published(page)
    assert str(pub.rated_on) == "2021-06-23"
    a = audit(pub, known_on=pub.rated_on)
    b = audit(pub)
    assert a.reproduced == b.reproduced >= 54


def test_section_chaining_is_a_cause():
    """A published-results file whose later section gives a stale pre-event
    rating: the published posts are those of sections rated in sequence."""
    from uschess.apps.audit import published_from_dict
    from uschess.formulas import round_half_up
    from uschess.rating.pipeline import rate_event
    from uschess.io.eventfile import event_from_dict

    def pl(pair, pid, rounds, rating):
        return {"pair": pair, "id": pid, "name": f"P{pid}", "rounds": rounds,
                "ratings": {"OTBR": {"rating": rating, "games": 40}}}
    raw = {"event": {"name": "Two", "start": "2024-03-09"}, "sections": [
        {"name": "A", "time_control": "G/90;d5", "players": [
            pl(1, "11111111", ["W2", "W3"], 1500), pl(2, "22222222", ["L1", "H"], 1700),
            pl(3, "33333333", ["H", "L1"], 1650)]},
        {"name": "B", "time_control": "G/90;d5", "players": [
            pl(1, "11111111", ["W2"], 1500), pl(2, "44444444", ["L1"], 1800)]}]}
    result = rate_event(event_from_dict(raw))
    raw["published"] = [{"id": p.id, "system": "OTBR", "post": round_half_up(p.post),
                         "section": sr.section.name}
                        for sr in result.sections for p in sr.players]
    a = audit(published_from_dict(raw))
    row = next(r for r in a.rows if r.entry.section == "B" and r.entry.id == "11111111")
    # the file's 1500 is kept over the chained value (they differ by more than rounding)
    assert [o.id for o in a.overruled] == ["11111111"] and not row.reproduced
    assert any(c.cause == "chaining" and "section chaining" in c.detail for c in row.causes)


def test_round_robin_page_whose_sides_print_games_in_different_rounds(capsys):
    page = PACL / "XtblMain_201510103792_1.html"  # QUAD A, Tnmt Type R
    code, out, err = run(capsys, "audit", page)
    assert code == 0, err
    assert "printed in different rounds" in out and "4 of 4 reproduced" in out


def test_double_forfeit_is_no_game():
    pub = load_published(PACL / "XtblMain_202103069452_1.html")
    me = next(p for p in pub.event.sections[0].players if p.pair == 160)
    assert not any(r.opponent == 161 for r in me.rounds)


# ------------------------------------------------------------------ inputs the page cannot show

#: Real PACL pages with unrated players where the rules' own initialization
#: reproduces few published ratings and one common inferred value for all the
#: unrated players of a section did not reproduce them all (7 of 26, 2 of 12,
#: 111 of 114): each unrated player's initial rating solved from the posts
#: that depend on it reproduces every one.  (page, section, plain, total)
SOLVED_PAGES = [("XtblMain_202106126422_2.html", "2", 0, 26),
                ("XtblMain_202007011012_1.html", "1", 0, 12),
                pytest.param("XtblMain_202001121082_5.html", "5", 92, 114, marks=pytest.mark.slow)]


@pytest.mark.parametrize("name,section,plain,total", SOLVED_PAGES)
def test_pacl_pages_reproduced_with_initial_ratings_solved_per_player(name, section, plain,
                                                                      total):
    pub = load_published(PACL / name, section=section)
    a = audit(pub, known_on=pub.rated_on)
    assert (a.reproduced, a.total) == (plain, total)
    assert a.reproduced_inferred == total
    assert a.inferred and all(100 <= i.value <= 2700 for i in a.inferred)
    unrated = {(e.id, e.system) for e in pub.entries if e.pre is None}
    assert {(i.id, i.system) for i in a.inferred} <= unrated
    for r in a.mismatches:  # every miss of the plain rating explained by them
        assert any(c.cause == "initialization" for c in r.causes)


def test_inferred_values_are_reported_as_inferred(capsys):
    page = PACL / SOLVED_PAGES[1][0]
    code, out, _ = run(capsys, "audit", page, "--as-rated")
    assert code == 0 and "0 of 12 reproduced" in out
    assert "12 of 12 reproduced" in out
    lines = [ln for ln in out.splitlines() if "inferred:" in ln]
    assert lines and all("inferred from the page" in ln and "which does not show it" in ln
                         for ln in lines)


@pytest.mark.slow
def test_a_player_unrated_on_the_page_and_rated_by_an_earlier_section(tmp_path, capsys):
    """A section printed twice (a saved page mangled, or two sections of the
    same players): in the second, players the page prints unrated are rated
    from their first-section posts through the chain.  The audit's variants
    edit only the page's own records, never a record the chain gave (it
    stopped with a KeyError in the history searches)."""
    text = (PACL / "XtblMain_202011171112_1.html").read_text(encoding="latin-1")
    start = text.index("Section 1 - UNRATED")
    copy = tmp_path / "twice.html"
    copy.write_text(text[:start] + text[start:] + text[start:], encoding="latin-1")
    assert main(["-q", "audit", str(copy)]) == 0
    out = capsys.readouterr()
    assert "Traceback" not in out.err and "of 16 reproduced" in out.out
    # printed three times, the third is told apart from the second as well
    thrice = tmp_path / "thrice.html"
    thrice.write_text(text[:start] + text[start:] * 3, encoding="latin-1")
    out_file = tmp_path / "thrice.yaml"
    assert main(["-q", "import", str(thrice), "-o", str(out_file)]) == 0
    names = [s.name for s in load_published(out_file).event.sections]
    assert names == ["UNRATED", "UNRATED (1)", "UNRATED (1, 2)"]
    a = audit(load_published(copy))
    chained = {r.entry.id for r in a.rows
               if r.entry.section == "UNRATED (1)" and r.result.pre_from is not None}
    printed_unrated = {p.id for p in a.published.event.sections[1].players
                       if "OTBR" not in p.ratings}
    assert chained >= printed_unrated - {None} and printed_unrated


def test_a_page_with_a_very_long_line_is_read_in_linear_time(tmp_path):
    """A line of 200,000 digits before the crosstable (a mangled save): the
    section header's search ('N Rounds, M Players; ...') started at every
    digit and went quadratic (minutes); it starts only where a number does.
    Run with a deadline, so that a regression fails instead of hanging."""
    import subprocess
    import sys
    text = (PACL / "XtblMain_202105149912_1.html").read_text(encoding="latin-1")
    lines = text.split("\n")
    at = next(i for i, line in enumerate(lines) if line.startswith("<pre>"))
    lines.insert(at + 1, "9" * 200_000)
    page = tmp_path / "long.html"
    page.write_text("\n".join(lines), encoding="latin-1")
    out = tmp_path / "event.yaml"
    done = subprocess.run([sys.executable, "-m", "uschess", "-q", "import", str(page),
                           "-o", str(out)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and out.exists(), done.stderr


def test_numbers_of_thousands_of_digits_on_a_page(tmp_path):
    """A page whose section number or round count has 5,001 digits (Python
    will not convert past 4,300): no traceback. The section header is then
    not one, and the page is refused in one line; a stats line that does
    not read leaves the rounds to the crosstable, which still reads."""
    import re
    import subprocess
    import sys
    text = (PACL / "XtblMain_202105149912_1.html").read_text(encoding="latin-1")
    rounds = re.search(r"([0-9]+)\s+Rounds?,", text)
    section = re.search(r"Section\s+([0-9]+)\s+-", text)
    runs = {}
    for name, match in (("rounds", rounds), ("section", section)):
        page = tmp_path / f"{name}.html"
        page.write_text(text[:match.start(1)] + "7" * 5001 + text[match.end(1):],
                        encoding="latin-1")
        runs[name] = subprocess.run([sys.executable, "-m", "uschess", "-q", "import", str(page),
                                     "-o", str(tmp_path / f"{name}.yaml")],
                                    capture_output=True, text=True, timeout=60)
    assert runs["rounds"].returncode == 0, runs["rounds"].stderr
    refused = runs["section"]
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert len(refused.stderr.strip().splitlines()) == 1
    assert "not an MSA page: an HTML page" in refused.stderr and "'Section N - NAME'" in refused.stderr


def test_a_rating_line_that_does_not_read_is_refused_not_taken_as_a_note():
    """A note under a player (``| Orig. rated using ID: 12536864 |`` on a
    real page) is passed over; a rating line damaged in transit (WFCC 15,
    KEN CARBERRY's ``Q: 1857 ->1875`` with its arrow mangled) has the same
    shape, text in the ID column only, and taken as a note it would leave
    him unrated in OTBQ: his section is refused, naming the section and
    player; the page's other section is read, with the refusal as a warning."""
    noted = read_page(PACL / "XtblMain_200208046960_1.html")
    assert sum(len(s.players) for s in noted.sections) > 0
    text = WFCC.read_text(encoding="utf-8")
    line = next(x for x in text.split("\n") if "Q: 1857" in x and "1875" in x)
    assert "-&gt;1875" in line
    page = parse_page(text.replace(line, line.replace("-&gt;1875", "-Lgt;1875")), source="p.html")
    assert [s.name for s in page.sections] == ["UNDER 1400"]
    msg, = [w for w in page.warnings if w.startswith("section OPEN: not read")]
    assert "KEN CARBERRY" in msg and "Q: 1857" in msg
    assert "does not read as 'X: pre->post'" in msg
    # located at the file's line, not at the line of the text the page shows
    assert f"line {text.split(chr(10)).index(line) + 1}," in msg
    # a page of that section alone is refused in one line
    with pytest.raises(InputError) as err:
        parse_page(_only_section(text.replace(line, line.replace("-&gt;1875", "-Lgt;1875")),
                                 "OPEN"), source="p.html")
    assert "KEN CARBERRY" in str(err.value) and "does not read as" in str(err.value)


def _only_section(html_text: str, name: str) -> str:
    """The HTML page with its sections other than ``name`` taken out (from
    a section's header table to the next one's)."""
    marks = [i for i in range(len(html_text)) if html_text.startswith("Section ", i)
             and html_text[i:i + 40].split(" - ", 1)[0][8:].strip().isdigit()]
    keep = [html_text[:marks[0]]]
    for a, b in zip(marks, marks[1:] + [len(html_text)]):
        if html_text[a:b].split(" - ", 1)[1].startswith(name):
            keep.append(html_text[a:b])
    return "".join(keep)


def test_an_error_on_an_html_page_names_the_line_of_the_file():
    """The page's text is read from what a browser shows; an error found
    there names the line of the file it came from (a <pre> block's lines
    are the file's, one for one)."""
    text = WFCC.read_text(encoding="utf-8")
    lines = text.split("\n")
    at = next(i for i, x in enumerate(lines) if "KEN CARBERRY" in x)
    lines[at] = lines[at].replace("|", "!", 1)
    page = parse_page("\n".join(lines), source="p.html")
    msg, = [w for w in page.warnings if w.startswith("section OPEN: not read")]
    assert f"(line {at + 1}: expected a player line" in msg
