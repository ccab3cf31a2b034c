"""The MSA crosstable text layout: reading and writing.

US Chess publishes a rated section as a text crosstable, two lines per player
between dashed separators::

        1 | GARY HUA                        |6.0  |W  39|W  21|...|
       ON | 15445895 / R: 1794   ->1817     |N:2  |W    |B    |...|

Line 1: pair, name, total points and one cell per round (a result code and,
for paired rounds, the opponent's pair).  Line 2: state, US Chess ID, the
pre- and post-event ratings of one system (``R:`` regular, ``Q:`` quick,
``B:`` blitz; ``1641P17`` is provisional, based on 17 games), a norm cell
(``N:2``) and the colour of each round.

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
from uschess.io.formats.dbase import read_bounded
from uschess.io.textdata import check_text
from uschess.model import (BYE_CODES, FORFEIT_CODES, GAME_CODES, SYSTEMS, Event,
                     Player, Round, Section, SystemRecord)

#: Games assumed for an established pre-event rating, whose count the layout
#: does not print.  50 is at least N* for every rating (N* <= 50), so the
#: effective number of games, and hence the post-event rating, is unaffected.
ESTABLISHED_GAMES = 50
#: Most games a provisional (``P<n>``) rating can be based on: the layout
#: prints P only up to the established_games of rulesets/systems.yaml (25 in
#: every period, 002 and sec. 1), checked against it in tests/test_msa.py.
MAX_PROVISIONAL = 25
#: The largest crosstable read: a 3,000-player page is under 2 MB.
MAX_FILE_BYTES = 16 * 1024 * 1024
#: Printed rating label of the systems that have one.  A label is checked
#: against the requested system only for these.
SYSTEM_LABELS = {"OTBR": "R", "OTBQ": "Q", "OTBB": "B"}
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


# ---------------------------------------------------------------- reading

def parse_cell(cell: str) -> Round:
    """One round cell (``W  39``, ``X``, ``H``) as a :class:`Round`.

    Raises InputError without a location; the caller adds it."""
    text = cell.strip()
    match = _CELL.match(text)
    if not match or match.group(1) not in _CODES:
        raise InputError(f"round cell {text!r} is not W/L/D/X/F/Z with an opponent pair "
                         f"or a B/H/U bye")
    code = match.group(1)
    opp = int(match.group(2)) if match.group(2) is not None else None
    if code in GAME_CODES and opp is None:
        raise InputError(f"round cell {text!r}: a played game needs the opponent's pair")
    if code in BYE_CODES and opp is not None:
        raise InputError(f"round cell {text!r}: a bye has no opponent")
    if opp is not None and not 1 <= opp <= _MAX_PAIR:
        raise InputError(f"round cell {text!r}: opponent pair {opp} is impossible")
    return Round(code, opp)


def _cells(line: str, what: str) -> list[str]:
    """The ``|``-separated cells of a line that must end with ``|``."""
    parts = line.split("|")
    if len(parts) < 2 or parts[-1].strip():
        raise InputError(f"{what} does not end with '|' (truncated or garbled line)")
    return parts[:-1]


def _rating(token: str, when: str, *, allow_unrated: bool
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
    if games is not None and not 1 <= games <= MAX_PROVISIONAL:
        raise InputError(f"{when} rating {text!r}: a provisional rating is based on "
                         f"1 to {MAX_PROVISIONAL} games", field="rating")
    return float(rating), games


def _parse_player(line1: str, line2: str, number: int, rounds: Optional[int],
                  system: str) -> tuple[Player, Published]:
    """The player on lines ``number`` and ``number + 1``."""
    pair = int(line1.split("|", 1)[0].strip())
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
        if not name.isprintable():
            raise InputError(f"the name {name!r} contains control characters")
        label = f"{pair} ({name})"
        total_text = cells[2].strip()
        if not _TOTAL.match(total_text):
            raise InputError(f"total {total_text!r} is not a number of points like 4.5",
                             field="total")
        total = float(total_text)
        played = []
        for k, cell in enumerate(cells[3:], start=1):
            try:
                played.append(parse_cell(cell))
            except InputError as err:
                raise err.located(round=k)
        points = sum(r.points for r in played)
        if points != total:
            raise InputError(f"total {total_text} but the rounds add up to {points:g}",
                             field="total")
    except InputError as err:
        raise err.located(record=number, player=label)

    number += 1
    try:
        if _DIGITS.match(line2.split("|", 1)[0].strip()):
            raise InputError("found a player line where the second line "
                             "(state | ID / R: pre->post | ...) should be")
        cells2 = _cells(line2, "the player's second line (state | ID / R: pre->post | ...)")
        if len(cells2) != len(cells):
            raise InputError(f"the second line has {len(cells2)} cells, the first {len(cells)}")
        state = cells2[0].strip() or None
        if state is not None and not _STATE.match(state):
            raise InputError(f"state {state!r} is not a state or province code", field="state")
        match = _ID_RATINGS.match(cells2[1].strip())
        if not match:
            raise InputError(f"expected 'ID / R: pre->post', found {cells2[1].strip()!r}")
        wanted = SYSTEM_LABELS.get(system)
        if wanted is not None and match.group("label") != wanted:
            raise InputError(f"ratings labelled '{match.group('label')}:' but system {system} "
                             f"is printed as '{wanted}:'", field="rating")
        pre, pre_games = _rating(match.group("pre"), "pre-event", allow_unrated=True)
        post, post_games = _rating(match.group("post"), "post-event", allow_unrated=False)
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

    ratings = {}
    if pre is not None:
        games = pre_games if pre_games is not None else ESTABLISHED_GAMES
        ratings[system] = SystemRecord(rating=pre, games=games)
    player = Player(pair=pair, id=match.group("id"), name=name, rounds=played,
                    ratings=ratings, state=state)
    pub = Published(pair=pair, id=player.id, name=name, state=state, system=system,
                    pre=pre, pre_games=pre_games, post=post, post_games=post_games,
                    total=total, norm=norm, colours=colours)
    return player, pub


def _parse(text, source, name, start, end, time_control, system) -> MsaCrosstable:
    if not isinstance(text, str):
        raise InputError(f"crosstable text must be a string, not {type(text).__name__}")
    if system not in SYSTEMS:
        raise InputError(f"unknown rating system {system!r} (one of {', '.join(SYSTEMS)})")
    start = parse_date(start, "start")
    end = parse_date(end, "end") if end is not None else start
    if end < start:
        raise InputError(f"end {end} is before start {start}")

    lines = [line.rstrip("\r") for line in text.split("\n")]
    rounds: Optional[int] = None
    players: list[Player] = []
    published: dict[int, Published] = {}
    line_of_pair: dict[int, int] = {}
    line_of_label: dict[str, int] = {}
    i = 0
    while i < len(lines):
        line, number = lines[i], i + 1
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
        player, pub = _parse_player(line, lines[i], number, rounds, system)
        i += 1
        if player.pair in published:
            raise InputError(f"pair {player.pair} listed twice (also on line "
                             f"{line_of_pair[player.pair]})",
                             record=number, player=player.label)
        rounds = len(player.rounds)
        players.append(player)
        published[player.pair] = pub
        line_of_pair[player.pair] = number
        line_of_label[player.label] = number
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
    count, or :data:`ESTABLISHED_GAMES` when established (count not printed).
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
    raw = read_bounded(path, MAX_FILE_BYTES, "crosstable")
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        text = raw.decode("latin-1")
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
