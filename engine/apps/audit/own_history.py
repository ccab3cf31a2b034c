"""A missed player's own earlier history, tried on top of the inputs inferred.

The ``history`` cause (:mod:`uschess.apps.audit.checks`) tries a player's
earlier games as all wins or all losses (sec. 4.1: the special formula with
R0' = R0 - 400 or R0 + 400) on the event as the page shows it: unrated
opponents at the rules' initial ratings.  :mod:`uschess.apps.audit.hidden`
then solves, as inputs, only the histories that cause named, and those of
provisional players with missed opponents.  A provisional player whose
opponents are all reproduced with their initial ratings inferred, and whose
own post is not, falls between the two: against the rules' initial ratings
no history reproduces the post, against the inferred ones one may.
``XtblMain_202011171112_1``: ANNA LOUISE BLAIR, 559P2 -> 473P5 after three
losses to two new players and an established one; with the new players'
initial ratings inferred she is computed 530.30, with her two earlier games
as losses 472.9, every other post of the section unchanged.

Here each post still missed with no cause but the initialization, of a
provisional player (earlier games printed, ``P<n>``: an established
player's count is not printed), has both histories tried on the whole
event with everything inferred so far (initial ratings, histories).  A
history that reproduces the post and loses no other published post is taken
into the inferred inputs (an :class:`~uschess.apps.audit.hidden.InferredHistory`)
and the post gets the cause ``history``; one that reproduces it but loses
others gets the cause ``tradeoff``, named with the posts it loses.  At most
:data:`MAX_RATINGS` ratings of the event per audit, in pairing order.
"""

from __future__ import annotations

from uschess.apps.audit.cause import Cause, loses, within
from uschess.apps.audit.hidden import InferredHistory, printed_provisional, with_histories
from uschess.apps.audit.inputs import named_posts, rated_posts, reproduces
from uschess.rating.pipeline import RatingOptions

#: Ratings of the whole event at most, per audit.
MAX_RATINGS = 40


def own_histories(published, rows, options: RatingOptions, book, tol: float, inputs) -> int:
    """Try the histories of the module text on ``rows`` still missed with
    ``inputs`` (:class:`uschess.apps.audit.alternate.Inputs`, updated with
    each history kept); return how many published ratings are reproduced
    with the inputs after that."""
    if options.reform is not None or options.edition is not None:
        return inputs.count
    missed = sorted((r for r in rows if r.result is not None and r.with_inferred is not None
                     and not within(r.with_inferred, r.entry.post, tol)
                     and all(c.cause == "initialization" for c in r.causes)),
                    key=lambda r: (r.entry.section, r.entry.system, r.result.pair))
    used = 0
    for r in missed:
        e = r.entry
        rec = r.section.section.player(r.result.pair).ratings.get(e.system)
        if not printed_provisional(rec, r.section.rules.p.established_games) \
                or within(r.with_inferred, e.post, tol) \
                or any((h.section, h.system, h.id) == (e.section, e.system, e.id)
                       for h in inputs.histories):
            continue
        for kind in ("wins", "losses"):
            if (kind == "wins" and rec.all_wins) or (kind == "losses" and rec.all_losses):
                continue
            if used >= MAX_RATINGS:
                return inputs.count
            used += 1
            history = InferredHistory(e.section, e.system, e.id, e.name or e.id, kind, rec.games)
            histories = list(inputs.histories) + [history]
            posts = rated_posts(with_histories(published.event, histories), options,
                                inputs.values, inputs.games, book)
            got = reproduces(r, rows, posts, tol)
            if got is None:
                continue
            value, lost, gained = got
            what = (f"{e.name or e.id}'s {rec.games} earlier {e.system} games as all "
                    f"{kind} (special formula, sec. 4.1), with the inputs inferred from the page")
            if not lost:
                inputs.histories = histories
                inputs.count += len(gained)
                for r2 in rows:
                    r2.with_inferred = posts.get((r2.entry.section, r2.entry.system, r2.entry.id))
                r.causes.append(Cause("history", f"{what}: the post is {value:.2f}; the page "
                                      "does not show the history", value, e.post,
                                      variant={"id": e.id, "system": e.system, "history": kind,
                                               "games": rec.games}))
            else:
                r.causes.append(Cause(
                    "tradeoff", f"reproduced with {what} (the post is {value:.2f}), which "
                    f"loses {len(lost)} other published post{'s' if len(lost) != 1 else ''} "
                    f"({named_posts(lost)}): no one set of the inputs the page hides reproduces "
                    "them all", value, e.post,
                    variant={"id": e.id, "system": e.system, "history": kind,
                             "games": rec.games,
                             "loses": loses(lost)}))
            break
    return inputs.count
