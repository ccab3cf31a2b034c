"""Floors (sec. 5) by era and system; the K exception and bonus eligibility in
each document's wording."""

from __future__ import annotations

from collections import Counter

import pytest

from uschess.model import SystemRecord
from uschess.calendar.rulebook import RuleBook
from uschess.timecontrol import parse_time_control

from helpers import by_pair, d, player, rate

BOOK = RuleBook.load()


def floor(on, system, **rec):
    r = BOOK.rules(d(on))
    base = dict(rating=100, games=40, wins=3, draws=1, losses=36, events3=10)
    base.update(rec)
    return r.call.uschess_personal_floor(system=system, after=SystemRecord(**base), event=None,
                                         p=r.p).value


def test_personal_floor_from_2008_08_07_in_all_systems_then_otb_only():
    assert floor("2008-08-06", "OTBR") == 100
    assert floor("2008-08-07", "OTBR") == 124
    assert floor("2019-01-01", "OLB") == 124          # every system (2017, 2020-06 text)
    assert floor("2021-01-01", "OLB") == 100          # OTB only (2020-09, 2025)
    assert floor("2021-01-01", "OTBB") == 124
    assert floor("2021-01-01", "OTBR", wins=20, draws=20) == 150  # capped


def test_established_floor_levels_1400_then_1200():
    assert floor("2010-03-31", "OTBR", peak=1550) == 124     # 1350: below 1400, the AF holds
    assert floor("2010-04-01", "OTBR", peak=1550) == 1300
    assert floor("2001-06-01", "OTBR", peak=1941) == 1700


def test_olm_floor_every_system_then_otbr_only():
    assert floor("2019-01-01", "OTBQ", olm=True) == 2200
    assert floor("2021-01-01", "OTBQ", olm=True) == 124      # the AF only
    assert floor("2021-01-01", "OTBR", olm=True) == 2200


def test_prize_floor():
    assert floor("2021-01-01", "OTBR", prize_floor=1800) == 1800


def test_olm_earned_after_300_games_above_2200():
    players = [player(1, ["L2", "L3", "L4"], rating=2210, games=500, record={"games_above_2200": 298}),
               player(2, ["W1", "U", "U"], rating=2400, games=500),
               player(3, ["U", "W1", "U"], rating=2400, games=500),
               player(4, ["U", "U", "W1"], rating=2400, games=500)]
    res = by_pair(rate(players, start="2025-03-01"))
    assert res[1].record_after.games_above_2200 == 301 and res[1].record_after.olm
    assert res[1].post == 2200.0 and res[1].floor_applied  # the 2200 floor holds at once


def test_floor_binds_only_the_final_rating():
    players = [player(1, ["L2", "L3", "L4", "L5"], rating=1710, games=300, record={"peak": 1905.0}),
               *[player(i, ["U"] * (i - 2) + ["W1"] + ["U"] * (5 - i), rating=1700, games=300)
                 for i in range(2, 6)]]
    res = by_pair(rate(players, start="2025-03-01"))[1]
    assert res.step4 < 1700 and res.step5 < 1700
    assert res.post == 1700.0 and res.floor_applied


def _k(on, system, r0, otbr, tc="G/45;d5", systems=("OTBR", "OTBQ"), **kw):
    r = BOOK.rules(d(on), **kw)
    return r.call.uschess_k_factor(r0=r0, n_eff=20.0, m=4, system=system, tc=parse_time_control(tc),
                                   half_k=False, otbr=otbr, systems=systems, p=r.p)


def test_k_exception_wordings():
    plain = 800 / 24
    # 2017 text as written (its edition): any system, with that system's rating
    assert _k("2019-01-01", "OTBQ", 2300, 2100, edition="2017-04-24") == pytest.approx(
        800 * (6.5 - 0.0025 * 2300) / 24)
    # by default (project reading 11, the record): OTBR only, also in 2019
    assert _k("2019-01-01", "OTBQ", 2300, 2100) == pytest.approx(plain)
    assert _k("2019-01-01", "OTBR", 2300, 2300) == pytest.approx(800 * (6.5 - 0.0025 * 2300) / 24)
    # 2020-06 text: the regular (OTBR) rating decides, in either system
    assert _k("2020-07-01", "OTBQ", 2100, 2300, edition="2020-06-11") == pytest.approx(800 * (6.5 - 0.0025 * 2300) / 24)
    assert _k("2020-07-01", "OTBQ", 2300, 2100, edition="2020-06-11") == pytest.approx(plain)
    # 2025: in updating OTBR only; >= 2500 gives 200/(N' + m)
    assert _k("2025-03-01", "OTBQ", 2300, 2300) == pytest.approx(plain)
    assert _k("2025-03-01", "OTBR", 2600, 2600) == pytest.approx(200 / 24)
    assert _k("2025-03-01", "OTBR", 2300, 2300, tc="G/90;d30") == pytest.approx(plain)


@pytest.mark.parametrize("on,games,eligible", [
    ("2001-06-01", [2, 2, 3], False),        # 002: only 2 distinct opponents
    ("2001-06-01", [2, 3, 4], True),
    ("2005-01-01", [2, 2, 3], True),         # from 2002 the 2017 wording (the record)
    ("2005-01-01", [2, 2, 3, 3], True),      # four games against two opponents
    ("2005-01-01", [2, 2, 2, 3], False),
    ("2018-01-01", [2, 2, 3], True),         # 2017 wording: m >= 3, none more than twice
    ("2018-01-01", [2, 2, 2, 3], False),
    ("2025-01-01", [2, 2, 3], False),        # 2020-09/2025: m = 3 needs three opponents
    ("2025-01-01", [2, 2, 3, 4], True),
    ("2025-01-01", [2, 3], False),
])
def test_bonus_eligibility_wordings(on, games, eligible):
    r = BOOK.rules(d(on))
    assert r.call.uschess_bonus_eligible(m=len(games), opponent_counts=Counter(games), p=r.p) is eligible
