"""Every post of a corpus of real pages as the engine rates it from the page
alone, to compare two versions of the engine page by page.

    python benchmarks/rated_posts.py {pacl,national} --out FILE [--every K] [--trace]
                                     [--audit] [--jobs N] [--pages LIST]
    python benchmarks/rated_posts.py --compare A B [--common]

Each page is read as ``uschess audit PAGE`` reads it (PACL pages for the
section their file names name) and its event rated once with the rules in
force, with nothing inferred: the audit's first stage, the one every
verdict starts from.  ``--out FILE`` writes a line of JSON per page: each
rated player's section, system, pair, rating after the event (``repr`` of
the float: every bit), games after, floor and its reason; or why the page
was refused.  ``--trace`` rates with the step-by-step trace on (the
``--explain`` path), without it the untraced one (with the compiled kernel
where it is built; ``USCHESS_PURE=1`` sets it aside).

``--audit`` writes each post's audit instead (``uschess audit PAGE`` with
no options): the post computed from the page, whether it is reproduced, the
post with inferred inputs, the verdict and the names of the causes found;
``--jobs N`` audits N pages at once, ``--pages LIST`` only the pages named
in the file LIST (a name a line).

``--compare A B`` prints each page whose lines differ, post by post, and a
count (``--common``: of the pages both files hold, where one is a sample):
the way to show that a change meant to leave the ratings alone did, on
every page, or to list what a change of a rule moved.  The script uses only
what every version of the engine since the page readers has
(``load_published``, ``rate_event``, ``PlayerResult``; ``audit`` for
``--audit``), so an older checkout can run it from this one's folder.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
REAL = ROOT.parent / "shared" / "data" / "real"
CORPORA = {"pacl": (REAL / "pacl-2001-2021" / "sections", "XtblMain_*.html"),
           "national": (REAL / "tourneydata-2001-2014" / "tourneyInfo", "*/*/tourneyInfo-*")}
PACL_NAME = re.compile(r"XtblMain_([0-9]+)_([0-9]+)\.html$")


def page_posts(path: Path, trace: bool) -> dict:
    """The page's rated posts, or why it was refused."""
    from uschess.apps.audit.published import load_published
    from uschess.errors import InputError
    from uschess.rating.options import RatingOptions
    from uschess.rating.pipeline import rate_event

    m = PACL_NAME.search(path.name)
    try:
        published = load_published(path, section=m.group(2) if m else None)
        result = rate_event(published.event, RatingOptions(trace=trace))
    except InputError as err:
        return {"page": path.name, "refused": err.message}
    posts = [[s.section.name, s.system, p.pair, repr(p.post), p.games_after, repr(p.floor),
              p.floor_reason]
             for s in result.sections for p in s.players]
    return {"page": path.name, "posts": posts}


def page_audit(path: Path) -> dict:
    """The page's audited posts, or why it was refused."""
    from uschess.apps.audit import audit, load_published
    from uschess.errors import InputError

    m = PACL_NAME.search(path.name)
    try:
        a = audit(load_published(path, section=m.group(2) if m else None))
    except InputError as err:
        return {"page": path.name, "refused": err.message}
    posts = [[r.entry.section, r.entry.system,
              r.entry.id, repr(r.computed), r.reproduced, repr(r.with_inferred),
              r.verdict.verdict if r.verdict is not None else None,
              sorted({c.cause for c in r.causes})]
             for r in a.rows]
    return {"page": path.name, "posts": posts}


def _work(item: tuple) -> dict:
    path, trace, audited = item
    return page_audit(path) if audited else page_posts(path, trace)


def write(corpus: str, out: Path, every: int, trace: bool, audited: bool = False,
          jobs: int = 1, pages: Optional[Path] = None) -> int:
    folder, pattern = CORPORA[corpus]
    if not folder.is_dir():
        print(f"{folder} is not beside the checkout", file=sys.stderr)
        return 2
    files = sorted(folder.glob(pattern))[::every]
    if pages is not None:
        wanted = set(pages.read_text(encoding="utf-8").split())
        files = [f for f in files if f.name in wanted]
    items = [(f, trace, audited) for f in files]
    partial = out.with_name(out.name + ".partial")  # renamed to ``out`` once every page is in
    with partial.open("w", encoding="utf-8") as f:
        if jobs > 1:
            import multiprocessing
            with multiprocessing.get_context("spawn").Pool(jobs) as pool:
                for page in pool.imap(_work, items, chunksize=1):
                    f.write(json.dumps(page) + "\n")
                    f.flush()
        else:
            for item in items:
                f.write(json.dumps(_work(item)) + "\n")
    partial.replace(out)
    print(f"{corpus}: {len(files)} pages written to {out}")
    return 0


def _read(path: Path) -> dict:
    with path.open(encoding="utf-8") as f:
        return {page["page"]: page for page in map(json.loads, f)}


def compare(a: Path, b: Path, common: bool = False) -> int:
    """Print the pages of ``a`` and ``b`` whose posts differ; 1 if any do.
    ``common``: only the pages both files hold (one of them a sample)."""
    left, right = _read(a), _read(b)
    if common:
        left = {k: v for k, v in left.items() if k in right}
        right = {k: v for k, v in right.items() if k in left}
    pages = differ = reasons = 0
    for name in sorted(left.keys() | right.keys()):
        x, y = left.get(name), right.get(name)
        if x == y:
            continue
        pages += 1
        if x is None or y is None or "posts" not in x or "posts" not in y:
            print(f"{name}: {'absent' if x is None else x.get('refused', 'rated')} -> "
                  f"{'absent' if y is None else y.get('refused', 'rated')}")
            continue
        was = {tuple(p[:3]): p[3:] for p in x["posts"]}
        now = {tuple(p[:3]): p[3:] for p in y["posts"]}
        for key in sorted(was.keys() | now.keys(), key=str):
            old, new = was.get(key), now.get(key)
            if old == new:
                continue
            if old is not None and new is not None and len(old) == 4 and old[:3] == new[:3]:
                reasons += 1  # the same rating, games and floor: the floor's reason worded anew
                what = "reason"
            else:
                differ += 1
                what = "differs"
            print(f"{name} {key[0]!r} {key[1]} {key[2]} {what}: {old} -> {new}")
    total = sum(len(p.get("posts", ())) for p in right.values())
    print(f"{pages} of {len(left.keys() | right.keys())} pages differ; of {total} posts, "
          f"{differ} differ in value (a rating, games or floor; an audit's verdict, values or "
          f"causes), {reasons} only in the wording of a floor's reason")
    return 1 if pages else 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", nargs="?", choices=sorted(CORPORA))
    ap.add_argument("--out", metavar="FILE", help="write the pages' posts here")
    ap.add_argument("--every", type=int, default=1, help="only every K-th page (a sample)")
    ap.add_argument("--trace", action="store_true", help="rate with the step-by-step trace")
    ap.add_argument("--audit", action="store_true", help="each post's audit, not its rating")
    ap.add_argument("--jobs", type=int, default=1, help="pages at once (1)")
    ap.add_argument("--pages", metavar="LIST", help="only the pages named in LIST")
    ap.add_argument("--compare", nargs=2, metavar=("A", "B"), help="compare two files")
    ap.add_argument("--common", action="store_true",
                    help="with --compare: only the pages both files hold")
    args = ap.parse_args(argv)
    if not args.compare and (not args.corpus or not args.out or args.every < 1 or args.jobs < 1):
        ap.error("a corpus, --out FILE, --every and --jobs of at least 1 (or --compare A B)")
    try:
        if args.compare:
            return compare(Path(args.compare[0]), Path(args.compare[1]), args.common)
        return write(args.corpus, Path(args.out), args.every, args.trace, args.audit,
                     args.jobs, Path(args.pages) if args.pages else None)
    except (OSError, ValueError, KeyError, TypeError) as err:  # a file missing, not ours, damaged
        print(f"rated_posts.py: {err}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
