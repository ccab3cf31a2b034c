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
from uschess.rules.base import Initial
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

    def params_into(self, p, names: set) -> "_ReadParams":
        """``p`` read through a view noting into ``names`` (another set than
        the player's own: the bonus eligibility's wording, see
        :func:`five_steps`)."""
        return _ReadParams(p, names)


class _NoReads(Reads):
    """Reading without noting (no trace: bulk rating, where no one reads
    per-player warnings): the views are the objects themselves and what is
    noted is dropped."""

    __slots__ = ()

    def __init__(self):
        pass

    @property
    def names(self) -> set:
        return _DROPPED

    def params(self, p):
        return p

    def calls(self, call):
        return call

    def params_into(self, p, names):
        return p


class _Dropped(set):
    """A set that keeps nothing: the names a player's rating read, where no
    one reads them (no trace)."""

    __slots__ = ()

    def add(self, name) -> None:
        pass


_DROPPED = _Dropped()
NO_READS = _NoReads()


class Recorder:
    """What a traced rating keeps beside the ratings, passed through the one
    body of steps 1-5 (:func:`five_steps`) and the finish step
    (:class:`uschess.rating.finish.FinishStep`): the rules each player's
    rating read (:class:`Reads`), the special formula's knot walk of the
    last step (:class:`~uschess.formulas.SpecialTrace`), and what steps 4
    and 5 did for each player (the ``details`` shown by ``--explain`` and
    ``--json``).  :data:`NO_TRACE` keeps nothing: the same lines run, and
    each of these calls returns at once."""

    on = True

    def reads(self) -> Reads:
        """A player's reads: noted."""
        return Reads()

    def wording(self) -> set:
        """Where the bonus eligibility's reads are noted when the wording in
        force cannot change the rating (see :func:`five_steps`)."""
        return set()

    def walk(self) -> Optional[SpecialTrace]:
        """The knot walk of the special formula (sec. 3.2) for the last step."""
        return SpecialTrace()

    def step(self, details: dict, e: "Entrant", opps, walk: Optional[SpecialTrace]) -> None:
        """What step 4 or 5 did for player ``e`` (its formula's inputs and
        outputs), into ``details`` by pair."""
        if e.special:
            info: dict = {"opponents": opps, "score": e.score, "m": e.m, "formula": "special",
                          "all_wins": e.all_wins, "all_losses": e.all_losses}
            if walk is not None:
                info["special"] = walk.as_dict()
        else:
            info = {"opponents": opps, "score": e.score, "m": e.m, "formula": "standard",
                    "k": e.k, "expected": e.expected, "bonus": e.bonus,
                    "bonus_eligible": e.eligible}
        details[e.pl.pair] = info

    def held(self, details: dict, pair: int, rating: float) -> None:
        """A held match player's step (:func:`five_steps`' ``held``)."""
        if pair in details:
            details[pair] = dict(details[pair], formula="held", held=rating)


class _NoTrace(Recorder):
    """The recorder that keeps nothing (bulk rating: replay, compare,
    evaluate, the audit's searches)."""

    on = False

    def reads(self) -> Reads:
        return NO_READS

    def wording(self) -> set:
        return _DROPPED

    def walk(self) -> None:
        return None

    def step(self, details, e, opps, walk) -> None:
        pass

    def held(self, details, pair, rating) -> None:
        pass


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


TRACE = Recorder()
NO_TRACE = _NoTrace()


def recorder(trace: bool) -> Recorder:
    """The recorder for a rating with or without a trace."""
    return TRACE if trace else NO_TRACE


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


class Entrant(Played):
    """What steps 1-5 know of one player in one system: the games (opponent
    pairs and scores, as :class:`Played`), R0, N, N', the formula, and for
    the standard formula K and bonus eligibility (neither depends on the
    opponents' ratings); after the last step, what the standard formula gave
    there (E and the bonus).  ``reads`` and ``wording`` are the recorder's
    (:class:`Recorder`)."""

    __slots__ = ("pl", "rec", "r0", "n", "n_eff", "special", "all_wins", "all_losses", "k",
                 "eligible", "reads", "wording", "expected", "bonus")

    def __init__(self, pl: Player, rec: Optional[SystemRecord], recorder: Recorder = TRACE,
                 played: Optional[Played] = None):
        if played is None:  # the games read here, into this entrant
            Played.__init__(self, pl)
        else:
            g = played
            self.opps, self.score, self.m, self.wins, self.losses = (g.opps, g.score, g.m,
                                                                     g.wins, g.losses)
            self.opp_get = g.opp_get  # the opponents' ratings in one call (steps 4 and 5)
        self.pl, self.rec = pl, rec
        if rec is None:
            self.all_wins = self.all_losses = False
        else:
            self.all_wins, self.all_losses = rec.all_wins, rec.all_losses  # bools (SystemRecord)
        self.k = self.eligible = self.expected = self.bonus = None
        if recorder.on:
            self.reads, self.wording = recorder.reads(), recorder.wording()
        else:  # what NO_TRACE gives, without the calls
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
    (``details4`` and ``details5``: empty without a trace)."""

    entrants: dict
    initial: dict
    step3: dict
    step4: dict
    step5: dict
    details4: dict
    details5: dict
    kind: SectionKind = STANDARD
    recorder: Recorder = TRACE


#: How step 1 names an initial rating the source states (a TD crosstable's
#: ``1300/00``, the ``Initial R: 1246/05`` line of this project's MSA export).
STATED_HOW = "as the crosstable states it"


def initial_rating(pl: Player, system: str, end, rules, call, p) -> Initial:
    """Step 1 (sec. 2) for ``pl``, unrated in ``system``: the initial rating
    and N the source states (``Player.initial``), else the rules' own."""
    stated = pl.initial.get(system) if pl.initial else None
    if stated is not None:
        return Initial(stated.rating, stated.games, STATED_HOW)
    try:
        init = call.uschess_initial_rating(player=pl, system=system, end=end, p=p, hook=call)
    except InputError as err:
        raise err.located(player=pl.label)
    if init is None:
        raise RuleError(f"no initialization rule for {system} is in force on "
                        f"{rules.on.isoformat()}", player=pl.label)
    return init


def five_steps(section: Section, system: str, rules, tc: Optional[TimeControl], *,
               kind: SectionKind = STANDARD, trace: bool = True,
               records: Optional[dict] = None, held: frozenset = frozenset(),
               played: Optional[dict] = None) -> Steps:
    """Steps 1-5 of sec. 1 for ``section`` in ``system``.

    ``trace``: keep what each player's rating read and what steps 4 and 5
    did (the :class:`Recorder`; without it the same lines run and keep
    nothing).  ``records``: each player's pre-event record by pair (default:
    the player's own ``ratings[system]``).  ``held``: pairs (each with a
    rating) whose rating the unit does not move (a match player held at the
    pre-event rating, :mod:`uschess.rating.match`): their step-4 and step-5
    results are their pre-event ratings, which their opponents meet in both
    steps.  ``played``: the players' games read once (:func:`played_games`)."""
    rec = recorder(trace)
    games = (played or {}).get  # None: each Entrant reads its player's games
    if records is None:  # each player's own record
        entrants = {pl.pair: Entrant(pl, pl.ratings.get(system), rec, games(pl.pair))
                    for pl in section.players}
    else:
        entrants = {pl.pair: Entrant(pl, records.get(pl.pair), rec, games(pl.pair))
                    for pl in section.players}
    # every player who appears as an opponent plays a rated game (validated pairings)
    playing = {pair: e for pair, e in entrants.items() if e.m}
    initial = _step1(playing, section, system, rules)
    _step2(playing, section, system, rules, tc, kind, rec.on)
    step3 = _step3(playing, initial, rules)

    # Step 4: opponents at pre-event, step-1 (N > 0) or step-3 (N = 0) ratings.
    seed = ({pair: step3.get(pair, e.r0) for pair, e in playing.items()} if step3 else
            {pair: e.r0 for pair, e in playing.items()})
    last4 = kind.last_step == 4
    step4, details4 = _step(playing, seed, rules, rec, walk=last4)
    if held:
        _hold(held, playing, step4, details4, rec)
    if last4:
        return Steps(entrants, initial, step3, step4, dict(step4), details4, dict(details4), kind,
                     rec)

    # Step 5: again, with every opponent at its step-4 result.
    step5, details5 = _step(playing, step4, rules, rec, walk=True)
    if held:
        _hold(held, playing, step5, details5, rec)
    return Steps(entrants, initial, step3, step4, step5, details4, details5, kind, rec)


def _step1(playing: dict, section: Section, system: str, rules) -> dict:
    """Step 1 (sec. 2): R0 and N of every player who plays a rated game; an
    initial rating for each one unrated in ``system``, by pair."""
    initial: dict[int, Initial] = {}
    for pair, e in playing.items():
        if e.rec is not None:
            e.r0, e.n = e.rec.rating, e.rec.games
            continue
        call = e.reads.calls(rules.call)
        init = initial_rating(e.pl, system, section.end, rules, call, e.reads.params(rules.p))
        initial[pair] = init
        e.r0, e.n = init.rating, init.games
    return initial


def _step2(playing: dict, section: Section, system: str, rules, tc: Optional[TimeControl],
           kind: SectionKind, traced: bool = True) -> None:
    """Step 2 (sec. 3): N' = min(N, N*) and the formula of each player
    (special for N <= ``special_max_games`` or an all-wins or all-losses
    record, sec. 3.2); for the standard formula, what does not change
    between steps 4 and 5: K (sec. 4.2) and bonus eligibility.  Untraced
    (``traced`` false) the rules are read directly, with nothing noted."""
    p_unit, call_unit = rules.p, rules.call
    nstar = p_unit.nstar
    ns = (nstar["a"], nstar["b"], nstar["center"], nstar["flat_above"], nstar["cap"])
    rated_in = rated_systems(section, system, rules, tc)  # the K exception asks if dual-rated
    standard_only, with_bonus = kind.standard_only, kind.bonus
    for e in playing.values():
        reads = e.reads
        if traced:
            p, call = reads.params(p_unit), reads.calls(call_unit)
            reads.names.add("nstar")
        else:
            p, call = p_unit, call_unit
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
        if traced:
            target = reads.names if (e.m == 3 or len(counts) < e.m) else e.wording
            target.add("bonus")
            bonus_p = reads.params_into(p_unit, target)
        else:
            bonus_p = p_unit
        e.eligible = bool(call_unit.uschess_bonus_eligible(m=e.m, opponent_counts=counts,
                                                           p=bonus_p))


def _step3(playing: dict, initial: dict, rules) -> dict:
    """Step 3 (sec. 1): a first estimate for each unrated player with N = 0,
    the special formula with N' = ``step3_n_eff`` against the opponents'
    step-1 ratings, at least the absolute floor; by pair."""
    step3: dict[int, float] = {}
    floor100 = rules.p.absolute_floor
    for pair, init in initial.items():
        if init.games == 0:
            e = playing[pair]
            p = e.reads.params(rules.p)
            value = e.reads.calls(rules.call).uschess_special_rating(
                r0=e.r0, n_eff=p.step3_n_eff, opponents=[playing[o].r0 for o in e.opps],
                score=e.score, wins=e.wins, losses=e.losses, all_wins=False, all_losses=False,
                n=0, p=p, trace=None)
            step3[pair] = max(value, floor100)
    return step3


def _hold(held: frozenset, playing: dict, results: dict, details: dict, rec: Recorder) -> None:
    """A step's results with each held player at the pre-event rating (see
    :func:`five_steps`); the recorder notes it in what the step did."""
    for pair in held:
        e = playing.get(pair)
        if e is None:
            continue
        results[pair] = e.r0
        rec.held(details, pair, e.r0)


def opponent_counts(opps: list) -> dict:
    """Each opponent's number of games (what bonus eligibility asks, sec. 4.2)."""
    counts = dict.fromkeys(opps, 1)
    if len(counts) == len(opps):  # no opponent twice: the usual case, counted in C
        return counts
    counts = {}
    for o in opps:
        counts[o] = counts.get(o, 0) + 1
    return counts


def _step(playing: dict, opp_rating: dict, rules, rec: Recorder, walk: bool):
    """Step 4 or 5 (sec. 1): every player's rating by the special (sec. 3.2)
    or the standard formula (sec. 4.2), the opponents at ``opp_rating``, at
    least the absolute floor; a standard-formula player keeps E and the bonus
    (``Entrant.expected``, ``.bonus``).  Returns (ratings, details) by pair;
    the recorder fills the details (and, with ``walk``, the special
    formula's knot walk)."""
    p_unit, call_unit = rules.p, rules.call
    floor100 = p_unit.absolute_floor
    out: dict[int, float] = {}
    details: dict[int, dict] = {}
    traced = rec.on  # untraced: the rules read directly, nothing kept
    for pair, e in playing.items():
        get = e.opp_get
        opps = list(get(opp_rating)) if get is not None else [opp_rating[o] for o in e.opps]
        p = e.reads.params(p_unit) if traced else p_unit
        if e.special:
            st = rec.walk() if walk and traced else None
            value = (e.reads.calls(call_unit) if traced else call_unit).uschess_special_rating(
                r0=e.r0, n_eff=e.n_eff, opponents=opps, score=e.score, wins=e.wins,
                losses=e.losses, all_wins=e.all_wins, all_losses=e.all_losses, n=e.n, p=p,
                trace=st)
        else:
            st = None
            value, e.expected, e.bonus = standard_rating(   # (bonus_eligible, b, m_prime_min)
                e.r0, e.k, opps, e.score, e.eligible, p.bonus_multiplier, p.bonus_m_prime_min)
        if traced:
            rec.step(details, e, opps, st)
        out[pair] = floor100 if floor100 > value else value  # max(value, floor100)
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


__all__ = ["SectionKind", "STANDARD", "MATCH", "FIDE_UPDATE", "Reads", "Entrant", "Steps",
           "Recorder", "TRACE", "NO_TRACE", "recorder", "five_steps", "played_games",
           "opponent_counts", "declared_or_classified", "rated_systems"]
