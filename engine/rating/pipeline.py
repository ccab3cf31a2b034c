"""The one shared five-step pipeline of sec. 1.

Nothing here knows a date: every number comes from ``rules.p`` and every rule
whose shape changed over time from ``rules.hook`` (see :mod:`uschess.calendar.rulebook`).

Step 1 initial ratings for unrated players; step 2 effective games N'; step 3
a first estimate for unrated players with N = 0 (special formula, N' = 1);
step 4 every player (special or standard formula, opponents at pre-event,
step-1 or step-3 ratings); step 5 the same with opponents at their step-4
results.  Each of steps 3-5 raises a result below the absolute floor to it;
personal floors bind only the final rating (project reading 1).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from uschess.rules.base import Initial

from uschess.errors import InputError, RuleError
from uschess.io.eventfile import MAX_RATING
from uschess.formulas import SpecialTrace, n_star, round_half_up, standard_rating
from uschess.model import GAME_CODES, Event, Player, Section, SystemRecord
from uschess.calendar.rulebook import RuleBook, Rules
from uschess.timecontrol import TimeControl, parse_time_control

# Which resolved rules each kind of work depends on (for per-player warnings).
DEPENDS = {
    "initialize": {"initialize", "age", "fide_conversion", "cfc_conversion", "priority_games",
                   "unrated_default", "blended", "age_formula"},
    "special": {"special", "nstar", "special_start", "special_p_inclusive", "special_eps",
                "special_cap", "special_max_games", "step3_n_eff"},
    "standard": {"k_factor", "k_numerator", "k_dual", "nstar", "special_max_games"},
    "bonus": {"bonus", "bonus_multiplier", "bonus_m_prime_min"},
    "floor": {"floors", "absolute_floor", "personal_floor", "personal_floor_systems", "floor_levels",
              "floor_drop", "olm", "olm_systems", "prize_floor_top"},
    "storage": {"storage"},
}


@dataclass(slots=True)
class PlayerResult:
    """One player's rating in one system for one section."""

    pair: int
    id: str
    name: str
    system: str
    pre: Optional[float]
    games_before: int
    m: int
    score: float
    post: Optional[float]  # None: unrated and still unrated (no rated games)
    games_after: int
    formula: str
    initial: Optional[Initial] = None
    n_eff: Optional[float] = None
    step3: Optional[float] = None
    step4: Optional[float] = None
    step5: Optional[float] = None
    k: Optional[float] = None
    bonus: Optional[float] = None
    expected: Optional[float] = None
    floor: Optional[float] = None
    floor_reason: Optional[str] = None
    floor_applied: bool = False
    record_after: Optional[SystemRecord] = None
    depends: set = field(default_factory=set)
    warnings: list = field(default_factory=list)
    trace: dict = field(default_factory=dict)

    @property
    def post_rounded(self) -> Optional[int]:
        return None if self.post is None else round_half_up(self.post)

    def as_dict(self) -> dict:
        rec = self.record_after
        init = None
        if self.initial is not None:
            init = {"rating": self.initial.rating, "games": self.initial.games,
                    "how": self.initial.how, "sources": self.initial.sources}
        return {
            "id": self.id, "pair": self.pair, "name": self.name, "pre": self.pre,
            "post": self.post, "post_rounded": self.post_rounded,
            "games_before": self.games_before, "games_after": self.games_after,
            "m": self.m, "score": self.score, "formula": self.formula, "initial": init,
            "n_eff": self.n_eff, "step3": self.step3, "step4": self.step4, "step5": self.step5,
            "k": self.k, "bonus": self.bonus, "expected": self.expected, "floor": self.floor,
            "floor_reason": self.floor_reason, "floor_applied": self.floor_applied,
            "record_after": _record_dict(rec) if rec else None,
            "warnings": list(self.warnings),
        }


def _record_dict(rec: SystemRecord) -> dict:
    return {"rating": rec.rating, "games": rec.games, "wins": rec.wins, "draws": rec.draws,
            "losses": rec.losses, "events3": rec.events3, "peak": rec.peak, "olm": rec.olm,
            "prize_floor": rec.prize_floor, "games_above_2200": rec.games_above_2200,
            "date": rec.date.isoformat() if rec.date else None}


@dataclass
class SectionResult:
    section: Section
    system: str
    rules: Rules
    time_control: TimeControl
    players: list[PlayerResult]

    def as_dict(self) -> dict:
        rules = self.rules.as_dict()
        return {"name": self.section.name, "system": self.system,
                "time_control": self.time_control.text, "mm_plus_ss": self.time_control.total,
                "start": self.section.start.isoformat(), "end": self.section.end.isoformat(),
                "rules": rules, "warnings": rules["warnings"],
                "players": [p.as_dict() for p in self.players]}


@dataclass
class EventResult:
    event: Event
    sections: list[SectionResult]

    def as_dict(self) -> dict:
        e = self.event
        return {"event": {"name": e.name, "id": e.id, "start": e.start.isoformat(),
                          "end": e.end.isoformat(), "online": e.online, "source": e.source},
                "sections": [s.as_dict() for s in self.sections]}

    def player(self, pid: str, system: Optional[str] = None):
        return [p for s in self.sections for p in s.players
                if p.id == pid and (system is None or s.system == system)]


@dataclass
class RatingOptions:
    """How to pick the rules: by default those in force on each section's start."""

    rules_on: Optional[object] = None      # a date: rate as if every section started then
    known_on: Optional[object] = None
    readings: dict = field(default_factory=dict)
    edition: Optional[str] = None
    reform: Optional[object] = None
    trace: bool = True
    grant_floor_requests: bool = False     # matches (sec. 7): grant requests to lower a floor
    match_history: Optional[object] = None  # matches: earlier changes (see uschess.rating.match)


def systems_for(section: Section, rules: Rules, tc: TimeControl) -> list[str]:
    if section.systems:
        return list(section.systems)
    systems = rules.hook.uschess_classify(tc=tc, online=section.online, p=rules.p)
    if not systems:
        where = "online" if section.online else "over-the-board"
        raise RuleError(f"time control {tc.text!r} (mm + ss = {tc.total:g}) is rated in no "
                        f"{where} system in force on {rules.on.isoformat()}", section=section.name)
    return systems


def rate_event(event: Event, options: Optional[RatingOptions] = None,
               book: Optional[RuleBook] = None) -> EventResult:
    """Rate every section of an event in every system its time control falls in."""
    options = options or RatingOptions()
    book = book or RuleBook.load()
    out = []
    for section in event.sections:
        try:
            on = options.rules_on or section.start
            rules = book.rules(on, known_on=options.known_on, readings=options.readings,
                               edition=options.edition, reform=options.reform)
            tc = parse_time_control(section.time_control)
            for system in systems_for(section, rules, tc):
                if section.kind == "match":  # sec. 7: individual matches
                    from uschess.rating.match import rate_match
                    out.append(rate_match(section, system, rules, tc, options=options, event=event))
                    continue
                out.append(rate_section(section, system, rules, tc, trace=options.trace))
        except InputError as err:
            raise err.located(section=section.name, file=event.source)
    return EventResult(event, out)


class _Entrant:
    """What steps 4 and 5 need of one player, computed once per section:
    the games (opponent pairs and scores), R0, N, N', the formula, and for
    the standard formula K and bonus eligibility (neither depends on the
    opponents' ratings)."""

    __slots__ = ("pl", "rec", "opps", "score", "m", "wins", "losses", "r0", "n", "n_eff",
                 "special", "all_wins", "all_losses", "k", "eligible")

    def __init__(self, pl: Player, rec: Optional[SystemRecord]):
        opps, score, wins, losses = [], 0.0, 0, 0
        for r in pl.rounds:
            if r.opponent is not None and r.code in GAME_CODES:
                opps.append(r.opponent)
                s = GAME_CODES[r.code]
                score += s
                wins += s == 1.0
                losses += s == 0.0
        self.pl, self.rec = pl, rec
        self.opps, self.score, self.m = opps, score, len(opps)
        self.wins, self.losses = wins, losses
        self.all_wins = bool(rec and rec.all_wins)
        self.all_losses = bool(rec and rec.all_losses)
        self.k = self.eligible = None


@dataclass
class Steps:
    """What the five steps computed for one section in one system: each
    player's games and R0, N, N' (``entrants``), step-1 initial ratings,
    step-3, step-4 and step-5 results (steps 3-5 already at least the absolute
    floor), and what steps 4 and 5 did (``details4`` only with ``trace``)."""

    entrants: dict
    initial: dict
    step3: dict
    step4: dict
    step5: dict
    details4: dict
    details5: dict


def five_steps(section: Section, system: str, rules: Rules, tc: TimeControl, *,
               trace: bool = True, bonus: bool = True) -> Steps:
    """The five steps of sec. 1, before personal floors and storage.  Matches
    pass ``bonus=False`` (sec. 7: "The bonus formula does not apply")."""
    p, hook = rules.p, rules.call
    floor100 = p.absolute_floor
    nstar = p.nstar
    entrants = {pl.pair: _Entrant(pl, pl.ratings.get(system)) for pl in section.players}
    playing = {pair: e for pair, e in entrants.items() if e.m}
    # every player who appears as an opponent plays a rated game (validated pairings)

    # Step 1: initial ratings for unrated players who play a rated game.
    initial: dict[int, Initial] = {}
    for pair, e in playing.items():
        if e.rec is not None:
            e.r0, e.n = e.rec.rating, e.rec.games
            continue
        try:
            init = hook.uschess_initial_rating(player=e.pl, system=system, end=section.end,
                                               p=p, hook=hook)
        except InputError as err:
            raise err.located(player=e.pl.label)
        if init is None:
            raise RuleError(f"no initialization rule for {system} is in force on "
                            f"{rules.on.isoformat()}", player=e.pl.label)
        initial[pair] = init
        e.r0, e.n = init.rating, init.games

    # Step 2: effective games; and what does not change between steps 4 and 5.
    ns = (nstar["a"], nstar["b"], nstar["center"], nstar["flat_above"], nstar["cap"])
    for e in playing.values():
        e.n_eff = min(float(e.n), n_star(e.r0, *ns))  # N' = min(N, N*), sec. 3
        e.special = e.n <= p.special_max_games or e.all_wins or e.all_losses
        if not e.special:
            e.k = hook.uschess_k_factor(r0=e.r0, n_eff=e.n_eff, m=e.m, system=system, tc=tc,
                                        half_k=section.half_k,
                                        otbr=(e.pl.ratings["OTBR"].rating if "OTBR" in e.pl.ratings else None),
                                        p=p)
            e.eligible = bonus and bool(hook.uschess_bonus_eligible(
                m=e.m, opponent_counts=Counter(e.opps), p=p))

    # Step 3: first estimate for unrated players with N = 0 (N' = 1).
    step3: dict[int, float] = {}
    for pair, init in initial.items():
        if init.games == 0:
            e = playing[pair]
            value = hook.uschess_special_rating(
                r0=e.r0, n_eff=p.step3_n_eff, opponents=[playing[o].r0 for o in e.opps],
                score=e.score, wins=e.wins, losses=e.losses, all_wins=False, all_losses=False,
                n=0, p=p, trace=None)
            step3[pair] = max(value, floor100)

    # Step 4: opponents at pre-event, step-1 (N > 0) or step-3 (N = 0) ratings.
    seed = {pair: step3.get(pair, e.r0) for pair, e in playing.items()}
    step4: dict[int, float] = {}
    details4: dict[int, dict] = {}
    for pair, e in playing.items():
        value, info = _rate_one(e, [seed[o] for o in e.opps], rules, trace=False, details=trace)
        step4[pair] = max(value, floor100)
        if trace:
            details4[pair] = info

    # Step 5: again, with every opponent at its step-4 result.
    step5: dict[int, float] = {}
    details5: dict[int, dict] = {}
    for pair, e in playing.items():
        value, details5[pair] = _rate_one(e, [step4[o] for o in e.opps], rules, trace=trace)
        step5[pair] = max(value, floor100)
    return Steps(entrants, initial, step3, step4, step5, details4, details5)


def rate_section(section: Section, system: str, rules: Rules, tc: TimeControl,
                 trace: bool = True) -> SectionResult:
    """The five steps of sec. 1 for one section in one system, then personal
    floors (final rating only: project reading 1) and storage."""
    st = five_steps(section, system, rules, tc, trace=trace)
    out = []
    for pl in section.players:
        e = st.entrants[pl.pair]
        if not e.m:
            rec = e.rec
            out.append(PlayerResult(
                pair=pl.pair, id=pl.id, name=pl.name, system=system,
                pre=rec.rating if rec else None, games_before=rec.games if rec else 0, m=0,
                score=pl.total, post=rec.rating if rec else None,
                games_after=rec.games if rec else 0, formula="not rated (no rated games)",
                record_after=rec))
            continue
        res = _finish(e, system, st.step5[pl.pair], st.details5[pl.pair], st.initial.get(pl.pair),
                      st.step3.get(pl.pair), st.step4[pl.pair], section, rules)
        if trace:
            res.trace["step4"] = st.details4[pl.pair]
        out.append(res)
    return SectionResult(section, system, rules, tc, out)


def _rate_one(e: _Entrant, opps: list, rules: Rules, trace: bool, details: bool = True):
    """Step 4 or 5 for one player: the special or the standard formula.
    Returns (rating, what was done); without ``details`` only the rating."""
    p, hook = rules.p, rules.call
    if not details:
        if e.special:
            return hook.uschess_special_rating(
                r0=e.r0, n_eff=e.n_eff, opponents=opps, score=e.score, wins=e.wins,
                losses=e.losses, all_wins=e.all_wins, all_losses=e.all_losses, n=e.n, p=p,
                trace=None), None
        return standard_rating(e.r0, e.k, opps, e.score, bonus_eligible=e.eligible,
                               b=p.bonus_multiplier, m_prime_min=p.bonus_m_prime_min)[0], None
    info: dict = {"opponents": opps, "score": e.score, "m": e.m}
    if e.special:
        st = SpecialTrace() if trace else None
        value = hook.uschess_special_rating(
            r0=e.r0, n_eff=e.n_eff, opponents=opps, score=e.score, wins=e.wins, losses=e.losses,
            all_wins=e.all_wins, all_losses=e.all_losses, n=e.n, p=p, trace=st)
        info.update(formula="special", all_wins=e.all_wins, all_losses=e.all_losses)
        if st is not None:
            info["special"] = st.as_dict()
        return value, info
    value, expected, bonus = standard_rating(e.r0, e.k, opps, e.score, bonus_eligible=e.eligible,
                                             b=p.bonus_multiplier, m_prime_min=p.bonus_m_prime_min)
    info.update(formula="standard", k=e.k, expected=expected, bonus=bonus, bonus_eligible=e.eligible)
    return value, info


def record_after(rec: Optional[SystemRecord], m: int, wins: int, draws: int, losses: int,
                 value: float, date, p, cls=SystemRecord) -> SystemRecord:
    """A player's record after an event of ``m`` rated games, rated ``value``
    before personal floors and storage.  Counts include the event (project
    reading 2); unknown earlier counts stay unknown, except for a player new
    to the system.  The highest established rating takes in the pre-event
    rating (when established) and ``value`` (when established after)."""

    def add(before, extra):
        if rec is None:
            return extra
        return None if before is None else before + extra

    est = p.established_games
    games = (rec.games if rec else 0) + m
    was_established = rec is not None and rec.games > est
    peak = rec.peak if rec else None
    for x in (rec.rating if was_established else None, value if games > est else None):
        if x is not None and (peak is None or x > peak):
            peak = x
    above = p.olm["above"]
    after = cls(
        rating=value, games=games,
        wins=add(rec.wins if rec else 0, wins), draws=add(rec.draws if rec else 0, draws),
        losses=add(rec.losses if rec else 0, losses),
        events3=add(rec.events3 if rec else 0, 1 if m >= 3 else 0),
        peak=peak,
        olm=bool(rec and rec.olm), prize_floor=rec.prize_floor if rec else None, date=date,
        games_above_2200=(None if rec and rec.games_above_2200 is None else
                          (rec.games_above_2200 if rec else 0)
                          + (m if was_established and rec.rating > above else 0)))
    if after.games_above_2200 is not None and after.games_above_2200 >= p.olm["games"]:
        after.olm = True
    return after


def settle_record(after: SystemRecord, post: float, p, who=None) -> None:
    """Set the stored post-event rating on the record (and the peak).  A
    rating above MAX_RATING, the bound every rating is read with, is refused:
    what is written must read back, and no real rating comes near it."""
    if post > MAX_RATING:
        raise InputError(f"the post-event rating {post:.2f} is above {MAX_RATING:g}, the bound "
                         "of every rating read or written: the pre-event ratings cannot be "
                         "real", player=who)
    after.rating = post
    if after.games > p.established_games:
        after.peak = max(after.peak, post) if after.peak is not None else post


def _depends(rules: Rules, formula: str, standard: bool, wording: bool, initialized: bool,
             floored: bool) -> tuple:
    """The rules a player's rating depended on, and their warnings: the
    formula's; for the standard formula the bonus multiplier and, where the
    eligibility wordings differ (m = 3 or a repeated opponent), the
    eligibility rule; initialization for a new player; the floors when one
    bound; storage always.  Cached per rules combination."""
    key = (formula, standard, wording, initialized, floored)
    cache = rules.depends_cache
    hit = cache.get(key)
    if hit is None:
        names = set(DEPENDS["special"] if formula == "special" else DEPENDS["standard"])
        if standard:
            names |= {"bonus_multiplier", "bonus_m_prime_min"}
        if wording:
            names |= DEPENDS["bonus"]
        if initialized:
            names |= DEPENDS["initialize"]
        if floored:
            names |= DEPENDS["floor"]
        names |= DEPENDS["storage"]
        names = frozenset(names)
        hit = cache[key] = (names, tuple(rules.warnings(names)))
    return hit


def _finish(e: _Entrant, system, step5, info, init, step3, step4, section: Section,
            rules: Rules) -> PlayerResult:
    """Personal floor, storage and the record after the event."""
    p, hook = rules.p, rules.call
    pl, rec, m = e.pl, e.rec, e.m
    pair = pl.pair
    w, lo = e.wins, e.losses
    d = m - w - lo
    after = record_after(rec, m, w, d, lo, step5, section.end, p)
    # Personal floors bind only the final rating (project reading 1); the
    # floor reflects the record including this event (project reading 2).
    post = step5
    floor, reason = hook.uschess_personal_floor(system=system, after=after, p=p)
    floor_applied = post < floor
    if floor_applied:
        post = float(floor)
    post = hook.uschess_store_rating(pre=rec.rating if rec else None, value=post, p=p)
    settle_record(after, post, p, who=pl.label)
    standard = info.get("bonus_eligible") is not None
    depends, warnings = _depends(rules, info["formula"], standard,
                                 standard and (m == 3 or len(set(e.opps)) < m),
                                 init is not None, floor_applied)
    res = PlayerResult(
        pair=pair, id=pl.id, name=pl.name, system=system, pre=rec.rating if rec else None,
        games_before=rec.games if rec else 0, m=m, score=info["score"], post=post,
        games_after=after.games, formula=info["formula"], initial=init,
        n_eff=e.n_eff, step3=step3, step4=step4, step5=step5,
        k=info.get("k"), bonus=info.get("bonus"), expected=info.get("expected"), floor=floor,
        floor_reason=reason, floor_applied=floor_applied, record_after=after, depends=depends,
        warnings=list(warnings), trace={"step5": info})
    return res
