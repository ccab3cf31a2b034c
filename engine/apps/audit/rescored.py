"""The page's N and R cells rated as games, the hidden inputs inferred again.

Some MSA pages print ``N 77`` (a point) or ``R 79`` (half a point) in a
round cell, against a named opponent; the reader takes such a cell as a bye,
no game rated (:func:`uschess.apps.audit.published.scored_cells`).  The cause
``scored_cells`` (:mod:`uschess.apps.audit.checks`) re-rates the event with
them rated as games, each player with their own score, but keeps the inputs
the page cannot show as they were solved on the event *without* those games:
an unrated player's initial rating fitted to posts that the games then move.
On a section with unrated players the two must be solved together, as for a
section corrected after it was rated (:mod:`uschess.apps.audit.corrected`):
the event is audited again with every player's N and R cells of the section
rated as games at once (each side with its own score, the opponent's cell
the mirror where it is not scored itself), the initial ratings and
histories inferred again on it; the variant is kept, as one more input the
page cannot show, when it reproduces more published ratings than the games
the reader takes.

``XtblMain_200504073101_1`` (2005 blitz, double rounds, ten N/R cells): 313
of 324 with the cells as byes and the inputs inferred, 321 with the cells
rated and the inputs inferred again; pairs 25 (1527), 108 (1237) and 163
(1177), missed with no cause before, are reproduced, and pair 181's post
(1013: 1012 before, 1011 now) is lost, a trade-off of the variant's own
inputs that its audit names.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Optional

from uschess.apps.audit.cause import Cause, within
from uschess.errors import InputError
from uschess.model import Round

#: A section with more scored cells than this is not tried (each try is one
#: more audit of the event, inputs inferred).
MAX_CELLS = 40


@dataclass
class InferredScoredCells:
    """A section's N and R cells rated as games, each player with their own
    score, kept because the event re-audited with them (the hidden inputs
    inferred again) reproduces more published ratings."""

    section: str
    #: (pair, round (1-based), code, opponent) of each cell rated
    cells: list
    #: published ratings reproduced with them, and with the cells as byes
    reproduced: int = 0
    reproduced_shown: int = 0
    #: the posts reproduced with the cells as byes that the variant loses
    loses: list = dataclasses.field(default_factory=list)

    def as_dict(self) -> dict:
        return {"inferred": "scored_cells", **dataclasses.asdict(self)}

    def describe(self) -> str:
        what = "; ".join(f"pair {p} round {k}: {code} {opp} as a "
                         f"{'win' if code == 'N' else 'draw'}" for p, k, code, opp in self.cells[:8])
        more = f"; {len(self.cells) - 8} more" if len(self.cells) > 8 else ""
        lost = (f"; it loses {len(self.loses)} post{'s' if len(self.loses) != 1 else ''} "
                f"reproduced with the cells as byes" if self.loses else "")
        return (f"section {self.section}'s N/R cells rated as games with each player's own "
                f"score ({what}{more}; the page prints them as a point or half a point, the "
                f"reader as byes), the inputs the page cannot show inferred again with them: "
                f"{self.reproduced} published ratings reproduced, {self.reproduced_shown} with "
                f"the cells as byes{lost}")


#: What an N or R cell rated as a game is, for the player and for the
#: opponent (whose cell of that round is the mirror): N a point, R half.
SCORED_GAME = {"N": ("W", "L"), "R": ("D", "D")}


def scored_event(event, section: str, cells: list, player_event):
    """``event`` with ``cells`` (:class:`~uschess.apps.audit.published.ScoredCell`
    of ``section``) rated as games, each player with their own score, the
    opponent's cell of that round the mirror unless it is scored itself
    (``N 77`` against ``R 79``: a win for one, a draw for the other).
    ``player_event`` is :func:`uschess.apps.audit.variants._player_event`."""
    own = {(c.pair, c.index) for c in cells}

    def change(s):
        for c in cells:
            me, opp = s.player(c.pair), s.player(c.opponent)
            if min(len(me.rounds), len(opp.rounds)) <= c.index:
                continue
            mine, theirs = SCORED_GAME[c.code]
            me.rounds = list(me.rounds)
            me.rounds[c.index] = Round(mine, c.opponent)
            if (c.opponent, c.index) not in own:
                opp.rounds = list(opp.rounds)
                opp.rounds[c.index] = Round(theirs, c.pair)

    return player_event(event, section, change)


def rescored_cells(a, reaudit: Callable, player_event: Callable) -> Optional[InferredScoredCells]:
    """For each section of audit ``a`` whose page prints N or R cells (at
    most :data:`MAX_CELLS`), audit the event again with them rated as games
    (see the module text; ``reaudit(event)`` audits the page with another
    event, inputs inferred, ``player_event`` as for :func:`scored_event`).
    When that audit reproduces more published ratings, it is kept: ``a``'s
    posts with inferred inputs become its posts, each post it reproduces
    that ``a`` misses and no ``scored_cells`` cause explains gets one, each
    post it loses gets the causes its own audit names, the ``tradeoff``
    causes (between the inputs inferred) are its audit's, and the variant
    is listed first among ``a``'s inferred inputs.  Returns the last variant
    kept (None: none)."""
    published, tol = a.published, a.tolerance
    kept, base = None, published.event  # with the cells kept for the sections before
    for name in dict.fromkeys(c.section for c in published.scored):
        cells = [c for c in published.scored if c.section == name]
        if len(cells) > MAX_CELLS:
            continue
        shown = a.reproduced_inferred if a.reproduced_inferred is not None else a.reproduced
        try:
            event = scored_event(base, name, cells, player_event)
            alt = reaudit(event)
        except (InputError, KeyError, IndexError, ValueError):
            continue
        n = alt.reproduced_inferred if alt.reproduced_inferred is not None else alt.reproduced
        if n <= shown:
            continue
        base = event
        record = InferredScoredCells(name, [(c.pair, c.index + 1, c.code, c.opponent)
                                            for c in cells], n, shown)
        for row, other in zip(a.rows, alt.rows):
            before = row.with_inferred if row.with_inferred is not None else row.computed
            value = other.with_inferred if other.with_inferred is not None else other.computed
            row.with_inferred = value
            # a trade-off is between the inputs inferred: those of the variant now
            row.causes = [c for c in row.causes if c.cause != "tradeoff"] \
                + [c for c in other.causes if c.cause == "tradeoff"]
            if within(before, row.entry.post, tol) and not within(value, row.entry.post, tol):
                record.loses.append({"id": row.entry.id, "system": row.entry.system,
                                     "section": row.entry.section})
                have = {c.cause for c in row.causes}
                row.causes.extend(c for c in other.causes
                                  if c.cause not in have and c.cause != "initialization")
            elif not row.reproduced and within(value, row.entry.post, tol) and not any(
                    c.cause == "scored_cells" and within(c.computed, row.entry.post, tol)
                    for c in row.causes):
                row.causes.append(Cause(
                    "scored_cells", f"section {name}'s N/R cells rated as games with each "
                    "player's own score, the inputs the page cannot show inferred again with "
                    f"them (the reader takes the cells as byes): the post is {value:.2f} "
                    f"({n} of the event's {len(a.rows)} published ratings reproduced, {shown} "
                    "with the cells as byes)", value, row.entry.post,
                    variant={"section": name, "cells": [list(c) for c in record.cells]}))
        a.inferred = [i for i in a.inferred if isinstance(i, InferredScoredCells)] + [record] \
            + [i for i in alt.inferred if not isinstance(i, InferredScoredCells)]
        a.reproduced_inferred = n
        kept = record
    return kept
