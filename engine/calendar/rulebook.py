"""The rule book: every dated parameter and plugin, resolved for a date.

``RuleBook.load()`` reads ``rulesets/`` (parameters, the plugin calendar
``slots.yaml``, conflicts, documents, editions) and builds the one plugin
manager: the built-in plugins of ``rules/`` and those of installed rule packs
(entry-point group ``uschess.rules``), each with calendar rows.
``RuleBook.rules(...)`` returns the :class:`Rules` in force for a section start
date (optionally as known on another date, under other readings of the
recorded conflicts, as one edition's text has it, or with a reform): a lookup
in the calendar, with no plugin manager per date.  The pipeline only reads
``rules.p`` (parameters) and calls ``rules.call`` (the plugins in force).
"""

from __future__ import annotations

import bisect
import copy
import datetime as _dt
import hashlib
import json
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any, Iterable, Mapping, Optional

import pluggy

import uschess.calendar as calendar_modules
import uschess.rules as rule_plugins
import uschess.rulesets
from uschess.calendar import cache as book_cache
from uschess.rules import hookspecs

from uschess.errors import RuleError
from uschess.calendar.timeline import (Conflict, Entry, Resolved, Selection, Source, Timeline,
                       check_conflict_refs, entries_from_raw, timelines_from_raw)

SPECIAL_FILES = {"documents.yaml", "conflicts.yaml", "slots.yaml"}
ENTRY_POINT_GROUP = "uschess.rules"
"""The entry-point group an installed rule pack registers its plugins in."""


class Params:
    """Resolved parameter values, read as attributes (``p.bonus_multiplier``)."""

    def __init__(self, values: Mapping[str, Any]):
        self.__dict__.update(values)

    def __getattr__(self, name):  # only called when missing
        if name.startswith("__") and name.endswith("__"):  # copy and pickle look for these
            raise AttributeError(name)
        raise RuleError(f"no parameter {name!r} is in force")


@dataclass
class Edition:
    date: _dt.date
    document: str
    title: str
    parameters: dict[str, Entry]
    plugins: dict[str, Entry]


@dataclass(frozen=True)
class Period:
    """One override of a reform: ``value`` (a parameter's value, or a
    plugin's name for a slot) from ``start`` until the day before ``until``
    (None: open-ended), with the reform's note."""

    start: _dt.date
    until: Optional[_dt.date]
    value: Any
    note: Optional[str] = None

    def covers(self, on: _dt.date) -> bool:
        return self.start <= on and (self.until is None or on < self.until)


@dataclass
class Reform:
    """Overrides of the baseline for periods: ``parameters`` maps a name, and
    ``plugins`` a slot, to a list of :class:`Period`."""

    name: str
    parameters: dict[str, list[Period]] = field(default_factory=dict)
    plugins: dict[str, list[Period]] = field(default_factory=dict)
    extra_plugins: list = field(default_factory=list)  # plugin objects that answer first

    def key(self) -> str:
        def rows(group):
            return {k: [[p.start, p.until, p.value, p.note] for p in v] for k, v in group.items()}
        return json.dumps({"n": self.name, "p": rows(self.parameters), "s": rows(self.plugins),
                           "x": [type(x).__name__ for x in self.extra_plugins]},
                          sort_keys=True, default=str)


@dataclass
class Rules:
    """The combination in force for one section."""

    on: _dt.date
    p: Params
    call: Any
    params: dict[str, Resolved]
    plugins: dict[str, Resolved]
    known_on: Optional[_dt.date] = None
    edition: Optional[str] = None
    reform: Optional[str] = None
    readings: dict = field(default_factory=dict)
    #: slot -> the plugin object filling it (see :meth:`plugin`)
    slot_plugins: dict = field(default_factory=dict, repr=False, compare=False)

    @property
    def fingerprint(self) -> str:
        """What the ratings depended on: parameter values and plugin names."""
        if self._fingerprint is not None:
            return self._fingerprint
        blob = json.dumps({"p": {k: v.value for k, v in sorted(self.params.items())},
                           "s": {k: v.value for k, v in sorted(self.plugins.items())}},
                          sort_keys=True, default=str)
        self._fingerprint = hashlib.sha256(blob.encode()).hexdigest()[:16]
        return self._fingerprint

    def __post_init__(self):
        self._warn_cache: dict = {}
        self._fingerprint: Optional[str] = None

    def plugin(self, slot: str):
        """The plugin object the calendar put in ``slot`` for these rules, for
        the methods its slot provides besides the hook
        (``uschess.rules.hookspecs.SLOT_METHODS``)."""
        return self.slot_plugins[slot]

    def dated(self, on: _dt.date) -> "Rules":
        """The same rules (sharing their calls, caches and fingerprint) in force
        on another date of the same period, carrying that date for messages."""
        out = copy.copy(self)
        out.on = on
        return out

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
    """The slot hooks as plain callables: for each hook, the implementation of
    the plugin the calendar put in its slot (``rules.call.uschess_k_factor(...)``).
    One object per combination of plugins, shared by every date that has it."""

    def __repr__(self) -> str:
        return "<rules.call " + ", ".join(sorted(self.__dict__)) + ">"


def _first_result(functions: list):
    """pluggy's ``firstresult`` order over plain functions: the first answer
    that is not None (a reform plugin can hand a case back)."""

    def call(**kwargs):
        for fn in functions:
            got = fn(**kwargs)
            if got is not None:
                return got
        return None
    return call


def _rulesets_dir() -> Path:
    return Path(uschess.rulesets.__path__[0])


def _read_yaml(path, where: Optional[str] = None) -> Any:
    """A rule file's data (``where`` names it in an error; default its
    path under ``rulesets/``), read with libyaml's loader where PyYAML was
    built with it (ten times faster on the rule files, the same safe
    subset), else PyYAML's own.  PyYAML is imported here: a rule book from
    the cache needs none of it."""
    import yaml

    try:
        return yaml.load(Path(path).read_text(encoding="utf-8"),
                         Loader=getattr(yaml, "CSafeLoader", yaml.SafeLoader))
    except (OSError, yaml.YAMLError) as err:
        where = where or f"rulesets/{Path(path).name}"
        raise RuleError(f"{where}: cannot be read ({str(err).splitlines()[0]})")


class RuleBook:
    """Every dated parameter and the plugin calendar, with the one plugin
    manager (built by :meth:`build`) that holds every rule plugin: the
    built-in ones (``uschess.rules.ALL``) and those of installed rule packs
    (entry-point group ``uschess.rules``).  Resolving a date is a lookup:
    which registered implementation fills each slot is read from the
    calendar, and ``rules.call`` calls it directly."""

    def __init__(self, timelines: dict[str, Timeline], slots: dict[str, Timeline],
                 conflicts: dict[str, Conflict], documents: dict, editions: dict[str, Edition],
                 registered: dict[str, Any], slot_hooks: dict[str, str],
                 functions: dict[str, Any], manager: Optional[pluggy.PluginManager]):
        self.timelines = timelines
        self.slots = slots
        self.conflicts = conflicts
        self.documents = documents
        self.editions = editions
        self.registered = registered       # plugin name -> registered plugin object
        self.slot_hooks = slot_hooks       # slot -> hook name
        self.functions = functions         # plugin name -> its implementation of its slot's hook
        self._manager = manager            # None: built on first use (see :attr:`manager`)
        self._cache: dict = {}
        self._calls: dict = {}
        self._points: dict = {}
        self._earliest = min(e.effective for t in timelines.values() for e in t.entries)
        #: the rule packs' calendar files read, and whether any plugin came
        #: from an installed rule pack's entry point (what the cache checks)
        self.calendar_files: list[str] = []
        self.from_entry_points = bool(manager is not None and manager.list_plugin_distinfo())

    @property
    def manager(self) -> pluggy.PluginManager:
        """The plugin manager holding :attr:`registered`.  A book from the
        cache with built-in plugins only has none until asked (a reform's
        extra plugins are checked with it): it is built then, registering
        the very plugin objects the book calls."""
        if self._manager is None:
            self._manager = _manager((), None, builtins=self.registered.values())
        return self._manager

    # ---------------------------------------------------------------- loading
    @classmethod
    @lru_cache(maxsize=1)
    def load(cls) -> "RuleBook":
        """The rule book of ``rulesets/`` with every installed rule pack (built
        once), from the compiled cache while no rule file, rule module,
        installed distribution or version has changed since it was written
        (:mod:`uschess.calendar.cache`), else built from the YAML and cached."""
        return cls.load_compiled()

    @classmethod
    def load_compiled(cls, rulesets: Optional[Path] = None) -> "RuleBook":
        """The rule book of ``rulesets`` (default: the installed
        ``uschess.rulesets``) with every installed rule pack, from the cache
        when it is up to date, else built (:meth:`build`) and cached."""
        base = Path(rulesets) if rulesets is not None else _rulesets_dir()
        path = book_cache.cache_file(base)
        if path is None:
            return cls.build(base)
        want = book_cache.key(base, [Path(rule_plugins.__path__[0]),
                                     Path(calendar_modules.__path__[0])])
        data = book_cache.load(path, want)
        if data is not None:
            book = cls._from_compiled(data)
            if book is not None:
                return book
        book = cls.build(base)
        book_cache.store(path, want, book._compiled(), book.calendar_files)
        return book

    def _compiled(self) -> dict:
        """What the cache keeps of this book: everything read from the rule
        files and checked, and what the plugin manager held."""
        return {"timelines": self.timelines, "slots": self.slots, "conflicts": self.conflicts,
                "documents": self.documents, "editions": self.editions,
                "slot_hooks": self.slot_hooks, "registered": sorted(self.registered),
                "entry_points": self.from_entry_points}

    @classmethod
    def _from_compiled(cls, data: dict) -> Optional["RuleBook"]:
        """The book from its cached data.  Where the cached book had no rule
        pack, the built-in plugins are made and their slots' functions looked
        up directly (:func:`_builtin_plugins`), with no plugin manager;
        otherwise the plugins are registered afresh, the installed rule
        packs' entry points among them.  None when the plugins now are not
        those the cache was built with."""
        if data["entry_points"]:
            manager = _manager((), ENTRY_POINT_GROUP)
            registered, functions = _rule_plugins(manager, data["slot_hooks"])
        else:
            manager = None
            try:
                registered, functions = _builtin_plugins(data["slot_hooks"])
            except (KeyError, AttributeError, TypeError):  # not the cache's plugins: rebuild
                return None
        if sorted(registered) != data["registered"]:
            return None
        book = cls(data["timelines"], data["slots"], data["conflicts"], data["documents"],
                   data["editions"], registered, data["slot_hooks"], functions, manager)
        book.from_entry_points = data["entry_points"]
        return book

    @classmethod
    def build(cls, rulesets: Optional[Path] = None, *, plugins: Iterable[Any] = (),
              entry_point_group: Optional[str] = ENTRY_POINT_GROUP) -> "RuleBook":
        """Read ``rulesets`` (default: the installed ``uschess.rulesets``) and
        register the built-in plugins, then ``plugins`` (objects, as a rule
        pack's entry point would give them), then the entry points of
        ``entry_point_group`` (None: none).  Everything is checked here: a
        calendar row naming an unknown plugin, a slot whose hook has no
        specification, a specification without a slot, a plugin that is in no
        slot or in force on no date, are refused with a message naming them."""
        base = Path(rulesets) if rulesets is not None else _rulesets_dir()
        timelines: dict[str, Timeline] = {}
        for path in sorted(base.glob("*.yaml")):
            if path.name in SPECIAL_FILES:
                continue
            raw = _read_yaml(path) or {}
            for name, t in timelines_from_raw(raw, f"rulesets/{path.name}").items():
                if name in timelines:
                    raise RuleError(f"rulesets/{path.name}: parameter {name} defined twice")
                timelines[name] = t
        conflicts_raw = _read_yaml(base / "conflicts.yaml")
        conflicts = {cid: Conflict(cid, c["description"], dict(c["readings"]), c["default"])
                     for cid, c in conflicts_raw["conflicts"].items()}
        documents = dict(_read_yaml(base / "documents.yaml")["documents"])

        manager = _manager(plugins, entry_point_group)
        slots_raw = _read_yaml(base / "slots.yaml", "rulesets/slots.yaml") or {}
        slot_hooks = _slot_hooks(slots_raw)
        registered, functions = _rule_plugins(manager, slot_hooks)

        rows: dict[str, list[Entry]] = {
            slot: entries_from_raw(spec.get("values"), f"rulesets/slots.yaml: {slot}")
            for slot, spec in slots_raw.items()}
        calendar_files = []
        for where, raw in _pack_calendars(manager):
            calendar_files.append(where)
            _add_pack_calendar(raw, where, rows, documents)
        slots: dict[str, Timeline] = {}
        for slot, spec in slots_raw.items():
            entries = sorted(rows[slot], key=lambda e: e.effective)
            _check_rows(slot, entries, registered, documents)
            slots[slot] = Timeline(slot, str(spec.get("description", "")), entries, kind="plugin")
        check_conflict_refs([*timelines.values(), *slots.values()], conflicts)

        editions = {}
        for path in sorted((base / "editions").glob("*.yaml")):
            raw = _read_yaml(path, f"rulesets/editions/{path.name}")
            ed_date = _dt.date.fromisoformat(str(raw["edition"]))
            params = {name: entries_from_raw({ed_date: spec}, f"{path.name}: {name}")[0]
                      for name, spec in (raw.get("parameters") or {}).items()}
            plugs = {slot: entries_from_raw({ed_date: spec}, f"{path.name}: {slot}")[0]
                     for slot, spec in (raw.get("plugins") or {}).items()}
            for name in params:
                if name not in timelines:
                    raise RuleError(f"rulesets/editions/{path.name}: unknown parameter {name}")
            for slot, e in plugs.items():
                if slot not in slots or getattr(registered.get(e.value), "slot", None) != slot:
                    raise RuleError(f"rulesets/editions/{path.name}: unknown plugin {slot}={e.value}")
            editions[ed_date.isoformat()] = Edition(ed_date, str(raw["document"]), raw.get("title", ""),
                                                    params, plugs)

        reachable = {e.value for t in slots.values() for e in t.entries}
        reachable |= {e.value for ed in editions.values() for e in ed.plugins.values()}
        for name, plugin in registered.items():
            if name not in reachable:
                raise RuleError(f"plugin {name} (slot {plugin.slot}) is in force on no date: give it a "
                                "row in rulesets/slots.yaml (or its rule pack's calendar) or an edition")
        earliest = min(e.effective for t in timelines.values() for e in t.entries)
        for slot, t in slots.items():
            if not t.entries or t.entries[0].effective > earliest:
                raise RuleError(f"rulesets/slots.yaml: slot {slot} has no plugin in force on "
                                f"{earliest.isoformat()}, the earliest rule date")
        book = cls(timelines, slots, conflicts, documents, editions, registered, slot_hooks,
                   functions, manager)
        book.calendar_files = calendar_files
        return book

    def plugins_in(self, slot: str) -> list[str]:
        """Names of the registered plugins that can fill ``slot``."""
        return [name for name, plugin in self.registered.items() if plugin.slot == slot]

    # ------------------------------------------------------------- resolving
    def check_readings(self, readings: Mapping[str, str]) -> None:
        for cid, reading in readings.items():
            if cid not in self.conflicts:
                raise RuleError(f"unknown conflict {cid!r} (known: {', '.join(sorted(self.conflicts))})")
            if reading not in self.conflicts[cid].readings:
                raise RuleError(f"conflict {cid!r} has no reading {reading!r} "
                                f"(readings: {', '.join(self.conflicts[cid].readings)})")

    def earliest(self) -> _dt.date:
        return self._earliest

    def rules(self, on: _dt.date, *, known_on: Optional[_dt.date] = None,
              readings: Optional[Mapping[str, str]] = None, edition: Optional[str] = None,
              reform: Optional[Reform] = None) -> Rules:
        """The rules in force on ``on``: those resolved for the latest date on
        or before it on which anything can change (see :meth:`_change_points`),
        resolved once per period and handed out carrying ``on``."""
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
        rest = key[1:]
        points = self._points.get(rest)
        if points is None:
            points = self._points[rest] = self._change_points(reform)
        start = points[bisect.bisect_right(points, on) - 1]
        base = self._cache.get((start, *rest))
        if base is None:
            base = self._resolve(start, known_on, readings, edition, ed, reform)
            base.fingerprint  # computed once for every date that shares these rules
            self._cache[(start, *rest)] = base
        result = base if start == on else base.dated(on)
        self._cache[key] = result
        return result

    def forget_reforms(self) -> None:
        """Drop the rules resolved for reforms, keeping the book's own.  An
        audit resolves a reform for each set of values it tries (its inferred
        initial ratings are a reform, :func:`uschess.apps.audit.infer._options`);
        a process that audits page after page calls this between pages, so the
        cache does not grow with the pages.  The keys are those of
        :meth:`rules`, (date, known_on, readings, edition, reform key), and of
        the change points, (known_on, readings, edition, reform key)."""
        self._cache = {k: v for k, v in self._cache.items() if k[4] is None}
        self._points = {k: v for k, v in self._points.items() if k[3] is None}

    def _change_points(self, reform: Optional[Reform]) -> list[_dt.date]:
        """The dates on which resolution can change: every entry's effective
        date (whatever its reading or knowledge date) and a reform's bounds.
        Between two of them the rules in force are the same."""
        points = {e.effective for group in (self.timelines, self.slots)
                  for t in group.values() for e in t.entries}
        if reform is not None:
            points |= {d for periods in (*reform.parameters.values(), *reform.plugins.values())
                       for p in periods for d in (p.start, p.until) if d is not None}
        return sorted(d for d in points if d >= self._earliest)

    def _resolve(self, on: _dt.date, known_on, readings, edition, ed, reform) -> Rules:
        """The rules in force on ``on``, resolved entry by entry."""
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
        call = self._call({slot: res.value for slot, res in plugins.items()},
                          reform.extra_plugins if reform else ())
        result = Rules(on=on, p=Params({k: v.value for k, v in params.items()}), call=call,
                       params=params, plugins=plugins, known_on=known_on, edition=edition,
                       reform=reform.name if reform else None, readings=readings,
                       slot_plugins={slot: self.registered[res.value] for slot, res in plugins.items()})
        return result

    def _apply_reform(self, reform: Reform, on, params, plugins) -> None:
        for group, resolved in ((reform.parameters, params), (reform.plugins, plugins)):
            for name, periods in group.items():
                for p in periods:
                    if p.covers(on):
                        e = Entry(p.start, p.value, Source("reform", reform.name, p.note))
                        resolved[name] = Resolved(name, p.value, e, [], origin="reform")

    def _call(self, chosen: Mapping[str, str], extras) -> _Calls:
        """The ``rules.call`` object for the plugins ``chosen`` per slot (one per
        combination), with a reform's extra plugin objects answering first."""
        key = tuple(chosen.values())
        if not extras:
            hit = self._calls.get(key)
            if hit is not None:
                return hit
        calls = _Calls()
        for slot, name in chosen.items():
            plugin = self.registered.get(name)
            if plugin is None or plugin.slot != slot:
                raise RuleError(f"slot {slot}: no plugin {name!r} is registered for it "
                                f"(registered: {', '.join(self.plugins_in(slot))})")
            setattr(calls, self.slot_hooks[slot], self.functions[name])
        if extras:
            hooks = set(self.slot_hooks.values())
            for x in extras:
                for attr in dir(x):
                    if (attr.startswith(f"{hookspecs.PROJECT}_") and attr not in hooks
                            and self.manager.parse_hookimpl_opts(x, attr) is not None):
                        raise RuleError(f"reform plugin {type(x).__name__} implements {attr}, "
                                        "the hook of no slot")
            for hook in hooks:
                first = [getattr(x, hook) for x in reversed(list(extras))
                         if hasattr(x, hook) and self.manager.parse_hookimpl_opts(x, hook) is not None]
                if first:
                    setattr(calls, hook, _first_result([*first, getattr(calls, hook)]))
        else:
            self._calls[key] = calls
        return calls


# ------------------------------------------------------------------- loading
def _manager(plugins: Iterable[Any], entry_point_group: Optional[str],
             builtins: Optional[Iterable[Any]] = None) -> pluggy.PluginManager:
    """The one plugin manager: hook specifications, built-in plugins (the
    objects ``builtins``, default new ones of ``uschess.rules.ALL``), the
    given objects, then the installed rule packs."""
    manager = pluggy.PluginManager(hookspecs.PROJECT)
    manager.add_hookspecs(hookspecs)
    manager.add_hookspecs(hookspecs.RulePackSpec)
    if builtins is None:
        builtins = [cls_() for cls_ in rule_plugins.ALL]
    try:
        for plugin in builtins:
            manager.register(plugin, name=plugin.name)
        for plugin in plugins:
            manager.register(plugin, name=getattr(plugin, "name", None))
    except (ValueError, pluggy.PluginValidationError) as err:
        raise RuleError(f"rule plugin refused: {_one_line(err)}")
    if entry_point_group:
        try:
            manager.load_setuptools_entrypoints(entry_point_group)
        except (ValueError, pluggy.PluginValidationError) as err:
            raise RuleError(f"rule pack (entry points {entry_point_group!r}) refused: {_one_line(err)}")
        except Exception as err:  # a broken pack must not look like a traceback of ours
            raise RuleError(f"rule pack (entry points {entry_point_group!r}: "
                            f"{_entry_points(entry_point_group)}) cannot be loaded: "
                            f"{type(err).__name__}: {_one_line(err)}")
    return manager


def _entry_points(group: str) -> str:
    """The installed entry points of ``group``, as ``name = target (distribution)``."""
    import importlib.metadata

    out = []
    for dist in importlib.metadata.distributions():
        for ep in dist.entry_points:
            if ep.group == group:
                out.append(f"{ep.name} = {ep.value} ({dist.metadata['name']} {dist.version})")
    return "; ".join(sorted(set(out))) or "none"


def _one_line(err: Exception) -> str:
    return "; ".join(line.strip() for line in str(err).splitlines() if line.strip())


def _slot_hooks(slots_raw: Any) -> dict[str, str]:
    """slot -> hook name, in the calendar's order: ``HOOK_SLOTS`` of the hook
    specifications checked against the specifications and the calendar."""
    if not isinstance(slots_raw, Mapping):
        raise RuleError("rulesets/slots.yaml: maps each slot to its description and values")
    specs = {name for name in dir(hookspecs) if name.startswith(f"{hookspecs.PROJECT}_")}
    bound = hookspecs.HOOK_SLOTS
    for hook in sorted(specs - set(bound)):
        raise RuleError(f"uschess.rules.hookspecs: hook {hook} has no slot in HOOK_SLOTS")
    for hook in sorted(set(bound) - specs):
        raise RuleError(f"uschess.rules.hookspecs: HOOK_SLOTS names hook {hook}, which has no specification")
    hook_of = {slot: hook for hook, slot in bound.items()}
    if len(hook_of) != len(bound):
        raise RuleError("uschess.rules.hookspecs: HOOK_SLOTS gives two hooks the same slot")
    for slot in slots_raw:
        if slot not in hook_of:
            raise RuleError(f"rulesets/slots.yaml: slot {slot} answers no hook (slots of "
                            f"uschess.rules.hookspecs.HOOK_SLOTS: {', '.join(hook_of)})")
    for slot, hook in hook_of.items():
        if slot not in slots_raw:
            raise RuleError(f"rulesets/slots.yaml: no calendar for slot {slot} (hook {hook})")
    return {str(slot): hook_of[slot] for slot in slots_raw}


def _rule_plugins(manager: pluggy.PluginManager, slot_hooks: Mapping[str, str]):
    """name -> plugin object, and name -> the function filling its slot."""
    hook_slot = {hook: slot for slot, hook in slot_hooks.items()}
    implemented: dict[int, dict[str, Any]] = {}
    for hook in hook_slot:
        for impl in getattr(manager.hook, hook).get_hookimpls():
            implemented.setdefault(id(impl.plugin), {})[hook] = impl.function
    registered: dict[str, Any] = {}
    functions: dict[str, Any] = {}
    for label, plugin in manager.list_name_plugin():  # in registration order
        if plugin is None:
            continue  # blocked
        hooks = implemented.get(id(plugin), {})
        slot, name = getattr(plugin, "slot", None), getattr(plugin, "name", None)
        if not slot and not name:
            if hooks:
                raise RuleError(f"plugin {label} implements {', '.join(sorted(hooks))} but declares "
                                "no slot and name")
            continue  # a rule pack's calendar provider
        if isinstance(plugin, type):
            raise RuleError(f"plugin {label} is a class: register an instance of it")
        if slot not in slot_hooks:
            raise RuleError(f"plugin {name} declares slot {slot!r}, which rulesets/slots.yaml does not "
                            f"have (slots: {', '.join(slot_hooks)})")
        if name in registered:
            raise RuleError(f"two plugins are named {name}")
        hook = slot_hooks[slot]
        if hook not in hooks:
            raise RuleError(f"plugin {name} (slot {slot}) does not implement {hook}")
        missing = [m for m in hookspecs.SLOT_METHODS.get(slot, ())
                   if not callable(getattr(plugin, m, None))]
        if missing:
            raise RuleError(f"plugin {name} (slot {slot}) lacks {', '.join(missing)}, which every "
                            f"plugin of that slot provides (uschess.rules.hookspecs.SLOT_METHODS)")
        others = sorted(set(hooks) - {hook})
        if others:
            raise RuleError(f"plugin {name} (slot {slot}) also implements {', '.join(others)}, "
                            "the hook of another slot: one slot per plugin")
        registered[name] = plugin
        functions[name] = hooks[hook]
    return registered, functions


def _builtin_plugins(slot_hooks: Mapping[str, str]) -> tuple[dict, dict]:
    """name -> plugin object and name -> the function filling its slot, of
    the built-in plugins, as :func:`_rule_plugins` gives them after they are
    registered: for a rule book from the cache, whose key covers the modules
    of ``uschess.rules``, so that the checks registering made when the book
    was built still hold, and the plugin manager's look at every attribute
    of every plugin is not repeated at each start."""
    registered: dict[str, Any] = {}
    functions: dict[str, Any] = {}
    for cls_ in rule_plugins.ALL:
        plugin = cls_()
        registered[plugin.name] = plugin
        functions[plugin.name] = getattr(plugin, slot_hooks[plugin.slot])
    return registered, functions


def _pack_calendars(manager: pluggy.PluginManager):
    """(where, raw YAML) of every calendar file the rule packs ship."""
    for paths in manager.hook.uschess_rule_calendars():
        for path in (paths if isinstance(paths, (list, tuple)) else [paths]):
            where = str(path)
            yield where, _read_yaml(path, where)


def _add_pack_calendar(raw: Any, where: str, rows: dict[str, list[Entry]], documents: dict) -> None:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("slots"), Mapping):
        raise RuleError(f"{where}: a rule pack's calendar has 'slots:' (slot -> values) "
                        "and optionally 'documents:'")
    for doc_id, doc in (raw.get("documents") or {}).items():
        doc_id = str(doc_id)
        if doc_id in documents:
            raise RuleError(f"{where}: document {doc_id} is already defined")
        if not isinstance(doc, Mapping) or not doc.get("title") or not doc.get("sections"):
            raise RuleError(f"{where}: document {doc_id} needs 'title' and 'sections'")
        documents[doc_id] = dict(doc, sections=[str(s) for s in doc["sections"]])
    for slot, spec in raw["slots"].items():
        if slot not in rows:
            raise RuleError(f"{where}: no slot {slot!r} (slots: {', '.join(rows)}); a rule pack "
                            "fills existing slots")
        if not isinstance(spec, Mapping):
            raise RuleError(f"{where}: slot {slot} needs 'values'")
        rows[slot].extend(entries_from_raw(spec.get("values"), f"{where}: {slot}"))


def _check_rows(slot: str, entries: list[Entry], registered: Mapping[str, Any], documents: Mapping) -> None:
    """Every row of a slot names a registered plugin of that slot and cites a
    known document; no two rows compete for the same date and reading."""
    seen: dict = {}
    for e in entries:
        plugin = registered.get(e.value)
        if plugin is None:
            raise RuleError(f"slot {slot} from {e.effective}: no plugin {e.value!r} is registered "
                            f"(registered for {slot}: "
                            f"{', '.join(n for n, p in registered.items() if p.slot == slot) or 'none'})")
        if plugin.slot != slot:
            raise RuleError(f"slot {slot} from {e.effective}: plugin {e.value} fills slot {plugin.slot}")
        doc = documents.get(e.source.doc)
        if doc is None or e.source.section not in doc["sections"]:
            raise RuleError(f"slot {slot} from {e.effective}: source {e.source.cite()} is not a "
                            "registered document section")
        key = (e.effective, e.conflict, e.reading, e.decided_on)
        if key in seen:
            raise RuleError(f"slot {slot} from {e.effective}: two plugins ({seen[key]}, {e.value}) "
                            "for the same date and reading")
        seen[key] = e.value
