"""Time controls as written by US Chess, pairing programs and FIDE."""

import pytest

from uschess.errors import InputError
from uschess.timecontrol import parse_time_control


@pytest.mark.parametrize("text,mm,ss", [
    ("G/60;d5", 60, 5), ("G/60 d5", 60, 5), ("G/60+5", 60, 5), ("G/5d0", 5, 0), ("G/3+2", 3, 2),
    ("G/7d3", 7, 3), ("Game/90 inc30", 90, 30), ("40/90, SD/30; d5", 120, 5), ("40/120 SD/60", 180, 0),
    ("40/2, SD/1", 180, 0), ("G/45 +10", 45, 10), ("60+5", 60, 5), ("90 d30", 90, 30), ("G/120", 120, 0),
    ("90 min/40 moves + 30 min + 30 sec/move", 120, 30), ("90'+30\"", 90, 30), ("G/25;d5", 25, 5),
])
def test_parse(text, mm, ss):
    tc = parse_time_control(text)
    assert (tc.mm, tc.ss) == (mm, ss)
    assert tc.total == mm + ss


@pytest.mark.parametrize("text", ["sixty minutes?", "", "d5", "G/", "rapid"])
def test_refused(text):
    with pytest.raises(InputError):
        parse_time_control(text)
