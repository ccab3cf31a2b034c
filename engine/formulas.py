"""The formulas of the rating documents, as pure functions of their inputs.

Every constant is an argument: the values come from the dated parameter
bundles in ``rulesets/`` (see :mod:`uschess.calendar.timeline`), never from this file.
Names follow the documents (N', R0', PWe, We, K, B, m').

The special and the standard formula may also run compiled
(``formulas_kernel.pyx``, built on request): this file is their reference,
and ``special_rating`` and ``standard_rating`` are bound at the end of it to
whichever runs (``ACTIVE``; ``KERNEL_STATUS`` says which, and why).
"""

from __future__ import annotations

import importlib
import math
import os
from bisect import bisect_left, bisect_right
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional, Sequence


def n_star(r0: float, a: float, b: float, center: float, flat_above: float,
           cap: float) -> float:
    """N*, the effective-games ceiling of sec. 3 (equation 1).

    2013-05-08 onward: ``50/sqrt(0.662 + 0.00000739 (2569 - R0)^2)`` for
    R0 <= 2355, else 50.  Before (002, "Standard rating formula"):
    ``50/sqrt(1 + (2200 - R0)^2/100000)`` for R0 < 2200, else 50.  Both are
    ``cap / sqrt(a + b (center - R0)^2)`` below ``flat_above`` and ``cap`` above.
    """
    if r0 > flat_above:
        return cap
    return cap / math.sqrt(a + b * (center - r0) ** 2)


def effective_games(n: float, r0: float, **nstar_params) -> float:
    """N' = min(N, N*) (sec. 3)."""
    return min(float(n), n_star(r0, **nstar_params))


def pwe(r: float, ri: float) -> float:
    """Provisional winning expectancy PWe(R, Ri) (sec. 4.1)."""
    if r <= ri - 400.0:
        return 0.0
    if r >= ri + 400.0:
        return 1.0
    return 0.5 + (r - ri) / 800.0


def we(r: float, ri: float) -> float:
    """Standard winning expectancy We(R, Ri) = 1/(1 + 10^(-(R-Ri)/400)) (sec. 4.2)."""
    return 1.0 / (1.0 + 10.0 ** (-(r - ri) / 400.0))


@dataclass
class SpecialTrace:
    """What the knot walk of sec. 4.1 did, for ``--explain``."""

    r0_adj: float = 0.0
    s_adj: float = 0.0
    start: float = 0.0
    moves: list = field(default_factory=list)
    p: int = 0
    clamped: bool = False
    capped: bool = False

    def as_dict(self) -> dict:
        return {"R0'": self.r0_adj, "S'": self.s_adj, "start": self.start, "moves": self.moves,
                "p": self.p, "clamped": self.clamped, "capped": self.capped}


def special_rating(r0: float, n_eff: float, opponents: Sequence[float], score: float, *,
                   all_wins: bool, all_losses: bool, eps: float, cap: float,
                   start: str = "prior", p_inclusive: bool = True,
                   trace: SpecialTrace | None = None) -> float:
    """The "special" rating of sec. 4.1: the R with f(R) = 0, by the knot walk.

    ``f(R) = N' PWe(R, R0') + sum PWe(R, Ri) - S'`` with R0' and S' adjusted for
    an all-wins or all-losses history.  ``start`` is ``"prior"`` (M = R0', the
    2020-09 and 2025 text and, by their own note, the program of 2017 and
    2020-06) or ``"estimate"`` (M = (N'R0' + sum Ri + 400(2S - m))/(N' + m), the
    2017 and 2020-06 text).  ``p_inclusive`` selects the p-count of step 4:
    ``|M - Ri| <= 400`` (2020-06 onward) or ``< 400`` (2017).  The result is
    capped at ``cap`` (2700).
    """
    m = len(opponents)
    if all_wins:
        r0a, sa = r0 - 400.0, score + n_eff
    elif all_losses:
        r0a, sa = r0 + 400.0, score
    else:
        r0a, sa = r0, score + n_eff / 2.0

    def f(r: float, r0a=r0a, n_eff=n_eff, sa=sa, opponents=opponents) -> float:
        # N' PWe(R, R0') + sum PWe(R, Ri) - S', with PWe written out (hot path;
        # the values bound as defaults: read as locals)
        x = r - r0a
        total = n_eff * (0.0 if x <= -400.0 else 1.0 if x >= 400.0 else 0.5 + x / 800.0) - sa
        for ri in opponents:
            x = r - ri
            if x > -400.0:
                total += 1.0 if x >= 400.0 else 0.5 + x / 800.0
        return total

    knots = {r0a - 400.0, r0a + 400.0}  # Ri - 400 and Ri + 400 for R0' and each Ri, once
    for ri in opponents:
        knots.add(ri - 400.0)
        knots.add(ri + 400.0)
    knots = sorted(knots)
    last = len(knots)
    if start == "estimate" and n_eff + m > 0:
        mm = (n_eff * r0a + sum(opponents) + 400.0 * (2.0 * score - m)) / (n_eff + m)
    else:
        mm = r0a
    if trace is not None:
        trace.r0_adj, trace.s_adj, trace.start = r0a, sa, mm

    # f at a knot is kept: a move that lands on the knot does not evaluate it again
    fm = f(mm)
    for _ in range(4 * last + 8):
        if fm > eps:  # step 2: move left
            i = bisect_left(knots, mm)
            if i == 0:
                break
            za = knots[i - 1]
            fa = f(za)
            if -eps < fm - fa < eps:  # |fm - fa| < eps
                mm = za
            else:
                ms = mm - fm * (mm - za) / (fm - fa)
                mm = za if ms < za else ms
            fm = fa if mm == za else f(mm)
        elif fm < -eps:  # step 3: move right
            j = bisect_right(knots, mm)
            if j == last:
                break
            zb = knots[j]
            fb = f(zb)
            if -eps < fb - fm < eps:  # |fb - fm| < eps
                mm = zb
            else:
                ms = mm - fm * (zb - mm) / (fb - fm)
                mm = zb if ms > zb else ms
            fm = fb if mm == zb else f(mm)
        else:
            break
        if trace is not None:
            trace.moves.append(mm)

    # step 4: M lies in a flat stretch when no PWe term is on its slope (p = 0).
    on_r0 = -400.0 <= mm - r0a <= 400.0  # |M - R0'| <= 400
    if on_r0 and trace is None:
        p = 1  # R0' is on its slope; untraced, only whether p is 0 matters
    else:
        p = 1 if on_r0 else 0
        if p_inclusive:
            for ri in opponents:
                if abs(mm - ri) <= 400.0:
                    p += 1
        else:
            for ri in opponents:
                if abs(mm - ri) < 400.0:
                    p += 1
    if trace is not None:
        trace.p = p
    if p == 0 and abs(fm) <= eps:
        i, j = bisect_left(knots, mm), bisect_right(knots, mm)
        za = knots[i - 1] if i > 0 else -math.inf
        zb = knots[j] if j < last else math.inf
        if j > i:  # M on a knot: take the flat side of it
            if i > 0 and abs(f(za)) <= eps:
                zb = mm
            else:
                za = mm
        if za <= r0 <= zb:
            mm = r0
        elif r0 < za:
            mm = za
        else:
            mm = zb
        if trace is not None:
            trace.clamped = True
    if mm > cap:
        mm = cap
        if trace is not None:
            trace.capped = True
    return mm


def approximate_special(r0: float, n: float, opponents: Sequence[float], wins: int,
                        losses: int) -> float:
    """002's approximation of the special formula (the old provisional formula):
    ``(N R + m Ravg + 400 (W - L)) / (N + m)``; an unrated player has N = 0."""
    m = len(opponents)
    if n + m == 0:
        return r0
    return (n * r0 + sum(opponents) + 400.0 * (wins - losses)) / (n + m)


def standard_rating(r0: float, k: float, opponents: Sequence[float], score: float,
                    bonus_eligible: bool, b: float, m_prime_min: int) -> tuple[float, float, float]:
    """The standard formula of sec. 4.2.  Returns (Rs, E, bonus):
    ``Rs = R0 + K(S - E) + max(0, K(S - E) - B sqrt(m'))`` when eligible,
    ``m' = max(m, 4)``; without the bonus term otherwise."""
    e = 0.0
    for ri in opponents:  # We(R0, Ri), written out (hot path)
        e += 1.0 / (1.0 + 10.0 ** (-(r0 - ri) / 400.0))
    gain = k * (score - e)
    bonus = 0.0
    if bonus_eligible:
        m_prime = len(opponents)
        if m_prime_min > m_prime:  # m' = max(m, 4)
            m_prime = m_prime_min
        over = gain - b * math.sqrt(m_prime)
        if over > 0.0:  # max(0, K(S - E) - B sqrt(m'))
            bonus = over
    return r0 + gain + bonus, e, bonus


def age_in_years(birth, end, days_per_year: float) -> float:
    """Age = (Tournament End Date - Birth Date)/365.25 (sec. 2.3)."""
    return (end - birth).days / days_per_year


def age_rating(age: float, young: float, per_year: float, old: float,
               young_below: float, old_above: float) -> float:
    """The age-based rating of sec. 2.3: 100 under 2, 50 x Age to 26, 1300 over."""
    if age < young_below:
        return young
    if age > old_above:
        return old
    return per_year * age


def piecewise(x: float, pieces: Sequence[dict]) -> float:
    """A piecewise-linear conversion: the first piece whose bound admits x
    gives ``intercept + slope * x``.  Each piece has ``below`` (x < below),
    ``upto`` (x <= upto) or neither (the last piece)."""
    for piece in pieces:
        if "below" in piece and not x < piece["below"]:
            continue
        if "upto" in piece and not x <= piece["upto"]:
            continue
        return piece["intercept"] + piece["slope"] * x
    raise ValueError(f"no conversion piece admits {x}")


def floor_level(peak: float, drop: float, levels: Sequence[float]) -> float | None:
    """The established floor of sec. 5: round the highest established rating,
    subtract 200, take the level at or just below (None when below them all).

    ``levels`` in ascending order (as the rule book lists them) are searched
    by bisection; whether they are is found once for the last list asked
    about (:data:`_ASCENDING`)."""
    global _ASCENDING
    target = math.floor(peak + 0.5) - drop  # round_half_up(peak) - drop
    last, ascending = _ASCENDING
    if levels is not last:
        ascending = all(a <= b for a, b in zip(levels, levels[1:]))
        _ASCENDING = (levels, ascending)
    if ascending:  # the highest level at or below the target: the last one
        i = bisect_right(levels, target)
        return levels[i - 1] if i else None
    best = None
    for level in levels:
        if level <= target and (best is None or level > best):
            best = level
    return best


#: The levels :func:`floor_level` was last asked about and whether they are
#: ascending (one pair, replaced whole: safe to read from any thread).
_ASCENDING: tuple = (None, False)


def round_half_up(x: float) -> int:
    """Conventional rounding (sec. 7: "conventional rounding rules")."""
    return int(math.floor(x + 0.5))


@dataclass(frozen=True)
class FormulaSet:
    """The special and the standard formula the rating steps call (which
    ones: ``KERNEL_STATUS``)."""

    special_rating: Callable
    standard_rating: Callable


#: The reference: the two formulas as written in this file.
PURE = FormulaSet(special_rating, standard_rating)


def older_than_sources(built: Path, sources: list) -> bool:
    """Whether one of ``sources`` was changed after ``built`` was (a source
    that is not there does not count; nor does anything when ``built`` is
    not there)."""
    try:
        when = built.stat().st_mtime
    except OSError:
        return False
    for source in sources:
        try:
            if source.stat().st_mtime > when:
                return True
        except OSError:
            continue
    return False


def load_kernel(name: str, mirrors: Sequence[Path] = ()) -> tuple:
    """The compiled module ``uschess.<name>`` of the optional kernel (built
    with ``USCHESS_KERNEL=1`` at install) and "compiled kernel"; None, and
    why, where it is not built or is older than one of its sources: in a
    source tree, its ``.pyx``, the include files (``*.pxi``: the standard
    formula's, the section kernel's last answers), ``setup.py`` (the
    compiler's flags decide results to the last bit: see there) and
    ``mirrors``, the reference modules it does as they do
    (changed since the build, the reference serves until it is built
    again)."""
    try:
        kernel = importlib.import_module(f"uschess.{name}")
    except ImportError:
        return None, "pure Python, no compiled kernel built"
    built = Path(kernel.__file__)
    pyx = built.with_name(f"{name}.pyx")  # beside it in a source tree only
    sources = [pyx, *sorted(built.parent.glob("*.pxi")), built.parent.parent / "setup.py",
               *mirrors]
    if pyx.exists() and older_than_sources(built, sources):
        return None, ("pure Python, the compiled kernel being older than its sources "
                      "(USCHESS_KERNEL=1 pip install -e . builds it again)")
    return kernel, "compiled kernel"


def companion_kernel(name: str, switch: str, mirrors: Sequence[Path]) -> tuple:
    """A kernel module that runs only with the formulas' (the sections',
    the reader's), and a word on it: None, and why, where the formulas'
    kernel does not run, where ``USCHESS_PURE=<switch>`` sets this one aside
    (so that what it alone changes can be measured), or where
    :func:`load_kernel` finds it not built or older than its sources
    (``mirrors`` among them)."""
    if ACTIVE is PURE:
        return None, "pure Python, as the formulas"
    if os.environ.get("USCHESS_PURE") == switch:
        return None, f"pure Python, USCHESS_PURE={switch} is set"
    return load_kernel(name, mirrors)


def _compiled() -> tuple[Optional[FormulaSet], str]:
    """The compiled kernel's formulas (``formulas_kernel.pyx``) and a word
    on it; None, and why, where it is turned off (``USCHESS_PURE=1``), not
    built or older than its sources (:func:`load_kernel`)."""
    if os.environ.get("USCHESS_PURE") == "1":
        return None, "pure Python, USCHESS_PURE=1 is set"
    kernel, status = load_kernel("formulas_kernel", [Path(__file__)])
    if kernel is None:
        return None, status
    return FormulaSet(kernel.special_rating, kernel.standard_rating), status


_KERNEL, KERNEL_STATUS = _compiled()
#: The formulas the steps call: the compiled kernel's where it is built and
#: current (the same results, bit for bit; ``tests/engine/test_formulas_kernel.py``),
#: else the reference's.  ``KERNEL_STATUS`` says which, and why.
ACTIVE = _KERNEL or PURE
special_rating = ACTIVE.special_rating
standard_rating = ACTIVE.standard_rating
