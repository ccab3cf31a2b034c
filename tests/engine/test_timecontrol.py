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


def test_times_of_no_finite_length_are_refused_and_shown_short():
    for text in ("9" * 400, "G/" + "9" * 400, "40/" + "9" * 400 + ", SD/30"):
        with pytest.raises(InputError, match="not a finite number of minutes") as info:
            parse_time_control(text)
        assert len(str(info.value)) < 120  # the text is shown cut, not whole
    assert parse_time_control("G/" + "9" * 300).mm == float("9" * 300)  # large, finite: read


def test_a_long_run_of_digits_is_read_in_linear_time():
    """The wording's patterns (``90 min``, ``30 sec``) were searched from every
    digit of a run: a mangled page's 200,000-digit time control took most of
    an hour.  Run with a deadline, so that a regression fails, not hangs."""
    import subprocess
    import sys
    code = ("from uschess.timecontrol import parse_time_control as p\n"
            "from uschess.errors import InputError\n"
            "for t in ('9' * 200000, '9 ' * 100000 + 'x', '1' * 200000 + ' MIN'):\n"
            "    try:\n        p(t)\n    except InputError:\n        pass\n")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
