"""A player new to a system has played N + m games after an event, N the
games step 1 gave the initial rating (project reading 12): the published
provisional counts show it (a new member rated from other ratings prints
P<N + m>, never more than the sec. 2 cap of 10 above m)."""

from __future__ import annotations

import collections
import re

import pytest
from helpers import SHARED_DATA, by_pair, event, player

from uschess.cli import main
from uschess.rating.chain import Chain
from uschess.rating.pipeline import RatingOptions, rate_event

PACL = SHARED_DATA / "real" / "pacl-2001-2021" / "sections"


def _cfc_newcomer(start, rounds=("W2", "W3")):
    return event([player(1, list(rounds), cfc={"rating": 1700, "date": "2024-01-01", "canadian": True}),
                  player(2, ["L1", "D4"], rating=1600, games=100),
                  player(3, ["D4", "L1"], rating=1500, games=100),
                  player(4, ["D3", "D2"], rating=1500, games=100)], start=start)


def test_a_blended_newcomer_counts_the_initial_games():
    got = by_pair(rate_event(_cfc_newcomer("2024-03-05"), RatingOptions()))[1]
    assert got.games_before == 0 and got.initial.games == 5
    assert got.games_after == got.initial.games + 2 == got.record_after.games
    # his wins, draws and losses are this event's only (the initial N has none)
    assert (got.record_after.wins, got.record_after.draws, got.record_after.losses) == (2, 0, 0)


def test_an_age_based_newcomer_counts_the_event_only():
    ev = event([player(1, ["W2"], birth_date="1990-01-01"), player(2, ["L1"], rating=1600, games=100)],
               start="2024-03-05")
    got = by_pair(rate_event(ev, RatingOptions()))[1]
    assert got.initial.games == 0 and got.games_after == 1


def test_the_next_event_starts_from_n_plus_m():
    """Chained, the second event sees N + m games: a larger N' than m alone."""
    chain = Chain()
    chain.rate_event(_cfc_newcomer("2024-03-05"), RatingOptions())
    second = chain.rate_event(_cfc_newcomer("2024-04-05"), RatingOptions())
    pr = by_pair(second)[1]
    assert pr.games_before == 7 and pr.games_after == 9


def test_the_export_prints_the_provisional_count_with_the_initial_games(tmp_path, capsys):
    import yaml

    path = tmp_path / "e.yaml"
    ev_raw = {"event": {"name": "E", "start": "2024-03-05", "end": "2024-03-05"},
              "sections": [{"name": "S", "time_control": "G/90;d5", "players": [
                  {"pair": 1, "id": "10000001", "name": "New, Canadian", "rounds": ["W2", "W3"],
                   "cfc": {"rating": 1700, "date": "2024-01-01", "canadian": True}},
                  {"pair": 2, "id": "10000002", "name": "B", "rounds": ["L1", "D4"],
                   "ratings": {"OTBR": {"rating": 1600, "games": 100}}},
                  {"pair": 3, "id": "10000003", "name": "C", "rounds": ["D4", "L1"],
                   "ratings": {"OTBR": {"rating": 1500, "games": 100}}},
                  {"pair": 4, "id": "10000004", "name": "D", "rounds": ["D3", "D2"],
                   "ratings": {"OTBR": {"rating": 1500, "games": 100}}}]}]}
    path.write_text(yaml.safe_dump(ev_raw), encoding="utf-8")
    assert main(["export", "crosstable", str(path), "--format", "msa"]) == 0
    out = capsys.readouterr().out
    line = next(ln for ln in out.splitlines() if "10000001" in ln)
    assert re.search(r"->\s*\d+P7\b", line), line


@pytest.mark.shared_data
def test_published_counts_of_newcomers_are_n_plus_m():
    """On the PACL pages of 2020-04 (online blitz, new in OLB, rated from their
    other ratings): every newcomer's printed count is m plus at most the cap
    of 10 initial games, and many exceed m."""
    from uschess.io.formats.pages import read_page

    page = read_page(PACL / "XtblMain_202004159462_1.html")
    extra = collections.Counter()
    for sec in page.sections:
        for pl in sec.players:
            m = sum(1 for r in pl.rounds if r.opponent is not None and r.code in "WLD")
            for pr in pl.ratings.values():
                if pr.pre is None and pr.post_games is not None and m:
                    extra[pr.post_games - m] += 1
    assert extra and all(0 <= k <= 10 for k in extra)
    assert sum(n for k, n in extra.items() if k > 0) >= 5
