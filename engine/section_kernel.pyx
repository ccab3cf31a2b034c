# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The optional compiled kernel of a section rated without a trace.

:func:`rate_section` is :func:`uschess.rating.section.rate_section` for a
section of the standard kind rated without a trace (a replay, a comparison,
an evaluation): steps 1-5 of :func:`uschess.rating.steps.five_steps` and
the finish step of :class:`uschess.rating.finish.FinishStep`,
with each player's games, counts and ratings held in C arrays instead of an
``Entrant`` per player and a dict per step.  Those modules are the
reference: this one does the same operations in the same order, asks the
rules' hooks it asks the same questions with the same arguments (the
initialization and the special formula stay the plugins' own;
``KnotWalk``'s formula is asked directly, as its hook asks it), and gives
the same results, the very objects where the reference passes one
through (an absolute floor, a special rating the plugin returned, N* at
its cap).  Where the standard formula runs it runs on doubles
(``standard_formula.pxi``, shared with ``formulas_kernel.pyx``).
Four slots are done here where the rules resolved them to a built-in
plugin's own hook, with the values the rules give: K of a ``_K`` plugin
outside the time controls of its dual-rating exception (within them the
hook answers; the systems it asks about are read only then), bonus
eligibility of ``Bonus002``, ``Bonus2017`` and ``Bonus2020``, storage of
``StoreFloat`` and ``StoreInteger``, and the floors of a ``_Floors``
plugin (its ``_decide``, without the hook's ``Floor``); any other plugin
in those slots (a rule pack's, a reform's) is asked as before.
``tests/engine/test_section_kernel.py`` checks the two
give equal results, field by field and bit for bit, across every era.

It declines (returns None, and the reference rates the section) where one
of the values it computes on is not a plain number (a float or an int): a
rule pack, a reform or a plugin giving N*'s values, the absolute floor, the
bonus's values, K or a pre-event or initial rating as something else.
Built only on request with the formulas' kernel (``USCHESS_KERNEL=1 pip
install ...``, see ``setup.py``); ``USCHESS_PURE=1`` turns it off.
"""

from cpython.bytes cimport PyBytes_AS_STRING, PyBytes_FromStringAndSize
from libc.math cimport ceil as c_ceil, floor as c_floor, pow, sqrt
from libc.stdlib cimport calloc, free, malloc

include "standard_formula.pxi"
include "section_last.pxi"

from uschess.io.eventfile import MAX_RATING
from uschess.model import GAME_CODES, SystemRecord
from uschess.rating.finish import (below_floor_warnings, lowered_floor_for,
                                   settle_record, unknown_history_warnings, unrated)
from uschess.rating.results import PlayerResult, SectionResult
from uschess.rating.steps import initial_rating, opponent_counts, rated_systems
from uschess.rules.base import EventCounts, Floor
from uschess.rules.floors import StoreFloat, StoreInteger, _decide, _Floors
from uschess import formulas
from uschess.rules.formulas import Bonus002, Bonus2017, Bonus2020, KnotWalk, _K

cdef frozenset _NOTHING = frozenset()


cdef inline bint _plain(x):
    """A plain number: a float or an int (not a bool), as the doubles here
    take it without changing a result."""
    return type(x) is float or type(x) is int


cdef class _Arrays:
    """The C arrays of one section's players, freed with it."""

    cdef int* m
    cdef int* wins
    cdef int* losses
    cdef int* start         # each player's first opponent in ``opp``
    cdef int* opp           # the opponents' indexes, player after player
    cdef double* score
    cdef double* r0
    cdef double* k
    cdef double* prev       # the ratings the opponents are met at
    cdef double* cur
    cdef char* special
    cdef char* eligible     # -1 not asked yet, 0 no, 1 yes
    cdef Py_ssize_t n

    def __cinit__(self, Py_ssize_t n, Py_ssize_t games):
        self.n = n
        self.m = <int*>malloc((n + 1) * sizeof(int))
        self.wins = <int*>malloc((n + 1) * sizeof(int))
        self.losses = <int*>malloc((n + 1) * sizeof(int))
        self.start = <int*>malloc((n + 1) * sizeof(int))
        self.opp = <int*>malloc((games + 1) * sizeof(int))
        self.score = <double*>malloc((n + 1) * sizeof(double))
        self.r0 = <double*>malloc((n + 1) * sizeof(double))
        self.k = <double*>malloc((n + 1) * sizeof(double))
        self.prev = <double*>malloc((n + 1) * sizeof(double))
        self.cur = <double*>malloc((n + 1) * sizeof(double))
        self.special = <char*>malloc(n + 1)
        self.eligible = <char*>malloc(n + 1)
        if (self.m == NULL or self.wins == NULL or self.losses == NULL or self.start == NULL
                or self.opp == NULL or self.score == NULL or self.r0 == NULL or self.k == NULL
                or self.prev == NULL or self.cur == NULL or self.special == NULL
                or self.eligible == NULL):
            raise MemoryError()

    def __dealloc__(self):
        free(self.m)
        free(self.wins)
        free(self.losses)
        free(self.start)
        free(self.opp)
        free(self.score)
        free(self.r0)
        free(self.k)
        free(self.prev)
        free(self.cur)
        free(self.special)
        free(self.eligible)


cdef list _step(_Arrays a, list players, list r0s, list n_effs, list ns, list alls,
                list expected, list bonuses, list prev, p, call, floor100, double floor_d,
                list bonus_values, dict memo, _Games g, int slot):
    """Step 4 or 5 (``steps._step``): every player's rating at least the
    absolute floor, the opponents at ``prev`` (objects; ``a.prev`` their
    doubles); the doubles of the results into ``a.cur``.  ``bonus_values``:
    [B, m'_min] as doubles, read at the first player of the standard
    formula (as the reference reads them).  ``memo`` (or None): a player's
    bonus eligibility, which depends only on their games, once asked; and
    ``g``'s special ratings, asked once for the same inputs, and what each
    player's step ``slot`` (1: step 4, 2: step 5) gave at the last rating
    (``g.last``)."""
    cdef Py_ssize_t i, j, m, s, at
    cdef _Last last = g.last
    cdef double nan = float("nan")
    cdef double value_d, e_d, bonus_d
    cdef double on_stack[STACK]
    cdef double* opp
    cdef list out = [None] * a.n
    special = call.uschess_special_rating
    walk = None  # KnotWalk's own hook: its formula, asked directly (read at the first use)
    knot = getattr(special, "__func__", None) is KnotWalk.uschess_special_rating
    for i in range(a.n):
        m = a.m[i]
        if m == 0:
            continue
        s = a.start[i]
        if last is not None:  # the same inputs as at the last rating?
            at = slot * a.n + i
            if a.special[i]:
                _inputs(last, a, i, 4.0, a.r0[i], <double>n_effs[i], <double>ns[i], a.prev)
            else:
                _inputs(last, a, i, nan, a.r0[i], a.k[i], <double>a.eligible[i], a.prev)
            if _same_inputs(last, a, slot, i):
                out[i] = last.obj[at]
                a.cur[i] = last.cur[at]
                a.eligible[i] = last.eligible[at]
                continue
        if a.special[i]:
            value = key = None
            if g.special is not None:  # asked before with the same inputs?
                key = _step45_key(a, i, r0s[i], n_effs[i], ns[i])
                value = _special_kept(g, i, key)
            if value is None:
                if m > 1:
                    opps = tuple([prev[a.opp[s + j]] for j in range(m)])
                else:
                    opps = [prev[a.opp[s]]]
                all_w, all_l = alls[i]
                if knot:
                    if walk is None:
                        walk = (formulas.special_rating, p.special_eps, p.special_cap,
                                p.special_start, p.special_p_inclusive)
                    value = walk[0](r0s[i], n_effs[i], opps, a.score[i], all_wins=all_w,
                                    all_losses=all_l, eps=walk[1], cap=walk[2], start=walk[3],
                                    p_inclusive=walk[4], trace=None)
                else:
                    value = special(r0=r0s[i], n_eff=n_effs[i], opponents=opps,
                                    score=a.score[i], wins=a.wins[i], losses=a.losses[i],
                                    all_wins=all_w, all_losses=all_l, n=ns[i], p=p, trace=None)
                if not _plain(value):  # met as an opponent's rating on doubles next
                    raise _Decline()
                if key is not None:
                    _keep(g, <dict>g.special[i], key, value)
            if floor100 > value:
                out[i] = floor100
                a.cur[i] = floor_d
            else:
                out[i] = value
                a.cur[i] = value
            if last is not None:
                _remember(last, a, slot, i, out[i], a.cur[i], a.eligible[i])
            continue
        if not bonus_values:
            b, m_prime_min = p.bonus_multiplier, p.bonus_m_prime_min
            if not (_plain(b) and _plain(m_prime_min)):
                raise _Decline()
            bonus_values.extend((<double>b, <double>m_prime_min))
        if m > STACK:
            opp = <double*>malloc(m * sizeof(double))
            if opp == NULL:
                raise MemoryError()
        else:
            opp = on_stack
        try:
            for j in range(m):
                opp[j] = a.prev[a.opp[s + j]]
            value_d = _standard(a.r0[i], a.k[i], opp, m, a.score[i], a.eligible[i] != 0,
                                bonus_values[0], bonus_values[1], &e_d, &bonus_d)
            if bonus_d and a.eligible[i] == -1:  # is the player eligible for what it gives?
                a.eligible[i] = _eligible(a, players, i, p, call, memo)
                if not a.eligible[i]:
                    value_d = _standard(a.r0[i], a.k[i], opp, m, a.score[i], False,
                                        bonus_values[0], bonus_values[1], &e_d, &bonus_d)
        finally:
            if opp != on_stack:
                free(opp)
        expected[i] = e_d
        bonuses[i] = bonus_d
        if floor_d > value_d:  # max(value, floor)
            out[i] = floor100
            a.cur[i] = floor_d
        else:
            out[i] = value_d
            a.cur[i] = value_d
        if last is not None:
            _remember(last, a, slot, i, out[i], a.cur[i], a.eligible[i])
    return out


cdef int _eligible(_Arrays a, list players, Py_ssize_t i, p, call, dict memo) except -1:
    """Whether player ``i`` is eligible for a bonus (the rules' hook), from
    ``memo`` where it was asked before.  Where the hook is a built-in
    plugin's own (``Bonus002``, ``Bonus2017``, ``Bonus2020``), what it
    asks of the opponents' counts is counted here and its test made on
    them (:func:`_built_in_eligible`)."""
    key = None
    if memo is not None:
        key = ("eligible", players[i].pair)
        known = memo.get(key)
        if known is not None:
            return known
    hook = call.uschess_bonus_eligible
    got = _built_in_eligible(a, i, getattr(hook, "__func__", None))
    if got == -1:
        got = 1 if hook(m=a.m[i], opponent_counts=opponent_counts(_opponent_pairs(a, players, i)),
                        p=p) else 0
    if key is not None:
        memo[key] = got
    return got


cdef int _built_in_eligible(_Arrays a, Py_ssize_t i, func):
    """Bonus eligibility of player ``i`` as the built-in plugin whose hook
    is ``func`` gives it (1 or 0), from the number of distinct opponents and
    the most games against one; -1 for any other hook."""
    cdef Py_ssize_t j, k, s = a.start[i], m = a.m[i], distinct = 0, most = 0, games
    cdef bint seen
    for j in range(m):
        seen = False
        for k in range(j):
            if a.opp[s + k] == a.opp[s + j]:
                seen = True
                break
        if seen:
            continue
        distinct += 1
        games = 1
        for k in range(j + 1, m):
            if a.opp[s + k] == a.opp[s + j]:
                games += 1
        if games > most:
            most = games
    if func is Bonus2020.uschess_bonus_eligible:
        return 1 if (m > 3 and most <= 2) or (m == 3 and most <= 1) else 0
    if func is Bonus2017.uschess_bonus_eligible:
        return 1 if m >= 3 and most <= 2 else 0
    if func is Bonus002.uschess_bonus_eligible:
        return 1 if distinct >= 3 and most <= 2 else 0
    return -1


cdef list _opponent_pairs(_Arrays a, list players, Py_ssize_t i):
    """The pairs of player ``i``'s opponents in round order (``Played.opps``)."""
    cdef Py_ssize_t j, s = a.start[i]
    return [players[a.opp[s + j]].pair for j in range(a.m[i])]


cdef class _FinishInputs:
    """What the finish step reads for every player of a section.  Where the
    rules' storage is :class:`StoreFloat` or :class:`StoreInteger`, or their
    floors a :class:`_Floors` plugin's own hook, this module does what the
    hook does without calling it (``store_kind``, ``personal``): the same
    values from the same operations."""

    cdef object system, p, personal_floor, store_rating, end
    cdef object event_games, established, olm
    cdef int store_kind     # 0: the hook; 1: the value as it is (StoreFloat); 2: StoreInteger's
    cdef object personal    # None: the hook; else whether the personal floor is in force

    def __cinit__(self, system, p, call, end):
        self.system, self.p, self.end = system, p, end
        self.personal_floor = call.uschess_personal_floor
        self.store_rating = call.uschess_store_rating
        self.event_games = p.event_rated_games
        self.established = p.established_games
        self.olm = p.olm
        store = getattr(self.store_rating, "__func__", None)
        self.store_kind = (1 if store is StoreFloat.uschess_store_rating else
                           2 if store is StoreInteger.uschess_store_rating else 0)
        self.personal = None
        floors = getattr(self.personal_floor, "__self__", None)
        if (isinstance(floors, _Floors) and getattr(self.personal_floor, "__func__", None)
                is _Floors.uschess_personal_floor):
            self.personal = bool(floors.personal and system in p.personal_floor_systems)


cdef object _store(_FinishInputs f, pre, value):
    """The rating as stored (the rules' ``uschess_store_rating``)."""
    cdef double v, before
    if f.store_kind == 1:
        return value
    if f.store_kind == 2 and _plain(value) and (pre is None or _plain(pre)):
        v = value
        if pre is None:
            return c_floor(v + 0.5)
        before = pre
        if v == before:
            return c_floor(v + 0.5)
        return c_ceil(v) if v > before else c_floor(v)
    return f.store_rating(pre=pre, value=value, p=f.p)


cdef object _record_after(_FinishInputs f, rec, int m, int wins, int draws, int losses, value,
                          three, n_initial):
    """:func:`uschess.rating.finish.record_after` of a player with ``m``
    rated games (``three``: 1 when they count in N_R, else 0; ``n_initial``:
    step 1's N of a player new to the system): the same record, field by
    field, from the same operations on the same values."""
    est = f.established
    olm = f.olm
    if rec is None:  # new to the system: every win, draw and loss is this event's
        games = n_initial + m
        peak = value if games > est else None
        above = 0
        after = SystemRecord(value, games, wins, draws, losses, three, peak, False, None, f.end, 0)
    else:
        before = rec.games
        games = before + m
        was_established = before > est
        peak = rec.peak
        if was_established and (peak is None or rec.rating > peak):
            peak = rec.rating
        if games > est and (peak is None or value > peak):
            peak = value
        g2200 = rec.games_above_2200
        if g2200 is not None and was_established and rec.rating > olm["above"]:
            g2200 += m
        w, d, l, e3 = rec.wins, rec.draws, rec.losses, rec.events3
        after = SystemRecord(
            value, games, None if w is None else w + wins, None if d is None else d + draws,
            None if l is None else l + losses, None if e3 is None else e3 + three,
            peak, rec.olm, rec.prize_floor, f.end, g2200)
        above = g2200
    if above is not None and above >= olm["games"]:
        after.olm = True
    return after


cdef tuple _finish(_FinishInputs f, _Arrays a, Py_ssize_t i, pl, rec, value, n_initial):
    """The finish step (FinishStep) of player ``i`` with rated games, rated
    ``value`` by step 5: (post, record after, floor, its reason, whether it
    held the rating, the floor's value where an unknown history could
    raise it (else None), the counts it does not know)."""
    cdef int m = a.m[i], wins = a.wins[i], losses = a.losses[i]
    cdef int draws = m - wins - losses
    p = f.p
    pre = rec.rating if rec is not None else None
    # the peak is the rating as stored (FinishStep)
    attained = _store(f, pre, value)
    three = 1 if m >= f.event_games else 0
    after = _record_after(f, rec, m, wins, draws, losses, attained, three, n_initial)
    if f.personal is not None:  # the plugin's own hook: what it returns, without the Floor
        # the event's counts are read only for a count the record does not know
        event = (EventCounts(wins, draws, losses, three) if after.wins is None
                 or after.draws is None or after.events3 is None else None)
        sec5, sec5_reason, could_be, unknown = _decide(f.system, after, event, p, f.personal)
    else:
        event = EventCounts(wins, draws, losses, three)
        fl = f.personal_floor(system=f.system, after=after, event=event, p=p)
        sec5, sec5_reason, could_be, unknown = fl.value, fl.reason, fl.could_be, fl.unknown
    reason = sec5_reason
    if rec is None:
        floor_ = sec5
    else:
        if rec.lowered_floor is not None:
            floor_, reason, lowered, lowered_from = lowered_floor_for(rec, sec5, sec5_reason)
            if lowered is not None:
                after.lowered_floor, after.lowered_from = lowered, lowered_from
        else:
            floor_ = sec5
    if value < floor_:
        post, floor_applied = float(floor_), True
    else:
        post, floor_applied = value, False
    post = _store(f, pre, post)
    if post > MAX_RATING:
        settle_record(after, post, p, pl)
    after.rating = post
    if after.games > f.established:
        peak = after.peak
        after.peak = post if peak is None or post > peak else peak
    return post, after, floor_, reason, floor_applied, sec5, could_be, unknown


class _Decline(Exception):
    """A value this module does not compute on: the reference rates the section."""


def rate_section(section, system, rules, tc, pre_from=None):
    """:func:`uschess.rating.section.rate_section` of ``section`` in
    ``system`` without a trace (the standard kind, each player's own
    records); None where it declines (see the module)."""
    try:
        return _rate(section, system, rules, tc, pre_from, None)
    except _Decline:
        return None


#: A memo of :func:`section_posts` past this many entries starts again.
MEMO_MOST = 200_000


def section_posts(section, system, rules, tc, dict memo, tuple given=None):
    """:func:`uschess.rating.section.section_posts`: pair -> the rating a
    crosstable prints after the event (the post, or the pre-event rating of
    a player without a rated game), or None where it declines.  ``memo``
    holds the section's games and records read once (:class:`_Games`) and
    what a player's K, special rating, bonus eligibility and finish gave
    for the values they depend on that change between ratings of one
    section (the initial rating and N, the opponents' ratings, the step-5
    value), so that a section rated again and again with a few initial
    ratings moved computes those only for the players they reach.  One memo
    serves one section (its games and records unchanged), system, time
    control, rules' values and hooks but step 1's (the caller keeps them
    fixed); the results are those of :func:`rate_section`, bit for bit.
    ``given``: (pair -> initial rating, pair -> N) where the rules' step 1
    answers the pairs listed with those values (N 0 where not listed) and
    the others as before (``uschess.apps.audit.section_model._Call``):
    taken here without asking the hook."""
    if len(memo) > MEMO_MOST:
        memo.clear()
    try:
        return _rate(section, system, rules, tc, None, memo, given)
    except _Decline:
        return None


cdef class _Games:
    """A section's rated games and records in one system, read once
    (``steps.Played`` as arrays): each player's opponents, score, m, wins
    and losses in ``a`` (whose other arrays each rating fills), the pairs'
    indexes, the records and their all-wins and all-losses flags.  With a
    memo of :func:`section_posts` they are kept there for the section's next
    ratings, with what those reuse: each player's answers of the special
    formula by its inputs (``special``), the K of a player with a record
    (``rated_k``), whose inputs do not change between them, and each
    player's posts by a step-5 value of type float, for one N
    (``posts``: (N, {value: post}))."""

    cdef object section, system
    cdef _Arrays a
    cdef dict index
    cdef list recs, alls, special, rated_k, posts
    cdef _Last last         # what each player's steps gave at the last rating
    cdef Py_ssize_t games, answers
    cdef bint orphan        # an opponent without a rated game of its own


cdef _Games _read_games(section, system):
    cdef list players = section.players
    cdef Py_ssize_t n = len(players), i, games = 0, t
    cdef double score, s_d
    cdef int m, wins, losses
    cdef _Games g = _Games()
    g.section, g.system = section, system
    cdef dict codes = GAME_CODES  # read as a dict, not through its methods
    cdef dict index = {}
    for i in range(n):
        pl = players[i]
        index[pl.pair] = i
        games += len(pl.rounds)  # room for every round: the rated games are counted below
    cdef _Arrays a = _Arrays(n, games)
    cdef list recs = [None] * n
    cdef list alls = [None] * n
    t = 0
    for i in range(n):
        pl = players[i]
        a.start[i] = t
        score, wins, losses, m = 0.0, 0, 0, 0
        for r in pl.rounds:
            opp = r.opponent
            if opp is not None:
                s = codes.get(r.code)
                if s is not None:
                    a.opp[t] = index[opp]
                    t += 1
                    m += 1
                    s_d = s
                    score += s_d
                    if s_d == 1.0:
                        wins += 1
                    elif s_d == 0.0:
                        losses += 1
        a.m[i], a.wins[i], a.losses[i], a.score[i] = m, wins, losses, score
        rec = pl.ratings.get(system)
        recs[i] = rec
        alls[i] = (False, False) if rec is None else (rec.all_wins, rec.all_losses)
    games = t
    g.a, g.index, g.recs, g.alls, g.games = a, index, recs, alls, games
    g.special, g.rated_k, g.posts, g.answers, g.last = None, None, None, 0, None
    # An opponent without a rated game of its own (a game listed on one side
    # only, which the readers refuse): the reference meets it with a KeyError.
    g.orphan = False
    for t in range(games):
        if not a.m[a.opp[t]]:
            g.orphan = True
    return g


#: The key of a section's :class:`_Games` in a memo of :func:`section_posts`.
_GAMES_KEY = ("games",)


cdef _Games _games(section, system, dict memo):
    """The section's :class:`_Games`: read again, or kept in ``memo``."""
    cdef _Games g
    if memo is None:
        return _read_games(section, system)
    g = memo.get(_GAMES_KEY)
    if g is None or g.section is not section or g.system != system:
        g = memo[_GAMES_KEY] = _read_games(section, system)
        n = len(section.players)
        g.special = [{} for _ in range(n)]
        g.rated_k = [None] * n
        g.posts = [None] * n
        g.last = _new_last(g.a, g.games)
    return g


cdef object _special_key(double tag, r0, n_eff, n, Py_ssize_t m):
    """The inputs of a special-formula call that change between a section's
    ratings, as bytes: ``tag`` (the step), R0, N', N, then room for the
    opponents' ratings (the caller's), each as the double the formula
    computes on (the rest, the player's score and counts and the rules, is
    the section's)."""
    key = PyBytes_FromStringAndSize(NULL, (m + 4) * sizeof(double))
    cdef double* d = <double*>PyBytes_AS_STRING(key)
    d[0], d[1], d[2], d[3] = tag, <double>r0, <double>n_eff, <double>n
    return key


cdef object _step45_key(_Arrays a, Py_ssize_t i, r0, n_eff, n):
    """The key of player ``i``'s special rating in step 4 or 5: the
    opponents at ``a.prev``."""
    cdef Py_ssize_t j, m = a.m[i], s = a.start[i]
    key = _special_key(4.0, r0, n_eff, n, m)
    cdef double* d = <double*>PyBytes_AS_STRING(key)
    for j in range(m):
        d[4 + j] = a.prev[a.opp[s + j]]
    return key


cdef object _step3_key(_Arrays a, Py_ssize_t i, r0, n_eff):
    """The key of unrated player ``i``'s step-3 estimate (N = 0, no
    all-wins or all-losses history): the opponents at their step-1 ratings."""
    cdef Py_ssize_t j, m = a.m[i], s = a.start[i]
    key = _special_key(3.0, r0, n_eff, 0, m)
    cdef double* d = <double*>PyBytes_AS_STRING(key)
    for j in range(m):
        d[4 + j] = a.r0[a.opp[s + j]]
    return key


cdef object _special_kept(_Games g, Py_ssize_t i, key):
    """Player ``i``'s special rating for ``key`` kept from an earlier rating, or None."""
    return (<dict>g.special[i]).get(key)


cdef int _keep(_Games g, dict kept, key, value) except -1:
    """Keep ``value`` for ``key`` in ``kept``, one of ``g``'s dicts of a
    player's answers (at most :data:`MEMO_MOST` answers in all: then every
    player's start again)."""
    cdef Py_ssize_t j
    if g.answers >= MEMO_MOST:
        for j in range(len(g.special)):
            (<dict>g.special[j]).clear()
            g.posts[j] = None
        g.answers = 0
    kept[key] = value
    g.answers += 1
    return 0


def memo_size(dict memo):
    """How many answers a memo of :func:`section_posts` keeps: its own
    entries (its section's :class:`_Games` among them) and what the
    section's players' answers hold (special ratings, K, posts)."""
    cdef _Games g = memo.get(_GAMES_KEY)
    if g is None:
        return len(memo)
    return len(memo) + g.answers + sum(1 for k in g.rated_k if k is not None)


cdef inline double _plain_r0(r0) except? -1.0:
    """A pre-event or initial rating as a double; it declines another value."""
    if not _plain(r0):
        raise _Decline()
    return r0


cdef _rate(section, system, rules, tc, pre_from, dict memo, tuple given=None):
    cdef list players = section.players
    cdef Py_ssize_t n = len(players), i, j, t
    cdef double floor_d, a_d, b_d, center_d, flat_d, cap_d, most_d, r0_d
    cdef int m
    p, call = rules.p, rules.call
    floor100 = p.absolute_floor
    nstar = p.nstar
    a_o, b_o, center_o, flat_o, cap_o = (nstar["a"], nstar["b"], nstar["center"],
                                         nstar["flat_above"], nstar["cap"])
    if not (_plain(floor100) and _plain(a_o) and _plain(b_o) and _plain(center_o)
            and _plain(flat_o) and _plain(cap_o)):
        return None
    floor_d, a_d, b_d, center_d, flat_d, cap_d = floor100, a_o, b_o, center_o, flat_o, cap_o

    # Each player's rated games (steps.Played): opponents, score, m, wins, losses.
    cdef _Games g = _games(section, system, memo)
    if g.orphan:
        return None
    cdef _Arrays a = g.a
    cdef dict index = g.index
    cdef list recs = g.recs
    cdef list alls = g.alls

    # Step 1: initial ratings for unrated players who play a rated game.
    cdef list r0s = [None] * n
    cdef list ns = [None] * n
    cdef list inits = [None] * n
    cdef list new_players = []  # the unrated players who play, in order
    cdef dict given_values = None, given_games = None
    if given is not None:
        given_values, given_games = given
    end = section.end
    for i in range(n):
        if not a.m[i]:
            continue
        rec = recs[i]
        if rec is not None:
            r0s[i], ns[i] = rec.rating, rec.games
            a.r0[i] = _plain_r0(r0s[i])
            continue
        pl = players[i]
        new_players.append(i)
        value = None
        if given_values is not None and not (pl.initial and pl.initial.get(system) is not None):
            value = given_values.get(pl.pair)
        if value is not None:  # step 1's answer, as the hook gives it (initial_rating)
            r0s[i], ns[i] = value, given_games.get(pl.pair, 0)
        else:
            init = initial_rating(pl, system, end, rules, call, p)
            inits[i] = init
            r0s[i], ns[i] = init.rating, init.games
        a.r0[i] = _plain_r0(r0s[i])

    # Step 2: effective games, the formula, K (bonus eligibility asked only
    # where the bonus term would be positive, in steps 4 and 5).
    rated_in = None  # the systems the section is rated in, read for the first K asked
    k_factor = call.uschess_k_factor
    # K of a _K plugin's own hook outside the dual-rating exception's time
    # controls: 800/(N' + m), or 400/(N' + m/2) in a half-K event, as its
    # _plain_k computes it (on doubles: the same operations on the same values)
    cdef bint k_here = False, halved = False
    cdef double k_num_d = 0.0, k_d
    if getattr(k_factor, "__func__", None) is _K.uschess_k_factor:
        kd = p.k_dual
        k_num = p.k_numerator
        k_here = _plain(k_num) and not (tc is not None and kd["time_from"] <= tc.total
                                        <= kd["time_to"])
        if k_here:
            k_num_d = k_num
    special_max = half_k = None
    cdef list n_effs = [None] * n
    cdef list ks = [None] * n
    cdef _Last last = g.last  # None without a memo
    for i in range(n):
        if not a.m[i]:
            continue
        if (last is not None and last.s2_valid[i] and last.s2_ns[i] is ns[i]
                and _same_double(last.s2_r0[i], a.r0[i])
                and last.s2_r0_int[i] == (type(r0s[i]) is int)):  # as at the last rating
            a.special[i] = last.s2_special[i]
            a.eligible[i] = -1
            n_effs[i] = last.s2_n_eff[i]
            if not a.special[i]:
                ks[i] = last.s2_k_obj[i]
                a.k[i] = last.s2_k[i]
            continue
        if special_max is None:
            special_max = p.special_max_games
        all_w, all_l = alls[i]
        special = ns[i] <= special_max or all_w or all_l
        a.special[i] = 1 if special else 0
        a.eligible[i] = -1
        r0_d = a.r0[i]
        n_float = float(ns[i])
        if r0_d > flat_d:  # N* (formulas.n_star); pow() is the C library's, as ** is
            # (setup.py turns the compiler's own off: it made pow(x, 2.0) into x * x)
            most = cap_o
            most_d = cap_d
        else:
            most_d = cap_d / sqrt(a_d + b_d * pow(center_d - r0_d, 2.0))
            most = most_d
        n_effs[i] = n_eff = most if most_d < <double>n_float else n_float  # min(N, N*), sec. 3
        if special:
            continue
        if half_k is None:
            half_k = section.half_k or (section.online and bool(p.online_half_k))
            halved = bool(half_k)
        if k_here:
            if halved:
                k_d = (k_num_d / 2.0) / (<double>n_eff + a.m[i] / 2.0)
            else:
                k_d = k_num_d / (<double>n_eff + a.m[i])
            ks[i] = k_d
            a.k[i] = k_d
            continue
        pl = players[i]
        key = None
        if memo is not None:  # K of a player, for the initial rating and N step 1 gave
            if recs[i] is not None:  # the record's, the same objects as the last time
                kept = g.rated_k[i]
                if kept is not None and kept[0] is r0s[i] and kept[1] is ns[i]:
                    ks[i] = k = kept[2]
                    a.k[i] = k
                    continue
            else:
                key = ("K", pl.pair, r0s[i], type(r0s[i]), ns[i])
                k = memo.get(key)
                if k is not None:
                    ks[i] = k
                    a.k[i] = k
                    continue
        otbr = pl.ratings.get("OTBR")
        otbr = otbr.rating if otbr is not None else None
        if rated_in is None:
            rated_in = rated_systems(section, system, rules, tc)
        k = k_factor(r0=r0s[i], n_eff=n_eff, m=a.m[i], system=system, tc=tc,
                     half_k=half_k, otbr=otbr, systems=rated_in, p=p)
        if not _plain(k):
            raise _Decline()
        if key is not None:
            memo[key] = k
        elif memo is not None:
            g.rated_k[i] = (r0s[i], ns[i], k)
        ks[i] = k
        a.k[i] = k
    if last is not None:  # step 2's answers, met again at the next rating
        for i in range(n):
            if not a.m[i]:
                continue
            last.s2_valid[i] = 1
            last.s2_r0[i] = a.r0[i]
            last.s2_r0_int[i] = type(r0s[i]) is int
            last.s2_ns[i] = ns[i]
            last.s2_special[i] = a.special[i]
            last.s2_n_eff[i] = n_effs[i]
            if not a.special[i]:
                last.s2_k_obj[i] = ks[i]
                last.s2_k[i] = a.k[i]

    # Step 3: a first estimate for unrated players with N = 0 (N' = 1).
    step3 = {}
    cdef list seed = list(r0s)
    for i in range(n):
        a.prev[i] = a.r0[i]
    for i in new_players:
        if ns[i] == 0:
            pair = players[i].pair
            t = a.start[i]
            if last is not None:  # the same inputs as at the last rating?
                _inputs(last, a, i, 3.0, a.r0[i], <double>p.step3_n_eff, 0.0, a.r0)
                if _same_inputs(last, a, 0, i):
                    step3[pair] = seed[i] = last.obj[i]
                    a.prev[i] = last.cur[i]
                    continue
            value = key = None
            if g.special is not None:  # asked before with the same inputs?
                key = _step3_key(a, i, r0s[i], p.step3_n_eff)
                value = _special_kept(g, i, key)
            if value is None:
                value = call.uschess_special_rating(
                    r0=r0s[i], n_eff=p.step3_n_eff,
                    opponents=[r0s[a.opp[t + j]] for j in range(a.m[i])],
                    score=a.score[i], wins=a.wins[i], losses=a.losses[i], all_wins=False,
                    all_losses=False, n=0, p=p, trace=None)
                if not _plain(value):
                    raise _Decline()
                if key is not None:
                    _keep(g, <dict>g.special[i], key, value)
            step3[pair] = value = max(value, floor100)
            seed[i] = value
            a.prev[i] = value
            if last is not None:
                _remember(last, a, 0, i, value, a.prev[i], 0)

    # Step 4: opponents at pre-event, step-1 or step-3 ratings; step 5: at
    # their step-4 results.
    cdef list expected = [None] * n
    cdef list bonuses = [None] * n
    cdef list bonus_values = []
    cdef list step4 = _step(a, players, r0s, n_effs, ns, alls, expected, bonuses, seed, p,
                            call, floor100, floor_d, bonus_values, memo, g, 1)
    a.prev, a.cur = a.cur, a.prev
    cdef list step5 = _step(a, players, r0s, n_effs, ns, alls, expected, bonuses, step4, p,
                            call, floor100, floor_d, bonus_values, memo, g, 2)

    # The finish step (FinishStep), every player in the section's order.
    f = _FinishInputs(system, p, call, end)
    if memo is not None:  # the posts alone, each player's for a step-5 value once
        posts = {}
        for i in range(n):
            pl = players[i]
            rec = recs[i]
            if not a.m[i]:
                posts[pl.pair] = rec.rating if rec is not None else None
                continue
            value = step5[i]
            if type(value) is float:  # by the value, among those for the player's N
                if (last is not None and last.post_valid[i] and last.post_ns[i] is ns[i]
                        and _same_double(last.post_value[i], value)):  # as at the last rating
                    posts[pl.pair] = last.post[i]
                    continue
                kept = g.posts[i]
                if kept is None or kept[0] is not ns[i]:
                    kept = g.posts[i] = (ns[i], {})
                post = (<dict>kept[1]).get(value)
                if post is None:
                    post = _finish(f, a, i, pl, rec, value, ns[i])[0]
                    _keep(g, kept[1], value, post)
                if last is not None:
                    last.post_valid[i] = 1
                    last.post_ns[i] = ns[i]
                    last.post_value[i] = value
                    last.post[i] = post
            else:
                key = ("post", pl.pair, value, type(value), ns[i])
                post = memo.get(key)
                if post is None:
                    post = memo[key] = _finish(f, a, i, pl, rec, value, ns[i])[0]
            posts[pl.pair] = post
        return posts
    pre_from = pre_from or {}
    cdef list out = []
    for i in range(n):
        pl = players[i]
        pair = pl.pair
        rec = recs[i]
        m = a.m[i]
        if not m:
            out.append(unrated(pl, system, rec, pre_from.get(pair)))
            continue
        value = step5[i]
        post, after, floor, reason, floor_applied, sec5, could_be, unknown = _finish(
            f, a, i, pl, rec, value, ns[i])
        pre = rec.rating if rec is not None else None
        if could_be is None or value >= could_be:  # unknown_history_warnings' own test
            warnings = []
        else:
            warnings = unknown_history_warnings(Floor(sec5, "", could_be, unknown), value, system)
        if floor_applied and pre is not None and pre < floor:
            warnings = warnings + below_floor_warnings(pre, floor, reason)
        # positional, in the order of PlayerResult's fields (trace and
        # pre_from left to their defaults)
        res = PlayerResult(
            pair, pl.id, pl.name, system, pre, rec.games if rec else 0, m, a.score[i], post,
            after.games, "special" if a.special[i] else "standard", inits[i], n_effs[i],
            step3.get(pair), step4[i], value, ks[i], bonuses[i], expected[i], floor, reason,
            floor_applied, after, _NOTHING, warnings)
        if pre_from:
            res.pre_from = pre_from.get(pair)
        out.append(res)
    return SectionResult(section, system, rules, tc, out)
