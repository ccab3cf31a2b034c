"""Dated values with sources, and their resolution for a date.

A :class:`Timeline` is a parameter (``rulesets/*.yaml``) or a plugin slot
(``rulesets/slots.yaml`` and rule packs' calendars): entries keyed by
effective date, each with the document and section it comes from.  Resolution picks the latest entry in force on a date,
taking into account

* **readings** of recorded conflicts between documents (``rulesets/conflicts.yaml``):
  an entry that belongs to one reading of a conflict counts only when that
  reading is selected (each conflict has a default reading);
* **knowledge dates**: an entry with ``decided_on`` later than the ``known_on``
  date was not yet known then (a correction of the past, as tzdata separates
  corrections from new rules);
* **gaps**: an entry marked ``gap`` is the project's reading where the
  documents give no date or value, and always produces a warning.
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional

from uschess.errors import RuleError

EARLIEST_NOTE = ("the documents describe changes made since 2001-01-01 "
                 "(000 sec. 8); nothing earlier is known")


@dataclass(frozen=True)
class Source:
    doc: str
    section: str
    note: Optional[str] = None

    def cite(self) -> str:
        if self.section[:1].isdigit():
            return f"{self.doc} sec. {self.section}"
        if self.section.startswith(("footnote", "reading", "intro")):
            return f"{self.doc} {self.section}"
        return f'{self.doc} "{self.section}"'

    def as_dict(self) -> dict:
        out = {"doc": self.doc, "section": self.section}
        if self.note:
            out["note"] = self.note
        return out


@dataclass
class Entry:
    effective: _dt.date
    value: Any
    source: Source
    decided_on: Optional[_dt.date] = None
    conflict: Optional[str] = None
    reading: Optional[str] = None
    gap: Optional[str] = None
    note: Optional[str] = None

    @property
    def known_from(self) -> _dt.date:
        return self.decided_on or self.effective

    @property
    def retroactive(self) -> bool:
        return self.decided_on is not None and self.decided_on > self.effective

    def as_dict(self) -> dict:
        out = {"effective": self.effective.isoformat(), "value": self.value,
               "source": self.source.cite()}
        for key in ("conflict", "reading", "gap", "note"):
            if getattr(self, key):
                out[key] = getattr(self, key)
        if self.decided_on:
            out["decided_on"] = self.decided_on.isoformat()
        return out


@dataclass
class Resolved:
    name: str
    value: Any
    entry: Optional[Entry]
    warnings: list[str] = field(default_factory=list)
    origin: str = "history"  # history | edition | reform

    def as_dict(self) -> dict:
        e = self.entry
        return {
            "value": self.value,
            "effective": e.effective.isoformat() if e and self.origin != "edition" else None,
            "source": e.source.doc if e else None,
            "section": e.source.section if e else None,
            "origin": self.origin,
            "conflict": "; ".join(self.warnings) if self.warnings else None,
        }


@dataclass
class Conflict:
    id: str
    description: str
    readings: dict[str, str]  # reading name -> description with sources
    default: str


@dataclass
class Selection:
    """What to resolve: a date, optionally what was known on another date,
    and which reading of each conflict (defaults otherwise)."""

    on: _dt.date
    known_on: Optional[_dt.date] = None
    readings: Mapping[str, str] = field(default_factory=dict)


#: The kinds of value a parameter's ``domain`` may declare.
DOMAIN_TYPES = {"number", "integer", "boolean", "choice", "systems", "table"}


@dataclass
class Timeline:
    name: str
    description: str
    entries: list[Entry]
    kind: str = "parameter"
    #: The values a reform may give (``rulesets/*.yaml`` ``domain:``): the
    #: project's bounds on what the formulas can take, not a document's value.
    domain: Optional[Mapping[str, Any]] = None

    def conflicts(self) -> set[str]:
        return {e.conflict for e in self.entries if e.conflict}

    def candidates(self, sel: Selection, conflicts: Mapping[str, Conflict],
                   override: Optional[Mapping[str, str]] = None) -> list[Entry]:
        chosen = dict(sel.readings)
        if override:
            chosen.update(override)
        out = []
        for e in self.entries:
            if e.effective > sel.on:
                continue
            if sel.known_on is not None and e.known_from > sel.known_on:
                continue
            if e.conflict:
                default = conflicts[e.conflict].default
                if chosen.get(e.conflict, default) != e.reading:
                    continue
            out.append(e)
        return out

    def resolve(self, sel: Selection, conflicts: Mapping[str, Conflict]) -> Resolved:
        cands = self.candidates(sel, conflicts)
        if not cands:
            first = min((e.effective for e in self.entries), default=None)
            raise RuleError(
                f"no rule for {self.name} on {sel.on.isoformat()}: the earliest known is "
                f"{first.isoformat() if first else 'none'} ({EARLIEST_NOTE})")
        entry = cands[-1]
        warnings = []
        if entry.gap:
            warnings.append(f"{self.name} = {_short(entry.value)}: {entry.gap}")
        for cid in sorted(self.conflicts()):
            conflict = conflicts[cid]
            for reading in conflict.readings:
                alt = self.candidates(sel, conflicts, {cid: reading})
                alt_value = alt[-1].value if alt else None
                if alt_value != entry.value:
                    warnings.append(
                        f"{self.name} = {_short(entry.value)} depends on conflict '{cid}': under "
                        f"reading '{reading}' it would be {_short(alt_value)}")
        return Resolved(self.name, entry.value, entry, warnings)


def _short(value: Any) -> str:
    """A value as a warning shows it: scalars in full, tables by kind."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k}: {_short(v)}" for k, v in value.items()) + "}" if len(value) <= 3 else "(another table)"
    if isinstance(value, list):
        return "(another table)" if any(isinstance(v, (Mapping, list)) for v in value) else repr(value)
    return repr(value)


def _source(raw: Any, where: str) -> Source:
    if not isinstance(raw, Mapping) or "doc" not in raw or "section" not in raw:
        raise RuleError(f"{where}: every value needs source: {{doc, section}}")
    return Source(str(raw["doc"]), str(raw["section"]), raw.get("note"))


def _date(value: Any, where: str) -> _dt.date:
    if isinstance(value, _dt.datetime):
        return value.date()
    if isinstance(value, _dt.date):
        return value
    try:
        return _dt.date.fromisoformat(str(value))
    except ValueError:
        raise RuleError(f"{where}: {value!r} is not a date")


def entries_from_raw(values: Any, where: str) -> list[Entry]:
    """Entries from the ``values:`` mapping of a parameter file (date keys,
    each a dict or a list of dicts, one per reading)."""
    if not isinstance(values, Mapping):
        raise RuleError(f"{where}: 'values' must map effective dates to values")
    out = []
    for key, items in values.items():
        effective = _date(key, where)
        for item in (items if isinstance(items, list) else [items]):
            if not isinstance(item, Mapping) or "value" not in item:
                raise RuleError(f"{where} {effective}: needs 'value' and 'source'")
            out.append(Entry(
                effective=effective,
                value=item["value"],
                source=_source(item.get("source"), f"{where} {effective}"),
                decided_on=(_date(item["decided_on"], where) if item.get("decided_on") is not None
                            else None),
                conflict=item.get("conflict"),
                reading=item.get("reading"),
                gap=item.get("gap"),
                note=item.get("note"),
            ))
    out.sort(key=lambda e: e.effective)
    return out


def domain_from_raw(raw: Any, where: str, *, field: bool = False) -> dict:
    """A parameter's ``domain``: ``{type, min?, max?, of?, fields?}``.

    ``type`` is number, integer, boolean, choice (one of ``of``), systems (a
    list of rating systems) or table (a mapping or list shaped like the
    baseline's values, every number finite); ``min``/``max`` bound numbers
    (for a table, every number in it), and a table's ``fields`` give other
    bounds to the numbers under a key.  A field's domain has bounds only."""
    if not isinstance(raw, Mapping):
        raise RuleError(f"{where}: 'domain' must be a mapping like {{type: number, min: 0}}")
    allowed = {"min", "max"} if field else {"type", "min", "max", "of", "fields"}
    unknown = set(raw) - allowed
    if unknown:
        raise RuleError(f"{where}: domain has unknown key(s) {sorted(map(str, unknown))}")
    out = dict(raw)
    if not field and out.get("type") not in DOMAIN_TYPES:
        raise RuleError(f"{where}: domain type {out.get('type')!r} is not one of "
                        f"{', '.join(sorted(DOMAIN_TYPES))}")
    for bound in ("min", "max"):
        value = out.get(bound)
        if value is not None and (isinstance(value, bool) or not isinstance(value, (int, float))):
            raise RuleError(f"{where}: domain {bound} {value!r} is not a number")
    if out.get("type") == "choice" and not isinstance(out.get("of"), list):
        raise RuleError(f"{where}: a choice domain lists its values in 'of'")
    if "fields" in out:
        if out.get("type") != "table" or not isinstance(out["fields"], Mapping):
            raise RuleError(f"{where}: 'fields' maps a table's keys to {{min, max}}")
        out["fields"] = {str(k): domain_from_raw(v, f"{where} field {k}", field=True)
                         for k, v in out["fields"].items()}
    return out


def timelines_from_raw(raw: Mapping, where: str) -> dict[str, Timeline]:
    out = {}
    for name, spec in raw.items():
        if not isinstance(spec, Mapping) or "values" not in spec:
            raise RuleError(f"{where}: parameter {name} needs 'description' and 'values'")
        if "domain" not in spec:
            raise RuleError(f"{where}: parameter {name} needs a 'domain' (the values a reform "
                            "may give)")
        out[name] = Timeline(name=name, description=str(spec.get("description", "")),
                             entries=entries_from_raw(spec["values"], f"{where}: {name}"),
                             domain=domain_from_raw(spec["domain"], f"{where}: {name}"))
    return out


def check_conflict_refs(timelines: Iterable[Timeline], conflicts: Mapping[str, Conflict]) -> None:
    for t in timelines:
        for e in t.entries:
            if e.conflict and e.conflict not in conflicts:
                raise RuleError(f"{t.name} {e.effective}: unknown conflict {e.conflict!r}")
            if e.conflict and e.reading not in conflicts[e.conflict].readings:
                raise RuleError(f"{t.name} {e.effective}: conflict {e.conflict!r} has no reading "
                                f"{e.reading!r}")
