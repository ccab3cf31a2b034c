# What each player of a section gave at its last rating, included by
# section_kernel.pyx: an audit's solves rate one section again and again with
# a few initial ratings moved, and most players' inputs to a step are then
# those of the rating before, bit for bit.  A step's result is a function of
# its inputs (the values below, as doubles, and what the section, the rules
# and the player's games fix), so where they are the same the result kept
# is the result: the same objects, without building a memo's key, hashing it
# and looking it up.

from libc.string cimport memcmp, memcpy

cdef enum:
    KEY_HEAD = 4    # a step's inputs before the opponents' ratings
    STEPS_KEPT = 3  # steps 3, 4 and 5


cdef class _Last:
    """Per player: step 2's answers for the initial rating and N last met
    (``r0``, ``r0_int``, ``ns`` -> ``special``, ``n_eff``, ``k``); each of
    steps 3, 4 and 5's inputs and results (``keys`` from ``offset``; the
    rating as an object and a double, bonus eligibility after it); the post
    for the step-5 value and N last met."""

    cdef Py_ssize_t n, games, stride
    cdef double* keys
    cdef double* scratch
    cdef char* valid         # step 3, 4, 5 of player i at valid[step * n + i]
    cdef char* eligible      # bonus eligibility after the step
    cdef double* cur
    cdef list obj
    cdef char* s2_valid
    cdef double* s2_r0
    cdef char* s2_r0_int
    cdef char* s2_special
    cdef double* s2_k
    cdef list s2_ns, s2_n_eff, s2_k_obj
    cdef char* post_valid
    cdef double* post_value
    cdef list post_ns, post

    def __cinit__(self, Py_ssize_t n, Py_ssize_t games, Py_ssize_t most):
        self.n, self.games = n, games
        self.stride = games + KEY_HEAD * n
        self.keys = <double*>malloc((STEPS_KEPT * self.stride + 1) * sizeof(double))
        self.scratch = <double*>malloc((most + KEY_HEAD + 1) * sizeof(double))
        self.valid = <char*>calloc(STEPS_KEPT * n + 1, 1)
        self.eligible = <char*>malloc(STEPS_KEPT * n + 1)
        self.cur = <double*>malloc((STEPS_KEPT * n + 1) * sizeof(double))
        self.s2_valid = <char*>calloc(n + 1, 1)
        self.s2_r0 = <double*>malloc((n + 1) * sizeof(double))
        self.s2_r0_int = <char*>malloc(n + 1)
        self.s2_special = <char*>malloc(n + 1)
        self.s2_k = <double*>malloc((n + 1) * sizeof(double))
        self.post_valid = <char*>calloc(n + 1, 1)
        self.post_value = <double*>malloc((n + 1) * sizeof(double))
        if (self.keys == NULL or self.scratch == NULL or self.valid == NULL
                or self.eligible == NULL or self.cur == NULL or self.s2_valid == NULL
                or self.s2_r0 == NULL or self.s2_r0_int == NULL or self.s2_special == NULL
                or self.s2_k == NULL or self.post_valid == NULL or self.post_value == NULL):
            raise MemoryError()
        self.obj = [None] * (STEPS_KEPT * n)
        self.s2_ns, self.s2_n_eff, self.s2_k_obj = [None] * n, [None] * n, [None] * n
        self.post_ns, self.post = [None] * n, [None] * n

    def __dealloc__(self):
        free(self.keys)
        free(self.scratch)
        free(self.valid)
        free(self.eligible)
        free(self.cur)
        free(self.s2_valid)
        free(self.s2_r0)
        free(self.s2_r0_int)
        free(self.s2_special)
        free(self.s2_k)
        free(self.post_valid)
        free(self.post_value)


cdef _Last _new_last(_Arrays a, Py_ssize_t games):
    cdef Py_ssize_t i, most = 0
    for i in range(a.n):
        if a.m[i] > most:
            most = a.m[i]
    return _Last(a.n, games, most)


cdef inline double* _inputs(_Last last, _Arrays a, Py_ssize_t i, double head0, double head1,
                            double head2, double head3, double* ratings) noexcept:
    """A step's inputs of player ``i`` into ``last.scratch``: four values,
    then the opponents' ``ratings``."""
    cdef Py_ssize_t j, m = a.m[i], s = a.start[i]
    cdef double* d = last.scratch
    d[0], d[1], d[2], d[3] = head0, head1, head2, head3
    for j in range(m):
        d[KEY_HEAD + j] = ratings[a.opp[s + j]]
    return d


cdef inline bint _same_inputs(_Last last, _Arrays a, int step, Py_ssize_t i) noexcept:
    """Whether ``last.scratch`` holds the inputs player ``i``'s ``step``
    (0, 1, 2: steps 3, 4, 5) last met, bit for bit."""
    if not last.valid[step * last.n + i]:
        return False
    return memcmp(last.scratch, last.keys + step * last.stride + a.start[i] + KEY_HEAD * i,
                  (a.m[i] + KEY_HEAD) * sizeof(double)) == 0


cdef inline void _remember(_Last last, _Arrays a, int step, Py_ssize_t i, value, double cur,
                           char eligible):
    """Keep ``last.scratch`` as player ``i``'s inputs to ``step`` and what it gave."""
    cdef Py_ssize_t at = step * last.n + i
    memcpy(last.keys + step * last.stride + a.start[i] + KEY_HEAD * i, last.scratch,
           (a.m[i] + KEY_HEAD) * sizeof(double))
    last.valid[at] = 1
    last.obj[at] = value
    last.cur[at] = cur
    last.eligible[at] = eligible


cdef inline bint _same_double(double x, double y) noexcept:
    """``x`` and ``y`` the same bit for bit (the sign of a zero too)."""
    return memcmp(&x, &y, sizeof(double)) == 0
