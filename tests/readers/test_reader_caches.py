"""The event reader parses each distinct round cell and date text once and
remembers the result: the values it hands out again cannot be changed, so
one event read cannot change the next one."""

from __future__ import annotations

import dataclasses
import datetime as dt

import pytest

from uschess.errors import InputError
from uschess.io.eventfile import event_from_dict, parse_rounds


def raw(cells=("W2", "L1")):
    return {"event": {"start": "2024-01-06", "id": "E"},
            "sections": [{"name": "Open", "time_control": "G/60", "players": [
                {"pair": 1, "id": "1", "name": "A", "birth_date": "2001-02-03",
                 "rounds": [cells[0]]},
                {"pair": 2, "id": "2", "name": "B", "rounds": [cells[1]]}]}]}


def test_a_round_changed_in_one_event_is_not_changed_in_the_next():
    first = event_from_dict(raw())
    rounds = first.sections[0].players[0].rounds
    with pytest.raises(dataclasses.FrozenInstanceError):
        rounds[0].opponent = None
    rounds[0] = dataclasses.replace(rounds[0], opponent=None)
    second = event_from_dict(raw())
    assert str(second.sections[0].players[0].rounds[0]) == "W2"
    assert second.sections[0].players[0].birth_date == dt.date(2001, 2, 3)


def test_remembered_cells_read_as_the_first_time_and_bad_ones_are_located():
    assert [str(r) for r in parse_rounds(["W2", " d 3 ", "H", "W2"])] == ["W2", "D3", "H", "W2"]
    assert [str(r) for r in parse_rounds(["W2", " d 3 ", "H", "W2"])] == ["W2", "D3", "H", "W2"]
    with pytest.raises(InputError) as err:
        parse_rounds(["W2", "H", ["W", 3]])
    assert "round 3" in str(err.value)
    with pytest.raises(InputError) as err:
        parse_rounds(["W2", "B4"])
    assert "round 2" in str(err.value) and "a bye has no opponent" in str(err.value)
