"""Calendar spans: the periods of the rules counted in calendar years or
days, and durations as people read them.

Where the documents define a span by its days it stays a count of days,
done with the standard library on the hot paths: a player's age is
(Tournament End Date - Birth Date)/365.25 (000 sec. 2.3, 004 sec. 2.6), the
staleness D_k of blended initialization is a number of days (000 sec. 2).
A period of calendar years (the 3-year window of the match caps, 004
sec. 7) and a duration shown to a person ("rated 2 years 5 months before
the event") are calendar arithmetic, done by pendulum (imported when first
needed: a command that meets no such span does not load it).

29 February.  A span of whole years that begins on 29 February is complete
on 1 March of a year that has no 29 February, as pendulum's intervals
count it: the 3 years beginning 2024-02-29 hold 2027-02-28, and 2027-03-01
is the first day after them; 2020-02-29 to 2021-02-28 is 11 months 30 days,
to 2021-03-01 one year and a day.  (pendulum's ``Date.add(years=...)``
lands on 28 February instead: :func:`period_end` counts on to 1 March.)
"""

from __future__ import annotations

import datetime as _dt
from typing import Optional


def _pendulum_date(day: _dt.date):
    import pendulum
    return pendulum.Date(day.year, day.month, day.day)


def period_end(start: _dt.date, *, days: Optional[int] = None,
               years: Optional[int] = None) -> _dt.date:
    """The first day after the period of ``days`` days, or ``years``
    calendar years, that begins on ``start`` (see the module text for a
    period beginning on 29 February)."""
    if (days is None) == (years is None):
        raise ValueError("a period is given in days or in years")
    begin = _pendulum_date(start)
    end = begin.add(days=days) if days is not None else begin.add(years=years)
    if years is not None and (start.month, start.day) == (2, 29) and end.day == 28:
        end = end.add(days=1)
    return _dt.date(end.year, end.month, end.day)


def _plural(n: int, unit: str) -> str:
    return f"{n} {unit}{'' if n == 1 else 's'}"


def duration_text(earlier: _dt.date, later: _dt.date) -> str:
    """The calendar time from ``earlier`` to ``later`` as a person says it:
    years and months (``2 years 5 months``), or months alone, or days under
    a month (``12 days``); ``the same day`` for none.  A ``later`` before
    ``earlier`` is counted the other way."""
    import pendulum
    if later < earlier:
        earlier, later = later, earlier
    span = pendulum.interval(_pendulum_date(earlier), _pendulum_date(later))
    if span.years:
        return _plural(span.years, "year") + (f" {_plural(span.months, 'month')}"
                                              if span.months else "")
    if span.months:
        return _plural(span.months, "month")
    days = (later - earlier).days
    return _plural(days, "day") if days else "the same day"
