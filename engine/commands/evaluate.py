"""``uschess evaluate HISTORY... --rules RULES [--rules RULES ...]``: which
version of the rules predicts results better (see :mod:`uschess.apps.evaluate`)."""

from __future__ import annotations

import argparse
import sys
import time

from uschess.apps.compare import parse_rules_spec
from uschess.apps.evaluate import evaluate, find_truth, format_mean, format_text
from uschess.calendar.rulebook import RuleBook
from uschess.commands.common import (Console, add_examples, add_force_option, add_progress_option,
                                     input_path, load_event_arg, output_dir, output_file,
                                     print_json)
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

With --published, HISTORY is real published crosstable pages (files, or
directories searched with their subdirectories) and no --rules is given:
every rated game is scored by the pre-event ratings the pages print (sec.
4.2's We; an unrated player at the rules' step-1 initial rating, shown
apart), with 95% intervals over events, by status, system, era, event type
and band, draws apart, and against a logistic curve fitted on the same games
in cross-validation.  A page that cannot be read is named and left out.
"""


def register(sub) -> None:
    p = sub.add_parser("evaluate", help="score rule versions by how well their ratings predict",
                       description="Replay a history under each version of the rules and score "
                                   "every rated game by the pre-event ratings.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("history", nargs="+", metavar="HISTORY",
                   help="event files or directories of them (a directory's truth.csv is used)")
    p.add_argument("--rules", action="append", metavar="RULES",
                   help=f"a version to evaluate (repeatable; the first is the reference). {RULES_HELP}")
    p.add_argument("--truth", metavar="FILE",
                   help="true strengths (truth.csv of 'uschess generate'; - for standard "
                        "input); default: truth.csv in a HISTORY directory")
    p.add_argument("--drift-system", choices=SYSTEMS, default="OTBR",
                   help="the system whose drift to follow (default OTBR)")
    p.add_argument("--players", metavar="FILE", help="players file with member data (DBF/TRF input)")
    p.add_argument("--json", action="store_true", help="print everything as JSON")
    p.add_argument("--plot-dir", metavar="DIR",
                   help="write calibration.png/.svg and drift.png/.svg to DIR (with "
                        "--published: calibration.png/.svg)")
    pub = p.add_argument_group("published pages (--published)")
    pub.add_argument("--published", action="store_true",
                     help="HISTORY is published crosstable pages: score the printed ratings")
    pub.add_argument("--workers", type=int, default=None, metavar="N",
                     help="local worker processes reading the pages (default: one per core)")
    pub.add_argument("--scheduler", metavar="ADDRESS",
                     help="read the pages on the Dask cluster at ADDRESS instead")
    pub.add_argument("--fit-generator", metavar="FILE",
                     help="also write the generator's calibration fitted to the pages to FILE "
                          "(what 'uschess generate --calibrated' draws from)")
    add_progress_option(pub)
    add_force_option(p)
    add_examples(p,
                 "uschess evaluate hist --rules baseline "
                 "--rules reform:fixtures/reforms/b-stays-14.yaml")
    p.set_defaults(func=run)


def load_history(paths, truth_file=None, players=None, warn=None):
    """The events (and FIDE updates) of HISTORY arguments and the true
    strengths (or None); ``truth_file`` ``-`` is standard input.  Records of
    the truth that match no player of an event of the history are refused
    when none matches (the truth of another history), else counted and said
    to ``warn`` (they are not scored)."""
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
    if truth:
        unmatched = unmatched_truth(events, truth)
        if unmatched == len(truth):
            raise InputError(f"none of its {len(truth):,} records matches a player of an event "
                             "of the history (the truth of another history?)", file=truth_path)
        if unmatched and warn is not None:
            warn(f"{truth_path}: {unmatched:,} of its {len(truth):,} records match no player of "
                 "an event of the history and are not scored")
    return events, truth


def unmatched_truth(events, truth: dict) -> int:
    """How many (event id, member id) keys of ``truth`` name no player of an
    event of ``events`` (FIDE updates have no truth)."""
    known = {(getattr(e, "id", None), p.id) for e in events
             for s in getattr(e, "sections", ()) for p in s.players}
    return sum(1 for key in truth if key not in known)


def run(args) -> int:
    if args.published:
        return run_published(args)
    for option in ("workers", "scheduler", "fit_generator"):
        if getattr(args, option) is not None:
            raise InputError(f"--{option.replace('_', '-')} reads published pages: give it "
                             "with --published")
    if not args.rules:
        raise InputError("give at least one --rules version to evaluate (or --published to "
                         "score the ratings printed on published pages)")
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
    console = Console.of(args)
    events, truth = load_history(args.history, args.truth, args.players, warn=console.warn)
    started = time.monotonic()

    with console.progress(total=len(sides), unit="version", desc="evaluate",
                          force=args.progress) as bar:
        def progress(vs):
            line = (f"evaluated {vs.spec}: {vs.overall.n} player-games, log-loss "
                    f"{format_mean(vs.overall.means()['log_loss'], 5)} "
                    f"({time.monotonic() - started:.1f} s)")
            write = getattr(bar, "write", None)  # above the bar where one is shown
            if write is not None and not console.quiet:
                write(f"uschess: {line}", file=sys.stderr)
            else:
                console.note(line)
            bar.update(1)

        result = evaluate(events, sides, truth=truth, drift_system=args.drift_system,
                          book=book, progress=progress)
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


#: Most local worker processes per core.
MAX_WORKERS_PER_CORE = 8


def run_published(args) -> int:
    """``evaluate --published PAGES``: the printed ratings scored."""
    import datetime as _dt
    import os

    from uschess.apps.calibration import format_published, score_published
    from uschess.apps.published_games import (default_workers, page_files, read_pages,
                                              unique_sections)
    for option in ("rules", "truth", "players"):
        if getattr(args, option):
            raise InputError(f"--{option.replace('_', '-')} is not used with --published: the "
                             "pages print the ratings scored")
    most = MAX_WORKERS_PER_CORE * (os.cpu_count() or 1)
    workers = default_workers() if args.workers is None else args.workers
    if not 1 <= workers <= most:
        raise InputError(f"--workers: 1 to {most} ({MAX_WORKERS_PER_CORE} per core)")
    if args.scheduler is not None and not args.scheduler.strip():
        raise InputError("--scheduler: give the scheduler's address (host:port)")
    if args.plot_dir is not None:
        from uschess.apps.plots import FORMATS, require_matplotlib
        output_dir(args.plot_dir, what="plots", force=args.force, option="--plot-dir",
                   names=[f"calibration.{fmt}" for fmt in FORMATS])
        require_matplotlib()
    fit = output_file(args.fit_generator, force=args.force, what="calibration",
                      suffixes=(".json",), stdout_ok=False,
                      option="--fit-generator") if args.fit_generator else None
    if "-" in args.history:
        raise InputError("--published reads page files and directories, not standard input")
    files = page_files(args.history)
    console = Console.of(args)
    with console.progress(total=len(files), unit="page", desc="evaluate",
                          force=args.progress) as bar:
        outcomes = read_pages(files, workers=workers, scheduler=args.scheduler,
                              progress=bar.update)
    skipped = [o.reason for o in outcomes if o.reason is not None]
    for reason in skipped:
        console.detail(f"left out: {reason}")
    if skipped:
        console.warn(f"{len(skipped)} of {len(files)} pages cannot be read or rated and are "
                     "left out (each with its reason in the report; -v lists them here)")
    kept, repeats = unique_sections(outcomes)
    games = [g for rec in kept for g in rec.games]
    if not games:
        raise InputError("no rated game on the pages given" + (
            f" ({len(skipped)} of {len(files)} could not be read)" if skipped else ""))
    book = RuleBook.load()
    editions = sorted(_dt.date.fromisoformat(k) for k in book.editions)
    score = score_published(games, editions, pages=len(files), skipped=skipped,
                            repeats=repeats)
    data = score.as_dict()
    if fit is not None:
        from uschess.apps.generator_fit import fit_generator, write_calibration
        command = "uschess evaluate --published " + " ".join(args.history)
        write_calibration(fit.path, fit_generator(kept, editions, source={
            "pages": args.history, "pages_read": len(files), "pages_left_out": len(skipped),
            "command": f"{command} --fit-generator FILE"}))
        console.wrote(fit.path, "generator calibration")
    if args.plot_dir is not None:
        from uschess.apps.plots import plot_published
        from pathlib import Path
        shown = (", ".join(Path(h).name for h in args.history) if len(args.history) <= 2
                 else f"{len(args.history)} paths")
        games = data["tables"]["overall"].get("all", {}).get("n", 0)
        for path in plot_published(data, args.plot_dir,
                                   title=f"Published pre-event ratings: {games:,} games "
                                         f"between rated players, {len(files)} pages ({shown})"):
            console.wrote(path)
    if args.json:
        print_json(data)
    else:
        print(format_published(score), end="")
    return 0
