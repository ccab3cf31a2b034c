"""Initial ratings the page cannot show, solved jointly and player by player.

A page prints ``Unrated`` for a player's pre-event rating, never the initial
rating step 1 gave them (sec. 2: age, ratings in other systems, FIDE, CFC)
nor, unless the post is printed ``P<n>``, its weight N.  Which published
values pin each unknown down follows from steps 3-5 of sec. 1:

* with N > 0 the player is rated by the special formula with R0' = the
  initial rating weighted by N' = min(N, N*) (sec. 3-4.1): their own post
  moves with it;
* with N = 0 their own post hardly depends on it (it enters only their own
  step-3 estimate, weighted N' = 1 against m games), but it is the opponent
  rating of every unrated opponent's step-3 estimate, which seeds step 4 of
  those opponents' opponents, whose step-4 results are everyone's opponents
  in step 5: the published posts around the player pin it, each with a
  small weight.

So the solver works on the published posts of the whole section:

1. *Starts.*  The values given (the rules' own initial ratings, or a named
   variant's such as an adult's 1300), one value for all the unknowns (the
   best of the age-based range), and each unknown at its own published post
   (an initial rating and the post estimate the same strength).
2. *The joint solve from each start* (:func:`joint_solve`), best start
   first: Levenberg-Marquardt on the whole vector of initial ratings, the
   residuals the published minus the computed posts of every published
   player of the section and system, robust (Huber weights, iteratively
   reweighted).  The Jacobian is measured by forward differences (the
   value moved by :data:`DIFF`, or :data:`DIFF_WHOLE` where the rules store
   whole ratings; one rating of the section per unknown, or per group of
   unknowns too far apart in the game graph to move a common post:
   :func:`forward_slopes`), kept up to date
   by sparse Broyden (Schubert) updates for a few accepted steps, then
   measured again; each step solves the damped normal equations
   (J^T W J + lambda diag) d = -J^T W r by Cholesky in pure Python and is
   accepted only when the misfit of the real posts (the section rated with
   the moved values) falls.  The Huber threshold is then lowered
   (:data:`THRESHOLDS`), each solve starting where the last ended: a
   least-squares fit first, then ever closer to counting the posts
   reproduced.  All the starts share one budget (:data:`JOINT_WORK`
   Jacobians' worth of ratings).  A player-by-player descent stops where
   moving any one value alone makes the misfit worse; the joint step moves
   the coupled values together (an unrated player's value and those of the
   unrated opponents whose estimates it seeds).
3. *Descent from a start* (:func:`_descend`).  The sensitivity of every
   published post to every unknown is measured (the value moved by
   :data:`PROBE`); then Gauss-Seidel over the section: in a fixed order
   (pairing number), each unknown in turn takes the value minimising the
   robust (Huber) squared misfit of the posts that depend on it, a
   one-dimensional problem solved exactly on the linearised posts, until no
   value moves by more than :data:`SETTLE` (at most :data:`SWEEPS` sweeps).
   The section is rated with the values found; the move is shortened until
   the misfit falls (a line search); a few solves reuse one measurement,
   then the sensitivities are measured again (at most :data:`ROUNDS` times).
   From the best start while posts stay missed; then the other starts and
   starts scattered around the best values so far (the posts are not convex
   in the values: all-win and all-loss results, opponents coming within 400
   points), within a work budget per section (:data:`WORK`).
4. *One-dimensional searches on the real posts* for each unknown that a
   missed post depends on: a coarse look over the whole range, then finer
   steps, in pairing order, sweeps repeated while a value changes.

Each stage stops as soon as every published post is reproduced.
The answer is the best rating seen: the most published posts reproduced,
then the least misfit.  Every value stays within the rules' range of
ratings (the absolute floor to the special formula's cap, both from the
rules in force); an unknown that no published value depends on keeps the
value given.  Every loop is bounded; the same page gives the same values.

Only the section and system concerned are rated, with the rules resolved
once (:class:`SectionModel`).
"""

from __future__ import annotations

import dataclasses
import math
import random
from dataclasses import dataclass, field
from operator import mul
from typing import Callable, Optional

from uschess.errors import InputError
from uschess.rating.results import SectionResult
from uschess.rating.section import rate_section
from uschess.rating.steps import played_games
from uschess.rules.base import Initial

#: The move of an initial rating used to measure the posts' sensitivity to it.
PROBE = 50.0
#: A post moving less than this per point of an initial rating does not
#: depend on it.
MIN_SLOPE = 1e-4
#: Gauss-Seidel: sweeps at most, and the largest move (points) that still
#: counts as a change.
SWEEPS, SETTLE = 30, 0.05
#: Measure-and-solve rounds at most, and the largest move of a value in one
#: round (the posts are linear in the initial ratings only near the values
#: measured at).
ROUNDS, REACH = 16, 300.0
#: Solves from one measurement at most, and the fractions of a solve's move
#: tried in turn until the misfit falls.
CHORDS, LINE_SEARCH = 4, (1.0, 0.5, 0.25, 0.1)
#: The one-dimensional searches on the real posts: sweeps and ratings of the
#: section at most, and the smallest step (points).
POLISH_SWEEPS, POLISH_EVALS, SETTLE_POLISH = 4, 1500, 1.0
#: The step of the coarse look over the range of an initial rating.
GRID = 100.0
#: Residuals beyond this many points weigh less (Huber weights): a post held
#: by a floor, say, must not drag the values.
HUBER = 20.0
#: A misfit beyond this counts as this much when comparing two solutions.
CLIP = 50.0
#: Pull of each unknown towards the rules' own initial rating, in squared
#: points of post per squared point of initial rating: next to nothing, it
#: only keeps a value that the page barely pins from wandering.
PRIOR = 1e-6
#: Further starts after the given ones, each value moved at random by up to
#: HOP points from the best found so far (the posts are not convex in the
#: values).
HOPS, HOP = 6, 150.0
#: After the first start's solve, further work on a section is bounded by
#: this many ratings of one player (ratings of the section x its players):
#: a small section gets many starts, a 500-player one few.
WORK = 200_000
#: Sections with more unknowns than this are not solved player by player.
MAX_UNKNOWNS = 400
#: The joint solve's thresholds of the robust misfit in turn (points) and
#: the solves at each; its work over all the starts: at most this many
#: Jacobians' worth of ratings of the section.
THRESHOLDS, PASSES, JOINT_WORK = (HUBER, 5.0, 1.0), 2, 120

INFERRED_HOW = "inferred from the published posts"


@dataclass(frozen=True)
class Effort:
    """How much work one solve of a section may spend (see the constants
    above): the joint solve's Jacobians' worth of ratings, the later work in
    ratings of one player, the one-dimensional searches' ratings, and the
    scattered starts."""

    joint_work: int
    work: int
    polish_evals: int
    hops: int


#: A section solved for the first time.
FULL = Effort(JOINT_WORK, WORK, POLISH_EVALS, HOPS)
#: A section solved again from values that fitted it before, with one input
#: changed (a provisional player's history, :mod:`uschess.apps.audit.history_again`;
#: an unrated player's larger N, :mod:`uschess.apps.audit.initial_games`): a
#: tenth of the work, since it starts near a solution (no scattered starts).
AGAIN = Effort(JOINT_WORK // 10, WORK // 10, POLISH_EVALS // 10, 0)


@dataclass
class Unknown:
    """One initial rating the page does not show."""

    pair: int
    id: str
    #: what the rules give (or a named variant: an adult's rating)
    start: float
    #: N of the initial rating (from the page's P<n>, else the rules')
    games: int
    value: float = 0.0

    def __post_init__(self):
        if not self.value:
            self.value = self.start


#: How far an initial rating reaches in a section, in rated games: step 3
#: reads the initial ratings of a player's opponents, step 4 the step-3 (or
#: step-1) ratings of theirs, step 5 the step-4 results of theirs, and the
#: finish step a player's own step 5 alone (sec. 1, steps 3-5; sec. 5).  A
#: post beyond it does not move with that initial rating.
HOPS = 3

#: Special ratings a section model keeps (:class:`_SpecialMemo`) before it
#: starts again: a bound on its memory (a few hundred bytes an answer).
SPECIAL_MEMO = 1 << 16


class _SpecialMemo:
    """The rules' special formula (sec. 4.1) remembered by its inputs.

    A search rates one section again and again with one or a few initial
    ratings moved; most players' special-formula inputs (R0', N', the
    opponents' ratings, the score) are then the same as in an earlier
    rating, and the answer is too: the formula is a function of them and of
    the rules, which a section model keeps.  Untraced calls only; at most
    :data:`SPECIAL_MEMO` answers are kept."""

    def __init__(self, special):
        self._special, self._seen = special, {}

    def __call__(self, r0, n_eff, opponents, score, wins, losses, all_wins, all_losses, n, p,
                 trace):
        if trace is not None:
            return self._special(r0=r0, n_eff=n_eff, opponents=opponents, score=score, wins=wins,
                                 losses=losses, all_wins=all_wins, all_losses=all_losses, n=n,
                                 p=p, trace=trace)
        key = (r0, n_eff, tuple(opponents), score, wins, losses, all_wins, all_losses, n, id(p))
        seen = self._seen
        value = seen.get(key)
        if value is None:
            if len(seen) >= SPECIAL_MEMO:
                seen.clear()
            value = seen[key] = self._special(r0=r0, n_eff=n_eff, opponents=opponents,
                                              score=score, wins=wins, losses=losses,
                                              all_wins=all_wins, all_losses=all_losses, n=n, p=p,
                                              trace=None)
        return value


class _Call:
    """The rules' hooks, with step 1 answered from given values for the
    pairs listed (the others go to the rules) and the special formula from
    ``special`` where given (:class:`_SpecialMemo`)."""

    def __init__(self, call, system: str, values: dict, games: dict, special=None):
        self._call, self._system = call, system
        self._values, self._games = values, games
        if special is not None:
            self.uschess_special_rating = special

    def __getattr__(self, name):
        return getattr(self._call, name)

    def uschess_initial_rating(self, player, system, end, p, hook):
        value = self._values.get(player.pair) if system == self._system else None
        if value is None:
            return self._call.uschess_initial_rating(player=player, system=system, end=end,
                                                     p=p, hook=hook)
        return Initial(value, self._games.get(player.pair, 0), INFERRED_HOW)


class SectionModel:
    """One section in one system, rated again (steps 1-5 and the finish
    step, :func:`uschess.rating.section.rate_section`) with given initial
    ratings, the rules of ``rated`` reused.  ``fixed`` (pair -> initial
    rating): values held whatever a caller gives (a named variant of one
    player, the others solved around it)."""

    def __init__(self, rated: SectionResult, games: dict, fixed: Optional[dict] = None):
        self.rated, self.games = rated, dict(games)
        self.fixed = dict(fixed or {})
        self.evaluations = 0
        # the rules (and so their p) and the games are the rated section's throughout
        self._special = _SpecialMemo(rated.rules.call.uschess_special_rating)
        self._played = played_games(rated.section)
        self._reach: dict = {}
        # pair -> the pairs met in rated games, a game counted whichever side lists it
        self._met = {q: set(g.opps) for q, g in self._played.items()}
        for q, g in self._played.items():
            for o in g.opps:
                self._met.setdefault(o, set()).add(q)
        #: False once a grouped measurement moved a post beyond its members'
        #: reach (:func:`forward_slopes`): each unknown is then measured alone
        self.separable = True

    def reach(self, pair: int) -> frozenset:
        """The pairs whose posts the initial rating of ``pair`` can move:
        those within :data:`HOPS` rated games of it (its own included), a
        game counted whichever side lists it."""
        got = self._reach.get(pair)
        if got is None:
            seen, front = {pair}, {pair}
            for _ in range(HOPS):
                front = {o for q in front for o in self._met.get(q, ())} - seen
                seen |= front
            got = self._reach[pair] = frozenset(seen)
        return got

    def posts(self, values: dict, count: bool = True) -> Optional[dict]:
        """pair -> the rating a crosstable prints after the event (the post
        when the player played a rated game), with initial ratings
        ``values`` (pair -> rating, ``fixed`` over them); None when the
        section cannot be rated.  ``count``: the rating counts in
        ``evaluations`` (a caller that charged it already says False)."""
        sr = self.rated
        if self.fixed:
            values = {**values, **self.fixed}
        rules = dataclasses.replace(sr.rules, call=_Call(sr.rules.call, sr.system, values,
                                                         self.games, self._special))
        self.evaluations += count
        try:
            res = rate_section(sr.section, sr.system, rules, sr.time_control, trace=False,
                               played=self._played)
        except InputError:
            return None
        return {pr.pair: (pr.post if pr.m else pr.pre) for pr in res.players}


@dataclass
class Solution:
    """What :func:`solve_section` found."""

    values: dict  # pair -> initial rating
    posts: dict   # pair -> post with them
    reproduced: int
    #: pair -> the published posts (pairs) that depend on that unknown
    pinned_by: dict = field(default_factory=dict)
    evaluations: int = 0
    sweeps: int = 0


def _score(posts: Optional[dict], published: dict, tol: float) -> tuple:
    """(reproduced, -clipped misfit): larger is better."""
    if posts is None:
        return (-1, float("-inf"))
    n, misfit = 0, 0.0
    for pair, pub in published.items():
        v = posts.get(pair)
        if v is None:
            misfit += CLIP
            continue
        d = abs(v - pub)
        n += d <= tol + 1e-9
        misfit += min(d, CLIP)
    return (n, -misfit)


def forward_slopes(model: SectionModel, values: dict, pairs, base: dict, step: float,
                   low: float, high: float, min_slope: float = MIN_SLOPE,
                   stop: Optional[Callable[[], bool]] = None) -> dict:
    """pair -> {published pair: d post / d initial rating} for each of
    ``pairs`` (in order; ``values`` holds every unknown's value, ``base``
    the posts at them), by forward differences: the value moved by ``step``
    up, or down where up would leave ``low``..``high`` and down would not;
    slopes below ``min_slope`` dropped.  ``stop`` (asked before each pair)
    ends the measurement early, as a budget does.

    Unknowns whose reaches (:meth:`SectionModel.reach`) do not overlap are
    moved together in one rating of the section (Curtis, Powell and Reid's
    grouping of a sparse Jacobian's columns): a post within one member's
    reach moves as it would with that member moved alone, bit for bit, and
    every other post stays as in ``base``, which is checked (else each
    member is measured alone, and the model's ``separable`` turns False).
    Each unknown counts as one rating in ``model.evaluations`` all the same,
    so the budgets, and the answers, are those of measuring each alone."""
    todo = []
    for u in pairs:
        if stop is not None and stop():
            break
        todo.append(u)
        model.evaluations += 1
    moves = {}
    for u in todo:
        x = values[u]
        moves[u] = step if x + step <= high or x - step < low else -step
    out = {}
    for group in _groups(model, todo):
        moved = model.posts({**values, **{u: values[u] + moves[u] for u in group}}, count=False)
        if len(group) == 1:
            out[group[0]] = _column(moved, base, moves[group[0]], min_slope)
            continue
        near = frozenset().union(*map(model.reach, group))
        if moved is not None and all(v == base.get(j) for j, v in moved.items() if j not in near):
            for u in group:
                out[u] = _column(moved, base, moves[u], min_slope, model.reach(u))
            continue
        if moved is not None:  # a post beyond their reach moved: measure one at a time
            model.separable = False
        for u in group:
            alone = model.posts({**values, u: values[u] + moves[u]}, count=False)
            out[u] = _column(alone, base, moves[u], min_slope)
    return {u: out[u] for u in todo}


def _groups(model: SectionModel, pairs: list) -> list:
    """``pairs`` in groups of unknowns whose reaches do not overlap (each
    into the first group it fits, in order), or one group each once the
    model is known not to be separable."""
    if not model.separable:
        return [[u] for u in pairs]
    groups: list = []  # [members, the pairs their reaches cover]
    for u in pairs:
        r = model.reach(u)
        for g in groups:
            if g[1].isdisjoint(r):
                g[0].append(u)
                g[1] |= r
                break
        else:
            groups.append([[u], set(r)])
    return [g[0] for g in groups]


def _column(moved: Optional[dict], base: dict, h: float, min_slope: float,
            within: Optional[frozenset] = None) -> dict:
    """{pair: (moved - base) / h} over the posts of ``moved`` (those in
    ``within`` only, where given), slopes below ``min_slope`` dropped; {}
    when the section could not be rated."""
    col = {}
    if moved is not None:
        for pair, v in moved.items():
            if within is not None and pair not in within:
                continue
            b = base.get(pair)
            if v is None or b is None:
                continue
            slope = (v - b) / h
            if abs(slope) >= min_slope:
                col[pair] = slope
    return col


def _sensitivities(model: SectionModel, unknowns: list[Unknown], base: dict, low: float,
                   high: float) -> dict:
    """pair of each unknown -> {published pair: d post / d initial rating}."""
    return forward_slopes(model, {u.pair: u.value for u in unknowns}, [u.pair for u in unknowns],
                  base, PROBE, low, high)


def _sweeps(unknowns: list[Unknown], cols: dict, resid: dict, low: float,
            high: float, reach: float) -> int:
    """Gauss-Seidel on the linearised posts: each unknown in turn moved to
    the minimum of sum_j w_j r_j^2 + PRIOR (x - start)^2 over its own value
    (w_j: Huber weights of the current residuals), the residuals updated at
    once; until no value moves by more than SETTLE.  Returns the sweeps."""
    r = dict(resid)
    around = {u.pair: u.value for u in unknowns}
    for sweep in range(1, SWEEPS + 1):
        biggest = 0.0
        for u in unknowns:
            col = cols[u.pair]
            if not col:
                continue
            g = h = 0.0
            for j, a in col.items():
                rj = r[j]
                w = 1.0 if abs(rj) <= HUBER else HUBER / abs(rj)
                g += w * a * rj
                h += w * a * a
            g += PRIOR * (u.value - u.start)
            h += PRIOR
            x = u.value - g / h
            x = min(high, max(low, around[u.pair] - reach, min(around[u.pair] + reach, x)))
            d = x - u.value
            if d:
                for j, a in col.items():
                    r[j] += a * d
                u.value = x
            biggest = max(biggest, abs(d))
        if biggest <= SETTLE:
            return sweep
    return SWEEPS


def _polish(model: SectionModel, unknowns: list[Unknown], pinned: dict, published: dict,
            tol: float, low: float, high: float, best: tuple, best_posts: dict, limit: int,
            evals: int = POLISH_EVALS):
    """Where the linearised solves leave a published post missed: a
    one-dimensional search on the section's real posts for each unknown that
    post depends on, in pairing order, sweeps repeated while a value changes,
    within ``evals`` ratings: a coarse look over the whole range (GRID
    apart; the posts are not monotone in one value), then a pattern search
    (a step up or down kept when it reproduces more, or as many with less
    misfit; the step halved otherwise, from GRID / 2 down to
    SETTLE_POLISH)."""
    budget = min(limit, model.evaluations + evals)
    for _ in range(POLISH_SWEEPS):
        missed = {j for j, pub in published.items()
                  if best_posts.get(j) is None or abs(best_posts[j] - pub) > tol + 1e-9}
        todo = [u for u in unknowns if missed.intersection(pinned.get(u.pair, ()))]
        changed = False
        for u in todo:
            # a coarse look over the whole range first (the posts are not
            # monotone in one value: kinks where an opponent comes within
            # 400 points, all-win and all-loss results), then finer steps
            values = {v.pair: v.value for v in unknowns}
            x = low
            while x <= high and model.evaluations < budget:
                posts = model.posts({**values, u.pair: x})
                score = _score(posts, published, tol)
                if score > best:
                    best, best_posts, u.value = score, posts, x
                    changed = True
                x += GRID
            step = GRID / 2
            while step >= SETTLE_POLISH and model.evaluations < budget:
                moved = False
                for x in (u.value + step, u.value - step):
                    if not low <= x <= high:
                        continue
                    values = {v.pair: v.value for v in unknowns}
                    values[u.pair] = x
                    posts = model.posts(values)
                    score = _score(posts, published, tol)
                    if score > best:
                        best, best_posts, u.value = score, posts, x
                        moved = changed = True
                        break
                if not moved:
                    step /= 2
            if best[0] == len(published) or model.evaluations >= budget:
                return best, best_posts
        if not changed:
            break
    return best, best_posts


@dataclass
class _Best:
    """The best values seen (by reproduced, then misfit) and their posts."""

    score: tuple
    values: dict
    posts: dict

    def offer(self, score: tuple, values: dict, posts: dict) -> None:
        if score > self.score:
            self.score, self.values, self.posts = score, dict(values), posts


def _descend(model: SectionModel, unknowns: list[Unknown], start: dict, published: dict,
             tol: float, low: float, high: float, best: _Best,
             limit: Optional[int] = None) -> tuple[dict, int]:
    """Linearised solves from ``start`` (see the module text); the path
    follows the misfit (smooth in the values), every rating seen is offered
    to ``best``.  Returns the sensitivities last measured (pair -> published
    pairs) and the sweeps made."""
    for u in unknowns:
        u.value = start[u.pair]
    here_values = dict(start)
    here_posts = model.posts(here_values)
    if here_posts is None:
        return {}, 0
    here = _score(here_posts, published, tol)
    best.offer(here, here_values, here_posts)
    pinned: dict = {}
    sweeps = 0
    for _ in range(ROUNDS):
        if best.score[0] == len(published):
            break
        if limit is not None and model.evaluations + len(unknowns) + CHORDS > limit:
            break
        cols = _sensitivities(model, unknowns, here_posts, low, high)
        pinned = {p: sorted(c) for p, c in cols.items()}
        cols = {p: {j: a for j, a in c.items() if j in published} for p, c in cols.items()}
        improved = False
        for _ in range(CHORDS):
            # the sensitivities measured once serve several solves (a chord
            # method): each from the residuals of the last accepted values;
            # the move is shortened (a line search on the real posts) until
            # the misfit falls
            resid = {j: here_posts[j] - pub for j, pub in published.items()
                     if here_posts.get(j) is not None}
            sweeps += _sweeps(unknowns, cols, resid, low, high, REACH)
            target = {u.pair: u.value for u in unknowns}
            moved = False
            for t in LINE_SEARCH:
                values = {p: here_values[p] + t * (target[p] - here_values[p]) for p in target}
                posts = model.posts(values)
                score = _score(posts, published, tol)
                best.offer(score, values, posts)
                if score[1] > here[1]:
                    here, here_values, here_posts = score, values, posts
                    moved = improved = True
                    break
            for u in unknowns:
                u.value = here_values[u.pair]
            if not moved or best.score[0] == len(published):
                break
        if not improved:
            break
    return pinned, sweeps


# --- the joint solve -------------------------------------------------------

#: The joint solve's forward differences: the move of an initial rating
#: (points) whose effect on the posts measures a column of the Jacobian.
DIFF = 10.0
#: The step where the rules store whole ratings: the posts are then
#: staircases of one-point stairs, and a difference over a few points would
#: measure the stairs rather than the slope.
DIFF_WHOLE = 30.0
#: Levenberg-Marquardt: the first damping (relative to the diagonal of
#: J^T W J), its factors after an accepted and a refused step, the damping
#: beyond which the solve stops, and the steps tried at most.
DAMP, DAMP_DOWN, DAMP_UP, DAMP_MAX, LM_STEPS = 1e-3, 0.3, 4.0, 1e6, 60
#: An accepted step improving the robust misfit by less than this share ends
#: the solve.
LM_GAIN = 1e-4
#: Accepted steps on one measured (and updated) Jacobian before it is
#: measured again.
REFRESH = 3


def _huber(r: float, k: float) -> float:
    """Huber's loss of residual ``r`` (points) with threshold ``k``."""
    a = abs(r)
    return 0.5 * r * r if a <= k else k * a - 0.5 * k * k


def _residuals(posts: dict, rows: list, published: dict) -> list:
    """Computed minus published post per row (None where not computed)."""
    out = []
    for j in rows:
        v = posts.get(j)
        out.append(None if v is None else v - published[j])
    return out


def _objective(r: list, x: list, prior_at: list, k: float) -> float:
    """The robust misfit the joint solve minimises: Huber's loss of every
    residual plus the pull towards the values given (:data:`PRIOR`); a post
    not computed counts as a residual of :data:`CLIP`."""
    f = sum(_huber(CLIP if v is None else v, k) for v in r)
    return f + 0.5 * PRIOR * sum((a - b) ** 2 for a, b in zip(x, prior_at))


def _step(model: SectionModel) -> float:
    """The forward-difference step for ``model``'s section: :data:`DIFF`,
    or :data:`DIFF_WHOLE` when its rules store whole ratings (asked of the
    rules' storage hook, not of a date)."""
    rules = model.rated.rules
    stored = rules.call.uschess_store_rating(pre=1000.0, value=1000.25, p=rules.p)
    return DIFF if stored != round(stored) else DIFF_WHOLE


def _jacobian(model: SectionModel, pairs: list, x: list, rows: list, base: dict,
              high: float) -> list:
    """The sensitivity of each row's post to each unknown (:func:`slopes`,
    the value moved by :func:`_step` towards the inside of the range): a
    dense matrix of len(rows) x len(pairs), slopes below :data:`MIN_SLOPE`
    zero."""
    cols = forward_slopes(model, dict(zip(pairs, x)), pairs, base, _step(model), -math.inf, high)
    return [[cols[u].get(j, 0.0) for u in pairs] for j in rows]


def _cholesky_solve(a: list, b: list) -> Optional[list]:
    """x with a x = b for a symmetric positive definite ``a`` (lists of
    floats; ``a`` is overwritten below its diagonal by its Cholesky factor
    L, a = L L^T); None when ``a`` is not positive definite."""
    n = len(b)
    for i in range(n):
        ai = a[i]
        for k in range(i):
            ak = a[k]
            ai[k] = (ai[k] - sum(map(mul, ai[:k], ak[:k]))) / ak[k]
        d = ai[i] - sum(map(mul, ai[:i], ai[:i]))
        if d <= 0.0:
            return None
        ai[i] = d ** 0.5
    y = [0.0] * n
    for i in range(n):
        ai = a[i]
        y[i] = (b[i] - sum(map(mul, ai[:i], y[:i]))) / ai[i]
    for i in range(n - 1, -1, -1):
        y[i] = (y[i] - sum(a[k][i] * y[k] for k in range(i + 1, n))) / a[i][i]
    return y


def _normal_equations(jac: list, r: list, x: list, prior_at: list, k: float):
    """J^T W J and J^T W r + PRIOR (x - prior_at) over the rows computed, W
    the Huber weights of the residuals (iteratively reweighted least
    squares), using each row's nonzero slopes only."""
    n = len(x)
    a = [[0.0] * n for _ in range(n)]
    g = [PRIOR * (p - q) for p, q in zip(x, prior_at)]
    for row, rj in zip(jac, r):
        if rj is None:
            continue
        w = 1.0 if abs(rj) <= k else k / abs(rj)
        nz = [(i, s) for i, s in enumerate(row) if s]
        for i, s in nz:
            ws = w * s
            g[i] += ws * rj
            ai = a[i]
            for i2, s2 in nz:
                if i2 <= i:
                    ai[i2] += ws * s2
    for i in range(n):
        for i2 in range(i):
            a[i2][i] = a[i][i2]
        a[i][i] += PRIOR
    return a, g


def _joint(model: SectionModel, unknowns: list[Unknown], start: dict, published: dict,
           tol: float, low: float, high: float, best: _Best, limit: Optional[int] = None,
           k: float = HUBER) -> dict:
    """Levenberg-Marquardt on all the unknowns at once from ``start``: the
    robust misfit of the section's published posts (Huber, threshold ``k``)
    minimised over the vector of initial ratings, each within [low, high].
    The Jacobian is measured by forward differences (:func:`_jacobian`),
    then kept up to date by sparse Broyden (Schubert) updates after each
    accepted step and measured again only when a step fails with it; each
    step solves (J^T W J + lambda diag) d = -J^T W r by Cholesky, and is
    accepted when the misfit of the real posts (the section rated with the
    moved values) falls.  Every rating is offered to ``best``.  Returns the
    pinning last measured (pair -> published pairs that depend on it)."""
    pairs = [u.pair for u in unknowns]
    prior_at = [u.start for u in unknowns]
    rows = sorted(published)
    x = [min(high, max(low, start[p])) for p in pairs]
    posts = model.posts(dict(zip(pairs, x)))
    if posts is None:
        return {}, dict(start)
    best.offer(_score(posts, published, tol), dict(zip(pairs, x)), posts)
    r = _residuals(posts, rows, published)
    f = _objective(r, x, prior_at, k)
    n = len(pairs)

    def room(cost: int) -> bool:
        return limit is None or model.evaluations + cost <= limit

    if not room(n + 1):
        return {}, dict(zip(pairs, x))
    jac = _jacobian(model, pairs, x, rows, posts, high)
    fresh, used = True, 0
    pinned = {p: [j for j, row in zip(rows, jac) if row[i]] for i, p in enumerate(pairs)}
    damp = DAMP
    for _ in range(LM_STEPS):
        if best.score[0] == len(published) or not room(1):
            break
        a, g = _normal_equations(jac, r, x, prior_at, k)
        diag = [a[i][i] for i in range(n)]
        accepted = False
        while damp <= DAMP_MAX and room(1):
            m = [row[:] for row in a]
            for i in range(n):
                m[i][i] += damp * diag[i]
            d = _cholesky_solve(m, [-v for v in g])
            if d is None:
                damp *= DAMP_UP
                continue
            x2 = [min(high, max(low, xi + max(-REACH, min(REACH, di)))) for xi, di in zip(x, d)]
            step = [b - a_ for a_, b in zip(x, x2)]
            if not any(abs(s) > SETTLE for s in step):
                break
            posts2 = model.posts(dict(zip(pairs, x2)))
            if posts2 is None:
                damp *= DAMP_UP
                continue
            best.offer(_score(posts2, published, tol), dict(zip(pairs, x2)), posts2)
            r2 = _residuals(posts2, rows, published)
            f2 = _objective(r2, x2, prior_at, k)
            if f2 < f:
                # Schubert's update: each row's slopes corrected along the
                # step, on that row's measured pattern only
                for row, rj, rj2 in zip(jac, r, r2):
                    if rj is None or rj2 is None:
                        continue
                    nz = [i for i, s in enumerate(row) if s]
                    ss = sum(step[i] ** 2 for i in nz)
                    if ss <= 0.0:
                        continue
                    err = (rj2 - rj) - sum(row[i] * step[i] for i in nz)
                    for i in nz:
                        row[i] += err * step[i] / ss
                gain = (f - f2) / max(f, 1e-12)
                x, posts, r, f = x2, posts2, r2, f2
                damp = max(DAMP * 1e-3, damp * DAMP_DOWN)
                accepted, fresh = True, False
                used += 1
                if gain < LM_GAIN:
                    return pinned, dict(zip(pairs, x))
                break
            damp *= DAMP_UP
        if accepted and used < REFRESH:
            continue
        if (fresh and not accepted) or not room(n + 1):
            break
        jac = _jacobian(model, pairs, x, rows, posts, high)
        fresh, used = True, 0
        pinned = {p: [j for j, row in zip(rows, jac) if row[i]] for i, p in enumerate(pairs)}
        damp = min(max(damp, DAMP), 1.0)
    return pinned, dict(zip(pairs, x))


def joint_solve(model: SectionModel, unknowns: list[Unknown], start: dict, published: dict,
                tol: float, low: float, high: float, best: _Best,
                limit: Optional[int] = None) -> dict:
    """All the unknowns solved at once from ``start`` (:func:`_joint`), the
    robust misfit's threshold lowered step by step (:data:`THRESHOLDS`: a
    least-squares fit first, then ever closer to counting the posts
    reproduced, each solve starting where the last ended), within ``limit``
    ratings of the section.  Every rating is offered to ``best``; returns
    the pinning measured (pair -> published pairs that depend on it)."""
    pinned: dict = {}
    x = dict(start)
    for k in THRESHOLDS:
        for _ in range(PASSES):
            if best.score[0] == len(published) or (limit is not None
                                                   and model.evaluations >= limit):
                return pinned
            got, x = _joint(model, unknowns, x, published, tol, low, high, best, limit, k)
            for p, c in got.items():
                pinned[p] = sorted(set(pinned.get(p, ())) | set(c))
    return pinned


def solve_section(model: SectionModel, unknowns: list[Unknown], published: dict, tol: float,
                  low: float, high: float, common: Optional[list] = None,
                  effort: Effort = FULL) -> Optional[Solution]:
    """Solve ``unknowns`` (their ``value`` is the starting point and is
    updated) from ``published`` (pair -> published post of this section and
    system) as the module text says, within ``effort``.  None when the
    section cannot be rated or there is nothing to solve."""
    unknowns = sorted(unknowns, key=lambda u: u.pair)
    if not unknowns or len(unknowns) > MAX_UNKNOWNS:
        return None
    given = {u.pair: min(high, max(low, u.value)) for u in unknowns}
    posts = model.posts(given)
    if posts is None:
        return None
    best = _Best(_score(posts, published, tol), given, posts)
    # starts: the values given (the rules', or a named variant's); one value
    # for all (the best of ``common``); each at their own published post (a
    # new player's initial rating and post estimate the same strength)
    starts = [given]
    flat = _Best((-1, float("-inf")), given, posts)
    for x in common or ():
        values = {u.pair: x for u in unknowns}
        got = model.posts(values)
        flat.offer(_score(got, published, tol), values, got)
    if flat.values is not given:
        starts.append(flat.values)
    starts.append({u.pair: min(high, max(low, published.get(u.pair, given[u.pair])))
                   for u in unknowns})
    starts.sort(key=lambda v: _score(model.posts(v), published, tol), reverse=True)
    pinned: dict = {}
    sweeps = 0
    # the joint solve from each start, best first, within one budget
    if len(published) > best.score[0]:
        limit = model.evaluations + effort.joint_work * (len(unknowns) + 1)
        for start in starts:
            got = joint_solve(model, unknowns, start, published, tol, low, high, best, limit)
            for p, c in got.items():
                pinned[p] = sorted(set(pinned.get(p, ())) | set(c))
    limit = None
    # the best start is always followed; the other starts, then starts
    # scattered around the best values (a fixed seed: the same page gives the
    # same values), then the one-dimensional searches, within the budget
    rng = random.Random(len(unknowns))
    for k in range(len(starts) + effort.hops):
        if best.score[0] == len(published):
            break
        if k < len(starts):
            start = starts[k]
        else:
            start = {p: min(high, max(low, x + rng.uniform(-HOP, HOP)))
                     for p, x in best.values.items()}
        got, n = _descend(model, unknowns, start, published, tol, low, high, best, limit)
        for p, c in got.items():
            pinned[p] = sorted(set(pinned.get(p, ())) | set(c))
        sweeps += n
        if limit is None:
            size = max(1, len(model.rated.section.players))
            limit = model.evaluations + max(0, effort.work // size)
    for u in unknowns:
        u.value = best.values[u.pair]
    if best.score[0] < len(published) and pinned and model.evaluations < limit:
        score, posts = _polish(model, unknowns, pinned, published, tol, low, high, best.score,
                               best.posts, limit, effort.polish_evals)
        best.offer(score, {u.pair: u.value for u in unknowns}, posts)
    for u in unknowns:
        u.value = best.values[u.pair]
    return Solution(dict(best.values), best.posts, best.score[0], pinned, model.evaluations,
                    sweeps)

