"""``uschess sweep HISTORY... --vary PARAM=V1,V2,...``: evaluate every
combination of reform values on a Dask cluster (see :mod:`uschess.apps.sweep`)."""

from __future__ import annotations

import argparse
import functools
import os
import sys
from typing import Optional

from uschess.apps.evaluate import Tally, format_mean, format_ranking
from uschess.apps.sweep import (ResultsFile, SweepHistory, combinations, histories_fingerprint,
                                parse_from, parse_vary, sweep_histories)
from uschess.apps.sweep_across import across
from uschess.calendar.rulebook import RuleBook
from uschess.commands.common import (STDIO, Console, add_examples, add_progress_option,
                                     input_path, print_json)
from uschess.commands.evaluate import SYSTEMS, load_history
from uschess.errors import InputError

EPILOG = """\
Each combination of values is a reform over the baseline from --from (by
default each parameter's first dated value, so the whole history); the
baseline and every combination are evaluated as 'uschess evaluate' would, one
Dask task each.  Without --scheduler a local cluster of --workers processes
runs on this machine; with --scheduler tcp://HOST:8786 the tasks go to that
cluster (its workers need this package installed; the history is sent to
them).  With --results FILE every finished combination is kept in FILE and a
rerun skips it.  A history 'uschess generate' writes is drawn from the record's
calibration unless it was asked --uncalibrated: the figures of a sweep are
those of histories shaped like the record (docs/findings-calibration.md).

With --each, every HISTORY is a history of its own (a directory 'uschess
generate' wrote, with its truth.csv): every combination is evaluated on each,
and each version's difference from the baseline is given over the histories,
with a 95% interval from their spread.  One history's intervals say how its
answer varies with its events, not with the players' careers: two histories
of two seeds can disagree beyond them, so a committee's answer is one found
over several seeds and checked on others.
"""


def register(sub) -> None:
    p = sub.add_parser("sweep", help="evaluate every combination of reform values on a cluster",
                       description="Evaluate the baseline and every combination of values of "
                                   "the varied parameters, each as a reform over the baseline, "
                                   "as independent tasks on Dask distributed.",
                       epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("history", nargs="+", metavar="HISTORY",
                   help="event files or directories of them (a directory's truth.csv is used)")
    p.add_argument("--vary", action="append", required=True, metavar="PARAM=V1,V2,...",
                   help="a parameter of the rule book and its values (repeatable: every "
                        "combination is evaluated)")
    p.add_argument("--from", dest="start", metavar="DATE",
                   help="the reforms take effect on DATE (default: each parameter's first date)")
    add_cluster_options(p, workers=2)
    add_progress_option(p)
    p.add_argument("--shared-files", action="store_true",
                   help="the workers of --scheduler see the history's files at the same paths: "
                        "each reads them instead of receiving the history (always so for the "
                        "local cluster)")
    p.add_argument("--results", metavar="FILE",
                   help="keep finished combinations in FILE (JSON) and skip them on a rerun")
    p.add_argument("--truth", metavar="FILE",
                   help="true strengths (- for standard input; default: a directory's truth.csv)")
    p.add_argument("--drift-system", choices=SYSTEMS, default="OTBR",
                   help="the system whose drift to follow (default OTBR)")
    p.add_argument("--each", action="store_true",
                   help="every HISTORY is a history of its own (two or more): the answer is "
                        "given over them, with an interval from their spread")
    p.add_argument("--json", action="store_true", help="print the evaluation as JSON")
    add_examples(p,
                 "uschess sweep hist --vary bonus_multiplier=10,14 --results sweep.json",
                 "uschess sweep --each hist uncalibrated --vary bonus_multiplier=6,14")
    p.set_defaults(func=run)


#: A local cluster's workers at most, per core (each is a process).
MAX_WORKERS_PER_CORE = 8
#: The longest wait for a scheduler or workers, in seconds.
MAX_TIMEOUT = 86_400.0


def add_cluster_options(p, *, workers: Optional[int]) -> None:
    """--scheduler, --workers (default ``workers``; None: the command's
    choice, one per core) and --timeout: where the tasks of a command run
    (``sweep``, ``audit DIR``)."""
    p.add_argument("--scheduler", metavar="ADDRESS",
                   help="the scheduler of an existing Dask cluster (default: a local cluster)")
    p.add_argument("--workers", type=int, default=workers, metavar="N",
                   help="worker processes of the local cluster ("
                        + (f"default {workers})" if workers else "default: one per core)"))
    p.add_argument("--timeout", type=float, default=20.0, metavar="SECONDS",
                   help="how long to try to reach --scheduler (default 20)")


def check_cluster_options(args) -> None:
    """Refuse a cluster option out of bounds (see :func:`add_cluster_options`)
    before anything is read or run."""
    if args.scheduler is not None and not args.scheduler.strip():
        raise InputError("--scheduler: give the scheduler's address (host:port), or leave "
                         "the option out for a local cluster")
    most = MAX_WORKERS_PER_CORE * (os.cpu_count() or 1)
    if not 1 <= args.workers <= most:
        raise InputError(f"--workers: 1 to {most} ({MAX_WORKERS_PER_CORE} per core of this "
                         "machine: a local cluster's workers are processes here)")
    if not 0 < args.timeout <= MAX_TIMEOUT:
        raise InputError(f"--timeout: a number of seconds above 0, at most {MAX_TIMEOUT:g} "
                         "(a day)")


def run(args) -> int:
    book = RuleBook.load()
    # Every reform is built and validated before anything is read or run.
    start = parse_from(args.start)
    combos = combinations([parse_vary(v) for v in args.vary], start, book=book)
    check_cluster_options(args)
    if args.results == STDIO:
        raise InputError("--results: the results file is read and rewritten as the sweep goes: "
                         "name a file")
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        raise InputError("sweep needs Dask distributed: pip install 'uschess-ratings[cluster]'")
    if args.each and len(args.history) < 2:
        raise InputError("--each: give two histories or more (each a directory of its own)")
    if args.each and args.truth:
        raise InputError("--each: each history's truth is its directory's truth.csv; "
                         "--truth names one for all")
    console = Console.of(args)
    histories = _histories(args, console)
    results = ResultsFile(args.results, histories_fingerprint(histories),
                          {"from": start.isoformat() if start else None,
                           "drift_system": args.drift_system})
    where = args.scheduler or f"a local cluster of {args.workers} worker(s)"

    bars: list = []  # the versions' progress bar, once the versions to run are known

    def started(todo, kept):
        if not console.quiet:
            on = f" on each of {len(histories)} histories" if args.each else ""
            print(f"sweep: {len(combos)} versions (baseline and {len(combos) - 1} combinations)"
                  + on + (f", {len(kept)} already in {args.results}" if kept else "")
                  + f"; {len(todo)} to run on {where}", file=sys.stderr)
        bars.append(console.progress(total=len(todo), unit="version", desc="sweep",
                                     force=args.progress))

    def progress(done, total, key, out):
        if not console.quiet:
            overall = Tally.from_dict(out["state"]["overall"]).means()
            if args.each:  # '2/bonus_multiplier=6': the second history's
                place, _, combo = key.partition("/")
                key = f"{histories[int(place) - 1].name}: {combo}"
            say(f"[{done}/{total}] {key}: log-loss {format_mean(overall['log_loss'], 5)}, "
                f"{overall['n']} player-games, {out['seconds']:.1f} s "
                f"({out['cpu_seconds']:.1f} s CPU)")
        for bar in bars:
            bar.update(1)

    def say(line: str) -> None:
        """A line on standard error, above the bar where one is shown."""
        write = getattr(bars[0], "write", None) if bars else None
        if write is not None:
            write(line, file=sys.stderr)
        else:
            print(line, file=sys.stderr)

    try:
        out = sweep_histories(histories, combos, results=results, drift_system=args.drift_system,
                              scheduler=args.scheduler, workers=args.workers,
                              timeout=args.timeout, started=started, progress=progress)
    except KeyboardInterrupt:
        total = len(combos) * len(histories)
        kept = len(results.done)
        raise KeyboardInterrupt(
            f"{kept} of {total} versions finished and kept in {args.results}; run the "
            "same command again to resume" if args.results else
            f"{kept} of {total} versions had finished; give --results FILE to keep "
            "finished versions for a rerun")
    finally:
        for bar in bars:
            bar.close()
    _print(args, combos, histories, out)
    return 0


def _histories(args, console) -> list[SweepHistory]:
    """The history (or, with --each, every history) of the arguments, each
    with a reader the workers call where they see the files."""
    # - (standard input) read here, once: the workers read the copy
    paths = [input_path(path) for path in args.history]
    truth_file = input_path(args.truth, what="--truth") if args.truth else None
    shared = args.scheduler is None or args.shared_files
    groups = [(str(p), [p]) for p in paths] if args.each else [("history", paths)]
    out = []
    for name, group in groups:
        events, truth = load_history(group, truth_file, warn=console.warn)
        out.append(SweepHistory(name, events, truth, functools.partial(
            load_history, group, truth_file) if shared else None))
    return out


def _print(args, combos, histories, results) -> None:
    """The evaluation (one history), or each history's and the answer over
    them (--each), as text or JSON."""
    if not args.each:
        if args.json:
            print_json(results[0].as_dict())
            return
        data = results[0].evaluation.as_dict()
        for c in combos:
            print(f"{c.key}: {c.side.label}")
        print()
        print("\n".join(format_ranking(data["ranking"], data["reference"])))
        return
    evaluations = [r.evaluation.as_dict() for r in results]
    answer = across([h.name for h in histories], [e["ranking"] for e in evaluations],
                    combos[0].key)
    if args.json:
        print_json({"histories": [dict(r.as_dict(), name=h.name)
                                  for h, r in zip(histories, results)],
                    "across": answer.as_dict()})
        return
    for c in combos:
        print(f"{c.key}: {c.side.label}")
    print()
    print("\n".join(answer.format()))
