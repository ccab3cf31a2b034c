# The standard formula of sec. 4.2 on C doubles, written once for the two
# compiled modules that include it (formulas_kernel.pyx, section_kernel.pyx):
# the same operations in the same order as uschess.formulas.standard_rating,
# the reference, so that every result is its result bit for bit.

cdef enum:
    STACK = 64  # opponents held on the stack; a longer list is allocated

cdef inline double _standard(double r0, double k, const double* opp, Py_ssize_t m,
                             double score, bint eligible, double b, double m_prime_min,
                             double* expected, double* bonus_out) noexcept nogil:
    """Rs = R0 + K(S - E) + max(0, K(S - E) - B sqrt(m')) when ``eligible``,
    m' = max(m, m_prime_min); E into ``expected``, the bonus into ``bonus_out``."""
    cdef double e = 0.0, gain, bonus = 0.0, over, m_prime
    cdef Py_ssize_t i
    for i in range(m):  # We(R0, Ri)
        e += 1.0 / (1.0 + pow(10.0, -(r0 - opp[i]) / 400.0))
    gain = k * (score - e)
    if eligible:
        m_prime = m
        if m_prime_min > m_prime:  # m' = max(m, 4)
            m_prime = m_prime_min
        over = gain - b * sqrt(m_prime)
        if over > 0.0:  # max(0, K(S - E) - B sqrt(m'))
            bonus = over
    expected[0] = e
    bonus_out[0] = bonus
    return r0 + gain + bonus
