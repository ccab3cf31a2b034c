"""The caps on a match's change (sec. 7, restriction 2): per match, and net
over any period of a given length (180 days, 3 years: ``rulesets/matches.yaml``)."""

from __future__ import annotations

import datetime as _dt
from typing import Mapping, Sequence

from uschess.calendar.spans import period_end
from uschess.model import MatchChange
from uschess.rating.results import CapOutcome


def window_end(start: _dt.date, window: Mapping) -> _dt.date:
    """The first day after the period of ``window`` (``days`` days or
    ``years`` calendar years) that begins on ``start``.  A period of years
    beginning on 29 February ends on 28 February (see
    :mod:`uschess.calendar.spans`)."""
    if "days" in window:
        return period_end(start, days=int(window["days"]))
    return period_end(start, years=int(window["years"]))


def shares_window(earlier: _dt.date, on: _dt.date, window: Mapping) -> bool:
    """Whether a match ending ``earlier`` and one ending ``on`` fit in one
    period of ``window``, both end days counted: ``earlier <= on < earlier + length``.
    For 180 days: 179 days apart yes, 180 days apart no."""
    return earlier <= on < window_end(earlier, window)


def _bounds(earlier_net: float, cap: float) -> tuple[float, float]:
    """The change that keeps |earlier_net + change| <= cap; a change toward
    zero net is never held back, so the interval always contains 0."""
    return min(0.0, -cap - earlier_net), max(0.0, cap - earlier_net)


def cap_change(change: float, on: _dt.date, history: Sequence[MatchChange], *,
               per_match: float, windows: Sequence[Mapping]) -> CapOutcome:
    """Restriction 2 of sec. 7 for a match ending on ``on``.

    * ``per_match``: the change itself lies in [-cap, +cap].
    * Each window (``{window, days|years, cap}``): "the maximum net rating
      change in <window> due to match play" is read as: for **every** period
      of that length that contains this match, the signed sum of the changes
      of all matches in it (the earlier ones of ``history`` and this one) lies
      in [-cap, +cap].  Periods count both end days (see
      :func:`shares_window`).  Matches after ``on`` are not yet known, so the
      periods to check are those starting on the date of each earlier match
      that shares a period with this one (every suffix of the earlier matches
      in date order), and the one holding this match alone.  Checking only the
      period that ends on this match would let a +100 after a -100 be followed
      by another +100 within 180 days.
    * A history that already exceeds a cap (it cannot under these rules, but
      data can be wrong) never forces a change against the result: a change
      toward a smaller net is always allowed.
    """
    low, high = -per_match, per_match
    lows = [(low, f"{per_match:g}-point cap per match")]
    highs = [(high, f"{per_match:g}-point cap per match")]
    reports = []
    for w in windows:
        cap = float(w["cap"])
        name = str(w.get("window") or (f"{w['days']} days" if "days" in w else f"{w['years']} years"))
        inside = sorted((h for h in history if shares_window(h.date, on, w)), key=lambda h: h.date)
        dates = sorted({h.date for h in inside})
        w_low, w_high, worst = -cap, cap, 0.0
        for start in dates:
            net = sum(h.change for h in inside if h.date >= start)
            lo, hi = _bounds(net, cap)
            w_low, w_high = max(w_low, lo), min(w_high, hi)
            if abs(net) > abs(worst):
                worst = net
        reports.append({"window": name, "cap": cap,
                        "earlier": [h.as_dict() for h in inside],
                        "largest_earlier_net": worst, "low": w_low, "high": w_high})
        lows.append((w_low, f"net {cap:g} in any {name}"))
        highs.append((w_high, f"net {cap:g} in any {name}"))
    low = max(v for v, _ in lows)
    high = min(v for v, _ in highs)
    out = min(max(change, low), high)
    binding = []
    if change > high:
        binding = [why for v, why in highs if v == high]
    elif change < low:
        binding = [why for v, why in lows if v == low]
    return CapOutcome(change, out, low, high, binding, reports)
