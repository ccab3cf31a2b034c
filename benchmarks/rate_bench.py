"""Rate generated events and print player-updates per second and peak memory.

    python benchmarks/rate_bench.py [--sections 200] [--players 40] [--rounds 5] [--profile]

A player-update is one player's new rating in one system.  Sections are Swiss
events of established, provisional and unrated players at G/90;d30 (one
system) dated 2025-03-21; results are drawn from the ratings with a fixed seed.
"""

from __future__ import annotations

import argparse
import cProfile
import datetime as dt
import pstats
import random
import resource
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from uschess.model import Event, Player, Round, Section, SystemRecord  # noqa: E402
from uschess.rating.pipeline import RatingOptions, rate_event  # noqa: E402


def swiss_section(rng: random.Random, idx: int, n: int, rounds: int) -> Section:
    strengths = [rng.gauss(1500, 350) for _ in range(n)]
    players = []
    for i in range(n):
        ratings = {}
        kind = rng.random()
        if kind < 0.75:
            ratings["OTBR"] = SystemRecord(strengths[i] + rng.gauss(0, 60), rng.randint(26, 900))
        elif kind < 0.92:
            ratings["OTBR"] = SystemRecord(strengths[i] + rng.gauss(0, 120), rng.randint(1, 25))
        players.append(Player(pair=i + 1, id=f"{idx:05d}{i:03d}", name=f"P{idx}-{i}", rounds=[],
                              ratings=ratings, adult=rng.random() < 0.6,
                              birth_date=dt.date(rng.randint(1950, 2015), 6, 1)))
    score = [0.0] * n
    for _ in range(rounds):
        order = sorted(range(n), key=lambda k: (-score[k], rng.random()))
        if n % 2:
            bye = order.pop()
            players[bye].rounds.append(Round("B"))
            score[bye] += 1
        for a, b in zip(order[::2], order[1::2]):
            e = 1 / (1 + 10 ** ((strengths[b] - strengths[a]) / 400))
            x = rng.random()
            ra, rb = ("W", "L") if x < e - 0.1 else (("D", "D") if x < e + 0.1 else ("L", "W"))
            players[a].rounds.append(Round(ra, b + 1))
            players[b].rounds.append(Round(rb, a + 1))
            score[a] += {"W": 1, "D": 0.5, "L": 0}[ra]
            score[b] += {"W": 1, "D": 0.5, "L": 0}[rb]
    day = dt.date(2025, 3, 21)
    return Section(f"S{idx}", "G/90;d30", players, day, day)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sections", type=int, default=200)
    ap.add_argument("--players", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--profile", action="store_true")
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    sections = [swiss_section(rng, i, args.players, args.rounds) for i in range(args.sections)]
    event = Event("bench", sections[0].start, sections[0].end, sections)
    opts = RatingOptions(trace=False)
    rate_event(Event("warm", event.start, event.end, sections[:1]), opts)  # load rules once
    prof = cProfile.Profile() if args.profile else None
    t0 = time.perf_counter()
    if prof:
        prof.enable()
    result = rate_event(event, opts)
    if prof:
        prof.disable()
    elapsed = time.perf_counter() - t0
    # memory in a second, traced run (tracing slows the first's clock)
    tracemalloc.start()
    rate_event(event, opts)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    updates = sum(1 for s in result.sections for p in s.players if p.m)
    print(f"player-updates: {updates} in {elapsed:.3f} s = {updates / elapsed:,.0f} per second")
    print(f"peak traced memory during rating: {peak / 2**20:.1f} MiB; "
          f"max RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.1f} MiB")
    if prof:
        pstats.Stats(prof).sort_stats("cumulative").print_stats(18)
    return 0


if __name__ == "__main__":
    sys.exit(main())
