"""The trade-offs that reproduce more posts than they lose, taken in last.

A trade-off (:mod:`uschess.apps.audit.tradeoff`) moves one inferred value
and reproduces the post it was made for, but loses others.  Where one
reproduces more than it loses, the page is better fitted with it: after the
other searches, each such variant is tried again on the inputs the audit
ended with and taken in when it still gains; the posts it gives up get a
cause naming it.
"""

from __future__ import annotations

from typing import Optional

from uschess.apps.audit.cause import Cause, loses, names_inferred, printed_posts, within
from uschess.apps.audit.inputs import _options, _plain, _settle, moved_posts, named_posts
from uschess.apps.audit.page_chain import rate_published
from uschess.apps.audit.tradeoff import _take_in
from uschess.errors import InputError
from uschess.rating.pipeline import RatingOptions

def _given_up_causes(lost: list, gained: list, given_up: dict, taken: dict, system: str,
                     first: str, names: dict) -> None:
    """Each post in ``lost`` (its post with the values given up still in
    its ``with_inferred``) gets the ``tradeoff`` cause of the values given
    up (``given_up``: id -> value; ``taken``: id -> the value taken in
    instead; ``first``: the id of the value searched), which reproduce it
    and lose the posts in ``gained``; its ``initialization`` cause naming
    the values inferred then is dropped (the trade-off says what they
    were)."""
    value = given_up.get(first, taken[first])
    again = {pid: x for pid, x in given_up.items() if pid != first}
    who = names.get(first, first)
    for r in lost:
        post = r.with_inferred
        r.causes = [c for c in r.causes if not names_inferred(c)]
        r.causes.append(Cause(
            "tradeoff",
            f"reproduced with {who} ({first})'s initial {system} rating at {value:.0f}"
            + (f" and {len(again)} other unrated players' at the values solved before"
               if again else "")
            + f" (the post is {post:.2f}); the inputs inferred put it at {taken[first]:.0f}"
            + (" with the others solved again around it" if again else "")
            + f", which reproduces {len(gained)} published post{'s' if len(gained) != 1 else ''} "
            f"that those values lose ({named_posts(gained)}): no one set of the inputs the "
            "page hides reproduces them all", post, r.entry.post,
            variant={"id": first, "system": system, "initial_rating": value,
                     "inferred": taken[first], **({"solved_again": again} if again else {}),
                     "loses": loses(gained)}))


def take_net_gains(published, rows, options: RatingOptions, book, tol: float,
                   inputs) -> Optional[int]:
    """The trade-offs found that reproduce more published posts than they
    lose (``inputs.net_gains``), tried again after every other search and
    taken into the inputs where they still do: the page's best fit is the
    set of inputs that reproduces the most posts, and the one-value search
    fits posts one at a time.  Taken in last, since taken in when found
    they would leave the searches after them less to gain (on
    ``XtblMain_202007043302_3`` a trade-off worth three posts would have
    kept the initial counts' search from eleven).  Each post a value taken
    in loses gets the trade-off of the values given up.  Returns how many
    published ratings are reproduced with the inputs after that, or None
    where nothing was tried."""
    pending, inputs.net_gains = inputs.net_gains, []
    if not pending or inputs.count is None:
        return None
    event = inputs.event(published.event)
    try:
        plain = rate_published(event, _plain(options), book=book)
    except InputError:
        return None
    by_key = {(sr.section.name, sr.system): sr for sr in plain.sections}
    names = {r.entry.id: r.entry.name or r.entry.id for r in rows}
    taken = 0
    for r, v in pending:
        if within(r.with_inferred, r.entry.post, tol):
            continue
        system = v["system"]
        key = (r.entry.section, system)
        changed = {v["id"]: v["initial_rating"], **v.get("solved_again", {})}
        sr = by_key.get(key)
        if sr is None or any((pid, system) not in inputs.values for pid in changed):
            continue
        moved = {**inputs.values, **{(pid, system): x for pid, x in changed.items()}}
        try:
            res = rate_published(event, _options(options, moved, inputs.games), book=book)
        except InputError:
            continue
        posts = printed_posts(res)
        if not within(posts.get((r.entry.section, r.entry.system, r.entry.id)), r.entry.post,
                      tol):
            continue
        lost, gained = moved_posts(rows, posts, tol)
        if len(gained) <= len(lost):
            continue
        given_up = {pid: inputs.values[(pid, system)] for pid in changed
                    if inputs.values[(pid, system)] != changed[pid]}
        _given_up_causes(lost, gained, given_up, changed, system, v["id"], names)
        owners = {x.result.pair: x for x in rows if (x.entry.section, x.entry.system) == key
                  and x.result is not None and (x.entry.id, system) in inputs.values}
        _take_in(inputs, rows, sr, owners, moved, posts, {})
        inputs.count += len(gained) - len(lost)
        taken += 1
    if taken:
        _settle(rows, tol)
    return inputs.count
