"""The optional compiled kernel of the solvers' arithmetic
(``engine/solve_kernel.pyx``, built with the formulas' kernel by
``USCHESS_KERNEL=1 pip install -e .``) against the reference, the Python
bodies of :mod:`uschess.apps.audit.joint` (Cholesky solve, normal equations,
Schubert update), :mod:`uschess.apps.audit.solve` (the Gauss-Seidel sweeps)
and :mod:`uschess.apps.audit.section_model` (a column of forward
differences): every result the same, as the same type and bit for bit, on
random inputs (ints and gaps among them) and through whole solves of
generated sections.  Where the kernel is not built the comparisons skip."""

from __future__ import annotations

import dataclasses
import random
import struct

import pytest

from uschess.apps.audit import joint as J
from uschess.apps.audit import section_model as M
from uschess.apps.audit import solve as S
from uschess.apps.audit.solve import SectionModel, Unknown, solve_section
from uschess.io.eventfile import event_from_dict
from uschess.rating.pipeline import RatingOptions, rate_event

from test_audit_infer import _hidden, _published, _swiss

try:
    from uschess import solve_kernel as KERNEL
except ImportError:
    KERNEL = None
built = pytest.mark.skipif(M.SOLVER is None, reason=f"the solvers' kernel does not run "
                           f"({M.SOLVER_STATUS})")


def _bits(x):
    """A value as it compares bit for bit: a float by its bytes (the sign of
    a zero too), with its type; lists, tuples and dicts walked."""
    if isinstance(x, float):
        return ("float", struct.pack("<d", x))
    if isinstance(x, (list, tuple)):
        return (type(x).__name__, [_bits(v) for v in x])
    if isinstance(x, dict):
        return ("dict", [(k, _bits(v)) for k, v in x.items()])
    return (type(x).__name__, x)


@pytest.fixture
def reference(monkeypatch):
    """A function that runs ``f(*args)`` with the kernel set aside."""
    def run(f, *args):
        with monkeypatch.context() as m:
            for module in (M, J, S):
                m.setattr(module, "SOLVER", None)
            return f(*args)
    return run


def _matrix(rng, n: int, sparse: float = 0.5) -> list:
    """A random rows x n Jacobian-like matrix: zeros, floats, a few ints."""
    out = []
    for _ in range(rng.randrange(1, 3 * n + 2)):
        row = []
        for _ in range(n):
            u = rng.random()
            row.append(0.0 if u < sparse else rng.randrange(-3, 4) if u < sparse + 0.05
                       else rng.uniform(-2.0, 2.0) * 10 ** rng.randrange(-4, 2))
        out.append(row)
    return out


def _residuals(rng, rows: int) -> list:
    return [None if rng.random() < 0.1 else rng.randrange(-90, 90) if rng.random() < 0.1
            else rng.uniform(-200.0, 200.0) for _ in range(rows)]


@built
@pytest.mark.parametrize("seed", range(40))
def test_normal_equations_and_cholesky_as_the_reference(reference, seed):
    rng = random.Random(seed)
    n = rng.randrange(1, 30)
    jac = _matrix(rng, n)
    r = _residuals(rng, len(jac))
    x = [rng.choice((100, 2700, rng.uniform(100.0, 2700.0))) for _ in range(n)]
    prior_at = [rng.choice((400, rng.uniform(100.0, 2700.0))) for _ in range(n)]
    k = rng.choice((J.HUBER, 5.0, 1.0))
    got = J._normal_equations(jac, r, x, prior_at, k)
    want = reference(J._normal_equations, jac, r, x, prior_at, k)
    assert _bits(got) == _bits(want)
    a, g = want
    for damp in (0.0, 1e-3, 4.0):
        m = [row[:] for row in a]
        for i in range(n):
            m[i][i] += damp * a[i][i]
        b = [-v for v in g]
        assert _bits(J._cholesky_solve([row[:] for row in m], b)) == _bits(
            reference(J._cholesky_solve, [row[:] for row in m], b))


@built
@pytest.mark.parametrize("seed", range(10))
def test_cholesky_of_a_matrix_not_positive_definite_is_none(reference, seed):
    rng = random.Random(seed)
    n = rng.randrange(2, 12)
    m = [[rng.uniform(-1.0, 1.0) for _ in range(n)] for _ in range(n)]
    m[n - 1][n - 1] = -1.0
    assert J._cholesky_solve([r[:] for r in m], [1.0] * n) is None
    assert reference(J._cholesky_solve, [r[:] for r in m], [1.0] * n) is None


@built
@pytest.mark.parametrize("seed", range(40))
def test_schubert_update_as_the_reference(reference, seed):
    rng = random.Random(seed)
    n = rng.randrange(1, 30)
    jac = _matrix(rng, n)
    r, r2 = _residuals(rng, len(jac)), _residuals(rng, len(jac))
    step = [rng.choice((0, 0.0, 2600, rng.uniform(-300.0, 300.0))) for _ in range(n)]
    mine, theirs = [row[:] for row in jac], [row[:] for row in jac]
    J._schubert_update(mine, r, r2, step)
    reference(J._schubert_update, theirs, r, r2, step)
    assert _bits(mine) == _bits(theirs)


@built
@pytest.mark.parametrize("seed", range(40))
def test_sweeps_move_the_values_as_the_reference(reference, seed):
    """The values, their types (an int end of the range picked by min() or
    max() is kept as the int) and the sweeps made."""
    rng = random.Random(seed)
    posts = list(range(1, rng.randrange(2, 40)))
    resid = {j: rng.choice((rng.randrange(-60, 60), rng.uniform(-400.0, 400.0))) for j in posts}
    unknowns = [Unknown(pair, str(pair), rng.choice((100, rng.uniform(100.0, 2700.0))), 0,
                        rng.choice((0.0, 2700, rng.uniform(100.0, 2700.0))))
                for pair in range(100, 100 + rng.randrange(1, 25))]
    cols = {u.pair: {j: rng.uniform(-1.0, 1.0) * rng.choice((1e-3, 0.1, 1.0))
                     for j in rng.sample(posts, rng.randrange(0, len(posts)))}
            for u in unknowns}
    low, high = rng.choice(((100, 2700), (100.0, 2700.0), (800, 1200)))
    reach = rng.choice((S.REACH, 30.0))
    mine = [dataclasses.replace(u) for u in unknowns]
    theirs = [dataclasses.replace(u) for u in unknowns]
    n = S._sweeps(mine, cols, resid, low, high, reach)
    assert n == reference(S._sweeps, theirs, cols, resid, low, high, reach)
    assert _bits([u.value for u in mine]) == _bits([u.value for u in theirs])


@built
@pytest.mark.parametrize("seed", range(20))
def test_column_as_the_reference(reference, seed):
    rng = random.Random(seed)
    pairs = range(1, 60)
    base = {j: rng.choice((None, 1200, rng.uniform(100.0, 2700.0))) for j in pairs}
    moved = {j: (v if v is None or rng.random() < 0.3 else v + rng.uniform(-5.0, 5.0))
             for j, v in base.items()}
    within = frozenset(rng.sample(list(pairs), 30)) if seed % 2 else None
    for h in (M.PROBE, -10.0, 30.0):
        assert _bits(M._column(moved, base, h, M.MIN_SLOPE, within)) == _bits(
            reference(M._column, moved, base, h, M.MIN_SLOPE, within))
    assert M._column(None, base, 10.0, M.MIN_SLOPE, None) == {}


def _solution(sol) -> tuple:
    return (_bits(sol.values), _bits(sol.posts), sol.reproduced, sol.pinned_by,
            sol.evaluations, sol.sweeps)


@built
@pytest.mark.parametrize("seed,start,typos", [(3, "2021-03-06", 0), (4, "2015-05-02", 3),
                                              (5, "2019-01-12", 6)])
def test_whole_solves_as_the_reference(reference, seed, start, typos):
    """A section's solve (the joint solve, the descents, the searches on the
    real posts) with the kernel and with the Python bodies: the same values,
    posts, work and sweeps.  A few published posts moved off (``typos``)
    keep the solve working to its budget."""
    raw = _swiss(6, 24, 4, seed, start)
    published, truth = _published(raw)
    rng = random.Random(seed)
    for j in rng.sample(sorted(published), typos):
        published[j] += rng.choice((-40.0, 25.0))
    sr = rate_event(event_from_dict(_hidden(raw), source="page.yaml"),
                    RatingOptions(trace=False)).sections[0]
    p = sr.rules.p
    games = {pair: i.games for pair, i in truth.items()}
    unknowns = [Unknown(pr.pair, pr.id, pr.initial.rating, games[pr.pair])
                for pr in sr.players if pr.initial is not None]

    def solve():
        return solve_section(SectionModel(sr, games), [dataclasses.replace(u) for u in unknowns],
                             published, 1.0, p.absolute_floor, p.special_cap, common=[800.0])

    assert _solution(solve()) == _solution(reference(solve))


@built
@pytest.mark.parametrize("seed", range(20))
def test_pinned_and_score_as_the_reference(reference, seed):
    rng = random.Random(seed)
    n = rng.randrange(1, 20)
    jac = _matrix(rng, n, sparse=0.7)
    rows = sorted(rng.sample(range(1, 400), len(jac)))
    pairs = list(range(1000, 1000 + n))
    assert _bits(J._pinned(jac, rows, pairs)) == _bits(reference(J._pinned, jac, rows, pairs))
    published = {j: rng.choice((1200, rng.uniform(100.0, 2700.0))) for j in rows}
    posts = {j: (None if rng.random() < 0.1 else v if rng.random() < 0.3
                 else v + rng.choice((0.5, 1.0, 1.0 + 1e-10, 7, rng.uniform(-80.0, 80.0))))
             for j, v in published.items() if rng.random() < 0.95}
    for tol in (1.0, 0, 0.5):
        assert _bits(M._score(posts, published, tol)) == _bits(
            reference(M._score, posts, published, tol))
    assert M._score(None, published, 1.0) == (-1, float("-inf"))
    assert _bits(M._score({}, {}, 1.0)) == _bits(reference(M._score, {}, {}, 1.0))


def test_the_jacobian_holds_each_columns_slopes_in_its_rows():
    """Each row's slopes, the unknowns in order, 0.0 where a post does not
    move with one (the matrix of the measured columns, by definition)."""
    raw = _swiss(6, 24, 4, 8, "2021-03-06")
    published, truth = _published(raw)
    sr = rate_event(event_from_dict(_hidden(raw), source="page.yaml"),
                    RatingOptions(trace=False)).sections[0]
    games = {pair: i.games for pair, i in truth.items()}
    model = SectionModel(sr, games)
    pairs = sorted(games)
    x = [truth[p].rating for p in pairs]
    rows = sorted(published)[::2]
    base = model.posts(dict(zip(pairs, x)))
    jac = J._jacobian(model, pairs, x, rows, base, sr.rules.p.special_cap)
    cols = M.forward_slopes(SectionModel(sr, games), dict(zip(pairs, x)), pairs, base,
                            J._step(model), float("-inf"), sr.rules.p.special_cap)
    assert _bits(jac) == _bits([[cols[u].get(j, 0.0) for u in pairs] for j in rows])
    assert any(any(row) for row in jac)
