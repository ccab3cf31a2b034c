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
