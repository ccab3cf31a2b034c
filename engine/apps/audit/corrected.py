"""A section the page says was corrected after it was rated.

An MSA page prints, in a section's Processed block, "corrections have been
made to this section.  Any impact these corrections may have upon the
ratings from this section will not show up until after the next rerate of
this section" (:func:`uschess.apps.audit.published.corrected_sections`
reads it): the crosstable shows the corrected games, the ratings are those
of the games as first reported.  Which game was corrected the page does
not say; the audit solves it from the posts as one more input the page
cannot show: every game of the section with each of its two other results
(:func:`section_games`), the event audited again with it, unknown initial
ratings and histories inferred, and the game that reproduces the most
published ratings kept when it reproduces more than the games shown.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from uschess.model import MIRROR, Round, Section

#: The largest section, in games, whose games are tried with another
#: result: each game is two audits of the event (its two other results).
CORRECTED_GAMES = 60

#: The results of a game played over the board, in words.
_WORDS = {"W": "a win", "L": "a loss", "D": "a draw"}


@dataclass(frozen=True)
class GameChange:
    """One game of a section rated with another result: player ``pair``'s
    result ``result`` (W, D or L) against ``opponent`` in round ``index``
    (0-based), where the page shows ``shown``."""

    section: str
    index: int
    pair: int
    opponent: int
    shown: str
    result: str

    def apply(self, section: Section) -> None:
        """Edit the rounds of the two players of ``section`` (a copy whose
        players may be edited) to this game's result."""
        me, opp = section.player(self.pair), section.player(self.opponent)
        me.rounds, opp.rounds = list(me.rounds), list(opp.rounds)
        me.rounds[self.index] = Round(self.result, self.opponent)
        opp.rounds[self.index] = Round(MIRROR[self.result], self.pair)

    def describe(self, section: Section) -> str:
        return (f"round {self.index + 1}: pair {self.pair} ({section.player(self.pair).name}) "
                f"against pair {self.opponent} ({section.player(self.opponent).name}) rated as "
                f"{_WORDS[self.result]} for pair {self.pair}, not {_WORDS[self.shown]} as shown")


def section_games(section: Section) -> list[GameChange]:
    """Every game of ``section`` (a W, D or L cell and its opponent's, taken
    once, from the lower pair) with each of its two other results, in round
    then pair order; none when the section has more than
    :data:`CORRECTED_GAMES` games."""
    out = []
    rounds = max((len(p.rounds) for p in section.players), default=0)
    for k in range(rounds):
        for p in sorted(section.players, key=lambda p: p.pair):
            r = p.rounds[k] if k < len(p.rounds) else None
            if r is None or r.code not in _WORDS or r.opponent is None or p.pair > r.opponent:
                continue
            out.extend(GameChange(section.name, k, p.pair, r.opponent, r.code, alt)
                       for alt in "WDL" if alt != r.code)
    return out if len(out) <= 2 * CORRECTED_GAMES else []


@dataclass
class InferredCorrection:
    """The game of a corrected section rated with another result than the
    page shows, solved from the page's posts."""

    section: str
    round: int
    pair: int
    name: str
    opponent: int
    opponent_name: str
    shown: str
    rated: str
    #: published ratings of the event reproduced with it (and the other
    #: inputs inferred with it), and with the games shown
    reproduced: int = 0
    reproduced_shown: int = 0

    def as_dict(self) -> dict:
        return {"inferred": "correction", **dataclasses.asdict(self)}

    def describe(self) -> str:
        return (f"section {self.section} was corrected after it was rated (the page says so): "
                f"its ratings are of round {self.round}, pair {self.pair} ({self.name}) against "
                f"pair {self.opponent} ({self.opponent_name}) as {_WORDS[self.rated]} for pair "
                f"{self.pair}, not {_WORDS[self.shown]} as shown ({self.reproduced} published "
                f"ratings reproduced, {self.reproduced_shown} with the games shown)")
