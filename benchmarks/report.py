"""Write the benchmarks page of the docs (docs/benchmarks.md) from a run.

    python benchmarks/report.py                  # every benchmark's quick default (a few minutes)
    python benchmarks/report.py --only rate_bench,resolve_bench

Each benchmark prints its own tables (ratios against the yardstick,
``benchmarks/minimal.py``, measured in the same run); this script runs each
one and writes the page: when, on what machine, with which code, and each
command with what it printed.  The figures on the page are therefore those
of one run, never copied by hand; rerun it to bring the page up to date.
Where a benchmark fails, the page says so with its last lines.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "benchmarks.md"

#: (script, arguments, what it measures), in the order of the page.
BENCHMARKS = [
    # (--no-results: the quick defaults here leave benchmarks/results/, the
    # full measurements of the commands named there, as they are)
    ("rate_bench", ["--no-results"], "rating speed, in process and as a whole `uschess rate` process"),
    ("resolve_bench", [], "resolving the rules in force on a new date"),
    ("read_bench", [], "reading event files (YAML, JSON): the parsers, the checked reader, `load_event`"),
    ("sections_bench", [], "the cost per section of an event of many two-player sections, "
                           "against the smallest (1.0: proportional to the input)"),
    ("replay_bench", ["--no-results"], "`uschess replay` into SQLite: speed and peak memory"),
    ("compare_bench", [], "`uschess compare` of two versions against one replay"),
    ("sweep_bench", [], "a sweep of five values of B on one and two Dask workers"),
    ("web_bench", [], "requests per second of the web application (test client)"),
]


def _cpu_model() -> str:
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def _machine() -> list[str]:
    version = subprocess.run([sys.executable, "-m", "uschess", "--version"], capture_output=True,
                             text=True).stdout.strip()
    commit = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    load = " ".join(f"{x:.2f}" for x in os.getloadavg()) if hasattr(os, "getloadavg") else "unknown"
    return [f"- date: {_dt.datetime.now(_dt.timezone.utc):%Y-%m-%d %H:%M} UTC",
            f"- machine: {_cpu_model()}, {os.cpu_count()} cores, {platform.system()} {platform.release()}",
            f"- load average when the run began: {load}",
            f"- Python {platform.python_version()}; {version}; commit {commit}"]


def _run(script: str, args: list[str]) -> tuple[str, int, float]:
    cmd = [sys.executable, str(ROOT / "benchmarks" / f"{script}.py"), *args]
    start = time.monotonic()
    proc = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    out = proc.stdout.rstrip() if proc.returncode == 0 else (proc.stdout + proc.stderr).rstrip()
    return out, proc.returncode, time.monotonic() - start


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--only", help="comma-separated benchmark names (default: all)")
    ap.add_argument("-o", "--output", type=Path, default=PAGE, help=f"the page to write ({PAGE.relative_to(ROOT)})")
    args = ap.parse_args(argv)
    chosen = [b for b in BENCHMARKS if not args.only or b[0] in args.only.split(",")]
    lines = ["# Benchmarks", "",
             "<!-- Written by benchmarks/report.py from one run; rerun it rather than editing. -->", "",
             "Speed and memory are measured as ratios against a yardstick run in the same window: "
             "`benchmarks/minimal.py`, a short pure-Python implementation of the five steps of sec. 1 "
             "for one date's rules. Before printing a figure each benchmark checks that the engine and "
             "the yardstick give the same posts, and stops if not. Times are CPU times (the machine may "
             "be shared), the median of interleaved repetitions. Each script has `--help`; its "
             "docstring gives the command for the full figures.", "",
             "## The run", "", *_machine(), ""]
    status = 0
    for script, extra, what in chosen:
        print(f"running {script} ...", file=sys.stderr, flush=True)
        out, code, wall = _run(script, extra)
        shown = " ".join(["python", f"benchmarks/{script}.py", *extra])
        lines += [f"## {script}", "", f"{what[0].upper()}{what[1:]}.", "", f"`{shown}` ({wall:.0f} s of wall time"
                  + (")" if code == 0 else f"; it failed with status {code})") + ":", "",
                  "```text", *(out.splitlines()[-60:] or ["(nothing printed)"]), "```", ""]
        status = status or (1 if code else 0)
    args.output.write_text("\n".join(lines), encoding="utf-8")
    print(f"wrote {args.output}", file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
