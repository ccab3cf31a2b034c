"""A section the page says was corrected after it was rated: the ratings are
of the games first reported, and the audit solves which game from the posts
(:mod:`uschess.apps.audit.corrected`)."""

from __future__ import annotations

import json

import pytest

from uschess.apps.audit import audit, load_published
from uschess.apps.audit.cause import within
from uschess.apps.audit.corrected import CORRECTED_GAMES, section_games
from uschess.apps.audit.page_chain import rate_published
from uschess.cli import main
from uschess.rating.pipeline import RatingOptions

from helpers import SHARED_DATA, event, player
from test_audit_tradeoff import _msa_text_page

PACL = SHARED_DATA / "real" / "pacl-2001-2021" / "sections"
NOTE = ("Note: corrections have been made to this section.  Any impact these corrections "
        "may have upon the ratings from this section will not show up until after the next "
        "rerate of this section.")

RATINGS = {1: 1710, 2: 1540, 3: 1625, 4: 1480, 5: 1390, 6: 1820}
IDS = {k: f"{13000000 + k}" for k in RATINGS}
#: the games shown: round 2, pair 1 beats pair 2
SHOWN = {1: ["W6", "W2", "D3"], 2: ["W5", "L1", "W4"], 3: ["D4", "W6", "D1"],
         4: ["D3", "W5", "L2"], 5: ["L2", "L4", "W6"], 6: ["L1", "L3", "L5"]}


def _posts(cells: dict) -> dict:
    players = [player(k, cells[k], rating=RATINGS[k], games=70, pid=IDS[k]) for k in RATINGS]
    res = rate_published(event(players, start="2022-05-25", tc="G/100;d5"),
                         RatingOptions(trace=False))
    return {pr.id: pr.post for pr in res.sections[0].players}


def _page(tmp_path, posts: dict, note: bool):
    def cell(c):
        return f"{c[0]}   {c[1:]}"
    rows = [(k, IDS[k], f"PLAYER {k}", RATINGS[k], [cell(c) for c in SHOWN[k]],
             f"{sum({'W': 1, 'D': 0.5, 'L': 0}[c[0]] for c in SHOWN[k]):.1f}")
            for k in RATINGS]
    text = _msa_text_page(rows, posts)
    if note:
        text = text.replace("Rated: 2022-05-27", "Rated: 2022-05-27 " + NOTE)
    path = tmp_path / ("corrected.txt" if note else "plain.txt")
    path.write_text(text)
    return path


def test_the_game_first_reported_is_solved_from_the_posts(tmp_path, capsys):
    """The posts are of the games first reported (round 2: pair 2 beat pair
    1); the page shows pair 1 winning and says the section was corrected
    after it was rated.  The audit names that game, and with it every post
    is reproduced; without the page's note no correction is tried."""
    first = {**SHOWN, 1: ["W6", "L2", "D3"], 2: ["W5", "W1", "W4"]}
    posts = _posts(first)
    shown = _posts(SHOWN)
    assert abs(posts[IDS[1]] - shown[IDS[1]]) > 5 and abs(posts[IDS[2]] - shown[IDS[2]]) > 5

    pub = load_published(_page(tmp_path, posts, note=True))
    assert pub.corrected == ["OPEN"]
    a = audit(pub)
    assert a.reproduced < a.total == 6
    assert a.reproduced_inferred == 6
    fix = a.inferred[0]
    assert (fix.section, fix.round, fix.pair, fix.opponent, fix.shown, fix.rated) \
        == ("OPEN", 2, 1, 2, "W", "L")
    assert fix.reproduced == 6 and a.reproduced <= fix.reproduced_shown < 6
    for row in a.mismatches:
        cause = next(c for c in row.causes if c.cause == "corrected")
        assert within(cause.computed, row.entry.post, a.tolerance)
        assert "round 2: pair 1 (PLAYER 1) against pair 2 (PLAYER 2) rated as a loss" \
            in cause.detail
        assert cause.variant == {"section": "OPEN", "round": 2, "pair": 1, "opponent": 2,
                                 "shown": "W", "rated": "L"}
    assert {r.entry.id for r in a.mismatches} >= {IDS[1], IDS[2]}

    plain = audit(load_published(_page(tmp_path, posts, note=False)))
    assert plain.reproduced == a.reproduced and plain.reproduced_inferred < 6
    assert not any(i.as_dict()["inferred"] == "correction" for i in plain.inferred)
    assert not any(c.cause == "corrected" for r in plain.rows for c in r.causes)

    path = _page(tmp_path, posts, note=True)
    assert main(["audit", str(path)]) == 0
    out = capsys.readouterr().out
    assert "section OPEN was corrected after it was rated (the page says so)" in out
    assert main(["audit", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["reproduced_inferred"] == 6
    assert data["inferred"][0]["inferred"] == "correction"


def test_games_tried_are_bounded_and_in_order():
    """Each game once (from the lower pair) with its two other results, in
    round then pair order; a section over the bound is not searched."""
    sec = event([player(k, [c for c in SHOWN[k]], rating=RATINGS[k], games=70, pid=IDS[k])
                 for k in RATINGS]).sections[0]
    games = section_games(sec)
    assert len(games) == 2 * 9
    assert [(g.index, g.pair, g.opponent, g.result) for g in games[:4]] == [
        (0, 1, 6, "D"), (0, 1, 6, "L"), (0, 2, 5, "D"), (0, 2, 5, "L")]
    n = 2 * CORRECTED_GAMES + 2  # players, each one game in round 1: more games than the bound
    big = event([player(k, [f"{'W' if k % 2 else 'L'}{k + 1 if k % 2 else k - 1}"],
                        rating=1500, games=70) for k in range(1, n + 1)]).sections[0]
    assert section_games(big) == []


@pytest.mark.slow  # a real event audited again game by game: seconds
@pytest.mark.shared_data
def test_corrected_section_on_a_real_page():
    """``XtblMain_202106085042_1`` (UPPER, corrected after it was rated):
    with round 2 rated as Bledsoe's loss to Un (the page shows his win)
    all 12 ratings are reproduced (8 with the games shown); Bledsoe's 1879
    -> 1852 and Un's 1741 -> 1812 among them."""
    pub = load_published(PACL / "XtblMain_202106085042_1.html", section="1")
    assert pub.corrected == ["UPPER"]
    a = audit(pub, known_on=pub.rated_on)
    assert a.reproduced == 8 and a.reproduced_inferred == 12 == a.total
    fix = a.inferred[0]
    assert (fix.round, fix.pair, fix.opponent, fix.shown, fix.rated) == (2, 2, 3, "W", "L")
    named = {(r.entry.id, r.entry.system) for r in a.mismatches
             if any(c.cause == "corrected" for c in r.causes)}
    assert ("15653727", "OTBR") in named and ("12571317", "OTBQ") in named and len(named) == 4


@pytest.mark.slow
@pytest.mark.shared_data
def test_corrected_section_with_unrated_players_on_a_real_page():
    """``XtblMain_202105229562_2`` (BROWN TO GREEN BELTS, corrected after it
    was rated; two unrated players): round 2 rated as Lewis's loss to
    Rubenstein, with the initial ratings solved again, reproduces all 16
    ratings of the section (6 with the games shown); Lewis, 4-0 shown, falls
    1516 -> 1511 as published."""
    pub = load_published(PACL / "XtblMain_202105229562_2.html", section="2")
    a = audit(pub, known_on=pub.rated_on)
    assert a.reproduced_inferred == 16 == a.total
    assert a.inferred[0].reproduced_shown == 6
    fix = a.inferred[0]
    assert (fix.section, fix.round, fix.pair, fix.opponent, fix.rated) \
        == ("BROWN TO GREEN BELTS", 2, 1, 6, "L")
    row = next(r for r in a.rows if r.entry.id == "12561562" and r.entry.system == "OTBR")
    assert not row.reproduced and within(row.with_inferred, 1511, a.tolerance)
    assert any(c.cause == "corrected" for c in row.causes)

