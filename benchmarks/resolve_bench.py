"""Time the resolution of the rules in force on a new date.

    python benchmarks/resolve_bench.py [--dates 3000] [--seed 1]

Each date is asked of the rule book once, as a history asks it: the CPU time
of ``RuleBook.rules(date)`` per date, median printed.  The rule book resolves
a date as a lookup (the latest change point on or before it, then the rules
resolved for that point); the first date of a period resolves every entry,
and that cost is measured too, with the book's memo emptied before each date.
Beside them, the median of a minimal resolver kept here: values precomputed
for every change point, a bisection and a dict.  All three are checked to
give the same parameter values and plugins on every date.  Building the rule
book (and its one plugin manager) is a one-off cost, printed separately.
"""

from __future__ import annotations

import argparse
import bisect
import datetime as dt
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from uschess.calendar.rulebook import RuleBook  # noqa: E402
from uschess.calendar.timeline import Timeline  # noqa: E402


def _default_value(t: Timeline, on: dt.date, defaults: dict):
    """The latest entry in force on ``on`` under the default readings (or None)."""
    value = None
    for e in t.entries:  # sorted by effective date
        if e.effective > on:
            break
        if e.conflict is None or defaults[e.conflict] == e.reading:
            value = (e.value,)
    return value


class MinimalResolver:
    """Change points and, for each, the values in force: resolution is a
    bisection and a dict lookup.  Default readings, no known-on date."""

    def __init__(self, book: RuleBook):
        defaults = {cid: c.default for cid, c in book.conflicts.items()}
        groups = {"p": book.timelines, "s": book.slots}
        self.points = sorted({e.effective for g in groups.values() for t in g.values() for e in t.entries})
        self.table = {}
        for point in self.points:
            row = {}
            for kind, group in groups.items():
                row[kind] = {}
                for name, t in group.items():
                    got = _default_value(t, point, defaults)
                    if got is not None:
                        row[kind][name] = got[0]
            self.table[point] = row

    def resolve(self, on: dt.date) -> dict:
        return self.table[self.points[bisect.bisect_right(self.points, on) - 1]]


def cpu_ns(fn, arg) -> tuple[int, object]:
    t0 = time.process_time_ns()
    out = fn(arg)
    return time.process_time_ns() - t0, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--dates", type=int, default=3000, help="distinct dates to resolve")
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args(argv)

    t0 = time.process_time_ns()
    book = RuleBook.build()
    build_ms = (time.process_time_ns() - t0) / 1e6
    fresh = RuleBook.build()
    minimal = MinimalResolver(book)
    first, last = book.earliest(), dt.date.today()
    span = (last - first).days
    rng = random.Random(args.seed)
    dates = rng.sample([first + dt.timedelta(days=i) for i in range(span + 1)], min(args.dates, span + 1))

    book_ns, full_ns, minimal_ns = [], [], []
    for on in dates:
        ns, rules = cpu_ns(book.rules, on)
        book_ns.append(ns)
        fresh._cache.clear()  # noqa: SLF001 - every entry resolved again for this date
        ns, full = cpu_ns(fresh.rules, on)
        full_ns.append(ns)
        ns, values = cpu_ns(minimal.resolve, on)
        minimal_ns.append(ns)
        for what, got in (("lookup", rules), ("full resolution", full)):
            got = {"p": {k: v.value for k, v in got.params.items()},
                   "s": {k: v.value for k, v in got.plugins.items()}}
            if got != values:
                diff = sorted(k for kind in got for k in set(got[kind]) | set(values[kind])
                              if got[kind].get(k) != values[kind].get(k))
                print(f"{what} disagrees with the minimal lookup on {on}: {', '.join(diff)}",
                      file=sys.stderr)
                return 1

    med_book, med_full = statistics.median(book_ns) / 1e3, statistics.median(full_ns) / 1e3
    med_min = max(statistics.median(minimal_ns), 1) / 1e3
    print(f"rule book built once: {build_ms:.1f} ms CPU ({len(book.registered)} plugins, "
          f"{len(book.timelines)} parameters, {len(book.slots)} slots)")
    print(f"{len(dates)} new dates {first}..{last}: the same values from all three on every date")
    print(f"RuleBook.rules(new date):         median {med_book:7.2f} us CPU "
          f"({med_book / med_min:.1f}x the minimal lookup)")
    print(f"  every entry resolved (no memo): median {med_full:7.2f} us CPU "
          f"({med_full / med_min:.0f}x the minimal lookup)")
    print(f"minimal lookup:                   median {med_min:7.2f} us CPU")
    print(f"a new date {'is well under' if max(med_book, med_full) < 500 else 'is NOT under'} 1 ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
