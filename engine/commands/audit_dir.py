"""``uschess audit DIR``: audit every published page under a directory, in
parallel and resumable (see :mod:`uschess.apps.audit_dir`)."""

from __future__ import annotations

import os
from pathlib import Path

from uschess.commands.common import (STDIO, Console, HiddenBar, output_file, print_json,
                                     rating_options)
from uschess.commands.sweep import add_cluster_options, check_cluster_options
from uschess.errors import InputError

EPILOG = """\
PUBLISHED may be a directory: every page under it (not hidden; not .md, .tsv,
.csv, images or .jsonl) is audited as 'uschess audit PAGE' audits it, one
task a page, on a local Dask cluster of --workers processes (default: one per
core; one page at a time where Dask is not installed) or on the cluster of
--scheduler (its workers must see DIR at the same path).  A page that cannot
be read or audited is listed with its one-line reason and the run goes on.
--read-only reads every page and lists it, read or refused,
without auditing.  With --results FILE each finished page is kept in FILE (JSON lines) as it
finishes; the same command run again skips the pages kept (a page whose
bytes changed is audited again), even after a kill.  The summary adds up
every count of the pages' reports; --html FILE writes an index of the pages
to FILE and each page's report into the folder FILE's name without its
suffix plus '-pages' beside it.
"""

#: Options of a single page that a directory's audit cannot take.
PAGE_ONLY = (("--start", "start"), ("--end", "end"), ("--time-control", "time_control"),
             ("--system", "system"), ("--adult", "adult"), ("--section", "section"),
             ("--name", "name"), ("--all", "all"), ("--db", "db"), ("--event", "event"))
#: Options of a directory's audit only.
DIR_ONLY = (("--results", "results"), ("--scheduler", "scheduler"), ("--workers", "workers"),
            ("--read-only", "read_only"))


def add_dir_options(p) -> None:
    """The options of ``audit DIR`` (the cluster options are ``sweep``'s)."""
    g = p.add_argument_group("a directory of pages")
    g.add_argument("--results", metavar="FILE",
                   help="with DIR: keep each finished page in FILE (JSON lines) and skip the "
                        "pages kept on a rerun")
    g.add_argument("--read-only", action="store_true",
                   help="with DIR: read every page and list it read or refused, without "
                        "auditing it")
    add_cluster_options(g, workers=None)


def refuse_dir_options(args) -> None:
    """A page or a store audit takes none of :data:`DIR_ONLY`."""
    used = [opt for opt, dest in DIR_ONLY if getattr(args, dest, None)]
    if used:
        raise InputError(f"{', '.join(used)}: only for a directory of pages (audit DIR)")


def _dask_available() -> bool:
    try:
        import dask.distributed  # noqa: F401
    except ImportError:
        return False
    return True


def _settings(args, options) -> dict:
    """What a results file's pages were audited with: a rerun must match."""
    return {"read_only": bool(args.read_only), "tolerance": args.tolerance,
            "as_rated": bool(args.as_rated),
            "rules_on": args.rules_on.isoformat() if args.rules_on else None,
            "known_on": args.known_on.isoformat() if args.known_on else None,
            "edition": args.edition, "readings": dict(sorted(options.readings.items())),
            "reform": options.reform.name if options.reform is not None else None}


def run_dir(args) -> int:
    from uschess.apps.audit_dir import PageResults, format_index, pages_under, run_pages

    console = Console.of(args)
    used = [opt for opt, dest in PAGE_ONLY if getattr(args, dest, None)]
    if used:
        raise InputError(f"{', '.join(used)}: for one page, not a directory of pages")
    if args.workers is None:
        args.workers = os.cpu_count() or 1
    check_cluster_options(args)
    if args.results == STDIO:
        raise InputError("--results: the results file is read and appended to as the run "
                         "goes: name a file")
    options = rating_options(args)
    html = (output_file(args.html, what="HTML index", force=args.force, option="--html",
                        stdout_ok=False) if args.html else None)
    reports = None
    if html is not None:
        reports = html.path.with_name(html.path.stem + "-pages")
        if reports.exists() and not reports.is_dir():
            raise InputError("exists and is not a directory", file=reports)
    workers = args.workers
    if args.scheduler is None and workers > 1 and not _dask_available():
        console.note("Dask distributed is not installed (pip install "
                     "'uschess-ratings[cluster]'): the pages are audited one at a time")
        workers = 1
    root = Path(args.published)
    jobs = pages_under(root, exclude=[html.path, reports] if html is not None else ())
    if not jobs:
        raise InputError("holds no page to audit", file=root)
    results = PageResults(args.results, _settings(args, options))
    if results.dropped:
        console.note(f"{args.results}: its last line was cut short (a run stopped while "
                     "writing it): that page is audited again")
    if reports is not None:
        reports.mkdir(exist_ok=True)
    where = (f"on the cluster at {args.scheduler}" if args.scheduler else
             f"on {workers} local worker processes" if workers > 1 else "in this process")
    with console.progress(total=len(jobs), unit="page", desc="audit",
                          force=bool(args.progress)) as bar:
        def started(todo: int, kept: int) -> None:
            bar.update(kept)
            if todo and isinstance(bar, HiddenBar):  # the bar, when shown, says it
                console.note(f"{todo} of {todo + kept} pages to audit {where}")

        def progress(record: dict) -> None:
            bar.update(1)
            if record["status"] != "audited":
                console.detail(f"{record['status']}: {record.get('error', '')}")
        try:
            result = run_pages(root, jobs, results=results, tolerance=args.tolerance,
                               options=options, as_rated=bool(args.as_rated),
                               read_only=bool(args.read_only), reports=reports,
                               scheduler=args.scheduler, workers=workers, timeout=args.timeout,
                               started=started, progress=progress)
        except KeyboardInterrupt:
            raise KeyboardInterrupt(
                f"{len(results.done)} pages kept in {args.results}; run the same command "
                "again to resume" if args.results else
                "give --results FILE to keep finished pages for a rerun")
        finally:
            results.close()
    if html is not None:
        html.write(format_index(result, reports), console)
    if args.json:
        print_json(result.as_dict())
    else:
        lines = result.summary_lines()
        print("\n".join(lines))
        for r in result.records:
            if r["status"] in ("refused", "failed"):
                print(f"{r['status']}: {r['error']}")
            elif args.read_only or args.verbose:
                print(f"{r['status']}: {r['page']}: {r['summary']}")
    bad = any(r["status"] not in ("audited", "read") or r.get("counts", {}).get("reproduced")
              != r.get("counts", {}).get("total") for r in result.records)
    return 1 if args.strict and bad else 0
