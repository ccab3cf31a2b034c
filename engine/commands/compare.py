"""``uschess compare EVENTS... --a RULES --b RULES``: the same events under two
versions of the rules, player by player (see :mod:`uschess.apps.compare`)."""

from __future__ import annotations

import argparse
import sys

from uschess.apps.compare import compare, format_text, parse_rules_spec, to_csv
from uschess.io.files import write_text_atomic as write_text
from uschess.errors import InputError
from uschess.calendar.rulebook import RuleBook
from uschess.apps.replay import load_item
from uschess.commands.common import load_event_arg, print_json
from uschess.io.fide_file import FideUpdate

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
                   help="event files (.yaml/.yml/.json), DBF directories or .trf files")
    p.add_argument("--a", default="baseline", metavar="RULES",
                   help=f"rules of side A (default: baseline). {RULES_HELP}")
    p.add_argument("--b", required=True, metavar="RULES", help=f"rules of side B. {RULES_HELP}")
    p.add_argument("--players", metavar="FILE", help="players file with member data (DBF/TRF input)")
    p.add_argument("--json", action="store_true",
                   help='print {"players": [{id, system, event, a, b, diff, ...}], "summary": {...}}')
    p.add_argument("--csv", metavar="FILE", help="write one line per player and system to FILE")
    p.add_argument("--plot-dir", metavar="DIR",
                   help="write differences.png/.svg (and paths.png/.svg with --player) to DIR")
    p.add_argument("--player", action="append", default=[], metavar="ID",
                   help="a player whose rating path under A and B to plot (repeatable)")
    p.add_argument("--changed-only", action="store_true", help="list only players whose rating changed")
    p.add_argument("--independent", action="store_true",
                   help="rate each event from its own file (do not chain records between events)")
    p.set_defaults(func=run)


def run(args) -> int:
    book = RuleBook.load()
    # Everything the user gave is checked before anything is rated or written.
    side_a = parse_rules_spec(args.a, book=book, what="--a")
    side_b = parse_rules_spec(args.b, book=book, what="--b")
    # events in any format, and updates from foreign FIDE events, as a replay takes them
    events = [load_item(path, lambda p: load_event_arg(p, args.players)) for path in args.events]
    if args.player:
        if not args.plot_dir and not args.json:
            raise InputError("--player chooses rating paths to plot: give --plot-dir DIR (or --json)")
        known = {p.id for e in events if not isinstance(e, FideUpdate)
                 for s in e.sections for p in s.players}
        known |= {e.player_id for e in events if isinstance(e, FideUpdate)}
        missing = [pid for pid in args.player if pid not in known]
        if missing:
            raise InputError(f"--player {', '.join(missing)}: in none of the events")
    if args.plot_dir:
        from uschess.apps.plots import require_matplotlib
        require_matplotlib()

    cmp = compare(events, side_a, side_b, chain=not args.independent, book=book)

    if args.csv:
        write_text(args.csv, to_csv(cmp))
    if args.plot_dir:
        from uschess.apps.plots import plot_differences, plot_paths
        written = plot_differences([r.diff for r in cmp.rows if r.diff is not None], args.plot_dir,
                                   title=f"B - A: {args.b} vs {args.a}")
        if args.player:
            names = {r.id: r.name for r in cmp.rows}
            order = [(key, ev.end.isoformat()) for key, ev in cmp.events]
            written += plot_paths(cmp.paths(args.player), args.plot_dir, events=order, names=names,
                                  title=f"A = {args.a}, B = {args.b}")
        if not args.json:
            print("wrote " + ", ".join(str(w) for w in written), file=sys.stderr)
    if args.json:
        print_json(cmp.as_dict(args.player))
    else:
        print(format_text(cmp, changed_only=args.changed_only), end="")
    return 0
