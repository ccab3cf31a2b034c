"""The MSA crosstable text layout: reading and writing.

US Chess publishes a rated section as a text crosstable, two lines per player
between dashed separators::

        1 | GARY HUA                        |6.0  |W  39|W  21|...|
       ON | 15445895 / R: 1794   ->1817     |N:2  |W    |B    |...|

Line 1: pair, name, total points and one cell per round (a result code and,
for paired rounds, the opponent's pair).  Line 2: state, US Chess ID, the
pre- and post-event ratings of one system (``R:`` regular, ``Q:`` quick,
``B:`` blitz; ``1641P17`` is provisional, based on 17 games), a norm cell
(``N:2``) and the colour of each round.  Under an unrated player this
project's own tables add the initial rating the player was rated from and
its N (``| Initial R: 1246/05 |``, the TD crosstable's ``1246/05``).

Columns are found by the ``|`` characters, not by position.  Header, blank
and dashed lines are optional; any other line (a title above the table, say)
is an error.  Every problem becomes an
:class:`~uschess.errors.InputError` naming the file and line (``record``).
"""

from __future__ import annotations

import datetime as _dt
import math
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional, Sequence, Union

from uschess.errors import InputError
from uschess.io.eventfile import MAX_RATING, parse_date, validate_section
from uschess.io.textdata import check_text, read_page_text
from uschess.model import (BYE_CODES, FORFEIT_CODES, GAME_CODES, SYSTEM_LABELS, SYSTEMS, Event,
                     Player, Round, Section, SystemRecord)

#: Games assumed for an established pre-event rating, whose count the layout
#: does not print.  50 is at least N* for every rating (N* <= 50), so the
#: effective number of games, and hence the post-event rating, is unaffected.
ESTABLISHED_GAMES = 50
#: Most games a provisional (``P<n>``) rating can be based on: the layout
#: prints P only up to the established_games of rulesets/systems.yaml (25 in
#: every period, 002 and sec. 1), checked against it in tests/readers/test_msa.py.
MAX_PROVISIONAL = 25
#: The largest crosstable read: a 3,000-player page is under 2 MB.
MAX_FILE_BYTES = 16 * 1024 * 1024
#: Printed rating label of the systems that have one.  A label is checked
#: against the requested system only for these.
OTB_LABELS = {s: SYSTEM_LABELS[s] for s in ("OTBR", "OTBQ", "OTBB")}
#: Spellings of a missing pre-event rating (compared case-insensitively).
UNRATED = {"", "unrated", "unr", "unr.", "(unr)", "(unr.)"}

_CODES = {**GAME_CODES, **FORFEIT_CODES, **BYE_CODES}
_SEPARATOR = re.compile(r"^\s*-{3,}\s*$")
_DIGITS = re.compile(r"^[0-9]+$", re.ASCII)
_CELL = re.compile(r"^([A-Z])\s*([0-9]+)?$", re.ASCII)
_TOTAL = re.compile(r"^[0-9]{1,4}(?:\.[0-9]{1,2})?$", re.ASCII)
_STATE = re.compile(r"^[A-Za-z]{1,4}$", re.ASCII)
_ID_RATINGS = re.compile(
    r"^(?P<id>[0-9]+)\s*/\s*(?P<label>[A-Z]{1,3})\s*:(?P<pre>.*?)->(?P<post>.*)$", re.ASCII)
_RATING = re.compile(r"^([0-9]{1,4})(?:P([0-9]{1,4}))?$", re.ASCII)
#: A pre-event rating a page prints as 0 (``0``, ``0P0``): the player had none.
_ZERO = re.compile(r"^0(?:P0+)?$", re.ASCII)
#: A further rating line of a player in a multi-rated section: ``| Q: pre->post |``.
_MORE_RATINGS = re.compile(
    r"^(?P<label>[A-Z]{1,3})\s*:(?P<pre>.*?)->(?P<post>.*)$", re.ASCII)
#: The start of a rating line (``Q:``), which a note under a player never has.
_RATING_LABEL = re.compile(r"^[A-Z]{1,3}\s*:", re.ASCII)
#: The system of each printed rating label (``OR``, ``OQ``, ``OB`` online).
LABEL_SYSTEMS = {label: system for system, label in SYSTEM_LABELS.items()}
_MAX_PAIR = 99999


@dataclass
class Published:
    """What the crosstable prints about one player.

    ``pre_games``/``post_games`` are the ``P<n>`` counts, None when the rating
    is established (count not printed); ``pre`` is None for an unrated player.
    ``norm`` is the text of the norm cell (``N:2``, or empty) and ``colours``
    the colour row (``"W"``, ``"B"`` or ``""`` per round).
    """

    pair: int
    id: str
    name: str
    state: Optional[str]
    system: str
    pre: Optional[float]
    pre_games: Optional[int]
    post: float
    post_games: Optional[int]
    total: float
    norm: str = ""
    colours: list[str] = field(default_factory=list)

    @property
    def games_assumed(self) -> bool:
        """The pre-event game count was not printed: the player's
        ``SystemRecord.games`` is :data:`ESTABLISHED_GAMES`, an assumption."""
        return self.pre is not None and self.pre_games is None


@dataclass
class MsaCrosstable:
    """A parsed crosstable: the event (one section) and the printed ratings,
    keyed by pair number."""

    event: Event
    published: dict[int, Published]

    @property
    def section(self) -> Section:
        return self.event.sections[0]

    @property
    def rounds(self) -> int:
        return len(self.section.players[0].rounds)


@dataclass
class MsaRow:
    """One player as :func:`format_msa` writes it.

    ``rounds`` holds :class:`~uschess.model.Round` objects or printed cells
    (``"W  39"``, ``"H"``); ratings are rounded for display; ``pre_games`` and
    ``post_games`` of 1..25 print as ``P<n>``, None or more as established.
    """

    pair: int
    name: str
    total: float
    rounds: list[Union[str, Round]]
    state: Optional[str]
    id: str
    pre: Optional[float]
    pre_games: Optional[int]
    post: float
    post_games: Optional[int]
    colours: Optional[list[str]] = None
    norm: str = ""
    #: an unrated player's initial rating and the games it counts (N), printed
    #: on a line of its own under the player (:data:`INITIAL_LINE`)
    initial: Optional[float] = None
    initial_games: Optional[int] = None


#: The line under an unrated player that states the initial rating the
#: player was rated from and its N, as the TD crosstable prints it in its
#: PRERATE column (``1300/00``): ``| Initial R: 1246/05 |``.
INITIAL_LINE = re.compile(
    r"^Initial\s+(?P<label>[A-Z]{1,3})\s*:\s*(?P<rating>[0-9]{1,4})\s*/\s*(?P<games>[0-9]{1,3})$",
    re.ASCII)


# ---------------------------------------------------------------- reading

def _pair_number(digits: str, what: str) -> int:
    """A pair number's ASCII digits as an int, refused with an InputError
    naming ``what`` when it has more digits than :data:`_MAX_PAIR` (a run of
    thousands of digits is not converted at all: Python refuses past 4,300)."""
    significant = digits.lstrip("0")
    if len(significant) > len(str(_MAX_PAIR)):
        raise InputError(f"{what}: a pair number of {len(significant)} digits is impossible "
                         f"(allowed 1..{_MAX_PAIR})")
    return int(digits)


def _shown_cell(text: str) -> str:
    """A cell's text for a message: its start where it is long."""
    return repr(text) if len(text) <= 24 else f"{text[:24]!r}..."


def parse_cell(cell: str) -> Round:
    """One round cell (``W  39``, ``X``, ``H``) as a :class:`Round`.

    Raises InputError without a location; the caller adds it."""
    text = cell.strip()
    match = _CELL.match(text)
    if not match or match.group(1) not in _CODES:
        raise InputError(f"round cell {_shown_cell(text)} is not W/L/D/X/F/Z with an opponent "
                         "pair or a B/H/U bye")
    code = match.group(1)
    opp = (_pair_number(match.group(2), f"round cell {_shown_cell(text)}")
           if match.group(2) is not None else None)
    if code in GAME_CODES and opp is None:
        raise InputError(f"round cell {text!r}: a played game needs the opponent's pair")
    if code in BYE_CODES and opp is not None:
        raise InputError(f"round cell {text!r}: a bye has no opponent")
    if opp is not None and not 1 <= opp <= _MAX_PAIR:
        raise InputError(f"round cell {text!r}: opponent pair {opp} is impossible")
    return Round(code, opp)


#: Cells real MSA pages print that the bare layout does not: ``*`` (a
#: round-robin player's own column) is an unplayed round; ``N`` and ``R``
#: against an opponent are results worth 1 and 1/2 point that are not rated
#: games (the page's totals count them so; both sides never mirror as a game
#: does), read as a full and a half-point bye.
PAGE_CELLS = {"N": "B", "R": "H"}
_STARS = re.compile(r"^\*+$")


def _page_cell(cell: str) -> Round:
    """:func:`parse_cell` with what real pages add (:data:`PAGE_CELLS`,
    ``*``, and a bye or forfeit printed with opponent 0)."""
    text = cell.strip()
    if _STARS.match(text):
        return Round("U")
    if text.replace(" ", "") == "BYE":
        return Round("B")
    match = _CELL.match(text)
    if match and match.group(1) in BYE_CODES and match.group(2) is not None:
        return Round(match.group(1))  # a bye printed with a number: still a bye
    if match and match.group(2) is not None and not match.group(2).strip("0") \
            and match.group(1) in {**BYE_CODES, **FORFEIT_CODES}:  # opponent 0
        return Round(match.group(1))
    if match and match.group(1) in PAGE_CELLS and match.group(2) is not None:
        return Round(PAGE_CELLS[match.group(1)])
    return parse_cell(text)


def scored_cell(cell: str) -> Optional[tuple[str, int]]:
    """(code, opponent pair) of a page cell that :data:`PAGE_CELLS` reads
    as a bye although it names an opponent (``N 12``, ``R12``); None for any
    other cell."""
    match = _CELL.match(cell.strip())
    if match and match.group(1) in PAGE_CELLS and match.group(2) is not None:
        try:
            pair = _pair_number(match.group(2), "round cell")
        except InputError:  # no pair can have it: the bye the reader read
            return None
        if 0 < pair <= _MAX_PAIR:
            return match.group(1), pair
    return None


def _cells(line: str, what: str) -> list[str]:
    """The ``|``-separated cells of a line that must end with ``|``."""
    parts = line.split("|")
    if len(parts) < 2 or parts[-1].strip():
        raise InputError(f"{what} does not end with '|' (truncated or garbled line)")
    return parts[:-1]


def _rating(token: str, when: str, *, allow_unrated: bool, max_games: int = MAX_PROVISIONAL
            ) -> tuple[Optional[float], Optional[int]]:
    """A printed rating (``1794``, ``1641P17``, ``Unrated``) as (rating, P count)."""
    text = token.strip()
    if allow_unrated and text.lower() in UNRATED:
        return None, None
    match = _RATING.match(text)
    if not match:
        expected = "1500, 1500P12 or Unrated" if allow_unrated else "1500 or 1500P12"
        raise InputError(f"{when} rating {text!r} is not a rating like {expected}",
                         field="rating")
    rating = int(match.group(1))
    if not 100 <= rating <= MAX_RATING:
        raise InputError(f"{when} rating {rating} is impossible (allowed 100..{MAX_RATING:.0f})",
                         field="rating")
    games = int(match.group(2)) if match.group(2) is not None else None
    if games is not None and not (0 if max_games > MAX_PROVISIONAL else 1) <= games <= max_games:
        raise InputError(f"{when} rating {text!r}: a provisional rating is based on "
                         f"1 to {max_games} games", field="rating")
    return float(rating), games


@dataclass
class PrintedRating:
    """One ``X: pre->post`` of a player: the label (``R``, ``Q``, ``OR`` ...),
    the ratings (None for ``Unrated``) and their ``P<n>`` counts."""

    label: str
    pre: Optional[float]
    pre_games: Optional[int]
    post: Optional[float]
    post_games: Optional[int]
    line: int
    #: the initial rating and N an unrated player was rated from, where the
    #: table states them (:data:`INITIAL_LINE`)
    initial: Optional[float] = None
    initial_games: Optional[int] = None


@dataclass
class TableRow:
    """One player of an MSA table as printed: two lines, and one more line
    per further rating system (``| Q: 1857 ->1875 |`` under a dual-rated
    player's ``R:`` line).  ``line`` is the number of the first line."""

    pair: int
    name: str
    total: float
    rounds: list[Round]
    state: Optional[str]
    id: str
    ratings: dict[str, PrintedRating]
    norm: str
    colours: list[str]
    line: int
    #: what a page's reading made of cells it could not read as printed
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"{self.pair} ({self.name})"


#: Most ``P<n>`` games a real page prints (online pages print counts above 25).
PAGE_MAX_GAMES = 999
_BARE_ID = re.compile(r"^(?P<id>[0-9]+)\s*/\s*$", re.ASCII)


def _printed(label: str, pre_text: str, post_text: str, line: int, page: bool = False
             ) -> PrintedRating:
    most = PAGE_MAX_GAMES if page else MAX_PROVISIONAL
    pre, pre_games = _rating(pre_text, "pre-event", allow_unrated=True, max_games=most)
    post, post_games = _rating(post_text, "post-event", allow_unrated=True, max_games=most)
    if post_games == 0:  # a page prints P0 before an event only (an initial rating)
        raise InputError(f"post-event rating {post_text.strip()!r}: a rating after an event "
                         "is based on at least one game (P0 is printed before one only)",
                         field="rating")
    return PrintedRating(label, pre, pre_games, post, post_games, line)


def _read_row(line1: str, line2: str, number: int, rounds: Optional[int],
              page: bool = False) -> TableRow:
    """The player on lines ``number`` and ``number + 1``."""
    try:
        pair = _pair_number(line1.split("|", 1)[0].strip(), "player line")
    except InputError as err:
        raise err.located(record=number)
    label = str(pair)
    try:
        cells = _cells(line1, "player line")
        if not 1 <= pair <= _MAX_PAIR:
            raise InputError(f"pair number {pair} is impossible (allowed 1..{_MAX_PAIR})")
        if len(cells) < 4:
            raise InputError("a player line needs pair | name | total | one cell per round |")
        if rounds is not None and len(cells) - 3 != rounds:
            raise InputError(f"has {len(cells) - 3} round cells, expected {rounds}")
        name = cells[1].strip()
        if not name:
            raise InputError("the name is empty")
        notes = []
        mended = repaired_name(name) if page else None
        if mended is not None:
            notes.append(f"player {pair}: the name {name!r} is UTF-8 read as Latin-1: read as "
                         f"{mended!r}")
            name = mended
        if not name.isprintable():
            raise InputError(f"the name {name!r} contains control characters")
        label = f"{pair} ({name})"
        total_text = cells[2].strip()
        if not _TOTAL.match(total_text):
            raise InputError(f"total {total_text!r} is not a number of points like 4.5",
                             field="total")
        total = float(total_text)
        played, unknown = _round_cells(cells[3:], label, page, notes)
        points = sum(r.points for r in played)
        if points != total:
            if not unknown:
                raise InputError(f"total {total_text} but the rounds add up to {points:g}",
                                 field="total")
            notes.append(f"player {label}: total {total_text}, the rounds read add up to "
                         f"{points:g} (the unknown cells' points)")
    except InputError as err:
        raise err.located(record=number, player=label)

    number += 1
    try:
        parts2 = line2.split("|")
        if _DIGITS.match(parts2[0].strip()) and not (
                page and len(parts2) > 2 and re.match(r"^\s*[0-9]+\s*/", parts2[1])):
            raise InputError("found a player line where the second line "
                             "(state | ID / R: pre->post | ...) should be")
        cells2 = _cells(line2, "the player's second line (state | ID / R: pre->post | ...)")
        if len(cells2) != len(cells):
            raise InputError(f"the second line has {len(cells2)} cells, the first {len(cells)}")
        state = cells2[0].strip() or None
        if page and state is not None and not state.strip("-"):
            state = None  # '-': no state printed
        if state is not None and not (_STATE.match(state) or (page and state.isalnum()
                                                               and len(state) <= 4)):
            raise InputError(f"state {state!r} is not a state or province code", field="state")
        match = _ID_RATINGS.match(cells2[1].strip())
        bare = _BARE_ID.match(cells2[1].strip()) if page and not match else None
        if not match and not bare:
            raise InputError(f"expected 'ID / R: pre->post', found {cells2[1].strip()!r}")
        if bare:  # a page prints no ratings for an entrant who played no game
            match = bare
            first = None
        else:
            pre_text = match.group("pre")
            if page and _ZERO.match(pre_text.strip()):  # no rating, printed as 0 (or 0P0)
                notes.append(f"player {label}: pre-event rating printed as "
                             f"{pre_text.strip()}: taken as unrated")
                pre_text = "Unrated"
            first = _printed(match.group("label"), pre_text, match.group("post"), number, page)
        norm = cells2[2].strip()
        if not norm.isprintable():
            raise InputError(f"norm cell {norm!r} contains control characters")
        colours = []
        for k, cell in enumerate(cells2[3:], start=1):
            colour = cell.strip()
            if colour not in ("", "W", "B"):
                raise InputError(f"colour {colour!r} is not W, B or blank", round=k)
            colours.append(colour)
    except InputError as err:
        raise err.located(record=number, player=label)
    return TableRow(pair=pair, name=name, total=total, rounds=played, state=state,
                    id=match.group("id"), ratings={first.label: first} if first else {},
                    norm=norm, colours=colours, line=number - 1, notes=notes)


#: Characters that begin a UTF-8 sequence when its bytes are read as Latin-1.
_LEAD = re.compile("[\u00c2-\u00f4][\u0080-\u00bf]")


def repaired_name(name: str) -> Optional[str]:
    """A name whose UTF-8 bytes were read as Latin-1 (``SEGU\u00c3\u00ad`` for
    ``SEGU\u00cd``), read again as UTF-8; None when it is not one (any
    character outside Latin-1, or bytes that are no UTF-8)."""
    if not _LEAD.search(name):
        return None
    try:
        return name.encode("latin-1").decode("utf-8")
    except (UnicodeEncodeError, UnicodeDecodeError):
        return None


def _round_cells(cells: list[str], label: str, page: bool, notes: list
                 ) -> tuple[list[Round], list[int]]:
    """A player's round cells, and the rounds whose cell a page prints that
    no layout defines (``E``, ``ERRS=``, ``3``): those are taken as unknown,
    no rated game, with a note; on a bare table they are refused.  A blank
    cell on a page is a round without a game."""
    played, unknown = [], []
    for k, cell in enumerate(cells, start=1):
        if page and not cell.strip():  # nothing printed: no game (a knockout's later rounds)
            played.append(Round("U"))
            continue
        try:
            played.append(_page_cell(cell) if page else parse_cell(cell))
        except InputError as err:
            if not page:
                raise err.located(round=k)
            salvaged = _forfeit_prefix(cell)
            if salvaged is None:
                played.append(Round("U"))
                unknown.append(k)
                notes.append(f"player {label}: round {k}: the cell {_shown_cell(cell.strip())} "
                             "is no result the layout defines: taken as unknown (no rated game)")
                continue
            played.append(salvaged)
            notes.append(f"player {label}: round {k}: the cell {cell.strip()!r} is read "
                         f"as its first letter, {salvaged.code}, a forfeit or bye "
                         "without opponent (no rated game)")
    return played, unknown


def _forfeit_prefix(cell: str) -> Optional[Round]:
    """A page's unreadable cell that begins with a forfeit or bye code
    followed by a space (``F W10`` on event 201102102521's page, a player
    paired against their own number): that forfeit or bye without opponent,
    which is no rated game whatever the rest says; None otherwise.  The
    player's total still has to agree."""
    text = cell.strip()
    if len(text) > 2 and text[1] == " " and text[0] in {**FORFEIT_CODES, **BYE_CODES}:
        return Round(text[0])
    return None


def _annotation(line: str) -> bool:
    """A line under a player with text in the ID column only (a page's note
    on the entry), which is not a rating line.  A rating line that does not
    read (``Q: 1857 -Lgt;1875``, a line damaged in transit) is refused here:
    taken as a note, it would leave the player unrated in that system."""
    parts = line.split("|")
    text = parts[1].strip() if len(parts) >= 4 else ""
    if not (text and not parts[0].strip() and not any(c.strip() for c in parts[2:])
            and not _DIGITS.match(text)):
        return False
    if _RATING_LABEL.match(text):
        raise InputError(f"a further rating line that does not read as 'X: pre->post': {text!r}")
    return True


def _more_ratings(line: str) -> Optional[re.Match]:
    """The ``X: pre->post`` of a further rating line (first cell blank), or None."""
    parts = line.split("|")
    if len(parts) < 3 or parts[0].strip():
        return None
    return _MORE_RATINGS.match(parts[1].strip())


def _initial_line(line: str, row: TableRow, number: int) -> bool:
    """Whether ``line`` is an :data:`INITIAL_LINE` (text in the ID column
    only); if so, its rating and N are kept on ``row``'s printed rating of
    that label, which must be unrated."""
    parts = line.split("|")
    if len(parts) < 3 or parts[0].strip() or any(c.strip() for c in parts[2:]):
        return False
    match = INITIAL_LINE.match(parts[1].strip())
    if match is None:
        return False
    try:
        printed = row.ratings.get(match.group("label"))
        if printed is None or printed.pre is not None:
            raise InputError(f"an initial rating for '{match.group('label')}:', where the "
                             "player is not printed unrated in that system")
        rating, games = int(match.group("rating")), int(match.group("games"))
        if not 100 <= rating <= MAX_RATING:
            raise InputError(f"initial rating {rating} is impossible (allowed "
                             f"100..{MAX_RATING:.0f})", field="rating")
        if games > PAGE_MAX_GAMES:
            raise InputError(f"initial rating {rating}/{games}: an initial rating counts at "
                             f"most {PAGE_MAX_GAMES} games", field="rating")
    except InputError as err:
        raise err.located(record=number, player=row.label)
    printed.initial, printed.initial_games = float(rating), games
    return True


def read_table(text: str, *, first_line: int = 1, page: bool = False) -> list[TableRow]:
    """Every player of an MSA table, as printed, in file order.

    ``first_line`` is the number of the text's first line in its file (for
    error locations).  Header, blank and dashed lines are skipped; a further
    rating line (``| Q: pre->post |``) belongs to the player above it.  Any
    other line is an error.  ``page`` accepts what real MSA pages print
    beyond the bare layout: :data:`PAGE_CELLS`, ``*`` cells, byes printed
    with a number or as ``B  YE``, ``P<n>`` counts of 0 or above 25, a state
    cell of digits, an ``ID /`` with no ratings, and a note line under a
    player (``| Orig. rated using ID: 12536864 |``).  Raises InputError with ``record`` = line number;
    results are not checked against each other here (see
    :func:`~uschess.io.eventfile.validate_section`).
    """
    if not isinstance(text, str):
        raise InputError(f"crosstable text must be a string, not {type(text).__name__}")
    lines = [line.rstrip("\r") for line in text.split("\n")]
    rounds: Optional[int] = None
    rows: list[TableRow] = []
    line_of_pair: dict[int, int] = {}
    off = first_line - 1
    i = 0
    while i < len(lines):
        line, number = lines[i], i + 1 + off
        i += 1
        if not line.strip() or _SEPARATOR.match(line):
            continue
        first = line.split("|", 1)[0].strip()
        if first.lower() in ("pair", "num"):
            try:
                cells = _cells(line, "header line")
                if first.lower() == "pair":
                    declared = len(cells) - 3
                    if declared < 1:
                        raise InputError("the header names no rounds")
                    if rounds is not None and declared != rounds:
                        raise InputError(f"the header has {declared} rounds, "
                                         f"the players {rounds}")
                    rounds = declared
            except InputError as err:
                raise err.located(record=number)
            continue
        if not _DIGITS.match(first):
            raise InputError("expected a player line (pair | name | total | rounds |), "
                             "a header or a dashed separator", record=number)
        if i >= len(lines) or not lines[i].strip() or _SEPARATOR.match(lines[i]):
            raise InputError("the player's second line (state | ID / R: pre->post | ...) "
                             "is missing", record=number, player=first)
        row = _read_row(line, lines[i], number, rounds, page)
        i += 1
        while i < len(lines):
            if _initial_line(lines[i], row, i + 1 + off):
                i += 1
                continue
            more = _more_ratings(lines[i])
            try:
                note = more is None and page and _annotation(lines[i])
            except InputError as err:
                raise err.located(record=i + 1 + off, player=row.label)
            if note:
                i += 1  # e.g. "| Orig. rated using ID: 12536864 |": not a rating
                continue
            if more is None:
                break
            where = i + 1 + off
            try:
                _cells(lines[i], "a further rating line")
                printed = _printed(more.group("label"), more.group("pre"), more.group("post"),
                                   where, page)
                if printed.label in row.ratings:
                    raise InputError(f"a second '{printed.label}:' line for the same player")
            except InputError as err:
                raise err.located(record=where, player=row.label)
            row.ratings[printed.label] = printed
            i += 1
        if row.pair in line_of_pair:
            raise InputError(f"pair {row.pair} listed twice (also on line "
                             f"{line_of_pair[row.pair]})", record=number, player=row.label)
        rounds = len(row.rounds)
        rows.append(row)
        line_of_pair[row.pair] = number
    return rows


def _parse(text, source, name, start, end, time_control, system) -> MsaCrosstable:
    if not isinstance(text, str):
        raise InputError(f"crosstable text must be a string, not {type(text).__name__}")
    if system not in SYSTEMS:
        raise InputError(f"unknown rating system {system!r} (one of {', '.join(SYSTEMS)})")
    start = parse_date(start, "start")
    end = parse_date(end, "end") if end is not None else start
    if end < start:
        raise InputError(f"end {end} is before start {start}")
    players: list[Player] = []
    published: dict[int, Published] = {}
    line_of_label: dict[str, int] = {}
    wanted = OTB_LABELS.get(system)
    for row in read_table(text):
        printed = next(iter(row.ratings.values()))
        if len(row.ratings) != 1:
            extra = list(row.ratings.values())[1]
            raise InputError(f"ratings in {len(row.ratings)} systems: this reader reads one "
                             "(read the page with uschess.io.formats.pages)",
                             record=extra.line, player=row.label)
        if wanted is not None and printed.label != wanted:
            raise InputError(f"ratings labelled '{printed.label}:' but system {system} "
                             f"is printed as '{wanted}:'", field="rating",
                             record=printed.line, player=row.label)
        if printed.post is None:
            raise InputError("post-event rating 'Unrated': a published rating is needed",
                             field="rating", record=printed.line, player=row.label)
        ratings, initial = {}, {}
        if printed.pre is not None:
            games = printed.pre_games if printed.pre_games is not None else ESTABLISHED_GAMES
            ratings[system] = SystemRecord(rating=printed.pre, games=games)
        elif printed.initial is not None:  # step 1 takes the initial rating the table states
            initial[system] = SystemRecord(rating=printed.initial, games=printed.initial_games)
        players.append(Player(pair=row.pair, id=row.id, name=row.name, rounds=row.rounds,
                              ratings=ratings, state=row.state, initial=initial))
        published[row.pair] = Published(
            pair=row.pair, id=row.id, name=row.name, state=row.state, system=system,
            pre=printed.pre, pre_games=printed.pre_games, post=printed.post,
            post_games=printed.post_games, total=row.total, norm=row.norm, colours=row.colours)
        line_of_label[row.label] = row.line
    if not players:
        raise InputError("no players found: not an MSA crosstable")

    section = Section(name=name, time_control=time_control, players=players,
                      start=start, end=end)
    try:
        validate_section(section)
    except InputError as err:
        raise err.located(record=line_of_label.get(err.player))
    event = Event(name=name, start=start, end=end, sections=[section], source=source)
    return MsaCrosstable(event=event, published=published)


def parse_msa(text: str, *, source: Optional[str] = None, name: str = "MSA crosstable",
              start: _dt.date, end: Optional[_dt.date] = None,
              time_control: str = "G/120", system: str = "OTBR") -> MsaCrosstable:
    """Read an MSA crosstable as one section rated in ``system``.

    The file gives no event name, dates or time control: pass them.  A
    printed pre-event rating becomes ``ratings[system]`` with its ``P<n>``
    count, or :data:`ESTABLISHED_GAMES` when established (count not printed);
    an unrated player's :data:`INITIAL_LINE` becomes ``Player.initial``, the
    initial rating and N step 1 takes as stated.
    Raises InputError (``file=source``, ``record`` = line number) for any
    problem, including results the two players' lines disagree on.
    """
    try:
        check_text(text.lstrip("\ufeff"), source)
        return _parse(text, source, name, start, end, time_control, system)
    except InputError as err:
        raise err.located(file=source)
    except Exception as err:  # a reader bug must still reach the user as one located line
        raise InputError(f"cannot read the crosstable ({type(err).__name__}: {err})",
                         file=source) from err


def load_msa(path: Union[str, Path], **kw) -> MsaCrosstable:
    """:func:`parse_msa` on a file (UTF-8, else Latin-1); ``source`` defaults
    to the path."""
    path = Path(path)
    text = read_page_text(path, MAX_FILE_BYTES, "crosstable")
    kw.setdefault("source", str(path))
    return parse_msa(text, **kw)


def looks_like_msa(text: str) -> bool:
    """True if the text has an MSA header line or a player's two lines."""
    if not isinstance(text, str):
        return False
    lines = text.split("\n", 200)[:200]
    for i, line in enumerate(lines):
        parts = line.split("|")
        if len(parts) < 5:
            continue
        first = parts[0].strip()
        if first == "Pair" and parts[2].strip() == "Total":
            return True
        if (_DIGITS.match(first) and i + 1 < len(lines)
                and _ID_RATINGS.match(lines[i + 1].split("|")[1].strip()
                                      if lines[i + 1].count("|") >= 2 else "")):
            return True
    return False


# ---------------------------------------------------------------- writing

NAME_WIDTH = 32


def _display(rating: float) -> int:
    """A rating rounded half up for display."""
    return int(math.floor(rating + 0.5))


def _suffix(games: Optional[int]) -> str:
    return f"P{games}" if games is not None and 1 <= games <= MAX_PROVISIONAL else ""


def _cell_text(cell: Union[str, Round]) -> str:
    r = cell if isinstance(cell, Round) else parse_cell(str(cell))
    return f"{r.code}{r.opponent:>4}" if r.opponent is not None else f"{r.code:<5}"


def _check_number(rating, what: str) -> None:
    if isinstance(rating, bool) or not isinstance(rating, (int, float)) or not math.isfinite(rating):
        raise InputError(f"{what} rating {rating!r} is not a number")


def _row_lines(row: MsaRow, rounds: int, label: str, width: int) -> tuple[str, str]:
    cells = [_cell_text(c) for c in row.rounds]
    colours = list(row.colours) if row.colours is not None else [""] * rounds
    if len(colours) != rounds:
        raise InputError(f"{len(colours)} colours for {rounds} rounds")
    if any(c not in ("", "W", "B") for c in colours):
        raise InputError(f"colours {colours!r} must be W, B or blank")
    _check_number(row.post, "post-event")
    if row.pre is None:
        pre = "Unrated"
    else:
        _check_number(row.pre, "pre-event")
        pre = f"{_display(row.pre):>4}{_suffix(row.pre_games):<3}"
    post = f"{_display(row.post):>4}{_suffix(row.post_games)}"
    ids = f"{row.id} / {label}: {pre}->{post}"
    line1 = (f"{row.pair:>5} | {row.name:<{width}}|{row.total:<5.1f}|"
             + "".join(f"{c}|" for c in cells))
    line2 = (f"{row.state or '':>5} | {ids:<{width}}|{row.norm or '':<5}|"
             + "".join(f"{c:<5}|" for c in colours))
    if row.pre is None and row.initial is not None:
        _check_number(row.initial, "initial")
        games = row.initial_games or 0
        if isinstance(games, bool) or not isinstance(games, int) or not 0 <= games <= PAGE_MAX_GAMES:
            raise InputError(f"initial rating's games {games!r} must be 0..{PAGE_MAX_GAMES}")
        text = f"Initial {label}: {_display(row.initial)}/{games:02d}"
        line2 += "\n" + f"{'':>5} | {text:<{width}}|{'':<5}|" + "".join(f"{'':<5}|" for _ in colours)
    return line1, line2


def _id_part(row: MsaRow, label: str) -> int:
    return len(f"{row.id} / {label}: Unrated->9999P25")


def format_msa(rows: Sequence[MsaRow], rounds: int, system_label: str = "R") -> str:
    """Write rows in the MSA layout (header, two lines a player, separators).

    The name column widens beyond 32 characters when a name or ID line needs
    it.  Raises InputError for a row that cannot be written (a ``|`` or
    control character in a field, a wrong number of rounds, a bad cell).
    """
    if isinstance(rounds, bool) or not isinstance(rounds, int) or rounds < 1:
        raise InputError(f"rounds must be a positive whole number, not {rounds!r}")
    if not re.match(r"^[A-Z]{1,3}$", system_label or "", re.ASCII):
        raise InputError(f"rating label {system_label!r} must be 1 to 3 capital letters")
    width = NAME_WIDTH
    for row in rows:
        width = max(width, len(str(row.name)), _id_part(row, system_label))
    sep = "-" * (5 + 3 + width + 1 + 5 + 1 + 6 * rounds)
    out = [sep,
           " Pair | " + f"{'Player Name':<{width}}|Total" + "|Round" * rounds + "| ",
           " Num  | " + f"{'USCF ID / Rtg (Pre->Post)':<{width}}| Pts "
           + "".join(f"|{k:^5}" for k in range(1, rounds + 1)) + "| ",
           sep]
    for row in rows:
        where = f"{row.pair} ({row.name})"
        try:
            if isinstance(row.pair, bool) or not isinstance(row.pair, int) or row.pair < 1:
                raise InputError(f"pair {row.pair!r} is not a positive whole number")
            for what, value in (("name", row.name), ("id", row.id),
                                ("state", row.state or ""), ("norm", row.norm or "")):
                text = str(value)
                if "|" in text or not text.isprintable() or text != text.strip():
                    raise InputError(f"{what} {text!r} cannot be written (a '|', control "
                                     f"character or surrounding space)", field=what)
            if not str(row.name) or not _DIGITS.match(str(row.id)):
                raise InputError("a row needs a name and a numeric ID")
            if len(row.rounds) != rounds:
                raise InputError(f"has {len(row.rounds)} rounds, expected {rounds}")
            out.extend(_row_lines(row, rounds, system_label, width))
        except InputError as err:
            raise err.located(player=where)
        out.append(sep)
    return "\n".join(out) + "\n"


def rows_from_crosstable(ct: MsaCrosstable) -> list[MsaRow]:
    """The rows :func:`format_msa` needs to write ``ct`` again, in file order."""
    rows = []
    for p in ct.section.players:
        pub = ct.published[p.pair]
        rows.append(MsaRow(pair=p.pair, name=p.name, total=pub.total, rounds=list(p.rounds),
                           state=p.state, id=p.id, pre=pub.pre, pre_games=pub.pre_games,
                           post=pub.post, post_games=pub.post_games,
                           colours=list(pub.colours), norm=pub.norm))
    return rows
