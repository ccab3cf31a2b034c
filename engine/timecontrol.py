"""Time controls as US Chess writes them, reduced to mm + ss (000 footnote 1).

``mm`` is the total main time in minutes (every period added up), ``ss`` the
delay or increment in seconds.  Accepted forms include ``G/60;d5``, ``G/60 d5``,
``G/60+5``, ``G/5d0``, ``G/3+2``, ``Game/90 inc30``, ``40/90, SD/30; d5``,
``40/120 SD/60``, ``40/2, SD/1`` (hours when a move period's time is 6 or
less), ``G/45 +10``, the bare ``60+5`` or ``90 d30``, and FIDE's wording
``90 min/40 moves + 30 min + 30 sec/move`` or ``90'+30"``.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from uschess.errors import InputError

_PERIOD = re.compile(r"^(?:(G|GAME|SD)\s*/?\s*(\d+(?:\.\d+)?)|(\d+)\s*/\s*(\d+(?:\.\d+)?))$")
_EXTRA = re.compile(r"^(?:D|DELAY|INC|\+|I|B|BONUS)\s*(\d+)$")
_BARE = re.compile(r"^(\d+(?:\.\d+)?)\s*(?:(\+|D|INC|;D)\s*(\d+))?$")


@dataclass(frozen=True)
class TimeControl:
    text: str
    mm: float
    ss: float
    #: mm + ss, the quantity the footnote classifies by (read for every
    #: player's K: kept, not added again at each read)
    total: float = field(init=False, repr=False, compare=False)

    def __post_init__(self):
        object.__setattr__(self, "total", self.mm + self.ss)


# a number starts only where no digit precedes: a match found inside a run of
# digits is found from its start too, and searching from every digit of a long
# run (a mangled page's time control) took time quadratic in its length
_VERBAL_MIN = re.compile(r"(?<!\d)(\d+(?:\.\d+)?)\s*(?:MIN(?:UTES?|S)?\b|')")
_VERBAL_SEC = re.compile(r"(?<!\d)(\d+(?:\.\d+)?)\s*(?:SEC(?:ONDS?|S)?\b|\")")
_VERBAL_HOUR = re.compile(r"(?<!\d)(\d+(?:\.\d+)?)\s*(?:H(?:OURS?|RS?)?\b)")


def _verbal(raw: str, s: str) -> TimeControl | None:
    """FIDE-style wording: ``90 min/40 moves + 30 min + 30 sec/move``, ``90'+30"``."""
    minutes = [float(x) for x in _VERBAL_MIN.findall(s)]
    hours = [float(x) for x in _VERBAL_HOUR.findall(s)]
    seconds = [float(x) for x in _VERBAL_SEC.findall(s)]
    if not minutes and not hours:
        return None
    return TimeControl(raw, sum(minutes) + 60 * sum(hours), max(seconds, default=0.0))


def parse_time_control(text: str) -> TimeControl:
    """The time control written in ``text`` (sec. 8's forms and FIDE-style
    wording); an InputError for text it cannot read, or whose times are no
    finite number of minutes (``G/`` and 400 digits)."""
    tc = _parse_time_control(text)
    if not math.isfinite(tc.mm + tc.ss):
        raise InputError(f"time control {_shown(tc.text)}: the time is not a finite number "
                         "of minutes")
    return tc


def _shown(text: str) -> str:
    return repr(text if len(text) <= 40 else text[:40] + "...")


def _parse_time_control(text: str) -> TimeControl:
    raw = str(text).strip()
    s = raw.upper()
    verbal = _verbal(raw, s)
    if verbal is not None:
        return verbal
    bare = _BARE.match(s.replace(" ", ""))
    if bare:
        return TimeControl(raw, float(bare.group(1)), float(bare.group(3) or 0))
    # split "G/60;d5", "G/60+5", "40/90, SD/30 inc30" into tokens
    s = re.sub(r"([0-9])\s*(\+|;|,)", r"\1 \2", s)
    s = re.sub(r"(\d)(D|INC)(\d)", r"\1 \2\3", s)
    tokens = [t for t in re.split(r"[\s,;]+", s) if t]
    mm = 0.0
    ss = None
    hours = False
    periods = 0
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if tok == "+" and i + 1 < len(tokens) and tokens[i + 1].isdigit():
            tok = "+" + tokens[i + 1]
            i += 1
        period = _PERIOD.match(tok)
        extra = _EXTRA.match(tok)
        if period:
            if period.group(2) is not None:
                minutes = float(period.group(2))
                if hours and period.group(1) == "SD" and minutes <= 6:
                    minutes *= 60
            else:
                minutes = float(period.group(4))
                if minutes <= 6:
                    hours = True
                    minutes *= 60
            mm += minutes
            periods += 1
        elif extra:
            value = float(extra.group(1))
            ss = value if ss is None else max(ss, value)
        else:
            raise InputError(f"time control {_shown(raw)}: cannot read {_shown(tok)} "
                             "(write it like G/60;d5, G/3+2 or 40/90, SD/30;d5)")
        i += 1
    if periods == 0:
        raise InputError(f"time control {_shown(raw)} has no main time (write it like G/60;d5)")
    return TimeControl(raw, mm, ss or 0.0)
