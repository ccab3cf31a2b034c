"""A provisional player's all-wins or all-losses history with the unrated
players' initial ratings solved again on it.

A page prints a provisional player's earlier game count (``308P3``), never
whether those games were all wins or all losses, which sends the player to
the special formula with R0' moved by 400 (sec. 4.1).  Such a history moves
the player's own step-4 result, which every opponent meets in step 5, and
through the opponents the posts that pin the unrated players' initial
ratings.  The searches before this one try a history on top of the initial
ratings inferred without it (:mod:`uschess.apps.audit.hidden`,
:mod:`uschess.apps.audit.own_history`), and the initial ratings are solved
again only for histories kept (:mod:`uschess.apps.audit.alternate`): a
history that reproduces posts only with the initial ratings moved with it
is never kept.

``XtblMain_200702107561_1`` (K-3 2007, dual): DAVID BODENHEIMER prints
``308P3 -> 274P7`` (OTBR) and ``308P10 -> 270P14`` (OTBQ), 287 and 294 with
the inputs inferred; his OTBQ history as all losses with the initial ratings
solved again reproduces his OTBQ post, JENNIFER E LEVITT's (419) and one
more; his OTBR history so, his OTBR post.  ``XtblMain_202101237032_2``
(blitz 2021): JANELLE MORNINGSTAR, unrated, ``-> 500P2`` after a win over
TAMARA DOVODJA (``260P4``, all four earlier games lost in the event's
section before) and a loss; 750 with the rules' initial rating, 668.75
inferred; with Dovodja's history as all losses (her step 4 falls to 100)
and Morningstar's initial rating solved again, 500.

A history that reproduces posts on its own may also be missed: the
searches before try a provisional player's history only where that
player's own post, or an opponent's reproduced by the same history, is
missed.  ``XtblMain_202103284332_1`` (quick, 2021; no unrated player):
JUSTIN TIERNEY (``503P5 -> 703P12``, 700.79 computed) and LOGAN ALLEN
CARNES (``1116P4 -> 1061P9``, 1057.34) both beat MICHAEL G PHILLIPS
(``1300P2 -> 920P6``, reproduced either way); with Phillips's two earlier
games as wins both posts are reproduced, 8 of 8.

Here the posts still missed with no cause but the initialization are
gathered with the players who could hold such a history: each missed
player and each rated opponent, provisional in that system (earlier games
printed, ``P<n>``: :func:`~uschess.apps.audit.hidden.printed_provisional`)
and with no history inferred yet, those touching the most missed posts
first (Phillips, an opponent of both), a missed player before an opponent,
then in pairing order.  Each history a player does not already have (all
wins, all losses) is tried: the event with that history, and where the
section has unrated players their initial ratings solved again on it from
the values found (:func:`~uschess.apps.audit.alternate.resolve_initial`),
rated with them; there a player's two histories are first rated once each
on the values found, and the one that brings the missed post closer is
solved first (:func:`_closer_second`).
One that reproduces the missed post and loses no published post reproduced
(and, an opponent's history, leaves that opponent's own post no further
from the page's: :func:`~uschess.apps.audit.hidden.moves_away`) is kept
(the history, and the new values, become inferred inputs; cause
``history`` on each post it reproduces).  One that reproduces it but loses
posts is not named: the solve again moves every value of the section, so
what it costs is not one input's.  Each solve starts from values that fitted
the section before, with one input changed, and is given a tenth of a first
solve's work (:data:`uschess.apps.audit.solve.AGAIN`).  At most
:data:`MAX_TRIES` solves per audit and :data:`SOLVE_PLAYERS` players solved
over them, none in a section of more than :data:`MAX_PLAYERS` players, and
:data:`MAX_RATINGS` ratings of the event where there is nothing to solve.
"""

from __future__ import annotations

from uschess.apps.audit.alternate import resolve_initial
from uschess.apps.audit.cause import Cause, within
from uschess.apps.audit.hidden import (InferredHistory, moves_away, printed_provisional,
                                       with_histories)
from uschess.apps.audit.inputs import rated_posts, reproduces
from uschess.apps.audit.solve import AGAIN
from uschess.rating.pipeline import RatingOptions

#: Solves of a section's initial ratings (each with one rating of the event)
#: per audit at most, and the largest section where one is tried (as large
#: as the audit's whole budget of players, :data:`SOLVE_PLAYERS`, so that
#: the largest sections get one solve); ratings of the event per audit at
#: most where the section has no unknown (no solve).
MAX_TRIES, MAX_PLAYERS, MAX_RATINGS = 6, 800, 40
#: The solves' players per audit at most (a solve of an n-player section
#: spends n, each solve within :data:`~uschess.apps.audit.solve.AGAIN`):
#: the work of the searches grows with the section, not with the number of
#: misses, and a small section gets several solves where a large one gets
#: few.  The time it costs is measured by the audit's benchmarks.
SOLVE_PLAYERS = 800


def _candidates(missed: list, taken: set) -> list:
    """(row, pair, player, record, kind) to try: for each missed row, the
    player and each rated opponent, provisional in its system (earlier games
    printed, :func:`~uschess.apps.audit.hidden.printed_provisional`), each
    history it does not have, none already in ``taken`` ((section, system,
    id)); the players touching the most missed posts first (an opponent of
    two missed players before one of one), a missed player before an
    opponent, then in section, system and pairing order."""
    reach: dict = {}
    for r in missed:
        e, sec = r.entry, r.section.section
        me = sec.player(r.result.pair)
        established = int(r.section.rules.p.established_games)
        pairs = [me.pair] + [g.opponent for g in me.rounds if g.rated and g.opponent is not None]
        for pair in dict.fromkeys(pairs):
            pl = sec.player(pair)
            rec = pl.ratings.get(e.system)
            if not printed_provisional(rec, established) \
                    or (e.section, e.system, pl.id) in taken:
                continue
            key = (e.section, e.system, pair)
            got = reach.setdefault(key, [0, False, r, pl, rec])
            got[0] += 1
            if pair == me.pair:  # a missed player's own history before an opponent's
                got[1], got[2] = True, r
    out = []
    for (section, system, pair), (n, own, r, pl, rec) in sorted(
            reach.items(), key=lambda kv: (-kv[1][0], not kv[1][1], kv[0])):
        for kind in ("wins", "losses"):
            if (kind == "wins" and rec.all_wins) or (kind == "losses" and rec.all_losses):
                continue
            out.append((r, pair, pl, rec, kind))
    return out


def histories_again(published, rows, options: RatingOptions, book, tol: float, inputs) -> int:
    """Try the histories of the module text on ``rows`` still missed with
    ``inputs`` (:class:`uschess.apps.audit.alternate.Inputs`, updated with
    what is kept); return how many published ratings are reproduced with
    the inputs after that."""
    if options.reform is not None or options.edition is not None:
        return inputs.count
    shown = any(r.with_inferred is not None for r in rows)
    if not shown:  # nothing inferred: from the posts as computed
        for r in rows:
            r.with_inferred = r.computed
        inputs.count = sum(1 for r in rows if r.reproduced)
    count = _search(published, rows, options, book, tol, inputs)
    if not shown and not inputs.histories:  # nothing kept: still nothing inferred
        for r in rows:
            r.with_inferred = None
        inputs.count = count = None
    return count


def _with_history(published, inputs, e, pl, rec, kind: str) -> tuple[list, object]:
    """The histories inferred so far with ``pl``'s earlier ``e.system`` games
    (``rec``) as all ``kind``, and the published event with them."""
    history = InferredHistory(e.section, e.system, pl.id, pl.name or pl.id, kind, rec.games)
    histories = list(inputs.histories) + [history]
    return histories, with_histories(published.event, histories)


def _closer_second(candidates: list, i: int, published, options, book, inputs) -> bool:
    """Whether the player's other history, next in ``candidates``, brings
    the missed post strictly closer to the page's than the one at ``i``,
    each rated once on the values inferred so far: tried first, since a
    section solved again gets few solves and the first may take the last.
    (``XtblMain_202104259802_2``, 545 players, one solve: ``30160404``'s four
    earlier games as all wins leave his post at 413.9, as all losses bring
    it to 338.8, published 349; the wins came first and took the solve.)"""
    if i + 1 >= len(candidates) or candidates[i][0] is not candidates[i + 1][0] \
            or candidates[i][1] != candidates[i + 1][1]:
        return False
    e = candidates[i][0].entry
    at = []
    for _, _, pl, rec, kind in candidates[i:i + 2]:
        posts = rated_posts(_with_history(published, inputs, e, pl, rec, kind)[1],
                            options, inputs.values, inputs.games, book)
        at.append(None if posts is None else posts.get((e.section, e.system, e.id)))
    first, second = at
    return second is not None and (first is None
                                   or abs(second - e.post) < abs(first - e.post) - 1e-9)


def _search(published, rows, options: RatingOptions, book, tol: float, inputs) -> int:
    """:func:`histories_again` on rows whose ``with_inferred`` is set."""
    unknowns = {(r.entry.section, r.entry.system) for r in rows
                if (r.entry.id, r.entry.system) in inputs.values}
    missed = [r for r in rows if r.result is not None and r.with_inferred is not None
              and not within(r.with_inferred, r.entry.post, tol)
              and all(c.cause == "initialization" for c in r.causes)]
    taken = {(h.section, h.system, h.id) for h in inputs.histories}
    solves = ratings = spent = 0
    candidates = _candidates(missed, taken)
    for i, (r, pair, pl, rec, kind) in enumerate(candidates):
        e = r.entry
        if within(r.with_inferred, e.post, tol) or (e.section, e.system, pl.id) in taken:
            continue
        solve = (e.section, e.system) in unknowns
        if solve:
            size = len(r.section.section.players)
            if solves >= MAX_TRIES or size > MAX_PLAYERS or spent + size > SOLVE_PLAYERS:
                continue
            if _closer_second(candidates, i, published, options, book, inputs):
                candidates[i], candidates[i + 1] = candidates[i + 1], candidates[i]
                r, pair, pl, rec, kind = candidates[i]
            solves += 1
            spent += size
        else:
            if ratings >= MAX_RATINGS:
                continue
            ratings += 1
        histories, event = _with_history(published, inputs, e, pl, rec, kind)
        values, initial = inputs.values, inputs.initial
        if solve:
            got = resolve_initial(event, rows, options, book, tol, inputs, effort=AGAIN)
            if got is None:
                continue
            values, initial = got
        posts = rated_posts(event, options, values, inputs.games, book)
        got = reproduces(r, rows, posts, tol)
        if got is None or got[1]:  # not reproduced, or posts lost
            continue
        if pl.id != e.id and any(  # an opponent's history: their own post not moved away
                moves_away(h.with_inferred, posts.get((e.section, e.system, pl.id)),
                           h.entry.post, tol)
                for h in rows if h.entry.id == pl.id and h.entry.section == e.section
                and h.entry.system == e.system):
            continue
        gained = got[2]
        inputs.histories, inputs.values, inputs.initial = histories, values, initial
        taken.add((e.section, e.system, pl.id))
        inputs.count += len(gained)
        again = (" with the unrated players' initial ratings solved again on it" if solve
                 else " with the inputs inferred from the page")
        for g in gained:
            who = "their own" if pl.id == g.entry.id else f"{pl.name} ({pl.id})'s"
            got_value = posts.get((g.entry.section, g.entry.system, g.entry.id))
            g.causes.append(Cause(
                "history", f"{who} {rec.games} earlier {e.system} games as all {kind} "
                f"(special formula, sec. 4.1), which the page does not show,{again}: the "
                f"post is {got_value:.2f} ({len(gained)} published post"
                f"{'s' if len(gained) != 1 else ''} more reproduced, none lost)",
                got_value, g.entry.post,
                variant={"id": pl.id, "system": e.system, "history": kind,
                         "games": rec.games, "initial_again": solve}))
        for r2 in rows:
            r2.with_inferred = posts.get((r2.entry.section, r2.entry.system, r2.entry.id))
    return inputs.count
