"""The rule book: every dated parameter and plugin, resolved for a date.

``RuleBook.load()`` reads ``rulesets/`` (parameters, conflicts, documents,
editions) and the plugin registry of ``rules/``.  ``RuleBook.rules(...)``
returns the :class:`Rules` in force for a section start date (optionally as
known on another date, under other readings of the recorded conflicts, as one
edition's text has it, or with a reform), resolved once and cached: the
pipeline only reads ``rules.p`` (parameters) and calls ``rules.hook`` (plugins).
"""

from __future__ import annotations

import datetime as _dt
import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from pathlib import Path
from typing import Any, Mapping, Optional

import pluggy
import yaml

import uschess.rules as rule_plugins
from uschess.rules import hookspecs

from uschess.errors import RuleError
from uschess.calendar.timeline import (Conflict, Entry, Resolved, Selection, Source, Timeline,
                       check_conflict_refs, entries_from_raw, timelines_from_raw)

SPECIAL_FILES = {"documents.yaml", "conflicts.yaml"}


class Params:
    """Resolved parameter values, read as attributes (``p.bonus_multiplier``)."""

    def __init__(self, values: Mapping[str, Any]):
        self.__dict__.update(values)

    def __getattr__(self, name):  # only called when missing
        raise RuleError(f"no parameter {name!r} is in force")


@dataclass
class Edition:
    date: _dt.date
    document: str
    title: str
    parameters: dict[str, Entry]
    plugins: dict[str, Entry]


@dataclass
class Reform:
    """Overrides of the baseline for periods: ``parameters`` maps a name to a
    list of (from, until, value, note); ``plugins`` maps a slot to a list of
    (from, until, plugin name, note).  ``until`` is exclusive, None = open."""

    name: str
    parameters: dict[str, list] = field(default_factory=dict)
    plugins: dict[str, list] = field(default_factory=dict)
    extra_plugins: list = field(default_factory=list)  # plugin objects registered last

    def key(self) -> str:
        return json.dumps({"n": self.name, "p": self.parameters, "s": self.plugins,
                           "x": [type(x).__name__ for x in self.extra_plugins]},
                          sort_keys=True, default=str)


@dataclass
class Rules:
    """The combination in force for one section."""

    on: _dt.date
    p: Params
    hook: Any
    params: dict[str, Resolved]
    plugins: dict[str, Resolved]
    known_on: Optional[_dt.date] = None
    edition: Optional[str] = None
    reform: Optional[str] = None
    readings: dict = field(default_factory=dict)

    @property
    def fingerprint(self) -> str:
        blob = json.dumps({"p": {k: v.value for k, v in sorted(self.params.items())},
                           "s": {k: v.value for k, v in sorted(self.plugins.items())}},
                          sort_keys=True, default=str)
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def __post_init__(self):
        self._warn_cache: dict = {}
        self.depends_cache: dict = {}
        self.call = _direct_calls(self.hook)

    def warnings(self, names=None) -> list[str]:
        key = frozenset(names) if names is not None else None
        hit = self._warn_cache.get(key)
        if hit is not None:
            return list(hit)
        out = []
        for group in (self.params, self.plugins):
            for name, res in group.items():
                if names is None or name in names:
                    out.extend(res.warnings)
        self._warn_cache[key] = out
        return list(out)

    def as_dict(self) -> dict:
        return {
            "on": self.on.isoformat(),
            "known_on": self.known_on.isoformat() if self.known_on else None,
            "edition": self.edition,
            "reform": self.reform,
            "readings": dict(self.readings),
            "fingerprint": self.fingerprint,
            "parameters": {k: v.as_dict() for k, v in sorted(self.params.items())},
            "plugins": [{"slot": k, "name": v.value, **v.as_dict()} for k, v in self.plugins.items()],
            "warnings": self.warnings(),
        }


class _Calls:
    """The hooks as plain callables: where one implementation is registered
    (the usual case) it is called directly, skipping pluggy's dispatch; with
    several (a reform over the baseline) the pluggy hook keeps firstresult
    order."""


def _direct_calls(hook) -> _Calls:
    calls = _Calls()
    for name in dir(hook):
        if not name.startswith("uschess_"):
            continue
        caller = getattr(hook, name)
        impls = caller.get_hookimpls()
        setattr(calls, name, impls[0].function if len(impls) == 1 else caller)
    return calls


def _rulesets_dir() -> Path:
    return Path(str(resources.files("uschess.rulesets")))


class RuleBook:
    def __init__(self, timelines: dict[str, Timeline], slots: dict[str, Timeline],
                 conflicts: dict[str, Conflict], documents: dict, editions: dict[str, Edition],
                 plugins: dict[str, type]):
        self.timelines = timelines
        self.slots = slots
        self.conflicts = conflicts
        self.documents = documents
        self.editions = editions
        self.plugin_classes = plugins
        self._cache: dict = {}

    # ---------------------------------------------------------------- loading
    @classmethod
    @lru_cache(maxsize=1)
    def load(cls) -> "RuleBook":
        base = _rulesets_dir()
        timelines: dict[str, Timeline] = {}
        for path in sorted(base.glob("*.yaml")):
            if path.name in SPECIAL_FILES:
                continue
            raw = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
            for name, t in timelines_from_raw(raw, f"rulesets/{path.name}").items():
                if name in timelines:
                    raise RuleError(f"rulesets/{path.name}: parameter {name} defined twice")
                timelines[name] = t
        conflicts_raw = yaml.safe_load((base / "conflicts.yaml").read_text(encoding="utf-8"))
        conflicts = {cid: Conflict(cid, c["description"], dict(c["readings"]), c["default"])
                     for cid, c in conflicts_raw["conflicts"].items()}
        documents = yaml.safe_load((base / "documents.yaml").read_text(encoding="utf-8"))["documents"]
        plugins = {cls_.name: cls_ for cls_ in rule_plugins.ALL}
        slots: dict[str, Timeline] = {}
        for slot in rule_plugins.SLOTS:
            entries = []
            for cls_ in rule_plugins.ALL:
                if cls_.slot == slot and cls_.schedule:
                    entries.extend(entries_from_raw(cls_.schedule, f"rules: {cls_.name}"))
            entries.sort(key=lambda e: e.effective)
            slots[slot] = Timeline(slot, f"plugin slot {slot}", entries, kind="plugin")
        check_conflict_refs([*timelines.values(), *slots.values()], conflicts)
        editions = {}
        for path in sorted((base / "editions").glob("*.yaml")):
            raw = yaml.safe_load(path.read_text(encoding="utf-8"))
            ed_date = _dt.date.fromisoformat(str(raw["edition"]))
            params = {name: entries_from_raw({ed_date: spec}, f"{path.name}: {name}")[0]
                      for name, spec in (raw.get("parameters") or {}).items()}
            plugs = {slot: entries_from_raw({ed_date: spec}, f"{path.name}: {slot}")[0]
                     for slot, spec in (raw.get("plugins") or {}).items()}
            for name in params:
                if name not in timelines:
                    raise RuleError(f"rulesets/editions/{path.name}: unknown parameter {name}")
            for slot, e in plugs.items():
                if slot not in slots or e.value not in plugins:
                    raise RuleError(f"rulesets/editions/{path.name}: unknown plugin {slot}={e.value}")
            editions[ed_date.isoformat()] = Edition(ed_date, str(raw["document"]), raw.get("title", ""),
                                                    params, plugs)
        return cls(timelines, slots, conflicts, documents, editions, plugins)

    # ------------------------------------------------------------- resolving
    def check_readings(self, readings: Mapping[str, str]) -> None:
        for cid, reading in readings.items():
            if cid not in self.conflicts:
                raise RuleError(f"unknown conflict {cid!r} (known: {', '.join(sorted(self.conflicts))})")
            if reading not in self.conflicts[cid].readings:
                raise RuleError(f"conflict {cid!r} has no reading {reading!r} "
                                f"(readings: {', '.join(self.conflicts[cid].readings)})")

    def earliest(self) -> _dt.date:
        return min(e.effective for t in self.timelines.values() for e in t.entries)

    def rules(self, on: _dt.date, *, known_on: Optional[_dt.date] = None,
              readings: Optional[Mapping[str, str]] = None, edition: Optional[str] = None,
              reform: Optional[Reform] = None) -> Rules:
        readings = dict(readings or {})
        key = (on, known_on, tuple(sorted(readings.items())), edition, reform.key() if reform else None)
        hit = self._cache.get(key)
        if hit is not None:
            return hit
        self.check_readings(readings)
        if on < self.earliest():
            raise RuleError(f"{on.isoformat()} is before the earliest rule known "
                            f"({self.earliest().isoformat()}): the documents describe changes "
                            "made since 2001-01-01 (000 sec. 8)")
        ed = None
        if edition is not None:
            ed = self.editions.get(edition)
            if ed is None:
                raise RuleError(f"unknown edition {edition!r} (known: {', '.join(sorted(self.editions))})")
        sel = Selection(on=on, known_on=known_on, readings=readings)
        params: dict[str, Resolved] = {}
        for name, t in self.timelines.items():
            if ed is not None and name in ed.parameters:
                e = ed.parameters[name]
                params[name] = Resolved(name, e.value, e, [], origin="edition")
                continue
            try:
                params[name] = t.resolve(sel, self.conflicts)
            except RuleError:
                continue  # not yet in force on this date (e.g. the personal floor before 2008)
        plugins: dict[str, Resolved] = {}
        for slot, t in self.slots.items():
            if ed is not None and slot in ed.plugins:
                e = ed.plugins[slot]
                plugins[slot] = Resolved(slot, e.value, e, [], origin="edition")
            else:
                plugins[slot] = t.resolve(sel, self.conflicts)
        if reform is not None:
            self._apply_reform(reform, on, params, plugins)
        pm = pluggy.PluginManager(hookspecs.PROJECT)
        pm.add_hookspecs(hookspecs)
        for slot in plugins:
            pm.register(self.plugin_classes[plugins[slot].value](), name=f"{slot}:{plugins[slot].value}")
        for extra in (reform.extra_plugins if reform else []):
            pm.register(extra)
        result = Rules(on=on, p=Params({k: v.value for k, v in params.items()}), hook=pm.hook,
                       params=params, plugins=plugins, known_on=known_on, edition=edition,
                       reform=reform.name if reform else None, readings=readings)
        self._cache[key] = result
        return result

    def _apply_reform(self, reform: Reform, on, params, plugins) -> None:
        for name, periods in reform.parameters.items():
            for start, until, value, note in periods:
                if start <= on and (until is None or on < until):
                    e = Entry(start, value, Source("reform", reform.name, note))
                    params[name] = Resolved(name, value, e, [], origin="reform")
        for slot, periods in reform.plugins.items():
            for start, until, value, note in periods:
                if start <= on and (until is None or on < until):
                    e = Entry(start, value, Source("reform", reform.name, note))
                    plugins[slot] = Resolved(slot, value, e, [], origin="reform")
