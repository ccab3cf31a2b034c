"""The special formula (sec. 4.1), the K factor and bonus eligibility (sec. 4.2)."""

from __future__ import annotations


from uschess import formulas as F

from uschess.rules.base import RulePlugin, src
from uschess.rules.hookspecs import hookimpl


class KnotWalk(RulePlugin):
    """The special rating as the exact knot walk of sec. 4.1 (start point and
    p-count rule from the parameters ``special_start`` and ``special_p_inclusive``)."""

    slot = "special"
    name = "special-knot-walk"
    title = "Special formula, knot walk"
    source = src("000", "4.1")

    @hookimpl
    def uschess_special_rating(self, r0, n_eff, opponents, score, wins, losses, all_wins,
                               all_losses, n, p, trace):
        return F.special_rating(r0, n_eff, opponents, score, all_wins=all_wins,
                                all_losses=all_losses, eps=p.special_eps, cap=p.special_cap,
                                start=p.special_start, p_inclusive=p.special_p_inclusive,
                                trace=trace)


class Approximate002(RulePlugin):
    """002's approximation of the special formula, rounded as 002 says: only
    for rating with that document as written (its edition, ``--edition``)."""

    slot = "special"
    name = "special-approximate-002"
    title = "Special formula, 002 approximation"
    source = src("002", "Special rating formula")

    @hookimpl
    def uschess_special_rating(self, r0, n_eff, opponents, score, wins, losses, all_wins,
                               all_losses, n, p, trace):
        return F.approximate_special(r0, n, opponents, wins, losses)


def _plain_k(k_numerator, half_k, r0, n_eff, m, otbr):
    """K without the dual-rating exception (sec. 4.2): 800/(N' + m), or
    400/(N' + m/2) in a half-K event (002)."""
    if half_k:
        return (k_numerator / 2.0) / (n_eff + m / 2.0)
    return k_numerator / (n_eff + m)


def _dual_k(r, n_eff, m, kd, k_num):
    if r >= kd["top"]:
        return kd["top_numerator"] / (n_eff + m)
    return k_num * (kd["slope_a"] - kd["slope_b"] * r) / (n_eff + m)


def dual_rated(systems, p) -> bool:
    """Whether a section rated in ``systems`` is dual-rated: rated in every
    system of ``dual_rating_systems`` (000 footnote 1; none while that list is
    empty, before dual rating existed, 000 sec. 8)."""
    dual = p.dual_rating_systems
    return bool(dual) and all(s in systems for s in dual)


class _K(RulePlugin):
    """K = 800/(N' + m) (sec. 4.2), with the high-rated exception where the
    wording's ``applies`` says so.  The exception asks three things: a rating
    above ``k_dual.above`` (``rating_for``: whose rating, by wording), a time
    control in the range the wording prints, and a section that is actually
    dual-rated, from the systems it is rated in (``systems``: "i.e.,
    dual-rated", 000 and 004 sec. 4.2)."""

    slot = "k_factor"

    def applies(self, system):  # pragma: no cover - overridden
        raise NotImplementedError

    def rating_for(self, r0, otbr):
        return r0

    def exception_applies(self, r, system, tc, systems, p) -> bool:
        """Whether the dual-rating exception sets K for this player (sec. 4.2)."""
        kd = p.k_dual
        return (tc is not None and kd["time_from"] <= tc.total <= kd["time_to"]
                and r is not None and r > kd["above"] and self.applies(system)
                and dual_rated(systems, p))

    @hookimpl
    def uschess_k_factor(self, r0, n_eff, m, system, tc, half_k, otbr, systems, p):
        kd = p.k_dual
        # the time control decides most sections at once; the rest of the
        # exception is asked only where it is in range
        if tc is not None and kd["time_from"] <= tc.total <= kd["time_to"]:
            r = self.rating_for(r0, otbr)
            if self.exception_applies(r, system, tc, systems, p):
                return _dual_k(r, n_eff, m, kd, p.k_numerator)
        return _plain_k(p.k_numerator, half_k, r0, n_eff, m, otbr)


class KDualAnySystem(_K):
    """004 sec. 4.2: "a player's rating R is greater than 2200 and the time
    control is between G/30 (or G/25+5) and G/60+5 (i.e., dual-rated)": in
    both systems of a dual-rated section, with that system's rating."""

    name = "k-dual-2017"
    title = "K with the dual-rating exception (dual-rated sections), 2017 wording"
    source = src("004", "4.2")

    def applies(self, system):
        return True


class KDualRegularRating(_K):
    """001 sec. 4.2: "a player's regular (over-the-board) rating R is greater
    than 2200": the condition and the formula use the OTBR rating, in both
    systems of a dual-rated section."""

    name = "k-dual-2020-06"
    title = "K with the dual-rating exception (dual-rated sections), 2020-06 wording"
    source = src("001", "4.2")

    def applies(self, system):
        return True

    def rating_for(self, r0, otbr):
        return otbr


class KDualOTBR(_K):
    """003/000 sec. 4.2: "In updating the OTBR rating, if the player's rating R
    is greater than 2200 and [30 <= mm + ss <= 65] (i.e., dual-rated - see
    footnote 1)": the OTBR rating of a dual-rated section."""

    name = "k-dual-otbr"
    title = "K with the dual-rating exception for OTBR of dual-rated sections"
    source = src("000", "4.2")

    def applies(self, system):
        return system == "OTBR"


class K002(_K):
    """002: K = 800/(N_e + m), or 400/(N_e + m/2) in a half-K event; 002 has
    no dual-rating exception.  The calendar puts it in force for 002's
    edition and where the published record shows no exception
    (``rulesets/slots.yaml``, ``k_factor``)."""

    name = "k-002"
    title = "K without the dual-rating exception (002)"
    source = src("002", "Standard rating formula")

    def applies(self, system):
        return False


class Bonus002(RulePlugin):
    """002: no bonus against fewer than 3 distinct opponents or more than two
    games against one."""

    slot = "bonus"
    name = "bonus-002"
    title = "Bonus eligibility, 002"
    source = src("002", "Standard rating formula")

    @hookimpl
    def uschess_bonus_eligible(self, m, opponent_counts, p):
        return len(opponent_counts) >= 3 and max(opponent_counts.values()) <= 2


class Bonus2017(RulePlugin):
    """004/001 sec. 4.2: m >= 3 and no opponent more than twice."""

    slot = "bonus"
    name = "bonus-2017"
    title = "Bonus eligibility, 2017 wording"
    source = src("004", "4.2")

    @hookimpl
    def uschess_bonus_eligible(self, m, opponent_counts, p):
        return m >= 3 and max(opponent_counts.values()) <= 2


class Bonus2020(RulePlugin):
    """003/000 sec. 4.2: m > 3 and no opponent more than twice, or m = 3 and
    no opponent more than once."""

    slot = "bonus"
    name = "bonus-2020-09"
    title = "Bonus eligibility, 2020-09 wording"
    source = src("000", "4.2")

    @hookimpl
    def uschess_bonus_eligible(self, m, opponent_counts, p):
        most = max(opponent_counts.values())
        return (m > 3 and most <= 2) or (m == 3 and most <= 1)

