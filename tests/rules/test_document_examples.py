"""Every worked example of the seed documents, as a test."""

from __future__ import annotations

import datetime as dt

import pytest

from uschess import formulas as F
from uschess.model import Player, SystemRecord
from uschess.rating.pipeline import RatingOptions
from uschess.calendar.rulebook import RuleBook
from uschess.rules.base import Initial

from helpers import by_pair, d, rate

NSTAR_2013 = dict(a=0.662, b=0.00000739, center=2569.0, flat_above=2355.0, cap=50.0)
NSTAR_2001 = dict(a=1.0, b=0.00001, center=2200.0, flat_above=2200.0, cap=50.0)


def test_effective_games_example_sec3():
    """000 sec. 3: R0 = 1700, N = 30 -> N* = 20.0, N' = 20.0."""
    assert round(F.n_star(1700, **NSTAR_2013), 1) == 20.0
    assert round(F.effective_games(30, 1700, **NSTAR_2013), 1) == 20.0


def test_effective_games_example_002():
    """002: R = 1700, N = 30 -> N_r = 26.7; R = 1300 -> 16.57."""
    assert round(F.n_star(1700, **NSTAR_2001), 1) == 26.7
    assert round(F.n_star(1300, **NSTAR_2001), 2) == 16.57


def test_nstar_parameters_match_dates():
    book = RuleBook.load()
    assert book.rules(d("2013-05-07")).p.nstar == NSTAR_2001
    assert book.rules(d("2013-05-08")).p.nstar == NSTAR_2013


@pytest.mark.parametrize("n_eff,m,k", [(6, 4, 80), (6, 6, 66.67), (6, 10, 50), (20, 4, 33.33),
                                       (20, 6, 30.77), (20, 10, 26.67), (50, 4, 14.81),
                                       (50, 6, 14.29), (50, 10, 13.33)])
def test_k_table_sec42(n_eff, m, k):
    rules = RuleBook.load().rules(d("2025-03-01"))
    got = rules.call.uschess_k_factor(r0=1500.0, n_eff=n_eff, m=m, system="OTBR", tc=None,
                                      half_k=False, otbr=1500.0, systems=("OTBR",), p=rules.p)
    assert round(got, 2) == k


def _blend_player():
    return Player(pair=1, id="1", name="Example", rounds=[], birth_date=dt.date(2000, 7, 1), ratings={
        "OTBR": SystemRecord(1759, 60, date=dt.date(2018, 3, 25)),
        "OTBQ": SystemRecord(1643, 40, date=dt.date(2018, 1, 13)),
        "OTBB": SystemRecord(1658, 30, date=dt.date(2016, 7, 16)),
    })


def test_blended_example_sec2():
    """000 sec. 2: born July 1, 2000, OLB event ending Sept 1, 2020 -> R0 = 1702, N = 10,
    with every column of the table."""
    rules = RuleBook.load().rules(d("2020-09-01"))
    init: Initial = rules.call.uschess_initial_rating(player=_blend_player(), system="OLB",
                                                      end=d("2020-09-01"), p=rules.p, hook=rules.call)
    table = {r["source"]: r for r in init.sources}
    expected = {"OTBR": (1759, 10, 891, 886.52, 2.49, 0.60, 5.98),
                "OTBQ": (1643, 5, 962, 876.80, 2.19, 0.55, 2.74),
                "OTBB": (1658, 10, 1508, 802.05, 2.45, 0.41, 4.15)}
    for source, (x, g, dd, p, z, s, w) in expected.items():
        row = table[source]
        assert row["X"] == x and row["G"] == g and row["D"] == dd
        assert round(row["P"], 2) == p
        assert round(row["Z"], 2) == z
        assert round(row["S"], 2) == s
        assert round(row["W"], 2) == w
    assert init.rating == 1702.0
    assert init.games == 10


def test_blended_example_2020_birth_year_does_not_reproduce():
    """The 2020-09 text says 'born July 1, 2020' (conflict example-birth-year):
    that reading cannot give the table's P column."""
    rules = RuleBook.load().rules(d("2020-09-01"))
    pl = _blend_player()
    pl.birth_date = dt.date(2020, 7, 1)
    init = rules.call.uschess_initial_rating(player=pl, system="OLB", end=d("2020-09-01"),
                                             p=rules.p, hook=rules.call)
    assert round(init.sources[0]["P"], 2) != 886.52


def test_personal_floor_example_sec5():
    """000 sec. 5: 3 wins, 1 draw, 10 events -> AF = 124."""
    rules = RuleBook.load().rules(d("2025-03-01"))
    after = SystemRecord(rating=90, games=4, wins=3, draws=1, losses=0, events3=10)
    got = rules.call.uschess_personal_floor(system="OTBR", after=after, event=None, p=rules.p)
    assert got.value == 124 and "personal" in got.reason


@pytest.mark.parametrize("peak,floor", [(1941, 1700), (1999.51, 1800), (1388, None)])
def test_established_floor_examples_sec5(peak, floor):
    rules = RuleBook.load().rules(d("2025-03-01"))
    assert F.floor_level(peak, rules.p.floor_drop, rules.p.floor_levels) == floor
    after = SystemRecord(rating=1000, games=40, wins=0, draws=0, losses=40, events3=0, peak=peak)
    got = rules.call.uschess_personal_floor(system="OTBR", after=after, event=None, p=rules.p).value
    assert got == (floor if floor is not None else 100)  # 1388: the absolute floor


def test_special_formula_example_002():
    """002: 1500 on 6 games; 1400 W, 1550 L, 1650 D -> 1511.11 (the linear region
    of the knot walk gives the old provisional formula exactly)."""
    got = F.special_rating(1500, 6, [1400, 1550, 1650], 1.5, all_wins=False, all_losses=False,
                           eps=1e-7, cap=2700)
    assert got == pytest.approx(1511.111111, abs=1e-6)
    assert F.approximate_special(1500, 6, [1400, 1550, 1650], 1, 1) == pytest.approx(1511.111111, abs=1e-6)


def test_standard_formula_example_002_as_written():
    """002: 1300 on 45 games, full K, beats 1250, 1400, 1500, draws 1550:
    N_e = 16.57, K = 38.89, E = 1.363, bonus 63.11, 1446.22 rounded up to 1447.
    The document rounds N_e to 16.57 before K; the engine keeps full precision."""
    r, e, bonus = F.standard_rating(1300, 800 / (16.57 + 4), [1250, 1400, 1500, 1550], 3.5,
                                    bonus_eligible=True, b=10, m_prime_min=4)
    # the document rounds E to 1.363 before K(S - E): 38.89 x 2.137 = 83.11
    assert round(e, 3) == 1.363
    assert round(38.89 * (3.5 - round(e, 3)), 2) == 83.11
    assert bonus == pytest.approx(63.11, abs=0.02) and r == pytest.approx(1446.22, abs=0.05)
    rules = RuleBook.load().rules(d("2001-03-01"), edition="2001-02-22")
    assert rules.call.uschess_store_rating(pre=1300.0, value=r, p=rules.p) == 1447.0
    assert rules.call.uschess_store_rating(pre=1300.0, value=1299.2, p=rules.p) == 1299.0

    # The same event through the pipeline, 002 as written: step 4 (opponents at
    # their pre-event ratings) is the document's single application.
    opp = {2: 1250, 3: 1400, 4: 1500, 5: 1550}
    players = [{"pair": 1, "id": "1", "name": "A", "rounds": ["W2", "W3", "W4", "D5"],
                "ratings": {"OTBR": {"rating": 1300, "games": 45}}}]
    for i, rating in opp.items():
        rounds = ["U"] * 4
        rounds[i - 2] = "D1" if i == 5 else "L1"
        players.append({"pair": i, "id": str(i), "name": f"O{i}", "rounds": rounds,
                        "ratings": {"OTBR": {"rating": rating, "games": 100}}})
    res = rate(players, RatingOptions(edition="2001-02-22"), start="2001-03-01")
    a = by_pair(res)[1]
    assert round(a.n_eff, 2) == 16.57
    assert round(a.trace["step4"]["k"], 2) == 38.88  # 800/(16.5748 + 4) at full precision
    assert round(a.trace["step4"]["expected"], 3) == 1.363
    assert round(a.step4, 1) == 1446.2
    assert a.post == float(int(a.post))  # integer storage before 2014-09-01
