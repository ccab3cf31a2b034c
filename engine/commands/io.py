"""``uschess import`` and ``uschess export``: tournament files in and out.

``import SOURCE -o OUT`` turns any input ``uschess rate`` reads (event file,
DBF rating report, TRF) into an event file.  ``export dbf|trf|crosstable
EVENT`` writes a rating report, a TRF, or the rated results.  Files are
written atomically (a temporary file renamed into place), an existing
output is replaced only with ``--force``, and ``-`` is standard input or
output (see :mod:`uschess.commands.common`).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
from pathlib import Path

import yaml

from uschess.errors import InputError
from uschess.io.eventfile import event_to_dict
from uschess.io.exports import FORMATS, crosstable
from uschess.io.formats.detect import EVENT_SUFFIXES, TRF_SUFFIXES
from uschess.io.formats.trf import write_trf
from uschess.io.formats.uscf_dbf import FILE_NAMES, WRITABLE_HEADER, write_uscf_dbf
from uschess.model import PublishedPost
from uschess.rating.pipeline import rate_event
from uschess.timecontrol import parse_time_control
from uschess.commands.common import (STDIO, Console, add_examples, add_force_option,
                                     add_member_data_options, add_rules_options, load_event_input,
                                     one_stdout, output_dir, output_file, print_json,
                                     rating_options)

KINDS = ("dbf", "trf", "crosstable")
#: Crosstable format implied by the suffix of ``-o`` when --format is not given.
SUFFIX_FORMATS = {".csv": "csv", ".json": "json"}

IMPORT_EPILOG = """\
SOURCE is an event file (.yaml/.yml/.json), a directory holding a DBF rating
report (THEXPORT/TSEXPORT/TDEXPORT.DBF) or one of its files, a TRF
(.trf/.txt), a published crosstable page (MSA HTML or text page, bare MSA
table, TD crosstable, 'export crosstable' output), or - for standard input.
A page becomes an event file plus its "published:" list, which 'uschess
audit' and 'uschess replay' read.  --players merges member data (ratings with
game counts, birth dates, FIDE/CFC ratings) that reports do not carry; the
players it does not describe are named on standard error.  OUT ends in .yaml,
.yml or .json, which decides how it is written; -o - writes to standard
output (YAML, or JSON with --format json).
"""

EXPORT_EPILOG = """\
kinds:
  dbf         a 2C rating report: THEXPORT.DBF, TSEXPORT.DBF and TDEXPORT.DBF
              written into the directory -o (created if needed); --header
              fills event fields the event file does not hold, e.g.
              --header H_AFF_ID=A6012345 --header H_CTD_ID=12004567
  trf         a FIDE TRF (-o ends in .trf or .txt, or -o - for standard output)
  crosstable  rate the event and write the results of every section in every
              system it was rated in: --format msa (the US Chess text layout,
              default), csv (one row per player and system) or json (what
              'uschess rate --json' prints).  Without --format, -o ending in
              .csv or .json picks that format.  Written to standard output
              without -o or with -o -.
              MSA labels: R, Q, B for OTB regular, quick, blitz; OR, OQ, OB
              for online regular, quick, blitz.

The rules options apply to crosstable only.
"""


def register(sub) -> None:
    p = sub.add_parser("import", help="convert a DBF report, TRF or event file to an event file",
                       description="Read any input 'uschess rate' reads and write it as an\n"
                                   "event file (YAML or JSON).",
                       epilog=IMPORT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("source", metavar="SOURCE",
                   help="event file, DBF report directory or file, .trf, or a published "
                        "crosstable page; - for standard input")
    add_member_data_options(p, rates=False)
    p.add_argument("-o", "--output", metavar="OUT",
                   help="event file to write (.yaml/.yml/.json), or - for standard output")
    p.add_argument("--format", choices=("yaml", "json"),
                   help="how to write (default: from OUT's suffix; YAML for -o -)")
    add_force_option(p)
    p.add_argument("--json", action="store_true",
                   help='print {"wrote", "sections", "players", "member_data"} as JSON')
    g = p.add_argument_group("a published crosstable page (used where the page states none)")
    g.add_argument("--start", metavar="DATE", help="the section's start date")
    g.add_argument("--time-control", metavar="TC", help="the section's time control")
    g.add_argument("--adult", action="append", default=[], metavar="ID[,ID...]",
                   help="an unrated player known to be an adult")
    g.add_argument("--section", metavar="N|NAME", help="only this section of the page")
    add_examples(p, "uschess import fixtures/dbf/club-championship --players "
                    "fixtures/events/club-championship.players.yaml -o club.yaml")
    p.set_defaults(func=run_import)

    p = sub.add_parser("export", help="write an event as a DBF report, a TRF or a rated crosstable",
                       description="Write an event (any input 'uschess rate' reads) as a US Chess\n"
                                   "rating report, a FIDE TRF, or rated crosstables.",
                       epilog=EXPORT_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("kind", metavar="KIND", help="dbf, trf or crosstable")
    p.add_argument("event", metavar="EVENT",
                   help="event file, DBF report directory or file, or .trf; - for standard input")
    add_member_data_options(p)
    p.add_argument("-o", "--output", metavar="PATH",
                   help="directory (dbf) or file (trf, crosstable; - for standard output) to write")
    add_force_option(p)
    p.add_argument("--format", metavar="FMT", help="crosstable: msa (default), csv or json")
    p.add_argument("--header", action="append", default=[], metavar="FIELD=VALUE",
                   help=f"dbf: set a THEXPORT field ({', '.join(WRITABLE_HEADER)})")
    p.add_argument("--grant-floor-requests", action="store_true",
                   help="crosstable, matches (sec. 7): grant every request to lower a floor")
    p.add_argument("--json", action="store_true",
                   help='print {"wrote": [files], "member_data"} as JSON (the output must be a file)')
    add_rules_options(p)
    add_examples(p, "uschess export crosstable fixtures/events/wfcc15.yaml",
                 "uschess export trf fixtures/events/wfcc15.yaml -o wfcc15.trf")
    p.set_defaults(func=run_export)


# ---------------------------------------------------------------- checks

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
        ("--grant-floor-requests", args.grant_floor_requests),
        ("--all-unrated", args.all_unrated)) if value]
    if given:
        raise InputError(f"{', '.join(given)} applies only to 'export crosstable'")


def _summary(written, loaded) -> dict:
    return {"wrote": [str(w) for w in written], "member_data": loaded.member_data_dict()}


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


def _event_text(data: dict, args, out) -> str:
    """An event file's text, JSON or YAML as ``--format`` or OUT's suffix says."""
    fmt = args.format or ("json" if out.path is not None and out.path.suffix.lower() == ".json"
                          else "yaml")
    return (json.dumps(data, indent=2) + "\n" if fmt == "json"
            else yaml.safe_dump(data, sort_keys=False, allow_unicode=True))


def _import_page(args, out, console) -> int:
    """A page as an event file plus its ``published:`` list (what ``uschess
    audit`` and a replay into a store read)."""
    from uschess.apps.audit import load_published

    if args.players:
        raise InputError("--players: a page's players are read from the page")
    adult = {pid.strip() for item in args.adult for pid in item.split(",") if pid.strip()}
    pub = load_published(args.source, start=args.start, time_control=args.time_control,
                         adult=adult, section=args.section)
    event = dataclasses.replace(pub.event, published=[
        PublishedPost(e.id, e.system, e.post, e.pre, e.section, pre_given=True) for e in pub.entries])
    data = event_to_dict(event)
    for note in pub.notes:
        console.note(note)
    out.write(_event_text(data, args, out), console,
              f"{len(pub.event.sections)} section(s), {len(pub.entries)} published ratings")
    if args.json:
        print_json({"wrote": [str(out.path)] if out.path else [], "sections":
                    len(pub.event.sections), "published": len(pub.entries)})
    return 0


def run_import(args) -> int:
    console = Console.of(args)
    out = output_file(args.output, what="event file",
                      suffixes=() if args.output == STDIO else EVENT_SUFFIXES, force=args.force)
    one_stdout(("-o -", out.stdout), ("--json", args.json))
    if _page_source(args.source):
        return _import_page(args, out, console)
    page_only = [o for o, v in (("--start", args.start), ("--time-control", args.time_control),
                                ("--adult", args.adult), ("--section", args.section)) if v]
    if page_only:
        raise InputError(f"{', '.join(page_only)}: only for a published crosstable page",
                         file=args.source)
    loaded = load_event_input(args.source, args, console, rates=False)
    console.member_data(loaded.member_data)
    event = loaded.event
    for section in event.sections:  # an event file written is one that rates
        try:
            parse_time_control(str(section.time_control))
        except InputError as err:
            raise err.located(section=section.name, file=args.source)
    data = event_to_dict(event)
    text = _event_text(data, args, out)
    players = sum(len(s.players) for s in event.sections)
    out.write(text, console, f"{len(event.sections)} section(s), {players} player entries")
    if args.json:
        print_json({**_summary([out.path], loaded), "sections": len(event.sections),
                    "players": players})
    return 0


def run_export(args) -> int:
    console = Console.of(args)
    kind = args.kind.strip().lower()
    if kind not in KINDS:
        raise InputError(f"unknown export {args.kind!r} (dbf, trf or crosstable)")
    if kind != "dbf" and args.header:
        raise InputError("--header applies only to 'export dbf'")
    if kind == "dbf":
        _only_for_crosstable(args)
        header = _header_fields(args.header)
        out = output_dir(args.output, what="rating report", force=args.force,
                         names=FILE_NAMES.values())
        loaded = load_event_input(args.event, args, console, rates=False)
        console.member_data(loaded.member_data)
        paths = list(write_uscf_dbf(loaded.event, out, header=header).values())
        for path in paths:
            console.wrote(path)
        if args.json:
            print_json(_summary(paths, loaded))
        return 0
    if kind == "trf":
        _only_for_crosstable(args)
        out = output_file(args.output, what="TRF", force=args.force,
                          suffixes=() if args.output == STDIO else TRF_SUFFIXES)
        one_stdout(("-o -", out.stdout), ("--json", args.json))
        loaded = load_event_input(args.event, args, console, rates=False)
        console.member_data(loaded.member_data)
        # a TRF's lines end in CR LF
        out.write(write_trf(loaded.event).replace("\n", "\r\n").encode("utf-8"), console)
        if args.json:
            print_json(_summary([out.path], loaded))
        return 0
    return _export_crosstable(args, console)


def _export_crosstable(args, console: Console) -> int:
    fmt = args.format.strip().lower() if args.format else None
    if fmt is not None and fmt not in FORMATS:
        raise InputError(f"unknown crosstable format {args.format!r} (msa, csv or json)")
    out = output_file(args.output or STDIO, what="crosstable", force=args.force)
    one_stdout(("the crosstable" if not args.output else "-o -", out.stdout), ("--json", args.json))
    if out.path is not None:
        fmt = fmt or SUFFIX_FORMATS.get(out.path.suffix.lower())
    options = rating_options(args)
    loaded = load_event_input(args.event, args, console)
    console.member_data(loaded.member_data)
    options.grant_floor_requests = args.grant_floor_requests
    out.write(crosstable(rate_event(loaded.event, options), fmt or "msa"), console)
    if args.json:
        print_json(_summary([out.path], loaded))
    return 0
