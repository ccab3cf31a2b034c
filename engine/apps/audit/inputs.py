"""What the inference stages share: the inputs inferred so far, the event
rated with them, and what a variant of them keeps and loses.

:class:`Inputs` holds the initial ratings and histories inferred (each
stage of :mod:`uschess.apps.audit.pipeline` may add to them); the initial
ratings answer step 1 through a plugin of their own (:func:`_options`),
registered ahead of the rules so that every other player is rated as the
rules say.  :func:`moved_posts` compares a variant's posts with those the
inputs reproduce.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Optional

from uschess.apps.audit.cause import printed_posts, within
from uschess.apps.audit.hidden import with_histories
from uschess.apps.audit.page_chain import rate_published
from uschess.apps.audit.section_model import INFERRED_HOW
from uschess.calendar.rulebook import Reform
from uschess.errors import InputError
from uschess.model import Event
from uschess.rating.pipeline import RatingOptions
from uschess.rules.base import Initial
from uschess.rules.hookspecs import hookimpl

#: A cause names at most this many of the posts a variant loses.
MAX_NAMED = 3


@dataclass
class Inputs:
    """Everything inferred so far: initial ratings (``values`` and their N
    ``games``, keyed (id, system)), their reports, the hidden histories, and
    how many published ratings the event reproduces with them all."""

    values: dict
    games: dict
    initial: list            # infer.Inferred
    histories: list          # hidden.InferredHistory
    count: int
    #: trade-offs found that reproduce more posts than they lose, as (audit
    #: row, the cause's variant): tried again last
    #: (:func:`~uschess.apps.audit.net_gains.take_net_gains`)
    net_gains: list = field(default_factory=list)

    def event(self, event: Event) -> Event:
        """``event`` with the histories in place."""
        return with_histories(event, self.histories)


def _plain(options: RatingOptions) -> RatingOptions:
    return RatingOptions(rules_on=options.rules_on, known_on=options.known_on,
                         readings=dict(options.readings), trace=False)


class _InitialRatings:
    """A plugin answering step 1 for the players given (firstresult: it is
    registered after the baseline, so it answers first; None hands the other
    players back to the rules)."""

    def __init__(self, values: dict, games: dict):
        self.values, self.games = dict(values), dict(games)

    @hookimpl
    def uschess_initial_rating(self, player, system, end, p, hook):
        value = self.values.get((player.id, system))
        if value is None:
            return None
        return Initial(value, self.games.get((player.id, system), 0), INFERRED_HOW)


def _options(base: RatingOptions, values: dict, games: Optional[dict] = None) -> RatingOptions:
    games = games or {}
    name = "inferred " + json.dumps(sorted((k[0], k[1], v, games.get(k, 0))
                                           for k, v in values.items()))
    return RatingOptions(rules_on=base.rules_on, known_on=base.known_on,
                         readings=dict(base.readings), edition=base.edition,
                         reform=Reform(name=name, extra_plugins=[_InitialRatings(values, games)]),
                         trace=False)


def rated_posts(event, options, values, games, book) -> Optional[dict]:
    """The published posts of ``event`` (with the histories tried) rated with
    the inferred initial ratings ``values`` and game counts ``games``
    (:func:`~uschess.apps.audit.cause.printed_posts`); None when the variant
    does not rate."""
    try:
        return printed_posts(rate_published(event, _options(options, values, games), book=book))
    except InputError:
        return None


def reproduces(row, rows, posts: Optional[dict], tol: float) -> Optional[tuple[float, list, list]]:
    """Where the posts of a variant (:func:`rated_posts`; None: it did not
    rate) reproduce ``row``'s published post: (that post, the rows it loses,
    the rows it gains, :func:`~uschess.apps.audit.tradeoff.moved_posts`
    against ``rows``' current ``with_inferred``); else None."""
    if posts is None:
        return None
    e = row.entry
    value = posts.get((e.section, e.system, e.id))
    if not within(value, e.post, tol):
        return None
    lost, gained = moved_posts(rows, posts, tol)
    return value, lost, gained


def moved_posts(rows, posts: dict, tol: float) -> tuple[list, list]:
    """(lost, gained): the rows whose published post ``rows``' current
    ``with_inferred`` reproduces and ``posts`` ((section, system, id) ->
    post of a variant, :func:`~uschess.apps.audit.cause.printed_posts`) does
    not, and the other way round."""
    lost, gained = [], []
    for r in rows:
        before = within(r.with_inferred, r.entry.post, tol)
        after = within(posts.get((r.entry.section, r.entry.system, r.entry.id)), r.entry.post, tol)
        if before and not after:
            lost.append(r)
        elif after and not before:
            gained.append(r)
    return lost, gained


def named_posts(lost: list) -> str:
    """The first :data:`MAX_NAMED` of the posts a variant loses, named for a
    cause's text (``and N more`` after them)."""
    named = ", ".join(f"{r.entry.name or r.entry.id} ({r.entry.id}, {r.entry.system} "
                      f"{r.entry.post:g})" for r in lost[:MAX_NAMED])
    return named + (f" and {len(lost) - MAX_NAMED} more" if len(lost) > MAX_NAMED else "")


def _settle(rows, tol: float) -> None:
    """A post the inputs reproduce now keeps no trade-off cause: a variant
    taken in after its trade-off was named settled it."""
    for r in rows:
        if r.causes and within(r.with_inferred, r.entry.post, tol):
            r.causes = [c for c in r.causes if c.cause != "tradeoff"]


def _initial_games(row, page: bool) -> int:
    """N of an unrated player's initial rating, from the page: a post printed
    ``P<n>`` after m rated games was initialized with n - m (000 sec. 2: the
    blended N counts as games); a post a page prints established (no
    ``P<n>``) after m games was based on more than ``established_games``
    (002), so N was at least established_games + 1 - m; otherwise the rules'
    own N.  ``page``: the published values come from a page, which prints
    the provisional counts (a published-results file does not)."""
    m = row.result.m
    n_after = row.entry.post_games
    own = row.result.initial.games
    if n_after is not None and n_after >= m:
        return n_after - m
    if page and n_after is None:
        least = row.section.rules.p.established_games + 1 - m
        return max(own, least)
    return own


def _common_values(rules) -> list[float]:
    """The values tried for all unknowns at once before each is solved: the
    age-based range of sec. 2.3 (young to old) in steps of two years."""
    a = rules.p.age_formula
    step = 2 * a["per_year"]
    out, x = [], a["young"]
    while x <= a["old"] + 1e-9:
        out.append(float(x))
        x += step
    return out
