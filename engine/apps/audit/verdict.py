"""A verdict per published rating: what the audit's evidence for it is worth.

A post reproduced from what the page prints proves the rules; a post
reproduced only after the audit solved inputs the page cannot show (the
unrated players' initial ratings, :mod:`uschess.apps.audit.infer`) proves
something only when the solve did not see it.  An unrated player rated with
N > 0 moves their own post with their initial rating: solved with that post
among the targets, the post is reproduced by construction.  So each such
post is predicted again by a solve that withholds it:

``confirmed``
    reproduced by the rules in force from what the page prints, nothing
    inferred;
``explained``
    missed from what the page prints, reproduced with the inferred inputs,
    and reproduced again when the section's initial ratings are solved
    without this post among the targets (out of sample);
``fitted``
    reproduced only when its own post takes part in the fit;
``floor``
    not reproduced: the published value is a floor level the computed post
    is below, a floor the page cannot show (the level is named);
``unexplained``
    not reproduced.

The solve without a post starts from the rules' own initial ratings, as the
audit's first solve does (never from values fitted with the post, which
would carry it in), with the same solver and work
(:func:`uschess.apps.audit.solve.solve_section`), on the other posts the
inferred inputs reproduce (a post nothing reproduced only keeps a solve
working to its budget).  The section's posts to
be predicted are withheld one at a time (leave-one-out) when there are at
most :data:`FOLDS` of them; else they are dealt in pairing order into
:data:`FOLDS` folds and each fold is withheld at once (k-fold: each post is
still predicted by a solve that did not see it, at a fifth of the cost of
one solve per post on a large page).  A section of more than
:data:`FULL_PLAYERS` players is solved so within a tenth of the work, and
the method says so.  Only the initial ratings are solved
again: a post that needs another inferred input too (an earlier history, a
game count, a corrected game) is not re-inferred and counts as ``fitted``,
so the explained count is a lower bound.  Each section is solved again
alone, so a player's initial rating there is free of the player's other
systems; the one fact per person (:mod:`uschess.apps.audit.person`) ties
them in sample, and a post it does not reproduce is not explained.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from uschess.apps.audit.cause import within
from uschess.apps.audit.inputs import _common_values, _initial_games
from uschess.apps.audit.solve import AGAIN, FULL, Effort, SectionModel, Unknown, solve_section

#: The verdicts, in the order the reports count them.
VERDICTS = ("confirmed", "explained", "fitted", "floor", "unexplained")
#: What each verdict says, as the reports word it.
VERDICT_WORDS = {
    "confirmed": "confirmed (reproduced from what the page prints)",
    "explained": "explained (reproduced with inputs inferred without it: out of sample)",
    "fitted": "fitted (reproduced only when its own post takes part in the fit)",
    "floor": "held by a floor the page cannot show",
    "unexplained": "unexplained (not reproduced)",
}
#: The method of a post whose section has no initial rating to solve again:
#: the inputs that reproduce it (a history, a game count) are not inferred
#: again without it.
NOT_SOLVED = "no initial rating to solve again: its other inferred inputs are not"
#: Posts of a section predicted one at a time up to this many; beyond, in
#: this many folds.
FOLDS = 5
#: Sections of more players than this are solved without a post within
#: :data:`~uschess.apps.audit.solve.AGAIN` (a tenth of the first solve's
#: work): a large section's first solve is the audit's longest step, and
#: the verdicts must not multiply it by the folds.  The method says so.
FULL_PLAYERS = 100


@dataclass
class Verdict:
    """The verdict on one published rating."""

    verdict: str
    #: the post computed with the initial ratings solved without it (None
    #: where no such solve was made)
    out_of_sample: Optional[float] = None
    #: how it was withheld: ``leave-one-out`` or ``k-fold (k = 5)``
    method: Optional[str] = None
    #: the floor level of a ``floor`` verdict
    floor: Optional[float] = None

    def as_dict(self) -> dict:
        return {"verdict": self.verdict, "out_of_sample": self.out_of_sample,
                "method": self.method, "floor": self.floor}

    def describe(self) -> str:
        if self.verdict == "floor":
            return f"held by a floor the page cannot show ({self.floor:g})"
        if self.method == NOT_SOLVED:
            return (f"{self.verdict}: reproduced only by inputs inferred with its own post (a "
                    "history, a game count), which are not inferred again without it")
        if self.verdict in ("explained", "fitted"):
            post = "not computed" if self.out_of_sample is None else f"{self.out_of_sample:.2f}"
            return f"{self.verdict}: without its own post in the fit ({self.method}) {post}"
        return self.verdict


def _folds(pairs: list, players: int) -> tuple[list, str, Effort]:
    """The pairs dealt into folds, the method's name and the work of each
    solve (a section of ``players``)."""
    effort, less = (FULL, "") if players <= FULL_PLAYERS else (
        AGAIN, ", each solve with a tenth of the first solve's work")
    if len(pairs) <= FOLDS:
        return [[p] for p in pairs], "leave-one-out" + less, effort
    return [pairs[k::FOLDS] for k in range(FOLDS)], f"k-fold (k = {FOLDS}){less}", effort


def _section_out_of_sample(sr, here: list, page: bool, tol: float) -> dict:
    """pair -> (post computed without it, method) for each row of ``here``
    (the audit rows of section result ``sr``) reproduced only with inputs
    inferred.  Rows of a section with no unrated player to solve get None."""
    wanted = sorted(r.result.pair for r in here
                    if not r.reproduced and within(r.with_inferred, r.entry.post, tol))
    if not wanted:
        return {}
    mine = sorted((r for r in here if r.entry.pre is None and r.result.initial is not None),
                  key=lambda r: r.result.pair)
    folds, method, effort = _folds(wanted, len(sr.section.players))
    if not mine:
        return {pair: (None, NOT_SOLVED) for pair in wanted}
    games = {r.result.pair: _initial_games(r, page) for r in mine}
    # the posts the inferred inputs reproduce: a post no value reproduced
    # (a floor, a typo) would only keep each solve working to its budget
    targets = {r.result.pair: r.entry.post for r in here
               if within(r.with_inferred, r.entry.post, tol)
               or (r.with_inferred is None and r.reproduced)}
    p = sr.rules.p
    out: dict = {}
    for fold in folds:
        model = SectionModel(sr, games)
        unknowns = [Unknown(r.result.pair, r.entry.id, r.result.initial.rating,
                            games[r.result.pair]) for r in mine]
        seen = {pair: post for pair, post in targets.items() if pair not in fold}
        sol = solve_section(model, unknowns, seen, tol, p.absolute_floor, p.special_cap,
                            common=_common_values(sr.rules), effort=effort)
        posts = sol.posts if sol is not None else model.posts(
            {u.pair: u.start for u in unknowns})
        for pair in fold:
            out[pair] = ((posts or {}).get(pair), method)
    return out


def assign_verdicts(audit, page: bool) -> None:
    """Set ``verdict`` on every row of ``audit`` (see the module text);
    ``page``: the posts come from a page (which prints the provisional
    counts the initial ratings' N are read from)."""
    tol = audit.tolerance
    oos: dict = {}
    for sr in audit.result.sections:
        here = [r for r in audit.rows if r.section is sr and r.result is not None
                and r.computed is not None]
        for pair, got in _section_out_of_sample(sr, here, page, tol).items():
            oos[(sr.section.name, sr.system, pair)] = got
    for r in audit.rows:
        e = r.entry
        if r.reproduced:
            r.verdict = Verdict("confirmed")
        elif r.result is not None and within(r.with_inferred, e.post, tol):
            value, method = oos.get((e.section, e.system, r.result.pair), (None, None))
            r.verdict = Verdict("explained" if within(value, e.post, tol) else "fitted",
                                value, method)
        elif any(c.cause == "floor" for c in r.causes):
            r.verdict = Verdict("floor", floor=e.post)
        else:
            r.verdict = Verdict("unexplained")


def verdict_counts(rows) -> dict:
    """Verdict -> how many rows have it (every verdict named, 0 included)."""
    counts = {v: 0 for v in VERDICTS}
    for r in rows:
        if r.verdict is not None:
            counts[r.verdict.verdict] += 1
    return counts
