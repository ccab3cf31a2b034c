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
resolved better (interval below 0) or worse (above 0) than the baseline
(:mod:`uschess.apps.sweep_across`, which ``uschess sweep --each`` prints
for history directories).

The bootstrap interval of one history says how the answer varies with the
events of that history; the interval between seeds also takes in the
players' careers, which differ from seed to seed.  Seeds run in parallel
in ``--workers`` processes (default 2; 1: in this one).
"""

from __future__ import annotations

import argparse
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

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
    return {"seed": seed, "cpu": time.process_time() - started, "rows": rows}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--vary", default="bonus_multiplier=6,10,14,16", metavar="PARAM=V1,V2,...")
    ap.add_argument("--seeds", type=_seeds, default=_seeds("14-21"), metavar="A-B|A,B,...")
    ap.add_argument("--players", type=int, default=3000)
    ap.add_argument("--events", type=int, default=1000)
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args(argv)
    from uschess.apps.sweep import BASELINE, combinations, parse_vary
    from uschess.apps.sweep_across import across
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
    answer = across([f"seed {run['seed']}" for run in runs], [run["rows"] for run in runs],
                    BASELINE)
    print("\n".join(answer.format()))
    print("CPU seconds per seed: " + ", ".join(f"{run['seed']}: {run['cpu']:.0f}" for run in runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
