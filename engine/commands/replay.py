"""``uschess replay EVENTS... --db FILE``: rate events, matches and FIDE
updates into a ratings store."""

from __future__ import annotations

import sys
from pathlib import Path

from uschess.errors import InputError
from uschess.apps.replay import replay
from uschess.io.store import Store
from uschess.commands.common import add_rules_options, print_json, rating_options

#: Disagreements printed on stderr (all of them are in the --json summary).
SHOW = 50
EVENT_SUFFIXES = (".json", ".yaml", ".yml", ".trf")


def register(sub) -> None:
    p = sub.add_parser("replay", help="rate events in date order into a ratings store",
                       description="Rate events and FIDE updates in order (end date, start "
                                   "date, id) into a ratings store, each from the players' state "
                                   "in the store; matches take their earlier matches from the "
                                   "store. One transaction per event: an interrupted run leaves "
                                   "whole events only; run it again with --skip-applied to resume.")
    p.add_argument("events", nargs="+", metavar="EVENT",
                   help="event files (YAML/JSON, TRF, DBF report directories), FIDE update files "
                        "(YAML/JSON with 'kind: fide-update'), or directories of these")
    p.add_argument("--db", required=True, metavar="FILE",
                   help="the store: a SQLite file (created if missing) or a postgresql:// URL")
    p.add_argument("--skip-applied", action="store_true",
                   help="skip events already in the store instead of refusing them")
    p.add_argument("--grant-floor-requests", action="store_true",
                   help="matches (sec. 7): grant every request to lower a floor by 100; the "
                        "lowered floor is kept in the store for later events")
    p.add_argument("--progress", action="store_true",
                   help="show a progress bar on stderr even when it is not a terminal")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_rules_options(p)
    p.set_defaults(func=run)


def _is_dbf_report(path: Path) -> bool:
    try:
        from uschess.io.formats.uscf_dbf import FILE_NAMES
    except ImportError:
        return False
    names = tuple(n.upper() for n in FILE_NAMES.values())
    return any(f.name.upper().endswith(names) for f in path.iterdir())


def expand(paths: list[str]) -> list[str]:
    """Files as given; a directory of DBF rating report files is one event,
    any other directory stands for the event files, FIDE update files and
    TRFs in it, except players files (``*.players.yaml``)."""
    out = []
    for raw in paths:
        path = Path(raw)
        if path.is_dir() and not _is_dbf_report(path):
            found = sorted(str(f) for f in path.iterdir()
                           if f.suffix.lower() in EVENT_SUFFIXES and f.is_file()
                           and not f.stem.lower().endswith(".players"))  # member data
            if not found:
                raise InputError("directory holds no event files (*.json, *.yaml, *.yml, "
                                 "*.trf) and no DBF rating report", file=path)
            out.extend(found)
        else:
            out.append(raw)
    return out


class ProgressBar:
    """A plain-text bar on stderr, redrawn at most five times a second."""

    def __init__(self, stream=None, width: int = 30):
        self.stream = stream or sys.stderr
        self.width = width
        self.last = -1.0
        self.drawn = False

    def __call__(self, done: int, total: int, games: int, seconds: float) -> None:
        if seconds - self.last < 0.2 and done != total:
            return
        self.last = seconds
        frac = done / total if total else 0.0
        filled = int(frac * self.width)
        rate = games / seconds if seconds > 0 else 0.0
        self.stream.write(f"\r[{'#' * filled}{'.' * (self.width - filled)}] {done}/{total} events"
                          f"  {games} player-games  {rate:,.0f}/s  {seconds:.1f}s ")
        self.stream.flush()
        self.drawn = True

    def finish(self) -> None:
        if self.drawn:
            self.stream.write("\n")
            self.stream.flush()


def run(args) -> int:
    files = expand(args.events)
    show = args.progress or sys.stderr.isatty()
    bar = ProgressBar() if show else None
    options = rating_options(args, trace=False)
    options.grant_floor_requests = args.grant_floor_requests
    with Store.open(args.db) as store:
        try:
            summary = replay(files, store, options, skip_applied=args.skip_applied,
                             progress=bar)
        finally:
            if bar:
                bar.finish()
    for d in summary.disagreements[:SHOW]:
        print(f"uschess: disagreement: {d}", file=sys.stderr)
    if len(summary.disagreements) > SHOW:
        print(f"uschess: ... and {len(summary.disagreements) - SHOW} more disagreements "
              "(all of them with --json)", file=sys.stderr)
    for w in summary.warnings:
        print(f"uschess: warning: {w}", file=sys.stderr)
    if args.json:
        print_json(summary.as_dict())
    else:
        print(summary.format(), end="")
    return 0
