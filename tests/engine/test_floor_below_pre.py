"""A result held at a floor that the pre-event rating was already under
(sec. 5): rated as the rules say, with a warning, since such a record
should not exist (a floor holds a rating up) unless its floor was lowered
in a way the record does not say."""

from __future__ import annotations

import pytest

from uschess.cli import main
from uschess.io.eventfile import event_from_dict
from uschess.rating.options import RatingOptions
from uschess.rating import section as S
from uschess.rating.pipeline import rate_event

from test_section_kernel import _same_either_way


def _event(rating: float, **record) -> dict:
    """Four players, one round robin: pair 1 (``rating`` and ``record``)
    loses to 2, 3 and 4, who draw each other (the rounds set by
    :func:`_rounds_consistent`)."""
    lost = [{"pair": 1, "id": "10000001", "name": "Below, Floor", "rounds": ["L2", "L3", "L4"],
             "ratings": {"OTBR": {"rating": rating, "games": 38, **record}}}]
    others = [{"pair": k, "id": f"1000000{k}", "name": f"Other, {k}", "rounds": [],
               "ratings": {"OTBR": {"rating": 1500.0 + 10 * k, "games": 40}}}
              for k in (2, 3, 4)]
    return {"event": {"name": "Floors", "start": "2024-03-02"},
            "sections": [{"name": "Open", "time_control": "G/90;d5", "systems": ["OTBR"],
                          "players": lost + others}]}


def _rounds_consistent(data: dict) -> dict:
    players = data["sections"][0]["players"]
    players[1]["rounds"] = ["W1", "D4", "D3"]
    players[2]["rounds"] = ["D4", "W1", "D2"]
    players[3]["rounds"] = ["D3", "D2", "W1"]
    players[0]["rounds"] = ["L2", "L3", "L4"]
    return data


@pytest.mark.parametrize("record, floor, why", [
    ({"prize_floor": 2000}, 2000, "prize floor"),
    ({"peak": 2500.0}, 2100, "established floor"),
])
def test_a_pre_event_rating_under_its_own_floor_is_held_there_with_a_warning(record, floor, why):
    data = _rounds_consistent(_event(1620.0, **record))
    event = event_from_dict(data, source="floors.yaml")
    res = rate_event(event, RatingOptions(trace=False))
    me = res.sections[0].players[0]
    assert me.floor_applied and me.post == floor and me.pre == 1620.0
    assert any(w.startswith(f"the pre-event rating 1620.00 is already below the floor {floor} ")
               and why in w for w in me.warnings), me.warnings
    if S.LEAN is not None:  # the compiled kernel, where it is built, says the same
        assert _same_either_way(event, RatingOptions(trace=False)) == 4


def test_a_floor_that_binds_a_rating_above_it_gives_no_such_warning():
    data = _rounds_consistent(_event(2040.0, prize_floor=2000))
    res = rate_event(event_from_dict(data, source="floors.yaml"), RatingOptions(trace=False))
    me = res.sections[0].players[0]
    assert me.floor_applied and me.post == 2000 and me.pre == 2040.0
    assert not any("already below the floor" in w for w in me.warnings)


def test_the_crosstable_names_the_player_under_notes(tmp_path, capsys):
    import yaml

    path = tmp_path / "floors.yaml"
    path.write_text(yaml.safe_dump(_rounds_consistent(_event(1620.0, prize_floor=2000))))
    assert main(["rate", str(path)]) == 0
    out = capsys.readouterr().out
    assert "R: 1620 -> 2000 (floor, above the pre-event rating: see the notes)" in out
    notes = out[out.index("notes on players:"):]
    assert "! pair 1 Below, Floor: the pre-event rating 1620.00 is already below" in notes
