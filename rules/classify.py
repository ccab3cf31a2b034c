"""Which rating systems rate a section (000 footnote 1 and sec. 8)."""

from __future__ import annotations

from uschess.rules.base import RulePlugin, src
from uschess.rules.hookspecs import hookimpl


def _admits(row: dict, t: float) -> bool:
    return (("from" not in row or t >= row["from"]) and ("above" not in row or t > row["above"])
            and ("upto" not in row or t <= row["upto"]) and ("below" not in row or t < row["below"]))


class RangeClassification(RulePlugin):
    """Classify by t = mm + ss against the dated table ``time_control_ranges``.

    The ranges themselves change by era (dual rating from 2002, quick from 5
    in 2004, OTB Blitz and the OTB Quick change in 2013, online systems from
    2014); the table carries them, so one plugin serves every era."""

    slot = "classify"
    name = "classify-ranges"
    title = "Systems by mm + ss ranges"
    source = src("000", "footnote 1")

    @hookimpl
    def uschess_classify(self, tc, online, p):
        t = tc.total
        return [row["system"] for row in p.time_control_ranges
                if row["system"].startswith("OL") == bool(online) and _admits(row, t)]
