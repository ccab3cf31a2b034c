"""``uschess compare EVENTS... --a RULES --b RULES``: the same events under two
versions of the rules, player by player (see :mod:`uschess.apps.compare`)."""

from __future__ import annotations

import argparse
import sys

from uschess.apps.compare import (EPSILON, compare_streamed, iter_json, iter_text,
                                  parse_rules_spec, to_csv)
from uschess.errors import InputError
from uschess.calendar.rulebook import RuleBook
from uschess.commands.common import (Console, add_examples, add_force_option, add_progress_option,
                                     add_member_data_options, input_path, load_event_input,
                                     one_stdout, output_dir, output_file, stdin_named)

#: Files --plot-dir receives.
PLOT_STEMS = ("differences", "paths")

RULES_HELP = ("baseline | rules-on:DATE | edition:DATE | known-on:DATE | "
              "reading:CONFLICT=READING[,C2=R2] | reform:FILE, or several joined with '+'")

EPILOG = """\
Events are rated in order of end date, start date and id.  Under each side a
player's record after one event (rating, games, wins/draws/losses, peak) is
carried into the next event in place of what that event's file says: a replay
in memory, so differences accumulate along a player's history.  --independent
rates every event from its own file instead.
"""


def register(sub) -> None:
    p = sub.add_parser("compare", help="rate events under two versions of the rules and compare",
                       description="Rate the same events under rules A and B and report every "
                                   "player's post-event rating under each, with the difference.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("events", nargs="+", metavar="EVENT",
                   help="event files (.yaml/.yml/.json), DBF directories or .trf files, or "
                        "directories of these (as replay reads them); - for one read from "
                        "standard input")
    p.add_argument("--a", default="baseline", metavar="RULES",
                   help=f"rules of side A (default: baseline). {RULES_HELP}")
    p.add_argument("--b", required=True, metavar="RULES", help=f"rules of side B. {RULES_HELP}")
    add_member_data_options(p)
    p.add_argument("--json", action="store_true",
                   help='print {"players": [{id, system, event, a, b, diff, ...}], "summary": {...}}')
    p.add_argument("--csv", metavar="FILE",
                   help="write one line per player and system to FILE (- for standard output)")
    p.add_argument("--plot-dir", metavar="DIR",
                   help="write differences.png/.svg (and paths.png/.svg with --player) to DIR")
    add_force_option(p)
    p.add_argument("--player", action="append", default=[], metavar="ID",
                   help="a player whose rating path under A and B to plot (repeatable)")
    p.add_argument("--changed-only", action="store_true", help="list only players whose rating changed")
    p.add_argument("--independent", action="store_true",
                   help="rate each event from its own file (do not chain records between events)")
    p.add_argument("--strict", action="store_true",
                   help="exit with status 1 when any player's rating differs between A and B")
    add_progress_option(p)
    add_examples(p,
                 "uschess compare fixtures/events/wfcc15.yaml --b reform:fixtures/reforms/b-16.yaml",
                 "uschess compare hist --a edition:2017-04-24 --b baseline --changed-only")
    p.set_defaults(func=run)


def run(args) -> int:
    console = Console.of(args)
    book = RuleBook.load()
    # Everything the user gave is checked before anything is rated or written.
    side_a = parse_rules_spec(args.a, book=book, what="--a", input_path=input_path)
    side_b = parse_rules_spec(args.b, book=book, what="--b", input_path=input_path)
    for side in (side_a, side_b):  # the command prints numbers only: no step-by-step trace
        side.options.trace = False
    csv = output_file(args.csv, what="CSV file", force=args.force, option="--csv") if args.csv else None
    one_stdout(("--csv -", csv is not None and csv.stdout), ("--json", args.json))
    if args.plot_dir:
        stems = PLOT_STEMS if args.player else PLOT_STEMS[:1]
        output_dir(args.plot_dir, what="plots", force=args.force, option="--plot-dir",
                   names=[f"{stem}.{fmt}" for stem in stems for fmt in ("png", "svg")])
    if args.player and not args.plot_dir and not args.json:
        raise InputError("--player chooses rating paths to plot: give --plot-dir DIR (or --json)")
    if args.plot_dir:
        from uschess.apps.plots import require_matplotlib
        require_matplotlib()
    return _run_streamed(args, console, side_a, side_b, book, csv)


def _run_streamed(args, console: Console, side_a, side_b, book, csv) -> int:
    """The comparison rated event by event (memory bounded whatever the
    history's size: :func:`uschess.apps.compare.compare_streamed`); the same
    table, CSV, JSON and plots as the comparison held in memory
    (:func:`uschess.apps.compare.compare`)."""
    reports: dict = {}  # member data of the DBF/TRF reports, once per file

    def load_event(path):
        loaded = load_event_input(path, args, console)
        if loaded.member_data is not None:
            reports[str(path)] = loaded.member_data
        return loaded.event

    from uschess.commands.replay import expand
    paths = [input_path(path) for path in expand(args.events)]
    if args.player:
        _check_players(paths, args.player, load_event)
    with console.progress(total=len(paths), unit="file", desc="reading",
                          force=args.progress) as reading, \
            console.progress(total=2 * len(paths), unit="event", desc="rating A and B",
                             force=args.progress) as rating:
        def read():
            for path in paths:
                yield path
                reading.update(1)
        cmp = compare_streamed(read(), side_a, side_b, chain=not args.independent, book=book,
                               loader=load_event, progress=lambda: rating.update(1),
                               players=args.player or ())
    with cmp:
        for report in reports.values():
            console.member_data(report)
        missing = [pid for pid in args.player or () if pid not in cmp.seen]
        if missing:
            raise InputError(f"--player {', '.join(missing)}: in none of the events")
        if csv is not None:
            csv.write(to_csv(cmp), console)
        if args.plot_dir:
            from uschess.apps.plots import plot_differences, plot_paths
            written = plot_differences(cmp.diffs(), args.plot_dir, tolerance=EPSILON,
                                       title=f"B - A: {args.b} vs {args.a}")
            if args.player:
                written += plot_paths(cmp.paths, args.plot_dir, names=cmp.names,
                                      title=f"A = {args.a}, B = {args.b}")
            for path in written:
                console.wrote(path)
        if args.json:
            extra = {"paths": cmp.paths} if args.player else {}
            if reports:
                extra["member_data"] = [r.as_dict() for r in reports.values()]
            for piece in iter_json(cmp, extra):
                sys.stdout.write(stdin_named(piece))
            sys.stdout.write("\n")
        elif csv is None or not csv.stdout:
            for line in iter_text(cmp, changed_only=args.changed_only):
                sys.stdout.write(line)
        return 1 if args.strict and cmp.differs else 0


def _check_players(paths: list, wanted: list, loader) -> None:
    """Each ``--player`` in one of the events, checked before anything is
    rated: the players of an event file as the plain parsers read them (a
    glance, no checks: the comparison reads it again, checked), of any other
    input (a TRF, a DBF report, a FIDE update) as its reader reads it.  The
    reading stops at the first file that completes the list."""
    missing = set(wanted)
    for path in paths:
        missing -= _player_ids(path, loader)
        if not missing:
            return
    raise InputError(f"--player {', '.join(p for p in wanted if p in missing)}: "
                     "in none of the events")


def _player_ids(path, loader) -> set:
    from pathlib import Path

    from uschess.apps.replay import load_item
    from uschess.io.eventfile import MAX_FILE_BYTES
    from uschess.io.fide_file import FideUpdate
    from uschess.io.textdata import peek_top_level, read_limited
    suffix = Path(path).suffix.lower()
    if suffix in (".json", ".yaml", ".yml"):
        data = peek_top_level(read_limited(path, MAX_FILE_BYTES, "file"), ("sections", "kind"),
                              json_format=suffix == ".json")
        if isinstance(data, dict) and "kind" not in data and isinstance(data.get("sections"), list):
            return {str(pl["id"]) for sec in data["sections"] if isinstance(sec, dict)
                    for pl in (sec.get("players") or ()) if isinstance(pl, dict) and "id" in pl}
    item = load_item(path, loader)
    if isinstance(item, FideUpdate):
        return {item.player_id}
    return {pl.id for sec in item.sections for pl in sec.players}
