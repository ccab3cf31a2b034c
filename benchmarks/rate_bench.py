"""Rating speed of the engine against the minimal implementation, in one run.

    python benchmarks/rate_bench.py                  # quick: about 20 s
    python benchmarks/rate_bench.py --repeat 15 --whole-repeat 11 --profile   # the full figures

(a) In process, tracing off, the rules already loaded: player-updates per
CPU-second of ``rate_event`` and of ``benchmarks/minimal.py`` (its reading of
the same in-memory event included) on one 400-player Swiss section and on
200 sections of 40 players (G/90;d30, OTBR, 2025-03-21, 5 rounds).  A
player-update is one player's new rating in one system.

(b) Whole process: CPU seconds of ``uschess rate FILE`` and of
``python benchmarks/minimal.py FILE`` (the child's own user + system time and
peak RSS, from ``os.wait4``) on the 400-player section written as an event
file and on ``fixtures/events/wfcc15.yaml``.  The minimal implementation runs
twice: with ``--params`` (the rules' values read from a JSON file written
beforehand from the rule book) and without (it loads the rule book itself).
The children start as an installed package does: their modules' bytecode
cached (a private ``PYTHONPYCACHEPREFIX``, filled by the check runs; pip
compiles a package's modules when it installs it) and the compiled rule book
cached (a private ``USCHESS_CACHE_DIR``, written by the first run).
``--compile-each-run`` measures them as this environment would otherwise
start them: with ``PYTHONDONTWRITEBYTECODE`` set and no cached bytecode,
every module is compiled from source at every start.  Beside the CPU time,
the instructions of one run of each (valgrind's cachegrind, where installed:
``sh benchmarks/setup.sh``), a count that does not move with the machine's
load.  The whole-process table is also written to
``benchmarks/results/rate.md`` (with the date, machine and command) and
``rate.json``.

Every figure is the median of interleaved repetitions (engine, minimal,
engine, ...), CPU time only: the machine is shared.  Before timing, the posts
of both are checked equal (to 1e-12) on every input; a difference stops the
benchmark.  ``--profile`` adds where the engine's time goes: the imports of
``uschess rate`` (``python -X importtime``), the loading of the rule book and
the rating of the 400-player section (cProfile, ``--repeat`` ratings after a
first one).
"""

from __future__ import annotations

import argparse
import cProfile
import json
import os
import pstats
import shutil
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import common as C  # noqa: E402
import minimal  # noqa: E402


def in_process(shapes, repeat: int, rounds: int) -> list:
    from uschess.rating.pipeline import RatingOptions, rate_event

    opts = RatingOptions(trace=False)
    P = minimal.load_params(C.DAY)["p"]
    rows = []
    for sections, players in shapes:
        event = C.swiss_event(sections, players, rounds)
        eng = rate_event(event, opts)
        mini = minimal.rate_event(minimal.sections_from_event(event), P)
        n = C.check_posts(C.engine_posts(eng), C.minimal_posts(mini))

        def engine_run():
            c0 = time.process_time()
            rate_event(event, opts)
            return time.process_time() - c0

        def minimal_run():
            c0 = time.process_time()
            minimal.rate_event(minimal.sections_from_event(event), P)
            return time.process_time() - c0

        got = C.interleaved({"engine": engine_run, "minimal": minimal_run}, repeat)
        e, m = C.median(got["engine"]), C.median(got["minimal"])
        rows.append((f"{sections} x {players} players", n, n / e, n / m, got))
    return rows


def whole_process(files, repeat: int, params: Path, env: dict, count: bool) -> list:
    """Per file: (name, updates checked, CPU medians, peak RSS, the runs,
    instructions of one run of each side or None) of ``uschess rate FILE``
    and ``minimal.py FILE`` with and without ``--params``."""
    rows = []
    for path in files:
        if count:  # (fills the cache of the rule book for 'python -m uschess' too)
            C.run_child([C.python(), "-m", "uschess", "rate", path], env=env)
        eng = json.loads(C.run_child(C.uschess() + ["rate", path, "--json"], env=env).out)
        eng_posts = {(s["name"], s["system"], p["id"]): p["post"]
                     for s in eng["sections"] for p in s["players"] if p.get("m")}
        mini = json.loads(C.run_child([C.python(), C.MINIMAL, path, "--params", params, "--json"],
                                      env=env).out)
        n = C.check_posts(eng_posts, {(p["section"], p["system"], p["id"]): p["post"] for p in mini})
        runs = {
            "engine": [C.uschess() + ["rate", path]],
            "minimal": [[C.python(), C.MINIMAL, path, "--params", params]],
            "minimal+book": [[C.python(), C.MINIMAL, path]],
        }
        rss: dict = defaultdict(list)

        def measure(name):
            def go():
                r = C.run_child(runs[name][0], env=env)
                rss[name].append(r.rss_mb)
                return r.cpu
            return go

        got = C.interleaved({name: measure(name) for name in runs}, repeat)
        counted = None
        if count:  # 'python -m uschess', whose rule book cache the check run above filled
            counted = {name: C.instructions(_as_module(runs[name][0]), env=env) for name in runs}
        rows.append((Path(path).name, n, {k: C.median(v) for k, v in got.items()},
                     {k: max(v) for k, v in rss.items()}, got, counted))
    return rows


def _as_module(cmd: list) -> list:
    """``cmd`` with the ``uschess`` script run as ``python -m uschess`` (what
    valgrind can run: an executable, not a script)."""
    if cmd[: len(C.uschess())] == C.uschess() and cmd[0] != C.python():
        return [C.python(), "-m", "uschess", *cmd[len(C.uschess()):]]
    return cmd


_PHASES = """
import contextlib, gc, io, json, sys, time
c0 = time.process_time()
gc.disable()  # as uschess.cli.main runs a command: see its docstring
from uschess.cli import build_parser
args = build_parser("rate").parse_args(["rate", sys.argv[1]])  # as 'uschess rate' builds it
gc.freeze()
gc.enable()
c1 = time.process_time()
from uschess.calendar.rulebook import RuleBook
RuleBook.load()
c2 = time.process_time()
with contextlib.redirect_stdout(io.StringIO()):
    code = args.func(args) or 0
gc.freeze()
c3 = time.process_time()
print(json.dumps([c0, c1 - c0, c2 - c1, c3 - c2]))
sys.exit(code)
"""
PHASES = ("interpreter start", "imports and the command line", "loading the rule book",
          "resolving, rating, printing", "exit")


def phases(path: str, repeat: int, env: dict) -> str:
    """Where the CPU time of ``uschess rate FILE`` goes, without a profiler:
    the phases timed inside the child (``time.process_time``), the rest of
    its CPU (wait4) after the last; medians of ``repeat`` runs."""
    runs = []
    for _ in range(repeat):
        r = C.run_child([C.python(), "-c", _PHASES, path], env=env)
        parts = json.loads(r.out)
        runs.append(parts + [r.cpu - sum(parts)] + [r.cpu])
    med = [C.median([run[i] for run in runs]) for i in range(len(PHASES) + 1)]
    total = med[-1]
    out = [f"where the CPU time of 'uschess rate {Path(path).name}' goes (median of {repeat} runs, "
           f"{total:.3f} s in all):"]
    for name, t in zip(PHASES, med):
        out.append(f"  {t:7.3f} s {100 * t / total:5.1f}%  {name}")
    return "\n".join(out)


def importtime(path: str, top: int, env: dict) -> str:
    """The imports of ``uschess rate FILE``: total, by top-level package, and
    the slowest modules (self time), from ``python -X importtime``."""
    proc = subprocess.run([C.python(), "-X", "importtime", "-c",
                           "import sys; from uschess.cli import main; sys.exit(main(sys.argv[1:]))",
                           "rate", path], capture_output=True, text=True, check=True, env=env)
    rows = []
    for line in proc.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        self_us, cum_us, name = line[len("import time:"):].split("|")
        rows.append((int(self_us), int(cum_us), name.rstrip()))
    total = sum(r[0] for r in rows)
    by_pkg: dict = defaultdict(int)
    for self_us, _, name in rows:
        by_pkg[name.strip().split(".")[0]] += self_us
    out = [f"imports of 'uschess rate': {total / 1e6:.3f} s (one run, wall clock of the import "
           f"machinery), {len(rows)} modules; by top-level package (self time):"]
    for pkg, us in sorted(by_pkg.items(), key=lambda x: -x[1])[:top]:
        out.append(f"  {us / 1e6:7.3f} s {100 * us / total:5.1f}%  {pkg}")
    out.append("slowest modules (self time):")
    for self_us, _, name in sorted(rows, reverse=True)[:top]:
        out.append(f"  {self_us / 1e6:7.3f} s  {name.strip()}")
    return "\n".join(out)


def _where(filename: str) -> str:
    """A profile entry's file as a short place: ``uschess/...``, a
    site-packages package, or the standard library module."""
    if filename == "~":
        return "(built-in functions)"
    path = Path(filename)
    parts = path.parts
    for root in ("engine", "rules", "rulesets"):
        if root in parts and str(C.ROOT) in filename:
            i = parts.index(root)
            return "/".join(("uschess" if root == "engine" else f"uschess/{root}",) + parts[i + 1:])
    if "site-packages" in parts:
        return parts[parts.index("site-packages") + 1]
    return path.name if filename.startswith(("/", "<frozen")) else filename


def profile(fn, top: int) -> str:
    """cProfile of ``fn()`` in CPU time: the total by file or package, then
    the functions with the most time of their own."""
    prof = cProfile.Profile(time.process_time)
    prof.enable()
    fn()
    prof.disable()
    stats = pstats.Stats(prof)
    total = sum(v[2] for v in stats.stats.values()) or 1e-9
    by_place: dict = defaultdict(float)
    for (filename, _, _), (_, _, tt, _, callers) in stats.stats.items():
        shares = {c: v[2] for c, v in callers.items()} if filename == "~" else {}
        whole = sum(shares.values())
        if whole <= 0:
            by_place[_where(filename)] += tt
            continue
        for (cfile, _, _), t in shares.items():  # a built-in's time goes to its callers
            by_place[_where(cfile)] += tt * t / whole
    out = [f"{total:.3f} s CPU under the profiler; own time by file or package "
           "(built-in functions charged to their callers):"]
    for place, t in sorted(by_place.items(), key=lambda x: -x[1])[:top]:
        out.append(f"  {t:7.3f} s {100 * t / total:5.1f}%  {place}")
    out.append("functions with the most time of their own:")
    rows = sorted(stats.stats.items(), key=lambda kv: -kv[1][2])[:top]
    for (filename, line, name), (_, calls, tt, ct, _) in rows:
        out.append(f"  {tt:7.3f} s own {ct:7.3f} s cum {calls:8d} calls  "
                   f"{_where(filename)}:{line}({name})")
    return "\n".join(out)


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n\n".join(__doc__.split("\n\n")[1:3]))
    ap.add_argument("--players", type=int, default=400, help="players of the large section (400)")
    ap.add_argument("--rounds", type=int, default=5, help="rounds of every section (5)")
    ap.add_argument("--sections", type=int, default=200,
                    help="sections of the many-sections shape (200, of 40 players)")
    ap.add_argument("--repeat", type=int, default=7, help="in-process repetitions (7)")
    ap.add_argument("--whole-repeat", type=int, default=5, help="whole-process repetitions (5)")
    ap.add_argument("--profile", action="store_true",
                    help="print where the engine's time goes (imports, rule loading, rating)")
    ap.add_argument("--top", type=int, default=15, help="profile lines to show (15)")
    ap.add_argument("--no-instructions", action="store_true",
                    help="leave out the whole process's instruction counts (valgrind)")
    ap.add_argument("--no-results", action="store_true",
                    help="do not write the whole-process table to benchmarks/results/")
    C.add_compile_each_run(ap)
    args = ap.parse_args(argv)
    print(C.formulas_line())

    print(f"in process, tracing off, rules loaded; CPU time, median of {args.repeat} "
          "interleaved runs; posts checked equal to 1e-12")
    print(f"  {'shape':22} {'updates':>8} {'engine upd/s':>13} {'minimal upd/s':>14} "
          f"{'time engine/minimal':>20}")
    for shape, n, e, m, _ in in_process([(1, args.players), (args.sections, 40)], args.repeat,
                                        args.rounds):
        print(f"  {shape:22} {n:8d} {e:13,.0f} {m:14,.0f} {m / e:19.2f}x")

    with tempfile.TemporaryDirectory() as tmp:
        from uschess.io.eventfile import write_event

        big = Path(tmp) / f"swiss{args.players}.json"
        write_event(C.swiss_event(1, args.players, args.rounds), big)
        params = Path(tmp) / "params.json"
        C.write_params(params)
        files = [str(big), str(C.ROOT / "fixtures" / "events" / "wfcc15.yaml")]
        env = C.child_env(Path(tmp), args.compile_each_run)
        print(f"\nwhole process, child CPU seconds (user + system), median of "
              f"{args.whole_repeat} interleaved runs; posts checked equal to 1e-12; "
              + ("every module compiled at every start" if args.compile_each_run else
                 "bytecode and the compiled rule book cached (as installed, after a first run)"))
        count = not args.no_instructions and shutil.which("valgrind") is not None
        if not args.no_instructions and not count:
            print("  (no instruction counts: valgrind is not installed; sh benchmarks/setup.sh)")
        header = ["file", "updates", "uschess rate CPU s", "minimal CPU s", "minimal+book CPU s",
                  "CPU engine/minimal"]
        if count:
            header += ["M instructions engine", "M instructions minimal",
                       "instructions engine/minimal"]
        header += ["peak RSS MB engine", "peak RSS MB minimal"]
        table, data = [], {}
        for name, n, med, rss, got, counted in whole_process(files, args.whole_repeat, params,
                                                             env, count):
            row = [name, n, f"{med['engine']:.3f}", f"{med['minimal']:.3f}",
                   f"{med['minimal+book']:.3f}", f"{med['engine'] / med['minimal']:.2f}x"]
            if counted:
                row += [f"{counted['engine'] / 1e6:.0f}", f"{counted['minimal'] / 1e6:.0f}",
                        f"{counted['engine'] / counted['minimal']:.2f}x"]
            row += [f"{rss['engine']:.0f}", f"{rss['minimal']:.0f}"]
            table.append(row)
            data[name] = {"updates": n, "cpu_runs": got, "cpu_median": med,
                          "instructions": counted, "peak_rss_mb": rss}
        C.print_table(header, table)
        if not args.no_results:
            notes = [
                "Whole process, cold: the child's user + system CPU seconds (median of "
                f"{args.whole_repeat} interleaved runs) and the instructions of one run under "
                "valgrind's cachegrind; posts checked equal to 1e-12 first.",
                "minimal: benchmarks/minimal.py reading the event file (JSON, or YAML with "
                "libyaml) and rating it with the five steps, the rules' values from a JSON file "
                "written beforehand; "
                "minimal+book: the same loading the project's rule book.",
                "Children start as an installed command does: bytecode and the compiled rule "
                "book cached, filled by a first run." if not args.compile_each_run else
                "Every module compiled at every start (--compile-each-run).",
                f"The {C.formulas_line()}."]
            data.update(formulas=C.formulas_line(), repeat=args.whole_repeat)
            md = C.write_results("rate", "uschess rate, whole process, against a minimal cold "
                                 "rate", C.command_line("rate_bench.py", argv), header, table,
                                 notes, data)
            print(f"  written: {md.relative_to(C.ROOT)} and {md.with_suffix('.json').name}")
        if args.profile:
            from uschess.calendar.rulebook import RuleBook
            from uschess.rating.pipeline import RatingOptions, rate_event

            print("\n" + phases(str(big), args.whole_repeat, env))
            print("\n" + importtime(str(big), args.top, env))
            import yaml

            print(f"\nbuilding the rule book from the YAML (the first run, or a rule file changed) "
                  f"and resolving one date, in process (libyaml "
                  f"{'available' if getattr(yaml, '__with_libyaml__', False) else 'NOT available'}):\n"
                  + profile(lambda: RuleBook.build().rules(C.DAY), args.top))
            os.environ["USCHESS_CACHE_DIR"] = env["USCHESS_CACHE_DIR"]
            RuleBook.load_compiled()  # the cache is written
            print("\nloading the rule book from its cache and resolving one date, in process:\n"
                  + profile(lambda: RuleBook.load_compiled().rules(C.DAY), args.top))
            event = C.swiss_event(1, args.players, args.rounds)
            opts = RatingOptions(trace=False)
            rate_event(event, opts)  # what a first rating reads once (the rules' caches)

            def ratings():
                for _ in range(args.repeat):
                    rate_event(event, opts)

            print(f"\nrating the {args.players}-player section in process, tracing off, "
                  f"{args.repeat} times:\n" + profile(ratings, args.top))
    return 0


if __name__ == "__main__":
    sys.exit(main())
