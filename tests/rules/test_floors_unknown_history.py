"""The personal absolute floor (sec. 5) counts the event being rated even when
the record's earlier win/draw/event counts are unknown (project reading 2):
AF = min(100 + 4 N_W + 2 N_D + N_R, 150) is at least what this event alone
proves, and the warnings say the floor may be higher."""

from __future__ import annotations

import json
import subprocess
import sys

import yaml

from uschess.cli import main
from uschess.io.fide_file import fide_update_from_dict
from uschess.rating.fide_update import fide_update
from uschess.rating.pipeline import RatingOptions, rate_event

from helpers import ROOT, by_pair, event, player, rate


def personal_floor(wins, draws, events3):
    """000 sec. 5: AF = min(100 + 4 N_W + 2 N_D + N_R, 150)."""
    return min(100 + 4 * wins + 2 * draws + events3, 150)


def _draw_with_unrated(tmp_path=None):
    """2020-10-29, G/25+5 (dual-rated): A has OTBQ {100, 10 games} and no
    counts, and draws an unrated B."""
    players = [player(1, ["D2"], rating=100.0, games=10, system="OTBQ", record={"date": "2020-10-01"}),
               player(2, ["D1"])]
    return rate(players, start="2020-10-29", tc="G/25+5")


def test_floor_counts_this_event_when_earlier_counts_are_unknown():
    res = _draw_with_unrated()
    q, r = by_pair(res, "OTBQ")[1], by_pair(res, "OTBR")[1]
    want = personal_floor(0, 1, 0)
    assert want == 102
    assert q.step5 < want and q.floor == want and q.floor_applied and q.post == 102.0
    assert r.post == 102.0  # new in OTBR: the counts are this event's, known
    assert q.record_after.wins is None and q.record_after.draws is None  # still unknown
    assert any("unknown" in w and "may be higher, up to 150" in w and "OTBQ" in w for w in q.warnings)
    assert not any("unknown" in w for w in r.warnings)


def test_floor_counts_this_events_three_games_when_events3_is_unknown():
    """2022-09-18, G/120;d5: B has OTBR {500, 3 games, W/D/L 0/0/3}, no
    events3, and loses three games: N_R is at least 1."""
    players = [player(1, ["L2", "L3", "L4"], rating=500.0, games=3,
                      record={"wins": 0, "draws": 0, "losses": 3}),
               *[player(i, ["U"] * (i - 2) + ["W1"] + ["U"] * (4 - i), rating=150.0, games=30)
                 for i in (2, 3, 4)]]
    b = by_pair(rate(players, start="2022-09-18", tc="G/120;d5"))[1]
    want = personal_floor(0, 0, 1)
    assert want == 101
    assert b.step5 < want and b.floor == want and b.post == 101.0 and b.floor_applied
    assert "events with 3 or more games" in b.floor_reason
    assert any("events with 3 or more games in OTBR unknown" in w for w in b.warnings)


def test_no_warning_where_no_history_could_matter():
    """Unknown counts, but a rating far above the highest possible personal
    floor: nothing to warn about."""
    players = [player(1, ["W2"], rating=1500.0, games=40), player(2, ["L1"], rating=1500.0, games=40)]
    got = by_pair(rate(players, start="2022-09-18", tc="G/120;d5"))
    assert not any("unknown" in w for p in got.values() for w in p.warnings)


def test_known_counts_unchanged():
    """With the counts known the floor is exactly sec. 5's (000 sec. 5 example:
    3 wins, 1 draw, 10 events -> 124 before this event)."""
    players = [player(1, ["L2"], rating=105.0, games=40,
                      record={"wins": 3, "draws": 1, "losses": 36, "events3": 10}),
               player(2, ["W1"], rating=1000.0, games=40)]
    a = by_pair(rate(players, start="2022-09-18", tc="G/120;d5"))[1]
    assert a.floor == 124 and a.post == 124.0
    assert not any("unknown" in w for w in a.warnings)


def test_cli_json_and_explain_show_the_floor_and_warning(tmp_path):
    data = {"event": {"name": "Quick night", "start": "2020-10-29"},
            "sections": [{"name": "QUICK", "time_control": "G/25+5", "players": [
                {"pair": 1, "id": "10000001", "name": "A", "rounds": ["D2"],
                 "ratings": {"OTBQ": {"rating": 100.0, "games": 10, "date": "2020-10-01"}}},
                {"pair": 2, "id": "10000002", "name": "B", "rounds": ["D1"]}]}]}
    path = tmp_path / "quick.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    out = subprocess.run([sys.executable, "-m", "uschess", "rate", str(path), "--json"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    sections = {s["system"]: s for s in json.loads(out.stdout)["sections"]}
    a = next(p for p in sections["OTBQ"]["players"] if p["id"] == "10000001")
    assert a["post"] == 102.0 and a["floor"] == 102 and a["floor_applied"]
    assert any("may be higher" in w for w in a["warnings"])
    out = subprocess.run([sys.executable, "-m", "uschess", "rate", str(path), "--explain", "10000001"],
                         capture_output=True, text=True, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    assert "floor: 102 (personal absolute floor min(100 + 4x0 + 2x1 + 0, 150), counting this event" in out.stdout
    assert "! earlier wins, draws, events with 3 or more games in OTBQ unknown" in out.stdout


def test_replay_keeps_unknown_counts_unknown(tmp_path):
    """The store gets the floored rating, and the counts stay unknown (the
    floor of the next event again counts that event's own results)."""
    data = {"event": {"name": "Quick night", "id": "q1", "start": "2020-10-29"},
            "sections": [{"name": "QUICK", "time_control": "G/25+5", "players": [
                {"pair": 1, "id": "10000001", "name": "A", "rounds": ["D2"],
                 "ratings": {"OTBQ": {"rating": 100.0, "games": 10, "date": "2020-10-01"}}},
                {"pair": 2, "id": "10000002", "name": "B", "rounds": ["D1"]}]}]}
    path = tmp_path / "q1.yaml"
    path.write_text(yaml.safe_dump(data), encoding="utf-8")
    db = tmp_path / "r.db"
    assert main(["replay", str(path), "--db", str(db)]) == 0
    out = subprocess.run([sys.executable, "-m", "uschess", "player", "10000001", "--db", str(db),
                          "--json"], capture_output=True, text=True, cwd=ROOT)
    q = json.loads(out.stdout)["systems"]["OTBQ"]
    assert q["rating"] == 102.0 and q["wins"] is None and q["draws"] is None


def test_fide_update_floor_counts_the_update():
    """A FIDE update (sec. 6) is booked like an event: four games lost by an
    established 100 player without counts: N_R >= 1, so the floor is 101."""
    upd = fide_update_from_dict({
        "kind": "fide-update", "event": {"name": "Abroad", "start": "2022-03-10", "end": "2022-03-12"},
        "player": {"id": "1", "ratings": {"OTBR": {"rating": 100.0, "games": 40}}},
        "games": [{"fide": 1200, "result": "L"}, {"fide": 1250, "result": "L"},
                  {"fide": 1300, "result": "L"}, {"fide": 1350, "result": "L"}]}, "abroad.yaml")
    res = fide_update(upd)
    assert res.floor == personal_floor(0, 0, 1) == 101 and res.post == 101.0 and res.floor_applied
    assert any("may be higher" in w for w in res.warnings)


def test_match_floor_counts_the_match():
    """A match (sec. 7): floors are not automatic, but the floor judged (and
    the request to lower it) counts the match's games."""
    rec = {"rating": 140.0, "games": 30, "date": "2022-01-01"}
    players = [player(1, ["L2", "L2", "L2", "L2"], ratings={"OTBR": rec}),
               player(2, ["W1", "W1", "W1", "W1"], ratings={"OTBR": {"rating": 400.0, "games": 30}})]
    res = rate_event(event(players, start="2022-03-01", tc="G/120;d5", type="match"), RatingOptions())
    a = by_pair(res)[1]
    assert a.floor == personal_floor(0, 0, 1)
    assert any("may be higher" in w for w in a.warnings)
