"""A pre-event rating printed on no games (``817P0``), rated as a rating.

An MSA page may print a pre-event rating with ``P0``: a rating based on 0
games.  The page reader takes such a player as unrated in that system
(:mod:`uschess.io.formats.page_event`: a ``P0`` pre, like the TD layout's
``1300/00``, reads as an initial rating, and the rules' step 1 gives the
value), so the printed value is dropped: step 1 gives the rules' initial
rating, step 3 a first estimate with N' = 1, and the opponents meet that
estimate in step 4.  Rated instead as the player's rating with N = 0 (sec.
1: "rated" players skip step 3; with N' = 0 the special formula weighs the
value not at all for the player's own post), the opponents meet the printed
value in step 4, and through step 5 the player's own post moves.

Two PACL pages print it, both from 2001-2002, both with the player's post
missed and no other cause: ``XtblMain_200101315530_1`` (JASON M TENNER,
``817P0 -> 1317P3``: 1336 as unrated, 1318 rated at 817 with N = 0, every
other post kept) and ``XtblMain_200204141170_2`` (MATTHEW D STAFF,
``880P0 -> 1171P7``: 1178 as unrated, 1171 so).

Here every such player of the event is rated so at once on top of the inputs
inferred from the page (initial ratings, histories), the whole event rated
once (:data:`MAX_RATINGS`); when that reproduces a post missed and loses no
other published post, the records are kept as an input the page states
(:class:`InferredZeroGames`), and each post it reproduces gets the cause
``zero_games``; one that reproduces a missed post but loses others gets the
cause ``tradeoff``, named with what it loses.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Callable, Optional

from uschess.apps.audit.cause import Cause, loses, within
from uschess.apps.audit.hidden import with_histories
from uschess.apps.audit.inputs import moved_posts, named_posts, rated_posts
from uschess.model import Event, SystemRecord
from uschess.rating.pipeline import RatingOptions

#: Ratings of the whole event per audit at most (every such player at once).
MAX_RATINGS = 1


@dataclass
class ZeroGamesPlayer:
    """A player whose pre-event rating the page prints on 0 games."""

    section: str
    system: str
    id: str
    name: str
    pair: int
    rating: float


@dataclass
class InferredZeroGames:
    """The pre-event ratings printed on 0 games, rated as the players'
    ratings with N = 0, kept because the event reproduces more published
    ratings so and loses none."""

    players: list  # ZeroGamesPlayer
    reproduced: int = 0
    reproduced_before: int = 0

    def as_dict(self) -> dict:
        return {"inferred": "zero_games", **dataclasses.asdict(self)}

    def describe(self) -> str:
        return (f"the pre-event rating{'s' if len(self.players) != 1 else ''} the page prints "
                f"on 0 games ({_who(self.players)}) rated as the player's rating with N = 0 (no step-3 "
                "estimate: the opponents meet the printed value in step 4), not as unrated: "
                f"{self.reproduced} published ratings reproduced, {self.reproduced_before} "
                "without")


def _who(players: list[ZeroGamesPlayer]) -> str:
    """The players as a page would name them: name (id) system rating P0."""
    return ", ".join(f"{p.name} ({p.id}) {p.system} {p.rating:g}P0" for p in players)


def zero_games_players(published, rows) -> list[ZeroGamesPlayer]:
    """The players of ``rows`` (audit rows) whose published entry prints a
    pre-event rating while the event gives them no record in that system:
    the reader's reading of a ``P0`` pre (every other printed pre becomes a
    record)."""
    out = []
    for r in rows:
        e = r.entry
        if e.pre is None or r.result is None:
            continue
        player = r.section.section.player(r.result.pair)
        if e.system not in player.ratings:
            out.append(ZeroGamesPlayer(e.section, e.system, e.id, e.name or e.id,
                                       r.result.pair, float(e.pre)))
    return out


def zero_games_event(event: Event, players: list[ZeroGamesPlayer],
                     player_event: Callable) -> Event:
    """``event`` with each of ``players`` given their printed rating as a
    record on 0 games (``player_event``: the audit's copy of one section's
    player records)."""
    for name in dict.fromkeys(p.section for p in players):
        mine = [p for p in players if p.section == name]

        def change(sec, mine=mine):
            for p in mine:
                sec.player(p.pair).ratings[p.system] = SystemRecord(rating=p.rating, games=0)
        event = player_event(event, name, change)
    return event


def zero_games_causes(published, rows, options: RatingOptions, book, tol: float, inputs,
                      player_event: Callable) -> Optional[InferredZeroGames]:
    """Try the variant of the module text on ``rows``; ``inputs``
    (:class:`uschess.apps.audit.alternate.Inputs`) are the values inferred
    so far, ``rows``' ``with_inferred`` the posts with them (None where
    nothing was inferred: then the computed posts).  Returns what was kept
    (``rows``' ``with_inferred`` then updated), or None."""
    if options.reform is not None or options.edition is not None or MAX_RATINGS < 1:
        return None
    players = zero_games_players(published, rows)
    if not players:
        return None
    inferred = any(r.with_inferred is not None for r in rows)
    shown = {id(r): (r.with_inferred if inferred else r.computed) for r in rows}
    missed = [r for r in rows if r.result is not None
              and not within(shown[id(r)], r.entry.post, tol)]
    if not missed:
        return None
    event = with_histories(zero_games_event(published.event, players, player_event),
                           inputs.histories)
    posts = rated_posts(event, options, inputs.values, inputs.games, book)
    if posts is None:
        return None
    before = [dataclasses.replace(r, with_inferred=shown[id(r)]) for r in rows]
    lost, gained = moved_posts(before, posts, tol)
    gained_ids = {id(r) for r in gained}
    now = [r for r, b in zip(rows, before) if id(b) in gained_ids]
    if not now:
        return None
    what = (f"the pre-event rating{'s' if len(players) != 1 else ''} printed on 0 games "
            f"({_who(players)}), "
            "which the reader takes as unrated, rated as the player's rating with N = 0 (no "
            "step-3 estimate; the opponents meet the printed value in step 4)")
    if lost:
        for r in now:
            value = posts.get((r.entry.section, r.entry.system, r.entry.id))
            r.causes.append(Cause(
                "tradeoff", f"reproduced with {what} (the post is {value:.2f}), which loses "
                f"{len(lost)} other published post{'s' if len(lost) != 1 else ''} "
                f"({named_posts(lost)})", value, r.entry.post,
                variant={"zero_games": [dataclasses.asdict(p) for p in players],
                         "loses": loses(lost)}))
        return None
    count = sum(1 for r in rows
                if within(posts.get((r.entry.section, r.entry.system, r.entry.id)), r.entry.post,
                          tol))
    for r in now:
        value = posts.get((r.entry.section, r.entry.system, r.entry.id))
        r.causes.append(Cause("zero_games", f"{what}: the post is {value:.2f}", value,
                              r.entry.post,
                              variant={"zero_games": [dataclasses.asdict(p) for p in players]}))
    for r in rows:
        r.with_inferred = posts.get((r.entry.section, r.entry.system, r.entry.id))
    return InferredZeroGames(players, count, count - len(now))
