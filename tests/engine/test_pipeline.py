"""The five-step pipeline: discriminating cases and invariants."""

from __future__ import annotations

import math

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uschess import formulas as F
from uschess.rating.pipeline import RatingOptions

from helpers import by_pair, d, examples, player, rate


def round_robin(n):
    """Cells for an n-player single round robin (n even)."""
    rounds = {i: [] for i in range(1, n + 1)}
    others = list(range(2, n + 1))
    for r in range(n - 1):
        ring = [1] + others
        for k in range(n // 2):
            a, b = ring[k], ring[n - 1 - k]
            rounds[a].append(b)
            rounds[b].append(a)
        others = others[-1:] + others[:-1]
    return rounds


def test_unrated_player_sweeping_far_weaker_field():
    """An unrated adult (1300 age-based, N = 0) beating four 800s: the special
    formula must not lower the rating for wins; R0 clamps into the flat region."""
    players = [player(1, ["W2", "W3", "W4", "W5"], adult=True)]
    for i in range(2, 6):
        rounds = ["U"] * 4
        rounds[i - 2] = "L1"
        players.append(player(i, rounds, rating=800, games=40))
    res = by_pair(rate(players))
    p1 = res[1]
    assert p1.initial.rating == 1300 and p1.initial.games == 0
    assert p1.step3 >= 1200 and p1.post >= 1200  # no loss of points from wins
    # f = 0 holds everywhere from 1200 (every PWe = 1) up to 1300 (N' = 0): R0 is kept
    assert p1.post == pytest.approx(1300.0)
    assert p1.games_after == 4 and p1.record_after.wins == 4


def test_provisional_player_with_all_earlier_wins():
    """R0' = R0 - 400 and S' = S + N' for a history of wins only (sec. 4.1)."""
    base = dict(rating=1500, games=5)
    players = [player(1, ["W2", "W3"], **base, record={"wins": 5, "draws": 0, "losses": 0}),
               player(2, ["L1", "U"], rating=1500, games=30),
               player(3, ["U", "L1"], rating=1500, games=30)]
    res = by_pair(rate(players))
    info = res[1].trace["step5"]["special"]
    assert info["R0'"] == 1100.0
    assert info["S'"] == pytest.approx(2.0 + res[1].n_eff)
    # f(R) = 5 PWe(R, 1100) + 2 PWe(R, ~1490) - 7 is zero from ~1890 on: the
    # walk stops at the first knot where it holds
    assert res[1].post == pytest.approx(res[1].trace["step5"]["opponents"][0] + 400, abs=1e-6)
    # a mixed history with the same record: 7 PWe(R, 1500) - 4.5 = 0 nearer 1614
    players[0] = player(1, ["W2", "W3"], **base)
    other = by_pair(rate(players))[1]
    assert other.post < res[1].post - 200


def test_m3_with_repeated_opponent_bonus_eligibility():
    """m = 3 with one opponent twice: no bonus in 2025 (003/000 sec. 4.2), a
    bonus under the 2017 wording (m >= 3, none more than twice)."""
    players = [player(1, ["W2", "W2", "W3"], rating=1500, games=100),
               player(2, ["L1", "L1", "U"], rating=2000, games=100),
               player(3, ["U", "U", "L1"], rating=2000, games=100)]
    now = by_pair(rate(players, start="2025-03-01"))[1]
    then = by_pair(rate(players, start="2018-03-01"))[1]
    assert now.trace["step5"]["bonus_eligible"] is False and now.bonus == 0
    assert then.trace["step5"]["bonus_eligible"] is True and then.bonus > 0


def test_dual_rated_2350_player():
    """In 2025 the high-rated K exception applies in updating OTBR only, for
    30 <= mm + ss <= 65 (000 sec. 4.2)."""
    players = [player(1, ["W2", "W3", "D4", "W5"], rating=2350, games=400,
                      record={}, ratings_extra=None)]
    players[0].pop("ratings_extra")
    players[0]["ratings"]["OTBQ"] = {"rating": 2350, "games": 400}
    for i in range(2, 6):
        rounds = ["U"] * 4
        rounds[i - 2] = "D1" if i == 4 else "L1"
        players.append({"pair": i, "id": str(i), "name": f"O{i}", "rounds": rounds,
                        "ratings": {"OTBR": {"rating": 2300, "games": 200},
                                    "OTBQ": {"rating": 2300, "games": 200}}})
    res = rate(players, tc="G/60;d5", start="2025-03-01")
    assert sorted({s.system for s in res.sections}) == ["OTBQ", "OTBR"]
    otbr, otbq = by_pair(res, "OTBR")[1], by_pair(res, "OTBQ")[1]
    n_eff = otbr.n_eff
    assert otbr.k == pytest.approx(800 * (6.5 - 0.0025 * 2350) / (n_eff + 4))
    assert otbq.k == pytest.approx(800 / (n_eff + 4))
    # the same event at G/90 is not dual-rated: plain K in OTBR
    slow = by_pair(rate(players, tc="G/90;d30", start="2025-03-01"), "OTBR")[1]
    assert slow.k == pytest.approx(800 / (n_eff + 4))


def test_forfeits_and_byes_are_not_rated():
    players = [player(1, ["X2", "W3", "B"], rating=1500, games=30),
               player(2, ["F1", "U", "H"], rating=1500, games=30),
               player(3, ["U", "L1", "U"], rating=1500, games=30)]
    res = by_pair(rate(players))
    assert res[1].m == 1 and res[2].m == 0 and res[2].post == 1500
    assert res[2].formula.startswith("not rated")


def test_absolute_floor_after_each_step():
    players = [player(1, ["L2", "L3", "L4"], adult=False, birth_date="2020-01-01")]
    for i in (2, 3, 4):
        rounds = ["U"] * 3
        rounds[i - 2] = "W1"
        players.append(player(i, rounds, rating=2000, games=50))
    res = by_pair(rate(players, start="2024-06-01"))
    assert res[1].step3 >= 100 and res[1].step4 >= 100 and res[1].post >= 100


def test_rules_on_and_known_on_change_the_bonus():
    players = [player(1, ["W2", "W3", "W4", "W5"], rating=1500, games=100)]
    for i in range(2, 6):
        rounds = ["U"] * 4
        rounds[i - 2] = "L1"
        players.append(player(i, rounds, rating=1900, games=100))
    now = by_pair(rate(players, start="2025-03-21"))[1]
    known = by_pair(rate(players, RatingOptions(known_on=d("2025-05-01")), start="2025-03-21"))[1]
    assert now.bonus > 0
    gain = now.k * (4 - now.expected)
    assert now.bonus == pytest.approx(gain - 10 * 2)
    assert known.bonus == pytest.approx(gain - 12 * 2)
    other = by_pair(rate(players, RatingOptions(rules_on=d("2020-01-01")), start="2025-03-21"))[1]
    assert other.bonus == pytest.approx(gain - 14 * 2)


# ---------------------------------------------------------------- properties

ratings = st.floats(min_value=100, max_value=2800, allow_nan=False)


@settings(max_examples=examples(300), deadline=None)
@given(r0=ratings, n_eff=st.floats(min_value=0, max_value=50),
       opps=st.lists(ratings, min_size=1, max_size=9), data=st.data(),
       history=st.sampled_from(["mixed", "wins", "losses"]))
def test_special_rating_solves_f(r0, n_eff, opps, data, history):
    scores = data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=len(opps), max_size=len(opps)))
    s = sum(scores)
    trace = F.SpecialTrace()
    m = F.special_rating(r0, n_eff, opps, s, all_wins=history == "wins", all_losses=history == "losses",
                         eps=1e-7, cap=1e9, trace=trace)
    f = n_eff * F.pwe(m, trace.r0_adj) + sum(F.pwe(m, o) for o in opps) - trace.s_adj
    assert abs(f) <= 1e-6


@settings(max_examples=examples(300), deadline=None)
@given(r0=ratings, n_eff=st.floats(min_value=0, max_value=50),
       opps=st.lists(ratings, min_size=1, max_size=9), data=st.data())
def test_better_score_never_lowers_special_or_standard(r0, n_eff, opps, data):
    scores = data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0]), min_size=len(opps), max_size=len(opps)))
    i = data.draw(st.integers(0, len(opps) - 1))
    if scores[i] == 1.0:
        return
    better = list(scores)
    better[i] += 0.5
    lo = F.special_rating(r0, n_eff, opps, sum(scores), all_wins=False, all_losses=False, eps=1e-7, cap=2700)
    hi = F.special_rating(r0, n_eff, opps, sum(better), all_wins=False, all_losses=False, eps=1e-7, cap=2700)
    assert hi >= lo - 1e-6
    k = 800 / (n_eff + len(opps))
    a = F.standard_rating(r0, k, opps, sum(scores), bonus_eligible=True, b=10, m_prime_min=4)[0]
    b = F.standard_rating(r0, k, opps, sum(better), bonus_eligible=True, b=10, m_prime_min=4)[0]
    assert b >= a


@settings(max_examples=examples(60), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), start=st.sampled_from(["2005-05-05", "2012-01-01", "2016-01-15", "2025-03-21"]))
def test_every_final_rating_is_at_least_the_floor(data, start):
    n = 6
    pairing = round_robin(n)
    players = []
    results = {}
    for a in range(1, n + 1):
        for r, b in enumerate(pairing[a]):
            if (a, r) not in results:
                outcome = data.draw(st.sampled_from("WDL"))
                results[(a, r)] = outcome
                results[(b, r)] = {"W": "L", "L": "W", "D": "D"}[outcome]
    for a in range(1, n + 1):
        rounds = [f"{results[(a, r)]}{b}" for r, b in enumerate(pairing[a])]
        if data.draw(st.booleans()):
            rating = data.draw(st.floats(min_value=100, max_value=2600))
            games = data.draw(st.integers(1, 400))
            peak = data.draw(st.one_of(st.none(), st.floats(min_value=rating, max_value=2700)))
            rec = {"wins": None, "peak": peak if games > 25 else None}
            players.append(player(a, rounds, rating=rating, games=games,
                                  record={k: v for k, v in rec.items() if v is not None}))
        else:
            players.append(player(a, rounds, adult=data.draw(st.booleans())))
    res = rate(players, start=start)
    for sec in res.sections:
        for p in sec.players:
            assert p.post >= p.floor - 1e-9 or math.isclose(p.post, p.floor)
            assert p.post >= 100


def test_special_start_point_by_edition():
    """000 footnote 3: starting at the estimate M can give another answer when
    N' = 0.  An unrated adult (1300, N = 0) beats an 800: the history starts at
    R0' and keeps 1300; the 2017 text as written starts at M = 1200 and stops."""
    players = [player(1, ["W2"], adult=True), player(2, ["L1"], rating=800, games=50)]
    history = by_pair(rate(players, start="2017-05-02"))[1]
    as_written = by_pair(rate(players, RatingOptions(edition="2017-04-24"), start="2017-05-02"))[1]
    assert history.step4 == pytest.approx(1300.0) and history.post == pytest.approx(1300.0)
    assert as_written.step4 == pytest.approx(1200.0)
    opponent_step4 = as_written.trace["step5"]["opponents"][0]
    assert as_written.post == pytest.approx(opponent_step4 + 400)


def test_half_k_section():
    players = [player(1, ["W2", "W3", "L4"], rating=1600, games=100),
               player(2, ["L1", "U", "U"], rating=1600, games=100),
               player(3, ["U", "L1", "U"], rating=1600, games=100),
               player(4, ["U", "U", "W1"], rating=1600, games=100)]
    full = by_pair(rate(players, start="2005-01-01"))[1]
    half = by_pair(rate(players, start="2005-01-01", half_k=True))[1]
    assert half.k == pytest.approx(400 / (full.n_eff + 1.5))
    assert full.k == pytest.approx(800 / (full.n_eff + 3))


def test_integer_ratings_before_2014_09_01():
    players = [player(1, ["W2", "D3", "L4"], rating=1600.0, games=100),
               player(2, ["L1", "U", "U"], rating=1500, games=100),
               player(3, ["U", "D1", "U"], rating=1650, games=100),
               player(4, ["U", "U", "W1"], rating=1700, games=100)]
    before = by_pair(rate(players, start="2014-08-31"))
    after = by_pair(rate(players, start="2014-09-01"))
    assert all(p.post == int(p.post) for p in before.values())
    assert any(p.post != int(p.post) for p in after.values())
    for pair, p in before.items():  # rounded away from the pre-event rating
        if p.step5 > p.pre:
            assert p.post == math.ceil(p.step5)
        elif p.step5 < p.pre:
            assert p.post == math.floor(p.step5)


def test_a_better_result_can_lower_the_final_rating_through_step5():
    """The property "a better result never gives a lower rating" holds for the
    formulas with the opponents' ratings fixed (see the hypothesis tests
    above), but not for the five steps as written: in step 5 every opponent is
    rated at its step-4 result, which the changed game moves too.  Found by
    hypothesis; kept as a pinned example of the algorithm's own behaviour."""
    pairing = round_robin(6)
    draws = iter("L W W W W W W W W W W W D L W".split())
    results = {}
    for a in range(1, 7):
        for r, b in enumerate(pairing[a]):
            if (a, r) not in results:
                o = next(draws)
                results[(a, r)] = o
                results[(b, r)] = {"W": "L", "L": "W", "D": "D"}[o]
    recs = {1: (100.0, 1), 2: (100.0, 1), 3: (1017.0, 1), 4: None, 5: (1019.0, 3), 6: None}

    def build(res):
        return [player(a, [f"{res[(a, r)]}{b}" for r, b in enumerate(pairing[a])],
                       rating=recs[a][0], games=recs[a][1]) if recs[a] else
                player(a, [f"{res[(a, r)]}{b}" for r, b in enumerate(pairing[a])], adult=True)
                for a in range(1, 7)]

    better = dict(results)
    better[(1, 0)] = better[(pairing[1][0], 0)] = "D"  # a loss to pair 6 becomes a draw
    worse_result = by_pair(rate(build(results), start="2016-01-15"))[1]
    better_result = by_pair(rate(build(better), start="2016-01-15"))[1]
    assert better_result.step4 > worse_result.step4          # step 4 rewards the draw
    assert better_result.post < worse_result.post            # step 5 takes it back, and more
    assert worse_result.post - better_result.post < 0.5
