# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The optional compiled kernel of the audit's solvers' arithmetic.

Each function here is the one of the same name, without its leading
underscore, in the reference modules: :func:`cholesky_solve`,
:func:`normal_equations`, :func:`schubert_update` and :func:`pinned` of
:mod:`uschess.apps.audit.joint` (the joint solve's Levenberg-Marquardt
steps), :func:`sweeps` of :mod:`uschess.apps.audit.solve` (the Gauss-Seidel
sweeps of a descent), :func:`column` and :func:`score` of
:mod:`uschess.apps.audit.section_model` (a column of forward differences,
the score of a solution).
The same operations on the same values in the same order, on C doubles
instead of Python floats: every product, quotient and sum rounded on its
own (``setup.py`` turns off fused multiply-adds), a ``**`` through the C
library's ``pow()`` as Python's is, a built-in ``sum()`` of floats added
left to right from 0.0 as CPython before 3.12 adds them (from 3.12 it
compensates, and :mod:`uschess.apps.audit.section_model` does not load this
module), ``min()`` and ``max()`` keeping the first of equal values, the very
object they pick.  ``tests/audit/test_solve_kernel.py`` checks the results
against the reference bit for bit.

A value that is not a float or an int (or, where the reference would meet
a missing entry, a gap) is not computed on here: the function returns
:data:`DECLINED` and the caller runs the reference.
"""

from cpython.float cimport PyFloat_AS_DOUBLE
from libc.math cimport fabs, pow
from libc.stdlib cimport free, malloc

#: What a function returns where it does not compute: the reference does.
DECLINED = object()


cdef class _Buffer:
    """A C array of doubles, freed with it."""

    cdef double* d

    def __cinit__(self, Py_ssize_t n):
        self.d = <double*>malloc((n + 1) * sizeof(double))
        if self.d == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.d)


cdef class _Ints:
    """A C array of indexes, freed with it."""

    cdef Py_ssize_t* d

    def __cinit__(self, Py_ssize_t n):
        self.d = <Py_ssize_t*>malloc((n + 1) * sizeof(Py_ssize_t))
        if self.d == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.d)


#: Ints beyond this size are not computed on (a rating, a count is far
#: below it): below it every int, its square and their sums are exact as
#: doubles, as Python's int arithmetic keeps them.
INT_MOST = 1 << 20


cdef inline bint _plain(x):
    """A float, or an int (not a bool) below :data:`INT_MOST`: a value a
    double takes as Python computes with it."""
    return type(x) is float or (type(x) is int and -INT_MOST < x < INT_MOST)


cdef inline double _d(x):
    """``x`` (a float or an int) as a double."""
    if type(x) is float:
        return PyFloat_AS_DOUBLE(x)
    return <double>x


cdef bint _fill(double* out, list values):
    """``values`` into ``out`` as doubles; False where one is not plain."""
    cdef Py_ssize_t i
    for i in range(len(values)):
        v = values[i]
        if not _plain(v):
            return False
        out[i] = _d(v)
    return True


def cholesky_solve(list a, list b):
    """:func:`uschess.apps.audit.joint._cholesky_solve`: x with a x = b, or
    None when ``a`` is not positive definite.  ``a`` is read, not
    overwritten (the reference's factor in it is no result: its callers
    pass a copy)."""
    cdef Py_ssize_t n = len(b), i, k, j
    cdef double s, d
    cdef _Buffer store = _Buffer(n * n)
    cdef _Buffer ys = _Buffer(n)
    cdef double* m = store.d
    cdef double* y = ys.d
    cdef double* mi
    cdef double* mk
    if len(a) != n:
        return DECLINED
    for i in range(n):
        row = a[i]
        if type(row) is not list or len(<list>row) != n or not _fill(m + i * n, <list>row):
            return DECLINED
    if not _fill(y, b):
        return DECLINED
    for i in range(n):
        mi = m + i * n
        for k in range(i):
            mk = m + k * n
            s = 0.0
            for j in range(k):
                s += mi[j] * mk[j]
            mi[k] = (mi[k] - s) / mk[k]
        s = 0.0
        for j in range(i):
            s += mi[j] * mi[j]
        d = mi[i] - s
        if d <= 0.0:
            return None
        mi[i] = pow(d, 0.5)
    for i in range(n):
        mi = m + i * n
        s = 0.0
        for j in range(i):
            s += mi[j] * y[j]
        y[i] = (y[i] - s) / mi[i]
    for i in range(n - 1, -1, -1):
        s = 0.0
        for k in range(i + 1, n):
            s += m[k * n + i] * y[k]
        y[i] = (y[i] - s) / m[i * n + i]
    return [y[i] for i in range(n)]


cdef Py_ssize_t _row(Py_ssize_t* nz, double* slopes, row, Py_ssize_t n) except -2:
    """The nonzero slopes of ``row`` (a list of ``n`` values): their
    indexes into ``nz``, values into ``slopes``; how many, or -1 where one
    is not plain or the row is not ``n`` long."""
    cdef Py_ssize_t i, count = 0
    cdef double s
    if type(row) is not list or len(<list>row) != n:
        return -1
    for i in range(n):
        v = (<list>row)[i]
        if not _plain(v):
            return -1
        s = _d(v)
        if s != 0.0:
            nz[count] = i
            slopes[count] = s
            count += 1
    return count


def normal_equations(list jac, list r, list x, list prior_at, k, prior):
    """:func:`uschess.apps.audit.joint._normal_equations` with PRIOR given:
    (J^T W J + PRIOR I as lists of lists, J^T W r + PRIOR (x - prior_at))."""
    cdef Py_ssize_t n = len(x), i, i2, t, t2, count, rows = len(jac)
    cdef double k_d, prior_d, w, ws, rj, s
    if not (_plain(k) and _plain(prior)) or len(prior_at) != n:
        return DECLINED
    k_d, prior_d = _d(k), _d(prior)
    cdef _Buffer store = _Buffer(n * n)
    cdef _Buffer gs = _Buffer(n)
    cdef _Buffer slopes = _Buffer(n)
    cdef _Ints nz = _Ints(n)
    cdef double* a = store.d
    cdef double* g = gs.d
    for i in range(n * n):
        a[i] = 0.0
    for i in range(n):
        p, q = x[i], prior_at[i]
        if not (_plain(p) and _plain(q)):
            return DECLINED
        g[i] = prior_d * (_d(p) - _d(q))
    for t in range(min(rows, len(r))):
        v = r[t]
        if v is None:
            continue
        if not _plain(v):
            return DECLINED
        rj = _d(v)
        w = 1.0 if fabs(rj) <= k_d else k_d / fabs(rj)
        count = _row(nz.d, slopes.d, jac[t], n)
        if count < 0:
            return DECLINED
        for t2 in range(count):
            i = nz.d[t2]
            ws = w * slopes.d[t2]
            g[i] += ws * rj
            for i2 in range(count):
                if nz.d[i2] > i:
                    break
                a[i * n + nz.d[i2]] += ws * slopes.d[i2]
    for i in range(n):
        for i2 in range(i):
            a[i2 * n + i] = a[i * n + i2]
        a[i * n + i] += prior_d
    return ([[a[i * n + i2] for i2 in range(n)] for i in range(n)], [g[i] for i in range(n)])


def schubert_update(list jac, list r, list r2, list step):
    """:func:`uschess.apps.audit.joint._schubert_update`: ``jac`` corrected
    in place (None), or DECLINED before any change where a value is not
    plain."""
    cdef Py_ssize_t n = len(step), i, t, t2, count, rows = min(len(jac), len(r), len(r2))
    cdef double ss, err, dot, rj, rj2
    cdef _Buffer steps = _Buffer(n)
    cdef _Buffer slopes = _Buffer(n)
    cdef _Ints nz = _Ints(n)
    if not _fill(steps.d, step):
        return DECLINED
    for t in range(rows):  # every value checked first: a decline changes nothing
        if r[t] is None or r2[t] is None:
            continue
        if not (_plain(r[t]) and _plain(r2[t])) or _row(nz.d, slopes.d, jac[t], n) < 0:
            return DECLINED
    for t in range(rows):
        v, v2 = r[t], r2[t]
        if v is None or v2 is None:
            continue
        row = <list>jac[t]
        count = _row(nz.d, slopes.d, row, n)
        ss = 0.0
        for t2 in range(count):
            ss += pow(steps.d[nz.d[t2]], 2.0)
        if ss <= 0.0:
            continue
        dot = 0.0
        for t2 in range(count):
            dot += slopes.d[t2] * steps.d[nz.d[t2]]
        err = (_d(v2) - _d(v)) - dot
        for t2 in range(count):
            i = nz.d[t2]
            row[i] = slopes.d[t2] + err * steps.d[i] / ss
    return None


cdef enum:  # where :func:`sweeps` took a value from: the solve, the range's ends, the reach's
    FROM_X = 0
    FROM_LOW = 1
    FROM_HIGH = 2
    FROM_BELOW = 3
    FROM_ABOVE = 4


def sweeps(list unknowns, dict cols, dict resid, low, high, reach, huber, prior, settle,
           int most):
    """:func:`uschess.apps.audit.solve._sweeps` with its constants given
    (HUBER, PRIOR, SETTLE, SWEEPS): the unknowns' ``value`` moved as the
    reference moves them (the very objects ``min()`` and ``max()`` pick);
    the sweeps made, or DECLINED before any change."""
    cdef Py_ssize_t t, c, total = 0, pos, sweep, s, nt
    cdef double huber_d, prior_d, settle_d, low_d, high_d, biggest, g, h, a, rj, size, w
    cdef double x, m1, m2, m3, d
    cdef int k1, k2, k3
    if not all(_plain(v) for v in (low, high, reach, huber, prior, settle)):
        return DECLINED
    huber_d, prior_d, settle_d, low_d, high_d = (_d(huber), _d(prior), _d(settle), _d(low),
                                                 _d(high))
    cdef dict index = {}
    cdef _Buffer rs = _Buffer(len(resid))
    for pos, (j, v) in enumerate(resid.items()):
        if not _plain(v):
            return DECLINED
        index[j] = pos
        rs.d[pos] = _d(v)
    # the unknowns with slopes, in order: their slopes (positions into rs)
    # and the values they may move to within ``reach`` of where they start
    cdef list todo = []
    for u in unknowns:
        col = cols.get(u.pair)
        if col is None or type(col) is not dict:
            return DECLINED
        if col:
            todo.append(u)
            total += len(<dict>col)
    nt = len(todo)
    cdef _Ints starts = _Ints(nt + 1)
    cdef _Ints where = _Ints(total)
    cdef _Buffer slopes = _Buffer(total)
    cdef _Buffer values = _Buffer(nt)
    cdef _Buffer origins = _Buffer(nt)
    cdef _Buffer belows = _Buffer(nt)
    cdef _Buffer aboves = _Buffer(nt)
    cdef _Ints kinds = _Ints(nt)
    cdef list bounds = []
    c = 0
    for t in range(nt):
        u = todo[t]
        value, start = u.value, u.start
        if not (_plain(value) and _plain(start)):
            return DECLINED
        below, above = value - reach, value + reach
        if not (_plain(below) and _plain(above)):
            return DECLINED
        bounds.append((below, above))
        values.d[t], origins.d[t] = _d(value), _d(start)
        belows.d[t], aboves.d[t] = _d(below), _d(above)
        kinds.d[t] = -1
        starts.d[t] = c
        for j, v in (<dict>cols[u.pair]).items():
            got = index.get(j)
            if got is None or not _plain(v):
                return DECLINED
            where.d[c], slopes.d[c] = got, _d(v)
            c += 1
    starts.d[nt] = c
    sweep = most
    for s in range(1, most + 1):
        biggest = 0.0
        for t in range(nt):
            g = h = 0.0
            for c in range(starts.d[t], starts.d[t + 1]):
                a = slopes.d[c]
                rj = rs.d[where.d[c]]
                size = fabs(rj)
                if size <= huber_d:
                    g += a * rj
                    h += a * a
                else:
                    w = huber_d / size
                    g += w * a * rj
                    h += w * a * a
            g += prior_d * (values.d[t] - origins.d[t])
            h += prior_d
            x = values.d[t] - g / h
            # min(high, max(low, below, min(above, x))): the first of equals kept
            m1, k1 = aboves.d[t], FROM_ABOVE
            if x < m1:
                m1, k1 = x, FROM_X
            m2, k2 = low_d, FROM_LOW
            if belows.d[t] > m2:
                m2, k2 = belows.d[t], FROM_BELOW
            if m1 > m2:
                m2, k2 = m1, k1
            m3, k3 = high_d, FROM_HIGH
            if m2 < m3:
                m3, k3 = m2, k2
            d = m3 - values.d[t]
            if d != 0.0:
                for c in range(starts.d[t], starts.d[t + 1]):
                    rs.d[where.d[c]] += slopes.d[c] * d
                values.d[t] = m3
                kinds.d[t] = k3
            size = fabs(d)
            if size > biggest:
                biggest = size
        if biggest <= settle_d:
            sweep = s
            break
    for t in range(nt):
        k3 = kinds.d[t]
        if k3 < 0:
            continue
        u = todo[t]
        if k3 == FROM_LOW:
            u.value = low
        elif k3 == FROM_HIGH:
            u.value = high
        elif k3 == FROM_BELOW:
            u.value = bounds[t][0]
        elif k3 == FROM_ABOVE:
            u.value = bounds[t][1]
        else:
            u.value = values.d[t]
    return sweep


def column(moved, dict base, h, min_slope, within):
    """:func:`uschess.apps.audit.section_model._column`: {pair: (moved -
    base) / h} over the posts of ``moved`` (those in ``within`` only, where
    given), slopes below ``min_slope`` dropped."""
    cdef dict col = {}
    cdef double h_d, least, slope
    if moved is None:
        return col
    if type(moved) is not dict or not (_plain(h) and _plain(min_slope)) or h == 0:
        return DECLINED
    h_d, least = _d(h), _d(min_slope)
    for pair, v in (<dict>moved).items():
        if within is not None and pair not in within:
            continue
        b = base.get(pair)
        if v is None or b is None:
            continue
        if _plain(v) and _plain(b):
            slope = (_d(v) - _d(b)) / h_d
            if fabs(slope) >= least:
                col[pair] = slope
        else:
            s = (v - b) / h
            if abs(s) >= min_slope:
                col[pair] = s
    return col


def pinned(list jac, list rows, list pairs):
    """:func:`uschess.apps.audit.joint._pinned`: pair -> the rows (in
    order) whose slope for it is not zero."""
    cdef Py_ssize_t n = len(pairs), i, t, count = min(len(rows), len(jac))
    for t in range(count):
        row = jac[t]
        if type(row) is not list or len(<list>row) < n:
            return DECLINED
        for i in range(n):
            if not _plain((<list>row)[i]):
                return DECLINED
    cdef dict out = {}
    for i in range(n):
        got = []
        for t in range(count):
            if _d((<list>jac[t])[i]) != 0.0:
                got.append(rows[t])
        out[pairs[i]] = got
    return out


def score(posts, dict published, tol, clip):
    """:func:`uschess.apps.audit.section_model._score` with CLIP given:
    (reproduced, -clipped misfit)."""
    cdef Py_ssize_t n = 0
    cdef double misfit = 0.0, d, within, clip_d
    if posts is None:
        return (-1, float("-inf"))
    if type(posts) is not dict or not (_plain(tol) and _plain(clip)):
        return DECLINED
    within = _d(tol) + 1e-9
    clip_d = _d(clip)
    for pair, pub in published.items():
        v = (<dict>posts).get(pair)
        if v is None:
            misfit += clip_d
            continue
        if not (_plain(v) and _plain(pub)):
            return DECLINED
        d = fabs(_d(v) - _d(pub))
        if d <= within:
            n += 1
        misfit += clip_d if clip_d < d else d  # min(d, CLIP)
    return (n, -misfit)
