"""The page's N and R cells rated as games with the hidden inputs inferred
again on them (engine/apps/audit/rescored.py), re-rated here through the
engine."""

from __future__ import annotations

import dataclasses
import json
import re

import pytest

from uschess.apps.audit import audit, load_published
from uschess.apps.audit.cause import post_of, within
from uschess.apps.audit.infer import Inferred
from uschess.apps.audit.inputs import _options
from uschess.apps.audit.page_chain import rate_published
from uschess.apps.audit.rescored import InferredScoredCells
from uschess.cli import main
from uschess.model import Round
from uschess.rating.pipeline import RatingOptions

from helpers import SHARED_DATA, event, player
from test_audit_tradeoff import _msa_text_page

PACL = SHARED_DATA / "real" / "pacl-2001-2021" / "sections"

RATINGS = {1: 1700, 2: 1600, 3: 1500, 4: 1400, 5: 1650, 6: 1550, 7: None, 8: 1450}
IDS = {k: f"{14000000 + k}" for k in RATINGS}
#: round 3 of pairs 3 and 7 is the page's ``R 7`` and ``N 3``: a bye each
#: for the reader
SHOWN = {1: ["W7", "W4", "D2"], 2: ["D3", "L7", "D1"], 3: ["D2", "D6", "H"],
         4: ["L5", "L1", "W8"], 5: ["W4", "W8", "L6"], 6: ["W8", "D3", "W5"],
         7: ["L1", "W2", "B"], 8: ["L6", "L5", "L4"]}
#: the unrated player's initial rating the posts were computed with (N = 0)
UNRATED, INITIAL = 7, 1450.0


def _event():
    return event([player(k, SHOWN[k], rating=RATINGS[k], games=60, pid=IDS[k])
                  if RATINGS[k] is not None else player(k, SHOWN[k], pid=IDS[k])
                  for k in RATINGS], start="2022-05-25", tc="G/100;d5")


def _with_games(ev):
    """``ev`` with round 3 of pairs 3 and 7 rated as games, each with their
    own score: a draw for 3, a win for 7."""
    sec = ev.sections[0]
    players = [dataclasses.replace(p) for p in sec.players]
    for pair, code, opp in ((3, "D", 7), (7, "W", 3)):
        p = players[pair - 1]
        p.rounds = list(p.rounds[:2]) + [Round(code, opp)]
    return dataclasses.replace(ev, sections=[dataclasses.replace(sec, players=players)])


def _page(tmp_path):
    key = (IDS[UNRATED], "OTBR")
    res = rate_published(_with_games(_event()),
                         _options(RatingOptions(trace=False), {key: INITIAL}, {key: 0}))
    posts = {pr.id: pr.post for pr in res.sections[0].players}
    cells = {**SHOWN, 3: ["D   2", "D   6", "R   7"], 7: ["L   1", "W   2", "N   3"]}
    rows = [(k, IDS[k], f"PLAYER {k}", RATINGS[k] or 0,
             [c if " " in c else f"{c[0]}   {c[1:]}" for c in cells[k]],
             f"{sum({'W': 1, 'D': 0.5, 'L': 0, 'N': 1, 'R': 0.5}[c[0]] for c in cells[k]):.1f}")
            for k in RATINGS]
    text = _msa_text_page(rows, posts)
    # the unrated player: "Unrated" and a provisional post after 3 games
    text = re.sub(rf"{IDS[UNRATED]} / R: 0\s+->(\d+)\s*",
                  lambda m: f"{IDS[UNRATED]} / R: Unrated->{m.group(1)}P3".ljust(32), text)
    path = tmp_path / "page.txt"
    path.write_text(text)
    return path, posts


@pytest.mark.slow
def test_scored_cells_with_the_initial_rating_inferred_again(tmp_path, monkeypatch, capsys):
    """Posts computed with the page's ``R 7`` and ``N 3`` rated as games
    (a draw for 3, a win for 7) and the unrated player 7 starting at 1450:
    with the cells as byes, 7's initial rating solved on two games meets
    7's post but not 3's, and the cells rated as games with the rules'
    initial rating meet 3's but not 7's; audited again with the games, the
    initial rating solved again on them, every post is met, and the variant
    re-rated through the engine reproduces them all."""
    import uschess.apps.audit.rescored as rescored

    path, posts = _page(tmp_path)
    pub = load_published(path)
    assert [(c.pair, c.index, c.code, c.opponent) for c in pub.scored] == [(3, 2, "R", 7),
                                                                         (7, 2, "N", 3)]
    monkeypatch.setattr(rescored, "MAX_CELLS", 0)  # the variant not tried
    a = audit(pub)
    assert a.reproduced_inferred == 7 and a.total == 8
    # 7's post is met by an initial rating solved on two games, 3's is not;
    # the cells as games with the rules' initial rating meet 3's, not 7's
    missed = [r for r in a.rows if not within(r.with_inferred, r.entry.post, a.tolerance)]
    assert [r.entry.id for r in missed] == [IDS[3]]
    row = next(r for r in a.rows if r.entry.id == IDS[UNRATED])
    assert [c.cause for c in row.causes] == ["initialization"]
    monkeypatch.undo()

    a = audit(pub)
    assert a.reproduced < 8 and a.reproduced_inferred == 8
    record = a.inferred[0]
    assert isinstance(record, InferredScoredCells)
    assert record.cells == [(3, 3, "R", 7), (7, 3, "N", 3)]
    assert (record.reproduced, record.loses) == (8, []) and record.reproduced_shown < 8
    row = next(r for r in a.rows if r.entry.id == IDS[UNRATED])
    cause = next(c for c in row.causes if c.cause == "scored_cells")
    assert "inferred again" in cause.detail and within(cause.computed, row.entry.post, 1.0)
    assert cause.variant == {"section": "OPEN", "cells": [[3, 3, "R", 7], [7, 3, "N", 3]]}
    # the variant through the engine: the games and the initial rating inferred with them
    value = next(i for i in a.inferred if isinstance(i, Inferred))
    assert value.id == IDS[UNRATED] and value.games == 0
    key = (IDS[UNRATED], "OTBR")
    ev = _with_games(load_published(path).event)
    res = rate_published(ev, _options(RatingOptions(trace=False), {key: value.value}, {key: 0}))
    got = {pr.id: pr.post for pr in res.sections[0].players}
    assert all(within(got[e.id], e.post, 1.0) for e in pub.entries)

    assert main(["audit", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["inferred"][0]["inferred"] == "scored_cells"


@pytest.mark.shared_data
@pytest.mark.slow
def test_scored_cells_inferred_again_on_a_real_page():
    """``XtblMain_200504073101_1`` (2005 blitz, double rounds, ten N/R
    cells): 314 of 324 with the cells as byes and the inputs inferred (313
    before the 2017 bonus eligibility was dated from 2002: HANCOCK's 902);
    with every player's cells rated as games and the inputs inferred again,
    at least 321, among them pairs 25 (1527), 108 (1237) and 163 (1177), which
    had no cause; the post the variant loses (pair 181, 1013) is named, with
    a cause of its own."""
    pub = load_published(PACL / "XtblMain_200504073101_1.html", section="1")
    a = audit(pub, known_on=pub.rated_on)
    record = a.inferred[0]
    assert isinstance(record, InferredScoredCells) and len(record.cells) == 10
    assert record.reproduced_shown == 314 and a.reproduced_inferred == record.reproduced >= 321
    for pid in ("12815837", "13140192", "12834136"):
        row = next(r for r in a.rows if r.entry.id == pid)
        assert within(row.with_inferred, row.entry.post, a.tolerance)
        assert any(c.cause == "scored_cells" and "inferred again" in c.detail
                   for c in row.causes)
    for lost in record.loses:
        row = next(r for r in a.rows if r.entry.id == lost["id"])
        assert not within(row.with_inferred, row.entry.post, a.tolerance)
        assert [c for c in row.causes if c.cause != "initialization"]


@pytest.mark.shared_data
@pytest.mark.slow
def test_scored_cells_inferred_again_meet_a_former_tradeoff():
    """``XtblMain_201912158942_13`` (pair 24 ``N 35``, pair 35 ``R 24`` in
    round 7): 62 of 73 with the cells as byes, the post of 16976354 (884) a
    trade-off there (test_audit_tradeoff.py); with the cells rated as games
    and the inputs inferred again, at least 70, that post among them, and
    the whole variant re-rated through the engine gives what the audit
    says."""
    from test_audit_tradeoff import _rate_with

    pub = load_published(PACL / "XtblMain_201912158942_13.html", section="13")
    a = audit(pub, known_on=pub.rated_on)
    record = a.inferred[0]
    assert isinstance(record, InferredScoredCells) and record.reproduced_shown == 62
    assert a.reproduced_inferred == record.reproduced >= 70
    row = next(r for r in a.rows if r.entry.id == "16976354")
    assert within(row.with_inferred, 884.0, a.tolerance)
    res = _rate_with(a, pub.event, known_on=pub.rated_on)
    sec = pub.event.sections[0].name
    assert all(post_of(res, sec, r.entry.system, r.entry.id) == pytest.approx(r.with_inferred)
               for r in a.rows if r.with_inferred is not None)
