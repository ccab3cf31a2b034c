# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The optional compiled kernel of the special and the standard formula.

The same two formulas as :func:`uschess.formulas.special_rating` (sec. 4.1,
the knot walk) and :func:`uschess.formulas.standard_rating` (sec. 4.2), with
C doubles instead of Python floats, for the hot loops of steps 4 and 5 and
of an audit's searches.  ``formulas.py`` is the reference: this file does
the same operations in the same order (every value a double, so the results
are the reference's bit for bit, which ``tests/engine/test_formulas_kernel.py``
checks across the parameters of every era), returns the very objects the
reference returns (R0 itself where the walk ends on it), and hands a traced
call (``--explain``) to the reference.  Built only on request
(``USCHESS_KERNEL=1 pip install ...``, see ``setup.py``); ``USCHESS_PURE=1``
turns it off at run time.
"""

from libc.math cimport INFINITY, fabs, pow, sqrt
from libc.stdlib cimport free, malloc, qsort

include "standard_formula.pxi"


cdef int _compare(const void* a, const void* b) noexcept nogil:
    cdef double x = (<const double*>a)[0]
    cdef double y = (<const double*>b)[0]
    return (x > y) - (x < y)


cdef inline double _f(double r, double r0a, double n_eff, double sa, const double* opp,
                      Py_ssize_t m) noexcept nogil:
    """f(R) = N' PWe(R, R0') + sum PWe(R, Ri) - S' (sec. 4.1), as the reference
    writes it out."""
    cdef double x = r - r0a, t, total
    cdef Py_ssize_t i
    if x <= -400.0:
        t = 0.0
    elif x >= 400.0:
        t = 1.0
    else:
        t = 0.5 + x / 800.0
    total = n_eff * t - sa
    for i in range(m):
        x = r - opp[i]
        if x > -400.0:
            if x >= 400.0:
                total += 1.0
            else:
                total += 0.5 + x / 800.0
    return total


cdef inline Py_ssize_t _bisect_left(const double* a, Py_ssize_t n, double x) noexcept nogil:
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if a[mid] < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


cdef inline Py_ssize_t _bisect_right(const double* a, Py_ssize_t n, double x) noexcept nogil:
    cdef Py_ssize_t lo = 0, hi = n, mid
    while lo < hi:
        mid = (lo + hi) // 2
        if x < a[mid]:
            hi = mid
        else:
            lo = mid + 1
    return lo


# Where the walk's M came from, so that the reference's own object is returned
# (an integer R0 stays an integer, as in formulas.py).
cdef enum Origin:
    WALKED = 0
    START = 1    # R0' (the "prior" start), never moved
    R0 = 2       # the flat stretch's clamp to R0
    CAP = 3


def special_rating(r0, double n_eff, opponents, double score, *, bint all_wins,
                   bint all_losses, double eps, cap, start="prior", bint p_inclusive=True,
                   trace=None):
    """:func:`uschess.formulas.special_rating` (sec. 4.1), compiled; a call
    with a ``trace`` is the reference's."""
    if trace is not None:
        from uschess.formulas import PURE
        return PURE.special_rating(r0, n_eff, opponents, score, all_wins=all_wins,
                                   all_losses=all_losses, eps=eps, cap=cap, start=start,
                                   p_inclusive=p_inclusive, trace=trace)
    cdef Py_ssize_t m = len(opponents), i, j, last, k, p, n, step
    cdef double on_stack[STACK]
    cdef double knots_on_stack[2 * STACK + 2]
    cdef double* opp = on_stack
    cdef double* knots = knots_on_stack
    cdef double r0d = r0, capd = cap, r0a, sa, mm, fm, za, zb, fa, fb, ms
    cdef Origin origin, za_origin, zb_origin
    if m > STACK:
        opp = <double*>malloc(m * sizeof(double))
        knots = <double*>malloc((2 * m + 2) * sizeof(double))
        if opp == NULL or knots == NULL:
            free(opp)
            free(knots)
            raise MemoryError()
    try:
        for i in range(m):
            opp[i] = opponents[i]
        if all_wins:
            r0a, sa, start_value = r0d - 400.0, score + n_eff, r0 - 400.0
        elif all_losses:
            r0a, sa, start_value = r0d + 400.0, score, r0 + 400.0
        else:
            r0a, sa, start_value = r0d, score + n_eff / 2.0, r0
        # Ri - 400 and Ri + 400 for R0' and each Ri, sorted, each once
        knots[0], knots[1] = r0a - 400.0, r0a + 400.0
        for i in range(m):
            knots[2 + 2 * i] = opp[i] - 400.0
            knots[3 + 2 * i] = opp[i] + 400.0
        n = 2 * m + 2
        qsort(knots, n, sizeof(double), _compare)
        last = 1
        for i in range(1, n):
            if knots[i] != knots[last - 1]:
                knots[last] = knots[i]
                last += 1
        if start == "estimate" and n_eff + m > 0:
            # sum() as the reference takes it (its rounding is the interpreter's)
            mm = (n_eff * r0a + sum(opponents) + 400.0 * (2.0 * score - m)) / (n_eff + m)
            origin = WALKED
        else:
            mm, origin = r0a, START
        fm = _f(mm, r0a, n_eff, sa, opp, m)
        for step in range(4 * last + 8):
            if fm > eps:  # step 2: move left
                i = _bisect_left(knots, last, mm)
                if i == 0:
                    break
                za = knots[i - 1]
                fa = _f(za, r0a, n_eff, sa, opp, m)
                if -eps < fm - fa < eps:
                    mm = za
                else:
                    ms = mm - fm * (mm - za) / (fm - fa)
                    mm = za if ms < za else ms
                origin = WALKED
                fm = fa if mm == za else _f(mm, r0a, n_eff, sa, opp, m)
            elif fm < -eps:  # step 3: move right
                j = _bisect_right(knots, last, mm)
                if j == last:
                    break
                zb = knots[j]
                fb = _f(zb, r0a, n_eff, sa, opp, m)
                if -eps < fb - fm < eps:
                    mm = zb
                else:
                    ms = mm - fm * (zb - mm) / (fb - fm)
                    mm = zb if ms > zb else ms
                origin = WALKED
                fm = fb if mm == zb else _f(mm, r0a, n_eff, sa, opp, m)
            else:
                break
        # step 4: only whether p is 0 matters here
        if -400.0 <= mm - r0a <= 400.0:
            p = 1
        else:
            p = 0
            for k in range(m):
                if p_inclusive:
                    if fabs(mm - opp[k]) <= 400.0:
                        p += 1
                elif fabs(mm - opp[k]) < 400.0:
                    p += 1
        if p == 0 and fabs(fm) <= eps:
            i, j = _bisect_left(knots, last, mm), _bisect_right(knots, last, mm)
            za = knots[i - 1] if i > 0 else -INFINITY
            zb = knots[j] if j < last else INFINITY
            za_origin = zb_origin = WALKED
            if j > i:  # M on a knot: take the flat side of it
                if i > 0 and fabs(_f(za, r0a, n_eff, sa, opp, m)) <= eps:
                    zb, zb_origin = mm, origin
                else:
                    za, za_origin = mm, origin
            if za <= r0d <= zb:
                mm, origin = r0d, R0
            elif r0d < za:
                mm, origin = za, za_origin
            else:
                mm, origin = zb, zb_origin
        if mm > capd:
            mm, origin = capd, CAP
    finally:
        if m > STACK:
            free(opp)
            free(knots)
    if origin == START:
        return start_value
    if origin == R0:
        return r0
    if origin == CAP:
        return cap
    return mm


def standard_rating(double r0, double k, opponents, double score, bonus_eligible, double b,
                    double m_prime_min):
    """:func:`uschess.formulas.standard_rating` (sec. 4.2), compiled:
    (Rs, E, bonus)."""
    cdef Py_ssize_t m = len(opponents), i
    cdef double on_stack[STACK]
    cdef double* opp = on_stack
    cdef double e, bonus, rs
    if m > STACK:
        opp = <double*>malloc(m * sizeof(double))
        if opp == NULL:
            raise MemoryError()
    try:
        for i in range(m):
            opp[i] = opponents[i]
        rs = _standard(r0, k, opp, m, score, bool(bonus_eligible), b, m_prime_min, &e, &bonus)
    finally:
        if opp != on_stack:
            free(opp)
    return rs, e, bonus
