"""A member listed twice in one section is rated as one player with the games
of both entries, in every reader (engine/io/reentry.py)."""

from __future__ import annotations

import pytest
import yaml

from uschess.cli import main
from uschess.rating.pipeline import rate_event

from helpers import event, player


def _reentry():
    return event([
        player(1, ["W2", "U"], rating=1500, games=40, pid="11111111"),
        player(2, ["L1", "L4"], rating=1600, games=40, pid="22222222"),
        player(3, ["U", "H"], rating=1400, games=40, pid="33333333"),
        player(4, ["U", "W2"], rating=1500, games=40, pid="11111111"),
    ])


def _plain():
    return event([
        player(1, ["W2", "W2"], rating=1500, games=40, pid="11111111"),
        player(2, ["L1", "L1"], rating=1600, games=40, pid="22222222"),
        player(3, ["U", "H"], rating=1400, games=40, pid="33333333"),
    ])


def test_one_player_with_the_games_of_both_entries():
    ev = _reentry()
    sec = ev.sections[0]
    assert [p.pair for p in sec.players] == [1, 2, 3]
    assert any("11111111 is listed 2 times (pairs 1, 4)" in n for n in sec.notes)
    me = sec.player(1)
    assert sum(r.rated for r in me.rounds) == 2
    got = {p.id: p.post for s in rate_event(ev).sections for p in s.players}
    want = {p.id: p.post for s in rate_event(_plain()).sections for p in s.players}
    assert got == pytest.approx(want)


def test_event_file_with_a_reentry_rates_with_a_note(tmp_path, capsys):
    f = tmp_path / "e.yaml"
    rec = {"OTBR": {"rating": 1500, "games": 40}}
    f.write_text(yaml.safe_dump({
        "event": {"name": "Club", "start": "2024-03-09"},
        "sections": [{"name": "OPEN", "time_control": "G/90;d5", "players": [
            {"pair": 1, "id": "11111111", "name": "A", "rounds": ["W2", "U"], "ratings": rec},
            {"pair": 2, "id": "22222222", "name": "B", "rounds": ["L1", "L4"], "ratings": rec},
            {"pair": 3, "id": "33333333", "name": "C", "rounds": ["U", "H"], "ratings": rec},
            {"pair": 4, "id": "11111111", "name": "A", "rounds": ["U", "W2"]}]}]}))
    assert main(["rate", str(f)]) == 0
    out = capsys.readouterr().out
    assert "section OPEN: member 11111111 is listed 2 times (pairs 1, 4)" in out
    assert main(["rate", str(f), "--json"]) == 0
    data = __import__("json").loads(capsys.readouterr().out)
    players = data["sections"][0]["players"]
    assert sorted(p["pair"] for p in players) == [1, 2, 3]


def test_entries_with_games_in_the_same_round_are_laid_out_apart():
    """Both entries of 11111111 played round 1, against the two entries of
    22222222 and 33333333: their blocks collide, so the later game moves to a
    round free for both its players (event 201807080972, section 3)."""
    ev = event([
        player(1, ["W5"], rating=1500, games=40, pid="11111111"),
        player(2, ["U"], rating=1600, games=40, pid="22222222"),
        player(3, ["W4"], rating=1400, games=40, pid="33333333"),
        player(4, ["L3"], rating=1500, games=40, pid="11111111"),
        player(5, ["L1"], rating=1600, games=40, pid="22222222"),
    ])
    sec = ev.sections[0]
    assert any("the entries of 11111111" in n and "same round" in n for n in sec.notes)
    assert sorted(r.code for r in sec.player(1).rounds if r.rated) == ["L", "W"]
    plain = event([
        player(1, ["W2", "L3"], rating=1500, games=40, pid="11111111"),
        player(2, ["L1", "U"], rating=1600, games=40, pid="22222222"),
        player(3, ["U", "W1"], rating=1400, games=40, pid="33333333"),
    ])
    got = {p.id: p.post for s in rate_event(ev).sections for p in s.players}
    want = {p.id: p.post for s in rate_event(plain).sections for p in s.players}
    assert got == pytest.approx(want, abs=1e-9)
