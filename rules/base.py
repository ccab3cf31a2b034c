"""What every rule plugin carries: its slot, name, source and schedule."""

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
    a date); ``schedule`` says when, in the same form as a parameter's
    ``values:`` (effective date -> {value: <this plugin's name>, source: {doc,
    section}, ...} or a list of them, one per reading of a conflict).
    """

    slot: str = ""
    name: str = ""
    title: str = ""
    source: dict = {}
    schedule: dict = {}


def src(doc: str, section: str, note: Optional[str] = None) -> dict:
    out = {"doc": doc, "section": section}
    if note:
        out["note"] = note
    return out
