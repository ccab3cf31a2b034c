"""``uschess replay EVENTS... --db FILE``: rate events, matches and FIDE
updates into a ratings store."""

from __future__ import annotations

import argparse
import os
from dataclasses import replace
from pathlib import Path, PurePath

from uschess.errors import InputError
from uschess.apps.replay import COMMIT_EVERY, event_id, replay
from uschess.io.store import Store
from uschess.commands.common import (Console, add_db_option, add_examples, add_progress_option,
                                     add_rules_options, db_target, input_path, load_event_input,
                                     print_json, rating_options)
from uschess.io.formats.member_data import NAMES_SHOWN

#: Disagreements printed on stderr (all of them are in the --json summary).
SHOW = 50
EVENT_SUFFIXES = (".json", ".yaml", ".yml", ".trf")


def register(sub) -> None:
    p = sub.add_parser("replay", help="rate events in date order into a ratings store",
                       description="Rate events and FIDE updates in order (end date, start "
                                   "date, id) into a ratings store, each from the players' state "
                                   "in the store; matches take their earlier matches from the "
                                   "store. Events are committed whole, several to a transaction "
                                   "(--commit-every): an interrupted run leaves whole events "
                                   "only; run it again with --skip-applied to resume.")
    p.add_argument("events", nargs="+", metavar="EVENT",
                   help="event files (YAML/JSON, TRF, DBF report directories), FIDE update files "
                        "(YAML/JSON with 'kind: fide-update'), or directories of these; - for "
                        "one read from standard input")
    add_db_option(p, what="the store (a SQLite file is created if missing)")
    p.add_argument("--skip-applied", action="store_true",
                   help="skip events already in the store instead of refusing them")
    p.add_argument("--grant-floor-requests", action="store_true",
                   help="matches (sec. 7): grant every request to lower a floor by 100; the "
                        "lowered floor is kept in the store for later events")
    p.add_argument("--commit-every", type=_positive, default=COMMIT_EVERY, metavar="N",
                   help=f"events written per transaction (default {COMMIT_EVERY}; 1: one "
                        "transaction per event, the most a killed run can lose being the "
                        "event it was writing)")
    add_progress_option(p)
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    add_rules_options(p)
    add_examples(p,
                 "uschess replay fixtures/replay-mixed --db ratings.db")
    p.set_defaults(func=run)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def _is_dbf_report(path: Path) -> bool:
    try:
        from uschess.io.formats.uscf_dbf import FILE_NAMES
    except ImportError:
        return False
    names = tuple(n.upper() for n in FILE_NAMES.values())
    return any(name.upper().endswith(names) for name in os.listdir(path))


def _listed_event_file(name: str) -> bool:
    """Whether a file of a directory given to replay is one of its events:
    an event, FIDE update or TRF file, not a players file (member data)."""
    as_path = PurePath(name)
    return (as_path.suffix.lower() in EVENT_SUFFIXES
            and not as_path.stem.lower().endswith(".players"))


def _entry_is_file(entry: os.DirEntry) -> bool:
    """Whether a directory's entry is a file (through a link), or one line
    naming the entry that cannot be looked at (a link in a loop)."""
    try:
        return entry.is_file()
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", file=entry.path) from None


def expand(paths: list[str]) -> list[str]:
    """Files as given; a directory of DBF rating report files is one event,
    any other directory stands for the event files, FIDE update files and
    TRFs in it, except players files (``*.players.yaml``)."""
    out = []
    for raw in paths:
        path = Path(raw)
        if raw == "-" or not path.is_dir():
            out.append(raw)
            continue
        try:
            if _is_dbf_report(path):
                out.append(raw)
                continue
            # os.scandir: whether an entry is a file comes with the listing
            # (no stat per file of a directory of thousands)
            with os.scandir(path) as entries:
                found = sorted(e.path for e in entries
                               if _listed_event_file(e.name) and _entry_is_file(e))
        except OSError as err:  # a directory that cannot be read
            raise InputError(f"cannot list the directory: {err.strerror or err}",
                             file=path) from None
        if not found:
            raise InputError("directory holds no event files (*.json, *.yaml, *.yml, "
                             "*.trf) and no DBF rating report", file=path)
        out.extend(found)
    return out


def run(args) -> int:
    console = Console.of(args)
    db = db_target(args)
    files = [input_path(f) for f in expand(args.events)]  # - is standard input
    options = rating_options(args, trace=False)
    options.grant_floor_requests = args.grant_floor_requests
    with Store.open(db) as store:
        before = store.counts()["events"]
        reading = console.progress(total=len(files), unit="file", desc="reading",
                                   force=args.progress)
        bars = []  # the rating bar, opened once every file is read

        def read(paths):  # every file is read (and checked) before anything is written
            with reading:
                for path in paths:
                    yield path
                    reading.update(1)

        def progress(done: int, total: int, games: int, seconds: float) -> None:
            if not bars:
                bars.append(console.progress(total=total, unit="event", desc="rating",
                                             force=args.progress))
            bar = bars[0]
            bar.update(done - bar.n)
            bar.set_postfix(player_games=games, refresh=False)

        reports: dict = {}  # event id -> member data of a DBF/TRF report

        def load_report(path):
            loaded = load_event_input(path, args, console, rates=False)
            if loaded.member_data is not None and loaded.member_data.missing:
                reports[event_id(loaded.event)] = loaded.member_data
            return loaded.event

        # an event file with no players file to merge and nothing to say of it
        # is read as the replay reads it, once (see apps.replay._reads_event_files)
        load_report.reads_event_files = bool(getattr(args, "players", None)) or console.verbose
        # the list of paths lives only as long as the ordering pass reads it
        paths, files = read(files), None
        try:
            summary = replay(paths, store, options, skip_applied=args.skip_applied,
                             progress=progress, loader=load_report,
                             commit_every=args.commit_every)
        except KeyboardInterrupt:
            if store.discarded:
                raise KeyboardInterrupt(f"nothing was applied; {store.name}, created by this "
                                        "run, is removed") from None
            applied = store.counts()["events"] - before
            raise KeyboardInterrupt(
                f"{applied} event(s) of this run are applied to {store.name} (whole events "
                "only); rerun the same command with --skip-applied to resume") from None
        finally:
            for bar in bars:
                bar.close()
        unrated = unrated_without_member_data(store, reports, summary.applied)
    show = None if console.verbose else SHOW
    for d in summary.disagreements[:show]:
        console.note(f"disagreement: {d}")
    if show is not None and len(summary.disagreements) > show:
        console.note(f"... and {len(summary.disagreements) - show} more disagreements "
                     "(all of them with --verbose or --json)")
    for w in summary.warnings:
        console.warn(w)
    if args.json:
        print_json({**summary.as_dict(), "member_data": [u.as_dict() for u in unrated]})
    else:
        print(summary.format(), end="")
        for u in unrated:
            print("\n".join(u.lines(None if console.verbose else NAMES_SHOWN)))
    return 0


def unrated_without_member_data(store: Store, reports: dict, applied) -> list:
    """Of the players a DBF/TRF report gives no member data for, those the
    store had no record of either, in some system the event rated them in:
    they were rated as unrated there.  One report per event, in the order
    applied."""
    out = []
    for eid in applied:
        report = reports.get(eid)
        if report is None:
            continue
        unrated = []
        for member in report.missing:
            rows = [h for h in store.history(member.id) if h["event"] == eid]
            if any(h["pre"] is None for h in rows):
                unrated.append(member)
        if unrated:
            out.append(replace(report, missing=unrated, store=store.name))
    return out
