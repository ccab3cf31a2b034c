"""How US Chess rated a match pair that sec. 7 does not allow.

Sec. 7 restriction 1 says both players of an individual match must hold
established published ratings no more than 400 points apart; the documents
say nothing of what happens to a section marked as a match (``Tnmt Type: M``
on its crosstable page) whose players do not qualify.  The published record
shows two answers, one after the other (``rulesets/slots.yaml``, slot
``match_unallowed``, with the pages that show them).  The event file's
``type: match`` keeps the documents' reading (such a pair is refused) unless
the section says ``match_as_rated: true``, as a section read from a page does.
"""

from __future__ import annotations

from uschess.rules.base import RulePlugin, src
from uschess.rules.hookspecs import hookimpl


class MatchRatedAnyway(RulePlugin):
    """Every player of the pair rated as a match: the five steps without
    bonus, the cap per match on the change, floors not automatic, whatever
    the player's games or the gap (learned from the record)."""

    slot = "match_unallowed"
    name = "match-rated-anyway"
    title = "A pair sec. 7 does not allow, rated as a match all the same"
    source = src("record", "matches", "Tnmt Type: M pages, 2016-2018")

    @hookimpl
    def uschess_match_held(self, established, rated, p):
        return False


class MatchHoldProvisional(RulePlugin):
    """A player with a provisional rating keeps it: the games count, the
    rating does not move, and the opponent is rated against it as a match
    (learned from the record).  An unrated player has no rating to keep and
    is rated by the five steps; an established player is rated as a match."""

    slot = "match_unallowed"
    name = "match-hold-provisional"
    title = "A provisional player of a match keeps the pre-event rating"
    source = src("record", "matches", "Tnmt Type: M page of 2020-12")

    @hookimpl
    def uschess_match_held(self, established, rated, p):
        return bool(rated and not established)


__all__ = ["MatchRatedAnyway", "MatchHoldProvisional"]
