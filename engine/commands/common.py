"""What the commands share, defined once: which rules (``--rules-on``,
``--known-on``, ``--edition``, ``--reading``, ``--reform``), member data
(``--players``, ``--all-unrated``), the store (``--db``, default
``$USCHESS_DB``), ``-q``/``-v``, ``-`` for standard input and output, the
overwrite rule (``--force``) with its one ``wrote FILE`` line, and progress
bars.

Conventions of every command:

* ``-`` as an input file is standard input (its format is recognised from
  its first bytes); as an output file, standard output.
* An output file that exists is replaced only with ``--force``; each file
  written is announced by one ``wrote FILE`` line on standard error.
* Results go to standard output; notes, warnings, ``wrote`` lines and
  progress bars to standard error.  ``--quiet`` keeps standard error to
  errors only; ``--verbose`` adds detail (every player without member data,
  every file read).
* Exit status 0 when the command did its work, 1 when ``--strict`` finds a
  difference (audit, compare), 2 for bad input or usage.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable, Optional

from uschess.errors import InputError
from uschess.io.eventfile import parse_date
from uschess.io.formats.member_data import NAMES_SHOWN, MemberDataReport
from uschess.model import Event
from uschess.rating.pipeline import RatingOptions

#: The file name that means standard input or output.
STDIO = "-"
#: How standard input is named in messages.
STDIN_NAME = "<stdin>"
#: The environment variable naming the ratings store used when --db is not given.
DB_ENV = "USCHESS_DB"


def date_arg(text: str) -> _dt.date:
    try:
        return parse_date(text, "date")
    except InputError as err:
        raise argparse.ArgumentTypeError(str(err))


def reading_arg(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"{text!r}: write CONFLICT=READING")
    cid, reading = text.split("=", 1)
    return cid.strip(), reading.strip()


def add_rules_options(p: argparse.ArgumentParser, *, rules_on=True) -> None:
    """The options choosing the rules, the same on every command that rates."""
    g = p.add_argument_group("which rules")
    if rules_on:
        g.add_argument("--rules-on", type=date_arg, metavar="DATE",
                       help="rate under the rules in force on DATE instead of each section's start")
    g.add_argument("--known-on", type=date_arg, metavar="DATE",
                   help="use only what was known on DATE (decided_on dates)")
    g.add_argument("--edition", metavar="DATE",
                   help="rate with one document's text as written (2001-02-22, 2017-04-24, "
                        "2020-06-11, 2020-09-02, 2025-07-26)")
    g.add_argument("--reading", type=reading_arg, action="append", default=[], metavar="CONFLICT=READING",
                   help="follow another reading of a recorded conflict (see 'uschess rules conflicts')")
    g.add_argument("--reform", metavar="FILE",
                   help="a reform file (YAML, or - for standard input) applied over the baseline")


def load_reform(path):
    if not path:
        return None
    from uschess.calendar.reform import load_reform as _load
    return _load(input_path(path))


def readings_given(args) -> dict:
    """``--reading CONFLICT=READING`` options as a mapping; one conflict
    given two different readings is refused (the last would win unseen)."""
    out: dict = {}
    for conflict, reading in getattr(args, "reading", None) or []:
        if out.get(conflict, reading) != reading:
            raise InputError(f"--reading {conflict}: given twice, as {out[conflict]} and "
                             f"{reading}")
        out[conflict] = reading
    return out


def rating_options(args, trace=True) -> RatingOptions:
    """The rules options of the command line, checked before any file is read."""
    from uschess.calendar.rulebook import RuleBook
    book = RuleBook.load()
    readings = readings_given(args)
    book.check_readings(readings)
    if args.edition is not None and args.edition not in book.editions:
        raise InputError(f"--edition: unknown edition {args.edition!r} "
                         f"(known: {', '.join(sorted(book.editions))})")
    if getattr(args, "reform", None) == STDIO:  # read first: the other input would get none
        for name in ("event", "events", "published", "file", "players"):
            value = getattr(args, name, None)
            if value == STDIO or (isinstance(value, list) and STDIO in value):
                raise InputError(f"standard input (-) is given for both --reform and "
                                 f"{'--players' if name == 'players' else 'the ' + name}: "
                                 "give one of them as a file")
    return RatingOptions(rules_on=getattr(args, "rules_on", None), known_on=args.known_on,
                         readings=readings, edition=args.edition,
                         reform=load_reform(getattr(args, "reform", None)), trace=trace)


def load_event_arg(path: str, players: str | None = None, *, member_data: Optional[list] = None):
    """An event from any supported format (detected from the path; ``-`` is
    standard input).  ``member_data``: see
    :func:`uschess.io.formats.detect.load_event_any`."""
    from uschess.io.formats.detect import load_event_any
    return load_event_any(input_path(path), players_file=input_path(players) if players else None,
                          member_data=member_data)


# ------------------------------------------------------------ help

class HelpFormatter(argparse.HelpFormatter):
    """Help whose one-paragraph texts are wrapped to the terminal and whose
    texts of several lines (an epilog laid out by hand, the examples) are
    kept as written."""

    def _fill_text(self, text, width, indent):
        if "\n" in text.strip("\n"):
            return "".join(indent + line for line in text.splitlines(keepends=True))
        return super()._fill_text(text, width, indent)


def add_examples(p: argparse.ArgumentParser, *examples: str) -> None:
    """End the command's ``-h`` with ``examples`` (whole command lines, run
    as written by the test suite from a folder holding the ``fixtures``)."""
    block = "examples:\n" + "".join(f"  {line}\n" for line in examples)
    p.epilog = (p.epilog.rstrip("\n") + "\n\n" if p.epilog else "") + block
    p.formatter_class = HelpFormatter


# ------------------------------------------------------------ member data

def add_member_data_options(p: argparse.ArgumentParser, *, rates: bool = True) -> None:
    """``--players`` (and, on commands that rate, ``--all-unrated``)."""
    p.add_argument("--players", metavar="FILE",
                   help="players file with member data (ratings with game counts, birth dates, "
                        "FIDE/CFC ratings) for DBF/TRF input; - for standard input")
    if rates:
        p.add_argument("--all-unrated", action="store_true",
                       help="rate a DBF/TRF report even when no player has member data (all "
                            "rated as unrated); without it such a report is refused")


@dataclass
class LoadedEvent:
    """An event read for a command, with what is known of its member data
    (None for an event file, which holds its own)."""

    event: Event
    member_data: Optional[MemberDataReport] = None

    def member_data_dict(self) -> Optional[dict]:
        return self.member_data.as_dict() if self.member_data is not None else None


def load_event_input(path: str, args, console: "Console", *, rates: bool = True) -> LoadedEvent:
    """The event at ``path`` with ``args.players`` merged.  A DBF report or
    TRF whose players all lack member data is refused unless
    ``args.all_unrated`` (when ``rates``); some missing is allowed (the
    caller reports it, see :meth:`Console.member_data`)."""
    reports: list = []
    event = load_event_arg(path, getattr(args, "players", None), member_data=reports)
    report = reports[0] if reports else None
    console.detail(f"read {path}: {len(event.sections)} section(s), "
                   f"{sum(len(s.players) for s in event.sections)} player entries")
    if report is not None and rates and report.all_missing and not getattr(args, "all_unrated", False):
        given = (f"the players file {report.players_file} describes none of them"
                 if report.players_file else "no players file was given (--players FILE)")
        raise InputError(f"none of the {report.players} players has member data: {given}, so "
                         "every one would be rated as unrated; give their ratings in a players "
                         "file, or --all-unrated to rate them all as unrated", file=path)
    return LoadedEvent(event, report)


# ------------------------------------------------------------ output

def add_console_options(p: argparse.ArgumentParser, *, top: bool = False) -> None:
    """``-q``/``--quiet`` and ``-v``/``--verbose``, accepted before the
    command (``top``) and after it."""
    default = False if top else argparse.SUPPRESS
    g = p.add_mutually_exclusive_group()
    g.add_argument("-q", "--quiet", action="store_true", default=default,
                   help="print only results and errors: no notes, warnings, 'wrote' lines or "
                        "progress bars")
    g.add_argument("-v", "--verbose", action="store_true", default=default,
                   help="print more detail on standard error (every player without member "
                        "data, every file read, every disagreement)")


@dataclass
class Console:
    """Standard error as the options set it: notes and warnings unless
    quiet, details only when verbose."""

    quiet: bool = False
    verbose: bool = False

    @classmethod
    def of(cls, args) -> "Console":
        return cls(quiet=bool(getattr(args, "quiet", False)),
                   verbose=bool(getattr(args, "verbose", False)))

    def note(self, text: str) -> None:
        if not self.quiet:
            print(f"uschess: {text}", file=sys.stderr)

    def warn(self, text: str) -> None:
        if not self.quiet:
            print(f"uschess: warning: {text}", file=sys.stderr)

    def detail(self, text: str) -> None:
        if self.verbose and not self.quiet:
            print(f"uschess: {text}", file=sys.stderr)

    def wrote(self, path, what: str = "") -> None:
        if not self.quiet:
            print(f"wrote {path}" + (f" ({what})" if what else ""), file=sys.stderr)

    def member_data(self, report) -> None:
        """Warn about the players of a report who have no member data, and
        those whose birth date is a year only."""
        if report is not None and report.missing:
            self.warn(report.message(None if self.verbose else NAMES_SHOWN))
        self.birth_years(report)

    def birth_years(self, report) -> None:
        """Warn about the players of a report whose birth date is a year only."""
        if report is not None and report.birth_years:
            self.warn(report.birth_year_message(None if self.verbose else NAMES_SHOWN))

    def progress(self, *, total=None, unit: str = "event", desc: str = "", force: bool = False):
        """A tqdm progress bar on standard error: shown on a terminal (or
        with ``force``), never when quiet.  Use it as a context manager.
        A bar not shown is a :class:`HiddenBar`: tqdm is not even imported."""
        if self.quiet or not (force or sys.stderr.isatty()):
            return HiddenBar(total)
        from tqdm import tqdm
        return tqdm(total=total or None, unit=unit, desc=desc, file=sys.stderr,
                    dynamic_ncols=True, leave=False)


    @contextmanager
    def working(self, desc: str, *, force: bool = False):
        """For work whose share done is not known (the audit of one page): a
        line on standard error naming it with the time it has taken,
        refreshed twice a second, on a terminal (or with ``force``), never
        when quiet; removed when the block ends."""
        if self.quiet or not (force or sys.stderr.isatty()):
            yield
            return
        import threading

        from tqdm import tqdm
        bar = tqdm(total=None, desc=desc, bar_format="{desc}: {elapsed}", file=sys.stderr,
                   leave=False)
        stop = threading.Event()

        def tick() -> None:
            while not stop.wait(0.5):
                bar.refresh()
        ticker = threading.Thread(target=tick, name="uschess-progress", daemon=True)
        ticker.start()
        try:
            yield
        finally:
            stop.set()
            ticker.join()
            bar.close()


class HiddenBar:
    """A progress bar that is not shown: the part of tqdm's interface the
    commands use (a context manager; ``n``, ``total``, ``update``,
    ``set_postfix``, ``close``), counting and nothing else."""

    def __init__(self, total=None):
        self.n, self.total = 0, total

    def __enter__(self) -> "HiddenBar":
        return self

    def __exit__(self, *exc) -> None:
        return None

    def update(self, n: int = 1) -> None:
        self.n += n

    def set_postfix(self, *args, **kwargs) -> None:
        return None

    def close(self) -> None:
        return None


@dataclass
class OutputFile:
    """A file named on the command line to write; ``path`` None is
    standard output."""

    path: Optional[Path]
    what: str

    @property
    def stdout(self) -> bool:
        return self.path is None

    def write(self, data, console: Console, detail: str = "") -> None:
        """Write ``data`` (str or bytes) all or nothing, then say so."""
        if self.path is None:
            if isinstance(data, bytes):
                sys.stdout.flush()
                sys.stdout.buffer.write(data)
                sys.stdout.buffer.flush()
            else:
                sys.stdout.write(data)
            return
        from uschess.io.files import atomic_write
        atomic_write({self.path: data if isinstance(data, bytes) else data.encode("utf-8")})
        console.wrote(self.path, detail)


def add_progress_option(p, *, what: str = "the progress bar") -> None:
    """``--progress``: ``what`` on standard error even when it is not a
    terminal (a terminal shows it anyway; ``--quiet`` never does).  ``p``: a
    parser or an argument group."""
    p.add_argument("--progress", action="store_true",
                   help=f"show {what} on standard error even when it is not a terminal "
                        "(never with --quiet)")


def add_force_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--force", action="store_true", help="replace output files that exist")


def output_file(arg: Optional[str], *, what: str, force: bool, suffixes: Iterable[str] = (),
                stdout_ok: bool = True, option: str = "-o") -> OutputFile:
    """The checked output ``arg``: ``-`` is standard output; a file must end
    in one of ``suffixes`` (when given), sit in a directory that exists,
    and be new unless ``force``."""
    if not arg:
        raise InputError(f"name the {what} to write with {option} (or {option} - for standard "
                         "output)" if stdout_ok else f"name the {what} to write with {option}")
    if arg == STDIO:
        if not stdout_ok:
            raise InputError(f"{option}: a {what} cannot be written to standard output")
        return OutputFile(None, what)
    out = Path(arg)
    suffixes = tuple(suffixes)
    if suffixes and out.suffix.lower() not in suffixes:
        raise InputError(f"a {what} ends in {', '.join(suffixes)}", file=out)
    if out.is_dir():
        raise InputError("is a directory", file=out)
    if not out.parent.is_dir():
        raise InputError("the directory to write into does not exist", file=out)
    if out.exists() and not force:
        raise InputError("exists; use --force to replace it", file=out)
    return OutputFile(out, what)


def output_dir(arg: Optional[str], *, what: str, force: bool, names: Iterable[str],
               option: str = "-o") -> Path:
    """A directory to write ``names`` into (created when missing); refused
    when it already holds one of them, unless ``force``."""
    if not arg:
        raise InputError(f"name the directory to write the {what} into with {option}")
    if arg == STDIO:
        raise InputError(f"{option}: {what} is several files; it cannot go to standard output")
    out = Path(arg)
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a directory", file=out)
    if out.is_dir() and not force:
        upper = {n.upper() for n in names}
        try:
            present = sorted(p.name for p in out.iterdir() if p.name.upper() in upper)
        except OSError as err:
            raise InputError(f"cannot list the directory: {err.strerror or err}", file=out)
        if present:
            raise InputError(f"already holds {', '.join(present)}; use --force to replace them",
                             file=out)
    return out


def one_stdout(*uses: tuple[str, bool]) -> None:
    """Refuse two outputs to standard output (``(option, uses it)`` pairs)."""
    given = [opt for opt, used in uses if used]
    if len(given) > 1:
        raise InputError(f"{' and '.join(given)} would both write to standard output")


def print_json(data) -> None:
    """``data`` as JSON on standard output (standard input named ``<stdin>``)."""
    sys.stdout.write(stdin_named(json.dumps(data, indent=2, allow_nan=False, default=str)) + "\n")


# ------------------------------------------------------------ the store

def add_db_option(p: argparse.ArgumentParser, *, what: str = "the ratings store") -> None:
    p.add_argument("--db", metavar="FILE", default=None,
                   help=f"{what}: a SQLite file or a postgresql:// URL (default: ${DB_ENV})")


def db_target(args, *, required: bool = True) -> Optional[str]:
    """``--db``, else ``$USCHESS_DB``; InputError when neither is set and
    ``required``."""
    target = args.db or os.environ.get(DB_ENV) or None
    if target is None and required:
        raise InputError(f"no ratings store: give --db FILE or set {DB_ENV}")
    return target


# ------------------------------------------------------------ standard input

_stdin: dict = {"dir": None, "path": None, "used_for": None}


def input_path(arg: Optional[str], *, what: str = "-") -> Optional[str]:
    """``arg``, or for ``-`` a temporary copy of standard input named after
    the format its first bytes show (``stdin.json``, ``stdin.trf``,
    ``stdin.txt`` for an MSA crosstable, else ``stdin.yaml``), so that every
    reader reads it as it reads a file.  Standard input is read once."""
    if arg != STDIO:
        return arg
    if _stdin["path"] is not None:
        raise InputError(f"{what}: standard input (-) is already read for another input")
    data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
    head = data[:4096].decode("utf-8", errors="replace").lstrip("\ufeff \t\r\n")
    from uschess.io.formats.msa import looks_like_msa
    from uschess.io.formats.trf import looks_like_trf
    if head[:1] in ("{", "["):
        suffix = ".json"
    elif looks_like_trf(head):
        suffix = ".trf"
    elif looks_like_msa(head):
        suffix = ".txt"
    else:
        suffix = ".yaml"
    import atexit
    import shutil
    import tempfile

    folder = tempfile.mkdtemp(prefix="uschess-stdin-")
    atexit.register(shutil.rmtree, folder, True)
    path = os.path.join(folder, "stdin" + suffix)
    with open(path, "wb") as fh:
        fh.write(data)
    _stdin.update(dir=folder, path=path)
    return path


def stdin_named(text: str) -> str:
    """``text`` with the temporary copy of standard input called ``<stdin>``."""
    if _stdin["path"]:
        text = text.replace(_stdin["path"], STDIN_NAME).replace(_stdin["dir"], STDIN_NAME)
    return text


def release_stdin() -> None:
    """Remove the temporary copy of standard input (after the command)."""
    if _stdin["dir"]:
        import shutil

        shutil.rmtree(_stdin["dir"], ignore_errors=True)
    _stdin.update(dir=None, path=None)
