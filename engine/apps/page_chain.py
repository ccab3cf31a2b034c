"""Rating published results in sequence, with the page's pre-event ratings
kept where they disagree with the sequence.

US Chess rates an event's sections one after another: a player in two
sections starts the second from the first one's result
(:class:`~uschess.rating.chain.Chain`).  A page prints that pre-event rating,
rounded.  When the earlier section's computed result rounds to what the page
prints for the later one, the chain's full-precision value is used; when it
does not (the earlier section was not reproduced, say because an unrated
player's initialization is not shown), the page's printed value is what US
Chess used and is kept, and the audit says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from uschess.model import Event
from uschess.rating.chain import Chain
from uschess.rating.options import RatingOptions
from uschess.rating.results import EventResult

#: A chained pre-event rating agrees with a printed one within rounding.
ROUNDING = 0.5 + 1e-9


@dataclass
class Overruled:
    """A chained pre-event rating the page's printed one replaced."""

    section: str
    system: str
    id: str
    chained: float
    printed: float

    def describe(self) -> str:
        return (f"section {self.section}, {self.system}: {self.id}'s pre-event rating from the "
                f"earlier section would be {self.chained:.2f}; the page prints {self.printed:g}, "
                "which is used")


class PageChain(Chain):
    """A :class:`Chain` whose chained record gives way to the section's own
    record when the two differ by more than rounding."""

    def __init__(self):
        super().__init__()
        self.overruled: list[Overruled] = []
        self.chained: list[tuple[str, str, str]] = []  # (section, system, id) from the chain

    def _before(self, section, label: str):
        rated, came_from = super()._before(section, label)
        if not came_from:
            return rated, came_from
        printed = {pl.pair: pl.ratings for pl in section.players}
        for pl in rated.players:
            for system, own in printed[pl.pair].items():
                key = (pl.pair, system)
                if key not in came_from:
                    continue
                rec = pl.ratings[system]  # the chain's (pl is the chain's copy)
                if abs(rec.rating - own.rating) > ROUNDING:
                    self.overruled.append(Overruled(section.name, system, pl.id, rec.rating,
                                                    own.rating))
                    pl.ratings[system] = own
                    del came_from[key]
                else:
                    self.chained.append((section.name, system, pl.id))
        return rated, came_from


class SectionsApart(Chain):
    """Every section from its own pre-event records: no chaining (a variant
    the audit tries)."""

    def _before(self, section, label: str):
        return section, {}


def rate_published(event: Event, options: Optional[RatingOptions] = None, book=None,
                   chain: Optional[PageChain] = None) -> EventResult:
    """Rate ``event`` as :func:`uschess.rating.pipeline.rate_event` does, the
    sections in sequence, a printed pre-event rating kept where the sequence
    disagrees with it (see the module text)."""
    return (chain or PageChain()).rate_event(event, options or RatingOptions(), book)
