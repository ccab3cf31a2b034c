"""The verdicts of a corpus of real pages, audited with no options.

    python benchmarks/audit_verdicts.py {pacl,national} [--every K] [--limit N] [--jobs N]
                                        [--json FILE] [--results FILE] [--markdown FILE]

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

``--results FILE`` keeps each page's summary as a line of JSON when it is
done (with the SHA-256 of the page's bytes and of the sources of the
engine and its rules): a run stopped resumes where it was, and a run whose
file holds every page only adds them up.  The file's first line records
those sources' digest; a file written by other sources is refused, since
its pages would be counted with verdicts the current engine might not give.
Each page's CPU seconds are kept too, and the median and largest printed.
``--markdown FILE`` writes the report as a page for ``benchmarks/results/``:
the command, the commit and the date, the table.
"""

from __future__ import annotations

import argparse
import datetime as _dt
import hashlib
import json
import re
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pacl_audit import each_page  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "data" / "real"
CORPORA = {"pacl": (REAL / "pacl-2001-2021" / "sections", "XtblMain_*.html"),
           "national": (REAL / "tourneydata-2001-2014" / "tourneyInfo", "*/*/tourneyInfo-*")}
#: Folders of the engine that read and show, never audit.
FRONT_ENDS = {("engine", "web"), ("engine", "commands")}
PACL_NAME = re.compile(r"XtblMain_([0-9]+)_([0-9]+)\.html$")


def one_page(f: Path) -> dict:
    """A page's summary, or why it was refused (what a worker sends back)."""
    from uschess.apps.audit import audit_page
    from uschess.apps.audit.corpus import page_summary
    from uschess.errors import InputError

    m = PACL_NAME.search(f.name)
    cpu = time.process_time()
    try:
        a = audit_page(f, section=m.group(2) if m else None)
    except InputError as err:
        return {"page": f.name, "refused": err.message[:160],
                "cpu_seconds": round(time.process_time() - cpu, 3)}
    return {**page_summary(a, f.name), "cpu_seconds": round(time.process_time() - cpu, 3)}


def cpu_line(pages: list[dict]) -> str:
    """The CPU seconds of the pages' audits: in all, the median and the largest."""
    seconds = sorted(p["cpu_seconds"] for p in pages if "cpu_seconds" in p)
    if not seconds:
        return ""
    worst = max(pages, key=lambda p: p.get("cpu_seconds", 0))
    n = len(seconds)
    median = (seconds[(n - 1) // 2] + seconds[n // 2]) / 2
    return (f"CPU seconds per page audit: {sum(seconds):.0f} s in all, median {median:.2f} s, "
            f"largest {seconds[-1]:.1f} s ({worst['page']})")


def sources_digest() -> str:
    """The SHA-256 of the engine's Python sources and the rules' YAML, in
    path order: what an audit's verdicts depend on (not the command line's
    and the web app's front ends, :data:`FRONT_ENDS`)."""
    digest = hashlib.sha256()
    for folder, pattern in ((ROOT / "engine", "*.py"), (ROOT / "rules", "*.py"),
                            (ROOT / "rulesets", "*.yaml")):
        for path in sorted(folder.rglob(pattern)):
            if path.relative_to(ROOT).parts[:2] in FRONT_ENDS:
                continue
            digest.update(path.relative_to(ROOT).as_posix().encode() + b"\0")
            digest.update(path.read_bytes())
    return digest.hexdigest()


def page_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


class Results:
    """The resumable file of ``--results``: a header line, then one line per
    page (its summary, or why it was refused, with ``sha256``)."""

    def __init__(self, path: Path, corpus: str):
        self.path, self.done = path, {}
        header = {"corpus": corpus, "sources": sources_digest()}
        if path.exists() and path.stat().st_size:
            lines = path.read_text(encoding="utf-8").splitlines()
            try:
                first = json.loads(lines[0])
                pages = [json.loads(line) for line in lines[1:] if line.strip()]
            except (json.JSONDecodeError, IndexError) as err:
                raise SystemExit(f"{path}: not a results file of this script ({err})")
            if first != header:
                raise SystemExit(f"{path}: written for {first.get('corpus')} by other sources "
                                 f"(digest {str(first.get('sources'))[:12]}, these "
                                 f"{header['sources'][:12]}): remove it or name another file")
            self.done = {p["page"]: p for p in pages}
            self.fh = path.open("a", encoding="utf-8")
        else:
            self.fh = path.open("w", encoding="utf-8")
            self._write(header)

    def _write(self, item: dict) -> None:
        self.fh.write(json.dumps(item, separators=(",", ":")) + "\n")
        self.fh.flush()

    def kept(self, f: Path):
        """The page's summary kept from an earlier run (same bytes), or None."""
        page = self.done.get(f.name)
        return page if page is not None and page.get("sha256") == page_digest(f) else None

    def add(self, f: Path, page: dict) -> None:
        page = {**page, "sha256": page_digest(f)}
        self.done[f.name] = page
        self._write(page)

    def close(self) -> None:
        self.fh.close()


def _commit() -> str:
    try:
        out = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                             capture_output=True, text=True, timeout=10)
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"


def headline(corpus: str, report) -> str:
    """The corpus's figures in a line: confirmed + explained, and in sample."""
    c = report.cells[("all", "all", "all")]
    total = c["total"]
    if not total:
        return f"{corpus}: no published rating audited"
    good = c["confirmed"] + c["explained"]
    return (f"{corpus}: {good:,} of {total:,} published ratings confirmed or explained "
            f"({100 * good / total:.1f}%), {100 * c['in_sample'] / total:.1f}% in sample, "
            f"on {report.pages:,} pages audited ({len(report.unread)} refused)")


def markdown(corpus: str, command: str, table: str, seconds: str, line: str) -> str:
    """The report as a page of ``benchmarks/results/``."""
    when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return (f"# The audit's verdicts on the {corpus} corpus\n\n{line}\n\n"
            f"Written {when}, at commit {_commit()} (the engine's sources "
            f"{sources_digest()[:12]}), by\n\n    {command}\n\n"
            f"Every page's summary is kept beside this file, in the `.jsonl` of the same name "
            f"(with the CPU seconds of its audit); run again, the command adds them up, "
            f"auditing only pages not kept.\n\n{seconds}\n\n```text\n{table}```\n")


def main(argv=None) -> int:
    from uschess.apps.audit.corpus import CorpusReport

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", choices=sorted(CORPORA))
    ap.add_argument("--every", type=int, default=1, help="only every K-th page (a sample)")
    ap.add_argument("--limit", type=int, help="only the first N pages (after --every)")
    ap.add_argument("--jobs", type=int, default=1, help="pages audited at once (1)")
    ap.add_argument("--json", metavar="FILE", help="also write every page's summary as JSON")
    ap.add_argument("--results", metavar="FILE",
                    help="keep each page's summary here as it is done; resume from it")
    ap.add_argument("--markdown", metavar="FILE", help="also write the report as Markdown")
    args = ap.parse_args(argv)
    if args.every < 1 or args.jobs < 1:
        ap.error("--every and --jobs: at least 1")
    folder, pattern = CORPORA[args.corpus]
    if not folder.is_dir():
        print(f"{folder} is not beside the checkout", file=sys.stderr)
        return 2
    files = sorted(folder.glob(pattern))[::args.every]
    files = files[:args.limit] if args.limit else files
    results = Results(Path(args.results), args.corpus) if args.results else None
    kept = {f: results.kept(f) for f in files} if results else {}
    todo = [f for f in files if kept.get(f) is None]
    report, pages = CorpusReport(), []
    started = time.perf_counter()
    fresh = iter(each_page(todo, args.jobs, one_page))
    try:
        for f in files:
            page = kept.get(f)
            if page is None:
                page = next(fresh)
                if results:
                    results.add(f, page)
            pages.append(page)
            if "refused" in page:
                report.refused(page["page"], page["refused"])
            else:
                report.add(page)
    finally:
        if results:
            results.close()
    # the pages' own CPU seconds (with --jobs, the workers' are not this process's)
    fresh_names = {f.name for f in todo}
    cpu = sum(p.get("cpu_seconds", 0) for p in pages if p["page"] in fresh_names)
    if results and not todo:
        timing = f"{args.corpus}: {len(files)} pages, every one kept from {args.results}"
    elif results:
        timing = (f"{args.corpus}: {len(files)} pages ({len(files) - len(todo)} kept from "
                  f"{args.results}), {len(todo)} audited in {time.perf_counter() - started:.0f} s "
                  f"({cpu:.0f} s CPU)")
    else:
        timing = (f"{args.corpus}: {len(files)} pages in {time.perf_counter() - started:.0f} s "
                  f"({cpu:.0f} s CPU)")
    timing += "\n" + cpu_line(pages)
    table = report.format()
    if args.json:
        Path(args.json).write_text(json.dumps(pages, indent=1))
    if args.markdown:
        command = " ".join(["python benchmarks/audit_verdicts.py", *(argv if argv is not None
                                                                     else sys.argv[1:])])
        Path(args.markdown).write_text(markdown(args.corpus, command, table, timing,
                                                headline(args.corpus, report)),
                                       encoding="utf-8")
    print(timing)
    print(headline(args.corpus, report))
    print(table, end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
