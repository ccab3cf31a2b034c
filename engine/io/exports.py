"""Rated results written out for others to read: crosstables in the MSA text
layout, CSV and JSON (what ``uschess export crosstable`` prints).

Each :class:`~uschess.rating.pipeline.SectionResult` (one section rated in one
system) becomes one table.

MSA text
    An event line, then for each section and system a heading line::

        Section OPEN - OTBR (R), G/90;d5, 2024-03-04..2024-03-25

    followed by the table of :func:`uschess.io.formats.msa.format_msa`, blocks
    separated by one blank line.  The ratings label of a system is
    :data:`MSA_LABELS`: ``R``, ``Q``, ``B`` for the over-the-board systems
    as US Chess prints them, and ``OR``, ``OQ``, ``OB`` for the online ones
    (the letters of ``uschess rate``; US Chess prints no MSA label for online
    ratings that this project knows of).  A rating is rounded half up;
    ``P<n>`` marks a provisional rating based on ``n`` games.  Under an
    unrated player a line states the initial rating the player was rated
    from and its N, as the TD crosstable prints it (``Initial R: 1246/05``),
    so that an audit of the table rates from what it prints.  A player
    unrated in the system who played no rated game prints
    ``Unrated->Unrated``, as ``uschess rate`` does; the table holding such a
    line is not one :func:`~uschess.io.formats.msa.parse_msa` reads back (it
    requires a post-event rating).  Colours and norms are not known to the
    event model and are left blank.  :func:`msa_blocks` splits the text
    back into (heading, table) pairs; each table is one ``parse_msa`` reads.

CSV
    One row per player and system, columns :data:`CSV_COLUMNS`.  Ratings,
    scores, K and bonus are written with ``repr``, the shortest text that
    reads back as the same float; an absent value is an empty cell;
    ``floor_applied`` is ``true`` or ``false``.

JSON
    The structure of ``uschess rate --json``
    (:meth:`uschess.rating.pipeline.EventResult.as_dict`), the same text.  A player
    unrated in a system who played no rated game has ``post`` and
    ``post_rounded`` null.
"""

from __future__ import annotations

import csv
import io
import json
import math
from typing import Optional

from uschess.errors import InputError
from uschess.io.formats.msa import MsaRow, format_msa
from uschess.formulas import round_half_up
from uschess.model import SYSTEM_LABELS as MSA_LABELS
from uschess.rating.results import EventResult, PlayerResult, SectionResult

#: The ratings label printed in the MSA layout, by system.
#: The columns of :func:`crosstable_csv`, in order.
CSV_COLUMNS = ("event", "section", "system", "pair", "id", "name", "score", "pre", "pre_games",
               "post", "post_rounded", "games_after", "formula", "k", "bonus", "floor_applied")
#: Formats of :func:`crosstable`.
FORMATS = ("msa", "csv", "json")
#: A placeholder post for a player :func:`format_msa` cannot print (no
#: rating after the event); replaced by ``Unrated`` in the text.
_NO_POST = 0.0


def _rated_after(pr: PlayerResult) -> bool:
    """Whether the player has a rating in the system after the event."""
    return pr.post is not None and math.isfinite(pr.post)


def _games_shown(games: int, established: int) -> Optional[int]:
    """The ``P<n>`` count for a rating on ``games`` games, None if established."""
    return games if 0 < games <= established else None


def msa_rows(res: SectionResult) -> tuple[list[MsaRow], list[str]]:
    """The rows :func:`format_msa` writes for one section in one system,
    and the ids of the players to print as ``Unrated->Unrated``."""
    by_pair = {p.pair: p for p in res.section.players}
    est = res.rules.p.established_games
    rows, unrated = [], []
    for pr in res.players:
        pl = by_pair[pr.pair]
        if _rated_after(pr):
            post, post_games = pr.post, _games_shown(pr.games_after, est)
        else:
            post, post_games = _NO_POST, None
            unrated.append(pr.id)
        rows.append(MsaRow(pair=pr.pair, name=pl.name, total=pl.total, rounds=list(pl.rounds),
                           state=pl.state, id=pl.id, pre=pr.pre,
                           pre_games=(_games_shown(pr.games_before, est)
                                      if pr.pre is not None else None),
                           post=post, post_games=post_games,
                           initial=pr.initial.rating if pr.pre is None and pr.initial else None,
                           initial_games=(pr.initial.games
                                          if pr.pre is None and pr.initial else None)))
    return rows, unrated


def _heading(res: SectionResult) -> str:
    s = res.section
    dates = s.start.isoformat() + (f"..{s.end.isoformat()}" if s.end != s.start else "")
    return f"Section {s.name} - {res.system} ({MSA_LABELS[res.system]}), {s.time_control}, {dates}"


def msa_section(res: SectionResult) -> str:
    """One section in one system as an MSA table (no heading)."""
    label = MSA_LABELS[res.system]
    rows, unrated = msa_rows(res)
    rounds = max((len(r.rounds) for r in rows), default=0)
    try:
        text = format_msa(rows, rounds, label)
    except InputError as err:
        raise err.located(section=res.section.name)
    for pid in unrated:
        # format_msa pads the ID cell to hold "Unrated->9999P25", so the
        # three spaces after "Unrated->   0" are there to take the longer text
        old = f"| {pid} / {label}: Unrated->{round_half_up(_NO_POST):>4}   "
        new = f"| {pid} / {label}: Unrated->Unrated"
        if text.count(old) != 1:  # pragma: no cover - the layout of format_msa changed
            raise AssertionError(f"cannot find the rating cell of {pid} in the MSA table")
        text = text.replace(old, new)
    return text


def crosstable_msa(result: EventResult) -> str:
    """The whole event in the MSA layout (see the module docstring)."""
    e = result.event
    title = e.name + (f" ({e.id})" if e.id else "") + f", {e.start.isoformat()}" \
        + (f"..{e.end.isoformat()}" if e.end != e.start else "")
    blocks = [title + "\n"]
    for res in result.sections:
        try:
            blocks.append(_heading(res) + "\n" + msa_section(res))
        except InputError as err:
            raise err.located(file=e.source)
    return "\n".join(blocks)


def msa_blocks(text: str) -> list[tuple[str, str]]:
    """(heading, table) for each section and system of :func:`crosstable_msa`
    text; each table is one :func:`~uschess.io.formats.msa.parse_msa` reads."""
    out = []
    for block in text.split("\n\n"):
        head, _, table = block.partition("\n")
        if head.startswith("Section ") and table:
            out.append((head, table if table.endswith("\n") else table + "\n"))
    return out


def _num(x) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return ""
    if isinstance(x, bool):
        return "true" if x else "false"
    if isinstance(x, float):
        return repr(x)
    return str(x)


def csv_rows(result: EventResult) -> list[dict]:
    """One dict per player and system, keyed by :data:`CSV_COLUMNS`."""
    rows = []
    for res in result.sections:
        for pr in res.players:
            rated = _rated_after(pr)
            rows.append({
                "event": result.event.name, "section": res.section.name, "system": res.system,
                "pair": pr.pair, "id": pr.id, "name": pr.name, "score": _num(float(pr.score)),
                "pre": _num(pr.pre), "pre_games": pr.games_before,
                "post": _num(pr.post) if rated else "",
                "post_rounded": pr.post_rounded if rated else "",
                "games_after": pr.games_after, "formula": pr.formula,
                "k": _num(pr.k), "bonus": _num(pr.bonus),
                "floor_applied": "true" if pr.floor_applied else "false",
            })
    return rows


def crosstable_csv(result: EventResult) -> str:
    """CSV text with a header row (``\\n`` line ends)."""
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=CSV_COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(csv_rows(result))
    return buf.getvalue()


def crosstable_json(result: EventResult) -> str:
    """The text ``uschess rate --json`` prints."""
    return json.dumps(result.as_dict(), indent=2, allow_nan=False, default=str) + "\n"


def crosstable(result: EventResult, fmt: str) -> str:
    """The event in ``fmt`` (one of :data:`FORMATS`)."""
    writers = {"msa": crosstable_msa, "csv": crosstable_csv, "json": crosstable_json}
    if fmt not in writers:
        raise InputError(f"unknown crosstable format {fmt!r} (msa, csv or json)")
    return writers[fmt](result)
