"""Steps 1-5 of sec. 1 for one rated unit in one system, before the finish
step (personal floors, storage, the record after the event:
:mod:`uschess.rating.finish`).

Step 1 initial ratings for unrated players; step 2 effective games N'; step 3
a first estimate for unrated players with N = 0 (special formula, N' = 1);
step 4 every player (special or standard formula, opponents at pre-event,
step-1 or step-3 ratings); step 5 the same with opponents at their step-4
results.  Each of steps 3-5 raises a result below the absolute floor to it;
personal floors bind only the final rating (project reading 1).

What differs between the kinds of rated unit (a section, a match, an update
from a foreign FIDE event) is a :class:`SectionKind`, never a branch on a
date.  Which rules each player's rating read is recorded as it is computed
(:class:`Reads`), so the warnings attached to a result come from the rules
actually used; without ``trace`` (bulk rating: replay, compare) nothing is
recorded and a result carries no per-player rule warnings.
"""

from __future__ import annotations

from dataclasses import dataclass
from operator import itemgetter
from typing import Optional

from uschess.errors import InputError, RuleError
from uschess.formulas import SpecialTrace, n_star, standard_rating
from uschess.model import GAME_CODES, Player, Section, SystemRecord
from uschess.rules.base import Initial, prepared
from uschess.rules.hookspecs import HOOK_SLOTS
from uschess.timecontrol import TimeControl


@dataclass(frozen=True)
class SectionKind:
    """What a kind of rated unit changes in the one pipeline.

    ``bonus``: whether the bonus term of sec. 4.2 applies (matches: "The bonus
    formula does not apply", sec. 7).  ``last_step``: 5, or 4 for an update
    from a foreign FIDE event (sec. 6: the standard formula "applied once").
    ``standard_only``: the standard formula for every player (sec. 6).
    ``caps``: the change is capped (sec. 7 restriction 2).  ``floor_requests``:
    floors are not automatic; a result below the floor is a request to lower
    it (sec. 7 restriction 4)."""

    name: str
    bonus: bool = True
    last_step: int = 5
    standard_only: bool = False
    caps: bool = False
    floor_requests: bool = False


STANDARD = SectionKind("standard")
MATCH = SectionKind("match", bonus=False, caps=True, floor_requests=True)
FIDE_UPDATE = SectionKind("fide-update", last_step=4, standard_only=True)


class Reads:
    """The rules one player's rating read: parameter names and rule slots.

    ``rules.p`` and ``rules.call`` are read through :meth:`params` and
    :meth:`calls` views that note each name; the finish step turns the names
    into the warnings of the rules in force.  One view of each is kept per
    player and notes a name on its first read only."""

    __slots__ = ("names", "_pview", "_cview")

    def __init__(self):
        self.names: set[str] = set()
        self._pview = self._cview = None

    def params(self, p) -> "_ReadParams":
        view = self._pview
        if view is None or view._p is not p:
            view = self._pview = _ReadParams(p, self.names)
        return view

    def calls(self, call) -> "_ReadCalls":
        view = self._cview
        if view is None or view._call is not call:
            view = self._cview = _ReadCalls(call, self.names)
        return view


class _NoReads(Reads):
    """Reading without noting (``trace=False``: bulk rating, where no one
    reads per-player warnings): the views are the objects themselves."""

    __slots__ = ()

    def __init__(self):
        pass

    @property
    def names(self) -> set:
        return set()  # a fresh set each time: what is added is dropped

    def params(self, p):
        return p

    def calls(self, call):
        return call


NO_READS = _NoReads()


class _Dropped(set):
    """A set that keeps nothing: the names a player's rating read, where no
    one reads them (``trace=False``)."""

    __slots__ = ()

    def add(self, name) -> None:
        pass


_DROPPED = _Dropped()


class _ReadParams:
    """``p`` read through a view that notes each parameter's name in
    ``names`` on its first read, then keeps the value as its own attribute
    (a later read is a plain attribute read: the name is noted already)."""

    def __init__(self, p, names):
        self._p, self._names = p, names

    def __getattr__(self, name):  # only on the first read of ``name``
        value = getattr(self._p, name)
        self._names.add(name)
        self.__dict__[name] = value
        return value


class _ReadCalls:
    """``rules.call`` read through a view that notes each hook's slot in
    ``names`` on its first read (then kept, as :class:`_ReadParams`)."""

    def __init__(self, call, names):
        self._call, self._names = call, names

    def __getattr__(self, name):  # only on the first read of ``name``
        fn = getattr(self._call, name)
        self._names.add(HOOK_SLOTS[name])
        self.__dict__[name] = fn
        return fn


class Played:
    """A player's rated games in a unit (sec. 1: games against an opponent
    with a result W, D or L; forfeits and byes are not rated): the opponents'
    pairs in round order, the score, m, wins and losses, and a getter of the
    opponents' ratings in one call (None for fewer than two opponents: a
    single opponent's getter would give the rating, not a sequence).  They
    depend on the rounds alone, so one section rated again and again (an
    audit's searches) reads them once (:func:`played_games`)."""

    __slots__ = ("opps", "score", "m", "wins", "losses", "opp_get")

    def __init__(self, pl: Player):
        opps, score, wins, losses = [], 0.0, 0, 0
        codes = GAME_CODES
        for r in pl.rounds:
            opp = r.opponent
            if opp is not None:
                s = codes.get(r.code)
                if s is not None:
                    opps.append(opp)
                    score += s
                    if s == 1.0:
                        wins += 1
                    elif s == 0.0:
                        losses += 1
        m = len(opps)
        self.opps, self.score, self.m, self.wins, self.losses = opps, score, m, wins, losses
        self.opp_get = itemgetter(*opps) if m > 1 else None


def played_games(section: Section) -> dict:
    """pair -> :class:`Played`, for every player of ``section``."""
    return {pl.pair: Played(pl) for pl in section.players}


class Entrant:
    """What steps 1-5 know of one player in one system: the games (opponent
    pairs and scores), R0, N, N', the formula, and for the standard formula K
    and bonus eligibility (neither depends on the opponents' ratings; rating a
    section without a trace, eligibility is asked only where the bonus term
    would be positive, and is None where it was not); after the last step,
    what the standard formula gave there (E and the bonus)."""

    __slots__ = ("pl", "rec", "opps", "score", "m", "wins", "losses", "r0", "n", "n_eff",
                 "special", "all_wins", "all_losses", "k", "eligible", "reads", "wording",
                 "expected", "bonus", "opp_get")

    def __init__(self, pl: Player, rec: Optional[SystemRecord], reads: bool = True,
                 played: Optional[Played] = None):
        g = Played(pl) if played is None else played
        self.pl, self.rec = pl, rec
        self.opps, self.score, self.m, self.wins, self.losses = g.opps, g.score, g.m, g.wins, g.losses
        self.opp_get = g.opp_get  # the opponents' ratings in one call (steps 4 and 5)
        if rec is None:
            self.all_wins = self.all_losses = False
        else:
            self.all_wins, self.all_losses = rec.all_wins, rec.all_losses  # bools (SystemRecord)
        self.k = self.eligible = self.expected = self.bonus = None
        if reads:
            self.reads, self.wording = Reads(), set()
        else:
            self.reads, self.wording = NO_READS, _DROPPED

    @property
    def draws(self) -> int:
        return self.m - self.wins - self.losses


@dataclass
class Steps:
    """What steps 1-5 computed for one unit in one system: each player's
    :class:`Entrant`, step-1 initial ratings, step-3, step-4 and step-5
    results (already at least the absolute floor; ``step5`` is the step-4
    result for a kind that stops at step 4), and what steps 4 and 5 did
    (``details4`` only with ``trace``)."""

    entrants: dict
    initial: dict
    step3: dict
    step4: dict
    step5: dict
    details4: dict
    details5: dict
    kind: SectionKind = STANDARD


def five_steps(section: Section, system: str, rules, tc: Optional[TimeControl], *,
               kind: SectionKind = STANDARD, trace: bool = True,
               records: Optional[dict] = None, held: frozenset = frozenset(),
               played: Optional[dict] = None) -> Steps:
    """Steps 1-5 of sec. 1 for ``section`` in ``system``.  ``records``: each player's pre-event record by pair (default: the
    player's own ``ratings[system]``).  ``held``: pairs (each with a rating)
    whose rating the unit does not move (a match player held at the pre-event
    rating, :mod:`uschess.rating.match`): their step-4 and step-5 results are
    their pre-event ratings, which their opponents meet in both steps."""
    floor100 = rules.p.absolute_floor
    nstar = rules.p.nstar
    ns = (nstar["a"], nstar["b"], nstar["center"], nstar["flat_above"], nstar["cap"])
    games = (played or {}).get  # None: each Entrant reads its player's games
    if records is None:  # each player's own record
        entrants = {pl.pair: Entrant(pl, pl.ratings.get(system), trace, games(pl.pair))
                    for pl in section.players}
    else:
        entrants = {pl.pair: Entrant(pl, records.get(pl.pair), trace, games(pl.pair))
                    for pl in section.players}
    playing = {pair: e for pair, e in entrants.items() if e.m}
    # every player who appears as an opponent plays a rated game (validated pairings)

    # Step 1: initial ratings for unrated players who play a rated game.
    initial: dict[int, Initial] = {}
    for pair, e in playing.items():
        if e.rec is not None:
            e.r0, e.n = e.rec.rating, e.rec.games
            continue
        call = e.reads.calls(rules.call)
        try:
            init = call.uschess_initial_rating(player=e.pl, system=system, end=section.end,
                                               p=e.reads.params(rules.p), hook=call)
        except InputError as err:
            raise err.located(player=e.pl.label)
        if init is None:
            raise RuleError(f"no initialization rule for {system} is in force on "
                            f"{rules.on.isoformat()}", player=e.pl.label)
        initial[pair] = init
        e.r0, e.n = init.rating, init.games

    # Step 2: effective games; and what does not change between steps 4 and 5.
    # The rules' values and hooks are looked up once for the unit; with
    # ``trace`` each player's reads go through views that note what it read.
    p_unit, call_unit = rules.p, rules.call
    rated_in = rated_systems(section, system, rules, tc)  # the K exception asks if dual-rated
    standard_only, with_bonus = kind.standard_only, kind.bonus
    half_k = special_max = k_of = None  # read when first needed, as each player reads them
    k_factor, bonus_eligible = call_unit.uschess_k_factor, call_unit.uschess_bonus_eligible
    # Untraced, a section's bonus eligibility is asked in steps 4 and 5, only
    # where the bonus term would be positive (``_step``): nothing else reads it
    # (an update from a foreign FIDE event reports it: asked here)
    lazy_bonus = kind is STANDARD
    if trace:
        for e in playing.values():
            p, call = e.reads.params(p_unit), e.reads.calls(call_unit)
            e.reads.names.add("nstar")
            e.special = not standard_only and (
                e.n <= p.special_max_games or e.all_wins or e.all_losses)
            e.n_eff = min(float(e.n), n_star(e.r0, *ns))  # N' = min(N, N*), sec. 3
            if e.special:
                continue
            otbr = e.pl.ratings.get("OTBR")
            otbr = otbr.rating if otbr is not None else None
            e.k = call.uschess_k_factor(r0=e.r0, n_eff=e.n_eff, m=e.m, system=system, tc=tc,
                                        half_k=section.half_k or (
                                            section.online and bool(p.online_half_k)),
                                        otbr=otbr, systems=rated_in, p=p)
            if not with_bonus:
                e.eligible = False
                continue
            counts = opponent_counts(e.opps)
            # The eligibility wordings differ only for m = 3 or a repeated
            # opponent: elsewhere the rating does not depend on which is in force.
            target = e.reads.names if (e.m == 3 or len(counts) < e.m) else e.wording
            e.eligible = bool(call_unit.uschess_bonus_eligible(
                m=e.m, opponent_counts=counts, p=_ReadParams(p_unit, target)))
            target.add("bonus")
    else:  # the same, the values and hooks bound once for the unit
        a, b, center, flat_above, cap = ns
        for e in playing.values():
            if standard_only:
                special = False
            else:
                if special_max is None:
                    special_max = p_unit.special_max_games
                special = e.n <= special_max or e.all_wins or e.all_losses
            e.special = special
            n_eff, most = float(e.n), n_star(e.r0, a, b, center, flat_above, cap)
            e.n_eff = n_eff = most if most < n_eff else n_eff  # min(N, N*), sec. 3
            if special:
                continue
            otbr = e.pl.ratings.get("OTBR")
            otbr = otbr.rating if otbr is not None else None
            if half_k is None:
                half_k = section.half_k or (section.online and bool(p_unit.online_half_k))
                k_of = prepared(k_factor, system=system, tc=tc, half_k=half_k, systems=rated_in,
                                p=p_unit)
            m = e.m
            if k_of is not None:
                e.k = k_of(e.r0, n_eff, m, otbr)
            else:
                e.k = k_factor(r0=e.r0, n_eff=n_eff, m=m, system=system, tc=tc, half_k=half_k,
                               otbr=otbr, systems=rated_in, p=p_unit)
            if not with_bonus:
                e.eligible = False
            elif not lazy_bonus:
                e.eligible = bool(bonus_eligible(m=m, opponent_counts=opponent_counts(e.opps),
                                                 p=p_unit))

    # Step 3: first estimate for unrated players with N = 0 (N' = 1).
    step3: dict[int, float] = {}
    for pair, init in initial.items():
        if init.games == 0:
            e = playing[pair]
            value = e.reads.calls(call_unit).uschess_special_rating(
                r0=e.r0, n_eff=p_unit.step3_n_eff, opponents=[playing[o].r0 for o in e.opps],
                score=e.score, wins=e.wins, losses=e.losses, all_wins=False, all_losses=False,
                n=0, p=e.reads.params(p_unit), trace=None)
            e.reads.names.add("step3_n_eff")
            step3[pair] = max(value, floor100)

    # Step 4: opponents at pre-event, step-1 (N > 0) or step-3 (N = 0) ratings.
    seed = ({pair: step3.get(pair, e.r0) for pair, e in playing.items()} if step3 else
            {pair: e.r0 for pair, e in playing.items()})
    last4 = kind.last_step == 4
    if trace:
        step4, details4 = _traced_step(playing, seed, rules, floor100, last4)
    else:
        step4, details4 = _step(playing, seed, p_unit, call_unit, floor100), {}
    if held:
        _hold(held, playing, step4, details4)
    if last4:
        return Steps(entrants, initial, step3, step4, dict(step4), details4, dict(details4), kind)

    # Step 5: again, with every opponent at its step-4 result.
    if trace:
        step5, details5 = _traced_step(playing, step4, rules, floor100, True)
    else:
        step5, details5 = _step(playing, step4, p_unit, call_unit, floor100), {}
    if held:
        _hold(held, playing, step5, details5)
    return Steps(entrants, initial, step3, step4, step5, details4, details5, kind)


def _hold(held: frozenset, playing: dict, results: dict, details: dict) -> None:
    """A step's results with each held player at the pre-event rating (see
    :func:`five_steps`); with a trace, what the step did for them says so."""
    for pair in held:
        e = playing.get(pair)
        if e is None:
            continue
        results[pair] = e.r0
        if pair in details:
            details[pair] = dict(details[pair], formula="held", held=e.r0)


def opponent_counts(opps: list) -> dict:
    """Each opponent's number of games (what bonus eligibility asks, sec. 4.2)."""
    counts = dict.fromkeys(opps, 1)
    if len(counts) == len(opps):  # no opponent twice: the usual case, counted in C
        return counts
    counts = {}
    for o in opps:
        counts[o] = counts.get(o, 0) + 1
    return counts


def _step(playing: dict, opp_rating: dict, p, call, floor100) -> dict:
    """Step 4 or 5 without a trace: every player's rating (at least the
    absolute floor), the opponents at ``opp_rating``; a standard-formula
    player keeps E and the bonus (``Entrant.expected``, ``.bonus``).

    Bonus eligibility not asked yet (``Entrant.eligible`` None) is asked only
    where the bonus term is positive: elsewhere the standard formula gives the
    same rating, E and bonus (0.0) whatever the answer, and the player's
    eligibility stays None (not asked)."""
    special = call.uschess_special_rating
    b = m_prime_min = None  # read when first needed, as each player reads them
    out: dict[int, float] = {}
    for pair, e in playing.items():
        get = e.opp_get
        opps = get(opp_rating) if get is not None else [opp_rating[o] for o in e.opps]
        if e.special:
            value = special(r0=e.r0, n_eff=e.n_eff, opponents=opps, score=e.score, wins=e.wins,
                            losses=e.losses, all_wins=e.all_wins, all_losses=e.all_losses, n=e.n,
                            p=p, trace=None)
        else:
            if b is None:
                b, m_prime_min = p.bonus_multiplier, p.bonus_m_prime_min
            eligible = e.eligible
            value, e.expected, bonus = standard_rating(e.r0, e.k, opps, e.score,
                                                       eligible is not False, b, m_prime_min)
            if bonus and eligible is None:  # is the player eligible for what it gives?
                if not _bonus_eligible(e, call, p):
                    value, e.expected, bonus = standard_rating(e.r0, e.k, opps, e.score, False,
                                                               b, m_prime_min)
            e.bonus = bonus
        out[pair] = floor100 if floor100 > value else value  # max(value, floor100)
    return out


def _bonus_eligible(e: Entrant, call, p) -> bool:
    """Ask the rules whether ``e`` is eligible for the bonus (sec. 4.2), and
    keep the answer (``e.eligible``)."""
    e.eligible = eligible = bool(call.uschess_bonus_eligible(
        m=e.m, opponent_counts=opponent_counts(e.opps), p=p))
    return eligible


def _traced_step(playing: dict, opp_rating: dict, rules, floor100, trace: bool):
    """Step 4 or 5 with what each player's rating did (:func:`rate_one`);
    ``trace``: with the special formula's knot walk."""
    out: dict[int, float] = {}
    details: dict[int, dict] = {}
    for pair, e in playing.items():
        value, info = rate_one(e, [opp_rating[o] for o in e.opps], rules, trace=trace)
        out[pair] = floor100 if floor100 > value else value  # max(value, floor100)
        details[pair] = info
    return out, details


def declared_or_classified(section: Section, rules, tc: TimeControl) -> list[str]:
    """The systems a section is rated in: its declared ``systems`` (honoured),
    else those its time control is rated in on the rules' date (000 footnote
    1); empty when neither gives one."""
    if section.systems:
        return list(section.systems)
    return list(rules.call.uschess_classify(tc=tc, online=section.online, p=rules.p) or [])


def rated_systems(section: Section, system: str, rules, tc: Optional[TimeControl]) -> tuple:
    """The systems the unit is actually rated in (what the K exception asks,
    sec. 4.2): the section's, or ``system`` alone for a unit without a time
    control (an update from a foreign FIDE event)."""
    if tc is None:
        return (system,)
    return tuple(declared_or_classified(section, rules, tc)) or (system,)


def rate_one(e: Entrant, opps: list, rules, trace: bool, details: bool = True):
    """Step 4 or 5 for one player: the special or the standard formula.
    Returns (rating, what was done); without ``details`` only the rating."""
    p = e.reads.params(rules.p)
    if e.special:
        call = e.reads.calls(rules.call)
        st = SpecialTrace() if trace else None
        value = call.uschess_special_rating(
            r0=e.r0, n_eff=e.n_eff, opponents=opps, score=e.score, wins=e.wins, losses=e.losses,
            all_wins=e.all_wins, all_losses=e.all_losses, n=e.n, p=p, trace=st)
        if not details:
            return value, None
        info: dict = {"opponents": opps, "score": e.score, "m": e.m, "formula": "special",
                      "all_wins": e.all_wins, "all_losses": e.all_losses}
        if st is not None:
            info["special"] = st.as_dict()
        return value, info
    value, expected, bonus = standard_rating(e.r0, e.k, opps, e.score, bonus_eligible=e.eligible,
                                             b=p.bonus_multiplier,
                                             m_prime_min=p.bonus_m_prime_min)
    e.expected, e.bonus = expected, bonus
    if not details:
        return value, None
    return value, {"opponents": opps, "score": e.score, "m": e.m, "formula": "standard",
                   "k": e.k, "expected": expected, "bonus": bonus,
                   "bonus_eligible": e.eligible}


__all__ = ["SectionKind", "STANDARD", "MATCH", "FIDE_UPDATE", "Reads", "Entrant", "Steps",
           "five_steps", "opponent_counts", "declared_or_classified", "rated_systems", "rate_one"]
