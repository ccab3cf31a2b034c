"""The causes of a published rating not reproduced, registered in one place.

Each kind of cause is a :class:`~uschess.apps.audit.cause.CauseCheck`
returned by a plugin's ``uschess_audit_causes`` hook
(:mod:`uschess.apps.audit.hookspecs`); :func:`row_causes` asks every one of
them for a row and orders what they find by :data:`CAUSE_ORDER`.
"""

from __future__ import annotations

import functools

import pluggy

from uschess.apps.audit.cause import Cause, CauseCheck
from uschess.apps.audit.checks import BuiltInCauses
from uschess.apps.audit.findings import evidence
from uschess.apps.audit.hookspecs import ENTRY_POINTS, PROJECT, AuditSpec

#: Best explanation first: inputs the page cannot show (and the page's own
#: Rated date) before another value of a rule for one player.  A plugin's
#: cause of another name comes after these.
CAUSE_ORDER = ("floor", "initialization", "zero_games", "known_on", "chaining", "corrected",
               "scored_cells", "games", "rounding", "history", "tradeoff", "bonus_multiplier",
               "k_exception", "effective_games", "reading")


def cause_rank(cause: Cause) -> int:
    """Where ``cause`` comes among a row's causes (:data:`CAUSE_ORDER`)."""
    try:
        return CAUSE_ORDER.index(cause.cause)
    except ValueError:
        return len(CAUSE_ORDER)


@functools.lru_cache(maxsize=1)
def registered_checks() -> tuple[CauseCheck, ...]:
    """Every registered cause check: the audit's own, then those of the
    packages installed under :data:`ENTRY_POINTS`."""
    pm = pluggy.PluginManager(PROJECT)
    pm.add_hookspecs(AuditSpec)
    pm.register(BuiltInCauses(), name="uschess.audit.checks")
    pm.load_setuptools_entrypoints(ENTRY_POINTS)
    found = []
    for got in reversed(pm.hook.uschess_audit_causes()):  # first registered first
        found.extend(got)
    return tuple(found)


def weak_causes() -> frozenset:
    """The names of the causes that fit a rule value (not evidence)."""
    return frozenset(c.name for c in registered_checks() if c.weak)


def row_causes(row, variants, book, tol: float) -> list[Cause]:
    """What every registered check finds for audit row ``row``, best first."""
    out: list[Cause] = []
    for check in registered_checks():
        for c in check.causes(row, variants, book, tol):
            if c.free_values is None:
                c.free_values, c.weak = check.free_values, check.weak
            if c.posts is not None:
                c.evidence = evidence(c.posts, row, variants.rows, tol)
            out.append(c)
    return sorted(out, key=cause_rank)
