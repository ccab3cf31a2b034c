"""An unrated player's initial N where the page bounds it but does not give it.

A page prints an unrated player's post with ``P<n>`` while they are
provisional, and from it the audit reads N (n - m: 000 sec. 2, the blended N
counts as games).  A post printed established after m games says only that
N + m was more than ``established_games``: N is at least
``established_games`` + 1 - m, and at most the largest N step 1 gives an
initial rating (sec. 2: 10 from another US Chess rating, a FIDE or a CFC one,
in the priority lists and in the blended method alike).  The solve takes the
least (:func:`uschess.apps.audit.infer._initial_games`); the record's N may
be any in the range, and the post moves with it (the special formula weighs
the initial rating by N', sec. 4.1).

``XtblMain_202007043302_3`` (online quick, 2020, 29 rounds): JONAH ABRAMS,
unrated, ``-> 849`` established after 19 games, so N of 7 to 10; with 7 and
his initial rating solved, 809.5 and 71 of 86 reproduced; with 10 and the
initial ratings solved again, 848.99 and 85 of 86.

Here each unrated player whose post is still missed (with no cause but the
initialization) and whose N the page bounds that way is tried with each
larger N, from the largest down: the section's initial ratings solved again
with it from the values found, within a tenth of a first solve's work
(:data:`uschess.apps.audit.solve.AGAIN`), the event rated with them.  The
first N that reproduces the missed post and loses no published post
reproduced is kept (the N and the new values become inferred inputs; cause
``initialization`` on each post it reproduces).  At most :data:`MAX_TRIES`
solves per audit and :data:`SOLVE_PLAYERS` players solved over them, none
in a section of more than :data:`MAX_PLAYERS` players (the budgets of
:mod:`uschess.apps.audit.history_again`, whose solves cost the same).
"""

from __future__ import annotations

import dataclasses

from uschess.apps.audit.alternate import resolve_initial
from uschess.apps.audit.cause import Cause, within
from uschess.apps.audit.history_again import MAX_PLAYERS, MAX_TRIES, SOLVE_PLAYERS
from uschess.apps.audit.inputs import rated_posts, reproduces
from uschess.apps.audit.solve import AGAIN
from uschess.rating.pipeline import RatingOptions


def largest_initial_n(p) -> int:
    """The largest N step 1 gives an initial rating under the rules' values
    ``p`` (sec. 2): the priority lists' cap for a US Chess source and their
    N for a FIDE or CFC rating, and the blended method's cap."""
    pg, blended = p.priority_games, p.blended
    return int(max(pg["cap"], pg["fide_high"], pg["cfc_high"], blended["n_cap"]))


def _candidates(rows, inputs, tol: float) -> list:
    """(row, N taken, largest N) for each unrated player's post still missed
    with no cause but the initialization, whose N the page bounds (printed
    established after the event) and whose initial rating was inferred, in
    section, system and pairing order."""
    out = []
    for r in rows:
        e = r.entry
        key = (e.id, e.system)
        if (r.result is None or e.pre is not None or e.post_games is not None
                or key not in inputs.values or r.with_inferred is None
                or within(r.with_inferred, e.post, tol)
                or not all(c.cause == "initialization" for c in r.causes)):
            continue
        out.append((r, inputs.games.get(key, 0), largest_initial_n(r.section.rules.p)))
    return sorted(out, key=lambda c: (c[0].entry.section, c[0].entry.system, c[0].result.pair))


def initial_counts_again(published, rows, options: RatingOptions, book, tol: float,
                         inputs) -> int:
    """Try the larger N of the module text on ``rows`` still missed with
    ``inputs`` (:class:`uschess.apps.audit.alternate.Inputs`, updated with
    what is kept); return how many published ratings are reproduced with
    the inputs after that."""
    if (options.reform is not None or options.edition is not None or published.kind == "json"
            or inputs.count is None):
        return inputs.count
    solves = spent = 0
    for r, taken, largest in _candidates(rows, inputs, tol):
        e = r.entry
        key = (e.id, e.system)
        size = len(r.section.section.players)
        if size > MAX_PLAYERS:
            continue
        for n in range(largest, taken, -1):
            if within(r.with_inferred, e.post, tol):
                break
            if solves >= MAX_TRIES or spent + size > SOLVE_PLAYERS:
                return inputs.count
            solves += 1
            spent += size
            games = {**inputs.games, key: n}
            tried = dataclasses.replace(inputs, games=games)
            event = inputs.event(published.event)
            got = resolve_initial(event, rows, options, book, tol, tried, effort=AGAIN)
            if got is None:
                continue
            values, initial = got
            posts = rated_posts(event, options, values, games, book)
            got = reproduces(r, rows, posts, tol)
            if got is None or got[1]:  # not reproduced, or posts lost
                continue
            gained = got[2]
            inputs.values, inputs.games, inputs.initial = values, games, initial
            inputs.count += len(gained)
            name = r.section.section.player(r.result.pair).name or e.id
            m = r.result.m
            for g in gained:
                got_value = posts.get((g.entry.section, g.entry.system, g.entry.id))
                who = "their own" if g is r else f"{name} ({e.id})'s"
                g.causes.append(Cause(
                    "initialization", f"{who} initial {e.system} rating on N = {n} games: the "
                    f"page prints {name}'s post established after {m} games, so N was "
                    f"{taken} to {largest} (sec. 2), and {taken} was taken; with {n} and the "
                    f"unrated players' initial ratings solved again, the post is "
                    f"{got_value:.2f} ({len(gained)} published post"
                    f"{'s' if len(gained) != 1 else ''} more reproduced, none lost)",
                    got_value, g.entry.post,
                    variant={"id": e.id, "system": e.system, "initial_games": n,
                             "least": taken, "largest": largest}))
            for r2 in rows:
                r2.with_inferred = posts.get((r2.entry.section, r2.entry.system, r2.entry.id))
            break
    return inputs.count
