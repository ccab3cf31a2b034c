"""Audit every published page under a directory: each page as ``uschess
audit PAGE`` audits it, one task each, on the local cores or on a Dask
cluster (the cluster code of :mod:`uschess.apps.sweep`), kept page by page in
a results file so that a run stopped at any moment resumes where it was.

A page that cannot be read or audited is one record with its one-line
reason (``refused``: the reader's or the audit's :class:`InputError`;
``failed``: anything else, a worker lost included); the run goes on.

**The results file** is JSON lines: a first line ``{"format":
RESULTS_FORMAT, "settings": {...}}`` (the tolerance and rules options of the
run: a rerun with other settings is refused), then one line per page as it
finishes (:func:`audit_page`'s record).  Each line is handed to the system
whole before the next page is taken; a last line cut short by a kill is
dropped on the rerun (its page is audited again).  A page is done when a
record of its path with the same SHA-256 of its bytes is in the file: a page
that changed is audited again, and its later line wins.

**The summary** adds up, over the audited pages, every whole-number field
of each page's report (:meth:`uschess.apps.audit.Audit.as_dict`: ``total``,
``reproduced``, ...) and of its ``summary`` or ``verdicts`` mapping when the
report has one (as ``summary.NAME``), so a count the page report gains is
counted here without a change.
"""

from __future__ import annotations

import hashlib
import html
import json
import os
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

from uschess.errors import InputError

RESULTS_FORMAT = "uschess-audit-dir-1"
#: File suffixes under a directory that are never pages (its README, a
#: manifest, images, a results file of this command).
NOT_PAGES = frozenset({".md", ".tsv", ".csv", ".png", ".jpg", ".jpeg", ".gif", ".svg",
                       ".pdf", ".jsonl", ".zip", ".gz", ".py"})
STATUSES = ("audited", "read", "refused", "failed")
#: The statuses the summary names even when no page has them.
ALWAYS_SHOWN = ("audited", "refused", "failed")
#: The nested mappings of a page report whose whole numbers are counted too.
NESTED_COUNTS = ("summary", "verdicts")


@dataclass(frozen=True)
class PageJob:
    """One page to audit: its path, its path relative to the directory
    (the key of its record) and the SHA-256 of its bytes."""

    path: str
    rel: str
    sha256: str


def pages_under(root, exclude=()) -> list[PageJob]:
    """Every page under ``root`` in path order: regular files, not hidden
    (no part of the path starts with '.'), not of a suffix in
    :data:`NOT_PAGES`, not in ``exclude`` (files and folders this run
    writes)."""
    root = Path(root)
    skip = {Path(p).resolve() for p in exclude}
    jobs = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".")
                             and (Path(dirpath) / d).resolve() not in skip)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if name.startswith(".") or path.suffix.lower() in NOT_PAGES or not path.is_file() \
                    or path.resolve() in skip:
                continue
            try:
                digest = hashlib.sha256(path.read_bytes()).hexdigest()
            except OSError as err:
                raise InputError(f"cannot read: {err.strerror or err}", file=path)
            jobs.append(PageJob(str(path), path.relative_to(root).as_posix(), digest))
    return sorted(jobs, key=lambda j: j.rel)


def counts_of(report: dict) -> dict:
    """The whole-number fields of a page report (see the module text)."""
    out = {}
    for key, value in report.items():
        if isinstance(value, int) and not isinstance(value, bool):
            out[key] = value
        elif key in NESTED_COUNTS and isinstance(value, dict):
            for sub, n in value.items():
                if isinstance(n, int) and not isinstance(n, bool):
                    out[f"{key}.{sub}"] = n
    return out


def _one_line(text: str) -> str:
    return " ".join(str(text).split())


def audit_page(job: PageJob, tolerance: float, options, as_rated: bool = False,
               html_report: bool = False, read_only: bool = False
               ) -> tuple[dict, Optional[str]]:
    """Audit one page (``read_only``: read it only, status ``read``, with
    the reading's notes); (its record, its HTML report when asked).  Never
    raises: every problem is the record's one-line ``error``."""
    from uschess.apps.audit import audit, format_html, load_published

    cpu, wall = time.process_time(), time.perf_counter()
    record = {"page": job.rel, "sha256": job.sha256}
    report = None
    try:
        published = load_published(job.path)
        if read_only:
            sections = len(published.event.sections)
            record.update(status="read", summary=f"{len(published.entries)} published ratings "
                          f"in {sections} section{'s' if sections != 1 else ''}",
                          event=published.event.name, start=published.event.start.isoformat(),
                          layout=published.kind, notes=[_one_line(n) for n in published.notes],
                          counts={"published": len(published.entries), "sections": sections})
            raise _Done
        opts = options
        if as_rated:
            if published.rated_on is None:
                raise InputError("the page states no Rated date (--as-rated)", file=job.path)
            opts = _known_on(options, published.rated_on)
        result = audit(published, tolerance=tolerance, options=opts)
        data = result.as_dict()
        record.update(status="audited", summary=_one_line(result.summary_line()),
                      event=published.event.name, start=published.event.start.isoformat(),
                      layout=published.kind, counts=counts_of(data))
        if html_report:
            report = format_html(result)
    except _Done:
        pass
    except InputError as err:
        record.update(status="refused", error=_one_line(err))
    except Exception as err:  # a bug must not stop the run: one line, the page named
        record.update(status="failed",
                      error=_one_line(f"{job.path}: {type(err).__name__}: {err}"))
    record.update(cpu_seconds=time.process_time() - cpu, seconds=time.perf_counter() - wall)
    return record, report


class _Done(Exception):
    """A page read only: nothing more to do."""


def _known_on(options, day):
    import dataclasses
    return dataclasses.replace(options, known_on=day)


def check_record(record, what: str) -> dict:
    """A record of a results file as :func:`audit_page` writes it."""
    if not isinstance(record, dict) or not isinstance(record.get("page"), str) \
            or not isinstance(record.get("sha256"), str) \
            or record.get("status") not in STATUSES:
        raise InputError(f"{what}: not a page record (page, sha256, status)")
    counts = record.get("counts", {})
    if not isinstance(counts, dict) or not all(
            isinstance(n, int) and not isinstance(n, bool) for n in counts.values()):
        raise InputError(f"{what}: 'counts' must map names to whole numbers")
    return record


class PageResults:
    """The results file (see the module text); ``path`` None keeps nothing."""

    def __init__(self, path, settings: dict):
        self.path = Path(path) if path else None
        self.settings = settings
        self.done: dict = {}
        self.dropped = 0
        self._file = None
        if self.path is None:
            return
        if self.path.exists():
            good = self._read()
            with open(self.path, "r+b") as f:  # a last line cut short goes
                f.truncate(good)
        elif not self.path.parent.is_dir():
            raise InputError("the directory to write into does not exist", file=self.path)
        else:
            good = 0
        if good == 0:  # new, or stopped before its first line was whole
            self._write_line({"format": RESULTS_FORMAT, "settings": settings})

    def _read(self) -> int:
        """Read the records; the byte length of the whole lines kept."""
        if not self.path.is_file():
            raise InputError("is not a regular file", file=self.path)
        data = self.path.read_bytes()
        good, number = 0, 0
        while good < len(data):
            end = data.find(b"\n", good)
            number += 1
            if end < 0:  # written in part when the run was stopped
                self.dropped = 1
                break
            try:
                item = json.loads(data[good:end].decode("utf-8"))
            except (UnicodeDecodeError, ValueError):
                raise InputError("not a line of JSON: the file is damaged (give another "
                                 "--results file)", file=self.path, record=number)
            if number == 1:
                if not isinstance(item, dict) or item.get("format") != RESULTS_FORMAT:
                    raise InputError(f"not an audit results file ({RESULTS_FORMAT})",
                                     file=self.path)
                if item.get("settings") != self.settings:
                    raise InputError(f"holds results of other settings ({item.get('settings')})"
                                     ": give another --results file or remove it",
                                     file=self.path)
            else:
                try:
                    rec = check_record(item, f"line {number}")
                except InputError as err:
                    raise err.located(file=self.path)
                self.done[rec["page"]] = rec
            good = end + 1
        return good

    def _write_line(self, item: dict) -> None:
        line = (json.dumps(item, allow_nan=False, ensure_ascii=False) + "\n").encode("utf-8")
        try:
            if self._file is None:
                self._file = open(self.path, "ab")
            self._file.write(line)
            self._file.flush()  # with the system once written: a kill of this process keeps it
        except OSError as err:
            raise InputError(f"cannot write: {err.strerror or err}", file=self.path)

    def add(self, record: dict) -> None:
        self.done[record["page"]] = record
        if self.path is not None:
            self._write_line(record)

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None


@dataclass
class DirAudit:
    """The records of every page of a run, in path order, and what was
    resumed from the results file."""

    root: str
    records: list
    resumed: int = 0
    settings: dict = field(default_factory=dict)

    def by_status(self) -> dict:
        return {s: [r for r in self.records if r["status"] == s] for s in STATUSES}

    def totals(self) -> dict:
        out: dict = {}
        for r in self.records:
            for key, n in r.get("counts", {}).items():
                out[key] = out.get(key, 0) + n
        return out

    def summary_lines(self) -> list[str]:
        groups = self.by_status()
        lines = [f"{len(self.records)} pages under {self.root}: "
                 + ", ".join(f"{len(groups[s])} {s}" for s in STATUSES
                             if groups[s] or s in ALWAYS_SHOWN)
                 + (f" ({self.resumed} from the results file)" if self.resumed else "")]
        totals = self.totals()
        audited = groups["audited"] + groups["read"]
        lines += self.headline(totals)
        for key in sorted(totals):
            n = totals[key]
            giving = [r["counts"] for r in audited if key in r.get("counts", {})]
            whole = sum(c.get("total", 0) for c in giving)
            share = ""
            if key != "total" and whole and n <= whole:
                share = f" ({100 * n / whole:.1f}% of total" + (
                    f" on the {len(giving)} of {len(audited)} pages that report it)"
                    if len(giving) < len(audited) else ")")
            lines.append(f"  {key}: {n:,}{share}")
        cpu = sum(r.get("cpu_seconds", 0.0) for r in self.records)
        lines.append(f"  CPU: {cpu:,.1f} s over the pages")
        return lines

    @staticmethod
    def headline(totals: dict) -> list[str]:
        """The audit's headline over the pages: posts confirmed or explained
        out of sample, and beside it the in-sample count (reproduced with
        values fitted to those same posts)."""
        whole = totals.get("verdicts.total")
        if not whole:
            return []
        head, inside = totals.get("verdicts.headline", 0), totals.get("verdicts.in_sample", 0)
        return [f"  confirmed + explained: {head:,} of {whole:,} published ratings "
                f"({100 * head / whole:.1f}%); in sample, with inferred inputs: {inside:,} "
                f"({100 * inside / whole:.1f}%)"]

    def as_dict(self) -> dict:
        groups = self.by_status()
        return {"root": self.root, "settings": self.settings,
                "pages": len(self.records), **{s: len(groups[s]) for s in STATUSES},
                "resumed": self.resumed, "totals": self.totals(), "records": self.records}


def report_name(rel: str) -> str:
    """The file name of a page's HTML report in the reports folder."""
    return rel.replace("/", "__") + ".html"


def run_pages(root, jobs: list[PageJob], *, results: PageResults, tolerance: float, options,
              as_rated: bool = False, read_only: bool = False,
              reports: Optional[Path] = None,
              scheduler: Optional[str] = None, workers: int = 1, timeout: float = 20.0,
              started: Optional[Callable[[int, int], None]] = None,
              progress: Optional[Callable[[dict], None]] = None) -> DirAudit:
    """Audit the pages of ``jobs`` not yet in ``results``: in this process
    when ``workers`` is 1 and no ``scheduler`` is given, else one Dask task
    a page (:func:`uschess.apps.sweep.open_client`).  ``reports``: a folder
    to write each page's HTML report into as it finishes.
    ``started(todo, kept)`` is called before the first page,
    ``progress(record)`` as each page finishes."""
    kept = {j.rel for j in jobs if results.done.get(j.rel, {}).get("sha256") == j.sha256}
    todo = [j for j in jobs if j.rel not in kept]
    if started:
        started(len(todo), len(kept))

    def finished(record: dict, report: Optional[str]) -> None:
        results.add(record)
        if reports is not None and report is not None:
            from uschess.io.files import write_text_atomic
            write_text_atomic(reports / report_name(record["page"]), report)
        if progress:
            progress(record)

    want_html = reports is not None
    if todo and (scheduler or workers > 1):
        from dask.distributed import as_completed

        from uschess.apps.sweep import open_client
        client, cluster = open_client(scheduler, workers, timeout)
        try:
            futures = {client.submit(audit_page, j, tolerance, options, as_rated, want_html,
                                     read_only, pure=False): j for j in todo}
            for fut in as_completed(futures):
                job = futures[fut]
                try:
                    record, report = fut.result()
                except Exception as err:  # the worker was lost, or the task not sent
                    record, report = {"page": job.rel, "sha256": job.sha256, "status": "failed",
                                      "error": _one_line(f"{job.path}: {type(err).__name__}: "
                                                         f"{err}"),
                                      "cpu_seconds": 0.0, "seconds": 0.0}, None
                finished(record, report)
        finally:
            client.close()
            if cluster is not None:
                cluster.close()
    else:
        for job in todo:
            finished(*audit_page(job, tolerance, options, as_rated, want_html, read_only))
    return DirAudit(str(root), [results.done[j.rel] for j in jobs], len(kept), results.settings)


def format_index(result: DirAudit, reports: Optional[Path] = None) -> str:
    """The HTML index of the pages: the summary, then one row a page with
    its status, counts and a link to its report in the folder ``reports``
    (beside the index) where that folder holds one."""
    from uschess.apps.audit.render import _CSS

    esc = html.escape
    keys = sorted({k for r in result.records for k in r.get("counts", {})})
    head = "".join(f"<th>{esc(k)}</th>" for k in keys)
    lines = result.summary_lines()
    out = ["<!DOCTYPE html>", "<html lang=\"en\"><head><meta charset=\"utf-8\">",
           f"<title>Audit of {esc(result.root)}</title><style>{_CSS}</style></head><body>",
           f"<h1>Audit of the pages under {esc(result.root)}</h1>",
           f"<p><strong>{esc(lines[0])}</strong></p>",
           "<ul>" + "".join(f"<li>{esc(ln.strip())}</li>" for ln in lines[1:]) + "</ul>",
           f"<table><thead><tr><th>Page</th><th>Status</th><th>Event</th>{head}"
           "<th>CPU s</th><th>Summary or reason</th></tr></thead><tbody>"]
    for r in result.records:
        name = esc(r["page"])
        if reports is not None and (reports / report_name(r["page"])).is_file():
            href = f"{reports.name}/{report_name(r['page'])}"
            name = f"<a href=\"{esc(href, quote=True)}\">{name}</a>"
        ok = r["status"] == "read" or r["status"] == "audited" and r.get(
            "counts", {}).get("reproduced") == r.get("counts", {}).get("total")
        cells = "".join(f"<td class=\"n\">{r.get('counts', {}).get(k, '')}</td>" for k in keys)
        done = r["status"] in ("audited", "read")
        text = r.get("summary") if done else r.get("error", "")
        at = (text or "").find(r["page"] + ": ")  # the page's path: the first column says it
        if not done and at >= 0:
            text = text[at + len(r["page"]) + 2:]
        event = f"{r.get('event', '')} {r.get('start', '')}".strip()
        kind = "ok" if ok else "bad" if done else "warn"
        out.append(f"<tr class=\"{kind}\"><td>{name}</td>"
                   f"<td>{esc(r['status'])}</td><td>{esc(event)}</td>{cells}"
                   f"<td class=\"n\">{r.get('cpu_seconds', 0.0):.1f}</td>"
                   f"<td>{esc(text or '')}</td></tr>")
    out.append("</tbody></table></body></html>")
    return "\n".join(out) + "\n"
