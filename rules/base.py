"""What every rule plugin carries: its slot, name, title and source."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional


@dataclass
class Initial:
    """Step 1's result for one player in one system (sec. 2)."""

    rating: float
    games: int
    how: str
    sources: list = field(default_factory=list)  # blended: one dict per source k


@dataclass(slots=True)
class EventCounts:
    """What the event being rated adds to a player's record in one system:
    rated wins, draws and losses, and ``events3`` (1 when the player played
    enough rated games to count in N_R of sec. 5: ``event_rated_games``)."""

    wins: int
    draws: int
    losses: int
    events3: int

    @classmethod
    def of_games(cls, m: int, wins: int, draws: int, losses: int,
                 event_games: int) -> "EventCounts":
        """The counts of an event of ``m`` rated games; it counts in N_R with
        at least ``event_games`` (the parameter ``event_rated_games``)."""
        return cls(wins, draws, losses, 1 if m >= event_games else 0)


@dataclass(slots=True)
class Floor:
    """The floor for a player's final rating in one system (sec. 5).

    ``value`` is the highest floor the record proves and ``reason`` names it.
    ``could_be`` is set where earlier win/draw/event counts are unknown and
    the personal absolute floor is in force: the highest floor some earlier
    history could give (at most the cap), and ``unknown`` names the counts
    that are unknown; None and () when the record is complete."""

    value: float
    reason: str
    could_be: Optional[float] = None
    unknown: tuple = ()


class RulePlugin:
    """A rule whose shape changes over time.

    ``slot`` names the question it answers (one plugin per slot is in force on
    a date) and ``name`` is how the calendar (``rulesets/slots.yaml``, a rule
    pack's calendar, an edition or a reform) refers to it; when it is in force
    is data there, never here.  The plugin implements the hook its slot names
    and takes every number from the parameters ``p``.
    """

    slot: str = ""
    name: str = ""
    title: str = ""
    source: dict = {}


def src(doc: str, section: str, note: Optional[str] = None) -> dict:
    out = {"doc": doc, "section": section}
    if note:
        out["note"] = note
    return out
