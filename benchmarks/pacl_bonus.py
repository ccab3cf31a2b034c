"""Which bonus eligibility the PACL pages show before the 2017 edition (sec. 4.2).

    python benchmarks/pacl_bonus.py [--limit N] [--every K] [--pages FILE] [--json FILE]

Reads ``../shared/data/real/pacl-2001-2021/sections`` in place.  The two
wordings differ only for a player of three or four games against two
opponents: 002 (2001) gives no bonus against fewer than three distinct
opponents, the 2017 edition (004 sec. 4.2) gives it from m >= 3 with no
opponent met more than twice.  Every page of a section held before the 2020
revision (the first date the rule book's ``bonus`` slot holds another
plugin) is rated as known on its Rated (or Re-Rated) date twice, whatever
the calendar says: with the ``bonus`` slot filled by ``bonus-002``
throughout, and by ``bonus-2017`` throughout.  For every published post the
two ratings put apart by half a point or more it prints the page, the
section's start, the system, the pre-event and published ratings and both
computed posts; then counts, for the sections held before the 2017 edition
(the slot's first entry cited from 004) and for those held after it (where
the 2017 wording is documented: a control), the posts within 1 point of one
wording's only, and in the integer era (the ``storage`` slot's last change)
the posts equal to one wording's integer only.  The rules follow what it
prints: ``rulesets/slots.yaml`` fills the slot with ``bonus-2017`` from
2002-01-01, learned from the record.
"""

from __future__ import annotations

import collections
import datetime as dt
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pacl_audit import corpus_and_book, rated_with_each, slot_filled  # noqa: E402

#: The two fillings of the ``bonus`` slot compared (rules/formulas.py).
WORDINGS = ("bonus-002", "bonus-2017")


def dates(book) -> tuple:
    """From the rule book, not written here: the 2017 edition's date (the
    ``bonus`` slot's first entry cited from 004), the first date the slot
    holds neither wording (the 2020 revision), and the first date ratings
    are stored as floats (``storage``)."""
    entries = book.slots["bonus"].entries
    edition = next(e.effective for e in entries if e.source.doc == "004")
    revised = next(e.effective for e in entries if e.value not in WORDINGS)
    return edition, revised, book.slots["storage"].entries[-1].effective


def main(argv=None) -> int:
    args, files, book = corpus_and_book(__doc__, argv)
    if files is None:
        return 2
    edition, revised, float_from = dates(book)
    filled = {w: slot_filled(book, "bonus", w, "pacl_bonus") for w in WORDINGS}
    rows = []
    for f, pub, posts in rated_with_each(files, book, filled, revised):
        old, new = (posts[w] for w in WORDINGS)
        start = pub.event.sections[0].start
        for e in pub.entries:
            key = (e.section, e.system, e.id)
            a, b = old.get(key), new.get(key)
            if e.post is None or a is None or b is None or abs(a - b) < 0.5:
                continue
            rows.append({"page": f.stem, "start": start.isoformat(), "system": e.system,
                         "id": e.id, "pre": e.pre, "published": e.post, "002": a, "2017": b})
    counts = collections.Counter()
    for r in rows:
        start = dt.date.fromisoformat(r["start"])
        when = "before" if start < edition else "after"
        a, b, pub = r["002"], r["2017"], r["published"]
        pre = "unrated" if r["pre"] is None else f"{r['pre']:g}"
        print(f"{r['page']:<26} {r['start']} {r['system']:<4} {r['id']:>9} {pre:>7} -> "
              f"{pub:<6g} 002 {a:8.2f}  2017 {b:8.2f}")
        if start < float_from:
            counts[(when, "integer equal to 2017's only")] += pub == round(b) != round(a)
            counts[(when, "integer equal to 002's only")] += pub == round(a) != round(b)
            counts[(when, "integer era posts")] += 1
        counts[(when, "within 1 of 2017's only")] += abs(b - pub) <= 1 < abs(a - pub)
        counts[(when, "within 1 of 002's only")] += abs(a - pub) <= 1 < abs(b - pub)
        counts[(when, "posts")] += 1
        counts[(when, "first")] = min(counts.get((when, "first"), r["start"]), r["start"])
    for when, label in (("before", f"held before {edition.isoformat()} (002's wording in "
                                   "the documents, the 2017 edition's date)"),
                        ("after", f"held {edition.isoformat()} to {revised.isoformat()} "
                                  "(the 2017 wording documented: a control)")):
        print(f"sections {label}:")
        for (w, what), n in sorted(counts.items()):
            if w == when and what != "first":
                print(f"  {what:<34} {n}")
        if (when, "first") in counts:
            print(f"  {'the first such post':<34} {counts[(when, 'first')]}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
