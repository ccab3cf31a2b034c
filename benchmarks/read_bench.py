"""Read a large event file and print megabytes per second: the whole reader
(:func:`uschess.io.eventfile.load_event`) and the checked YAML/JSON reader
alone (:func:`uschess.io.textdata.parse_data`), beside the plain parsers
(``yaml.safe_load``, ``json.loads``) for what the checks cost.

    python benchmarks/read_bench.py [--sections 100] [--players 40] [--rounds 5]

The event is made of the generated Swiss sections of ``common.py``, written
in both formats to a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from common import swiss_event  # noqa: E402

from uschess.io.eventfile import load_event, write_event  # noqa: E402
from uschess.io.textdata import parse_data  # noqa: E402


def best_of(runs: int, fn) -> float:
    best = float("inf")
    for _ in range(runs):
        started = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - started)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sections", type=int, default=100)
    ap.add_argument("--players", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    event = swiss_event(args.sections, args.players, args.rounds)
    with tempfile.TemporaryDirectory() as tmp:
        for suffix, plain in ((".yaml", yaml.safe_load), (".json", json.loads)):
            path = Path(tmp) / f"event{suffix}"
            write_event(event, path)
            text = path.read_text(encoding="utf-8")
            mb = len(text.encode("utf-8")) / 1e6
            rows = [("plain parser", best_of(args.runs, lambda: plain(text))),
                    ("checked reader", best_of(args.runs, lambda: parse_data(
                        text, json_format=suffix == ".json"))),
                    ("load_event", best_of(args.runs, lambda: load_event(path)))]
            print(f"{suffix[1:]}: {mb:.2f} MB, {args.sections * args.players} players")
            for name, seconds in rows:
                print(f"  {name:<15} {seconds:7.3f} s  {mb / seconds:7.2f} MB/s")


if __name__ == "__main__":
    main()
