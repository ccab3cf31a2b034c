"""The joint solve of a section's initial ratings: Levenberg-Marquardt on
the whole vector of values, robust (Huber), the Jacobian measured by forward
differences and kept by sparse Broyden updates (see
:mod:`uschess.apps.audit.solve`, step 2)."""

from __future__ import annotations

import math
from operator import mul
from typing import Optional

from uschess.apps.audit.section_model import (CLIP, HUBER, PRIOR, REACH, SETTLE, SOLVER,
                                              SectionModel, Unknown, _Best, _score,
                                              forward_slopes)

#: The joint solve's thresholds of the robust misfit in turn (points) and
#: the solves at each; its work over all the starts: at most this many
#: Jacobians' worth of ratings of the section.
THRESHOLDS, PASSES, JOINT_WORK = (HUBER, 5.0, 1.0), 2, 120


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
    zero.  Each column's slopes are put in their rows (those of other
    posts dropped), the rest of the matrix zero."""
    cols = forward_slopes(model, dict(zip(pairs, x)), pairs, base, _step(model), -math.inf, high)
    at = {j: t for t, j in enumerate(rows)}
    jac = [[0.0] * len(pairs) for _ in rows]
    for i, u in enumerate(pairs):
        for j, s in cols[u].items():
            t = at.get(j)
            if t is not None:
                jac[t][i] = s
    return jac


def _pinned(jac: list, rows: list, pairs: list) -> dict:
    """pair -> the rows (published pairs, in order) whose slope for that
    unknown is not zero: the posts that pin it down."""
    if SOLVER is not None:
        got = SOLVER.pinned(jac, rows, pairs)
        if got is not SOLVER.DECLINED:
            return got
    return {p: [j for j, row in zip(rows, jac) if row[i]] for i, p in enumerate(pairs)}


def _cholesky_solve(a: list, b: list) -> Optional[list]:
    """x with a x = b for a symmetric positive definite ``a`` (lists of
    floats; ``a`` is overwritten below its diagonal by its Cholesky factor
    L, a = L L^T); None when ``a`` is not positive definite.  The compiled
    kernel (:data:`SOLVER`) gives the same x and leaves ``a`` as it is."""
    if SOLVER is not None:
        got = SOLVER.cholesky_solve(a, b)
        if got is not SOLVER.DECLINED:
            return got
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
    if SOLVER is not None:
        got = SOLVER.normal_equations(jac, r, x, prior_at, k, PRIOR)
        if got is not SOLVER.DECLINED:
            return got
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
            for i2, s2 in nz:  # in ascending order: those up to i
                if i2 > i:
                    break
                ai[i2] += ws * s2
    for i in range(n):
        for i2 in range(i):
            a[i2][i] = a[i][i2]
        a[i][i] += PRIOR
    return a, g


def _schubert_update(jac: list, r: list, r2: list, step: list) -> None:
    """Schubert's sparse Broyden update of ``jac`` in place after an accepted
    ``step`` that moved the residuals from ``r`` to ``r2``: each row's slopes
    corrected along the step, on that row's measured pattern only (a post
    that did not depend on a value keeps a zero slope for it)."""
    if SOLVER is not None and SOLVER.schubert_update(jac, r, r2, step) is not SOLVER.DECLINED:
        return
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
    pinned = _pinned(jac, rows, pairs)
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
                _schubert_update(jac, r, r2, step)
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
        pinned = _pinned(jac, rows, pairs)
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
