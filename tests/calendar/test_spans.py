"""Calendar spans (engine/calendar/spans.py): the match caps' periods of
days and of calendar years, durations shown to people, and the project's
reading of 29 February, stated here once for every place that meets it."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import pytest

from uschess.calendar.spans import duration_text, period_end
from uschess.formulas import age_in_years
from uschess.rating.caps import shares_window

from helpers import ROOT

D = dt.date
THREE_YEARS = {"window": "3 years", "years": 3, "cap": 200.0}
DAYS_180 = {"window": "180 days", "days": 180, "cap": 100.0}


def test_a_period_of_days_counts_both_end_days():
    assert period_end(D(2024, 1, 10), days=180) == D(2024, 7, 8)
    assert shares_window(D(2024, 1, 10), D(2024, 7, 7), DAYS_180)      # 179 days apart
    assert not shares_window(D(2024, 1, 10), D(2024, 7, 8), DAYS_180)  # 180 days apart


def test_29_february_the_projects_reading():
    """A span of whole years beginning on 29 February is complete on 1
    March of a year without 29 February (never on 28 February), for the
    3-year match window as for a duration shown; in a leap year it is
    complete on 29 February.  An age stays days / 365.25 (000 sec. 2.3):
    no reading is needed, a person born on 29 February is 16.0 on 29
    February sixteen years later and not yet on the 28th."""
    assert period_end(D(2024, 2, 29), years=3) == D(2027, 3, 1)
    assert period_end(D(2024, 2, 28), years=3) == D(2027, 2, 28)
    assert period_end(D(2024, 2, 29), years=4) == D(2028, 2, 29)
    assert shares_window(D(2024, 2, 29), D(2027, 2, 28), THREE_YEARS)
    assert not shares_window(D(2024, 2, 29), D(2027, 3, 1), THREE_YEARS)
    assert not shares_window(D(2024, 2, 28), D(2027, 2, 28), THREE_YEARS)
    assert duration_text(D(2020, 2, 29), D(2021, 2, 28)) == "11 months"
    assert duration_text(D(2020, 2, 29), D(2021, 3, 1)) == "1 year"
    assert age_in_years(D(2008, 2, 29), D(2024, 2, 29), 365.25) == 16.0
    assert age_in_years(D(2008, 2, 29), D(2024, 2, 28), 365.25) < 16.0


@pytest.mark.parametrize("earlier, later, text", [
    (D(2021, 8, 31), D(2024, 1, 30), "2 years 4 months"),
    (D(2022, 1, 15), D(2024, 1, 15), "2 years"),
    (D(2024, 1, 1), D(2024, 6, 20), "5 months"),
    (D(2024, 3, 1), D(2024, 3, 13), "12 days"),
    (D(2024, 3, 1), D(2024, 3, 2), "1 day"),
    (D(2024, 3, 1), D(2024, 3, 1), "the same day"),
    (D(2024, 6, 20), D(2024, 1, 1), "5 months"),
])
def test_durations_as_people_say_them(earlier, later, text):
    assert duration_text(earlier, later) == text


def test_explanations_say_how_old_a_source_rating_is(capsys):
    from uschess.cli import main
    trf = ROOT / "fixtures" / "trf" / "trf16-budapest.trf"
    assert main(["rate", str(trf), "--all-unrated", "--explain", "2901234"]) == 0
    assert "dated 2024-04-02 (rated 4 days before the event), G = 10, D = 4" in \
        capsys.readouterr().out


def test_rating_an_event_does_not_load_pendulum():
    """pendulum is for spans of years and for what is shown: a command
    that meets neither starts without it."""
    probe = ("import sys\nfrom uschess.cli import main\n"
             f"main(['rate', {str(ROOT / 'fixtures' / 'events' / 'wfcc15.yaml')!r}, '--json'])\n"
             "print('pendulum' in sys.modules, file=sys.stderr)\n")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0 and out.stderr.strip() == "False", out.stderr
