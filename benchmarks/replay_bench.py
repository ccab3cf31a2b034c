"""Replay speed and memory: ``uschess replay`` against two minimal replays, in one table.

    python benchmarks/replay_bench.py                      # quick: 50,000 player-games
    python benchmarks/replay_bench.py --games 1000000 --repeat 3   # the full figures
    python benchmarks/replay_bench.py --games 1000000 --players 120000 --repeat 1   # memory

Setup: ``sh benchmarks/setup.sh`` installs valgrind (for the instruction
counts) and builds the compiled kernel.  The last command above measures the
peak RSS of a history with more players than the replay keeps the state of
(:data:`uschess.apps.replay.CACHE_PLAYERS`), so that the cache fills and is
emptied during the replay.

A generated history of one year (2025, so that one set of rules is in force
throughout, which the minimal implementation needs; checked) is written as
JSON event files to a temporary directory.  Then, interleaved and repeated,
child processes rate it:

* ``uschess replay DIR --db FILE``: the engine, reading and validating the
  files, rating, and writing whole events to its store; in pure Python
  (``USCHESS_PURE=1``) and, where it is built, with the compiled kernel;
* ``python benchmarks/minimal.py --replay DIR --db FILE``, the yardstick
  with the same I/O: it reads the same files the same way (an ordering pass
  that keeps the first events read, :data:`uschess.apps.replay_order.KEEP_PLAYERS`
  player entries, and glances at the other files' headers, read again at
  their turn), rates them in replay order with the five steps of
  ``minimal.py`` and every player's state in memory, and writes each event,
  one change row per rated player and the players' records to SQLite in WAL
  mode, :data:`uschess.apps.replay.COMMIT_EVERY` events to a transaction;
* ``python benchmarks/minimal.py --replay DIR``: the same without a store.

The children start as an installed command does: their modules' bytecode
and the compiled rule book cached in private folders
(:func:`common.child_env`), filled by a first run of each on a one-event
history.  ``--compile-each-run`` measures them as this machine's environment
(``PYTHONDONTWRITEBYTECODE``) would otherwise start them, every module
compiled from source at every start.

Checked before the figures (a failure stops the benchmark): every side
rated every player-game; each engine store and the yardstick's hold the same
events, the same ratings rows (rating, games, wins, draws, losses, events3,
peak) and the same changes (pre and post), bit for bit; every side read at
least the history's bytes.  Printed, one row per command: CPU seconds (the
child's user + system time, from ``os.wait4``, median of the interleaved
runs) and instructions (one run under valgrind's cachegrind,
:func:`common.instructions`: a count that does not move with the machine's
load, where CPU time on a shared machine moves by a tenth or more), each as
a ratio to the same-I/O yardstick and to the storeless one; peak RSS; the
bytes read and written.  The table is also written to
``benchmarks/results/replay.md`` (with the date, machine and command) and
``replay.json``.

``--profile`` adds where the engine's replay spends its time (cProfile of the
same replay in this process); ``--phases`` the CPU time of its phases timed
without a profiler (reading the files, rating, writing to the store), and
the yardstick's (reading, rating, the rest) beside them, since cProfile
weighs Python calls more than the C code of the parsers and SQLite;
``--store-variants`` the CPU time of the rows' SQL alone (:func:`store_variants`:
the engine store's rows written again into the store's schema and into
leaner layouts), to tell what a schema change could save.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Optional

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
    import uschess.apps.replay_order as O
    import uschess.io.eventfile as E
    import uschess.io.textdata as T
    from uschess.io.store import Store
    from uschess.io.store_connection import _Connection
    from uschess.rating.chain import Chain
    from uschess.rating.options import RatingOptions

    spent: dict = {}
    timed = _timer(spent)

    phases = [
        (O, "load_item", "reading: files read in full in the ordering pass"),
        (O, "_header_key", "reading: the glance at later files' headers"),
        (R, "load_event_file", "reading: later files, read at their turn"),
        (R, "load_item", "reading: later files, read at their turn"),
        (T, "parse_data", "  of the reading, parsing and checking the text (JSON, YAML)"),
        (E, "event_from_dict", "  of the reading, building and checking the typed event"),
        (O, "event_from_dict", "  of the reading, building and checking the typed event"),
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


def phases_of_minimal(directory: Path, params: Path, commit_every: int, keep_players: int) -> str:
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
    saved = [(name, getattr(M, name)) for name in ("json", "event_from_dict", "rate_event",
                                                   "_glance")]
    M.json = _TimedJson()
    M.event_from_dict = timed("reading", M.event_from_dict)
    M._glance = timed("reading", M._glance)
    M.rate_event = timed("rating", M.rate_event)
    paths = sorted(str(p) for p in directory.glob("*.json"))
    try:
        with tempfile.TemporaryDirectory() as tmp:
            t0 = time.process_time()
            M.replay(paths, os.path.join(tmp, "minimal.db"), P, commit_every, keep_players)
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

    from uschess.io.store_connection import _connect
    from uschess.io.store_schema import (_INSERT_CHANGE, _UPSERT_RATING, CHANGES_INDEX,
                                         RATING_COLUMNS, SCHEMA)

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


def _kernel_built() -> bool:
    """Whether the engine's children rate with the compiled kernel (built,
    current, and not turned off in this environment)."""
    from uschess import formulas

    return formulas.ACTIVE is not formulas.PURE


def _fresh(db: Path) -> Path:
    for suffix in ("", "-wal", "-shm"):
        Path(f"{db}{suffix}").unlink(missing_ok=True)
    return db


class Sides:
    """The measured commands: ``uschess replay`` (pure Python, and with the
    compiled kernel where it is built) and the two minimal replays, each a
    command for a store path (None for the storeless one) and its environment."""

    def __init__(self, history: Path, params: Path, env: dict, kernel: bool):
        from uschess.apps.replay import COMMIT_EVERY
        from uschess.apps.replay_order import KEEP_PLAYERS

        pure_env = dict(env, USCHESS_PURE="1")
        minimal = [C.python(), C.MINIMAL, "--replay", history, "--params", params,
                   "--keep-players", KEEP_PLAYERS]
        self.commands = {}
        if kernel:
            self.commands["kernel"] = ("uschess replay, compiled kernel", env,
                                       lambda db: ["replay", history, "--db", db, "--quiet"])
        self.commands["pure"] = ("uschess replay, pure Python", pure_env if kernel else env,
                                 lambda db: ["replay", history, "--db", db, "--quiet"])
        self.commands["same_io"] = ("minimal.py --replay --db (same I/O)", env,
                                    lambda db: minimal + ["--db", db, "--commit-every",
                                                          COMMIT_EVERY])
        self.commands["storeless"] = ("minimal.py --replay (no store)", env, lambda db: minimal)

    def cmd(self, name: str, db: Optional[Path], engine_as_module: bool = False) -> list:
        _, _, make = self.commands[name]
        if name in ("kernel", "pure"):
            head = [C.python(), "-m", "uschess"] if engine_as_module else C.uschess()
            return head + make(db)
        return make(db)

    def env(self, name: str) -> dict:
        return self.commands[name][1]

    def label(self, name: str) -> str:
        return self.commands[name][0]


def _ratio(x, base) -> str:
    return "" if x is None or not base else f"{x / base:.2f}x"


def _history(args, work: Path):
    """The generated history written to ``work/history`` and the rules'
    parameters to ``work/params.json``: (history, params, players, paths,
    player-games)."""
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
          f"{games:,} player-games, {sum(p.stat().st_size for p in paths) / 1e6:.1f} MB of "
          f"JSON, written in {time.perf_counter() - t0:.0f} s")
    fingerprint = C.one_rule_set(dates_of(paths))
    params = work / "params.json"
    C.write_params(params)
    print(f"one set of rules throughout (fingerprint {fingerprint})")
    return history, params, players, paths, games


def _warm(sides: Sides, history: Path, params: Path, env: dict, work: Path) -> None:
    """The children start as an installed command does (bytecode and rule
    book cached): a first run of each side on a one-event history fills the
    caches, the engine's both as the ``uschess`` script and as ``python -m
    uschess`` (which the instruction counts run: its own rule book cache)."""
    warm = work / "warm"
    warm.mkdir(exist_ok=True)
    first = min(history.glob("*.json"))
    (warm / first.name).write_bytes(first.read_bytes())
    warm_sides = Sides(warm, params, env, "kernel" in sides.commands)
    for name in sides.commands:
        for as_module in (False, True):
            db = _fresh(work / f"warm-{name}.db") if name != "storeless" else None
            C.run_child(warm_sides.cmd(name, db, as_module), env=sides.env(name))


def _interleaved(sides: Sides, work: Path, repeat: int):
    """Every side run ``repeat`` times, interleaved: (CPU seconds by side,
    the runs by side, player-games counted by the minimal replays, the
    first store of each side that writes one, kept for the checks)."""
    runs: dict = {name: [] for name in sides.commands}
    counts: dict = {}
    first_db: dict = {}

    def run(name: str):
        def go():
            db = None if name == "storeless" else _fresh(work / f"{name}{len(runs[name])}.db")
            r = C.run_child(sides.cmd(name, db), env=sides.env(name))
            if name in ("same_io", "storeless"):
                counts[name] = int(r.out.split(",")[1].split()[0])
            runs[name].append(r)
            if db is not None and name not in first_db:
                first_db[name] = db
            elif db is not None:
                _fresh(db)
            return r.cpu
        return go

    got = C.interleaved({name: run(name) for name in sides.commands}, repeat)
    return got, runs, counts, first_db


def _instructions(sides: Sides, work: Path) -> dict:
    """The instructions of one run of each side (valgrind; none where it is
    not installed)."""
    if shutil.which("valgrind") is None:
        print("\nno instruction counts: valgrind is not installed (sh benchmarks/setup.sh)")
        return {}
    print("\ncounting instructions (valgrind's cachegrind, one run of each) ...", flush=True)
    counted = {}
    for name in sides.commands:
        db = None if name == "storeless" else _fresh(work / f"{name}-counted.db")
        counted[name] = C.instructions(sides.cmd(name, db, engine_as_module=True),
                                       env=sides.env(name))
        if db is not None:
            _fresh(db)
    return counted


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
                    help="count the instructions (the default, with valgrind installed)")
    ap.add_argument("--no-instructions", action="store_true",
                    help="leave out the instruction counts (valgrind, some 40 times the CPU "
                         "time of a run)")
    ap.add_argument("--no-results", action="store_true",
                    help="do not write the table to benchmarks/results/")
    C.add_compile_each_run(ap)
    args = ap.parse_args(argv)
    print(C.formulas_line())

    tmp = tempfile.TemporaryDirectory()
    work = Path(args.keep or tmp.name)
    work.mkdir(parents=True, exist_ok=True)
    history, params, players, paths, games = _history(args, work)
    history_bytes = sum(p.stat().st_size for p in paths)

    from uschess.apps.replay import COMMIT_EVERY

    env = C.child_env(work, args.compile_each_run)
    sides = Sides(history, params, env, _kernel_built())
    _warm(sides, history, params, env, work)
    print("children: " + ("every module compiled at every start" if args.compile_each_run else
                          "bytecode and the compiled rule book cached (as installed, after a "
                          "first run)"))

    got, runs, counts, first_db = _interleaved(sides, work, args.repeat)
    checks = _check(sides, counts, games, first_db, runs, history_bytes)
    for line in checks:
        print(line)
    counted = {} if args.no_instructions else _instructions(sides, work)

    header, rows, data = _table(sides, got, runs, counted, games)
    print(f"\n{games:,} player-games; CPU: child user + system seconds, median of "
          f"{args.repeat} interleaved runs" +
          ("; instructions: one run of each under cachegrind" if counted else ""))
    C.print_table(header, rows)
    extra = {}
    if args.phases:
        from uschess.apps.replay_order import KEEP_PLAYERS

        extra["The phases of the engine's replay in one process (CPU time, no profiler; "
              f"{C.formulas_line()}):"] = phases_of_replay(history)
        extra["The phases of the same-I/O yardstick's replay in one process:"] = \
            phases_of_minimal(history, params, COMMIT_EVERY, KEEP_PLAYERS)
        for caption, text in extra.items():
            print(f"\n{caption}\n{text}")
    if not args.no_results:
        notes = checks + [
            "CPU s and instructions: the whole child process (start, reading, rating, writing); "
            "x same I/O and x storeless: the ratio to the minimal replay that writes the same "
            "rows (its own schema: events, changes, ratings) and to the one that writes nothing.",
            f"Read and written: the bytes of the child's read and write calls (/proc/PID/io); "
            f"the history is {history_bytes / 1e6:.1f} MB of JSON.",
            f"Commits every {COMMIT_EVERY} events; history: seed {args.seed}, {players:,} players, "
            f"{len(paths):,} events of 2025."]
        data.update(games=games, players=players, events=len(paths), seed=args.seed,
                    history_bytes=history_bytes, repeat=args.repeat, formulas=C.formulas_line())
        md = C.write_results("replay", f"uschess replay against minimal replays, "
                             f"{games:,} player-games", C.command_line("replay_bench.py", argv),
                             header, rows, notes, data, extra)
        print(f"\nwritten: {md.relative_to(C.ROOT)} and {md.with_suffix('.json').name}")

    if args.profile:
        print("\nthe engine's replay in this process (cProfile, CPU time):")
        print(profile_replay(history, args.top))
    if args.store_variants:
        engine_db = first_db.get("kernel", first_db["pure"])
        print(f"\nthe engine store's rows written again, {COMMIT_EVERY} events to a transaction "
              "(CPU time, the rows' SQL alone):")
        print(store_variants(str(engine_db), COMMIT_EVERY))
    tmp.cleanup()
    return 0


def _check(sides: Sides, counts: dict, games: int, dbs: dict, runs: dict,
           history_bytes: int) -> list:
    """Stop unless every side rated the same player-games, the engine's
    stores and the same-I/O yardstick's hold the same events, changes and
    ratings rows (bit for bit), and every side read at least the history's
    bytes; the lines that say so."""
    for name in ("same_io", "storeless"):
        if counts[name] != games:
            raise SystemExit(f"player-games differ: generated {games:,}, "
                             f"{sides.label(name)} {counts[name]:,}")
    out = []
    for name in ("pure", "kernel"):
        if name in dbs:
            n = C.check_stores(str(dbs[name]), str(dbs["same_io"]))
            out.append(f"{sides.label(name)} and the same-I/O yardstick: the same {n[2]:,} events, "
                       f"{n[1]:,} changes and {n[0]:,} ratings rows, pre and post bit for bit.")
    for name, rs in runs.items():
        read = [r.read for r in rs if r.read is not None]
        if read and min(read) < history_bytes:
            raise SystemExit(f"{sides.label(name)} read {min(read):,} bytes, less than the "
                             f"history's {history_bytes:,}: it cannot have read every file")
    if all(r.read is not None for rs in runs.values() for r in rs):
        out.append("Every side read at least the history's bytes (every file).")
    return out


def _table(sides: Sides, got: dict, runs: dict, counted: dict, games: int):
    """The header, rows and data of the results table."""
    cpu = {name: C.median(v) for name, v in got.items()}
    header = ["command", "CPU s", "x same I/O", "x storeless", "player-games/CPU s"]
    if counted:
        header += ["G instructions", "x same I/O", "x storeless"]
    header += ["peak RSS MB", "read MB", "written MB"]
    rows, data = [], {"sides": {}}
    for name in sides.commands:
        rs = runs[name]
        read = C.median([r.read for r in rs]) if all(r.read is not None for r in rs) else None
        written = C.median([r.written for r in rs]) if all(r.written is not None for r in rs) \
            else None
        row = [sides.label(name), f"{cpu[name]:.2f}", _ratio(cpu[name], cpu["same_io"]),
               _ratio(cpu[name], cpu["storeless"]), f"{games / cpu[name]:,.0f}"]
        if counted:
            row += [f"{counted[name] / 1e9:.2f}", _ratio(counted[name], counted["same_io"]),
                    _ratio(counted[name], counted["storeless"])]
        row += [f"{max(r.rss_mb for r in rs):.0f}",
                "" if read is None else f"{read / 1e6:.1f}",
                "" if written is None else f"{written / 1e6:.1f}"]
        rows.append(row)
        data["sides"][name] = {"label": sides.label(name), "cpu_runs": got[name],
                               "cpu_median": cpu[name], "instructions": counted.get(name),
                               "peak_rss_mb": max(r.rss_mb for r in rs),
                               "read_bytes": read, "written_bytes": written}
    return header, rows, data


if __name__ == "__main__":
    sys.exit(main())
