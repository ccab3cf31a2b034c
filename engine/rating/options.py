"""How to pick the rules for a rated unit."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass
class RatingOptions:
    """How to pick the rules: by default those in force on each section's start."""

    rules_on: Optional[object] = None      # a date: rate as if every section started then
    known_on: Optional[object] = None
    readings: dict = field(default_factory=dict)
    edition: Optional[str] = None
    reform: Optional[object] = None
    trace: bool = True                     # False: no step-by-step trace, no per-player rule warnings
    grant_floor_requests: bool = False     # matches (sec. 7): grant requests to lower a floor
    match_history: Optional[object] = None  # matches: earlier changes (uschess.rating.match)

    def rules_for(self, book, on):
        """The rules these options pick for a unit starting ``on``."""
        return book.rules(self.rules_on or on, known_on=self.known_on, readings=self.readings,
                          edition=self.edition, reform=self.reform)
