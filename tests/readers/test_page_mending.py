"""What the page reader puts right on real pages, with a note
(engine/io/formats/page_event.py ``mend_opponent_numbers``)."""

from __future__ import annotations

import datetime as dt

import pytest

from uschess.errors import InputError
from uschess.io.eventfile import validate_section
from uschess.io.formats.page_event import mend_opponent_numbers
from uschess.model import Player, Round, Section


def _section(rows: dict[int, list[str]]) -> Section:
    def cell(text):
        return Round(text[0], int(text[1:])) if len(text) > 1 else Round(text)
    players = [Player(pair=pair, id=str(10000000 + pair), name=f"P{pair}",
                      rounds=[cell(c) for c in cells])
               for pair, cells in rows.items()]
    return Section(name="S", time_control="G/90;d30", players=players,
                   start=dt.date(2014, 2, 15), end=dt.date(2014, 2, 15))


def test_one_other_player_naming_it_back_mends_the_number():
    sec = _section({1: ["W2", "L9"], 2: ["L1", "U"], 3: ["U", "W1"], 9: ["U", "U"]})
    with pytest.raises(InputError):
        validate_section(sec)
    mended, notes = mend_opponent_numbers(sec)
    assert notes == ["pair 1 prints L9 in round 2, but pair 9's round 2 is U and pair 3 prints "
                     "W1: read as the game with pair 3 (the opponent's number misprinted)"]
    assert mended.players[0].rounds[1] == Round("L", 3)
    validate_section(mended)


@pytest.mark.parametrize("rows", [
    # two players claim the game: which one is meant cannot be told
    {1: ["W2", "L9"], 2: ["L1", "U"], 3: ["U", "W1"], 4: ["U", "W1"], 9: ["U", "U"]},
    # the one claiming it printed another result: no mirror
    {1: ["W2", "L9"], 2: ["L1", "U"], 3: ["U", "L1"], 9: ["U", "U"]},
])
def test_no_single_mirrored_claim_mends_nothing(rows):
    sec = _section(rows)
    mended, notes = mend_opponent_numbers(sec)
    assert notes == [] and mended is sec
