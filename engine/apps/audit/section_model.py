"""One section and system rated again with given initial ratings, and
what the solvers share: the sensitivities of its posts, the score of a
solution (:mod:`uschess.apps.audit.solve` says how they are used)."""

from __future__ import annotations

import dataclasses
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from uschess import formulas
from uschess.errors import InputError
from uschess.rating.results import SectionResult
from uschess.rating import section as rating_section
from uschess.rating.section import section_posts
from uschess.rating.steps import played_games
from uschess.rules.base import Initial

#: The move of an initial rating used to measure the posts' sensitivity to it.
PROBE = 50.0
#: A post moving less than this per point of an initial rating does not
#: depend on it.
MIN_SLOPE = 1e-4
#: Residuals beyond this many points weigh less (Huber weights): a post held
#: by a floor, say, must not drag the values.
HUBER = 20.0
#: A misfit beyond this counts as this much when comparing two solutions.
CLIP = 50.0
#: Gauss-Seidel: sweeps at most, and the largest move (points) that still
#: counts as a change.
SWEEPS, SETTLE = 30, 0.05
#: Measure-and-solve rounds at most, and the largest move of a value in one
#: round (the posts are linear in the initial ratings only near the values
#: measured at).
ROUNDS, REACH = 16, 300.0
#: Pull of each unknown towards the rules' own initial rating, in squared
#: points of post per squared point of initial rating: next to nothing, it
#: only keeps a value that the page barely pins from wandering.
PRIOR = 1e-6
INFERRED_HOW = "inferred from the published posts"


def _solver() -> tuple:
    """The compiled kernel of the solvers' arithmetic (``solve_kernel.pyx``:
    the Cholesky solve, the normal equations and the Schubert update of
    :mod:`uschess.apps.audit.joint`, the sweeps of
    :mod:`uschess.apps.audit.solve`, the columns here) and a word on it, or
    None and why (:func:`formulas.companion_kernel`;
    ``USCHESS_PURE=solver`` sets it aside; these three modules count among
    its sources).  From Python 3.12 the built-in ``sum()`` of floats
    compensates its rounding, which the kernel's sums do not: the reference
    serves there."""
    if sys.version_info >= (3, 12):
        return None, "pure Python, whose sum() of floats compensates from Python 3.12"
    here = Path(__file__).resolve().parent
    return formulas.companion_kernel(
        "solve_kernel", "solver", [here / "section_model.py", here / "joint.py", here / "solve.py"])


#: The compiled kernel of the solvers' arithmetic, where it is built and
#: current (the same results, bit for bit: ``tests/audit/test_solve_kernel.py``),
#: else None: the Python bodies compute.  ``SOLVER_STATUS`` says which, and why.
SOLVER, SOLVER_STATUS = _solver()


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
    step, :func:`uschess.rating.section.section_posts`) with given initial
    ratings, the rules of ``rated`` reused.  ``fixed`` (pair -> initial
    rating): values held whatever a caller gives (a named variant of one
    player, the others solved around it)."""

    def __init__(self, rated: SectionResult, games: dict, fixed: Optional[dict] = None):
        self.rated, self.games = rated, dict(games)
        self.fixed = dict(fixed or {})
        self.evaluations = 0
        # the rules (and so their p) and the games are the rated section's
        # throughout; the compiled kernel keeps the special ratings in its
        # memo (section_posts), the Python body asks them of this one
        self._special = (_SpecialMemo(rated.rules.call.uschess_special_rating)
                         if rating_section.POSTS is None else None)
        self._played = played_games(rated.section)
        # what the compiled kernel reuses between ratings (section_posts)
        self._memo: dict = {}
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
        try:  # the compiled kernel takes step 1's answers as the _Call gives them
            return section_posts(sr.section, sr.system, rules, sr.time_control, self._memo,
                                 played=self._played, given=(values, self.games))
        except InputError:
            return None


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
    if SOLVER is not None:
        got = SOLVER.score(posts, published, tol, CLIP)
        if got is not SOLVER.DECLINED:
            return got
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
    if SOLVER is not None:
        got = SOLVER.column(moved, base, h, min_slope, within)
        if got is not SOLVER.DECLINED:
            return got
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


@dataclass
class _Best:
    """The best values seen (by reproduced, then misfit) and their posts."""

    score: tuple
    values: dict
    posts: dict

    def offer(self, score: tuple, values: dict, posts: dict) -> None:
        if score > self.score:
            self.score, self.values, self.posts = score, dict(values), posts
