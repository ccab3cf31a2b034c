"""A missed provisional player's own earlier history tried on top of the
inputs inferred (engine/apps/audit/own_history.py), re-rated here through
the engine."""

from __future__ import annotations

import re

import pytest

from uschess.apps.audit import audit, load_published
from uschess.apps.audit.cause import post_of, within
from uschess.apps.audit.hidden import InferredHistory

from helpers import SHARED_DATA, event, player
from test_audit_tradeoff import _msa_text_page, _rate_with

PACL = SHARED_DATA / "real" / "pacl-2001-2021" / "sections"

IDS = {k: f"{15000000 + k}" for k in range(1, 5)}
#: a quad: 1 established, 2 and 3 new, 4 provisional (559P2) losing all three
GAMES = {1: ["W2", "W3", "W4"], 2: ["L1", "W4", "W3"], 3: ["W4", "L1", "L2"],
         4: ["L3", "L2", "L1"]}
#: the new players' initial ratings the posts were computed with (N = 0)
INITIAL = {2: 1160.0, 3: 1290.0}


def _page(tmp_path):
    from uschess.apps.audit.inputs import _options
    from uschess.apps.audit.page_chain import rate_published
    from uschess.rating.pipeline import RatingOptions

    players = [player(1, GAMES[1], rating=1234, games=60, pid=IDS[1]),
               player(2, GAMES[2], pid=IDS[2]), player(3, GAMES[3], pid=IDS[3]),
               player(4, GAMES[4], rating=559, games=2, pid=IDS[4],
                      record={"wins": 0, "draws": 0, "losses": 2})]
    values = {(IDS[k], "OTBR"): v for k, v in INITIAL.items()}
    res = rate_published(event(players, start="2022-05-25", tc="G/100;d5"),
                         _options(RatingOptions(trace=False), values,
                                  {k: 0 for k in values}))
    posts = {pr.id: pr.post for pr in res.sections[0].players}
    rows = [(k, IDS[k], f"PLAYER {k}", {1: 1234, 4: 559}.get(k, 0),
             [f"{c[0]}   {c[1:]}" for c in GAMES[k]],
             f"{sum(c[0] == 'W' for c in GAMES[k]):.1f}") for k in GAMES]
    text = _msa_text_page(rows, posts)
    for k in (2, 3):
        text = re.sub(rf"{IDS[k]} / R: 0\s+->(\d+)\s*",
                      lambda m: f"{IDS[k]} / R: Unrated->{m.group(1)}P3".ljust(32), text)
    text = re.sub(rf"{IDS[4]} / R: 559\s+->(\d+)\s*",
                  lambda m: f"{IDS[4]} / R:  559P2->{m.group(1)}P5".ljust(32), text)
    path = tmp_path / "page.txt"
    path.write_text(text)
    return path


@pytest.mark.slow
def test_own_history_on_top_of_the_inferred_initial_ratings(tmp_path, monkeypatch, capsys):
    """Player 4 (559P2) loses to an established player and two new ones;
    the posts are computed with 4's two earlier games lost (sec. 4.1) and
    the new players at 1160 and 1290.  Against the rules' initial ratings
    no history reproduces 4's post, so it is not tried as an input; with
    the initial ratings inferred, 4's post is missed with no cause.  Tried
    on top of them, the all-losses history reproduces every post; re-rated
    through the engine with what the audit inferred, so do they."""
    import uschess.apps.audit.history_again as history_again
    import uschess.apps.audit.own_history as own_history

    pub = load_published(_page(tmp_path))
    monkeypatch.setattr(own_history, "MAX_RATINGS", 0)
    # the same history is found with the initial ratings solved again on it
    monkeypatch.setattr(history_again, "MAX_TRIES", 0)
    a = audit(pub)
    row = next(r for r in a.rows if r.entry.id == IDS[4])
    assert not within(row.with_inferred, row.entry.post, a.tolerance)
    assert not [c for c in row.causes if c.cause != "initialization"]
    assert a.reproduced_inferred == 3
    monkeypatch.undo()

    a = audit(pub)
    assert a.reproduced_inferred == 4
    history = [i for i in a.inferred if isinstance(i, InferredHistory)]
    assert [(h.id, h.kind, h.games) for h in history] == [(IDS[4], "losses", 2)]
    row = next(r for r in a.rows if r.entry.id == IDS[4])
    cause = next(c for c in row.causes if c.cause == "history")
    assert "with the inputs inferred from the page" in cause.detail
    assert cause.variant == {"id": IDS[4], "system": "OTBR", "history": "losses", "games": 2}
    res = _rate_with(a, pub.event)
    for e in pub.entries:
        assert within(post_of(res, e.section, e.system, e.id), e.post, a.tolerance)
    assert main_json(tmp_path, capsys)


def main_json(tmp_path, capsys) -> bool:
    import json

    from uschess.cli import main

    assert main(["audit", str(tmp_path / "page.txt"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    return any(i["inferred"] == "history" and i["kind"] == "losses" for i in data["inferred"])


@pytest.mark.slow
@pytest.mark.shared_data
def test_own_history_on_a_real_page():
    """``XtblMain_202011171112_1`` (a quad, dual-rated): ANNA LOUISE BLAIR,
    559P2 -> 473P5 (OTBR) and 525P2 -> 440P5 (OTBQ) after three losses,
    computed 530.30 and 496.90 with the Macks' initial ratings inferred;
    with her two earlier games lost, both posts are met and the event's 8
    of 8."""
    pub = load_published(PACL / "XtblMain_202011171112_1.html", section="1")
    a = audit(pub, known_on=pub.rated_on)
    assert a.reproduced_inferred == 8
    history = [i for i in a.inferred if isinstance(i, InferredHistory)]
    assert {(h.id, h.system, h.kind, h.games) for h in history} == {
        ("17072985", "OTBR", "losses", 2), ("17072985", "OTBQ", "losses", 2)}
    res = _rate_with(a, pub.event, known_on=pub.rated_on)
    for e in pub.entries:
        assert within(post_of(res, e.section, e.system, e.id), e.post, a.tolerance)


@pytest.mark.slow  # a real page audited with its histories searched: seconds
@pytest.mark.shared_data
def test_a_history_tried_for_its_reach_keeps_the_players_own_post():
    """``XtblMain_202101022232_2`` (dual, 4 rounds, 7 unrated players):
    MICHAEL ANTHONY CLEMO, ``654P19 -> 749P23`` (OTBR), computed 759.70. His
    19 earlier games as all wins, tried for what they do to his missed
    opponents (``hidden._history_tries`` with ``own=False``), reproduced one
    more post at the time, but put his own at about 1034; kept, the initial
    ratings solved after it left BLAIR (968), CLEMO (749) and YOUSUFI (708)
    with no cause.  Such a history is no longer kept when it moves the
    player's own post away from the page's: 45 of 46, the one left a floor."""
    pub = load_published(PACL / "XtblMain_202101022232_2.html")
    a = audit(pub, known_on=pub.rated_on)
    assert a.reproduced_inferred == 45
    history = [i for i in a.inferred if isinstance(i, InferredHistory)]
    assert {(h.id, h.system, h.kind) for h in history} == {
        ("17072985", "OTBR", "losses"), ("17072985", "OTBQ", "losses")}
    missed = [r for r in a.rows if not within(r.with_inferred, r.entry.post, a.tolerance)]
    assert [(r.entry.id, r.entry.system) for r in missed] == [("12650738", "OTBQ")]
    assert any(c.cause == "floor" for c in missed[0].causes)
    # re-rated outside the audit with the inputs it names: the same posts
    res = _rate_with(a, pub.event, known_on=pub.rated_on)
    for e in pub.entries:
        got = post_of(res, e.section, e.system, e.id)
        assert within(got, e.post, a.tolerance) == ((e.id, e.system) != ("12650738", "OTBQ"))
    # the history no longer kept: with it, his own post goes far from 749
    clemo = InferredHistory("U1700 SECTION", "OTBR", "17008218", "CLEMO", "wins", 19)
    a.inferred.append(clemo)
    res = _rate_with(a, pub.event, known_on=pub.rated_on)
    assert post_of(res, "U1700 SECTION", "OTBR", "17008218") > 749 + 100
