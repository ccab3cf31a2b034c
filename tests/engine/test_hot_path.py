"""The rating's hot path gives what the rules' definitions give, bit for bit:
the one body rated with and without a trace,
the established floor level found by bisection against its definition, and
the standard formula's bonus against max(0, K(S - E) - B sqrt(max(m, 4)))."""

from __future__ import annotations

import datetime as dt
import math
import random
import sys

from helpers import ROOT
from uschess import formulas as F
from uschess.calendar.rulebook import RuleBook
from uschess.model import SystemRecord
from uschess.rating.options import RatingOptions
from uschess.rating.pipeline import rate_event
from uschess.rating.steps import five_steps
from uschess.timecontrol import parse_time_control

sys.path.insert(0, str(ROOT / "benchmarks"))
import common as C  # noqa: E402


def _levels_by_definition(peak, drop, levels):
    """Sec. 5: the highest level at or below round(peak) - drop."""
    below = [level for level in levels if level <= F.round_half_up(peak) - drop]
    return max(below) if below else None


def test_floor_level_by_bisection_is_the_definition():
    rng = random.Random(12)
    ascending = [1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900, 2000, 2100]
    lists = [ascending, tuple(ascending), [1400, 1500, 1600, 1700, 1800, 1900, 2000, 2100],
             [2100, 1400, 1800.0], [1500, 1500, 1600], [1600.5, 1400.25], []]
    for _ in range(20000):
        levels = rng.choice(lists)  # the one remembered list changes between calls
        peak = rng.choice([rng.uniform(0.0, 3000.0), rng.randint(1300, 2400) + 0.5,
                           rng.randint(1300, 2400) - 0.5, float(rng.randint(1300, 2400))])
        drop = rng.choice([200, 150, 0])
        got = F.floor_level(peak, drop, levels)
        want = _levels_by_definition(peak, drop, levels)
        assert got == want and type(got) is type(want), (peak, drop, levels)
    # an unsorted list that starts out like a remembered ascending one
    assert F.floor_level(1900.0, 200, ascending) == 1700
    assert F.floor_level(1900.0, 200, [1200, 1800, 1700, 1300]) == 1700


def test_standard_bonus_is_max_of_zero_and_the_excess():
    rng = random.Random(4)
    for _ in range(20000):
        m = rng.randint(1, 9)
        opps = [rng.uniform(100.0, 2700.0) for _ in range(m)]
        r0, k, score = rng.uniform(100.0, 2700.0), rng.uniform(1.0, 80.0), rng.randint(0, 2 * m) / 2
        b, m_prime_min = rng.choice([0, 6.0, 10, 14.0]), rng.choice([4, 4.0, 3])
        rs, e, bonus = F.standard_rating(r0, k, opps, score, True, b, m_prime_min)
        e_def = 0.0
        for ri in opps:
            e_def += F.we(r0, ri)
        gain = k * (score - e_def)
        bonus_def = max(0.0, gain - b * math.sqrt(max(m, m_prime_min)))
        assert (rs, e, bonus) == (r0 + gain + bonus_def, e_def, bonus_def)
        assert F.standard_rating(r0, k, opps, score, False, b, m_prime_min) == (r0 + gain, e_def, 0.0)
    # a gain exactly at the threshold: no bonus (and not -0.0)
    rs, _, bonus = F.standard_rating(1500.0, 32.0, [1500.0] * 4, 3.0, True, 16.0, 4)
    assert bonus == 0.0 and math.copysign(1.0, bonus) == 1.0 and rs == 1500.0 + 32.0 * 1.0


def _section_with_every_kind_of_record():
    """A generated section whose records exercise every branch of the finish
    step: new players, unknown and known counts, a floor lowered after a
    match (still holding and replaced), OLM and prize floors."""
    event = C.swiss_event(1, 60, 5, seed=21)
    section = event.sections[0]
    for i, pl in enumerate(section.players):
        rec = pl.ratings.get("OTBR")
        if rec is None:
            continue
        if i % 5 == 0:
            rec.wins, rec.draws, rec.losses, rec.events3 = 3, 2, rec.games - 5, 2
        if i % 7 == 1:  # a floor lowered after a match, from the sec. 5 floor it replaced
            rec.peak = max(rec.rating, 1950.0)
            rec.lowered_floor, rec.lowered_from = 1600.0, 1700.0
        if i % 11 == 2:
            rec.olm, rec.peak = True, 2300.0
        if i % 13 == 3:
            rec.prize_floor = 2000
        if i % 4 == 3:
            rec.rating = 140.0  # near the floors: they bind
    return event


def test_a_trace_changes_no_value():
    """The one body rated with the recorder on and off: equal ratings,
    floors and records after the event, on records of every kind."""
    event = _section_with_every_kind_of_record()
    floors_bound = 0
    for day in ("2009-06-01", "2025-03-21"):
        opts = {"rules_on": dt.date.fromisoformat(day)}
        traced, untraced = (rate_event(event, RatingOptions(trace=t, **opts)) for t in (True, False))
        for x, y in zip(traced.sections[0].players, untraced.sections[0].players):
            assert (x.post, x.floor, x.floor_reason, x.record_after, x.k, x.bonus, x.expected) == \
                (y.post, y.floor, y.floor_reason, y.record_after, y.k, y.bonus, y.expected)
            assert y.trace == {} and y.depends == frozenset()
            floors_bound += y.floor_applied
        assert any(p.record_after.lowered_floor is not None for p in untraced.sections[0].players)
    assert floors_bound >= 10


def test_record_after_an_event_with_unknown_counts_keeps_them_unknown():
    """The untraced record after the event: unknown earlier counts stay
    unknown; the event's own are added where known."""
    event = C.swiss_event(1, 20, 4, seed=5)
    players = event.sections[0].players
    players[0].ratings["OTBR"] = SystemRecord(1500.0, 40)
    players[1].ratings["OTBR"] = SystemRecord(1500.0, 40, 10, 10, 20, 5)
    res = {p.pair: p for p in rate_event(event, RatingOptions(trace=False)).sections[0].players}
    one, two = res[players[0].pair].record_after, res[players[1].pair].record_after
    assert one.wins is None and one.events3 is None and one.games == 40 + res[players[0].pair].m
    assert two.wins + two.draws + two.losses == 40 + res[players[1].pair].m


def test_personal_floor_reason_texts_follow_the_parameter():
    """The personal floor's reason, written once per counts for the value of
    ``personal_floor`` last asked about: another value writes its own."""
    from uschess.rules.floors import FloorsSec5

    hook = FloorsSec5().uschess_personal_floor
    base = RuleBook.load().rules(dt.date(2025, 3, 21)).p
    other = type(base)({**base.__dict__, "personal_floor": dict(base.personal_floor, base=90)})
    low = SystemRecord(95.0, 30)  # counts unknown: this event's count
    event = _counts(2, 1, 2, 1)
    for p, first in ((base, 100), (other, 90), (base, 100)):
        fl = hook(system="OTBR", after=low, event=event, p=p)
        assert fl.reason == (f"personal absolute floor min({first} + 4x2 + 2x1 + 1, 150), counting "
                             "this event only for the unknown earlier wins, draws, events with 3 "
                             "or more games")
        assert fl.value == first + 8 + 2 + 1
    known = SystemRecord(95.0, 30, 5, 3, 22, 4)
    assert hook(system="OTBR", after=known, event=event, p=base).reason == \
        "personal absolute floor min(100 + 4x5 + 2x3 + 4, 150)"


def _counts(wins, draws, losses, events3):
    from uschess.rules.base import EventCounts

    return EventCounts(wins, draws, losses, events3)


def test_personal_counts_for_every_unknown_combination():
    """Unknown earlier counts are this event's own (none: zeros), and named."""
    from itertools import product

    from uschess.rules.floors import COUNT_NAMES, personal_counts

    event = _counts(3, 1, 1, 1)
    for wins, draws, events3 in product((None, 7), (None, 4), (None, 2)):
        after = SystemRecord(1500.0, 40, wins, draws, None, events3)
        for ev, own in ((event, (3, 1, 1)), (None, (0, 0, 0))):
            got = personal_counts(after, ev)
            known = (wins, draws, events3)
            assert got[:3] == tuple(own[i] if known[i] is None else known[i] for i in range(3))
            assert got[3] == tuple(name for name, k in zip(COUNT_NAMES, known) if k is None)


def _floor_by_definition(system, after, event, p, personal):
    """Sec. 5 written plainly: every floor in force computed, the highest
    kept (the first listed on a tie), with its reason; ``could_be`` where an
    unknown history could give a higher personal floor."""
    from uschess.rules.floors import COUNT_NAMES

    candidates = [(p.absolute_floor, "absolute floor")]
    could_be, unknown = None, ()
    if personal and system in p.personal_floor_systems:
        pf = p.personal_floor
        known = (after.wins, after.draws, after.events3)
        own = (event.wins, event.draws, event.events3) if event else (0, 0, 0)
        nw, nd, nr = (k if k is not None else o for k, o in zip(known, own))
        unknown = tuple(name for name, k in zip(COUNT_NAMES, known) if k is None)
        text = (f"personal absolute floor min({pf['base']} + {pf['win']}x{nw} + "
                f"{pf['draw']}x{nd} + {nr}, {pf['cap']})")
        if unknown:
            text += f", counting this event only for the unknown earlier {', '.join(unknown)}"
            could_be = pf["cap"]
        candidates.append((min(pf["base"] + pf["win"] * nw + pf["draw"] * nd + pf["event"] * nr,
                               pf["cap"]), text))
    if after.peak is not None:
        level = _levels_by_definition(after.peak, p.floor_drop, p.floor_levels)
        if level is not None:
            candidates.append((level, f"established floor: highest established "
                                      f"{after.peak:.2f} - {p.floor_drop}"))
    if after.olm and system in p.olm_systems:
        candidates.append((p.olm["floor"], "Original Life Master floor"))
    if after.prize_floor is not None:
        candidates.append((min(after.prize_floor, p.prize_floor_top), "prize floor"))
    best = candidates[0]
    for cand in candidates[1:]:
        if cand[0] > best[0]:
            best = cand
    if could_be is not None and could_be > best[0]:
        return best[0], best[1], could_be, unknown
    return best[0], best[1], None, ()


def test_personal_floor_hook_is_the_highest_floor():
    """The floors hook (which leaves out the personal absolute floor where the
    established floor is above its cap) against sec. 5 written plainly, on records of every kind, in every system,
    with and without the personal floor; traced, the hook reads the same
    parameters either way."""
    from uschess.rules.base import EventCounts
    from uschess.rating.steps import Reads
    from uschess.rules.floors import Floors002, FloorsSec5

    rng = random.Random(55)
    book = RuleBook.load()
    params = [book.rules(dt.date.fromisoformat(day)).p
              for day in ("2009-06-01", "2019-01-01", "2025-03-21")]
    kinds = {"established": 0, "personal": 0, "could_be": 0}
    for _ in range(20000):
        p = rng.choice(params)
        plugin = rng.choice((Floors002(), FloorsSec5()))
        system = rng.choice(("OTBR", "OTBQ", "OLR"))

        def count(hi):
            return rng.choice((None, rng.randint(0, hi)))

        after = SystemRecord(
            rng.uniform(90.0, 2500.0), rng.randint(1, 400), count(30), count(30), count(30),
            count(15), rng.choice((None, rng.uniform(300.0, 2600.0), rng.randint(1300, 1500) + 0.5)),
            rng.random() < 0.1, rng.choice((None, None, None, rng.randint(1500, 2300))))
        event = rng.choice((None, EventCounts(rng.randint(0, 5), rng.randint(0, 5), 0,
                                              rng.randint(0, 1))))
        fl = plugin.uschess_personal_floor(system=system, after=after, event=event, p=p)
        want = _floor_by_definition(system, after, event, p, plugin.personal)
        assert (fl.value, fl.reason, fl.could_be, fl.unknown) == want, (system, after, event)
        assert type(fl.value) is type(want[0])
        kinds["established"] += fl.reason.startswith("established")
        kinds["personal"] += fl.reason.startswith("personal")
        kinds["could_be"] += fl.could_be is not None
        # the parameters a traced rating notes: the same whichever floor is left out
        reads = Reads()
        plugin.uschess_personal_floor(system=system, after=after, event=event,
                                      p=reads.params(p))
        noted = {"absolute_floor"}
        if plugin.personal:
            noted.add("personal_floor_systems")
            if system in p.personal_floor_systems:
                noted.add("personal_floor")
        if after.peak is not None:
            noted |= {"floor_drop", "floor_levels"}
        if after.olm:
            noted.add("olm_systems")
            if system in p.olm_systems:
                noted.add("olm")
        if after.prize_floor is not None:
            noted.add("prize_floor_top")
        assert reads.names == noted
    assert min(kinds.values()) > 500, kinds


def _repeat_opponents_section():
    """Six established players over five rounds: 1 and 2 meet three times
    (neither is eligible for a bonus under any wording), the others at most
    twice; 1 and 3, rated low, win every game (a bonus term if eligible)."""
    from helpers import event, player

    pairings = [((1, 2), (3, 4), (5, 6)), ((1, 2), (3, 5), (4, 6)), ((1, 2), (3, 6), (4, 5)),
                ((1, 3), (2, 4), (5, 6)), ((1, 4), (2, 5), (3, 6))]
    winners = {1, 3}
    rounds: dict = {i: [] for i in range(1, 7)}
    for games in pairings:
        for a, b in games:
            if a in winners or b in winners:
                w, lo = (a, b) if a in winners and (b not in winners or a < b) else (b, a)
                rounds[w].append(f"W{lo}")
                rounds[lo].append(f"L{w}")
            else:
                rounds[a].append(f"D{b}")
                rounds[b].append(f"D{a}")
    ratings = {1: 1300.0, 2: 1900.0, 3: 1350.5, 4: 1800.0, 5: 1750.0, 6: 1700.25}
    return event([player(i, rounds[i], rating=ratings[i], games=40) for i in range(1, 7)])


def test_bonus_eligibility_is_the_same_traced_or_not():
    """Repeated opponents: bonus eligibility, K, E and the bonus are the same
    with the recorder on and off, in every edition of the wording."""
    ev = _repeat_opponents_section()
    section = ev.sections[0]
    tc = parse_time_control(section.time_control)
    book = RuleBook.load()
    for day in ("2003-05-02", "2019-03-01", "2025-03-21"):
        rules = book.rules(dt.date.fromisoformat(day))
        traced = five_steps(section, "OTBR", rules, tc, trace=True)
        lean = five_steps(section, "OTBR", rules, tc, trace=False)
        assert (traced.step4, traced.step5) == (lean.step4, lean.step5)
        assert lean.details5 == {} and traced.details5
        for pair, e in lean.entrants.items():
            t = traced.entrants[pair]
            assert (e.expected, e.bonus, e.k, e.eligible) == (t.expected, t.bonus, t.k, t.eligible)
        assert lean.entrants[1].eligible is False and lean.entrants[3].eligible is True
        assert lean.entrants[3].bonus > 0.0


def test_a_reforms_k_answers_traced_or_not():
    """A reform's K plugin answers first where it answers, with the recorder
    on and off alike."""
    from uschess.calendar.rulebook import Reform
    from uschess.rules.hookspecs import hookimpl

    class Reformed:
        @hookimpl
        def uschess_k_factor(self, r0, n_eff, m, system, tc, half_k, otbr, systems, p):
            return 16.0 if r0 < 1500.0 else None

    event = C.swiss_event(1, 40, 5, seed=3)
    opts = {"reform": Reform("k", extra_plugins=[Reformed()])}
    traced = rate_event(event, RatingOptions(trace=True, **opts)).sections[0].players
    lean = rate_event(event, RatingOptions(trace=False, **opts)).sections[0].players
    assert [(x.post, x.k) for x in traced] == [(x.post, x.k) for x in lean]
    assert any(x.k == 16.0 for x in lean)
