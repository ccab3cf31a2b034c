"""The verdicts of a corpus of real pages, audited with no options.

    python benchmarks/audit_verdicts.py {pacl,national} [--every K] [--limit N] [--jobs N] [--json FILE]

Reads the pages in place from ``../shared/data/real``: ``pacl`` the 1,469
PACL section pages (each audited for the section its file name names),
``national`` the 825 pages of the national record (tourneydata-2001-2014,
each audited whole).  Each page is audited as ``uschess audit PAGE`` does
with no options, and the script prints, per era of the rules, system and
event size, the verdicts of the published ratings (confirmed, explained out
of sample, fitted, held by a floor, unexplained), the headline (confirmed +
explained) beside the in-sample figure, then the dated findings and the
posts set by hand with their pages, and the pages refused with why
(:mod:`uschess.apps.audit.corpus`).  ``--every K`` takes every K-th page (a
sample), ``--json FILE`` writes every page's summary; ``--jobs N`` audits N
pages at once, each in a process of its own (the figures do not depend on
N).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pacl_audit import each_page  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "data" / "real"
CORPORA = {"pacl": (REAL / "pacl-2001-2021" / "sections", "XtblMain_*.html"),
           "national": (REAL / "tourneydata-2001-2014" / "tourneyInfo", "*/*/tourneyInfo-*")}
PACL_NAME = re.compile(r"XtblMain_([0-9]+)_([0-9]+)\.html$")


def one_page(f: Path) -> dict:
    """A page's summary, or why it was refused (what a worker sends back)."""
    from uschess.apps.audit import audit_page
    from uschess.apps.audit.corpus import page_summary
    from uschess.errors import InputError

    m = PACL_NAME.search(f.name)
    try:
        a = audit_page(f, section=m.group(2) if m else None)
    except InputError as err:
        return {"page": f.name, "refused": err.message[:160]}
    return page_summary(a, f.name)


def main(argv=None) -> int:
    from uschess.apps.audit.corpus import CorpusReport

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", choices=sorted(CORPORA))
    ap.add_argument("--every", type=int, default=1, help="only every K-th page (a sample)")
    ap.add_argument("--limit", type=int, help="only the first N pages (after --every)")
    ap.add_argument("--jobs", type=int, default=1, help="pages audited at once (1)")
    ap.add_argument("--json", metavar="FILE", help="also write every page's summary as JSON")
    args = ap.parse_args(argv)
    if args.every < 1 or args.jobs < 1:
        ap.error("--every and --jobs: at least 1")
    folder, pattern = CORPORA[args.corpus]
    if not folder.is_dir():
        print(f"{folder} is not beside the checkout", file=sys.stderr)
        return 2
    files = sorted(folder.glob(pattern))[::args.every]
    files = files[:args.limit] if args.limit else files
    report, pages = CorpusReport(), []
    started, cpu = time.perf_counter(), time.process_time()
    for page in each_page(files, args.jobs, one_page):
        pages.append(page)
        if "refused" in page:
            report.refused(page["page"], page["refused"])
        else:
            report.add(page)
    cpu = time.process_time() - cpu
    if args.jobs > 1:  # the workers' CPU time is not this process's
        import resource
        use = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = use.ru_utime + use.ru_stime
    print(f"{args.corpus}: {len(files)} pages in {time.perf_counter() - started:.0f} s "
          f"({cpu:.0f} s CPU)")
    print(report.format(), end="")
    if args.json:
        Path(args.json).write_text(json.dumps(pages, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
