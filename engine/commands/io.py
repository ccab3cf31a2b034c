"""``uschess import`` and ``uschess export``: tournament files in and out.

``import SOURCE -o OUT`` turns any input ``uschess rate`` reads (event file,
DBF rating report, TRF) into an event file.  ``export dbf|trf|crosstable
EVENT`` writes a rating report, a TRF, or the rated results.  Files are
written atomically (a temporary file renamed into place) and an existing
output is replaced only with ``--force``.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from uschess.errors import InputError
from uschess.io.eventfile import write_event
from uschess.io.exports import FORMATS, crosstable
from uschess.io.files import atomic_write
from uschess.io.formats.detect import EVENT_SUFFIXES, TRF_SUFFIXES
from uschess.io.formats.trf import write_trf_file
from uschess.io.formats.uscf_dbf import FILE_NAMES, WRITABLE_HEADER, write_uscf_dbf
from uschess.rating.pipeline import rate_event
from uschess.commands.common import add_rules_options, load_event_arg, rating_options

KINDS = ("dbf", "trf", "crosstable")
#: Crosstable format implied by the suffix of ``-o`` when --format is not given.
SUFFIX_FORMATS = {".csv": "csv", ".json": "json"}

IMPORT_EPILOG = """\
SOURCE is an event file (.yaml/.yml/.json), a directory holding a DBF rating
report (THEXPORT/TSEXPORT/TDEXPORT.DBF) or one of its files, a TRF
(.trf/.txt), or a published crosstable page (MSA HTML or text page, bare MSA
table, TD crosstable, 'export crosstable' output): a page becomes an event
file plus its "published:" list, which 'uschess audit' and 'uschess replay'
read.  --players merges member data (ratings with game counts, birth
dates, FIDE/CFC ratings) that reports do not carry.  OUT ends in .yaml, .yml
or .json, which decides how it is written.
"""

EXPORT_EPILOG = """\
kinds:
  dbf         a 2C rating report: THEXPORT.DBF, TSEXPORT.DBF and TDEXPORT.DBF
              written into the directory -o (created if needed); --header
              fills event fields the event file does not hold, e.g.
              --header H_AFF_ID=A6012345 --header H_CTD_ID=12004567
  trf         a FIDE TRF (-o ends in .trf or .txt)
  crosstable  rate the event and write the results of every section in every
              system it was rated in: --format msa (the US Chess text layout,
              default), csv (one row per player and system) or json (what
              'uschess rate --json' prints).  Without --format, -o ending in
              .csv or .json picks that format.  Written to stdout without -o.
              MSA labels: R, Q, B for OTB regular, quick, blitz; OR, OQ, OB
              for online regular, quick, blitz.

The rules options apply to crosstable only.
"""


def register(sub) -> None:
    p = sub.add_parser("import", help="convert a DBF report, TRF or event file to an event file",
                       description="Read any input 'uschess rate' reads and write it as an\n"
                                   "event file (YAML or JSON).",
                       epilog=IMPORT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", metavar="SOURCE", help="event file, DBF report directory or file, or .trf")
    p.add_argument("--players", metavar="FILE", help="players file with member data")
    p.add_argument("-o", "--output", metavar="OUT", help="event file to write (.yaml/.yml/.json)")
    p.add_argument("--force", action="store_true", help="replace OUT if it exists")
    g = p.add_argument_group("a published crosstable page (used where the page states none)")
    g.add_argument("--start", metavar="DATE", help="the section's start date")
    g.add_argument("--time-control", metavar="TC", help="the section's time control")
    g.add_argument("--adult", action="append", default=[], metavar="ID[,ID...]",
                   help="an unrated player known to be an adult")
    g.add_argument("--section", metavar="N|NAME", help="only this section of the page")
    p.set_defaults(func=run_import)

    p = sub.add_parser("export", help="write an event as a DBF report, a TRF or a rated crosstable",
                       description="Write an event (any input 'uschess rate' reads) as a US Chess\n"
                                   "rating report, a FIDE TRF, or rated crosstables.",
                       epilog=EXPORT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", metavar="KIND", help="dbf, trf or crosstable")
    p.add_argument("event", metavar="EVENT", help="event file, DBF report directory or file, or .trf")
    p.add_argument("--players", metavar="FILE", help="players file with member data")
    p.add_argument("-o", "--output", metavar="PATH",
                   help="directory (dbf) or file (trf, crosstable) to write")
    p.add_argument("--force", action="store_true", help="replace existing output")
    p.add_argument("--format", metavar="FMT", help="crosstable: msa (default), csv or json")
    p.add_argument("--header", action="append", default=[], metavar="FIELD=VALUE",
                   help=f"dbf: set a THEXPORT field ({', '.join(WRITABLE_HEADER)})")
    p.add_argument("--grant-floor-requests", action="store_true",
                   help="crosstable, matches (sec. 7): grant every request to lower a floor by 100")
    add_rules_options(p)
    p.set_defaults(func=run_export)


# ---------------------------------------------------------------- checks

def _output_file(path: str | None, what: str, suffixes, force: bool) -> Path:
    """A file to write: named, with an accepted suffix, in an existing
    directory, and new unless ``force``."""
    if not path:
        raise InputError(f"name the {what} to write with -o")
    out = Path(path)
    if suffixes and out.suffix.lower() not in suffixes:
        raise InputError(f"a {what} ends in {', '.join(suffixes)}", file=out)
    if out.is_dir():
        raise InputError("is a directory", file=out)
    if not out.parent.is_dir():
        raise InputError("the directory to write into does not exist", file=out)
    if out.exists() and not force:
        raise InputError("exists; use --force to replace it", file=out)
    return out


def _output_dir(path: str | None, force: bool) -> Path:
    if not path:
        raise InputError("name the directory to write the report into with -o")
    out = Path(path)
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a directory", file=out)
    if out.is_dir() and not force:
        try:
            present = sorted(p.name for p in out.iterdir() if p.is_file() and any(
                p.name.upper().endswith(n) for n in FILE_NAMES.values()))
        except OSError as err:
            raise InputError(f"cannot list the directory: {err.strerror or err}", file=out)
        if present:
            raise InputError(f"already holds {', '.join(present)}; use --force to replace "
                             "the report", file=out)
    return out


def _header_fields(items: list[str]) -> dict[str, str]:
    out = {}
    for item in items:
        name, sep, value = item.partition("=")
        name = name.strip().upper()
        if not sep:
            raise InputError(f"--header {item!r}: write FIELD=VALUE")
        if name not in WRITABLE_HEADER:
            raise InputError(f"--header {name}: not a field that can be set "
                             f"({', '.join(WRITABLE_HEADER)})")
        if name in out:
            raise InputError(f"--header {name} given twice")
        out[name] = value.strip()
    return out


def _only_for_crosstable(args) -> None:
    given = [opt for opt, value in (
        ("--format", args.format), ("--rules-on", args.rules_on), ("--known-on", args.known_on),
        ("--edition", args.edition), ("--reading", args.reading), ("--reform", args.reform),
        ("--grant-floor-requests", args.grant_floor_requests)) if value]
    if given:
        raise InputError(f"{', '.join(given)} applies only to 'export crosstable'")


# ---------------------------------------------------------------- commands

def _page_source(path: str) -> bool:
    """A published crosstable page (HTML, MSA text, TD layout, export)."""
    p = Path(path)
    if p.is_dir() or p.suffix.lower() in EVENT_SUFFIXES or not p.is_file():
        return False
    from uschess.io.formats.pages import looks_like_page
    from uschess.io.formats.trf import looks_like_trf
    try:
        head = p.read_bytes()[:200000].decode("utf-8", errors="replace")
    except OSError:
        return False
    return not looks_like_trf(head) and looks_like_page(head)


def _import_page(args, out: Path) -> int:
    """A page as an event file plus its ``published:`` list (what ``uschess
    audit`` and a replay into a store read)."""
    import json

    import yaml

    from uschess.apps.audit import load_published
    from uschess.io.eventfile import event_to_dict
    from uschess.io.files import write_text_atomic

    if args.players:
        raise InputError("--players: a page's players are read from the page")
    adult = {pid.strip() for item in args.adult for pid in item.split(",") if pid.strip()}
    pub = load_published(args.source, start=args.start, time_control=args.time_control,
                         adult=adult, section=args.section)
    data = event_to_dict(pub.event)
    data["published"] = [
        {"id": e.id, "system": e.system, "post": e.post, "pre": e.pre, "section": e.section}
        for e in pub.entries]
    text = (json.dumps(data, indent=2) + "\n" if out.suffix.lower() == ".json"
            else yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    write_text_atomic(out, text)
    for note in pub.notes:
        print(f"note: {note}")
    print(f"wrote {out}: {len(pub.event.sections)} section(s), {len(pub.entries)} published "
          "ratings")
    return 0


def run_import(args) -> int:
    out = _output_file(args.output, "event file", EVENT_SUFFIXES, args.force)
    if _page_source(args.source):
        return _import_page(args, out)
    page_only = [o for o, v in (("--start", args.start), ("--time-control", args.time_control),
                                ("--adult", args.adult), ("--section", args.section)) if v]
    if page_only:
        raise InputError(f"{', '.join(page_only)}: only for a published crosstable page",
                         file=args.source)
    event = load_event_arg(args.source, args.players)
    write_event(event, out)
    players = sum(len(s.players) for s in event.sections)
    print(f"wrote {out}: {len(event.sections)} section(s), {players} player entries")
    return 0


def run_export(args) -> int:
    kind = args.kind.strip().lower()
    if kind not in KINDS:
        raise InputError(f"unknown export {args.kind!r} (dbf, trf or crosstable)")
    if kind != "dbf" and args.header:
        raise InputError("--header applies only to 'export dbf'")
    if kind == "dbf":
        _only_for_crosstable(args)
        header = _header_fields(args.header)
        out = _output_dir(args.output, args.force)
        event = load_event_arg(args.event, args.players)
        paths = write_uscf_dbf(event, out, header=header)
        print(f"wrote {', '.join(str(p) for p in paths.values())}")
        return 0
    if kind == "trf":
        _only_for_crosstable(args)
        out = _output_file(args.output, "TRF", TRF_SUFFIXES, args.force)
        event = load_event_arg(args.event, args.players)
        write_trf_file(event, out)
        print(f"wrote {out}")
        return 0
    return _export_crosstable(args)


def _export_crosstable(args) -> int:
    fmt = args.format.strip().lower() if args.format else None
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"unknown crosstable format {args.format!r} (msa, csv or json)")
    out = None
    if args.output:
        out = _output_file(args.output, "crosstable", (), args.force)
        fmt = fmt or SUFFIX_FORMATS.get(out.suffix.lower())
    event = load_event_arg(args.event, args.players)
    options = rating_options(args)
    options.grant_floor_requests = args.grant_floor_requests
    text = crosstable(rate_event(event, options), fmt or "msa")
    if out is None:
        sys.stdout.write(text)
    else:
        atomic_write({out: text.encode("utf-8")})
        print(f"wrote {out}")
    return 0
