"""A pre-event rating printed on 0 games (``817P0``), which the reader takes
as unrated, rated as the player's rating with N = 0
(engine/apps/audit/zero_games.py), re-rated here through the engine."""

from __future__ import annotations

import re

import pytest

from uschess.apps.audit import audit, load_published
from uschess.apps.audit.cause import post_of, within
from uschess.apps.audit.zero_games import InferredZeroGames, zero_games_event

from helpers import SHARED_DATA, event, msa_text_page, player

PACL = SHARED_DATA / "real" / "pacl-2001-2021" / "sections"

IDS = {k: f"{12900000 + k}" for k in range(1, 5)}
#: a round robin of four; 4 prints 817P0
GAMES = {1: ["W4", "D3", "L2"], 2: ["L3", "W4", "W1"], 3: ["W2", "D1", "L4"],
         4: ["L1", "L2", "W3"]}
RATINGS = {1: 1430, 2: 1467, 3: 1074}


def _posts(zero_record: bool) -> dict:
    """The posts of the section with player 5 rated at 817 with N = 0
    (``zero_record``) or unrated (the rules' initial rating)."""
    from uschess.apps.audit.page_chain import rate_published
    from uschess.rating.pipeline import RatingOptions

    from uschess.model import SystemRecord

    players = [player(k, GAMES[k], rating=RATINGS[k], games=60, pid=IDS[k]) for k in RATINGS]
    players.append(player(4, GAMES[4], pid=IDS[4]))
    ev = event(players, start="2001-01-31", tc="G/120")
    if zero_record:  # an event file refuses N = 0 with a rating: set on the record
        ev.sections[0].player(4).ratings["OTBR"] = SystemRecord(rating=817.0, games=0)
    res = rate_published(ev, RatingOptions(trace=False))
    return {pr.id: pr.post for pr in res.sections[0].players}


def _page(tmp_path, posts: dict):
    rows = []
    for k in GAMES:
        cells = [f"{c[0]}   {c[1:]}" for c in GAMES[k]]
        total = sum({"W": 1.0, "D": 0.5}.get(c[0], 0.0) for c in GAMES[k])
        pre = f"{RATINGS[k]:<4d}  " if k in RATINGS else " 817P0"
        post = f"{round(posts[IDS[k]]):<4d}" + ("P3" if k == 4 else "")
        rows.append({"pair": k, "name": f"PLAYER {k}", "id": IDS[k], "total": f"{total:.1f}",
                     "cells": cells, "lines": [f"R: {pre} ->{post}"]})
    path = tmp_path / "page.txt"
    path.write_text(msa_text_page(rows, start="2001-01-31", tc="G/120"))
    return path


def test_a_pre_printed_on_zero_games_is_rated_as_a_rating(tmp_path, monkeypatch, capsys):
    """Player 4 prints ``817P0``; the posts were computed with 817 as his
    rating on 0 games (no step-3 estimate: his opponents meet 817 in step
    4).  Read as unrated, his post is missed with no cause; with the
    variant, every post is reproduced, the cause is ``zero_games`` and the
    input is reported; the event re-rated through the engine with the
    record the audit names reproduces every post."""
    import uschess.apps.audit.zero_games as zero_games

    posts = _posts(zero_record=True)
    unrated = _posts(zero_record=False)
    assert abs(posts[IDS[4]] - unrated[IDS[4]]) > 3  # the variant matters to his post
    pub = load_published(_page(tmp_path, posts))
    assert next(e for e in pub.entries if e.id == IDS[4]).pre == 817

    monkeypatch.setattr(zero_games, "MAX_RATINGS", 0)
    a = audit(pub)
    row = next(r for r in a.rows if r.entry.id == IDS[4])
    assert not row.reproduced and not any(c.cause == "zero_games" for c in row.causes)
    monkeypatch.undo()

    a = audit(pub)
    row = next(r for r in a.rows if r.entry.id == IDS[4])
    cause = next(c for c in row.causes if c.cause == "zero_games")
    assert within(cause.computed, row.entry.post, a.tolerance)
    assert "817P0" in cause.detail and cause.variant["zero_games"][0]["rating"] == 817
    assert a.reproduced_inferred == a.total == 4
    kept = [i for i in a.inferred if isinstance(i, InferredZeroGames)]
    assert len(kept) == 1 and kept[0].reproduced == 4 and "817P0" in kept[0].describe()

    # through the engine: the record the audit names, on the event as read
    from uschess.apps.audit.variants import _player_event
    from uschess.apps.audit.page_chain import rate_published
    from uschess.rating.pipeline import RatingOptions
    res = rate_published(zero_games_event(pub.event, kept[0].players, _player_event),
                         RatingOptions(trace=False))
    for e in pub.entries:
        assert within(post_of(res, e.section, e.system, e.id), e.post, 1.0), e.id

    from uschess.cli import main
    assert main(["audit", str(tmp_path / "page.txt"), "--json"]) == 0
    import json
    out = json.loads(capsys.readouterr().out)
    assert out["reproduced_inferred"] == 4
    assert any(i["inferred"] == "zero_games" for i in out["inferred"])


def test_no_zero_games_pre_no_variant(tmp_path):
    """A page whose pres are all ratings (or Unrated) has no such player:
    nothing is tried, nothing reported."""
    posts = _posts(zero_record=False)
    path = _page(tmp_path, posts)
    path.write_text(re.sub(r"R:  817P0 ", "R: Unrated", path.read_text()))
    a = audit(load_published(path))
    assert not any(isinstance(i, InferredZeroGames) for i in a.inferred)
    assert not any(c.cause == "zero_games" for r in a.rows for c in r.causes)


@pytest.mark.skipif(not PACL.is_dir(), reason="the PACL corpus is not beside the checkout")
def test_real_page_2001():
    """XtblMain_200101315530_1: JASON M TENNER, ``817P0 -> 1317P3``: 1336 read
    as unrated, 1318 with 817 as his rating on 0 games; 8 of 8."""
    pub = load_published(PACL / "XtblMain_200101315530_1.html", section="1")
    a = audit(pub, known_on=pub.rated_on)
    assert a.reproduced == 7 and a.reproduced_inferred == 8
    row = next(r for r in a.rows if r.entry.id == "12823779")
    assert row.causes[0].cause == "zero_games" and round(row.with_inferred) == 1318


@pytest.mark.slow
@pytest.mark.skipif(not PACL.is_dir(), reason="the PACL corpus is not beside the checkout")
def test_real_page_2002():
    """XtblMain_200204141170_2 (457 players): MATTHEW D STAFF, ``880P0 ->
    1171P7``: 1178 read as unrated, 1171 so, nothing lost."""
    pub = load_published(PACL / "XtblMain_200204141170_2.html", section="2")
    a = audit(pub, known_on=pub.rated_on)
    row = next(r for r in a.rows if r.entry.id == "12824146")
    assert any(c.cause == "zero_games" for c in row.causes)
    assert within(row.with_inferred, 1171, 1.0)
    kept = next(i for i in a.inferred if isinstance(i, InferredZeroGames))
    assert kept.reproduced == kept.reproduced_before + 1 == a.reproduced_inferred
