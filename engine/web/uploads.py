"""Uploaded files: size-limited, staged inside a temporary directory under
names of our own, read with the readers (and errors) of the command line.

An upload's name is shown to the user and its suffix picks the reader, as
a path's suffix does for ``uschess rate``; the name is never used as a path.
A zip archive may hold a DBF rating report: only its THEXPORT, TSEXPORT and
TDEXPORT members are extracted, under those fixed names.  Errors that name a
staged file are rewritten to name the upload instead.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import io
import tempfile
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import SimpleNamespace
from typing import Optional

from uschess.apps.audit import PublishedResults, load_published
from uschess.errors import InputError
from uschess.commands.common import Console, load_event_input
from uschess.io.eventfile import read_data
from uschess.io.formats.detect import EVENT_SUFFIXES
from uschess.io.formats.member_data import MemberDataReport
from uschess.io.formats.msa import looks_like_msa
from uschess.io.formats.pages import looks_like_page, read_page
from uschess.io.formats.trf import looks_like_trf
from uschess.io.formats.uscf_dbf import FILE_NAMES
from uschess.model import Event

#: Suffixes an event upload may have: event files, TRF, MSA text, published
#: pages, a DBF report (zipped, or one of its files).
EVENT_UPLOAD_SUFFIXES = EVENT_SUFFIXES + (".trf", ".txt", ".htm", ".html", ".zip", ".dbf")
PLAYERS_SUFFIXES = EVENT_SUFFIXES


@dataclass
class Upload:
    """One uploaded file, held in memory."""

    filename: str
    data: bytes

    @property
    def name(self) -> str:
        """The file's own name as sent (directories dropped), for messages."""
        name = PurePosixPath(self.filename.replace("\\", "/")).name
        return name or "upload"

    @property
    def suffix(self) -> str:
        return PurePosixPath(self.name).suffix.lower()


@dataclass
class AuditOptions:
    """What an MSA crosstable does not print (the form's fields)."""

    start: Optional[_dt.date] = None
    end: Optional[_dt.date] = None
    time_control: Optional[str] = None
    system: Optional[str] = None


@dataclass
class Loaded:
    """An upload read: an event to rate, or published results to audit."""

    kind: str  # "event" | "published"
    event: Event
    published: Optional[PublishedResults] = None
    #: a DBF report's or TRF's players without member data (None otherwise)
    member_data: Optional[MemberDataReport] = None

    def member_data_dict(self) -> Optional[dict]:
        return self.member_data.as_dict() if self.member_data is not None else None


class Staging:
    """A temporary directory holding the uploads of one request; removed on exit."""

    def __init__(self):
        self._tmp = tempfile.TemporaryDirectory(prefix="uschess-web-")
        self.root = Path(self._tmp.name)
        self.names: dict[str, str] = {}  # staged path -> upload name shown

    def __enter__(self) -> "Staging":
        return self

    def __exit__(self, *exc) -> None:
        self._tmp.cleanup()

    def stage(self, upload: Upload, role: str, suffixes, max_bytes: int) -> Path:
        """Write ``upload`` as ``ROLE.SUFFIX`` (a zip: extract the report into
        ``ROLE/``) and return the path to read."""
        suffix = upload.suffix
        if suffix not in suffixes:
            raise InputError(f"not a file this page reads (it takes {', '.join(suffixes)})",
                             file=upload.name)
        if not upload.data:
            raise InputError("the uploaded file is empty", file=upload.name)
        if suffix == ".zip":
            directory = self.root / role
            directory.mkdir()
            self._extract_report(upload, directory, max_bytes)
            self.names[str(directory)] = upload.name
            return directory
        if suffix == ".dbf":
            # one report file: the reader takes its directory, under the fixed names
            base = upload.name.upper()
            match = [n for n in FILE_NAMES.values() if base.endswith(n)]
            if not match:
                raise InputError(f"a rating report file is one of {', '.join(FILE_NAMES.values())}",
                                 file=upload.name)
            directory = self.root / role
            directory.mkdir()
            path = directory / match[0]
            path.write_bytes(upload.data)
            self.names[str(directory)] = upload.name
            return path
        path = self.root / f"{role}{suffix}"
        path.write_bytes(upload.data)
        self.names[str(path)] = upload.name
        return path

    def _extract_report(self, upload: Upload, directory: Path, max_bytes: int) -> None:
        try:
            archive = zipfile.ZipFile(io.BytesIO(upload.data))
        except (zipfile.BadZipFile, ValueError):
            raise InputError("not a zip archive", file=upload.name)
        wanted = {n.upper(): n for n in FILE_NAMES.values()}
        found: dict[str, str] = {}
        total = 0
        with archive:
            for info in archive.infolist():
                if info.is_dir():
                    continue
                base = PurePosixPath(info.filename.replace("\\", "/")).name.upper()
                if base not in wanted:
                    continue
                if base in found:
                    raise InputError(f"holds {base} twice ({found[base]} and {info.filename})",
                                     file=upload.name)
                found[base] = info.filename
                try:
                    with archive.open(info) as member:
                        data = member.read(max_bytes - total + 1)
                except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError, ValueError,
                        EOFError, zlib.error) as err:  # a damaged member: truncated, bad data
                    raise InputError(f"cannot extract {info.filename}: {err}", file=upload.name)
                total += len(data)
                if total > max_bytes:
                    raise InputError(f"the report unpacks to more than {max_bytes / 1_000_000:g} MB",
                                     file=upload.name)
                (directory / wanted[base]).write_bytes(data)
        missing = [n for n in wanted if n not in found]
        if missing:
            raise InputError(f"the zip holds no {', '.join(missing)}: a rating report is "
                             f"{', '.join(FILE_NAMES.values())}", file=upload.name)

    def shown(self, err: InputError) -> InputError:
        """``err`` naming the upload rather than the staged file (where it
        says which file, and in its text)."""
        for staged, name in sorted(self.names.items(), key=lambda kv: -len(kv[0])):
            err.message = err.message.replace(staged, name)
        if err.file:
            for staged, name in sorted(self.names.items(), key=lambda kv: -len(kv[0])):
                if err.file == staged:
                    err.file = name
                    break
                if err.file.startswith(staged + "/"):
                    err.file = f"{name}: {err.file[len(staged) + 1:]}"
                    break
            else:
                if err.file.startswith(str(self.root)):
                    err.file = err.file[len(str(self.root)) + 1:]
        return err


def _published_mapping(path: Path) -> bool:
    """Whether an event-file upload is a published-results file (it has
    ``published``), read by the checked reader of every event file (its
    size limit first, then nesting, aliases...); a file it refuses is left
    to the event reader, which refuses it in the same words."""
    try:
        data = read_data(path)
    except InputError:
        return False
    return isinstance(data, dict) and "published" in data


def _page(path: Path) -> bool:
    """Whether an upload is a published crosstable page with headers (an MSA
    page saved as HTML or text, the TD crosstable, an export): one that
    carries published ratings and states its own dates."""
    if path.is_dir() or path.suffix.lower() in EVENT_SUFFIXES:
        return False
    try:
        text = path.read_bytes()[:200000].decode("utf-8", errors="replace")
    except OSError:
        return False
    if not looks_like_page(text) or looks_like_trf(text):
        return False
    try:  # a bare MSA table states no dates: it keeps the MSA crosstable's own path
        return read_page(path).layout != "msa-table"
    except InputError:
        return False


def _looks_like_msa(path: Path) -> bool:
    try:
        head = path.read_bytes()[:65536]
    except OSError:
        return False
    return looks_like_msa(head.decode("utf-8", errors="replace"))


def load_upload(event: Upload, players: Optional[Upload], audit: AuditOptions,
                max_bytes: int, *, all_unrated: bool = False) -> Loaded:
    """Read an uploaded event (and players file) as ``uschess rate`` reads
    a path (a report without any member data is refused unless
    ``all_unrated``, as without ``--all-unrated``); published results (a
    published-results file, an MSA crosstable) are read as ``uschess audit``
    reads them.  Every problem is one located :class:`InputError` naming
    the upload."""
    with Staging() as staging:
        try:
            path = staging.stage(event, "event", EVENT_UPLOAD_SUFFIXES, max_bytes)
            players_path = (staging.stage(players, "players", PLAYERS_SUFFIXES, max_bytes)
                            if players is not None else None)
            if path.is_file() and path.suffix.lower() in EVENT_SUFFIXES and _published_mapping(path):
                return _renamed(_published(path, players_path, audit, ""), event.name)
            if path.is_file() and _page(path):  # a published page: audited, as uschess audit does
                return _renamed(_published(path, players_path, audit, "page"), event.name)
            try:
                loaded = load_event_input(
                    str(path), SimpleNamespace(players=str(players_path) if players_path else None,
                                               all_unrated=all_unrated), Console(quiet=True))
            except InputError:
                if path.is_file() and _looks_like_msa(path):
                    return _renamed(_published(path, players_path, audit, "msa"), event.name)
                raise
            report = loaded.member_data
            if report is not None:
                report = dataclasses.replace(report, source=event.name,
                                             players_file=players.name if players else None)
            return Loaded("event", dataclasses.replace(loaded.event, source=event.name),
                          member_data=report)
        except InputError as err:
            raise staging.shown(err)


def _renamed(loaded: Loaded, name: str) -> Loaded:
    """Published results read from a staged file, named after the upload as
    ``uschess audit`` names them after the file: the source, and for an MSA
    crosstable the event and section (the file's stem)."""
    pub = loaded.published
    event = dataclasses.replace(pub.event, source=name)
    entries = pub.entries
    if pub.kind == "msa":
        stem = PurePosixPath(name).stem or name
        sections = [dataclasses.replace(s, name=stem) for s in event.sections]
        event = dataclasses.replace(event, name=stem, sections=sections)
        entries = [dataclasses.replace(e, section=stem) for e in entries]
    pub = dataclasses.replace(pub, event=event, entries=entries, source=name)
    return Loaded("published", event, pub)


def _published(path: Path, players_path, audit: AuditOptions, kind: str) -> Loaded:
    if players_path is not None:
        raise InputError("published results carry their own member data: leave the players "
                         "file empty", file=path)
    if kind == "page":  # what the page states wins; the form fills what it does not
        pub = load_published(path, start=audit.start, end=audit.end,
                             time_control=audit.time_control or None, system=audit.system or None)
    elif kind == "msa":
        if audit.start is None:
            raise InputError("an MSA crosstable prints no dates: give the section's start date",
                             file=path, field="start")
        pub = load_published(path, start=audit.start, end=audit.end,
                             time_control=audit.time_control or None, system=audit.system or None)
    else:
        given = [name for name, value in (("start", audit.start), ("end", audit.end),
                                          ("time control", audit.time_control),
                                          ("system", audit.system)) if value]
        if given:
            raise InputError(f"{', '.join(given)}: only for an MSA crosstable; this file gives "
                             "each section's dates, time control and systems", file=path)
        pub = load_published(path)
    return Loaded("published", pub.event, pub)

