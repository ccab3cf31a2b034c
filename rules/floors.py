"""Personal rating floors (sec. 5) and how ratings are stored."""

from __future__ import annotations

import math

from uschess.formulas import floor_level

from uschess.rules.base import EventCounts, Floor, RulePlugin, src
from uschess.rules.hookspecs import hookimpl


COUNT_NAMES = ("wins", "draws", "events with 3 or more games")


def personal_counts(after, event) -> tuple:
    """(N_W, N_D, N_R, unknown) for the personal absolute floor (sec. 5): the
    record's counts after the event (project reading 2); where an earlier
    count is unknown, the event's own count, which every earlier history
    reaches or exceeds (``unknown`` names those counts)."""
    wins, draws, events3 = after.wins, after.draws, after.events3
    if wins is not None and draws is not None and events3 is not None:
        return wins, draws, events3, ()
    own = event or EventCounts(0, 0, 0, 0)
    if wins is None and draws is None and events3 is None:  # the usual unknown history
        return own.wins, own.draws, own.events3, COUNT_NAMES
    unknown = []
    if wins is None:
        unknown.append(COUNT_NAMES[0])
        wins = own.wins
    if draws is None:
        unknown.append(COUNT_NAMES[1])
        draws = own.draws
    if events3 is None:
        unknown.append(COUNT_NAMES[2])
        events3 = own.events3
    return wins, draws, events3, tuple(unknown)


_REASONS = {"absolute": "absolute floor", "olm": "Original Life Master floor",
            "prize": "prize floor"}


class _Floors(RulePlugin):
    slot = "floors"
    personal = False

    @hookimpl
    def uschess_personal_floor(self, system, after, event, p):
        """Highest of: the absolute floor, the personal absolute floor (where in
        force), the established floor, the OLM floor and a prize floor
        (:func:`_decide`), as a Floor."""
        value, reason, could_be, unknown = _decide(
            system, after, event, p, self.personal and system in p.personal_floor_systems)
        return Floor(value, reason) if could_be is None else Floor(value, reason, could_be,
                                                                   unknown)


def _decide(system, after, event, p, personal: bool) -> tuple:
    """Sec. 5's floor of the record ``after``: (value, reason, could_be,
    unknown).  The highest of the absolute floor, the personal absolute floor
    AF (where ``personal``: in force for ``system``), the established floor,
    the OLM floor and a prize floor; the reason is written out only for the
    floor that wins.  Where an earlier count of AF is unknown the event's own
    is used and ``could_be`` is AF's cap, the higher floor the unknown
    history could give (None when none could be higher).  AF is not counted
    where the established floor is above its cap: it can then neither win nor
    be that higher floor.  ``p`` reads each value only where the record needs
    it (the hook's values note what a traced rating read)."""
    best, kind = p.absolute_floor, "absolute"
    counts = could_be = None
    if personal:
        pf = p.personal_floor
        cap = pf["cap"]
    peak = after.peak
    level = None if peak is None else floor_level(peak, p.floor_drop, p.floor_levels)
    if personal and (level is None or not level > cap):
        nw, nd, nr = after.wins, after.draws, after.events3
        if nw is None or nd is None or nr is None:  # an earlier count unknown
            counts = personal_counts(after, event)
            nw, nd, nr = counts[0], counts[1], counts[2]
            could_be = cap
        else:
            counts = (nw, nd, nr, ())
        af = pf["base"] + pf["win"] * nw + pf["draw"] * nd + pf["event"] * nr
        if cap < af:  # min(AF, cap)
            af = cap
        if af > best:
            best, kind = af, "personal"
    if level is not None and level > best:
        best, kind = level, "established"
    if after.olm and system in p.olm_systems and p.olm["floor"] > best:
        best, kind = p.olm["floor"], "olm"
    prize = after.prize_floor
    if prize is not None and min(prize, p.prize_floor_top) > best:
        best, kind = min(prize, p.prize_floor_top), "prize"
    if kind == "personal":
        reason = _personal_reason(pf, counts)
    elif kind == "established":
        reason = _established_reason(peak, p.floor_drop)
    else:
        reason = _REASONS[kind]
    if could_be is None or could_be <= best:
        return best, reason, None, ()
    return best, reason, could_be, counts[3]


def _established_reason(peak, drop) -> str:
    """The reason naming the established floor of the highest established
    rating ``peak`` (the parameter ``floor_drop``: ``drop``)."""
    return f"established floor: highest established {peak:.2f} - {drop}"


def _personal_reason(pf, counts) -> str:
    """The reason naming the personal absolute floor of ``pf`` (the
    parameter ``personal_floor``) for ``counts`` (:func:`personal_counts`).
    The players of an event share few counts (an unknown history counts the
    event's own), so each text is kept for the ``pf`` last asked about
    (:data:`_PERSONAL_REASONS`, at most 4096 texts)."""
    global _PERSONAL_REASONS
    last, texts = _PERSONAL_REASONS
    if last is not pf or len(texts) >= 4096:
        texts = {}
        _PERSONAL_REASONS = (pf, texts)
    text = texts.get(counts)
    if text is None:
        nw, nd, nr, unknown = counts
        text = (f"personal absolute floor min({pf['base']} + {pf['win']}x{nw} + "
                f"{pf['draw']}x{nd} + {nr}, {pf['cap']})")
        if unknown:
            text += f", counting this event only for the unknown earlier {', '.join(unknown)}"
        texts[counts] = text
    return text


#: The ``personal_floor`` value :func:`_personal_reason` last wrote texts for,
#: and those texts by counts (one pair, replaced whole: safe to read from any
#: thread; a text written twice is the same text).
_PERSONAL_REASONS: tuple = (None, {})


class Floors002(_Floors):
    """002 "Rating floors": 100 and the established levels; no personal
    absolute floor (added later: 000 sec. 8)."""

    name = "floors-002"
    title = "Floors without the personal absolute floor"
    source = src("002", "Rating floors")


class FloorsSec5(_Floors):
    """Sec. 5 as amended (000 sec. 8): adds the personal absolute floor
    AF = min(100 + 4 N_W + 2 N_D + N_R, 150) in ``personal_floor_systems``;
    counts the record does not know are taken as the event's own
    (:func:`personal_counts`)."""

    name = "floors-sec5"
    title = "Floors with the personal absolute floor"
    source = src("000", "5")
    personal = True


class StoreInteger(RulePlugin):
    """002: "The final value is rounded to the nearest integer. In the actual
    formulas, the rating is rounded away from the pre-event rating."  A rating
    with no pre-event value is rounded to the nearest integer."""

    slot = "storage"
    name = "store-integer"
    title = "Integer ratings, rounded away from the pre-event rating"
    source = src("002", "Standard rating formula")

    @hookimpl
    def uschess_store_rating(self, pre, value, p):
        if pre is None or value == pre:
            return float(math.floor(value + 0.5))
        return float(math.ceil(value)) if value > pre else float(math.floor(value))


class StoreFloat(RulePlugin):
    """000 sec. 8: "Floating point precision for storing ratings"."""

    slot = "storage"
    name = "store-float"
    title = "Ratings stored at full precision"
    source = src("000", "7")

    @hookimpl
    def uschess_store_rating(self, pre, value, p):
        return value
