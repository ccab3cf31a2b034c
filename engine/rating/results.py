"""What rating produces: one player's result in one system, a section's
results in one system, an event's sections.

Every kind of rated unit (a section, a match, an update from a foreign FIDE
event) gives these same records; a match adds a :class:`MatchOutcome`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from uschess.formulas import round_half_up
from uschess.model import Event, MatchChange, Section, SystemRecord
from uschess.rules.base import Initial
from uschess.timecontrol import TimeControl


@dataclass
class CapOutcome:
    """What the caps of sec. 7 restriction 2 did to one player's change."""

    change_in: float
    change_out: float
    low: float
    high: float
    binding: list[str] = field(default_factory=list)
    windows: list[dict] = field(default_factory=list)

    @property
    def capped(self) -> bool:
        return self.change_out != self.change_in

    def as_dict(self) -> dict:
        return {"change_in": self.change_in, "change_out": self.change_out, "low": self.low,
                "high": self.high, "capped": self.capped, "binding": list(self.binding),
                "windows": self.windows}


@dataclass(slots=True)
class PlayerResult:
    """One player's rating in one system for one rated unit.

    ``pre_from`` names where the pre-event record came from when it is not
    the event file's: an earlier section of the same event (sections are
    rated in order) or, in a replay, the ratings store."""

    pair: int
    id: str
    name: str
    system: str
    pre: Optional[float]
    games_before: int
    m: int
    score: float
    post: Optional[float]  # None: unrated and still unrated (no rated games)
    games_after: int
    formula: str
    initial: Optional[Initial] = None
    n_eff: Optional[float] = None
    step3: Optional[float] = None
    step4: Optional[float] = None
    step5: Optional[float] = None
    k: Optional[float] = None
    bonus: Optional[float] = None
    expected: Optional[float] = None
    floor: Optional[float] = None
    floor_reason: Optional[str] = None
    floor_applied: bool = False
    record_after: Optional[SystemRecord] = None
    depends: frozenset = frozenset()
    warnings: list = field(default_factory=list)
    trace: dict = field(default_factory=dict)
    pre_from: Optional[str] = None

    @property
    def post_rounded(self) -> Optional[int]:
        return None if self.post is None else round_half_up(self.post)

    def as_dict(self) -> dict:
        rec = self.record_after
        init = None
        if self.initial is not None:
            init = {"rating": self.initial.rating, "games": self.initial.games,
                    "how": self.initial.how, "sources": self.initial.sources}
        out = {
            "id": self.id, "pair": self.pair, "name": self.name, "pre": self.pre,
            "pre_from": self.pre_from,
            "post": self.post, "post_rounded": self.post_rounded,
            "games_before": self.games_before, "games_after": self.games_after,
            "m": self.m, "score": self.score, "formula": self.formula, "initial": init,
            "n_eff": self.n_eff, "step3": self.step3, "step4": self.step4, "step5": self.step5,
            "k": self.k, "bonus": self.bonus, "expected": self.expected, "floor": self.floor,
            "floor_reason": self.floor_reason, "floor_applied": self.floor_applied,
            "record_after": rec.as_dict() if rec else None,
            "warnings": list(self.warnings),
        }
        return out


@dataclass
class MatchPlayerResult(PlayerResult):
    """A :class:`PlayerResult` with what the match restrictions of sec. 7 did:
    the change before and after the caps, the earlier match changes they
    looked at (and where they came from), and a request to lower the floor
    (restriction 4: ``floor``, ``requested_floor``, ``rating_if_granted``,
    ``granted``, ``reason``)."""

    change_uncapped: Optional[float] = None
    change: Optional[float] = None
    caps: Optional[CapOutcome] = None
    history: list[MatchChange] = field(default_factory=list)
    history_source: Optional[str] = None
    floor_request: Optional[dict] = None

    def as_dict(self) -> dict:
        out = PlayerResult.as_dict(self)
        out["match"] = {
            "bonus": False, "change_uncapped": self.change_uncapped, "change": self.change,
            "caps": self.caps.as_dict() if self.caps else None,
            "history": [h.as_dict() for h in self.history],
            "history_source": self.history_source, "floor_request": self.floor_request}
        return out


@dataclass
class SectionResult:
    """One section (or match, or FIDE update) rated in one system."""

    section: Section
    system: str
    rules: object  # uschess.calendar.rulebook.Rules
    time_control: Optional[TimeControl]
    players: list[PlayerResult]
    warnings: list[str] = field(default_factory=list)

    def as_dict(self, rules_ref: bool = False) -> dict:
        """``rules_ref``: give the rules as their fingerprint only (an event's
        JSON lists each distinct rule set once, :meth:`EventResult.as_dict`)."""
        rules = self.rules.as_dict()
        warnings = list(rules["warnings"]) + list(self.warnings)
        tc = self.time_control
        return {"name": self.section.name, "system": self.system,
                "time_control": tc.text if tc else None, "mm_plus_ss": tc.total if tc else None,
                "start": self.section.start.isoformat(), "end": self.section.end.isoformat(),
                "rules": rules["fingerprint"] if rules_ref else rules, "warnings": warnings,
                "players": [p.as_dict() for p in self.players]}


@dataclass
class EventResult:
    event: Event
    sections: list[SectionResult]

    def as_dict(self) -> dict:
        """Everything, as ``uschess rate --json`` prints it: each section's
        ``rules`` is the fingerprint of a rule set given once under
        ``rulesets``."""
        e = self.event
        rulesets: dict = {}
        for s in self.sections:
            fp = s.rules.fingerprint
            if fp not in rulesets:
                rulesets[fp] = s.rules.as_dict()
        return {"event": {"name": e.name, "id": e.id, "start": e.start.isoformat(),
                          "end": e.end.isoformat(), "online": e.online, "source": e.source},
                "rulesets": rulesets,
                "sections": [s.as_dict(rules_ref=True) for s in self.sections]}

    def player(self, pid: str, system: Optional[str] = None) -> list[PlayerResult]:
        return [p for s in self.sections for p in s.players
                if p.id == pid and (system is None or s.system == system)]
