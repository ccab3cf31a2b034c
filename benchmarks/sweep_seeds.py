"""A sweep repeated on calibrated histories of several seeds: how much of
its answer is the history's.

    python benchmarks/sweep_seeds.py                                  # B = 6..16, seeds 14-21
    python benchmarks/sweep_seeds.py --vary bonus_multiplier=10,14 --seeds 1-4 --players 800 --events 300

Each seed's history is drawn by ``uschess generate`` (calibrated) and every
version is evaluated on it as ``uschess sweep`` evaluates it (the baseline
and each value as a reform from the first date).  Printed: per seed, the
ranking by log-loss and each version's difference from the baseline with
its 95% paired bootstrap interval over that history's events; then, per
version, the mean difference over the seeds with a 95% interval from the
spread between seeds (Student's t), and on how many seeds the version was
resolved better (interval below 0) or worse (above 0) than the baseline.

The bootstrap interval of one history says how the answer varies with the
events of that history; the interval between seeds also takes in the
players' careers, which differ from seed to seed.  Seeds run in parallel
in ``--workers`` processes (default 2; 1: in this one).
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

#: Student's t at 97.5% by degrees of freedom (1..30).
T975 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
        2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
        2.060, 2.056, 2.052, 2.048, 2.045, 2.042]


def _seeds(text: str) -> list[int]:
    """``14-21`` or ``14,15,20``."""
    out = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    if len(out) < 2:
        raise argparse.ArgumentTypeError("give two seeds or more")
    return out


def one_seed(seed: int, players: int, events: int, vary: str) -> dict:
    """The ranking of one calibrated history (run in a worker)."""
    from uschess.apps.evaluate import evaluate, ranking
    from uschess.apps.generate import generate_history
    from uschess.apps.generator_fit import calibrated_model
    from uschess.apps.sweep import combinations, parse_vary
    from uschess.calendar.rulebook import RuleBook
    started = time.process_time()
    book = RuleBook.load()
    combos = combinations([parse_vary(vary)], None, book=book)
    history = list(generate_history(seed, players, events, model=calibrated_model()))
    rows = ranking(evaluate(history, [c.side for c in combos], book=book).versions)
    return {"seed": seed, "cpu": time.process_time() - started,
            "rows": [{"spec": r["spec"], "rank": r["rank"], "n": r["n"],
                      "log_loss": r["log_loss"],
                      "vs": r["vs_first"]["log_loss"] if r["vs_first"] else None}
                     for r in rows]}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vary", default="bonus_multiplier=6,10,14,16", metavar="PARAM=V1,V2,...")
    ap.add_argument("--seeds", type=_seeds, default=_seeds("14-21"), metavar="A-B|A,B,...")
    ap.add_argument("--players", type=int, default=3000)
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    from uschess.apps.sweep import combinations, parse_vary
    from uschess.calendar.rulebook import RuleBook
    from uschess.errors import InputError
    try:  # the versions checked before any history is generated
        combinations([parse_vary(args.vary)], None, book=RuleBook.load())
    except InputError as e:
        ap.error(str(e))
    jobs = [(seed, args.players, args.events, args.vary) for seed in args.seeds]
    if args.workers > 1:
        with ProcessPoolExecutor(max_workers=args.workers) as pool:
            runs = list(pool.map(one_seed, *zip(*jobs)))
    else:
        runs = [one_seed(*job) for job in jobs]
    print(f"{args.vary} on calibrated histories of {args.players:,} players and {args.events:,} "
          f"events, seeds {', '.join(map(str, args.seeds))}")
    print()
    print("per seed: versions by log-loss (best first); difference from the baseline [95% "
          "paired bootstrap over the history's events]")
    for run in runs:
        shown = "; ".join(
            r["spec"].replace(args.vary.split("=")[0] + "=", "") + (
                f" {r['vs']['diff']:+.5f} [{r['vs']['low']:+.5f}, {r['vs']['high']:+.5f}]"
                if r["vs"] else "")
            for r in run["rows"])
        print(f"  seed {run['seed']:>3} ({run['rows'][0]['n']:,} player-games, "
              f"{run['cpu']:.0f} s CPU): {shown}")
    print()
    specs = [r["spec"] for r in runs[0]["rows"] if r["vs"]]
    specs.sort(key=lambda s: float(s.split("=")[-1]) if s.split("=")[-1].replace(
        ".", "", 1).isdigit() else s)
    n = len(runs)
    t = T975[min(n - 1, len(T975)) - 1]
    print(f"over the {n} seeds: mean difference from the baseline [95% between seeds]; seeds on "
          "which the version was resolved better / worse; mean rank (1 best)")
    for spec in specs:
        rows = [next(r for r in run["rows"] if r["spec"] == spec) for run in runs]
        diffs = [r["vs"]["diff"] for r in rows]
        mean = statistics.fmean(diffs)
        half = t * statistics.stdev(diffs) / math.sqrt(n)
        better = sum(r["vs"]["high"] < 0 for r in rows)
        worse = sum(r["vs"]["low"] > 0 for r in rows)
        rank = statistics.fmean(r["rank"] for r in rows)
        print(f"  {spec:<24} {mean:+.5f} [{mean - half:+.5f}, {mean + half:+.5f}]   "
              f"better {better}, worse {worse}   mean rank {rank:.1f}")
    base = statistics.fmean(next(r["rank"] for r in run["rows"] if not r["vs"]) for run in runs)
    print(f"  {'baseline':<24} {'':<32} {'':<19} mean rank {base:.1f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
