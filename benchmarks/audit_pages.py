"""The CPU seconds of auditing named pages, with one engine or several.

    python benchmarks/audit_pages.py [PAGE ...] [--heaviest N] [--over SECONDS]
                                     [--engine PYTHON ...] [--repeat R] [--json-dir DIR]

Audits each page as ``uschess audit PAGE --json`` does with no options (a
PACL section page for the section its file name names, as
``benchmarks/audit_verdicts.py`` does), each audit in a child process of its
own, and prints a table of the audit's CPU seconds per page (measured in the
child with ``time.process_time`` around the audit alone: not the start of
the interpreter, the import of the engine or the rule book's load).

Pages are named by path or by file name (looked up in the two corpora of
``../shared/data/real``), or taken from the stored full runs
``benchmarks/results/audit-{national,pacl}.jsonl``: ``--heaviest N`` the N
pages whose stored audit took the most CPU, ``--over SECONDS`` every page whose
stored audit took more than SECONDS.

``--engine PYTHON`` (repeatable) names the interpreter of each engine to
compare, for instance an installed checkout's and a worktree's: each page is
audited by every engine in turn, ``--repeat R`` times, interleaved (page by
page, engine by engine), and the table shows each engine's median.  The
audit's whole JSON report is compared between the engines; a page whose
reports differ is marked, and ``--json-dir DIR`` keeps every report
(``DIR/ENGINE-INDEX/PAGE.json``) for a closer look.  The default engine is
this interpreter.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "data" / "real"
FOLDERS = (REAL / "pacl-2001-2021" / "sections", REAL / "tourneydata-2001-2014" / "tourneyInfo")
STORED = (ROOT / "benchmarks" / "results" / "audit-national.jsonl",
          ROOT / "benchmarks" / "results" / "audit-pacl.jsonl")
PACL_NAME = re.compile(r"XtblMain_([0-9]+)_([0-9]+)\.html$")


def audit_one(page: str, json_out: str | None) -> None:
    """Audit ``page`` in this process; print its CPU seconds and posts as JSON
    and write the audit's report to ``json_out``."""
    from uschess.apps.audit import audit_page

    f = Path(page)
    m = PACL_NAME.search(f.name)
    cpu = time.process_time()
    a = audit_page(f, section=m.group(2) if m else None)
    cpu = time.process_time() - cpu
    if json_out:
        Path(json_out).write_text(json.dumps(a.as_dict(), indent=1, sort_keys=True),
                                  encoding="utf-8")
    print(json.dumps({"cpu_seconds": cpu, "posts": a.total}))


def find_page(name: str) -> Path:
    """A page named by path, or by file name in one of the corpora."""
    p = Path(name)
    if p.is_file():
        return p.resolve()
    for folder in FOLDERS:
        hits = sorted(folder.rglob(p.name)) if folder.is_dir() else []
        if hits:
            return hits[0]
    raise SystemExit(f"{name}: no such page here or in {', '.join(map(str, FOLDERS))}")


def stored_pages() -> list[dict]:
    """Every page of the stored full runs with its CPU seconds."""
    pages = []
    for path in STORED:
        if path.exists():
            lines = path.read_text(encoding="utf-8").splitlines()[1:]
            pages += [p for p in map(json.loads, lines) if "cpu_seconds" in p]
    return pages


def run(engine: str, page: Path, json_out: str) -> dict:
    """One audit by ``engine`` in a child process."""
    proc = subprocess.run([engine, str(Path(__file__).resolve()), "--one", str(page),
                           "--json-out", json_out], capture_output=True, text=True)
    if proc.returncode != 0:
        raise SystemExit(f"{engine} {page.name} failed ({proc.returncode}):\n"
                         f"{proc.stderr.strip()[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pages", nargs="*", help="pages, by path or file name")
    ap.add_argument("--heaviest", type=int, metavar="N",
                    help="also the N pages whose stored audit took the most CPU")
    ap.add_argument("--over", type=float, metavar="SECONDS",
                    help="also every page whose stored audit took more than SECONDS")
    ap.add_argument("--engine", action="append", metavar="PYTHON",
                    help="the interpreter of an engine to measure (repeatable; default: this one)")
    ap.add_argument("--repeat", type=int, default=1, help="audits per page and engine (1)")
    ap.add_argument("--json-dir", metavar="DIR", help="keep every audit's JSON report here")
    ap.add_argument("--one", help=argparse.SUPPRESS)
    ap.add_argument("--json-out", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.one:
        audit_one(args.one, args.json_out)
        return 0
    if args.repeat < 1:
        ap.error("--repeat: at least 1")
    names = list(args.pages)
    stored = sorted(stored_pages(), key=lambda p: -p["cpu_seconds"])
    if args.heaviest:
        names += [p["page"] for p in stored[:args.heaviest]]
    if args.over is not None:
        names += [p["page"] for p in stored if p["cpu_seconds"] > args.over]
    if not names:
        ap.error("no page: name pages, or use --heaviest or --over")
    pages = list(dict.fromkeys(find_page(n) for n in names))
    engines = args.engine or [sys.executable]
    for engine in engines:
        if not (os.path.isfile(engine) and os.access(engine, os.X_OK)):
            ap.error(f"--engine {engine}: not an interpreter that can be run")
    keep = Path(args.json_dir) if args.json_dir else None
    with tempfile.TemporaryDirectory() as tmp:
        out = keep or Path(tmp)
        folders = [out / f"{Path(e).name}-{i}" for i, e in enumerate(engines)]
        for folder in folders:
            try:
                folder.mkdir(parents=True, exist_ok=True)
            except OSError as e:
                ap.error(f"--json-dir {out}: {e.strerror}")
        head = "".join(f"  {'engine ' + str(i):>10}" for i in range(len(engines)))
        for i, e in enumerate(engines):
            print(f"engine {i}: {e}")
        print(f"{'page':<32} {'posts':>6}{head}  same report")
        for page in pages:
            cpu, posts = [[] for _ in engines], None
            for _ in range(args.repeat):
                for i, engine in enumerate(engines):
                    r = run(engine, page, str(folders[i] / f"{page.name}.json"))
                    cpu[i].append(r["cpu_seconds"])
                    posts = r["posts"]
            reports = {(folders[i] / f"{page.name}.json").read_bytes() for i in range(len(engines))}
            same = "yes" if len(reports) == 1 else "NO"
            cells = "".join(f"  {statistics.median(c):>9.2f}s" for c in cpu)
            print(f"{page.name:<32} {posts:>6}{cells}  {same}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
