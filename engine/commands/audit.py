"""``uschess audit PUBLISHED``: re-rate published results and explain every
rating that is not reproduced (see :mod:`uschess.apps.audit`)."""

from __future__ import annotations

import argparse
import math

from uschess.apps.audit import (audit, audit_store, format_html, format_store_html, format_store_text,
                     format_text, load_published)
from uschess.io.files import write_text_atomic as write_text
from uschess.errors import InputError
from uschess.commands.common import date_arg, print_json, reading_arg

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
ratings it computed (the store keeps no games: only the floor cause is tested).
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
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("published", nargs="?",
                   help="MSA crosstable (.txt) or published-results file (.json/.yaml)")
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
    p.add_argument("--known-on", type=date_arg, metavar="DATE",
                   help="use only the rules known on DATE (decided_on dates)")
    p.add_argument("--reading", type=reading_arg, action="append", default=[], metavar="CONFLICT=READING",
                   help="follow another reading of a recorded conflict")
    p.add_argument("--html", metavar="FILE", help="also write a self-contained HTML report to FILE")
    p.add_argument("--json", action="store_true",
                   help='print {"reproduced", "total", "players": [{id, system, published, computed, '
                        'diff, causes, ...}], ...}')
    p.add_argument("--all", action="store_true", help="list every player, reproduced or not")
    st = p.add_argument_group("a ratings store")
    st.add_argument("--db", metavar="FILE",
                    help="audit the published ratings recorded in a ratings store (instead of PUBLISHED)")
    st.add_argument("--event", metavar="ID", help="with --db: only this event")
    p.add_argument("--strict", action="store_true",
                   help="exit with status 1 when any published rating is not reproduced")
    p.set_defaults(func=run)


def run(args) -> int:
    if args.db:
        return _run_store(args)
    if args.event:
        raise InputError("--event selects an event of a store: give --db FILE")
    if not args.published:
        raise InputError("give the published results (an MSA crosstable or a JSON file), or --db FILE")
    adult = {pid.strip() for item in args.adult for pid in item.split(",") if pid.strip()}
    bad = sorted(pid for pid in adult if not pid.isdigit())
    if bad:
        raise InputError(f"--adult {bad[0]!r} is not a member id")
    published = load_published(args.published, start=args.start, end=args.end,
                               time_control=args.time_control, system=args.system,
                               adult=adult, section=args.section, name=args.name)
    known_on = args.known_on
    if args.as_rated:
        if known_on is not None:
            raise InputError("--as-rated and --known-on both name a knowledge date: give one")
        known_on = published.rated_on
        if known_on is None:
            raise InputError("the page states no Rated date: give --known-on DATE",
                             file=args.published)
    result = audit(published, tolerance=args.tolerance, known_on=known_on,
                   readings=dict(args.reading))
    if args.html:
        write_text(args.html, format_html(result))
    if args.json:
        print_json(result.as_dict())
    else:
        print(format_text(result, show_all=args.all), end="")
    return 1 if args.strict and result.mismatches else 0


def _run_store(args) -> int:
    used = [opt for opt, val in (("PUBLISHED", args.published), ("--start", args.start),
                                 ("--end", args.end), ("--time-control", args.time_control),
                                 ("--system", args.system), ("--known-on", args.known_on),
                                 ("--adult", args.adult), ("--section", args.section),
                                 ("--name", args.name), ("--as-rated", args.as_rated),
                                 ("--reading", args.reading), ("--all", args.all)) if val]
    if used:
        raise InputError(f"--db audits what the store computed: {', '.join(used)} cannot be used with it")
    result = audit_store(args.db, tolerance=args.tolerance, event=args.event)
    if args.html:
        write_text(args.html, format_store_html(result))
    if args.json:
        print_json(result.as_dict())
    else:
        print(format_store_text(result), end="")
    return 1 if args.strict and result.rows else 0
