"""The highest established rating of the integer era is the rating as stored.

Before 2014-09-01 a rating is stored as an integer, rounded away from the
pre-event rating (002, "Standard rating formula"); the highest rating a
player attained is that stored integer, and the established floor of sec. 5
is taken from it, not from the unrounded result of step 5."""

from __future__ import annotations

from helpers import by_pair, player, rate


def _section(rating, games, opponent, code, *, start, record=None):
    """Player 1 (``rating``, ``games``) against player 2 (``opponent``, 40
    games) in four games, player 1's result ``code`` every round."""
    mirror = {"W": "L", "L": "W"}[code]
    return [player(1, [f"{code}2"] * 4, rating=rating, games=games, record=record or {}),
            player(2, [f"{mirror}1"] * 4, rating=opponent, games=40)]


def _find(rating, games, code, start, low, high, record=None):
    """An opponent rating for which player 1's step-5 result falls in
    [low, high): bisection on the opponent's rating (the result rises with it)."""
    lo, hi = 100.0, 2700.0
    for _ in range(80):
        mid = (lo + hi) / 2
        one = by_pair(rate(_section(rating, games, mid, code, start=start, record=record),
                           start=start))[1]
        if low <= one.step5 < high:
            return mid, one
        if one.step5 < low:
            lo = mid
        else:
            hi = mid
    raise AssertionError(f"no opponent rating gives a result in [{low}, {high})")


def test_peak_below_a_level_after_rounding_down():
    """22 games at 1450, four losses, step 5 in [1399.5, 1400): stored 1399
    (rounded away from 1450), established (26 games) with peak 1399, whose
    established floor is none (1399 - 200 is below the lowest level, 1200);
    a later result of about 1199 (from 1250) is stored 1199, held by no 1200 floor."""
    opp, one = _find(1450.0, 22, "L", "2012-03-03", 1399.5, 1400.0)
    assert one.post == 1399.0 and one.games_after == 26
    assert one.record_after.peak == 1399.0
    assert one.floor < 1200  # the personal absolute floor, not an established one
    # a later event: the record at 1250 with that peak, a result between 1199 and 1200
    rec = one.record_after
    later = {"peak": rec.peak}
    _, two = _find(1250.0, 26, "L", "2012-06-02", 1199.0, 1200.0, record=later)
    assert two.post == 1199.0 and not two.floor_applied
    assert two.floor < 1199 and two.floor_reason.startswith("personal absolute floor")


def test_peak_at_a_level_after_rounding_up():
    """2009 (levels from 1400): 22 games at 1500, four wins, step 5 in
    [1599, 1599.5): stored 1600 (away from 1500), and the attained 1600 gives
    the established floor 1400, reported with this event's result."""
    _, one = _find(1500.0, 22, "W", "2009-06-06", 1599.0, 1599.5)
    assert one.post == 1600.0 and one.games_after == 26
    assert one.record_after.peak == 1600.0
    assert one.floor == 1400 and one.floor_reason.startswith("established floor")
