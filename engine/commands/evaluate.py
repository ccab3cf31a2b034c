"""``uschess evaluate HISTORY... --rules RULES [--rules RULES ...]``: which
version of the rules predicts results better (see :mod:`uschess.apps.evaluate`)."""

from __future__ import annotations

import argparse
import time

from uschess.apps.compare import parse_rules_spec
from uschess.apps.evaluate import evaluate, find_truth, format_mean, format_text
from uschess.calendar.rulebook import RuleBook
from uschess.commands.common import (Console, add_examples, add_force_option, input_path,
                                     load_event_arg, output_dir, print_json)
from uschess.commands.compare import RULES_HELP
from uschess.errors import InputError

SYSTEMS = ("OTBR", "OTBQ", "OTBB", "OLR", "OLQ", "OLB")
#: Files --plot-dir receives.
PLOT_STEMS = ("calibration", "drift")

EPILOG = """\
Each version replays the whole history (events in order of end date, start
date and id, each player's record carried into their next event) and every
rated game is scored by the two players' ratings before the event: log-loss
and Brier score of sec. 4.2's winning expectancy, calibration by rating
difference, drift of a fixed cohort and of the pool, and, when the history
holds truth.csv (uschess generate), error against the true strengths.  The
versions are ranked by log-loss, with paired bootstrap intervals over events
for the differences from the first version.
"""


def register(sub) -> None:
    p = sub.add_parser("evaluate", help="score rule versions by how well their ratings predict",
                       description="Replay a history under each version of the rules and score "
                                   "every rated game by the pre-event ratings.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("history", nargs="+", metavar="HISTORY",
                   help="event files or directories of them (a directory's truth.csv is used)")
    p.add_argument("--rules", action="append", required=True, metavar="RULES",
                   help=f"a version to evaluate (repeatable; the first is the reference). {RULES_HELP}")
    p.add_argument("--truth", metavar="FILE",
                   help="true strengths (truth.csv of 'uschess generate'; - for standard "
                        "input); default: truth.csv in a HISTORY directory")
    p.add_argument("--drift-system", choices=SYSTEMS, default="OTBR",
                   help="the system whose drift to follow (default OTBR)")
    p.add_argument("--players", metavar="FILE", help="players file with member data (DBF/TRF input)")
    p.add_argument("--json", action="store_true", help="print everything as JSON")
    p.add_argument("--plot-dir", metavar="DIR",
                   help="write calibration.png/.svg and drift.png/.svg to DIR")
    add_force_option(p)
    add_examples(p,
                 "uschess evaluate hist --rules baseline "
                 "--rules reform:fixtures/reforms/b-stays-14.yaml")
    p.set_defaults(func=run)


def load_history(paths, truth_file=None, players=None):
    """The events (and FIDE updates) of HISTORY arguments and the true
    strengths (or None); ``truth_file`` ``-`` is standard input."""
    from uschess.apps.generate import read_truth
    from uschess.apps.replay import item_id, load_item
    from uschess.commands.replay import expand
    truth_path = input_path(truth_file, what="--truth") if truth_file else find_truth(paths)
    truth = read_truth(truth_path) if truth_path else None
    files = expand(list(paths))
    events = [load_item(path, lambda p: load_event_arg(p, players)) for path in files]
    seen: dict = {}
    for path, event in zip(files, events):  # as a replay refuses it: rated twice otherwise
        try:
            eid = item_id(event)
        except InputError:
            continue  # an event with no id: nothing to match
        if eid in seen:
            raise InputError(f"event id {eid} is given twice: {seen[eid]} and {path}")
        seen[eid] = path
    return events, truth


def run(args) -> int:
    book = RuleBook.load()
    # Everything the user gave is checked before anything is rated or written.
    sides = [parse_rules_spec(spec, book=book, what="--rules", input_path=input_path)
             for spec in args.rules]
    if len({s.spec for s in sides}) < len(sides):
        raise InputError("--rules: the same version is given twice")
    if args.plot_dir is not None:
        from uschess.apps.plots import FORMATS, require_matplotlib
        output_dir(args.plot_dir, what="plots", force=args.force, option="--plot-dir",
                   names=[f"{stem}.{fmt}" for stem in PLOT_STEMS for fmt in FORMATS])
        require_matplotlib()
    events, truth = load_history(args.history, args.truth, args.players)
    started = time.monotonic()

    console = Console.of(args)

    def progress(vs):
        console.note(f"evaluated {vs.spec}: {vs.overall.n} player-games, log-loss "
                     f"{format_mean(vs.overall.means()['log_loss'], 5)} "
                     f"({time.monotonic() - started:.1f} s)")

    result = evaluate(events, sides, truth=truth, drift_system=args.drift_system, book=book,
                      progress=progress)
    data = result.as_dict()
    if args.plot_dir is not None:
        from uschess.apps.plots import plot_calibration, plot_drift
        specs = " vs ".join(args.rules)
        written = plot_calibration(data["versions"], args.plot_dir,
                                   title=f"Calibration: {specs} ({len(events)} events)")
        written += plot_drift(data["versions"], args.plot_dir,
                              title=f"Drift in {args.drift_system}: {specs}")
        for path in written:
            console.wrote(path)
    if args.json:
        print_json(data)
    else:
        print(format_text(result), end="")
    return 0
