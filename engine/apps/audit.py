"""Audit published ratings: re-rate an event and explain what differs.

Input is a published result in one of two forms.

**A published crosstable page** in any layout :mod:`uschess.io.formats.pages`
reads (the MSA page saved as HTML or copied to text, a bare MSA table, the TD
crosstable, ``uschess export crosstable`` output), turned into an event by
:mod:`uschess.io.formats.page_event`: what the page states is used, options fill
only what it does not state, and every printed post-event rating is a
published value.  A bare MSA table of one system prints no dates: the
section's start date must be given (``start``).

**A published-results file** (JSON, or YAML with the same structure): the
event file's structure (``event`` and ``sections``, exactly as
:func:`uschess.io.eventfile.event_from_dict` reads them, players with their
pre-event ``ratings``) plus the published post-event ratings::

    {"event": {"name": "Club Open", "start": "2024-03-09", "end": "2024-03-10"},
     "sections": [{"name": "OPEN", "time_control": "G/90;d5", "players": [...]}],
     "published": [
       {"id": "12743305", "system": "OTBR", "pre": 2201, "post": 2203},
       {"id": "32711850", "system": "OTBR", "post": 1747, "section": "OPEN"}]}

Each ``published`` entry has ``id`` (the player's id in ``sections``),
``system`` (``OTBR`` ... ``OLB``) and ``post`` (the published post-event
rating); optionally ``pre`` (the published pre-event rating, or null for an
unrated player: checked against the event's record, which must agree to
within 0.5 since published ratings are rounded), ``section`` (needed only
when the id plays in several sections) and ``name``.  Nothing else is
allowed; an id, system and section may be listed once.

**What the audit does.**  The event is rated under the rules in force on each
section's start date (as known on ``known_on`` and with the ``readings``
given).  A published rating is *reproduced* when the computed post differs
from it by at most the tolerance (default 1: published pre-event ratings are
rounded).  For every other player the audit shows the calculation step by
step (:func:`uschess.apps.report.explain_player`) and the likely causes it can test
by re-rating variants; a cause is reported only when its variant reproduces
the published value within the tolerance:

``initialization``
    an unrated player's initial rating, which no page shows: as an adult
    (1300) or as a player not known to be adult, else solved from the
    published posts (:mod:`uschess.apps.audit_infer`); also for the
    opponents it moves;
``chaining``
    section chaining: sections rated apart, or each from the earlier
    sections' computed results (:mod:`uschess.apps.page_chain`);
``floor``
    the computed post is below the published one and the published value is
    a floor the file cannot show: a 100-point level (an established floor
    when it is one of the levels in force, a prize floor up to the highest
    prize floor, the Original Life Master floor) or a possible personal
    absolute floor (AF, 100..150).  Floors bind only the final rating
    (project reading 1), so the variant is the computed post raised to it.
``bonus_multiplier``
    every other value of B in the history (6, 8, 10, 12, 14, 16), each a
    reform of ``bonus_multiplier`` over the whole event;
``effective_games``
    the other effective-games formula(s) (``nstar``) of the history;
``rounding``
    the player's and the opponents' pre-event ratings moved by -0.5, 0 or
    +0.5 (the closest variant is shown; tried when the difference is within
    the tolerance plus :data:`ROUNDING_REACH`);
``history``
    an earlier history of only wins, or only losses (wins or losses = games),
    which the file does not show;
``reading``
    another reading of a recorded conflict that changes the rules of the
    player's section;
``known_on``
    the rules as known on the page's Rated (or Re-Rated) date, else when the
    event ended (a later retroactive correction not yet applied), when no
    ``known_on`` was given.

Whenever a computed rating depended on a conflicted or undocumented value
(``PlayerResult.warnings``) the audit lists it, with the notes on the rules in
force for each section.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import html
import json
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from uschess.errors import InputError
from uschess.io.eventfile import MAX_RATING, event_from_dict, parse_date
from uschess.io.formats.dbase import read_bounded
from uschess.io.textdata import MAX_DATA_BYTES, parse_data
from uschess.model import SYSTEMS, Event
from uschess.rating.pipeline import RatingOptions, rate_event
from uschess.rating.results import EventResult, PlayerResult, SectionResult
from uschess.calendar.reform import reform_from_dict
from uschess.apps.audit_infer import initialization_causes
from uschess.apps.audit_model import Cause
from uschess.apps.page_chain import PageChain, SectionsApart, rate_published
from uschess.rating.chain import Chain
from uschess.apps.report import explain_player
from uschess.calendar.rulebook import RuleBook

#: Rating labels of the MSA layout and their systems.
MSA_LABELS = {"R": "OTBR", "Q": "OTBQ", "B": "OTBB"}
_MSA_LABEL = re.compile(r"\|\s*[0-9]+\s*/\s*([A-Z]{1,3})\s*:", re.ASCII)
PUBLISHED_KEYS = {"id", "system", "post", "pre", "section", "name"}
CAUSE_ORDER = ("floor", "initialization", "known_on", "chaining", "bonus_multiplier",
               "effective_games", "rounding", "history", "reading")
_EPS = 1e-9


@dataclass
class PublishedEntry:
    """One published post-event rating."""

    id: str
    system: str
    post: float
    pre: Optional[float] = None
    section: Optional[str] = None
    name: Optional[str] = None
    pair: Optional[int] = None
    #: the printed P<n> of the post (None: established or not printed)
    post_games: Optional[int] = None


@dataclass
class PublishedResults:
    """An event and its published post-event ratings.  ``kind`` is ``json``
    or the page layout (:data:`uschess.io.formats.pages.LAYOUTS`); ``facts``
    what a page states per section beyond the event (Rated dates, K factor,
    the TD layout's initial ratings)."""

    event: Event
    entries: list[PublishedEntry]
    source: Optional[str] = None
    kind: str = "json"
    notes: list[str] = field(default_factory=list)
    facts: list = field(default_factory=list)

    @property
    def rated_on(self) -> Optional[_dt.date]:
        """The latest date the page says its sections were rated (or re-rated)."""
        dates = [d for f in self.facts for d in (f.rated, f.rerated) if d is not None]
        return max(dates) if dates else None


# ------------------------------------------------------------------ reading

def _number(value, what: str, *, allow_none=False) -> Optional[float]:
    if value is None and allow_none:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(value):
        raise InputError(f"{what} must be a number, not {value!r}")
    if not 0 <= value <= MAX_RATING:
        raise InputError(f"{what} = {value!r} is impossible (allowed 0..{MAX_RATING:g})")
    return float(value)


def published_from_dict(raw, source: Optional[str] = None) -> PublishedResults:
    """Read the published-results structure (see the module text); every
    problem is an :class:`InputError` naming the file and the entry."""
    if not isinstance(raw, dict):
        raise InputError("a published-results file is a mapping with 'event', 'sections' "
                         "and 'published'", file=source)
    unknown = set(raw) - {"event", "sections", "published"}
    if unknown:
        raise InputError(f"unknown key(s) {sorted(map(str, unknown))} (allowed: event, sections, published)",
                         file=source)
    event = event_from_dict({k: raw[k] for k in ("event", "sections") if k in raw}, source=source)
    items = raw.get("published")
    if not isinstance(items, list) or not items:
        raise InputError("'published' must be a non-empty list of {id, system, post}", file=source)
    where_id: dict[str, list] = {}
    for sec in event.sections:
        for pl in sec.players:
            where_id.setdefault(pl.id, []).append((sec, pl))
    entries, seen = [], {}
    for i, item in enumerate(items, start=1):
        what = f"published entry {i}"
        try:
            if not isinstance(item, dict):
                raise InputError("must be a mapping {id, system, post}")
            bad = set(item) - PUBLISHED_KEYS
            if bad:
                raise InputError(f"unknown key(s) {sorted(bad)} (allowed: {', '.join(sorted(PUBLISHED_KEYS))})")
            for key in ("id", "system", "post"):
                if item.get(key) is None:
                    raise InputError(f"missing '{key}'")
            pid = str(item["id"])
            system = item["system"]
            if system not in SYSTEMS:
                raise InputError(f"system {system!r} is not one of {', '.join(SYSTEMS)}")
            post = _number(item["post"], "'post'")
            pre = _number(item.get("pre"), "'pre'", allow_none=True)
            places = where_id.get(pid)
            if not places:
                raise InputError(f"id {pid} plays in no section of the event")
            section = item.get("section")
            if section is not None:
                places = [(s, p) for s, p in places if s.name == str(section)]
                if not places:
                    raise InputError(f"id {pid} does not play in section {section!r}")
            elif len(places) > 1:
                raise InputError(f"id {pid} plays in sections "
                                 f"{', '.join(repr(s.name) for s, _ in places)}: give 'section'")
            sec, pl = places[0]
            key = (sec.name, pid, system)
            if key in seen:
                raise InputError(f"id {pid} in {system}, section {sec.name!r}, is also "
                                 f"published entry {seen[key]}")
            seen[key] = i
            rec = pl.ratings.get(system)
            if "pre" in item:
                if pre is None and rec is not None:
                    raise InputError(f"published as unrated in {system} but the section gives a "
                                     f"pre-event rating of {rec.rating:g}")
                if pre is not None and rec is None:
                    raise InputError(f"published pre-event {system} rating {pre:g} but the section "
                                     f"gives none: add ratings.{system} {{rating, games}} to the player")
                if pre is not None and abs(rec.rating - pre) > 0.5 + _EPS:
                    raise InputError(f"published pre-event rating {pre:g} but the section gives "
                                     f"{rec.rating:g} (they must agree to within 0.5)")
            entries.append(PublishedEntry(pid, system, post, pre, sec.name,
                                          str(item.get("name") or pl.name), pl.pair))
        except InputError as err:
            raise err.located(file=source, field=what)
    return PublishedResults(event, entries, source, "json",
                            [n for sec in event.sections for n in sec.notes])


def _msa_system(text: str, system: Optional[str], source) -> str:
    if system is not None:
        if system not in SYSTEMS:
            raise InputError(f"--system {system!r} is not one of {', '.join(SYSTEMS)}", file=source)
        return system
    match = _MSA_LABEL.search(text)
    label = match.group(1) if match else "R"
    if label not in MSA_LABELS:
        raise InputError(f"ratings labelled '{label}:': give the system (--system)", file=source)
    return MSA_LABELS[label]


def published_from_page(page, options=None) -> PublishedResults:
    """The published results a page (:class:`uschess.io.formats.pages.Page`)
    states, with ``options`` (:class:`uschess.io.formats.page_event.PageOptions`)
    filling what it does not."""
    from uschess.io.formats.page_event import event_from_page

    event, published, notes, facts = event_from_page(page, options)
    entries = []
    for section, pp, system in published:
        printed = pp.ratings[system]
        entries.append(PublishedEntry(pp.id, system, printed.post, printed.pre, section,
                                      pp.name, pp.pair, printed.post_games))
    if not entries:
        raise InputError("the page publishes no post-event rating", file=page.source)
    return PublishedResults(event, entries, page.source, page.layout, notes, facts)


def load_published(path, *, start=None, end=None, time_control: Optional[str] = None,
                   system: Optional[str] = None, adult=(), section=None,
                   name: Optional[str] = None) -> PublishedResults:
    """Published results from a crosstable page in any layout
    (:mod:`uschess.io.formats.pages`; the options fill what the page does not
    state) or a published-results file (JSON, or YAML by its suffix)."""
    path = Path(path)
    from uschess.io.formats.msa import MAX_FILE_BYTES
    raw = read_bounded(path, MAX_FILE_BYTES, "published-results file")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
    from uschess.io.formats.msa import looks_like_msa, parse_msa
    from uschess.io.formats.pages import looks_like_page, parse_page

    if path.suffix.lower() not in (".json", ".yaml", ".yml") and looks_like_page(text) \
            and not (looks_like_msa(text) and _bare_single_system(text)):
        from uschess.io.formats.page_event import PageOptions

        page = parse_page(text, str(path))
        if page.layout == "msa-table" and page.sections:
            page.sections[0].name = path.stem
        opts = PageOptions(start=parse_date(start, "start") if start is not None else None,
                           end=parse_date(end, "end") if end is not None else None,
                           time_control=time_control, system=system, adult=set(adult),
                           section=section, name=name or (None if page.event_name else path.stem))
        try:
            return published_from_page(page, opts)
        except InputError as err:
            raise err.located(file=path)
    if looks_like_msa(text):
        if start is None:
            raise InputError("an MSA crosstable prints no dates: give the section's start "
                             "date with --start DATE", file=path)
        start = parse_date(start, "start")
        end = parse_date(end, "end") if end is not None else start
        system = _msa_system(text, system, path)
        notes = []
        if time_control is None:
            if system != "OTBR":
                raise InputError(f"the crosstable shows {system} ratings: give the section's "
                                 "time control with --time-control", file=path)
            time_control = "G/120"
            notes.append("the crosstable gives no time control: taken as G/120 (Regular only)")
        ct = parse_msa(text, source=str(path), name=path.stem, start=start, end=end,
                       time_control=time_control, system=system)
        if any(p.games_assumed for p in ct.published.values()):
            from uschess.io.formats.msa import ESTABLISHED_GAMES
            notes.append(f"established players' game counts are not printed: taken as "
                         f"{ESTABLISHED_GAMES} (any N >= N* gives the same N')")
        entries = [PublishedEntry(p.id, system, p.post, p.pre, ct.section.name, p.name, p.pair)
                   for p in sorted(ct.published.values(), key=lambda p: p.pair)]
        return PublishedResults(ct.event, entries, str(path), "msa", notes)
    given = [opt for opt, val in (("--start", start), ("--end", end),
                                  ("--time-control", time_control), ("--system", system))
             if val is not None]
    if given:
        raise InputError(f"{', '.join(given)}: only for an MSA crosstable; a published-results "
                         "file gives each section's dates, time control and systems", file=path)
    if len(raw) > MAX_DATA_BYTES:
        raise InputError(f"published-results file is over {MAX_DATA_BYTES:,} bytes: refused (no "
                         "real one comes near)", file=path)
    json_format = path.suffix.lower() not in (".yaml", ".yml")
    try:
        data = parse_data(text, json_format=json_format, source=path)
    except InputError as err:
        if json_format and err.message.startswith("malformed JSON"):
            err.message = f"neither an MSA crosstable nor a published-results file ({err.message})"
            err.args = (str(err),)
        raise
    return published_from_dict(data, str(path))


def _bare_single_system(text: str) -> bool:
    """A bare MSA table of R:, Q: or B: ratings only, no further rating lines
    and nothing a page adds: read by :func:`uschess.io.formats.msa.parse_msa`
    (with ``--start``), as before pages were read."""
    from uschess.io.formats.msa import read_table
    try:
        rows = read_table(text)
    except InputError:
        return False
    labels = {label for r in rows for label in r.ratings}
    return bool(rows) and all(len(r.ratings) == 1 for r in rows) and len(labels) == 1 \
        and labels <= set(MSA_LABELS) and all(
            p.post is not None for r in rows for p in r.ratings.values()) \
        and len({r.id for r in rows}) == len(rows)


# ------------------------------------------------------------------ auditing

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
                "warnings": self.warnings, "problem": self.problem, "explain": self.explain}


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
    #: initial ratings the page cannot show, solved from its published posts
    inferred: list = field(default_factory=list)
    #: how many are reproduced with them
    reproduced_inferred: Optional[int] = None
    #: section chaining: printed pre-event ratings kept over the earlier
    #: section's result (page_chain.Overruled), and (section, system, id)
    #: whose pre came from an earlier section
    overruled: list = field(default_factory=list)
    chained: list = field(default_factory=list)

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
        explained = sum(1 for r in self.mismatches if r.causes)
        text = f"{self.reproduced} of {self.total} reproduced within {tol}"
        if self.mismatches:
            text += f"; {explained} of the other {len(self.mismatches)} with a likely cause"
        return text

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
                             for w, rows in self.warning_groups()]}


def _post(result: EventResult, section: str, system: str, pid: str) -> Optional[float]:
    for sr in result.sections:
        if sr.section.name == section and sr.system == system:
            for pr in sr.players:
                if pr.id == pid:
                    return _value(pr)
    return None


def _value(pr: PlayerResult) -> Optional[float]:
    """The rating a crosstable would print after the event: the post when the
    player played a rated game, else the unchanged pre-event rating."""
    value = pr.post if pr.m else pr.pre
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def _history_values(book: RuleBook, name: str) -> list:
    out = []
    for e in book.timelines[name].entries:
        if e.value not in out:
            out.append(e.value)
    return out


class _Variants:
    """Re-ratings of the event under variants, each computed once."""

    def __init__(self, event: Event, options: RatingOptions, book: RuleBook,
                 rated_on: Optional[_dt.date] = None):
        self.event, self.options, self.book = event, options, book
        self.rated_on = rated_on
        self._cache: dict = {}
        self.labels: dict = {}  # whole-event variants: key -> what it is

    def rate(self, key, *, event: Optional[Event] = None, label: Optional[str] = None,
             chain=None, **changes) -> Optional[EventResult]:
        """The event (or ``event``) re-rated with ``changes`` to the options;
        ``chain`` is the chain to rate it through (default: a PageChain)."""
        if label is not None and event is None:
            self.labels[key] = label
        if key not in self._cache:
            opts = RatingOptions(rules_on=self.options.rules_on, known_on=self.options.known_on,
                                 readings=dict(self.options.readings), edition=self.options.edition,
                                 reform=self.options.reform, trace=False)
            for name, value in changes.items():
                setattr(opts, name, value)
            try:
                if chain is not None:
                    self._cache[key] = chain.rate_event(event or self.event, opts, self.book)
                else:
                    self._cache[key] = rate_published(event or self.event, opts, book=self.book)
            except InputError:
                self._cache[key] = None  # a variant that cannot be rated reproduces nothing
        return self._cache[key]

    def reform(self, name: str, value, label: str) -> Optional[EventResult]:
        raw = {"name": label, "parameters": {name: [{"from": self.book.earliest().isoformat(),
                                                     "value": value}]}}
        return self.rate(("reform", name, json.dumps(value, sort_keys=True, default=str)),
                         label=label, reform=reform_from_dict(raw, source="audit", book=self.book))

    def whole_event(self) -> list[tuple[str, EventResult]]:
        return [(label, self._cache[key]) for key, label in self.labels.items()
                if self._cache.get(key) is not None]


def _within(value: Optional[float], published: float, tol: float) -> bool:
    return value is not None and abs(value - published) <= tol + _EPS


def _fmt(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.2f}"


def floor_kinds(level: float, system: str, params, personal_floors: bool,
                af: Optional[float] = None) -> list[str]:
    """The kinds of floor that can hold a rating at ``level`` in ``system``
    under resolved parameters ``params`` (a mapping name -> value):
    established floor levels, a prize floor, the OLM floor (100-point levels)
    and the personal absolute floor (base < level <= cap, when
    ``personal_floors`` are in force).  ``af`` is the player's own AF when
    their record gives it (then only that value counts as an AF)."""
    kinds = []
    if level != int(level):
        return kinds
    if level % 100 == 0:
        drop = params.get("floor_drop", 200)
        if level in (params.get("floor_levels") or []):
            kinds.append(f"an established floor (a highest established rating of at least "
                         f"{level + drop:g})")
        if level <= (params.get("prize_floor_top") or 0):
            kinds.append("a prize floor")
        olm = params.get("olm")
        if olm and level == olm["floor"] and system in (params.get("olm_systems") or []):
            kinds.append("the Original Life Master floor")
        if not kinds:
            kinds.append("a 100-point floor level")
    pf = params.get("personal_floor")
    if (personal_floors and pf and system in (params.get("personal_floor_systems") or [])
            and pf["base"] < level <= pf["cap"] and (af is None or af == level)):
        kinds.append(f"the personal absolute floor (AF = {level:g})" if af == level else
                     f"a personal absolute floor of {level:g} ({_af_counts(level, pf)}, a record "
                     "the file does not give)")
    return kinds


def _af_counts(level: float, pf: dict) -> str:
    """The rated-game counts that give a personal absolute floor of ``level``
    (000 sec. 5: AF = base + win N_W + draw N_D + event N_R, at most cap)."""
    need = int(level - pf["base"])
    w, d, e = pf["win"], pf["draw"], pf["event"]
    wins = need // w
    rest = need - wins * w
    draws = rest // d
    events = rest - draws * d
    example = f"for example {wins} wins, {draws} draws and {events // e} events"
    return (f"AF = {pf['base']:g} + {w:g} x wins + {d:g} x draws + {e:g} x events with 3+ rated "
            f"games, so {w:g}N_W + {d:g}N_D + {e:g}N_R = {need} ({example}, or any other "
            "counts that add up so)")


def _floor_detail(level: float, computed: float, kinds: list[str]) -> str:
    return (f"published {level:g} is a floor level and the computed {computed:.2f} is below it: "
            f"held by {' or '.join(kinds)}, which the file cannot show (floors bind only the "
            "final rating)")


def _floor_cause(row: AuditRow, tol: float) -> Optional[Cause]:
    e, pr, sr = row.entry, row.result, row.section
    level = e.post
    if row.computed is None or not row.computed < level - tol:
        return None
    rec = pr.record_after
    af = None
    pf_res = sr.rules.params.get("personal_floor")  # not in force before 2008
    pf = pf_res.value if pf_res is not None else None
    if (pf and rec is not None and rec.wins is not None and rec.draws is not None
            and rec.events3 is not None):
        af = min(pf["base"] + pf["win"] * rec.wins + pf["draw"] * rec.draws
                 + pf["event"] * rec.events3, pf["cap"])
    params = {name: res.value for name, res in sr.rules.params.items()}
    kinds = floor_kinds(level, e.system, params, sr.rules.plugins["floors"].value != "floors-002", af)
    if not kinds:
        return None
    return Cause("floor", _floor_detail(level, row.computed, kinds), level, level)


def _player_event(event: Event, section: str, change) -> Event:
    """A copy of ``event`` in which ``change`` may edit the records of one
    section's players (only those are copied; rounds and the rest are shared
    and must not be edited)."""
    sections = []
    for sec in event.sections:
        if sec.name == section:
            players = [dataclasses.replace(p, ratings={k: dataclasses.replace(v)
                                                       for k, v in p.ratings.items()})
                       for p in sec.players]
            sec = dataclasses.replace(sec, players=players)
            change(sec)
        sections.append(sec)
    return dataclasses.replace(event, sections=sections)


def _causes(row: AuditRow, variants: _Variants, book: RuleBook, tol: float) -> list[Cause]:
    e, sr = row.entry, row.section
    out: list[Cause] = []
    floor = _floor_cause(row, tol)
    if floor:
        out.append(floor)
    p = sr.rules.p

    for b in sorted(_history_values(book, "bonus_multiplier")):
        if b == p.bonus_multiplier:
            continue
        value = _post(variants.reform("bonus_multiplier", b, f"B = {b:g}") or _empty(),
                      e.section, e.system, e.id)
        if _within(value, e.post, tol):
            out.append(Cause("bonus_multiplier", f"bonus multiplier B = {b:g} (the rules in force "
                             f"use B = {p.bonus_multiplier:g}) gives {_fmt(value)}", value, e.post))

    for entry in book.timelines["nstar"].entries:
        if entry.value == p.nstar:
            continue
        value = _post(variants.reform("nstar", entry.value,
                                      f"N* in force from {entry.effective.isoformat()}") or _empty(),
                      e.section, e.system, e.id)
        if _within(value, e.post, tol):
            ns = entry.value
            out.append(Cause("effective_games",
                             f"the effective-games formula in force from {entry.effective.isoformat()} "
                             f"[{entry.source.cite()}]: N* = {ns['cap']:g}/sqrt({ns['a']:g} + "
                             f"{ns['b']:g}({ns['center']:g} - R0)^2), gives {_fmt(value)}",
                             value, e.post))

    out.extend(_rounding(row, variants, tol))
    out.extend(_history(row, variants, tol))
    out.extend(_chaining(row, variants, tol))

    for cid, conflict in book.conflicts.items():
        current = variants.options.readings.get(cid, conflict.default)
        for reading in conflict.readings:
            if reading == current:
                continue
            readings = {**variants.options.readings, cid: reading}
            alt = book.rules(sr.rules.on, known_on=variants.options.known_on, readings=readings,
                             edition=variants.options.edition, reform=variants.options.reform)
            if alt.fingerprint == sr.rules.fingerprint:
                continue
            value = _post(variants.rate(("reading", cid, reading), readings=readings,
                                        label=f"reading {cid}={reading}") or _empty(),
                          e.section, e.system, e.id)
            if _within(value, e.post, tol):
                out.append(Cause("reading", f"conflict '{cid}' read as '{reading}' "
                                 f"({conflict.readings[reading]}) gives {_fmt(value)}", value, e.post))

    if variants.options.known_on is None:
        when = variants.rated_on or variants.event.end
        alt = book.rules(sr.rules.on, known_on=when, readings=variants.options.readings,
                         edition=variants.options.edition, reform=variants.options.reform)
        if alt.fingerprint != sr.rules.fingerprint:
            value = _post(variants.rate(("known_on", when), known_on=when,
                                        label=f"as known on {when.isoformat()}") or _empty(),
                          e.section, e.system, e.id)
            if _within(value, e.post, tol):
                changed = _changed_rules(sr.rules, alt)
                what = ("the page's Rated (or Re-Rated) date" if variants.rated_on
                        else "the event's end")
                out.append(Cause("known_on", f"the rules as known on {what} "
                                 f"({when.isoformat()}) give {_fmt(value)}: the rules in force "
                                 f"were changed after that date by a retroactive decision"
                                 + (f" ({changed})" if changed else ""), value, e.post))
    return out


def _changed_rules(now, then) -> str:
    """What differs between two resolved rule sets: 'B = 12 -> 10 (decided
    2025-06-03)' and the like."""
    parts = []
    for name, res in now.params.items():
        old = then.params.get(name)
        if old is not None and old.value != res.value:
            decided = getattr(res.entry, "decided_on", None)
            parts.append(f"{name} {old.value!r} -> {res.value!r} [{res.entry.source.cite()}]"
                         + (f", decided {decided}" if decided else ""))
    return "; ".join(parts)


def _empty() -> EventResult:
    return EventResult(Event("", _dt.date.min, _dt.date.min, []), [])


#: The rounding variants are tried only when the difference is at most the
#: tolerance plus this: moving R0 and every opponent by the same amount moves
#: both formulas' result by that amount, so half a point in the inputs moves
#: the post by about half a point, never by several.
ROUNDING_REACH = 2.0


def _rounding(row: AuditRow, variants: _Variants, tol: float) -> list[Cause]:
    e, pr = row.entry, row.result
    if row.diff is None or abs(row.diff) > tol + ROUNDING_REACH:
        return []
    sec = row.section.section
    me = sec.player(pr.pair)
    opps = {r.opponent for r in me.rounds if r.rated}
    has_own = e.system in me.ratings
    has_opps = any(e.system in sec.player(o).ratings for o in opps)
    best = None
    steps = (-0.5, 0.0, 0.5)
    for d_own in (steps if has_own else (0.0,)):
        for d_opp in (steps if has_opps else (0.0,)):
            if d_own == 0 and d_opp == 0:
                continue

            def change(s, d_own=d_own, d_opp=d_opp):
                for pl in s.players:
                    rec = pl.ratings.get(e.system)
                    if rec is None:
                        continue
                    if pl.pair == pr.pair:
                        rec.rating += d_own
                    elif pl.pair in opps:
                        rec.rating += d_opp
            ev = _player_event(variants.event, e.section, change)
            res = variants.rate(("rounding", e.section, e.system, pr.pair, d_own, d_opp), event=ev)
            value = _post(res or _empty(), e.section, e.system, e.id)
            if _within(value, e.post, tol) and (best is None or abs(value - e.post) < abs(best[0] - e.post)):
                best = (value, d_own, d_opp)
    if best is None:
        return []
    value, d_own, d_opp = best
    parts = []
    if d_own:
        parts.append(f"the player's pre-event rating {d_own:+g}")
    if d_opp:
        parts.append(f"the opponents' pre-event ratings {d_opp:+g}")
    return [Cause("rounding", f"published pre-event ratings are rounded: with {' and '.join(parts)} "
                  f"the post is {_fmt(value)}", value, e.post)]


def _chaining(row: AuditRow, variants: _Variants, tol: float) -> list[Cause]:
    """Section chaining: a player in an earlier section of the event starts a
    later one from its result (US Chess rates sections in sequence).  Tried
    both ways: the later section from the page's own pre-event ratings, and
    from the earlier sections' computed results."""
    e = row.entry
    if sum(1 for s in variants.event.sections if any(p.id == e.id for p in s.players)) < 2 \
            and row.result.pre_from is None:
        return []
    out = []
    for chain, key, what in (
            (SectionsApart(), "apart", "each section rated from its own pre-event ratings (no "
                                       "chaining)"),
            (Chain(), "chained", "every pre-event rating in a later section taken from the "
                                 "earlier section's computed result (section chaining)")):
        value = _post(variants.rate(("chaining", key), chain=chain, label=what) or _empty(),
                      e.section, e.system, e.id)
        if _within(value, e.post, tol):
            out.append(Cause("chaining", f"with {what}, the post is {_fmt(value)}", value,
                             e.post))
    return out


def _history(row: AuditRow, variants: _Variants, tol: float) -> list[Cause]:
    e, pr = row.entry, row.result
    rec = row.section.section.player(pr.pair).ratings.get(e.system)
    if rec is None or rec.games <= 0:
        return []
    out = []
    for kind in ("wins", "losses"):
        if (kind == "wins" and rec.all_wins) or (kind == "losses" and rec.all_losses):
            continue

        def change(s, kind=kind):
            r = s.player(pr.pair).ratings[e.system]
            r.wins, r.draws, r.losses = (r.games, 0, 0) if kind == "wins" else (0, 0, r.games)
        ev = _player_event(variants.event, e.section, change)
        value = _post(variants.rate(("history", e.section, e.system, pr.pair, kind), event=ev)
                      or _empty(), e.section, e.system, e.id)
        if _within(value, e.post, tol):
            out.append(Cause("history", f"an earlier history of only {kind} ({kind} = games = "
                             f"{rec.games}), which the file does not show, gives {_fmt(value)} "
                             "(special formula)", value, e.post))
    return out


def audit(published: PublishedResults, *, tolerance: float = 1.0, known_on=None,
          readings: Optional[dict] = None, book: Optional[RuleBook] = None,
          options: Optional[RatingOptions] = None) -> Audit:
    """Re-rate the published event and explain every rating not reproduced
    within ``tolerance`` (see the module text).  ``options`` (the command
    line's rules options) replaces ``known_on`` and ``readings``."""
    if options is not None:
        known_on, readings = options.known_on, dict(options.readings)
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) \
            or not math.isfinite(tolerance) or tolerance < 0:
        raise InputError(f"tolerance {tolerance!r} must be a number of points >= 0")
    book = book or RuleBook.load()
    readings = dict(readings or {})
    book.check_readings(readings)
    options = (RatingOptions(known_on=known_on, readings=readings, trace=True) if options is None
               else dataclasses.replace(options, readings=readings, trace=True))
    chain = PageChain()
    result = rate_published(published.event, options, book=book, chain=chain)
    index = {(sr.section.name, sr.system): sr for sr in result.sections}
    variants = _Variants(published.event, options, book, published.rated_on)
    rows = []
    for entry in published.entries:
        sr = index.get((entry.section, entry.system))
        pr = None
        if sr is not None:
            pr = next((x for x in sr.players if x.id == entry.id), None)
        if sr is None or pr is None:
            systems = [s.system for s in result.sections if s.section.name == entry.section]
            problem = (f"section {entry.section!r} is not rated in {entry.system} under the rules "
                       f"in force (rated in: {', '.join(systems) or 'none'})")
            rows.append(AuditRow(entry, sr, pr, None, False, problem=problem))
            continue
        computed = _value(pr)
        row = AuditRow(entry, sr, pr, computed, _within(computed, entry.post, tolerance))
        if computed is None:
            row.problem = "unrated and played no rated game: no post-event rating"
        if not row.reproduced:
            row.explain = explain_player(EventResult(result.event, [sr]), entry.id)
            if computed is not None:
                causes = _causes(row, variants, book, tolerance)
                row.causes = sorted(causes, key=lambda c: CAUSE_ORDER.index(c.cause))
        rows.append(row)
    inferred, with_inferred = initialization_causes(published, rows, result, options, book,
                                                    tolerance)
    for r in rows:
        r.causes.sort(key=lambda c: CAUSE_ORDER.index(c.cause))
    better = []
    base_count = sum(1 for r in rows if r.reproduced)
    for label, res in variants.whole_event():
        n = sum(1 for e in published.entries
                if _within(_post(res, e.section, e.system, e.id), e.post, tolerance))
        if n > base_count:
            better.append((label, n))
    better.sort(key=lambda x: -x[1])
    a = Audit(published, result, rows, float(tolerance), known_on, readings, better,
              inferred, with_inferred)
    a.overruled = chain.overruled
    a.chained = chain.chained
    return a


# ------------------------------------------------------------------ output

def _describe_rules(a: Audit) -> str:
    on = {(s.rules.on, s.section.start) for s in a.result.sections}
    text = ("rules in force on each section's start date" if all(r == st for r, st in on)
            else "rules in force on " + ", ".join(sorted({r.isoformat() for r, _ in on})))
    editions = sorted({s.rules.edition for s in a.result.sections if s.rules.edition})
    reforms = sorted({str(s.rules.reform) for s in a.result.sections if s.rules.reform})
    text += "".join(f", edition {e}" for e in editions) + "".join(f", reform {r}" for r in reforms)
    if a.known_on:
        text += f", as known on {a.known_on.isoformat()}"
    if a.readings:
        text += ", readings " + ", ".join(f"{c}={r}" for c, r in a.readings.items())
    return text


def _row_head(r: AuditRow) -> str:
    e = r.entry
    who = f"pair {e.pair} {e.name} ({e.id})" if e.pair is not None else f"{e.name} ({e.id})"
    diff = "" if r.diff is None else f" (computed - published = {r.diff:+.2f})"
    return (f"{who}, section {e.section}, {e.system}: published {e.post:g}, "
            f"computed {_fmt(r.computed)}{diff}")


def format_text(a: Audit, *, show_all: bool = False) -> str:
    pub = a.published
    kind = {"msa": "MSA crosstable", "json": "published results", "msa-html": "MSA page, HTML",
            "msa-text": "MSA page, text", "msa-table": "MSA crosstable", "td": "TD crosstable",
            "export": "uschess export crosstable"}.get(pub.kind, pub.kind)
    L = [f"audit of {pub.source or '(input)'} ({kind}): {pub.event.name}, "
         f"{pub.event.start.isoformat()}" + (f"..{pub.event.end.isoformat()}" if pub.event.end != pub.event.start else ""),
         f"{_describe_rules(a)}; tolerance {a.tolerance:g}"]
    L.extend(f"note: {n}" for n in pub.notes)
    L.append(a.summary_line())
    if len(a.by_section()) > 1:
        for sec, system, n, m in a.by_section():
            L.append(f"  section {sec}, {system}: {n} of {m} reproduced")
    if a.inferred:
        L.append(f"  with the inputs the page cannot show inferred from it: "
                 f"{a.reproduced_inferred} of {a.total} reproduced")
        for i in a.inferred:
            L.append(f"    inferred: {i.describe()}")
    for label, n in a.variants:
        L.append(f"  with {label} over the whole event: {n} of {a.total} reproduced")
    for sec, system, pid in a.chained:
        L.append(f"  section chaining: {pid}'s {system} pre-event rating in section {sec} is "
                 "the earlier section's result (agrees with the page)")
    for o in a.overruled:
        L.append(f"  section chaining: {o.describe()}")
    if a.mismatches:
        L.append("")
        L.append("not reproduced:")
        for r in a.mismatches:
            L.append("")
            L.append("  " + _row_head(r))
            if r.problem:
                L.append(f"    {r.problem}")
            if r.causes:
                for c in r.causes:
                    L.append(f"    likely cause ({c.cause}): {c.detail}")
            elif r.computed is not None:
                L.append("    no cause found among the variants tried (floor, bonus multiplier, "
                         "effective games, rounding, all-wins/all-losses history, readings, known-on)")
            if r.explain:
                L.append("    calculation:")
                L.extend("    " + line for line in r.explain.rstrip("\n").split("\n"))
    if show_all:
        L.append("")
        L.append("all players:")
        for r in a.rows:
            L.append(("  ok  " if r.reproduced else "  !!  ") + _row_head(r))
    groups = a.warning_groups()
    if groups:
        L.append("")
        L.append("computed ratings that depended on a conflicted or undocumented rule:")
        for w, rows in groups:
            who = ", ".join(str(r.entry.pair) if r.entry.pair is not None else r.entry.id for r in rows)
            L.append(f"  ! {w}")
            L.append(f"    ({len(rows)} player{'s' if len(rows) != 1 else ''}: "
                     f"{'pairs ' if rows[0].entry.pair is not None else ''}{who})")
    for s in a.sections():
        if s["warnings"]:
            L.append("")
            L.append(f"notes on the rules in force for section {s['name']} ({s['system']}), "
                     f"{s['rules_on']}, fingerprint {s['fingerprint']}:")
            L.extend(f"  ! {w}" for w in s["warnings"])
    return "\n".join(L) + "\n"


_CSS = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}
table{border-collapse:collapse;margin:1em 0}
td,th{border:1px solid #ccc;padding:.25em .6em;text-align:left}
td.n{text-align:right;font-variant-numeric:tabular-nums}
tr.bad{background:#fde8e8} tr.ok{background:#f3faf3}
pre{background:#f6f6f6;padding:.8em;overflow-x:auto;font-size:90%}
.warn{color:#8a5a00} .cause{color:#0b5394}
"""


def format_html(a: Audit) -> str:
    """A self-contained HTML report (inline style, no scripts); every value
    from the input is escaped."""
    esc = html.escape
    pub = a.published
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>Audit: {esc(pub.event.name)}</title><style>{_CSS}</style></head><body>",
           f"<h1>Audit of {esc(pub.source or pub.event.name)}</h1>",
           f"<p>{esc(pub.event.name)}, {esc(pub.event.start.isoformat())}"
           + (f"..{esc(pub.event.end.isoformat())}" if pub.event.end != pub.event.start else "")
           + f"; {esc(_describe_rules(a))}; tolerance {a.tolerance:g}.</p>",
           f"<p><strong>{esc(a.summary_line())}</strong></p>"]
    if a.variants:
        out.append("<p>Whole-event variants that reproduce more:</p><ul>" + "".join(
            f"<li>{esc(label)}: {n} of {a.total}</li>" for label, n in a.variants) + "</ul>")
    for n in pub.notes:
        out.append(f"<p>Note: {esc(n)}</p>")
    if len(a.by_section()) > 1:
        out.append("<ul>" + "".join(f"<li>section {esc(str(sec))}, {esc(system)}: {n} of {m} "
                                    "reproduced</li>" for sec, system, n, m in a.by_section())
                   + "</ul>")
    if a.inferred:
        out.append(f"<p>With the inputs the page cannot show inferred from it: "
                   f"{a.reproduced_inferred} of {a.total} reproduced.</p><ul>" + "".join(
                       f"<li>{esc(i.describe())}</li>" for i in a.inferred) + "</ul>")
    if a.mismatches:
        out.append("<h2>Not reproduced</h2>")
        for r in a.mismatches:
            out.append(f"<h3>{esc(_row_head(r))}</h3>")
            if r.problem:
                out.append(f"<p>{esc(r.problem)}</p>")
            if r.causes:
                out.append("<ul>" + "".join(
                    f"<li class=\"cause\"><strong>{esc(c.cause)}</strong>: {esc(c.detail)}</li>"
                    for c in r.causes) + "</ul>")
            elif r.computed is not None:
                out.append("<p>No cause found among the variants tried.</p>")
            if r.explain:
                out.append(f"<pre>{esc(r.explain)}</pre>")
    out.append("<h2>All published ratings</h2>")
    out.append("<table><thead><tr><th>Section</th><th>Pair</th><th>ID</th><th>Player</th>"
               "<th>System</th><th>Published</th><th>Computed</th><th>Diff</th><th>Status</th>"
               "</tr></thead><tbody>")
    for r in a.rows:
        e = r.entry
        status = "reproduced" if r.reproduced else (
            "; ".join(c.cause for c in r.causes) if r.causes else (r.problem or "not reproduced"))
        out.append(f"<tr class=\"{'ok' if r.reproduced else 'bad'}\"><td>{esc(str(e.section))}</td>"
                   f"<td class=\"n\">{'' if e.pair is None else e.pair}</td><td>{esc(e.id)}</td>"
                   f"<td>{esc(str(e.name))}</td><td>{esc(e.system)}</td><td class=\"n\">{e.post:g}</td>"
                   f"<td class=\"n\">{esc(_fmt(r.computed))}</td>"
                   f"<td class=\"n\">{'' if r.diff is None else f'{r.diff:+.2f}'}</td>"
                   f"<td>{esc(status)}</td></tr>")
    out.append("</tbody></table>")
    groups = a.warning_groups()
    if groups:
        out.append("<h2>Conflicted or undocumented rules the computed ratings depended on</h2><ul>")
        for w, rows in groups:
            who = ", ".join(esc(f"{r.entry.name} ({r.entry.id})") for r in rows)
            out.append(f"<li class=\"warn\">{esc(w)}<br><small>{len(rows)} player(s): {who}</small></li>")
        out.append("</ul>")
    for s in a.sections():
        if s["warnings"]:
            out.append(f"<h2>Rules in force for section {esc(s['name'])} ({esc(s['system'])}), "
                       f"{esc(s['rules_on'])}</h2><p>fingerprint {esc(s['fingerprint'])}</p><ul>")
            out.extend(f"<li class=\"warn\">{esc(w)}</li>" for w in s["warnings"])
            out.append("</ul>")
    out.append("</body></html>")
    return "\n".join(out) + "\n"


# ------------------------------------------------------------------ a store

@dataclass
class StoreAudit:
    """Published post ratings held in a ratings store (:mod:`uschess.io.store`)
    against the ratings the store computed.  The store keeps ratings, not the
    games, so nothing can be re-rated: the floor cause is the one tested, and
    the warnings (``rules_warnings``) are those of the rules each change was
    computed under (the store does not keep which of them a rating used)."""

    store: str
    total: int
    rows: list[dict]
    tolerance: float
    event: Optional[str] = None

    @property
    def reproduced(self) -> int:
        return self.total - len(self.rows)

    def summary_line(self) -> str:
        tol = f"{self.tolerance:g} point{'s' if self.tolerance != 1 else ''}"
        return f"{self.reproduced} of {self.total} reproduced within {tol}"

    def as_dict(self) -> dict:
        return {"reproduced": self.reproduced, "total": self.total, "players": self.rows,
                "summary": self.summary_line(), "source": self.store, "format": "store",
                "tolerance": self.tolerance, "event": self.event}


def audit_store(target, *, tolerance: float = 1.0, event: Optional[str] = None,
                progress=None) -> StoreAudit:
    """Audit the published ratings recorded in a store (``Store.record_published``);
    ``progress(done, total)`` is called after each rating not reproduced."""
    try:
        from uschess.io.store import Store
    except ImportError:
        raise InputError("auditing a store needs the ratings store (engine/store.py)")
    with Store.open(target, create=False) as store:
        if event is not None and not any(e["id"] == event for e in store.events()):
            raise InputError(f"no event {event!r} in the store", file=store.name)
        published = [r for r in store.dump("published") if event is None or r[0] == event]
        if not published:
            raise InputError("the store holds no published ratings"
                             + (f" for event {event!r}" if event else ""), file=store.name)
        rows = []
        rules_cache: dict = {}
        found = store.audit(tolerance=tolerance, event_id=event)
        for done, item in enumerate(found, 1):
            ev, pid, system = item["event"], item["player"], item["system"]
            published_post, computed = item["published"], item["computed"]
            change = next((h for h in store.history(pid, system) if h["event"] == ev), None)
            row = {"id": pid, "system": system, "event": ev, "published": published_post,
                   "computed": computed,
                   "diff": None if computed is None else computed - published_post,
                   "causes": [], "rules_warnings": [], "section": None, "pre": None,
                   "formula": None, "floor_applied": None, "fingerprint": None,
                   "problem": None if computed is not None else
                   f"the store has no {system} rating of this player from event {ev}"}
            if change is not None:
                fp = change["fingerprint"]
                if fp not in rules_cache:
                    rules_cache[fp] = store.rules(fp) or {}
                rules = rules_cache[fp]
                row.update(section=change["section"], pre=change["pre"], formula=change["formula"],
                           floor_applied=bool(change["floor_applied"]), fingerprint=fp,
                           rules_warnings=list(rules.get("warnings") or []))
                if computed is not None and computed < published_post - tolerance:
                    params = {k: v.get("value") for k, v in (rules.get("parameters") or {}).items()}
                    plugins = {p.get("slot"): p.get("name") for p in rules.get("plugins") or []}
                    kinds = floor_kinds(published_post, system, params,
                                        plugins.get("floors") != "floors-002")
                    if kinds:
                        row["causes"].append({"cause": "floor", "computed": published_post, "diff": 0.0,
                                              "detail": _floor_detail(published_post, computed, kinds)})
            rows.append(row)
            if progress:
                progress(done, len(found))
    return StoreAudit(str(target), len(published), rows, float(tolerance), event)


STORE_NOTE = ("the store keeps ratings, not games: only the floor cause can be tested here; "
              "audit the event's published results file for the re-rated variants")


def format_store_text(a: StoreAudit) -> str:
    L = [f"audit of the published ratings in {a.store}"
         + (f", event {a.event}" if a.event else "") + f"; tolerance {a.tolerance:g}",
         a.summary_line(), f"note: {STORE_NOTE}"]
    for r in a.rows:
        L.append("")
        diff = "" if r["diff"] is None else f" (computed - published = {r['diff']:+.2f})"
        L.append(f"  {r['id']}, event {r['event']}, section {r['section']}, {r['system']}: "
                 f"published {r['published']:g}, computed {_fmt(r['computed'])}{diff}")
        if r["problem"]:
            L.append(f"    {r['problem']}")
        else:
            L.append(f"    pre {_fmt(r['pre'])}, {r['formula']} formula"
                     + (", a floor applied" if r["floor_applied"] else "")
                     + f", rules {r['fingerprint']}")
        for c in r["causes"]:
            L.append(f"    likely cause ({c['cause']}): {c['detail']}")
        L.extend(f"    ! rules in force: {w}" for w in r["rules_warnings"])
    return "\n".join(L) + "\n"


def format_store_html(a: StoreAudit) -> str:
    esc = html.escape
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>Audit: {esc(a.store)}</title><style>{_CSS}</style></head><body>",
           f"<h1>Audit of the published ratings in {esc(a.store)}</h1>",
           f"<p><strong>{esc(a.summary_line())}</strong></p><p>Note: {esc(STORE_NOTE)}</p>",
           "<table><thead><tr><th>Event</th><th>Section</th><th>ID</th><th>System</th>"
           "<th>Published</th><th>Computed</th><th>Diff</th><th>Cause</th><th>Rules in force: warnings</th>"
           "</tr></thead><tbody>"]
    for r in a.rows:
        cause = "; ".join(f"{c['cause']}: {c['detail']}" for c in r["causes"]) or (r["problem"] or "")
        out.append(f"<tr class=\"bad\"><td>{esc(str(r['event']))}</td><td>{esc(str(r['section']))}</td>"
                   f"<td>{esc(str(r['id']))}</td><td>{esc(str(r['system']))}</td>"
                   f"<td class=\"n\">{r['published']:g}</td><td class=\"n\">{esc(_fmt(r['computed']))}</td>"
                   f"<td class=\"n\">{'' if r['diff'] is None else format(r['diff'], '+.2f')}</td>"
                   f"<td>{esc(cause)}</td><td class=\"warn\">{esc('; '.join(r['rules_warnings']))}</td></tr>")
    out.append("</tbody></table></body></html>")
    return "\n".join(out) + "\n"
