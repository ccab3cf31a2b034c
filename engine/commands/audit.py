"""``uschess audit PUBLISHED``: re-rate published results and explain every
rating that is not reproduced (see :mod:`uschess.apps.audit`)."""

from __future__ import annotations

import argparse
import math
from pathlib import Path

from uschess.apps.audit import (audit, audit_store, format_html, format_store_html, format_store_text,
                     format_text, load_published)
from uschess.commands.audit_dir import EPILOG as DIR_EPILOG, add_dir_options, refuse_dir_options, \
    run_dir
from uschess.errors import InputError
from uschess.commands.common import (Console, add_db_option, add_examples, add_force_option,
                                     add_progress_option, add_rules_options, date_arg, db_target,
                                     input_path, one_stdout, output_file, print_json,
                                     rating_options)

EPILOG = """\
PUBLISHED is a published crosstable page in any layout: the MSA page saved as
HTML (one section or all sections) or copied to text, a bare MSA table, the
crosstable US Chess prepares for the TD, or 'uschess export crosstable' output;
or a JSON file: the event file's "event" and "sections" plus
"published": [{"id", "system", "post", "pre"?, "section"?}].  What the page
states (dates, time control, rating systems, K factor, type) is used; the
options below fill only what it does not state, and a page value wins over a
different option, with a note.  A published post
is reproduced when the computed one is within --tolerance; for the others the
audit shows the calculation and the causes whose variants reproduce it: a
floor, another bonus multiplier, the other effective-games formula, rounded
pre-event ratings, an all-wins/all-losses history, another reading of a
conflict, the rules as known when the event ended.

--db FILE audits the published ratings recorded in a ratings store against the
ratings it computed (the store keeps no games: only the floor cause is tested);
without PUBLISHED and --db, the store named by USCHESS_DB is audited.
"""


def tolerance_arg(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        value = float("nan")
    if not math.isfinite(value) or value < 0:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of points >= 0")
    return value


def register(sub) -> None:
    p = sub.add_parser("audit", help="re-rate published results and explain the differences",
                       description="Re-rate a published crosstable under the rules in force and "
                                   "report every published rating that is not reproduced.",
                       epilog=EPILOG + "\n" + DIR_EPILOG,
                       formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("published", nargs="?",
                   help="a published crosstable page (HTML or text, any layout) or a "
                        "published-results file (.json/.yaml); - for standard input")
    g = p.add_argument_group("a page (used only where the page does not state them)")
    g.add_argument("--start", type=date_arg, metavar="DATE",
                   help="the section's start date (a bare table prints none)")
    g.add_argument("--end", type=date_arg, metavar="DATE", help="the section's end date (default: start)")
    g.add_argument("--time-control", metavar="TC",
                   help="the section's time control (default: one rated in the systems shown)")
    g.add_argument("--system", metavar="SYSTEM", help="the system shown (default: from the R:/Q:/B: label)")
    g.add_argument("--adult", action="append", default=[], metavar="ID[,ID...]",
                   help="an unrated player known to be an adult (initialized at 1300, sec. 2.3)")
    g.add_argument("--section", metavar="N|NAME", help="audit only this section of the page")
    g.add_argument("--name", metavar="NAME", help="the event's name, when the page prints none")
    g.add_argument("--as-rated", action="store_true",
                   help="rate with the rules as known on the page's Rated (or Re-Rated) date")
    p.add_argument("--tolerance", type=tolerance_arg, default=1.0, metavar="POINTS",
                   help="largest difference still counted as reproduced (default 1: published "
                        "pre-event ratings are rounded)")
    add_rules_options(p)
    p.add_argument("--html", metavar="FILE",
                   help="also write a self-contained HTML report to FILE (- for standard output)")
    add_force_option(p)
    p.add_argument("--json", action="store_true",
                   help='print {"reproduced", "total", "players": [{id, system, published, computed, '
                        'diff, causes, ...}], ...}')
    p.add_argument("--all", action="store_true", help="list every player, reproduced or not")
    st = p.add_argument_group("a ratings store")
    add_db_option(st, what="audit the published ratings recorded in this store (instead of "
                           "PUBLISHED)")
    st.add_argument("--event", metavar="ID", help="with --db: only this event")
    add_progress_option(st, what="the progress (of a page: the time taken so far)")
    p.add_argument("--strict", action="store_true",
                   help="exit with status 1 when any published rating is not reproduced")
    add_dir_options(p)
    add_examples(p,
                 "uschess audit fixtures/audit/wfcc15-2024-b14.json",
                 "uschess audit fixtures/audit/tournamentinfo-b14.json --all --html audit.html")
    p.set_defaults(func=run)


def _outputs(args):
    """The HTML report's file (checked before anything runs) and whether the
    text or JSON result still goes to standard output."""
    html = (output_file(args.html, what="HTML report", force=args.force, option="--html")
            if args.html else None)
    if html is not None and html.stdout:
        one_stdout(("--html -", True), ("--json", args.json))
    return html


def run(args) -> int:
    if args.published and args.published != "-" and Path(args.published).is_dir():
        return run_dir(args)
    refuse_dir_options(args)
    console = Console.of(args)
    if args.db or (not args.published and db_target(args, required=False)):
        return _run_store(args, console)
    if args.event:
        raise InputError("--event selects an event of a store: give --db FILE")
    if not args.published:
        raise InputError("give the published results (an MSA crosstable or a JSON file), or --db FILE")
    options = rating_options(args)
    html = _outputs(args)
    adult = {pid.strip() for item in args.adult for pid in item.split(",") if pid.strip()}
    bad = sorted(pid for pid in adult if not pid.isdigit())
    if bad:
        raise InputError(f"--adult {bad[0]!r} is not a member id")
    with console.working(f"auditing {args.published}", force=args.progress):
        published = load_published(input_path(args.published), start=args.start, end=args.end,
                                   time_control=args.time_control, system=args.system,
                                   adult=adult, section=args.section, name=args.name)
        if args.as_rated:
            if options.known_on is not None:
                raise InputError("--as-rated and --known-on both name a knowledge date: give one")
            options.known_on = published.rated_on
            if options.known_on is None:
                raise InputError("the page states no Rated date: give --known-on DATE",
                                 file=args.published)
        result = audit(published, tolerance=args.tolerance, options=options)
    if html is not None:
        html.write(format_html(result), console)
    if args.json:
        print_json(result.as_dict())
    elif html is None or not html.stdout:
        print(format_text(result, show_all=args.all), end="")
    return 1 if args.strict and result.mismatches else 0


def _run_store(args, console: Console) -> int:
    used = [opt for opt, val in (("PUBLISHED", args.published), ("--start", args.start),
                                 ("--end", args.end), ("--time-control", args.time_control),
                                 ("--system", args.system), ("--rules-on", args.rules_on),
                                 ("--known-on", args.known_on), ("--edition", args.edition),
                                 ("--reading", args.reading), ("--reform", args.reform),
                                 ("--adult", args.adult), ("--section", args.section),
                                 ("--name", args.name), ("--as-rated", args.as_rated),
                                 ("--all", args.all)) if val]
    if used:
        raise InputError(f"--db audits what the store computed: {', '.join(used)} cannot be used with it")
    html = _outputs(args)
    with console.progress(unit="rating", desc="audit", force=args.progress) as bar:
        def progress(done: int, total: int) -> None:
            bar.total = total
            bar.update(done - bar.n)
        result = audit_store(db_target(args), tolerance=args.tolerance, event=args.event,
                             progress=progress)
    if html is not None:
        html.write(format_store_html(result), console)
    if args.json:
        print_json(result.as_dict())
    elif html is None or not html.stdout:
        print(format_store_text(result), end="")
    return 1 if args.strict and result.rows else 0
