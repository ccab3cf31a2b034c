"""Load an event from whatever a tournament director has at hand.

:func:`load_event_any` decides by the path:

* a directory holding THEXPORT/TSEXPORT/TDEXPORT.DBF (any case), or one of
  those ``.dbf`` files -> the rating report reader;
* ``.trf`` or ``.txt`` whose first line is a TRF tag -> the TRF reader;
* ``.yaml``, ``.yml``, ``.json`` -> the event file reader;
* a published crosstable page (``.html``/``.htm``, or ``.txt`` holding an MSA
  page, the TD crosstable or ``export crosstable`` output) -> the page
  reader (:mod:`uschess.io.formats.pages`), its printed pre-event ratings as
  the players' records;

and then merges the players file, if one is given.  Anything else is an
:class:`~uschess.errors.InputError` naming the path.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Optional

from uschess.errors import InputError
from uschess.io.textdata import open_regular
from uschess.io.eventfile import load_event
from uschess.model import Event

EVENT_SUFFIXES = (".yaml", ".yml", ".json")
TRF_SUFFIXES = (".trf", ".txt")
PAGE_SUFFIXES = (".html", ".htm", ".txt")
#: Bytes sniffed to recognise a TRF.
SNIFF_BYTES = 4096


def detect_format(path) -> str:
    """``"dbf"``, ``"trf"`` or ``"event"`` for ``path``; InputError otherwise."""
    path = Path(path)
    try:  # one stat for both questions (a replay asks for every file)
        is_dir = stat.S_ISDIR(os.stat(path).st_mode)
    except (FileNotFoundError, NotADirectoryError):
        raise InputError("no such file or directory", file=path) from None
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", file=path) from None
    if is_dir:
        return "dbf"
    suffix = path.suffix.lower()
    if suffix == ".dbf":
        from uschess.io.formats.uscf_dbf import FILE_NAMES  # the other readers: when needed
        if any(path.name.upper().endswith(n) for n in FILE_NAMES.values()):
            return "dbf"
    if suffix in EVENT_SUFFIXES:
        return "event"
    if suffix in (".html", ".htm"):
        return "page"
    if suffix in TRF_SUFFIXES:
        try:
            with open_regular(path) as fh:
                head = fh.read(SNIFF_BYTES)
        except OSError as err:
            raise InputError(f"cannot read: {err.strerror or err}", file=path)
        text = head.decode("utf-8", errors="replace")
        from uschess.io.formats.trf import looks_like_trf
        if looks_like_trf(text):
            return "trf"
        from uschess.io.formats.pages import looks_like_page
        if looks_like_page(text):
            return "page"
        raise InputError("does not start with a TRF record (like '012 ' or '001 '); "
                         "not a format this program reads", file=path)
    raise InputError("unknown event format (expected a directory of rating report DBFs, "
                     ".trf/.txt TRF, or .yaml/.yml/.json event file)", file=path)


def load_event_any(path, players_file=None, *, member_data: Optional[list] = None) -> Event:
    """The Event in ``path`` (see the module docstring), with the member
    data of ``players_file`` merged in when given.  If ``member_data`` is a
    list and the path is a DBF report or a TRF, it receives the
    :class:`~uschess.io.formats.member_data.MemberDataReport` naming the
    players no players-file entry describes."""
    path = Path(path)
    kind = detect_format(path)
    shown: dict = {}
    if kind == "dbf":
        from uschess.io.formats.uscf_dbf import read_uscf_dbf
        event = read_uscf_dbf(path if path.is_dir() else path.parent, shown=shown)
    elif kind == "trf":
        from uschess.io.formats.trf import read_trf
        event = read_trf(path)
    elif kind == "page":
        event = _page_event(path)
    else:
        event = load_event(path)
    members = None
    if players_file is not None:
        from uschess.io.formats.players import load_players, merge_players
        members = load_players(players_file)
        event = merge_players(event, members)
    if member_data is not None and kind in ("dbf", "trf"):
        from uschess.io.formats.member_data import member_data_report
        member_data.append(member_data_report(event, kind, members, players_file=players_file,
                                              shown=shown))
    return event


def _page_event(path: Path) -> Event:
    """The event a published page states (its printed pre-event ratings as
    the players' records); a page without dates is refused with a pointer
    to ``uschess audit``, which takes them."""
    from uschess.io.formats.page_event import event_from_page
    from uschess.io.formats.pages import read_page

    page = read_page(path)
    if not any(s.start for s in page.sections) and page.start is None:
        raise InputError("the crosstable prints no dates, so it cannot be rated as an event: "
                         "audit it with 'uschess audit FILE --start DATE'", file=path)
    event, _, _, _ = event_from_page(page)
    return event
