"""Sections of one event are rated one after another (issue of real pages:
US Chess carries a player's record after one section into the next section
he plays in the same system), and every command that rates agrees."""

from __future__ import annotations

import datetime as dt
import json
import re

import pytest

from uschess.cli import main
from uschess.io.eventfile import event_from_dict, event_to_dict
from uschess.io.formats.msa import parse_msa
from uschess.model import Event
from uschess.rating.pipeline import rate_event

from helpers import SHARED_DATA

WAUKESHA = SHARED_DATA / "real" / "waukesha-2022-late-spring" / "LateSpring-USCF.txt"


def _waukesha() -> Event:
    """The event of the MSA page, each section's table read with the MSA
    table reader (the page's own dates and time control)."""
    text = WAUKESHA.read_text(encoding="utf-8")
    parts = re.split(r"^Section (\d+) - (\S+)\s*$", text, flags=re.M)[1:]
    sections = []
    for number, name, body in zip(parts[0::3], parts[1::3], parts[2::3]):
        start, end = re.search(r"(\d{4}-\d\d-\d\d) thru (\d{4}-\d\d-\d\d)", body).groups()
        tc = re.search(r"Time Control: (\S+)", body).group(1)
        table = body[body.index("-------\n Pair |"):]
        table = table[:table.index("\nNote:")]
        ct = parse_msa(table, source=str(WAUKESHA), name=name, start=dt.date.fromisoformat(start),
                       end=dt.date.fromisoformat(end), time_control=tc)
        sections.append(ct.event.sections[0])
        sections[-1].name = name
    for section in sections:  # the TD's crosstable shows him initialized as an adult (1300/00)
        for pl in section.players:
            if pl.id == "30617972":
                pl.adult = True
    return Event(name="Late Spring", start=sections[0].start, end=sections[0].end,
                 sections=sections, id="202206155692", source=str(WAUKESHA))


@pytest.mark.shared_data
def test_waukesha_player_in_two_sections_is_chained():
    result = rate_event(_waukesha())
    open_, reserve = (next(p for p in s.players if p.id == "30617972") for s in result.sections)
    assert open_.pre is None and open_.post_rounded == 1878 and open_.games_after == 1
    # RESERVE starts from OPEN's result: 1878P1 -> 1878P2, as US Chess published it
    assert reserve.pre == open_.post and reserve.games_before == 1
    assert reserve.pre_from == "section OPEN"
    assert reserve.post_rounded == 1878 and reserve.games_after == 2
    # his RESERVE opponent (pair 10) saw the chained rating, not an unrated player's
    opp = next(p for p in result.sections[1].players if p.pair == 10)
    assert reserve.pre in opp.trace["step4"]["opponents"]


@pytest.mark.shared_data
def test_waukesha_chain_in_the_json_and_explanation(tmp_path, capsys):
    path = tmp_path / "waukesha.yaml"
    path.write_text(json.dumps(event_to_dict(_waukesha()), default=str))
    assert main(["rate", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    rows = [p for s in data["sections"] for p in s["players"] if p["id"] == "30617972"]
    assert [r["pre_from"] for r in rows] == [None, "section OPEN"]
    assert main(["rate", str(path), "--explain", "30617972"]) == 0
    assert "games (the record after section OPEN)" in capsys.readouterr().out


def _two_sections(order):
    """Player 1 plays in both sections (same system); sections listed in ``order``."""
    def sec(name, opp_pair, result):
        return {"name": name, "time_control": "G/90;d30", "players": [
            {"pair": 1, "id": "10000001", "name": "Chained", "rounds": [f"{result}2"],
             "ratings": {"OTBR": {"rating": 1500, "games": 40}}},
            {"pair": 2, "id": f"2000000{opp_pair}", "name": f"Opp {name}",
             "rounds": [f"{'L' if result == 'W' else 'W'}1"],
             "ratings": {"OTBR": {"rating": 1600, "games": 40}}}]}
    secs = {"A": sec("A", 1, "W"), "B": sec("B", 2, "L")}
    return event_from_dict({"event": {"name": "Two", "start": "2024-05-01"},
                            "sections": [secs[n] for n in order]}, source="two.yaml")


def test_sections_are_rated_in_the_event_order():
    ab = rate_event(_two_sections("AB"))
    ba = rate_event(_two_sections("BA"))
    a_first = {s.section.name: s.players[0] for s in ab.sections}
    b_first = {s.section.name: s.players[0] for s in ba.sections}
    assert a_first["B"].pre == a_first["A"].post and a_first["B"].pre_from == "section A"
    assert b_first["A"].pre == b_first["B"].post and b_first["A"].pre_from == "section B"
    assert a_first["A"].pre == 1500 and b_first["B"].pre == 1500
    assert a_first["B"].games_before == 41


def _quick_then_regular():
    """Player 1 is rated in OTBQ only; section Q (G/15, quick only) comes first,
    then section R (G/90;d30, regular only) where he is unrated in OTBR."""
    def player(pair, pid, rounds, **ratings):
        return {"pair": pair, "id": pid, "name": f"P{pid}", "rounds": rounds,
                "ratings": {s: {"rating": r, "games": 40} for s, r in ratings.items()}}
    return event_from_dict({"event": {"name": "Quick then regular", "start": "2019-05-04"},
                            "sections": [
        {"name": "Q", "time_control": "G/15", "players": [
            player(1, "10000001", ["W2"], OTBQ=1500), player(2, "10000002", ["L1"], OTBQ=1700)]},
        {"name": "R", "time_control": "G/90;d30", "players": [
            player(1, "10000001", ["D2"], OTBQ=1500), player(2, "10000003", ["D1"], OTBR=1600)]}]},
        source="qr.yaml")


def test_initialization_sees_the_other_systems_record_from_an_earlier_section():
    """Systems are separate except for initialization (sec. 2): the OTBR
    rating of a player unrated in OTBR starts from his OTBQ rating as it
    stands after the quick section, in rate, compare and replay alike."""
    result = rate_event(_quick_then_regular())
    quick = result.sections[0].players[0]
    regular = result.sections[1].players[0]
    assert quick.system == "OTBQ" and regular.system == "OTBR" and regular.pre is None
    assert quick.post > 1500
    assert regular.initial.rating == pytest.approx(quick.post) or \
        any(s.get("rating") == quick.post for s in regular.initial.sources)
