"""Reading published results: a crosstable page in any layout, a bare MSA
table, or a published-results file (JSON/YAML), as :class:`PublishedResults`."""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from uschess.apps.audit.cause import EPS
from uschess.errors import InputError
from uschess.io.eventfile import event_from_dict, parse_date
from uschess.io.textdata import MAX_DATA_BYTES, parse_data, read_page_text
from uschess.model import SYSTEM_LABELS, SYSTEMS, Event

#: Below this, two ratings are the same (published posts are compared with it).

#: Rating labels of the MSA layout and their systems.
MSA_LABELS = {SYSTEM_LABELS[s]: s for s in ("OTBR", "OTBQ", "OTBB")}


_MSA_LABEL = re.compile(r"\|\s*[0-9]+\s*/\s*([A-Z]{1,3})\s*:", re.ASCII)


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
class ScoredCell:
    """An ``N`` or ``R`` cell of a page: player ``pair`` of ``section`` was
    scored ``code`` (``N`` a point, ``R`` half a point) in round ``index``
    (0-based) against ``opponent`` without a game the reader rates
    (:data:`uschess.io.formats.msa.PAGE_CELLS` reads it as a bye)."""

    section: str
    pair: int
    index: int
    code: str
    opponent: int


def scored_cells(page) -> list[ScoredCell]:
    """The ``N``/``R`` cells of ``page`` (:class:`uschess.io.formats.pages.Page`)
    naming an opponent, read from the page's own player lines
    (:func:`uschess.io.formats.msa.scored_cell`, the reader's cell)."""
    from uschess.io.formats.msa import scored_cell

    out = []
    for sec in page.sections:
        for p in sec.players:
            if not 0 < p.line <= len(page.lines):
                continue
            cells = page.lines[p.line - 1].split("|")
            if len(cells) < 4 or cells[0].strip() != str(p.pair):
                continue
            for k, cell in enumerate(cells[3:3 + len(p.rounds)]):
                got = scored_cell(cell)
                if got is not None:
                    out.append(ScoredCell(sec.name, p.pair, k, got[0], got[1]))
    return out


#: What an MSA page prints in a section's Processed block when the
#: crosstable was corrected after the section's ratings were computed (the
#: page: "corrections have been made to this section.  Any impact these
#: corrections may have upon the ratings from this section will not show up
#: until after the next rerate of this section").
_CORRECTED = re.compile(r"corrections\s+have\s+been\s+made\s+to\s+this\s+section", re.I)


def corrected_sections(page) -> list[str]:
    """The sections of ``page`` whose Processed block says the crosstable was
    corrected after its ratings were computed: the page shows the corrected
    games with the ratings of the games as first rated.  A note belongs to
    the first section whose player lines follow it."""
    notes = [k for k, line in enumerate(page.lines, 1) if _CORRECTED.search(line)]
    starts = sorted((min(p.line for p in sec.players), sec.name)
                    for sec in page.sections if sec.players)
    out = []
    for at in notes:
        name = next((name for first, name in starts if first > at), None)
        if name is not None and name not in out:
            out.append(name)
    return out


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
    #: the page's N and R cells against an opponent (:class:`ScoredCell`)
    scored: list = field(default_factory=list)
    #: the sections the page says were corrected after they were rated
    #: (:func:`corrected_sections`)
    corrected: list = field(default_factory=list)

    @property
    def rated_on(self) -> Optional[_dt.date]:
        """The latest date the page says its sections were rated (or re-rated)."""
        dates = [d for f in self.facts for d in (f.rated, f.rerated) if d is not None]
        return max(dates) if dates else None


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
    items = raw.get("published")
    if not isinstance(items, list) or not items:
        raise InputError("'published' must be a non-empty list of {id, system, post}", file=source)
    # the entries' fields are read with the event (one reader of a published: list)
    event = event_from_dict(raw, source=source)
    where_id: dict[str, list] = {}
    for sec in event.sections:
        for pl in sec.players:
            where_id.setdefault(pl.id, []).append((sec, pl))
    entries, seen = [], {}
    for i, item in enumerate(event.published, start=1):
        what = f"published entry {i}"
        try:
            pid, system, post, pre, section = item.id, item.system, item.post, item.pre, item.section
            places = where_id.get(pid)
            if not places:
                raise InputError(f"id {pid} plays in no section of the event")
            if section is not None:
                places = [(s, p) for s, p in places if s.name == section]
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
            if item.pre_given:
                if pre is None and rec is not None:
                    raise InputError(f"published as unrated in {system} but the section gives a "
                                     f"pre-event rating of {rec.rating:g}")
                if pre is not None and rec is None:
                    raise InputError(f"published pre-event {system} rating {pre:g} but the section "
                                     f"gives none: add ratings.{system} {{rating, games}} to the player")
                if pre is not None and abs(rec.rating - pre) > 0.5 + EPS:
                    raise InputError(f"published pre-event rating {pre:g} but the section gives "
                                     f"{rec.rating:g} (they must agree to within 0.5)")
            entries.append(PublishedEntry(pid, system, post, pre, sec.name,
                                          item.name or pl.name, pl.pair))
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
    text = read_page_text(path, MAX_FILE_BYTES, "published-results file")
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
            out = published_from_page(page, opts)
        except InputError as err:
            raise err.located(file=path)
        out.scored = scored_cells(page)
        out.corrected = corrected_sections(page)
        return out
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
    if not text.strip() or (path.suffix.lower() not in (".json", ".yaml", ".yml")
                            and text.lstrip()[:1] not in ("{", "[")):
        from uschess.io.formats.pages import describe_text
        raise InputError(f"neither a crosstable page nor a published-results file: "
                         f"{describe_text(text)}", file=path)
    if len(text.encode("utf-8")) > MAX_DATA_BYTES:
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
