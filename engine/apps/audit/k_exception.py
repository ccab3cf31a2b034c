"""The high-rated dual-rating K exception (sec. 4.2), not applied.

For a player rated above 2200 in a dual-rated section (time control from
G/30 to G/60+5) the standard formula's K is 800(6.5 - 0.0025R)/(N' + m)
below 2500 and 200/(N' + m) from 2500 (``k_dual``), not 800/(N' + m).  The
2017 text is the earliest that prints it, and the rules apply it from 2001
(project reading 5).  The PACL pages disagree before 2013-05.  Of the OTBR
posts of dual-rated sections of the integer era (to 2014-08) that the
exception moves (each page rated as known on its Rated date, with and
without it), the 13 of sections held before 2013-05-08 all equal the plain
K's integer and none the exception's (4 of them by more than the tolerance:
``XtblMain_200810114111_1``, Kuderinov 2483 -> 2489, 2485 with the
exception; ``XtblMain_201006058821_1``; ``XtblMain_201212159262_1``, Brooks
2432 -> 2425, 2429; ``XtblMain_201302235332_1``, Fisher 2428 -> 2443,
2435), and the 29 of sections held from 2013-07-27 to 2014-08 all equal the
exception's and none the plain K's (between 2013-04-27 and 2013-07-27 only
one such post, held by a floor; one of 2008 matches neither, 2234
published, 2236 plain, 2238 with it).  The change falls on or near 2013-05-08,
the N* change of 000 sec. 8, which lists no change of K.

The cause ``k_exception`` is the event rated with the exception not applied
(K = 800/(N' + m) for every player), tried for a player whose K was the
exception's, reported when it reproduces the post and loses no other
published post reproduced (one that loses some is a ``tradeoff``, named
with them).  One rating of the event per audit (a reform of ``k_dual``,
computed once whoever asks).
"""

from __future__ import annotations

from uschess.apps.audit.cause import Cause, post_of, printed_posts, within
from uschess.apps.audit.tradeoff import moved_posts, named_posts

#: ``k_dual.above`` and ``top`` in the variant: no rating reaches them (the
#: parameter's domain ends there), so no player gets the exception.
NEVER = 10000.0

LABEL = "the dual-rating K exception not applied (K = 800/(N' + m))"


def k_exception_applied(row) -> bool:
    """Whether ``row``'s player (an audit row) was rated with the
    exception's K: a standard-formula K other than k_numerator/(N' + m) for
    a pre-event rating above ``k_dual.above`` in a full-K section."""
    pr, sr = row.result, row.section
    if pr is None or pr.k is None or pr.n_eff is None or pr.pre is None \
            or "standard" not in pr.formula or sr.section.half_k:
        return False
    p = sr.rules.p
    kd = p.k_dual
    if not kd or pr.pre <= kd["above"]:
        return False
    return abs(pr.k - p.k_numerator / (pr.n_eff + pr.m)) > 1e-9


def k_exception_causes(row, variants, rows, tol: float) -> list[Cause]:
    """The cause of the module text for ``row`` (a missed audit row);
    ``variants`` the audit's variants (the reform is rated once), ``rows``
    every audit row (for what the variant loses: the posts reproduced as
    computed)."""
    if not k_exception_applied(row):
        return []
    e = row.entry
    kd = dict(row.section.rules.p.k_dual, above=NEVER, top=NEVER)
    res = variants.reform("k_dual", kd, LABEL)
    value = post_of(res, e.section, e.system, e.id)
    if not within(value, e.post, tol):
        return []
    shown = [r for r in rows if r.computed is not None]
    lost, _ = moved_posts([_as_computed(r) for r in shown], printed_posts(res), tol)
    if lost:
        return [Cause("tradeoff", f"reproduced with {LABEL} (the post is {value:.2f}), which "
                      f"loses {len(lost)} other published post{'s' if len(lost) != 1 else ''} "
                      f"({named_posts(lost)})", value, e.post,
                      variant={"k_dual": "not applied",
                               "loses": [{"id": x.entry.id, "system": x.entry.system,
                                          "section": x.entry.section} for x in lost]})]
    return [Cause("k_exception", f"{LABEL}: the post is {value:.2f} (K = {row.result.k:.3f} "
                  "with the exception); the PACL pages show the plain K in dual-rated sections "
                  "before 2013-05-08, the exception after", value, e.post, variant={"k_dual": "not applied"})]


class _Computed:
    """An audit row seen with its computed post as its post with the
    inputs (what :func:`~uschess.apps.audit.tradeoff.moved_posts` compares)."""

    def __init__(self, row):
        self.entry, self.with_inferred = row.entry, row.computed


def _as_computed(row) -> _Computed:
    return _Computed(row)
