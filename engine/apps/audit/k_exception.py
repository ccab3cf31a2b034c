"""The high-rated dual-rating K exception (sec. 4.2), not applied.

For a player rated above 2200 in a dual-rated section (time control from
G/30 to G/60+5) the standard formula's K is 800(6.5 - 0.0025R)/(N' + m)
below 2500 and 200/(N' + m) from 2500 (``k_dual``), not 800/(N' + m).  No
document dates it; the PACL pages do, and the rules follow them: the plain
K before 2013-05-08, the exception from then on (``rulesets/slots.yaml``,
``k_factor``, learned from the record; ``benchmarks/pacl_dual_k.py`` prints
every post of the evidence: of the OTBR posts of dual-rated sections of the
integer era that the exception moves, the 13 of sections held before
2013-05-08 equal the plain K's integer but one, which is neither, and the
29 of sections held from 2013-06-08 to 2014-08 the exception's).

The cause ``k_exception`` is the event rated with the exception not applied
(K = 800/(N' + m) for every player), tried for a player whose K was the
exception's (under the rules, from 2013-05-08), reported when it reproduces
the post and loses no other published post reproduced (one that loses some
is a ``tradeoff``, named with them).  One rating of the event per audit (a
reform of ``k_dual``, computed once whoever asks).  In the PACL corpus no
post from 2013-05-08 on needs it; it names a page that would.
"""

from __future__ import annotations

import dataclasses

from uschess.apps.audit.cause import Cause, loses, post_of, printed_posts, within
from uschess.apps.audit.inputs import moved_posts, named_posts

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
    # ``above`` and ``top`` at the end of the parameter's domain (rulesets/):
    # no rating reaches them, so no player gets the exception
    never = float(variants.book.timelines["k_dual"].domain["max"])
    kd = dict(row.section.rules.p.k_dual, above=never, top=never)
    res = variants.reform("k_dual", kd, LABEL)
    value = post_of(res, e.section, e.system, e.id)
    if not within(value, e.post, tol):
        return []
    shown = [r for r in rows if r.computed is not None]
    # the posts as computed stand for the inputs' (what moved_posts compares)
    lost, _ = moved_posts([dataclasses.replace(r, with_inferred=r.computed) for r in shown],
                          printed_posts(res), tol)
    if lost:
        return [Cause("tradeoff", f"reproduced with {LABEL} (the post is {value:.2f}), which "
                      f"loses {len(lost)} other published post{'s' if len(lost) != 1 else ''} "
                      f"({named_posts(lost)})", value, e.post,
                      variant={"k_dual": "not applied",
                               "loses": loses(lost)}, posts=res,
                      key=variants.reform_key("k_dual", kd))]
    return [Cause("k_exception", f"{LABEL}: the post is {value:.2f} (K = {row.result.k:.3f} "
                  "with the exception, which the rules apply where the published record shows it)", value,
                  e.post, variant={"k_dual": "not applied"}, posts=res,
                  key=variants.reform_key("k_dual", kd))]
