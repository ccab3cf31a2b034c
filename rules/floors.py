"""Personal rating floors (sec. 5) and how ratings are stored."""

from __future__ import annotations

import math

from uschess.formulas import floor_level

from uschess.rules.base import RulePlugin, src
from uschess.rules.hookspecs import hookimpl


class _Floors(RulePlugin):
    slot = "floors"
    personal = False

    @hookimpl
    def uschess_personal_floor(self, system, after, p):
        """Highest of: the absolute floor, the personal absolute floor (where in
        force), the established floor, the OLM floor and a prize floor.  The
        reason is written out only for the floor that wins."""
        best, kind = p.absolute_floor, "absolute"
        if self.personal and system in p.personal_floor_systems:
            pf = p.personal_floor
            af = min(pf["base"] + pf["win"] * (after.wins or 0) + pf["draw"] * (after.draws or 0)
                     + pf["event"] * (after.events3 or 0), pf["cap"])
            if af > best:
                best, kind = af, "personal"
        if after.peak is not None:
            level = floor_level(after.peak, p.floor_drop, p.floor_levels)
            if level is not None and level > best:
                best, kind = level, "established"
        if after.olm and system in p.olm_systems and p.olm["floor"] > best:
            best, kind = p.olm["floor"], "olm"
        if after.prize_floor is not None and min(after.prize_floor, p.prize_floor_top) > best:
            best, kind = min(after.prize_floor, p.prize_floor_top), "prize"
        return best, self._reason(kind, after, p)

    @staticmethod
    def _reason(kind, after, p) -> str:
        if kind == "personal":
            pf = p.personal_floor
            return (f"personal absolute floor min({pf['base']} + {pf['win']}x{after.wins or 0} + "
                    f"{pf['draw']}x{after.draws or 0} + {after.events3 or 0}, {pf['cap']})")
        if kind == "established":
            return f"established floor: highest established {after.peak:.2f} - {p.floor_drop}"
        return {"absolute": "absolute floor", "olm": "Original Life Master floor",
                "prize": "prize floor"}[kind]


class Floors002(_Floors):
    """002 "Rating floors": 100 and the established levels; no personal
    absolute floor (added later: 000 sec. 8)."""

    name = "floors-002"
    title = "Floors without the personal absolute floor"
    source = src("002", "Rating floors")


class FloorsSec5(_Floors):
    """Sec. 5 as amended (000 sec. 8): adds the personal absolute floor
    AF = min(100 + 4 N_W + 2 N_D + N_R, 150) in ``personal_floor_systems``."""

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
