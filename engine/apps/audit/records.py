"""What an audit reports: a row per published rating (the computed post,
the causes found, the verdict) and the audit of the whole event."""

from __future__ import annotations

import dataclasses
import datetime as _dt
from dataclasses import dataclass, field
from typing import Optional

from uschess.apps.audit.cause import Cause
from uschess.apps.audit.findings import FINDING_WORDS, FINDINGS, count_findings
from uschess.apps.audit.published import PublishedEntry, PublishedResults
from uschess.apps.audit.verdict import NOT_SOLVED, Verdict, verdict_counts
from uschess.rating.results import EventResult, PlayerResult, SectionResult


@dataclass
class AuditRow:
    entry: PublishedEntry
    section: Optional[SectionResult]
    result: Optional[PlayerResult]
    computed: Optional[float]
    reproduced: bool
    causes: list[Cause] = field(default_factory=list)
    problem: Optional[str] = None  # why no rating was computed
    explain: Optional[str] = None
    #: the post with the initial ratings inferred from the page (None when
    #: none were inferred for the event)
    with_inferred: Optional[float] = None
    #: what the evidence for the published rating is worth
    #: (:mod:`uschess.apps.audit.verdict`)
    verdict: Optional[Verdict] = None
    #: what the causes of a post missed amount to
    #: (:func:`uschess.apps.audit.findings.row_finding`) and the causes it names
    finding: Optional[str] = None
    finding_causes: list = field(default_factory=list)

    @property
    def diff(self) -> Optional[float]:
        return None if self.computed is None else self.computed - self.entry.post

    @property
    def warnings(self) -> list[str]:
        return list(self.result.warnings) if self.result is not None else []

    def as_dict(self) -> dict:
        e = self.entry
        return {"id": e.id, "system": e.system, "published": e.post, "computed": self.computed,
                "diff": self.diff, "causes": [c.as_dict() for c in self.causes],
                "reproduced": self.reproduced, "section": e.section, "pair": e.pair,
                "name": e.name, "published_pre": e.pre,
                "pre": self.result.pre if self.result is not None else None,
                "warnings": self.warnings, "problem": self.problem, "explain": self.explain,
                "with_inferred": self.with_inferred,
                "verdict": self.verdict.as_dict() if self.verdict is not None else None,
                "finding": (None if self.finding is None else
                            {"finding": self.finding, "causes": list(self.finding_causes)})}


@dataclass
class Audit:
    published: PublishedResults
    result: EventResult
    rows: list[AuditRow]
    tolerance: float
    known_on: Optional[_dt.date] = None
    readings: dict = field(default_factory=dict)
    #: whole-event variants tried that reproduce more published ratings than
    #: the rules in force: (what, how many reproduced), best first
    variants: list = field(default_factory=list)
    #: initial ratings and earlier histories the page cannot show, solved
    #: from its published posts (infer.Inferred, hidden.InferredHistory)
    inferred: list = field(default_factory=list)
    #: how many are reproduced with them
    reproduced_inferred: Optional[int] = None
    #: section chaining: printed pre-event ratings kept over the earlier
    #: section's result (page_chain.Overruled), and (section, system, id)
    #: whose pre came from an earlier section
    overruled: list = field(default_factory=list)
    chained: list = field(default_factory=list)
    #: rule versions of another period that reproduce the page much better
    #: (findings.DatedFinding), reported first
    dated: list = field(default_factory=list)
    #: one explanation per person (person.People), None before that stage
    people: Optional[object] = None

    def by_section(self) -> list[tuple[str, str, int, int]]:
        """(section, system, reproduced, total) in page order."""
        out: dict = {}
        for r in self.rows:
            key = (r.entry.section, r.entry.system)
            n, m = out.get(key, (0, 0))
            out[key] = (n + r.reproduced, m + 1)
        return [(sec, system, n, m) for (sec, system), (n, m) in out.items()]

    @property
    def total(self) -> int:
        return len(self.rows)

    @property
    def reproduced(self) -> int:
        return sum(1 for r in self.rows if r.reproduced)

    @property
    def mismatches(self) -> list[AuditRow]:
        return [r for r in self.rows if not r.reproduced]

    def summary_line(self) -> str:
        tol = f"{self.tolerance:g} point{'s' if self.tolerance != 1 else ''}"
        text = f"{self.reproduced} of {self.total} reproduced within {tol}"
        if self.mismatches:
            found = count_findings(self.mismatches)
            if any(found.values()):  # each miss's finding, "no cause found" counted
                text += f"; of the other {len(self.mismatches)}: " + ", ".join(
                    f"{found[k]} {FINDING_WORDS[k]}" for k in FINDINGS if found[k])
            else:  # (no verdicts: the causes alone)
                explained = sum(1 for r in self.mismatches if r.causes)
                text += f"; {explained} of the other {len(self.mismatches)} with a likely cause"
        head = self.verdict_line()
        return text if head is None else f"{head}; {text}"

    def verdict_counts(self) -> dict:
        """Verdict -> how many published ratings have it."""
        return verdict_counts(self.rows)

    def methods(self) -> list[str]:
        """How the posts reproduced only with inferred inputs were withheld."""
        return sorted({r.verdict.method for r in self.rows
                       if r.verdict is not None and r.verdict.method
                       and r.verdict.method != NOT_SOLVED})

    def verdict_line(self) -> Optional[str]:
        """The headline: confirmed + explained of all, then the rest."""
        if any(r.verdict is None for r in self.rows) or not self.rows:
            return None
        n = self.verdict_counts()
        text = (f"{n['confirmed'] + n['explained']} of {self.total} confirmed or explained "
                f"({n['confirmed']} confirmed, {n['explained']} explained out of sample)")
        rest = [f"{n['fitted']} fitted", f"{n['floor']} held by a floor the page cannot show",
                f"{n['unexplained']} unexplained"]
        return text + ", " + ", ".join(rest)

    def verdicts_dict(self) -> dict:
        """The verdict counts, the headline (confirmed + explained) and the
        in-sample count beside them, as the JSON report gives them."""
        n = self.verdict_counts()
        return {**n, "headline": n["confirmed"] + n["explained"], "total": self.total,
                "in_sample": (self.reproduced_inferred if self.reproduced_inferred is not None
                              else self.reproduced),
                "out_of_sample_methods": self.methods(),
                "fitted_not_solved_again": sum(1 for r in self.rows if r.verdict is not None
                                               and r.verdict.method == NOT_SOLVED),
                "findings": count_findings(self.rows)}

    def warning_groups(self) -> list[tuple[str, list[AuditRow]]]:
        """Each warning a computed rating depended on, with the players it touched."""
        groups: dict[str, list] = {}
        for r in self.rows:
            for w in r.warnings:
                groups.setdefault(w, []).append(r)
        return list(groups.items())

    def sections(self) -> list[dict]:
        return [{"name": s.section.name, "system": s.system, "rules_on": s.rules.on.isoformat(),
                 "known_on": s.rules.known_on.isoformat() if s.rules.known_on else None,
                 "fingerprint": s.rules.fingerprint, "bonus_multiplier": s.rules.p.bonus_multiplier,
                 "warnings": list(s.warnings) + s.rules.warnings()} for s in self.result.sections]

    def as_dict(self) -> dict:
        return {"reproduced": self.reproduced, "total": self.total,
                "players": [r.as_dict() for r in self.rows],
                "summary": self.summary_line(), "source": self.published.source,
                "format": self.published.kind, "tolerance": self.tolerance,
                "known_on": self.known_on.isoformat() if self.known_on else None,
                "readings": dict(self.readings), "notes": list(self.published.notes),
                "sections": self.sections(),
                "variants": [{"variant": v, "reproduced": n} for v, n in self.variants],
                "by_section": [{"section": sec, "system": system, "reproduced": n, "total": m}
                               for sec, system, n, m in self.by_section()],
                "inferred": [i.as_dict() for i in self.inferred],
                "chaining": {"chained": [{"section": a, "system": b, "id": c}
                                         for a, b, c in self.chained],
                             "overruled": [dataclasses.asdict(o) for o in self.overruled]},
                "reproduced_inferred": self.reproduced_inferred,
                "rated_on": (self.published.rated_on.isoformat()
                             if self.published.rated_on else None),
                "warnings": [{"warning": w, "players": [r.entry.id for r in rows]}
                             for w, rows in self.warning_groups()],
                "verdicts": self.verdicts_dict(),
                "dated_findings": [d.as_dict() for d in self.dated],
                "people": {"facts": [f.as_dict() for f in self.people.facts],
                           "implausible": [i.as_dict() for i in self.people.implausible],
                           "two_stories": list(self.people.two_stories)}
                if self.people is not None else None}
