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

import random
from dataclasses import dataclass
from typing import Optional

from uschess.apps.audit.joint import JOINT_WORK, joint_solve
from uschess.apps.audit.section_model import (HUBER, INFERRED_HOW, PRIOR, PROBE, REACH, ROUNDS,
                                              SETTLE, SOLVER, SWEEPS, SectionModel, Solution,
                                              Unknown, _Best, _score, _sensitivities,
                                              forward_slopes)

#: The model and the joint solve are named here too: a caller solves a
#: section with this module alone.
__all__ = ["AGAIN", "FULL", "INFERRED_HOW", "PROBE", "Effort", "SectionModel", "Solution",
           "Unknown", "forward_slopes", "joint_solve", "solve_section"]

#: Solves from one measurement at most, and the fractions of a solve's move
#: tried in turn until the misfit falls.
CHORDS, LINE_SEARCH = 4, (1.0, 0.5, 0.25, 0.1)
#: The one-dimensional searches on the real posts: sweeps and ratings of the
#: section at most, and the smallest step (points).
POLISH_SWEEPS, POLISH_EVALS, SETTLE_POLISH = 4, 1500, 1.0
#: The step of the coarse look over the range of an initial rating.
GRID = 100.0
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


def _sweeps(unknowns: list[Unknown], cols: dict, resid: dict, low: float,
            high: float, reach: float) -> int:
    """Gauss-Seidel on the linearised posts: each unknown in turn moved to
    the minimum of sum_j w_j r_j^2 + PRIOR (x - start)^2 over its own value
    (w_j: Huber weights of the current residuals), the residuals updated at
    once; until no value moves by more than SETTLE.  Returns the sweeps."""
    if SOLVER is not None:
        got = SOLVER.sweeps(unknowns, cols, resid, low, high, reach, HUBER, PRIOR, SETTLE, SWEEPS)
        if got is not SOLVER.DECLINED:
            return got
    r = dict(resid)
    huber, prior = HUBER, PRIOR
    # each unknown with slopes: them as a list, and the values it may move
    # to within ``reach`` of where it starts
    around = {u.pair: u.value for u in unknowns}
    todo = [(u, list(cols[u.pair].items()), around[u.pair] - reach, around[u.pair] + reach)
            for u in unknowns if cols[u.pair]]
    for sweep in range(1, SWEEPS + 1):
        biggest = 0.0
        for u, col, below, above in todo:
            g = h = 0.0
            for j, a in col:
                rj = r[j]
                size = abs(rj)
                if size <= huber:  # weight 1: w * a is a itself
                    g += a * rj
                    h += a * a
                else:
                    w = huber / size
                    g += w * a * rj
                    h += w * a * a
            g += prior * (u.value - u.start)
            h += prior
            x = u.value - g / h
            x = min(high, max(low, below, min(above, x)))
            d = x - u.value
            if d:
                for j, a in col:
                    r[j] += a * d
                u.value = x
            size = abs(d)
            if size > biggest:
                biggest = size
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

