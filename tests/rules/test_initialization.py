"""Step 1 in each era: the 2017 and 2020-06 priority lists, blended, age."""

from __future__ import annotations

import datetime as dt

import pytest

from uschess.model import ForeignRating, Player, SystemRecord
from uschess.calendar.rulebook import RuleBook

from helpers import d

BOOK = RuleBook.load()


def init(player, system, on="2016-01-15", **kw):
    r = BOOK.rules(d(on), **kw)
    return r.call.uschess_initial_rating(player=player, system=system, end=d(on), p=r.p, hook=r.call)


def mk(**kw):
    ratings = kw.pop("ratings", {})
    return Player(pair=1, id="1", name="X", rounds=[], ratings=ratings, **kw)


@pytest.mark.parametrize("fide,rating,n", [(2200, 20 + 1.02 * 2200, 10), (2150, 20 + 1.02 * 2150, 5),
                                           (1800, 180 + 0.94 * 1800, 5)])
def test_priority_fide(fide, rating, n):
    got = init(mk(fide=ForeignRating(fide)), "OTBR")
    assert got.rating == pytest.approx(rating) and got.games == n


@pytest.mark.parametrize("cfc,rating,n", [(1600, 1.1 * 1600 - 240, 5), (1500, 1410, 0)])
def test_priority_cfc(cfc, rating, n):
    got = init(mk(cfc=ForeignRating(cfc)), "OTBR")
    assert got.rating == pytest.approx(rating) and got.games == n


def test_priority_regular_from_quick_and_quick_from_regular():
    q = init(mk(ratings={"OTBQ": SystemRecord(1400, 4)}), "OTBR")
    assert (q.rating, q.games) == (1400, 0)
    assert init(mk(ratings={"OTBQ": SystemRecord(1400, 3)}, adult=True), "OTBR").rating == 1300
    r = init(mk(ratings={"OTBR": SystemRecord(1700, 7)}), "OTBQ")
    assert (r.rating, r.games) == (1700, 7)
    r = init(mk(ratings={"OTBR": SystemRecord(1700, 70)}), "OTBQ")
    assert r.games == 10


def test_priority_blitz_order():
    est = init(mk(ratings={"OTBR": SystemRecord(1900, 30)}, fide=ForeignRating(2000)), "OTBB")
    assert (est.rating, est.games) == (1900, 10)
    prov = init(mk(ratings={"OTBR": SystemRecord(1900, 12)}, fide=ForeignRating(2000)), "OTBB")
    assert prov.how.startswith("FIDE")  # FIDE before a provisional Regular rating
    prov = init(mk(ratings={"OTBR": SystemRecord(1900, 12)}), "OTBB")
    assert (prov.rating, prov.games) == (1900, 10)


def test_priority_online_lists_2017_and_2020_06():
    p = mk(ratings={"OLB": SystemRecord(1600, 30)})
    assert init(p, "OLQ").games == 0                                   # 2017: N = 0
    assert init(p, "OLQ", on="2020-07-01", edition="2020-06-11").games == 10  # 2020-06: min(10, games)
    olr = init(mk(ratings={"OTBR": SystemRecord(1800, 10)}), "OLR", on="2020-07-01", edition="2020-06-11")
    assert (olr.rating, olr.games) == (1800, 10)


def test_age_fallbacks_2017():
    assert init(mk(adult=True), "OTBR").rating == 1300
    last = init(mk(), "OTBR")
    assert (last.rating, last.games) == (750, 0) and "last resort" in last.how
    baby = init(mk(birth_date=dt.date(2015, 1, 1)), "OTBR")  # under 3: miscoded, taken as 26
    assert baby.rating == 1300
    kid = init(mk(birth_date=dt.date(2006, 1, 15)), "OTBR")
    assert kid.rating == pytest.approx(50 * (d("2016-01-15") - dt.date(2006, 1, 15)).days / 365.25)


def test_age_fallbacks_2025():
    assert init(mk(adult=True), "OTBR", on="2025-03-01").rating == 1300
    assert init(mk(), "OTBR", on="2025-03-01").rating == 750
    baby = init(mk(birth_date=dt.date(2023, 1, 1)), "OTBR", on="2025-03-01")
    assert baby.rating == 750 and baby.games == 0
    old = init(mk(birth_date=dt.date(1950, 1, 1)), "OTBR", on="2025-03-01")
    assert old.rating == 1300


def test_blended_fide_factor_and_cfc_residency():
    on = "2025-03-01"
    hi = init(mk(fide=ForeignRating(2100, dt.date(2025, 3, 1)), adult=True), "OTBR", on=on)
    lo = init(mk(fide=ForeignRating(2000, dt.date(2025, 3, 1)), adult=True), "OTBR", on=on)
    assert hi.sources[0]["G"] == 10 and lo.sources[0]["G"] == 5
    assert lo.rating == round(-1073 + 1.5667 * 2000)
    foreign = init(mk(cfc=ForeignRating(1900, dt.date(2025, 2, 1)), adult=True), "OTBR", on=on)
    assert foreign.games == 0 and foreign.rating == 1300  # not Canadian: CFC not used
    canadian = init(mk(cfc=ForeignRating(1900, dt.date(2025, 2, 1), canadian=True), adult=True), "OTBR", on=on)
    assert canadian.sources[0]["G"] == 5


def test_blended_game_factor_capped_by_games_and_needs_dates():
    from uschess.errors import InputError
    p = mk(ratings={"OTBR": SystemRecord(1500, 7, date=dt.date(2025, 1, 1))}, adult=True)
    got = init(p, "OTBQ", on="2025-03-01")
    assert got.sources[0]["G"] == 7
    with pytest.raises(InputError, match="no date"):
        init(mk(ratings={"OTBR": SystemRecord(1500, 7)}), "OTBQ", on="2025-03-01")


def test_blended_sources_that_all_weigh_nothing_count_as_none():
    """Project reading 14: a rating credited with no games has G_k = 0 (000
    sec. 2, step 1), so W_k = 0; when every source weighs nothing there is no
    weighted average, and the player is initialized as one with no other
    rating: age-based (or the last resort) with N = 0."""
    on = "2025-03-01"
    none = init(mk(birth_date=dt.date(1990, 1, 1)), "OTBQ", on=on)
    empty = mk(birth_date=dt.date(1990, 1, 1), ratings={"OTBR": SystemRecord(1600, 0, date=dt.date(2025, 1, 1))})
    got = init(empty, "OTBQ", on=on)
    assert (got.rating, got.games) == (none.rating, 0)
    assert got.sources[0]["W"] == 0 and "OTBR weigh nothing" in got.how
    adult = init(mk(adult=True, ratings={"OTBR": SystemRecord(1600, 0, date=dt.date(2025, 1, 1))}), "OTBQ", on=on)
    assert adult.games == 0 and adult.rating == init(mk(adult=True), "OTBQ", on=on).rating
    # one source with games still decides alone
    mixed = mk(birth_date=dt.date(1990, 1, 1), ratings={"OTBR": SystemRecord(1600, 0, date=dt.date(2025, 1, 1)),
                                                         "OLQ": SystemRecord(1700, 20, date=dt.date(2025, 1, 1))})
    assert init(mixed, "OTBQ", on=on).rating == 1700
