"""How the cost of an event grows with its number of sections.

    python benchmarks/sections_bench.py [--sizes 1000,4000,15000] [--repeat 3]

An event of N sections of two players each (one game, both rated: the
shape of a file of many matches) is written as JSON and, in this process,
read (``load_event``), rated (``rate_event``) and printed (the crosstable
``uschess rate`` prints), for each N.  Each figure is CPU seconds per 1,000
sections, the best of ``--repeat`` runs (CPU time: the machine is shared).
The growth of a size is its cost per section over the smallest size's: 1.0
where the cost is proportional to the input.  A part of the work that grows
faster than the input (a list searched once per section, say) shows as a
growth that rises with N.  A larger heap costs a little more per object in
the processor's caches, more in a loaded hour: the yardstick, the plain JSON
parser and ``benchmarks/minimal.py`` rating the same sections (the cycle
collector paused, as the engine pauses it), is measured beside, and
"relative" is the engine's growth over the yardstick's.

``--lines`` counts, instead of timing, the lines of Python the same work
executes (read, rate, print; the interpreter's line events), a figure that
does not move with the machine's load: where each section costs the same
lines, the count rises by the same amount from N to 2N as from 2N to 3N.
Work done inside compiled code (the kernel, the JSON parser, a search of a
list in one C call) is not counted; ``USCHESS_PURE=1`` counts the Python
body's.

``--json`` prints the figures as JSON.
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import minimal  # noqa: E402

from uschess import collector  # noqa: E402
from uschess.apps.report import format_event  # noqa: E402
from uschess.io.eventfile import load_event  # noqa: E402
from uschess.rating.pipeline import RatingOptions, rate_event  # noqa: E402


def event_data(sections: int, rated: bool = True) -> dict:
    """An event of ``sections`` two-player sections on one day."""
    def player(pair: int, i: int, rating: float, cell: str) -> dict:
        out = {"pair": pair, "id": f"{pair}{i:07d}", "name": f"P{i}",
               "rounds": [cell]}
        if rated:
            out["ratings"] = {"OTBR": {"rating": rating, "games": 30}}
        return out

    return {"event": {"name": "Many matches", "start": "2025-03-01"},
            "sections": [{"name": f"M{i}", "time_control": "G/90",
                          "players": [player(1, i, 1500.0, "W2"), player(2, i, 1400.0, "L1")]}
                         for i in range(sections)]}


def cpu(fn) -> tuple[float, object]:
    gc.collect()
    started = time.process_time()
    value = fn()
    return time.process_time() - started, value


def yardstick(path: Path, event) -> float:
    """CPU seconds of the plain JSON parser on the file and of the minimal
    implementation rating its sections, the collector paused."""
    params = minimal.load_params(event.start)["p"]
    with collector.paused():
        seconds, _ = cpu(lambda: minimal.rate_event(minimal.sections_from_event(event), params))
        parse, _ = cpu(lambda: json.loads(path.read_text(encoding="utf-8")))
    return seconds + parse


def measure(path: Path, repeat: int) -> dict:
    """Best CPU seconds of reading, rating and printing the event at ``path``,
    and of the yardstick."""
    best = {"read": float("inf"), "rate": float("inf"), "print": float("inf"),
            "yardstick": float("inf")}
    for _ in range(repeat):
        read, event = cpu(lambda: load_event(path))
        rate, result = cpu(lambda: rate_event(event, RatingOptions(trace=False)))
        shown, _ = cpu(lambda: format_event(result))
        for key, value in (("read", read), ("rate", rate), ("print", shown),
                           ("yardstick", yardstick(path, event))):
            best[key] = min(best[key], value)
    best["total"] = best["read"] + best["rate"] + best["print"]
    return best


def lines_executed(path: Path) -> int:
    """The lines of Python executed reading, rating and printing the event
    at ``path`` (calls counted as lines too)."""
    count = 0

    def tracer(frame, event, arg):
        nonlocal count
        if event in ("line", "call"):
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        format_event(rate_event(load_event(path), RatingOptions(trace=False)))
    finally:
        sys.settrace(None)
    return count


def count_lines(sizes: list[int]) -> list[dict]:
    """Lines executed for each size, after a first small event has paid
    for what runs once per process (imports, caches)."""
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in [min(sizes)] + sizes:
            path = Path(tmp) / f"many-{n}.json"
            path.write_text(json.dumps(event_data(n), separators=(",", ":")))
            rows.append({"sections": n, "lines": lines_executed(path)})
    return rows[1:]


def run(sizes: list[int], repeat: int) -> list[dict]:
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            path = Path(tmp) / f"many-{n}.json"
            path.write_text(json.dumps(event_data(n), separators=(",", ":")))
            seconds = measure(path, repeat)
            rows.append({"sections": n, "bytes": path.stat().st_size,
                         **{f"{k}_per_1000": v * 1000 / n for k, v in seconds.items()}})
    base = rows[0]
    for row in rows:
        for part in ("read", "rate", "print", "total", "yardstick"):
            row[f"{part}_growth"] = row[f"{part}_per_1000"] / base[f"{part}_per_1000"]
        row["relative_growth"] = row["total_growth"] / row["yardstick_growth"]
    return rows


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000,4000,15000",
                    help="section counts, smallest first (the yardstick)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--lines", action="store_true",
                    help="count the lines of Python executed instead of timing")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    sizes = sorted(int(x) for x in args.sizes.split(","))
    if args.lines:
        rows = count_lines(sizes)
        if args.json:
            print(json.dumps(rows, indent=2))
            return 0
        print(f"{'sections':>9} {'lines':>12} {'per section':>12}")
        for r in rows:
            print(f"{r['sections']:>9,} {r['lines']:>12,} {r['lines'] / r['sections']:>12,.1f}")
        return 0
    rows = run(sizes, args.repeat)
    if args.json:
        print(json.dumps(rows, indent=2))
        return 0
    print(f"CPU seconds per 1,000 two-player sections (best of {args.repeat}); growth: per "
          f"section over the {sizes[0]:,}-section event's")
    print(f"{'sections':>9} {'MB':>6} {'read':>7} {'rate':>7} {'print':>7} {'total':>7} "
          f"{'growth':>7} {'yardstick':>9} {'growth':>7} {'relative':>8}")
    for r in rows:
        print(f"{r['sections']:>9,} {r['bytes'] / 1e6:>6.2f} {r['read_per_1000']:>7.3f} "
              f"{r['rate_per_1000']:>7.3f} {r['print_per_1000']:>7.3f} "
              f"{r['total_per_1000']:>7.3f} {r['total_growth']:>7.2f} "
              f"{r['yardstick_per_1000']:>9.3f} {r['yardstick_growth']:>7.2f} "
              f"{r['relative_growth']:>8.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
