"""Compare two versions of the rules on the same events.

A *side* of a comparison is one way of picking the rules, written as a
``RULES`` specification on the command line:

``baseline``
    the rules in force on each section's own start date (the default rating);
``rules-on:DATE``
    every section rated as if it started on DATE;
``edition:DATE``
    one document's text as written (``2017-04-24`` ...), each section's date
    filling in what the edition does not state;
``known-on:DATE``
    each section's own date, using only what was known on DATE;
``reading:CONFLICT=READING[,C2=R2]``
    other readings of recorded conflicts (``uschess rules conflicts``);
``reform:FILE``
    a reform file (:mod:`uschess.calendar.reform`) applied over each section's own date.

Several may be joined with ``+`` (``reform:b14.yaml+known-on:2025-01-01``),
each kind at most once.  Every specification, and every reform file, is
checked before anything is rated.

**The chain.**  Events (and updates from foreign FIDE events) are rated in
the order of a replay: end date, then start date, then id.  Under each side
separately they go through one :class:`~uschess.rating.chain.Chain`, exactly
as a replay into a ratings store does: a player's record after a unit
(rating, games, wins/draws/losses, events, peak, a floor lowered after a
match) is the pre-event record of the next unit the player plays in that
system, whatever the later file says, and a match's change counts toward
later matches' caps.  The first unit a player appears in uses the record of
its file, the same for both sides, so the two chains start equal and part
only where the rules differ.  Sections of one event are rated in the event's
order, chained the same way.  With ``chain=False`` every event is rated from
its own file.

The result is one :class:`Row` per event, section, system and player rated in
it under either side (players with no rated game are left out: their rating
does not change), with ``diff = b - a``; :meth:`Comparison.summary` gives per
event, per system and overall: how many were rated, how many changed (and how
many changed as shown, rounded), mean, mean absolute and largest change, the
number of winners (higher under B) and losers, and the largest of each.
"""

from __future__ import annotations

import bisect
import csv
import datetime as _dt
import io
import json
import math
import pickle
import tempfile
from array import array
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Optional, Sequence


from uschess.errors import InputError
from uschess.io.eventfile import parse_date
from uschess.formulas import round_half_up
from uschess.model import Event
from uschess.apps import replay_order as _order
from uschess.apps.replay_order import Item, item_id, load_item
from uschess.io.fide_file import FideUpdate
from uschess.rating.chain import Chain
from uschess.rating.options import RatingOptions
from uschess.rating.results import EventResult, PlayerResult
from uschess.calendar.reform import load_reform
from uschess.calendar.rulebook import RuleBook

#: A change smaller than this is no change (identical rules give identical floats).
EPSILON = 1e-9
#: How many winners and losers the summary names.
TOP = 5
SPEC_KINDS = ("baseline", "rules-on", "edition", "known-on", "reading", "reform")


@dataclass
class RuleSide:
    """One side of a comparison: the specification, what it means, and the
    :class:`~uschess.rating.pipeline.RatingOptions` that rate under it."""

    spec: str
    label: str
    options: RatingOptions


def parse_rules_spec(spec: str, *, book: Optional[RuleBook] = None, what: str = "RULES",
                     input_path: Callable[[str], str] = str) -> RuleSide:
    """A :class:`RuleSide` from ``baseline``, ``rules-on:DATE``, ``edition:DATE``,
    ``known-on:DATE``, ``reading:C=R[,C2=R2]`` or ``reform:FILE`` (joined with
    ``+``).  Raises :class:`InputError` naming ``what`` for anything unknown;
    reform files are loaded and validated here, from the path ``input_path``
    gives for FILE (the command line's, by which ``reform:-`` is standard
    input: :func:`uschess.commands.common.input_path`)."""
    book = book or RuleBook.load()
    if not isinstance(spec, str) or not spec.strip():
        raise InputError(f"{what}: empty rules specification (one of {', '.join(SPEC_KINDS)})")
    opts = RatingOptions()
    labels = []
    seen = set()
    for part in spec.split("+"):
        part = part.strip()
        kind, _, value = part.partition(":")
        kind, value = kind.strip().lower(), value.strip()
        if kind not in SPEC_KINDS:
            raise InputError(f"{what} {spec!r}: {part!r} is not one of baseline, rules-on:DATE, "
                             "edition:DATE, known-on:DATE, reading:CONFLICT=READING, reform:FILE")
        if kind in seen:
            raise InputError(f"{what} {spec!r}: {kind} given twice")
        seen.add(kind)
        if kind == "baseline":
            if value:
                raise InputError(f"{what} {spec!r}: 'baseline' takes no value")
            labels.append("baseline (each section's own date)")
            continue
        if not value:
            raise InputError(f"{what} {spec!r}: {kind} needs a value ({kind}:...)")
        try:
            if kind == "rules-on":
                opts.rules_on = parse_date(value, "rules-on")
                book.rules(opts.rules_on)  # a date before the first rule fails here
                labels.append(f"rules in force on {opts.rules_on.isoformat()}")
            elif kind == "known-on":
                opts.known_on = parse_date(value, "known-on")
                labels.append(f"as known on {opts.known_on.isoformat()}")
            elif kind == "edition":
                if value not in book.editions:
                    raise InputError(f"unknown edition {value!r} (known: {', '.join(sorted(book.editions))})")
                opts.edition = value
                labels.append(f"edition {value} as written")
            elif kind == "reading":
                readings = {}
                for item in value.split(","):
                    cid, eq, reading = item.partition("=")
                    if not eq or not cid.strip() or not reading.strip():
                        raise InputError(f"{item!r}: write CONFLICT=READING")
                    readings[cid.strip()] = reading.strip()
                book.check_readings(readings)
                opts.readings = readings
                labels.append("readings " + ", ".join(f"{c}={r}" for c, r in readings.items()))
            elif kind == "reform":
                opts.reform = load_reform_file(input_path(value))
                labels.append(f"reform {opts.reform.name!r} ({value})")
        except InputError as err:
            err.message = f"{what} {spec!r}: {err.message}"
            raise
    if "baseline" in seen and len(seen) > 1:
        raise InputError(f"{what} {spec!r}: 'baseline' cannot be combined with anything else")
    return RuleSide(spec.strip(), "; ".join(labels), opts)


def load_reform_file(path):
    """A reform file, validated as a whole (:func:`uschess.calendar.reform.load_reform`)."""
    return load_reform(path)


def event_key(event: Item) -> str:
    """The id a replay keeps the event (or FIDE update) under, else the
    event's name."""
    try:
        return item_id(event)
    except InputError:  # an event with no id and no file
        return event.name


def order_events(events: Iterable[Item]) -> list[tuple[str, Item]]:
    """``(key, event)`` in chain order, the order of a replay: end date,
    start date, id.  Keys are made unique (``key#2``) when two events share one."""
    items = sorted(events, key=lambda e: (e.end, e.start, event_key(e)))
    out, used = [], {}
    for e in items:
        key = event_key(e)
        used[key] = used.get(key, 0) + 1
        out.append((key if used[key] == 1 else f"{key}#{used[key]}", e))
    return out


def replay(events: Sequence[tuple[str, Item]], options: RatingOptions, *,
           book: Optional[RuleBook] = None, chain: bool = True,
           progress: Optional[Callable[[], None]] = None) -> list[EventResult]:
    """Rate ``(key, event)`` pairs in the order given through one chain (see
    the module text): the same chain a replay into a store runs.  With
    ``chain=False`` each is rated from its own file.  A FIDE update gives a
    one-section result (section ``FIDE``).  The events passed in are never
    modified; ``progress()`` is called after each event."""
    book = book or RuleBook.load()
    out = []
    shared = Chain()
    for key, item in events:
        ch = shared if chain else Chain()
        if isinstance(item, FideUpdate):
            out.append(ch.rate_fide_update(item, options, book).as_event_result(key))
        else:
            out.append(ch.rate_event(item, options, book, label=key))
        if progress:
            progress()
    return out


@dataclass(slots=True)
class _Posts:
    """Where a row is (event, section, player, system) and what it says of
    the two posts (``a_post``, ``b_post``: None where a side did not rate the
    player)."""

    event: str
    event_name: str
    date: _dt.date
    section: str
    pair: int
    id: str
    name: str
    system: str

    @property
    def diff(self) -> Optional[float]:
        if self.a_post is None or self.b_post is None:
            return None
        return self.b_post - self.a_post

    @property
    def changed(self) -> bool:
        return self.diff is not None and abs(self.diff) > EPSILON

    def as_dict(self) -> dict:
        return {"id": self.id, "system": self.system, "event": self.event, "a": self.a_post,
                "b": self.b_post, "diff": self.diff, "name": self.name, "section": self.section,
                "pair": self.pair, "date": self.date.isoformat()}

    def where(self) -> tuple:
        """The identifying fields, in their order."""
        return (self.event, self.event_name, self.date, self.section, self.pair, self.id,
                self.name, self.system)


@dataclass
class Row(_Posts):
    """One player in one system in one section of one event, under A and B
    (either may be None when the section is rated in that system on one
    side only)."""

    a: Optional[PlayerResult]
    b: Optional[PlayerResult]

    @property
    def a_post(self) -> Optional[float]:
        return self.a.post if self.a is not None and self.a.m else None

    @property
    def b_post(self) -> Optional[float]:
        return self.b.post if self.b is not None and self.b.m else None


@dataclass(slots=True)
class PostsRow(_Posts):
    """A :class:`Row` as a streamed comparison keeps it: the two posts only."""

    a_post: Optional[float]
    b_post: Optional[float]

    @classmethod
    def of(cls, row: Row) -> "PostsRow":
        return cls(*row.where(), row.a_post, row.b_post)

    def astuple(self) -> tuple:
        return (*self.where(), self.a_post, self.b_post)


def _brief(r) -> dict:
    return {"id": r.id, "name": r.name, "system": r.system, "event": r.event,
            "section": r.section, "a": r.a_post, "b": r.b_post, "diff": r.diff}


class Tally:
    """The statistics of rows (:meth:`stats`), counted as the rows come, in
    their order: the rows themselves are not kept (the changes are, as
    8-byte floats, so that the mean is the sum of the same numbers in the
    same order as ever)."""

    def __init__(self):
        self.diffs = array("d")        # B - A of the rows rated on both sides, in order
        self.only_a = self.only_b = 0
        self.changed = self.changed_shown = 0
        self.winners = self.losers = 0
        self.largest: Optional[tuple[float, dict, bool]] = None  # (|diff|, brief, changed)
        self.top_winners: list = []    # ((-diff, id), arrival, brief), best first
        self.top_losers: list = []
        self._seen = 0

    def add(self, r) -> None:
        a, b = r.a_post, r.b_post
        if a is None or b is None:
            if a is not None:
                self.only_a += 1
            elif b is not None:
                self.only_b += 1
            return
        diff = b - a
        self.diffs.append(diff)
        self._seen += 1
        changed = abs(diff) > EPSILON
        if self.largest is None or abs(diff) > self.largest[0]:  # the first of equal largest
            self.largest = (abs(diff), _brief(r), changed)
        if round_half_up(a) != round_half_up(b):
            self.changed_shown += 1
        if not changed:
            return
        self.changed += 1
        if diff > 0:
            self.winners += 1
            _keep_top(self.top_winners, (-diff, r.id), self._seen, r)
        elif diff < 0:
            self.losers += 1
            _keep_top(self.top_losers, (diff, r.id), self._seen, r)

    def stats(self) -> dict:
        diffs = self.diffs
        return {
            "rated": len(diffs),
            "only_a": self.only_a,
            "only_b": self.only_b,
            "changed": self.changed,
            "changed_shown": self.changed_shown,
            "mean": sum(diffs) / len(diffs) if diffs else None,
            "mean_abs": sum(abs(d) for d in diffs) / len(diffs) if diffs else None,
            "largest": self.largest[1] if self.largest is not None and self.largest[2] else None,
            "winners": self.winners,
            "losers": self.losers,
            "top_winners": [brief for _, _, brief in self.top_winners],
            "top_losers": [brief for _, _, brief in self.top_losers],
        }


def _keep_top(top: list, key: tuple, arrival: int, r) -> None:
    """Keep in ``top`` the TOP best rows by ``key`` (ties: the first come),
    as a stable sort of all of them would put first."""
    if len(top) == TOP and (key, arrival) >= top[-1][:2]:
        return
    bisect.insort(top, (key, arrival, _brief(r)), key=lambda x: x[:2])
    del top[TOP:]


def _stats(rows: Sequence[Row]) -> dict:
    tally = Tally()
    for r in rows:
        tally.add(r)
    return tally.stats()


@dataclass
class Comparison:
    a: RuleSide
    b: RuleSide
    events: list[tuple[str, Event]]
    results_a: list[EventResult]
    results_b: list[EventResult]
    rows: list[Row]
    chain: bool = True
    names: dict = field(default_factory=dict)

    def rows_by_event(self) -> dict[str, list[Row]]:
        """The rows of each event (in chain order), grouped once."""
        out: dict[str, list[Row]] = {key: [] for key, _ in self.events}
        for r in self.rows:
            out[r.event].append(r)
        return out

    def summary(self) -> dict:
        events = []
        by_event = self.rows_by_event()
        for key, ev in self.events:
            rows = by_event[key]
            events.append({"event": key, "name": ev.name, "start": ev.start.isoformat(),
                           "end": ev.end.isoformat(), **_stats(rows)})
        systems = {}
        for system in sorted({r.system for r in self.rows}):
            systems[system] = _stats([r for r in self.rows if r.system == system])
        return {"a": self.a.spec, "b": self.b.spec, "a_means": self.a.label, "b_means": self.b.label,
                "chain": self.chain, "order": [key for key, _ in self.events],
                "overall": _stats(self.rows), "systems": systems, "events": events}

    def paths(self, ids: Sequence[str]) -> dict:
        """Rating paths of players under A and B across the events in chain
        order: ``{id: {system: [{"event", "date", "a", "b"}]}}``; the first
        point is the pre-event rating at the player's first rated event (date:
        that event's start)."""
        out: dict = {pid: {} for pid in ids}
        for (key, ev), ra, rb in zip(self.events, self.results_a, self.results_b):
            _add_path_points(out, key, ev, ra, rb)
        return out

    def as_dict(self, players: Sequence[str] = ()) -> dict:
        data = {"players": [r.as_dict() for r in self.rows], "summary": self.summary()}
        if players:
            data["paths"] = self.paths(players)
        return data


def _add_path_points(out: dict, key: str, ev, ra: EventResult, rb: EventResult) -> None:
    """Add one event's points to the rating paths ``out`` (``{id: {system:
    [points]}}``, the players chosen) of :meth:`Comparison.paths`."""
    for sec, system, a, b in _pairs(ra, rb):
        for pair in sorted(set(a) | set(b)):
            pa, pb = a.get(pair), b.get(pair)
            some = pa or pb
            per = out.get(some.id)
            if per is None or not ((pa and pa.m) or (pb and pb.m)):
                continue
            points = per.setdefault(system, [])
            if not points:
                pre_a = pa.pre if pa else None
                pre_b = pb.pre if pb else None
                if pre_a is not None or pre_b is not None:
                    points.append({"event": key, "date": ev.start.isoformat(),
                                   "a": pre_a, "b": pre_b, "pre": True})
            points.append({"event": key, "date": sec.end.isoformat(),
                           "a": pa.post if pa and pa.m else None,
                           "b": pb.post if pb and pb.m else None, "pre": False})


def _pairs(ra: EventResult, rb: EventResult):
    """For each section and system rated on either side: (section, system,
    {pair: PlayerResult under A}, {pair: PlayerResult under B})."""
    keys = []
    by_a, by_b = {}, {}
    for res, store in ((ra, by_a), (rb, by_b)):
        for sr in res.sections:
            k = (sr.section.name, sr.system)
            if k not in keys:
                keys.append(k)
            store[k] = sr
    for k in keys:
        sa, sb = by_a.get(k), by_b.get(k)
        sec = (sa or sb).section
        yield (sec, k[1], {p.pair: p for p in sa.players} if sa else {},
               {p.pair: p for p in sb.players} if sb else {})


def compare(events: Iterable[Event], a: RuleSide, b: RuleSide, *, chain: bool = True,
            book: Optional[RuleBook] = None,
            progress: Optional[Callable[[], None]] = None) -> Comparison:
    """Rate ``events`` under both sides (each its own chain) and pair the
    results; ``progress()`` is called after each event rated on each side."""
    book = book or RuleBook.load()
    ordered = order_events(events)
    results_a = replay(ordered, a.options, book=book, chain=chain, progress=progress)
    results_b = replay(ordered, b.options, book=book, chain=chain, progress=progress)
    rows = []
    for (key, _), ra, rb in zip(ordered, results_a, results_b):
        rows.extend(_rows_of(key, ra, rb))
    events = [(key, ra.event) for (key, _), ra in zip(ordered, results_a)]
    return Comparison(a, b, events, results_a, results_b, rows, chain)


def _rows_of(key: str, ra: EventResult, rb: EventResult) -> Iterator[Row]:
    """The rows of one event rated under A (``ra``) and B (``rb``): every
    player rated on either side, section by section and system by system."""
    ev = ra.event
    for sec, system, pa, pb in _pairs(ra, rb):
        players = {p.pair: p for p in sec.players}
        for pair, player in players.items():
            xa, xb = pa.get(pair), pb.get(pair)
            if not ((xa and xa.m) or (xb and xb.m)):
                continue
            yield Row(event=key, event_name=ev.name, date=sec.end, section=sec.name, pair=pair,
                      id=player.id, name=player.name, system=system, a=xa, b=xb)


# ------------------------------------------------------------ streamed

@dataclass
class EventBlock:
    """One event of a streamed comparison as its text block prints it: key,
    name, dates, statistics and rows."""

    key: str
    name: str
    start: _dt.date
    end: _dt.date
    stats: dict
    rows: list


class StreamedComparison:
    """A comparison rated event by event on both sides at once, for a
    history of any size: each event's rows are paired and counted as they
    come (:class:`Tally` per event, per system and overall), then written to
    a temporary file and dropped, with the results; the text table and the
    CSV read them back in order and are those of :class:`Comparison`.
    ``close()`` (or ``with``) removes the file."""

    def __init__(self, a: RuleSide, b: RuleSide, chain: bool, players: Sequence[str] = ()):
        self.a, self.b, self.chain = a, b, chain
        #: the rating paths of the players chosen (:meth:`Comparison.paths`),
        #: their names as the rows give them, and those met in any event
        self.paths: dict = {pid: {} for pid in players}
        self.names: dict[str, str] = {}
        self.seen: set[str] = set()
        self.overall = Tally()
        self.systems: dict[str, Tally] = {}
        self.events = 0
        self.name_width = 0        # the longest name and section name of any row
        self.section_width = 0
        self.differs = False       # a post differs, or a player is rated on one side only
        self._spill = tempfile.TemporaryFile()

    def __enter__(self) -> "StreamedComparison":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        self._spill.close()

    def add(self, key: str, event, rows: list[Row]) -> None:
        """Count and keep (on disk) one event's rows."""
        tally = Tally()
        kept = []
        paths = self.paths
        for row in rows:
            if row.id in paths:
                self.names[row.id] = row.name
            tally.add(row)
            self.overall.add(row)
            system = self.systems.get(row.system)
            if system is None:
                system = self.systems[row.system] = Tally()
            system.add(row)
            self.name_width = max(self.name_width, len(row.name))
            self.section_width = max(self.section_width, len(row.section))
            diff = row.diff
            if diff is None or diff != 0.0:
                self.differs = True
            kept.append(PostsRow.of(row).astuple())
        pickle.dump((key, event.name, event.start, event.end, tally.stats(), kept), self._spill,
                    protocol=pickle.HIGHEST_PROTOCOL)
        self.events += 1

    def blocks(self) -> Iterator[EventBlock]:
        """The events in chain order, read back one at a time."""
        self._spill.seek(0)
        for _ in range(self.events):
            key, name, start, end, stats, rows = pickle.load(self._spill)
            yield EventBlock(key, name, start, end, stats, [PostsRow(*r) for r in rows])
        self._spill.seek(0, 2)

    def rows(self) -> Iterator[PostsRow]:
        for block in self.blocks():
            yield from block.rows

    def diffs(self) -> list[float]:
        """B - A of every row rated on both sides, in order."""
        return list(self.overall.diffs)

    def overall_stats(self) -> dict:
        return self.overall.stats()

    def system_stats(self) -> dict:
        return {system: self.systems[system].stats() for system in sorted(self.systems)}


def iter_json(cmp: StreamedComparison, extra: Optional[dict] = None) -> Iterator[str]:
    """:meth:`Comparison.as_dict` of the same comparison (without rating
    paths), then ``extra``'s keys, as ``json.dumps(..., indent=2,
    allow_nan=False, default=str)`` writes it, in pieces: the rows and the
    events are read back one at a time."""
    def order():
        return (block.key for block in cmp.blocks())

    def events():
        return ({"event": block.key, "name": block.name, "start": block.start.isoformat(),
                 "end": block.end.isoformat(), **block.stats} for block in cmp.blocks())

    summary = {"a": cmp.a.spec, "b": cmp.b.spec, "a_means": cmp.a.label, "b_means": cmp.b.label,
               "chain": cmp.chain, "order": _Lazy(order), "overall": cmp.overall_stats(),
               "systems": cmp.system_stats(), "events": _Lazy(events)}
    data = {"players": _Lazy(lambda: (r.as_dict() for r in cmp.rows())), "summary": summary,
            **(extra or {})}
    yield from _json_pieces(data, 0)


class _Lazy:
    """A list in a JSON document written in pieces: ``make()`` gives its
    items, once for each writing."""

    def __init__(self, make: Callable[[], Iterable]):
        self.make = make


def _json_pieces(value, level: int) -> Iterator[str]:
    """``value`` as ``json.dumps(value, indent=2, ...)`` writes it at nesting
    ``level``, in pieces; lists given as :class:`_Lazy` are written item by
    item."""
    inner = "  " * (level + 1)
    if isinstance(value, _Lazy):
        empty = True
        for item in value.make():
            yield ("[\n" if empty else ",\n") + inner + _json_at(item, level + 1)
            empty = False
        yield "[]" if empty else "\n" + "  " * level + "]"
    elif isinstance(value, dict) and any(isinstance(v, (_Lazy, dict)) for v in value.values()):
        if not value:
            yield "{}"
            return
        for i, (key, item) in enumerate(value.items()):
            yield ("{\n" if i == 0 else ",\n") + inner + json.dumps(key) + ": "
            yield from _json_pieces(item, level + 1)
        yield "\n" + "  " * level + "}"
    else:
        yield _json_at(value, level)


def _json_at(value, level: int) -> str:
    return json.dumps(value, indent=2, allow_nan=False, default=str).replace(
        "\n", "\n" + "  " * level)


def compare_streamed(items: Iterable, a: RuleSide, b: RuleSide, *, chain: bool = True,
                     book: Optional[RuleBook] = None, loader=None,
                     progress: Optional[Callable[[], None]] = None,
                     players: Sequence[str] = ()) -> StreamedComparison:
    """:func:`compare` for a history of any size: ``items`` (events, FIDE
    updates or their paths) are ordered as a replay orders them (paths by
    a glance at the file beyond what is kept in memory, see
    :func:`uschess.apps.replay.ordered_items`), then read one at a time and
    rated under A and B side by side, each through its own chain; the rows
    are paired and counted as they come (see :class:`StreamedComparison`),
    and the rating paths of ``players`` collected."""
    book = book or RuleBook.load()
    out = StreamedComparison(a, b, chain, players)
    try:
        shared_a, shared_b = Chain(), Chain()
        for key, item in _ordered_for_compare(items, loader):
            results = []
            for side, shared in ((a, shared_a), (b, shared_b)):
                ch = shared if chain else Chain()
                if isinstance(item, FideUpdate):
                    results.append(ch.rate_fide_update(item, side.options, book)
                                   .as_event_result(key))
                else:
                    results.append(ch.rate_event(item, side.options, book, label=key))
                if progress:
                    progress()
            ra, rb = results
            if out.paths:
                if isinstance(item, FideUpdate):
                    out.seen.add(item.player_id)
                else:
                    out.seen.update(p.id for s in item.sections for p in s.players
                                    if p.id in out.paths)
                _add_path_points(out.paths, key, ra.event, ra, rb)
            out.add(key, ra.event, list(_rows_of(key, ra, rb)))
    except BaseException:
        out.close()
        raise
    return out


def _ordered_for_compare(items: Iterable, loader) -> Iterator[tuple[str, Item]]:
    """``(key, item)`` in the order of :func:`order_events` (duplicate keys
    made unique the same way), items beyond the replay's in-memory budget
    read when their turn comes."""
    index = _order.index_items(items, loader, key=lambda e: (e.end, e.start, event_key(e)))
    try:
        for entry in index.entries():  # as given among equal keys
            item = entry.item
            if item is None:
                path = entry.path
                item = (_order.load_event_file(path, loader) if entry.event_file
                        else load_item(path, loader))
                if (item.end, item.start, event_key(item)) != entry.key:
                    raise InputError("changed while the comparison was running", file=path)
            key = entry.key[2]
            yield (key if entry.occurrence == 1 else f"{key}#{entry.occurrence}"), item
    finally:
        index.close()


# ------------------------------------------------------------------ output

def _num(x: Optional[float], signed: bool = False) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "-"
    return f"{x:+.2f}" if signed else f"{x:.2f}"


def _stats_line(s: dict) -> str:
    if not s["rated"]:
        text = "no player rated on both sides"
    else:
        text = (f"{s['rated']} rated, {s['changed']} changed ({s['changed_shown']} as shown), "
                f"mean {_num(s['mean'], True)}, mean |change| {_num(s['mean_abs'])}")
        if s["largest"]:
            lg = s["largest"]
            text += f", largest {_num(lg['diff'], True)} ({lg['name']}, {lg['id']}, {lg['system']})"
        text += f"; {s['winners']} higher under B, {s['losers']} lower"
    if s["only_a"] or s["only_b"]:
        text += f"; rated under A only: {s['only_a']}, under B only: {s['only_b']}"
    return text


def format_text(cmp: Comparison, *, changed_only: bool = False) -> str:
    """The comparison as a text table, one block per event, then the summary."""
    summary = cmp.summary()
    by_event = cmp.rows_by_event()
    blocks = (EventBlock(key, ev.name, ev.start, ev.end, ev_summary, by_event[key])
              for ev_summary, (key, ev) in zip(summary["events"], cmp.events))
    lines = _text_lines(cmp.a, cmp.b, cmp.chain, max([len(r.name) for r in cmp.rows] + [6]),
                        max([len(r.section) for r in cmp.rows] + [7]), blocks,
                        summary["overall"], summary["systems"], changed_only)
    return "\n".join(lines) + "\n"


def iter_text(cmp: StreamedComparison, *, changed_only: bool = False) -> Iterator[str]:
    """The text table of a streamed comparison, line by line (each ending in
    a newline): :func:`format_text`'s, without holding it all."""
    lines = _text_lines(cmp.a, cmp.b, cmp.chain, max(cmp.name_width, 6),
                        max(cmp.section_width, 7), cmp.blocks(), cmp.overall_stats(),
                        cmp.system_stats(), changed_only)
    for line in lines:
        yield line + "\n"


def _text_lines(a: RuleSide, b: RuleSide, chain: bool, width: int, swidth: int,
                blocks: Iterable[EventBlock], overall: dict, systems: dict,
                changed_only: bool) -> Iterator[str]:
    """The lines of the text table: the sides, one block per event (rows
    of names ``width`` and sections ``swidth`` wide), then the summary."""
    yield from (f"A = {a.spec}: {a.label}", f"B = {b.spec}: {b.label}",
                ("events rated in order of end date, start date, id; each side feeds a player's "
                 "record after one event into the next" if chain else
                 "each event rated from its own file (no chain)"), "")
    head = (f"  {'Section':<{swidth}} {'Pair':>4}  {'ID':<10} {'Player':<{width}} {'System':<6} "
            f"{'A':>8} {'B':>8} {'B - A':>8}")
    for block in blocks:
        when = block.start.isoformat() + (f"..{block.end.isoformat()}"
                                          if block.end != block.start else "")
        yield f"{block.name} [{block.key}] {when}"
        rows = [r for r in block.rows if r.changed or not changed_only]
        if rows:
            yield head
            yield "  " + "-" * (len(head) - 2)
            for r in rows:
                mark = " *" if r.changed else ""
                yield (f"  {r.section:<{swidth}} {r.pair:>4}  {r.id:<10} {r.name:<{width}} "
                       f"{r.system:<6} {_num(r.a_post):>8} {_num(r.b_post):>8} "
                       f"{_num(r.diff, True):>8}{mark}")
        yield "  " + _stats_line(block.stats)
        yield ""
    yield "overall: " + _stats_line(overall)
    if len(systems) > 1:
        for system, st in systems.items():
            yield f"  {system}: " + _stats_line(st)
    for title, items in (("largest gains under B", overall["top_winners"]),
                         ("largest losses under B", overall["top_losers"])):
        if items:
            yield f"{title}: " + "; ".join(
                f"{x['name']} ({x['id']}, {x['system']}, {x['event']}) {_num(x['diff'], True)}"
                for x in items)


CSV_COLUMNS = ["event", "date", "section", "pair", "id", "name", "system", "a", "b", "diff"]


def to_csv(cmp) -> str:
    """One line per player and system (``CSV_COLUMNS``); empty cells where a
    side did not rate the player.  Full precision, so sums can be recomputed.
    ``cmp``: a :class:`Comparison` or a :class:`StreamedComparison`."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(CSV_COLUMNS)
    rows = cmp.rows() if isinstance(cmp, StreamedComparison) else cmp.rows
    for r in rows:
        d = r.as_dict()
        w.writerow(["" if d[c] is None else (repr(d[c]) if isinstance(d[c], float) else d[c])
                    for c in CSV_COLUMNS])
    return buf.getvalue()


