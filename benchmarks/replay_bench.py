"""Replay speed and memory: ``uschess replay`` against a minimal replay, in one run.

    python benchmarks/replay_bench.py                      # quick: 50,000 player-games, about 40 s
    python benchmarks/replay_bench.py --games 1000000 --repeat 3 --profile   # the full figures
    python benchmarks/replay_bench.py --games 1000000 --players 120000 --repeat 1   # memory

The last one measures the peak RSS of a history with more players than the
replay keeps the state of (:data:`uschess.apps.replay.CACHE_PLAYERS`), so
that the cache fills and is emptied during the replay.

A generated history of one year (2025, so that one set of rules is in force
throughout, which the minimal implementation needs; checked) is written as
JSON event files to a temporary directory, named in replay order.  Then,
interleaved and repeated, two child processes rate it into a new SQLite file:

* ``uschess replay DIR --db FILE``: the engine, reading and validating the
  files, rating, and writing whole events to its store;
* ``python benchmarks/minimal.py --replay DIR --db FILE --params P
  --commit-every 128``: the five steps of ``minimal.py`` with every player's
  state in memory and a plain ``sqlite3`` writer of the same rows (the
  changes, the players' new records), committed in batches of as many
  events as the engine's replay commits at once
  (:data:`uschess.apps.replay.COMMIT_EVERY`).

The children start as an installed command does: their modules' bytecode
and the compiled rule book cached in private folders
(:func:`common.child_env`), filled by a first run of each on a one-event
history.  ``--compile-each-run`` measures them as this machine's environment
(``PYTHONDONTWRITEBYTECODE``) would otherwise start them, every module
compiled from source at every start.

Printed: player-games (rated games counted once per player per section) per
CPU-second of each child (its own user + system time, from ``os.wait4``),
the ratio, and each child's peak RSS; the median of the repetitions.  Before
the figures, the two stores of the first repetition are compared: the same
ratings rows (rating, games, wins, draws, losses, events3, peak) and the same
changes (pre and post), bit for bit; a difference stops the benchmark.
``--profile`` adds where the engine's replay spends its time (cProfile of the
same replay in this process); ``--phases`` the CPU time of its phases timed
without a profiler (reading the files, rating, writing to the store), and
the yardstick's (reading, rating, the rest) beside them, since
cProfile weighs Python calls more than the C code of the parsers and SQLite;
``--store-variants`` the CPU time of the rows' SQL alone (:func:`store_variants`:
the engine store's rows written again into the store's schema and into
leaner layouts), to tell what a schema change could save; ``--instructions``
the instructions of one more run of each child, counted by valgrind
(:func:`common.instructions`): a ratio that does not move with the
machine's load, where CPU time on this shared machine moves by a tenth or
more between runs of one benchmark (a change of a few percent is seen in
the count and lost in the CPU time).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common as C  # noqa: E402


def dates_of(paths) -> list:
    import datetime as dt

    out = []
    for p in paths:
        ev = json.loads(Path(p).read_text(encoding="utf-8"))["event"]
        out.append(dt.date.fromisoformat(ev["start"]))
    return out


def profile_replay(directory: Path, top: int) -> str:
    from rate_bench import profile

    from uschess.apps.replay import replay
    from uschess.io.store import Store
    from uschess.rating.options import RatingOptions

    paths = sorted(str(p) for p in directory.glob("*.json"))
    with tempfile.TemporaryDirectory() as tmp:
        with Store.open(os.path.join(tmp, "profile.db")) as store:
            return profile(lambda: replay(paths, store, RatingOptions(trace=False)), top)


def _timer(spent: dict):
    """``timed(name, fn)``: ``fn`` wrapped so that its CPU time
    (``time.process_time``) adds to ``spent[name]``."""
    def timed(name, fn):
        def run(*args, **kw):
            t0 = time.process_time()
            try:
                return fn(*args, **kw)
            finally:
                spent[name] = spent.get(name, 0.0) + time.process_time() - t0
        return run
    return timed


def phases_of_replay(directory: Path) -> str:
    """CPU time (``time.process_time``) of the phases of the same replay in
    this process: each phase's functions wrapped by a timer."""
    import uschess.apps.replay as R
    import uschess.io.eventfile as E
    import uschess.io.textdata as T
    from uschess.io.store import Store, _Connection
    from uschess.rating.chain import Chain
    from uschess.rating.options import RatingOptions

    spent: dict = {}
    timed = _timer(spent)

    phases = [
        (R, "load_item", "reading: files read in full in the ordering pass"),
        (R, "_header_key", "reading: the glance at later files' headers"),
        (R, "load_event_file", "reading: later files, read at their turn"),
        (T, "parse_data", "  of the reading, parsing and checking the text (JSON, YAML)"),
        (E, "event_from_dict", "  of the reading, building and checking the typed event"),
        (R, "event_from_dict", "  of the reading, building and checking the typed event"),
        (Chain, "rate_event", "rating (the chain, steps 1-5, finish)"),
        (R._Replayer, "prepare", "the replay's work per event, rating included"),
        (Store, "apply_event", "store writes (the events' rows and the commits)"),
        (_Connection, "executemany", "  of them the rows' statements (binding and SQLite)"),
        (_Connection, "commit", "  of them the commits (the last one after the events)"),
    ]
    saved = [(owner, name, getattr(owner, name)) for owner, name, _ in phases]
    for owner, name, label in phases:
        setattr(owner, name, timed(label, getattr(owner, name)))
    paths = sorted(str(p) for p in directory.glob("*.json"))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            with Store.open(os.path.join(tmp, "phases.db")) as store:
                t0 = time.process_time()
                R.replay(paths, store, RatingOptions(trace=False))
                total = time.process_time() - t0
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)
    lines = [f"{total:.2f} s CPU in all"]
    for label in dict.fromkeys(label for _, _, label in phases):
        t = spent.get(label, 0.0)
        lines.append(f"  {t:7.2f} s {100 * t / total:5.1f}%  {label}")
    return "\n".join(lines)


def phases_of_minimal(directory: Path, params: Path, commit_every: int) -> str:
    """CPU time of the phases of the yardstick's replay (``minimal.py
    --replay``) in this process, as :func:`phases_of_replay` times the
    engine's: reading (the JSON parsed, the event built), rating
    (``rate_event``: steps 1-5, the floors, the records after), and the rest
    (the rows' statements, the commits, the loop), so that the two replays
    compare phase by phase."""
    import json as _json

    import minimal as M

    spent: dict = {}
    timed = _timer(spent)

    class _TimedJson:  # the module's json, its loads timed as reading
        loads = staticmethod(timed("reading", _json.loads))

        def __getattr__(self, name):
            return getattr(_json, name)

    P = M.load_params(None, str(params))["p"]  # before the timers: not the replay's reading
    saved = [(name, getattr(M, name)) for name in ("json", "event_from_dict", "rate_event")]
    M.json = _TimedJson()
    M.event_from_dict = timed("reading", M.event_from_dict)
    M.rate_event = timed("rating", M.rate_event)
    paths = sorted(str(p) for p in directory.glob("*.json"))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.process_time()
            M.replay(paths, os.path.join(tmp, "minimal.db"), P, commit_every)
            total = time.process_time() - t0
    finally:
        for name, fn in saved:
            setattr(M, name, fn)
    lines = [f"{total:.2f} s CPU in all"]
    rest = total - sum(spent.values())
    for label, t in (("reading: the JSON parsed, the event built", spent.get("reading", 0.0)),
                     ("rating (rate_event: steps 1-5, floors, records)", spent.get("rating", 0.0)),
                     ("the rest: the rows' statements, the commits, the loop", rest)):
        lines.append(f"  {t:7.2f} s {100 * t / total:5.1f}%  {label}")
    return "\n".join(lines)


def store_variants(engine_db: str, commit_every: int) -> str:
    """CPU time of writing the rows of a replay's store again, event by event
    in its order and ``commit_every`` events to a transaction, into new
    SQLite files of other layouts: the store's own schema and statements
    (the rows' statements and commits of a replay, without the rating and
    the Python that builds the rows), the same without the index of the
    changes by player (built in one pass after the rows), the same tables
    WITHOUT ROWID, and the minimal implementation's two tables (7 and 9
    columns, ``INSERT OR REPLACE``).  The rows are read from ``engine_db``
    beforehand; each variant's file has the store's pragmas."""
    import sqlite3

    from uschess.io.store import (_INSERT_CHANGE, _UPSERT_RATING, CHANGES_INDEX, RATING_COLUMNS,
                                  SCHEMA)
    from uschess.io.store import _connect

    src = sqlite3.connect(engine_db)
    order = [r[0] for r in src.execute("SELECT id FROM events ORDER BY seq")]
    by_event: dict = {}
    for row in src.execute("SELECT * FROM changes ORDER BY event_id, pos"):
        by_event.setdefault(row[0], []).append(row)
    rating_cols = ", ".join(RATING_COLUMNS)
    after: dict = {}  # (event, pos) -> the ratings row that change wrote
    state = {(r[0], r[1]): r for r in src.execute(
        f"SELECT player_id, system, {rating_cols} FROM ratings")}
    src.close()
    # the ratings row each change writes: the player's final row, with the
    # change's post and games (the values differ from the replay's only in
    # what is bound, not in how many)
    for eid, rows in by_event.items():
        for row in rows:
            final = state[(row[4], row[3])]
            after[(eid, row[1])] = (row[4], row[3], row[6], row[8], *final[4:-1], eid)
    minimal = [
        "CREATE TABLE changes (event_id TEXT, pos INTEGER, section TEXT, system TEXT, "
        "player_id TEXT, pre REAL, post REAL, PRIMARY KEY (event_id, pos))",
        "CREATE TABLE ratings (player_id TEXT, system TEXT, rating REAL, games INTEGER, "
        "wins INTEGER, draws INTEGER, losses INTEGER, events3 INTEGER, peak REAL, "
        "PRIMARY KEY (player_id, system))"]
    no_index = [d for d in SCHEMA if d != CHANGES_INDEX]
    without_rowid = [d + " WITHOUT ROWID" if d.lstrip().startswith("CREATE TABLE IF NOT EXISTS "
                                                                      "changes") or
                     d.lstrip().startswith("CREATE TABLE IF NOT EXISTS ratings") else d
                     for d in SCHEMA]
    variants = [
        ("the store's schema and statements", SCHEMA, _INSERT_CHANGE, _UPSERT_RATING, None, False),
        ("without the index by player, built after", no_index, _INSERT_CHANGE, _UPSERT_RATING,
         CHANGES_INDEX, False),
        ("changes and ratings WITHOUT ROWID", without_rowid, _INSERT_CHANGE, _UPSERT_RATING,
         None, False),
        ("the minimal implementation's tables", minimal,
         "INSERT INTO changes VALUES (?, ?, ?, ?, ?, ?, ?)",
         "INSERT OR REPLACE INTO ratings VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", None, True),
    ]
    lines = []
    with tempfile.TemporaryDirectory() as tmp:
        for i, (label, ddl, ins_change, ins_rating, last, small) in enumerate(variants):
            conn = _connect(os.path.join(tmp, f"v{i}.db"), True)
            cur = conn.cur
            for d in ddl:
                cur.execute(d)
            prepared = []
            for eid in order:
                rows = by_event.get(eid, [])
                if small:
                    prepared.append(([r[:7] for r in rows],
                                     [after[(eid, r[1])][:9] for r in rows]))
                else:
                    prepared.append((rows, [after[(eid, r[1])] for r in rows]))
            t0 = time.process_time()
            for n, (changes, ratings) in enumerate(prepared, start=1):
                if not conn.raw.in_transaction:
                    cur.execute("BEGIN")
                cur.executemany(ins_change, changes)
                cur.executemany(ins_rating, ratings)
                if n % commit_every == 0:
                    cur.execute("COMMIT")
            if conn.raw.in_transaction:
                cur.execute("COMMIT")
            if last:
                cur.execute(last)
            spent = time.process_time() - t0
            conn.close()
            lines.append(f"  {spent:7.2f} s  {label}")
    return "\n".join(lines)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n")[1])
    ap.add_argument("--games", type=int, default=50_000,
                    help="size of the history in player-games (50,000; the full figure: 1,000,000)")
    ap.add_argument("--players", type=int,
                    help="players in the history (default: 2.2 per event, 12,399 at the full "
                         "figure); more than the replay's cache of players' state measures "
                         "its memory when the cache fills")
    ap.add_argument("--seed", type=int, default=2025)
    ap.add_argument("--repeat", type=int, default=3, help="interleaved repetitions (3)")
    ap.add_argument("--profile", action="store_true",
                    help="print where the engine's replay spends its time")
    ap.add_argument("--top", type=int, default=20, help="profile lines to show (20)")
    ap.add_argument("--phases", action="store_true",
                    help="print the CPU time of the replay's phases, timed without a profiler")
    ap.add_argument("--store-variants", action="store_true",
                    help="print the CPU time of writing the engine store's rows again into "
                         "other table layouts (the rows' SQL alone)")
    ap.add_argument("--keep", metavar="DIR", help="write the history and stores here and keep them")
    ap.add_argument("--instructions", action="store_true",
                    help="also count the instructions of one run of each child (valgrind)")
    C.add_compile_each_run(ap)
    args = ap.parse_args(argv)
    print(C.formulas_line())

    tmp = tempfile.TemporaryDirectory()
    work = Path(args.keep or tmp.name)
    work.mkdir(parents=True, exist_ok=True)
    history = work / "history"
    players, events = C.history_size(args.games, args.seed)
    if args.players:
        from uschess.apps.generate import MAX_EVENT_PLAYERS

        players = args.players
        if players > events * MAX_EVENT_PLAYERS:
            raise SystemExit(f"--players {players:,} cannot all play in the {events:,} events of "
                             f"--games {args.games:,}: ask for more games or fewer players")
    t0 = time.perf_counter()
    paths, games = C.write_year(history, args.seed, players, events)
    print(f"history: seed {args.seed}, {players:,} players, {len(paths):,} events of 2025, "
          f"{games:,} player-games, written in {time.perf_counter() - t0:.0f} s")
    fingerprint = C.one_rule_set(dates_of(paths))
    params = work / "params.json"
    C.write_params(params)
    print(f"one set of rules throughout (fingerprint {fingerprint})")

    from uschess.apps.replay import COMMIT_EVERY

    # the children start as an installed command does (bytecode and rule book
    # cached), after a first run of each on a one-event history fills the caches
    env = C.child_env(work, args.compile_each_run)
    warm = work / "warm"
    warm.mkdir(exist_ok=True)
    first = min(history.glob("*.json"))
    (warm / first.name).write_bytes(first.read_bytes())
    C.run_child(C.uschess() + ["replay", warm, "--db", work / "warm.db", "--quiet"], env=env)
    C.run_child([C.python(), C.MINIMAL, "--replay", warm, "--db", work / "warm-minimal.db",
                 "--params", params], env=env)
    print("children: " + ("every module compiled at every start" if args.compile_each_run else
                          "bytecode and the compiled rule book cached (as installed, after a "
                          "first run)"))

    rss: dict = {"engine": [], "minimal": []}
    dbs: dict = {"engine": [], "minimal": []}
    counts: dict = {}

    def run(name: str):
        def go():
            db = work / f"{name}{len(dbs[name])}.db"
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
            if name == "engine":
                r = C.run_child(C.uschess() + ["replay", history, "--db", db, "--json"], env=env)
                counts[name] = json.loads(r.out)["player_games"]
            else:
                r = C.run_child([C.python(), C.MINIMAL, "--replay", history, "--db", db,
                                 "--params", params, "--commit-every", COMMIT_EVERY], env=env)
                counts[name] = int(r.out.split(",")[1].split()[0])
            rss[name].append(r.rss_mb)
            dbs[name].append(db)
            if len(dbs[name]) > 1:  # only the first pair is kept for the check
                for suffix in ("", "-wal", "-shm"):
                    Path(f"{db}{suffix}").unlink(missing_ok=True)
            return r.cpu
        return go

    got = C.interleaved({"engine": run("engine"), "minimal": run("minimal")}, args.repeat)
    if counts["engine"] != counts["minimal"] or counts["engine"] != games:
        raise SystemExit(f"player-games differ: generated {games}, engine {counts['engine']}, "
                         f"minimal {counts['minimal']}")
    n_ratings, n_changes = C.check_stores(str(dbs["engine"][0]), str(dbs["minimal"][0]))
    print(f"stores checked equal: {n_ratings:,} ratings rows, {n_changes:,} changes, bit for bit")
    e, m = C.median(got["engine"]), C.median(got["minimal"])
    print(f"\nchild CPU seconds (user + system), median of {args.repeat} interleaved runs:")
    print(f"  {'':28} {'CPU s':>8} {'player-games/CPU s':>19} {'peak RSS MB':>12}")
    print(f"  {'uschess replay':28} {e:8.2f} {games / e:19,.0f} {max(rss['engine']):12.0f}")
    print(f"  {'minimal.py --replay':28} {m:8.2f} {games / m:19,.0f} {max(rss['minimal']):12.0f}")
    print(f"  time engine/minimal: {e / m:.2f}x   (runs: engine {C.spread(got['engine'])} s, "
          f"minimal {C.spread(got['minimal'])} s)")
    if args.instructions:
        print("\ninstructions of one run of each child (valgrind's cachegrind; the same "
              "count whatever the machine's load):")
        counted = {}
        for name in ("engine", "minimal"):
            db = work / f"{name}-counted.db"
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
            if name == "engine":
                cmd = [C.python(), "-m", "uschess", "replay", history, "--db", db, "--quiet"]
            else:
                cmd = [C.python(), C.MINIMAL, "--replay", history, "--db", db, "--params",
                       params, "--commit-every", COMMIT_EVERY]
            counted[name] = C.instructions(cmd, env=env)
            for suffix in ("", "-wal", "-shm"):
                Path(f"{db}{suffix}").unlink(missing_ok=True)
        print(f"  {'uschess replay':28} {counted['engine']:>18,} instructions")
        print(f"  {'minimal.py --replay':28} {counted['minimal']:>18,} instructions")
        print(f"  instructions engine/minimal: {counted['engine'] / counted['minimal']:.3f}x")
    if args.profile:
        print("\nthe engine's replay in this process (cProfile, CPU time):")
        print(profile_replay(history, args.top))
    if args.phases:
        print("\nthe phases of the engine's replay in this process (CPU time, no profiler):")
        print(phases_of_replay(history))
        print("\nthe phases of the yardstick's replay (minimal.py) in this process:")
        print(phases_of_minimal(history, params, COMMIT_EVERY))
    if args.store_variants:
        print(f"\nthe engine store's rows written again, {COMMIT_EVERY} events to a transaction "
              "(CPU time, the rows' SQL alone):")
        print(store_variants(str(dbs["engine"][0]), COMMIT_EVERY))
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
