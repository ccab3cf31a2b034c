"""``uschess compare`` of two rule versions against one replay of the same history.

    python benchmarks/compare_bench.py                     # quick: 300 events, about 40 s
    python benchmarks/compare_bench.py --events 2000 --repeat 3   # the full figures

A history of 2001-2025 is generated (``uschess generate --uncalibrated``, the
workload the stored figures measured: every rule period and all six systems) into a temporary directory.  Then, interleaved and
repeated, two child processes:

* ``uschess replay FILES --db FILE``: one replay into a new SQLite store;
* ``uschess compare FILES --a baseline --b reform:fixtures/reforms/b-stays-14.yaml``:
  the same history rated under two rule versions, each through its own chain.

The children start as an installed command does, their bytecode and the
compiled rule book cached (:func:`common.child_env`; the check runs before
the timed ones fill the caches).

Printed: each child's CPU seconds (its own user + system time, from
``os.wait4``) and peak RSS, the median of the repetitions, and the time ratio
compare/replay (two rule versions: twice the rating, no store).  Before the
figures, side A of the comparison (the baseline) is checked to give every
post of the replay's store, bit for bit.  ``--profile`` adds where the
comparison spends its time (cProfile of the same command in this process).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common as C  # noqa: E402

REFORM = C.ROOT / "fixtures" / "reforms" / "b-stays-14.yaml"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog=__doc__.split("\n\n")[1])
    ap.add_argument("--events", type=int, default=300, help="events of the history (300)")
    ap.add_argument("--players", type=int, help="players (default: 2.2 per event, at least 200)")
    ap.add_argument("--seed", type=int, default=7)
    ap.add_argument("--repeat", type=int, default=3, help="interleaved repetitions (3)")
    ap.add_argument("--b", default=f"reform:{REFORM}", help="the rules of side B (the B-stays-14 reform)")
    ap.add_argument("--profile", action="store_true", help="print where compare spends its time")
    ap.add_argument("--top", type=int, default=20, help="profile lines to show (20)")
    args = ap.parse_args(argv)
    print(C.formulas_line())

    players = args.players or max(200, int(args.events * 2.2))
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        history = work / "history"
        # the children start as an installed command does: bytecode and rule
        # book cached (filled by the runs before the timed ones)
        env = C.child_env(work)
        C.run_child(C.uschess() + ["generate", "--players", players, "--events", args.events,
                                   "--seed", args.seed, "--uncalibrated", "-o", history],
                    env=env)
        files = sorted(str(p) for p in history.glob("*.json"))
        replay = C.uschess() + ["replay", *files, "--json", "--db"]
        compare_args = ["compare", *files, "--a", "baseline", "--b", args.b]
        compare = C.uschess() + compare_args

        first = C.run_child(replay + [work / "check.db"], env=env)
        games = json.loads(first.out)["player_games"]
        cmp = json.loads(C.run_child(compare + ["--json"], env=env).out)
        side_a = {(r["event"], r["section"], r["system"], r["id"]): r["a"] for r in cmp["players"]}
        stored = {k: post for k, (_, post) in C.store_changes(str(work / "check.db")).items()}
        if side_a != stored:
            bad = sorted(k for k in side_a.keys() | stored.keys() if side_a.get(k) != stored.get(k))
            raise SystemExit(f"compare's baseline differs from the replay at {len(bad)} posts, "
                             f"e.g. {bad[:1]}")
        changed = sum(1 for r in cmp["players"] if r["diff"])
        print(f"history: seed {args.seed}, {players:,} players, {len(files):,} events "
              f"2001-2025, {games:,} player-games")
        print(f"compare's side A checked equal to the replay's store: {len(stored):,} posts, "
              f"bit for bit; side B changes {changed:,} of {len(side_a):,}")

        rss: dict = {"replay": [], "compare": []}
        n = [0]

        def run(name):
            def go():
                n[0] += 1
                cmd = replay + [work / f"r{n[0]}.db"] if name == "replay" else compare
                r = C.run_child(cmd, env=env)
                rss[name].append(r.rss_mb)
                return r.cpu
            return go

        got = C.interleaved({"replay": run("replay"), "compare": run("compare")}, args.repeat)
        if args.profile:
            from rate_bench import profile

            from uschess.cli import main as cli

            def compare_in_process():
                with contextlib.redirect_stdout(io.StringIO()):
                    cli(compare_args)
            report = profile(compare_in_process, args.top)
    r, c = C.median(got["replay"]), C.median(got["compare"])
    print(f"\nchild CPU seconds (user + system), median of {args.repeat} interleaved runs:")
    print(f"  {'':44} {'CPU s':>8} {'peak RSS MB':>12}")
    print(f"  {'uschess replay (one rule version, a store)':44} {r:8.2f} {max(rss['replay']):12.0f}")
    print(f"  {'uschess compare (two rule versions)':44} {c:8.2f} {max(rss['compare']):12.0f}")
    print(f"  time compare/replay: {c / r:.2f}x   (runs: replay {C.spread(got['replay'])} s, "
          f"compare {C.spread(got['compare'])} s)")
    if args.profile:
        print("\nthe comparison in this process (cProfile, CPU time):\n" + report)
    return 0


if __name__ == "__main__":
    sys.exit(main())
