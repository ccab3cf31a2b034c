"""Audit the PACL corpus of real MSA pages, page by page, with no options.

    python benchmarks/pacl_audit.py [--limit N] [--every K] [--pages FILE] [--json FILE] [--jobs N]

Reads ``../shared/data/real/pacl-2001-2021/sections`` in place (1,469 MSA
section pages, 2001-2021).  Each page is audited as ``uschess audit PAGE``
would (the section its file name names; a saved "all sections" page holds the
others too), and the script prints, per era and overall, how many published
ratings are reproduced within 1 point under the rules as known on the page's
Rated or Re-Rated date (``uschess audit PAGE --as-rated``: what the page was
computed with; nothing else is given), and with the unrated players' initial
ratings inferred from the page (:mod:`uschess.apps.audit.infer`: the unrated
players' initial ratings of each section solved jointly from its published
posts, then player by player, :mod:`uschess.apps.audit.solve`; then the
hidden histories of players still missed, :mod:`uschess.apps.audit.hidden`;
the two solved again in turn while the count grows,
:mod:`uschess.apps.audit.alternate`; then the searches that solve them
again with one more input, as ``uschess audit`` runs them: the histories,
:mod:`uschess.apps.audit.history_again`, and an unrated player's larger
initial N, :mod:`uschess.apps.audit.initial_games`); then the pages it could not read and
why, the best explanation of every miss by count, and of every miss left with
the inferred values (``tradeoff``: one unknown moved alone reproduces the
post but loses others, :mod:`uschess.apps.audit.tradeoff`).  ``--json FILE`` writes every
miss with its post computed with the inferred values and what is left to
explain it with them (``left``: None when the inferred values reproduce it).  ``--jobs N`` audits N
pages at once, each worker a process of its own (the figures do not depend on
N; the CPU time printed is the workers').  ``--pages FILE`` audits only the
pages FILE names (one a line, the page's file name or its stem last on the line, so a
list of "count page" lines will do) and prints, for each, its ratings,
how many are reproduced with the inferred inputs and how many misses are left
with no cause.
"""

from __future__ import annotations

import argparse
import collections
import json
import re
import sys
import time
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "data" / "real" / "pacl-2001-2021" / "sections"
NAME = re.compile(r"XtblMain_([0-9]+)_([0-9]+)\.html$")

#: Eras of the rules (000 sec. 8): integer ratings before 2014-09-01, the
#: float era to the 2017 B = 14, that to the 2020 revision, and after.
ERAS = (("2001-2014-08", "2014-09-01"), ("2014-09..2017-05", "2017-06-01"),
        ("2017-06..2020-05", "2020-06-01"), ("2020-06..2021", "9999-12-31"))


def era(date) -> str:
    text = date.isoformat()
    for name, before in ERAS:
        if text < before:
            return name
    return ERAS[-1][0]


def corpus_parser(doc: str) -> argparse.ArgumentParser:
    """The options every corpus script takes: a sample, a limit, JSON misses."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--limit", type=int, help="only the first N pages")
    ap.add_argument("--every", type=int, default=1, help="only every K-th page (a sample)")
    ap.add_argument("--json", metavar="FILE", help="also write every miss as JSON")
    ap.add_argument("--pages", metavar="FILE",
                    help="only the pages FILE names, one a line (its last word)")
    return ap


def corpus_files(args) -> Optional[list[Path]]:
    """The pages ``args`` select, in name order; None (said on standard error)
    when the corpus is not beside the checkout."""
    if not CORPUS.is_dir():
        print(f"{CORPUS} is not beside the checkout", file=sys.stderr)
        return None
    files = sorted(CORPUS.glob("XtblMain_*.html"))
    if args.pages:
        try:
            text = Path(args.pages).read_text()
        except OSError as err:
            print(f"{args.pages}: {err.strerror}", file=sys.stderr)
            return None
        wanted = {line.split()[-1] for line in text.splitlines()
                  if line.strip() and not line.lstrip().startswith("#")}
        unknown = sorted(wanted - {f.name for f in files} - {f.stem for f in files})
        if unknown:
            print(f"{args.pages}: not in the corpus: {unknown[0]}", file=sys.stderr)
            return None
        files = [f for f in files if f.name in wanted or f.stem in wanted]
    files = files[::args.every]
    return files[:args.limit] if args.limit else files


def corpus_and_book(doc: str, argv=None) -> tuple:
    """(arguments, pages, rule book) of a script reading the corpus with
    :func:`corpus_parser`'s options; the pages are None (said on standard
    error) when the corpus is not beside the checkout."""
    from uschess.calendar.rulebook import RuleBook

    args = corpus_parser(doc).parse_args(argv)
    files = corpus_files(args)
    return args, files, (RuleBook.load() if files is not None else None)


_BOOK = None


def _book():
    """The rule book, loaded once per process (a worker loads its own)."""
    global _BOOK
    if _BOOK is None:
        from uschess.calendar.rulebook import RuleBook
        _BOOK = RuleBook.load()
    return _BOOK


def slot_filled(book, slot: str, plugin: str, source: str):
    """A reform (validated against ``book``) that fills the rule book's
    ``slot`` with ``plugin`` on every date, whatever the calendar says: a
    page rated with it shows what that plugin alone would have given."""
    from uschess.calendar.reform import reform_from_dict

    return reform_from_dict({"name": f"{slot} slot {plugin}", "plugins": {slot: [
        {"from": book.earliest().isoformat(), "plugin": plugin}]}}, source=source, book=book)


def rated_with_each(files: list[Path], book, fillings: dict, before, wanted=None):
    """(page file, its published results, {name: printed posts}) for each
    page of ``files`` that reads, whose section starts before ``before``
    and whose published results ``wanted`` accepts (all by default), rated
    as known on its Rated (or Re-Rated) date with each reform of
    ``fillings`` (name -> reform, :func:`slot_filled`); a page that one of
    them cannot rate is left out."""
    from uschess.apps.audit import load_published
    from uschess.apps.audit.cause import printed_posts
    from uschess.apps.audit.page_chain import rate_published
    from uschess.errors import InputError
    from uschess.rating.pipeline import RatingOptions

    for f in files:
        try:
            pub = load_published(f, section=f.stem.split("_")[-1])
        except InputError:
            continue
        if pub.event.sections[0].start >= before or (wanted is not None and not wanted(pub)):
            continue
        try:
            posts = {name: printed_posts(rate_published(
                pub.event, RatingOptions(known_on=pub.rated_on, trace=False, reform=reform),
                book=book)) for name, reform in fillings.items()}
        except InputError:
            continue
        yield f, pub, posts


def audit_page(f: Path) -> dict:
    """One page's audit as plain data (what a worker sends back): its era and
    kind, its counts, the inputs inferred by kind, every miss with its best
    explanation, or why the page could not be read."""
    from uschess.apps.audit import audit, load_published
    from uschess.apps.audit.cause import within
    from uschess.errors import InputError

    m = NAME.search(f.name)
    section = m.group(2) if m else None
    try:
        pub = load_published(f, section=section)
        book = _book()
        book.forget_reforms()  # the last page's variants: memory, not results
        a = audit(pub, book=book, known_on=pub.rated_on)
    except InputError as err:
        return {"unread": err.message.split(":")[0][:70]}
    sec = pub.event.sections[0]
    kind = "online" if sec.online else "OTB"
    misses = []
    for r in a.mismatches:
        best = r.causes[0].cause if r.causes else ("no rating" if r.problem else "unexplained")
        inferred_ok = (r.with_inferred is not None
                       and within(r.with_inferred, r.entry.post, a.tolerance))
        rest = [c.cause for c in r.causes if c.cause != "initialization"]
        left = None if inferred_ok else (rest[0] if rest else
                                         ("no rating" if r.problem else "unexplained"))
        misses.append({"page": f.name, "id": r.entry.id, "system": r.entry.system,
                       "published": r.entry.post, "computed": r.computed, "cause": best,
                       "with_inferred": r.with_inferred, "reproduced_inferred": inferred_ok,
                       "start": sec.start.isoformat(), "kind": kind, "left": left})
    return {"era": f"{era(sec.start)} {kind}", "reproduced": a.reproduced,
            "reproduced_inferred": (a.reproduced_inferred if a.reproduced_inferred is not None
                                    else a.reproduced),
            "total": a.total,
            "solved": [i.as_dict().get("inferred", "initial rating") for i in a.inferred],
            "misses": misses}


def each_page(files: list[Path], jobs: int, work=None):
    """``work`` (default :func:`audit_page`) of each page, in the files'
    order, on ``jobs`` processes (the results do not depend on how many)."""
    work = work or audit_page
    if jobs <= 1:
        yield from map(work, files)
        return
    import multiprocessing
    with multiprocessing.get_context("spawn").Pool(jobs) as pool:
        yield from pool.imap(work, files, chunksize=1)


def main(argv=None) -> int:
    ap = corpus_parser(__doc__)
    ap.add_argument("--jobs", type=int, default=1,
                    help="pages audited at once, each in a process of its own (1)")
    args = ap.parse_args(argv)
    if args.jobs < 1:
        ap.error("--jobs: at least 1")
    files = corpus_files(args)
    if files is None:
        return 2
    totals = collections.defaultdict(lambda: [0, 0, 0])  # [reproduced, with inferred, total]
    causes = collections.Counter()
    left = collections.Counter()  # misses left with the inferred values, by best cause
    solved = collections.Counter()  # inputs inferred, by kind
    unread = collections.Counter()
    misses = []
    per_page = []  # (page, ratings, with inferred, misses with no cause), with --pages
    started, cpu = time.perf_counter(), time.process_time()
    for k, page in enumerate(each_page(files, args.jobs), 1):
        if "unread" in page:
            unread[page["unread"]] += 1
            continue
        for key in (page["era"], "all"):
            t = totals[key]
            t[0] += page["reproduced"]
            t[1] += page["reproduced_inferred"]
            t[2] += page["total"]
        solved.update(page["solved"])
        per_page.append((files[k - 1].name, page["total"], page["reproduced_inferred"],
                         sum(miss["left"] == "unexplained" for miss in page["misses"])))
        for miss in page["misses"]:
            causes[miss["cause"]] += 1
            why = miss["left"]
            if why is not None:
                left[why] += 1
            misses.append(miss)
        if k % 100 == 0:
            print(f"  {k} pages, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    cpu = time.process_time() - cpu
    if args.jobs > 1:  # the workers' CPU time is not this process's
        import resource
        cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = cpu.ru_utime + cpu.ru_stime
    print(f"{len(files)} pages audited in {time.perf_counter() - started:.0f} s "
          f"({cpu:.0f} s CPU, {args.jobs} process{'es' if args.jobs > 1 else ''}); "
          f"{sum(unread.values())} could not be read")
    print(f"  {'era':<24} {'total':>6}   {'reproduced':>14}   {'in sample':>14}")
    for key in sorted(totals):
        n, ni, m = totals[key]
        if m:
            print(f"  {key:<24} {m:>6}   {n:>6} {100 * n / m:5.1f}%   {ni:>7} {100 * ni / m:5.1f}%")
    print("  (in sample: reproduced with inputs inferred from the same posts; the verdicts, "
          "out of sample, by benchmarks/audit_verdicts.py)")
    print(f"inferred from the pages: {solved['initial rating']} initial ratings, "
          f"{solved['history']} earlier histories (game counts, all wins or all losses), "
          f"{solved['correction']} games of sections corrected after they were rated, "
          f"{solved['scored_cells']} sections' N/R cells rated as games, "
          f"{solved['zero_games']} events' pre-event ratings printed on 0 games rated as "
          "ratings")
    print("misses (no inference) by best explanation:")
    for cause, n in causes.most_common():
        print(f"  {cause:<20} {n}")
    print("misses left with the inferred inputs, by best explanation:")
    for cause, n in left.most_common():
        print(f"  {cause:<20} {n}")
    if args.pages:
        print(f"  {'page':<32} {'ratings':>7} {'with inferred':>13} {'no cause':>8}")
        for name, total, ok, none in per_page:
            print(f"  {name:<32} {total:>7} {ok:>13} {none:>8}")
        print(f"  {'all':<32} {sum(p[1] for p in per_page):>7} "
              f"{sum(p[2] for p in per_page):>13} {sum(p[3] for p in per_page):>8}")
    if unread:
        print("pages not read:")
        for why, n in unread.most_common():
            print(f"  {n:>4}  {why}")
    if args.json:
        Path(args.json).write_text(json.dumps(misses, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
