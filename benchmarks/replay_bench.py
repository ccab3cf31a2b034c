"""Replay benchmark: a generated history into a temporary SQLite store.

    python benchmarks/replay_bench.py                      # about 1,000,000 player-games
    python benchmarks/replay_bench.py --player-games 100000 --profile

Prints player-games per second (rated games counted once per player per
section: a game counts for both its players, a dual-rated game once) for the
replay alone (the events are generated beforehand, outside the timing, unless
--stream), wall and CPU time, the peak memory (RSS; --tracemalloc for Python
allocations), and with --profile the top cProfile entries.  Reading event
files is not included: time 'uschess generate' + 'uschess replay DIR' for that.
"""

from __future__ import annotations

import argparse
import cProfile
import gc
import io
import os
import pstats
import resource
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from uschess.apps.generate import generate_history, player_games  # noqa: E402
from uschess.rating.pipeline import RatingOptions  # noqa: E402
from uschess.apps.replay import replay  # noqa: E402
from uschess.calendar.rulebook import RuleBook  # noqa: E402
from uschess.io.store import Store  # noqa: E402

#: Player-games per generated event at the sizes used here (measured).
PER_EVENT = 150.0


def sizes(target: int) -> tuple[int, int]:
    events = max(10, int(target / PER_EVENT))
    players = max(200, int(events * 2.2))
    return players, events


def rss_mb() -> float:
    """Peak resident set size of this process in MB (Linux reports KB)."""
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak / 1024.0 if sys.platform != "darwin" else peak / 2**20


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--player-games", type=int, default=1_000_000,
                    help="size of the history (default 1,000,000)")
    ap.add_argument("--seed", type=int, default=2025)
    ap.add_argument("--stream", action="store_true",
                    help="generate while replaying (bounded memory; generation is timed too)")
    ap.add_argument("--tracemalloc", action="store_true",
                    help="trace Python allocations for the peak (slows the run)")
    ap.add_argument("--profile", action="store_true", help="print the top cProfile entries")
    ap.add_argument("--top", type=int, default=25, help="profile entries to show")
    ap.add_argument("--db", help="keep the store in this file instead of a temporary one")
    args = ap.parse_args(argv)

    players, n_events = sizes(args.player_games)
    print(f"history: seed {args.seed}, {players} players, {n_events} events "
          f"(target {args.player_games:,} player-games)")
    RuleBook.load()  # the rules are read once per process: not part of the rate
    tmp = tempfile.TemporaryDirectory()
    db = args.db or os.path.join(tmp.name, "bench.db")
    if args.stream:
        events = generate_history(args.seed, players, n_events)
        gen_s = 0.0
    else:
        t0 = time.perf_counter()
        events = list(generate_history(args.seed, players, n_events))
        gen_s = time.perf_counter() - t0
        total = sum(player_games(e) for e in events)
        print(f"generated {len(events)} events, {total:,} player-games in {gen_s:.1f} s")
        # The history is held in memory only to keep generation out of the
        # timing: move it out of the cyclic collector's way (a replay of files
        # holds one event at a time).
        gc.collect()
        gc.freeze()
    if args.tracemalloc:
        tracemalloc.start()
    prof = cProfile.Profile() if args.profile else None
    with Store.open(db) as store:
        t0 = time.perf_counter()
        c0 = time.process_time()
        if prof:
            prof.enable()
        summary = replay(events, store, RatingOptions(trace=False), ordered=True)
        if prof:
            prof.disable()
        seconds = time.perf_counter() - t0
        cpu = time.process_time() - c0
        counts = store.counts()
    size_mb = sum(os.path.getsize(db + s) for s in ("", "-wal") if os.path.exists(db + s)) / 2**20
    print(f"replayed {len(summary.applied)} events: {summary.player_games:,} player-games, "
          f"{summary.player_updates:,} rating updates of {summary.players:,} players "
          f"in {seconds:.1f} s wall, {cpu:.1f} s CPU")
    print(f"rate: {summary.player_games / seconds:,.0f} player-games/s wall, "
          f"{summary.player_games / cpu:,.0f} per CPU second; "
          f"{summary.player_updates / cpu:,.0f} rating updates per CPU second "
          f"({'generation included, ' if args.stream else ''}{'profiled: slower, ' if prof else ''}"
          f"one core)")
    if args.tracemalloc:
        _, peak = tracemalloc.get_traced_memory()
        print(f"peak traced Python memory: {peak / 2**20:.1f} MB")
    print(f"peak RSS: {rss_mb():.0f} MB; store {size_mb:.1f} MB "
          f"({counts['changes']:,} changes, {counts['ratings']:,} ratings rows)")
    if prof:
        out = io.StringIO()
        pstats.Stats(prof, stream=out).sort_stats("tottime").print_stats(args.top)
        print(out.getvalue())
    tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())
