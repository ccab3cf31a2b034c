"""Sweep benchmark: a five-value sweep of B on a local Dask cluster, two
worker processes against one.

    python benchmarks/sweep_bench.py                       # about 60,000 player-games
    python benchmarks/sweep_bench.py --player-games 200000 --values 6,8,10,12,14

Generates a history (outside the timing), starts a local cluster of N
single-threaded worker processes (its start is timed apart), and times the
sweep of the baseline and one reform per value of ``bonus_multiplier`` (six
tasks), first on one worker, then on two.  Prints per run the wall time, the
CPU time the tasks report from the workers, and the ratio of the two-worker
wall time to the one-worker wall time (0.5 is a perfect halving; the
baseline and five values are six tasks, three rounds on two workers).
CPU/wall says how many cores the tasks actually had: on a machine others
are using, two workers cannot halve the time if they get no second core.
Also checks that both runs give the same table.
"""

from __future__ import annotations

import argparse
import logging
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from uschess.apps.evaluate import format_ranking  # noqa: E402
from uschess.apps.generate import player_games, write_history  # noqa: E402
from uschess.apps.sweep import (ResultsFile, combinations, history_fingerprint,  # noqa: E402
                                parse_vary, sweep)
from uschess.commands.evaluate import load_history  # noqa: E402

#: Player-games per generated event at the sizes used here (measured).
PER_EVENT = 135.0


def run(events, truth, combos, workers: int) -> tuple[dict, float, float, float]:
    from dask.distributed import LocalCluster
    t0 = time.perf_counter()
    with LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                      dashboard_address=":0", silence_logs=logging.ERROR) as cluster:
        start = time.perf_counter() - t0
        results = ResultsFile(None, history_fingerprint(events, truth), {})
        t1 = time.perf_counter()
        out = sweep(events, truth, combos, results=results, scheduler=cluster.scheduler_address)
        wall = time.perf_counter() - t1
    cpu = sum(v["cpu_seconds"] for v in results.done.values())
    return out.evaluation.as_dict(), start, wall, cpu


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--player-games", type=int, default=60_000)
    ap.add_argument("--seed", type=int, default=14)
    ap.add_argument("--values", default="6,8,10,12,14", help="values of bonus_multiplier")
    args = ap.parse_args(argv)

    n_events = max(10, int(args.player_games / PER_EVENT))
    players = max(200, int(n_events * 2.2))
    with tempfile.TemporaryDirectory() as tmp:
        write_history(Path(tmp) / "hist", args.seed, players, n_events)
        events, truth = load_history([str(Path(tmp) / "hist")])
    print(f"history: {len(events)} events, {players} players, "
          f"{sum(player_games(e) for e in events):,} player-games; {os.cpu_count()} CPUs")
    combos = combinations([parse_vary(f"bonus_multiplier={args.values}")])
    walls = {}
    tables = {}
    for workers in (1, 2):
        data, start, wall, cpu = run(events, truth, combos, workers)
        walls[workers] = wall
        tables[workers] = data
        print(f"{workers} worker(s): {len(combos)} tasks in {wall:.1f} s wall, {cpu:.1f} s CPU "
              f"in the tasks (CPU/wall {cpu / wall:.2f}: the cores the sweep had); cluster "
              f"start {start:.1f} s")
    print(f"ratio 2 workers / 1 worker: {walls[2] / walls[1]:.2f} (0.50 = halved)")
    same = tables[1]["ranking"] == tables[2]["ranking"]
    print(f"same table on one and two workers: {'yes' if same else 'NO'}")
    print("\n".join(format_ranking(tables[2]["ranking"], tables[2]["reference"])))
    return 0 if same else 1


if __name__ == "__main__":
    sys.exit(main())
