"""Published crosstable pages, whatever layout the user saved: one reader.

:func:`read_page` detects the layout and reads everything the page states.

``msa-html``
    The MSA crosstable page (``XtblMain.php``) saved from a browser, one
    section or "Show ALL Sections".  Parsed with :mod:`html.parser`: the page
    is rendered to the text a browser shows (table rows as lines, cells
    separated by tabs, ``<pre>`` kept as it is) and read as ``msa-text``.
``msa-text``
    The same page copied from a browser as text: per section a header
    (``Section 1 - OPEN``, ``Section Date(s)``, ``Processed ... Rated:``,
    ``4 Rounds, 23 Players; K Factor: F Rating Sys: R Tnmt Type: S``,
    ``Time Control:``) and the table.
``msa-table``
    A bare MSA table (:func:`uschess.io.formats.msa.read_table`), one section,
    nothing stated but the table.
``export``
    What ``uschess export crosstable --format msa`` writes: an event line,
    then per section and system a heading
    (``Section OPEN - OTBR (R), G/90;d5, 2024-03-04..2024-03-25``) and a table.
``td``
    The crosstable US Chess prepares for the tournament director
    (``Memb ID PAIR NAME ST PRERATE PSTRATE``, ratings ``1510*`` established,
    ``992/12`` provisional with its games, ``1300/00`` the initial rating of
    an unrated player, cells ``W--21``); columns are found from its dashed
    line.

Every table line goes through the one MSA table reader
(:func:`~uschess.io.formats.msa.read_table`); every problem is an
:class:`~uschess.errors.InputError` naming the file, line, section and
player.
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from html.parser import HTMLParser
from pathlib import Path
from typing import Optional

from uschess.errors import InputError
from uschess.io.formats.msa import (LABEL_SYSTEMS, MAX_FILE_BYTES, MAX_PROVISIONAL,
                                    PrintedRating, TableRow, looks_like_msa, parse_cell,
                                    read_table)
from uschess.io.textdata import check_text, read_page_text
from uschess.model import Round

LAYOUTS = ("msa-html", "msa-text", "msa-table", "export", "td")
#: ``Rating Sys:`` of the MSA header: the systems a section was rated in.
RATING_SYS = {"R": ("OTBR",), "Q": ("OTBQ",), "D": ("OTBR", "OTBQ"), "B": ("OTBB",),
              "OR": ("OLR",), "OQ": ("OLQ",), "OB": ("OLB",)}
#: ``Rating Sys:`` codes of sections that US Chess rated from FIDE ratings
#: (a FIDE event abroad: "FIDE event adjustment", the round cells printing
#: the opponents' FIDE ratings, not pair numbers, ``W2410``): each player's
#: OTBR rating updated by sec. 6 (:mod:`uschess.io.formats.page_event`).
FIDE_RATING_SYS = {"G": "a FIDE event abroad (a FIDE event adjustment, sec. 6)",
                   "F": "a FIDE-rated event"}
#: What the MSA pages print for a processed date they do not have.
NO_DATE = "0000-00-00"
#: ``Tnmt Type:`` letters and the section kind the engine rates them as
#: (S Swiss, R round robin, M match: two players, or a team match of pairs,
#: rated as US Chess rated them, :mod:`uschess.rating.match`; the other
#: letters are rated as a Swiss is).
TNMT_TYPES = {"S": "swiss", "R": "round-robin", "M": "match"}
#: ``K Factor:`` letters: F full K; H half K (002 "half-K" events).
K_FACTORS = ("F", "H", "Q")
#: The TD layout's "Rating Stats:" words and the systems they name.
TD_RATING_STATS = {"regular": "R", "quick": "Q", "dual": "D", "blitz": "B",
                   "online regular": "OR", "online quick": "OQ", "online blitz": "OB"}

_DATE = r"([0-9]{4}-[0-9]{2}-[0-9]{2})"
# A number the readers convert (a section's number, its rounds and players,
# a TD cell's pair): at most nine digits. Python will not convert a run of
# thousands (past 4,300), and no page has a number that long.
_NUMBER = r"([0-9]{1,9})"
_SECTION = re.compile(r"^\s*Section\s+" + _NUMBER + r"\s+-\s+(.*?)\s*$")
_EXPORT_HEAD = re.compile(r"^Section (.+) - (OTBR|OTBQ|OTBB|OLR|OLQ|OLB) \(([A-Z]{1,2})\), (.+), "
                          + _DATE + r"(?:\.\." + _DATE + r")?\s*$")
_EXPORT_TITLE = re.compile(r"^(.*?)(?: \(([0-9]+)\))?, " + _DATE + r"(?:\.\." + _DATE + r")?\s*$")
_DATES = re.compile(r"Section Date\(s\)\s*" + _DATE + r"(?:\s+thru\s+" + _DATE + r")?")
_PROCESSED = re.compile(r"Received:\s*" + _DATE + r"|Entered:\s*" + _DATE + r"|Re-Rated:\s*"
                        + _DATE + r"|Rated:\s*" + _DATE)
_STATS = re.compile(r"(?<![0-9])" + _NUMBER + r"\s+Rounds?,\s*" + _NUMBER
                    + r"\s+Players?;\s*K Factor:\s*([A-Z]*)\s+"
                    r"Rating Sys:\s*([A-Z]+)(\s*\(FIDE Rated\))?\s+Tnmt Type:\s*([A-Z]*)")
_TC = re.compile(r"Time Control:\s*(.*?)\s*$")
_TITLE = re.compile(r"Cross Table for (.*?) \(Event ([0-9]+)\)")
_EVENT_ROW = re.compile(r"^\s*Event\s*\t+\s*(.*?)\s*\(([0-9]{6,})\)\s*$")


@dataclass
class PagePlayer:
    """One player (one entry) of a section as the page prints them.

    ``ratings`` maps a system (``OTBR`` ...) to its printed pre/post;
    ``initial`` is the initial rating the TD layout prints for an unrated
    player (``1300/00``), None elsewhere."""

    pair: int
    id: str
    name: str
    state: Optional[str]
    total: float
    rounds: list[Round]
    ratings: dict[str, PrintedRating]
    line: int
    initial: Optional[float] = None
    norm: str = ""

    @property
    def label(self) -> str:
        return f"{self.pair} ({self.name})"


@dataclass
class PageSection:
    """A section and everything its header states (None: not stated)."""

    name: str
    players: list[PagePlayer]
    number: Optional[int] = None
    start: Optional[_dt.date] = None
    end: Optional[_dt.date] = None
    received: Optional[_dt.date] = None
    entered: Optional[_dt.date] = None
    rated: Optional[_dt.date] = None
    rerated: Optional[_dt.date] = None
    rounds: Optional[int] = None
    player_count: Optional[int] = None
    k_factor: Optional[str] = None
    rating_sys: Optional[str] = None
    fide_rated: bool = False
    tnmt_type: Optional[str] = None
    time_control: Optional[str] = None
    line: int = 1

    @property
    def systems(self) -> list[str]:
        """The systems the section was rated in: from ``Rating Sys``, else
        from the labels printed."""
        if self.rating_sys in RATING_SYS:
            return list(RATING_SYS[self.rating_sys])
        if self.abroad:
            return ["OTBR"]  # sec. 6 updates the regular rating
        seen: list[str] = []
        for p in self.players:
            for s in p.ratings:
                if s not in seen:
                    seen.append(s)
        return sorted(seen, key=list(LABEL_SYSTEMS.values()).index)

    @property
    def abroad(self) -> bool:
        """A FIDE event abroad (:data:`FIDE_RATING_SYS`): cells print the
        opponents' FIDE ratings."""
        return self.rating_sys in FIDE_RATING_SYS

    @property
    def online(self) -> Optional[bool]:
        systems = self.systems
        return systems[0].startswith("OL") if systems else None


@dataclass
class Page:
    """A published crosstable page: the event and its sections."""

    layout: str
    sections: list[PageSection]
    source: Optional[str] = None
    event_name: Optional[str] = None
    event_id: Optional[str] = None
    start: Optional[_dt.date] = None
    end: Optional[_dt.date] = None
    warnings: list[str] = field(default_factory=list)
    #: the text lines the page was read from (an MSA page, HTML rendered as
    #: a browser shows it); each player's ``line`` counts from 1 in them
    lines: list[str] = field(default_factory=list, repr=False)


# ------------------------------------------------------------------ HTML

class _PageText(HTMLParser):
    """The text a browser shows for an MSA page: a line per table row,
    paragraph and ``<br>``, a tab before each cell, runs of white space
    collapsed, ``<pre>`` blocks as written (entities decoded)."""

    BLOCK = {"tr", "p", "br", "table", "div", "h1", "h2", "h3", "h4", "li", "center", "form",
             "title", "hr"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        #: for each part of ``parts``: the markup's line it starts on, and
        #: whether its line breaks are the markup's own (a <pre> block's text)
        self.part_lines: list[tuple[int, bool]] = []
        self.pre = 0
        self.title: list[str] = []
        self.in_title = False
        self.hidden = 0  # inside <style> or <script>: not shown

    def handle_starttag(self, tag, attrs):
        if tag in ("style", "script"):
            self.hidden += 1
            return
        if tag == "pre":
            self.pre += 1
            self._add("\n")
        elif tag == "td" and not self.pre:
            self._add("\t")
        elif tag == "br" and self.pre:
            self._add("\n")
        elif tag in self.BLOCK and not self.pre:
            self._add("\n")
        if tag == "title":
            self.in_title = True

    def handle_startendtag(self, tag, attrs):
        self.handle_starttag(tag, attrs)

    def handle_endtag(self, tag):
        if tag in ("style", "script"):
            self.hidden = max(0, self.hidden - 1)
            return
        if tag == "pre" and self.pre:
            self.pre -= 1
            self._add("\n")
        elif tag in self.BLOCK and not self.pre:
            self._add("\n")
        if tag == "title":
            self.in_title = False

    def handle_data(self, data):
        if self.hidden:
            return
        data = data.replace("\xa0", " ")
        if self.in_title:
            self.title.append(data)
        if self.pre:
            self._add(data, own_lines=True)
        else:
            self._add(re.sub(r"[ \r\n\f\v]+", " ", data))

    def _add(self, text: str, own_lines: bool = False) -> None:
        self.parts.append(text)
        self.part_lines.append((self.getpos()[0], own_lines))

    def text(self) -> str:
        lines = "".join(self.parts).split("\n")
        return "\n".join(line.rstrip() if line.strip() else "" for line in lines)

    def source_lines(self) -> list[int]:
        """The line of the markup each line of :meth:`text` starts on (a
        ``<pre>`` block's lines are the markup's own, one for one)."""
        out = [1]
        for part, (line, own) in zip(self.parts, self.part_lines):
            for k in range(part.count("\n")):
                out.append(line + k + 1 if own else line)
        return out


def html_text(markup: str) -> tuple[str, str, list[int]]:
    """(the page's text, its title, the markup's line of each line of the
    text) of an HTML page: an error in the text is told at the file's line."""
    parser = _PageText()
    parser.feed(markup)
    parser.close()
    return parser.text(), " ".join("".join(parser.title).split()), parser.source_lines()


def looks_like_html(text: str) -> bool:
    head = text[:2000].lstrip().lower()
    return head.startswith(("<!doctype html", "<html", "<!--")) and "<" in head and (
        "<html" in text[:5000].lower() or "<pre" in text.lower())


def looks_like_td(text: str) -> bool:
    return re.search(r"^\s*Memb ID\s+PAIR\s+NAME\s+ST\s+PRERATE\s+PSTRATE", text[:20000],
                     re.MULTILINE) is not None


def describe_text(text: str) -> str:
    """What a text that no reader reads looks like, in a few words (for the
    one line that refuses it)."""
    if not text.strip():
        return "an empty file"
    if looks_like_html(text) or text.lstrip()[:1] == "<":
        title = re.search(r"<title[^>]*>(.*?)</title>", text[:20000], re.I | re.S)
        named = f" titled {' '.join(title.group(1).split())[:60]!r}" if title else ""
        return f"an HTML page{named} with no crosstable ('Section N - NAME' and 'Pair |' table)"
    lines = [ln for ln in text.split("\n") if ln.strip()]
    first = " ".join(lines[0].split())
    return (f"text of {len(lines):,} line{'s' if len(lines) != 1 else ''} with no crosstable "
            f"layout, beginning {first[:60]!r}")


def looks_like_page(text: str) -> bool:
    """True for any layout :func:`parse_page` reads."""
    if not isinstance(text, str):
        return False
    return (looks_like_html(text) or looks_like_td(text) or looks_like_msa(text)
            or any(_SECTION.match(line) for line in text.split("\n", 2000)[:2000]))


# ------------------------------------------------------------------ reading

def _date(text: Optional[str], what: str, line: int) -> Optional[_dt.date]:
    if text is None:
        return None
    try:
        return _dt.date.fromisoformat(text)
    except ValueError:
        raise InputError(f"{what} {text!r} is not a date", record=line)


def _page_players(rows: list[TableRow], warnings: list[str], section: str = ""
                  ) -> list[PagePlayer]:
    """The players of ``rows``; what the reading made of unreadable cells goes
    to ``warnings``."""
    out = []
    for row in rows:
        warnings.extend(f"section {section}: {n}" if section else n for n in row.notes)
        ratings = {}
        for label, printed in row.ratings.items():
            system = LABEL_SYSTEMS.get(label)
            if system is None:
                raise InputError(f"rating label '{label}:' is not one of "
                                 f"{', '.join(LABEL_SYSTEMS)}", record=printed.line,
                                 player=row.label)
            ratings[system] = printed
        out.append(PagePlayer(pair=row.pair, id=row.id, name=row.name, state=row.state,
                              total=row.total, rounds=row.rounds, ratings=ratings, line=row.line,
                              norm=row.norm))
    return out


def _table_span(lines: list[str], start: int, stop: int) -> tuple[int, int]:
    """The first and past-the-last line of the table in lines[start:stop]:
    from the dashed line above the ``Pair |`` header to the last line that
    holds a ``|`` or is dashed."""
    head = None
    for i in range(start, stop):
        if re.match(r"^\s*Pair\s*\|", lines[i]):
            head = i
            break
    if head is None:
        return -1, -1
    first = head - 1 if head > start and re.match(r"^\s*-{3,}\s*$", lines[head - 1]) else head
    i = head
    while i < stop and ("|" in lines[i] or re.match(r"^\s*-{3,}\s*$", lines[i])):
        i += 1
    return first, i


def _read_msa_text(text: str, source: Optional[str], layout: str, title: str = "",
                   file_lines: Optional[list[int]] = None) -> Page:
    lines = text.split("\n")
    page = Page(layout=layout, sections=[], source=source, lines=lines)
    match = _TITLE.search(title)
    if match:
        page.event_name, page.event_id = match.group(1).strip(), match.group(2)
    starts = [i for i, line in enumerate(lines) if _SECTION.match(line)]
    for i, line in enumerate(lines[:starts[0] if starts else len(lines)]):
        m = _EVENT_ROW.match(line)
        if m:
            page.event_name = page.event_name or m.group(1).strip()
            page.event_id = page.event_id or m.group(2)
        m = re.match(r"^\s*Event Date\(s\)\s*" + _DATE + r"(?:\s+thru\s+" + _DATE + r")?", line)
        if m:
            page.start = _date(m.group(1), "event date", i + 1)
            page.end = _date(m.group(2), "event end date", i + 1) or page.start
    if not starts:
        raise InputError("no 'Section N - NAME' header found: not an MSA page")
    unread: list[InputError] = []
    for k, begin in enumerate(starts):
        stop = starts[k + 1] if k + 1 < len(starts) else len(lines)
        m = _SECTION.match(lines[begin])
        sec = PageSection(name=m.group(2), players=[], number=int(m.group(1)), line=begin + 1)
        first, past = _table_span(lines, begin, stop)
        try:
            for i in range(begin + 1, first if first >= 0 else stop):
                line, number = lines[i], i + 1
                m = _DATES.search(line)
                if m:
                    sec.start = _date(m.group(1), "section date", number)
                    sec.end = _date(m.group(2), "section end date", number) or sec.start
                if "Received:" in line or "Rated:" in line:
                    for g in _PROCESSED.finditer(line):
                        rec, ent, rer, rat = (_date(x, "processed date", number)
                                              if x != NO_DATE else None for x in g.groups())
                        sec.received = rec or sec.received
                        sec.entered = ent or sec.entered
                        sec.rerated = rer or sec.rerated
                        sec.rated = rat or sec.rated
                m = _STATS.search(line)
                if m:
                    sec.rounds, sec.player_count = int(m.group(1)), int(m.group(2))
                    sec.k_factor, sec.rating_sys = m.group(3) or None, m.group(4)
                    sec.fide_rated = bool(m.group(5))
                    sec.tnmt_type = m.group(6) or None
                    if sec.rating_sys not in RATING_SYS and sec.rating_sys not in FIDE_RATING_SYS:
                        raise InputError(f"Rating Sys {sec.rating_sys!r} is not one of "
                                         f"{', '.join(RATING_SYS)}", record=number)
                    if sec.k_factor is not None and sec.k_factor not in K_FACTORS:
                        raise InputError(f"K Factor {sec.k_factor!r} is not one of "
                                         f"{', '.join(K_FACTORS)}", record=number)
                m = _TC.search(line)
                if m and m.group(1):
                    sec.time_control = m.group(1)
            if first < 0:
                raise InputError("the section has no crosstable (no 'Pair |' header)",
                                 record=begin + 1)
            rows = read_table("\n".join(lines[first:past]), first_line=first + 1, page=True)
            if not rows:
                raise InputError("the crosstable lists no players", record=first + 1)
            sec.players = _page_players(rows, page.warnings, sec.name)
        except InputError as err:
            unread.append(err.located(section=sec.name))
            continue
        page.sections.append(sec)
    if not page.sections:
        raise unread[0]
    for err in unread:  # one section that cannot be read does not lose the page
        line = err.record
        if file_lines is not None and isinstance(line, int) and 1 <= line <= len(file_lines):
            line = file_lines[line - 1]
        where = ", ".join(x for x in (f"line {line}" if line is not None else "",
                                      f"player {err.player}" if err.player else "",
                                      f"round {err.round}" if err.round else "") if x)
        page.warnings.append(f"section {err.section}: not read ({where + ': ' if where else ''}"
                             f"{err.message}); the page's other sections are")
    return page


def _read_export(text: str, source: Optional[str]) -> Page:
    lines = text.split("\n")
    page = Page(layout="export", sections=[], source=source)
    m = _EXPORT_TITLE.match(lines[0].strip()) if lines else None
    if m:
        page.event_name, page.event_id = m.group(1), m.group(2)
        page.start = _date(m.group(3), "event date", 1)
        page.end = _date(m.group(4), "event end date", 1) or page.start
    by_name: dict[str, PageSection] = {}
    heads = [i for i, line in enumerate(lines) if _EXPORT_HEAD.match(line)]
    for k, begin in enumerate(heads):
        stop = heads[k + 1] if k + 1 < len(heads) else len(lines)
        m = _EXPORT_HEAD.match(lines[begin])
        name, system, label, tc = m.group(1), m.group(2), m.group(3), m.group(4)
        try:
            start = _date(m.group(5), "section date", begin + 1)
            end = _date(m.group(6), "section end date", begin + 1) or start
            if LABEL_SYSTEMS.get(label) != system:
                raise InputError(f"heading names {system} with label '{label}:'", record=begin + 1)
            rows = read_table("\n".join(lines[begin + 1:stop]), first_line=begin + 2, page=True)
            players = _page_players(rows, page.warnings, name)
            for p in players:
                if set(p.ratings) != {system}:
                    raise InputError(f"ratings labelled {sorted(p.ratings)} under a {system} "
                                     "heading", record=p.line + 1, player=p.label)
        except InputError as err:
            raise err.located(section=name)
        sec = by_name.get(name)
        if sec is None:
            sec = by_name[name] = PageSection(name=name, players=players, start=start, end=end,
                                              time_control=tc, line=begin + 1)
            page.sections.append(sec)
            continue
        known = {p.pair: p for p in sec.players}
        if set(known) != {p.pair for p in players}:
            raise InputError(f"the {system} table lists other pairs than the first table of "
                             "the section", file=source, section=name, record=begin + 1)
        for p in players:
            mine = known[p.pair]
            if (mine.id, mine.rounds) != (p.id, p.rounds):
                raise InputError(f"pair {p.pair} differs between the section's tables",
                                 file=source, section=name, record=p.line, player=p.label)
            mine.ratings.update(p.ratings)
    if not page.sections:
        raise InputError("no 'Section NAME - SYSTEM (L), TC, DATE' heading found")
    return page


_TD_CELL = re.compile(r"^([A-Z])-*" + _NUMBER + "$", re.ASCII)
_TD_RATING = re.compile(r"^([0-9]{1,4})(\*|/([0-9]{1,3}))$", re.ASCII)


def _td_rating(token: str, what: str, line: int) -> tuple[Optional[float], Optional[int]]:
    """``1510*`` (established), ``992/12`` (12 games), ``1300/00`` (an
    initial rating, no games), blank (unrated) as (rating, games)."""
    text = token.strip()
    if not text or text.lower() in ("unr", "unrated", "unr."):
        return None, None
    m = _TD_RATING.match(text)
    if not m:
        raise InputError(f"{what} rating {text!r} is not like 1510*, 992/12 or 1300/00",
                         record=line, field="rating")
    rating = float(m.group(1))
    if not 100 <= rating <= 3000:
        raise InputError(f"{what} rating {text!r} is impossible", record=line, field="rating")
    games = None if m.group(2) == "*" else int(m.group(3))
    if games is not None and games > MAX_PROVISIONAL:
        raise InputError(f"{what} rating {text!r}: a provisional rating is based on at most "
                         f"{MAX_PROVISIONAL} games", record=line, field="rating")
    return rating, games


def _td_cell(token: str, line: int, rnd: int) -> Round:
    text = token.strip()
    m = _TD_CELL.match(text)
    if not m:
        raise InputError(f"round cell {text!r} is not like W--21 or H---0", record=line,
                         round=rnd)
    code, opp = m.group(1), int(m.group(2))
    return parse_cell(f"{code} {opp}" if opp else code)


def _read_td(text: str, source: Optional[str]) -> Page:
    lines = text.split("\n")
    page = Page(layout="td", sections=[], source=source)
    sec: Optional[PageSection] = None
    cols: Optional[list[tuple[int, int]]] = None
    stats_sys: Optional[str] = None
    i = 0
    while i < len(lines):
        line, number = lines[i].rstrip("\r"), i + 1
        i += 1
        key, sep, value = line.partition(":")
        key, value = key.strip(), value.strip()
        try:
            if sec is None and key == "Event ID" and sep:
                page.event_id = value or None
            elif sec is None and key == "Event Name" and sep:
                page.event_name = value or None
            elif sec is None and key == "Event Dates" and sep:
                m = re.match(_DATE + r"(?:\s*-\s*" + _DATE + r")?$", value)
                if not m:
                    raise InputError(f"event dates {value!r} are not like 2022-05-25 - 2022-06-15",
                                     record=number)
                page.start = _date(m.group(1), "event date", number)
                page.end = _date(m.group(2), "event end date", number) or page.start
            elif key == "Section" and sep:
                m = re.match(r"^" + _NUMBER + r"\s+(.*)$", value)
                if not m:
                    raise InputError(f"section {value!r} is not 'NUMBER NAME'", record=number)
                sec = PageSection(name=m.group(2).strip(), players=[], number=int(m.group(1)),
                                  line=number)
                page.sections.append(sec)
                cols = None
            elif sec is not None and key == "Section Dates" and sep:
                m = re.match(_DATE + r"(?:\s*-\s*" + _DATE + r")?$", value)
                if not m:
                    raise InputError(f"section dates {value!r} are not like 2022-05-25 - "
                                     "2022-06-15", record=number)
                sec.start = _date(m.group(1), "section date", number)
                sec.end = _date(m.group(2), "section end date", number) or sec.start
            elif sec is not None and key == "Stats" and sep:
                m = re.match(r"^" + _NUMBER + r"\s+Rounds?,\s*" + _NUMBER
                             + r"\s+Players?.*?(Swiss|Round Robin)?$", value)
                if m:
                    sec.rounds, sec.player_count = int(m.group(1)), int(m.group(2))
                    sec.tnmt_type = {"Swiss": "S", "Round Robin": "R"}.get(m.group(3) or "")
            elif sec is not None and key == "Rating Stats" and sep:
                m = re.match(r"^(.*?)(?<!\s)\s+Ratings?\s+(Full|Half)\s+K", value, re.IGNORECASE)
                if not m or m.group(1).lower() not in TD_RATING_STATS:
                    raise InputError(f"rating stats {value!r} are not like 'Regular Ratings Full K'",
                                     record=number)
                sec.rating_sys = TD_RATING_STATS[m.group(1).lower()]
                sec.k_factor = m.group(2)[0].upper()
                stats_sys = RATING_SYS[sec.rating_sys][0]
                if len(RATING_SYS[sec.rating_sys]) != 1:
                    raise InputError("this layout prints one rating per player: a section "
                                     f"rated in {value!r} cannot be read from it", record=number)
            elif sec is not None and key == "Dates" and sep:
                for g in _PROCESSED.finditer(value):
                    rec, ent, rer, rat = (_date(x, "processed date", number) for x in g.groups())
                    sec.received = rec or sec.received
                    sec.entered = ent or sec.entered
                    sec.rated = rat or sec.rated
            elif sec is not None and key == "Re-Rated" and sep:
                sec.rerated = _date(value, "re-rated date", number) if value else None
            elif re.match(r"^\s*Memb ID\s+PAIR", line):
                if sec is None:  # the report's body alone: its table, no header above it
                    sec = PageSection(name="", players=[], number=1, line=number)
                    page.sections.append(sec)
                    page.warnings.append("the TD crosstable's table without its header (no "
                                         "'Section:' block): one section; its dates and rating "
                                         "system are not stated (ratings read as Regular, OTBR)")
                dashes = lines[i].rstrip("\r") if i < len(lines) else ""
                if not re.match(r"^[- ]+$", dashes) or "-" not in dashes:
                    raise InputError("the table header is not followed by its dashed line",
                                     record=number + 1)
                cols = [(m.start(), m.end()) for m in re.finditer(r"-+", dashes)]
                if len(cols) < 8:
                    raise InputError("the table needs ID, PAIR, NAME, ST, PRERATE, PSTRATE, "
                                     "a round and TOTAL columns", record=number + 1)
                i += 1
            elif sec is not None and cols is not None and line.strip():
                sec.players.append(_td_player(line, number, cols, stats_sys or "OTBR"))
            elif not line.strip():
                cols = None if cols is not None and sec is not None and sec.players else cols
        except InputError as err:
            raise err.located(section=sec.name if sec is not None else None)
    if not page.sections:
        raise InputError("no 'Section:' found: not a TD crosstable")
    for s in page.sections:
        if not s.players:
            raise InputError("the section lists no players", section=s.name, record=s.line)
    return page


def _td_player(line: str, number: int, cols, system: str) -> PagePlayer:
    """One player line of the TD layout.  Each field runs from the start of
    its column's dashes to the start of the next column's (a value such as
    ``1510*`` or ``1.0`` may spill past its dashes); the last to the end."""
    starts = [a for a, _ in cols]

    def field(k: int) -> str:
        a = starts[k]
        b = starts[k + 1] if k + 1 < len(starts) else len(line)
        return line[a:b].strip() if a < len(line) else ""

    memb, pair_t, name, state, pre_t, post_t = (field(k) for k in range(6))
    rounds_t = [field(k) for k in range(6, len(starts) - 1)]
    total_t = field(len(starts) - 1)
    if not re.match(r"^[0-9]{5,9}$", memb):
        raise InputError(f"member id {memb!r} is not a number", record=number)
    if not re.match(r"^[0-9]{1,5}$", pair_t) or int(pair_t) < 1:
        raise InputError(f"pair {pair_t!r} is not a positive number", record=number)
    pair = int(pair_t)
    label = f"{pair} ({name})"
    try:
        if not name or not name.isprintable():
            raise InputError(f"the name {name!r} is empty or unprintable")
        if state and not re.match(r"^[A-Za-z]{1,4}$", state):
            raise InputError(f"state {state!r} is not a state or province code", field="state")
        pre, pre_games = _td_rating(pre_t, "pre-event", number)
        post, post_games = _td_rating(post_t, "post-event", number)
        if post_games == 0:  # '/00' is an initial rating, printed before an event only
            raise InputError(f"post-event rating {post_t!r}: a rating after an event is based "
                             "on at least one game ('/00' is printed before one only)",
                             field="rating")
        rounds = [_td_cell(c, number, k) for k, c in enumerate(rounds_t, start=1)]
        if not re.match(r"^[0-9]{1,3}(\.[05])?$", total_t):
            raise InputError(f"total {total_t!r} is not a number of points", field="total")
        total = float(total_t)
        if sum(r.points for r in rounds) != total:
            raise InputError(f"total {total_t} but the rounds add up to "
                             f"{sum(r.points for r in rounds):g}", field="total")
    except InputError as err:
        raise err.located(record=number, player=label)
    initial = None
    if pre is not None and pre_games == 0:
        initial, pre = pre, None  # '1300/00': the initial rating of an unrated player
    printed = PrintedRating(LABEL_LETTER[system], pre, pre_games if pre is not None else None,
                            post, post_games if post_games else None, number,
                            initial=initial, initial_games=0 if initial is not None else None)
    return PagePlayer(pair=pair, id=memb, name=name, state=state or None, total=total,
                      rounds=rounds, ratings={system: printed}, line=number, initial=initial)


LABEL_LETTER = {system: label for label, system in LABEL_SYSTEMS.items()}


def parse_page(text: str, source: Optional[str] = None) -> Page:
    """Read a page in any layout (see the module text)."""
    try:
        if not isinstance(text, str):
            raise InputError(f"page text must be a string, not {type(text).__name__}")
        check_text(text.lstrip("\ufeff"), source)
        text = text.replace("\r\n", "\n").replace("\r", "\n")
        if looks_like_html(text):
            rendered, title, lines = html_text(text)
            if not any(_SECTION.match(line) for line in rendered.split("\n")):
                raise InputError(f"not an MSA page: {describe_text(text)}")
            try:
                return _read_msa_text(rendered, source, "msa-html", title, lines)
            except InputError as err:  # the line of the text shown: the file's line
                if isinstance(err.record, int) and 1 <= err.record <= len(lines):
                    err.record = lines[err.record - 1]
                raise
        if looks_like_td(text):
            return _read_td(text, source)
        if any(_EXPORT_HEAD.match(line) for line in text.split("\n", 50)[:50]):
            return _read_export(text, source)
        if any(_SECTION.match(line) for line in text.split("\n")):
            return _read_msa_text(text, source, "msa-text")
        if looks_like_msa(text):
            rows = read_table(text, page=True)
            if not rows:
                raise InputError("no players found: not an MSA crosstable")
            page = Page(layout="msa-table", source=source, sections=[])
            page.sections.append(PageSection(name="", players=_page_players(rows, page.warnings)))
            return page
        raise InputError("not a crosstable page this program reads (an MSA page as HTML or "
                         "text, a bare MSA table, the TD crosstable, or 'uschess export "
                         "crosstable' output)")
    except InputError as err:
        raise err.located(file=source)
    except (ValueError, IndexError, KeyError, AttributeError, TypeError, AssertionError) as err:
        raise InputError(f"cannot read the page ({type(err).__name__}: {err})", file=source) from err


def read_page(path) -> Page:
    """:func:`parse_page` on a file (UTF-8, else Latin-1)."""
    path = Path(path)
    page = parse_page(read_page_text(path, MAX_FILE_BYTES, "crosstable page"), str(path))
    if page.sections and page.sections[0].name == "" and page.layout == "msa-table":
        page.sections[0].name = path.stem
    return page
