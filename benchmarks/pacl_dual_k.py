"""When the PACL pages show the high-rated dual-rating K exception (sec. 4.2).

    python benchmarks/pacl_dual_k.py [--limit N] [--every K] [--pages FILE] [--json FILE]

Reads ``../shared/data/real/pacl-2001-2021/sections`` in place.  Every page
of a dual-rated section (``Rating Sys: D``) held before 2020-06 is rated as
known on its Rated (or Re-Rated) date twice, whatever the rules in force say
of the exception: with the exception (the ``k_factor`` slot filled by
``k-dual-otbr`` throughout) and without it (``k-002``: K = 800/(N' + m)).
The rules follow what this prints: the exception from 2013-05-08 only
(``rulesets/slots.yaml``, learned from the record).  For every
published OTBR post of a player rated above 2200 that the two ratings put
apart, it prints the page, the section's start, the pre-event and published
ratings and both computed posts, then counts by the section's start (before
2013-05-08, the N* change of 000 sec. 8, or on and after it): posts equal to
the one rating's integer and not the other's (in the integer era, to
2014-08), and posts within 1 point of one only.  The audit cause
``k_exception`` (:mod:`uschess.apps.audit.k_exception`) cites these
figures where the rules apply the exception.
"""

from __future__ import annotations

import collections
import datetime as dt
import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pacl_audit import corpus_and_book, rated_with_each, slot_filled  # noqa: E402


#: The two fillings of the ``k_factor`` slot compared (rules/formulas.py).
WITH, WITHOUT = "k-dual-otbr", "k-002"


def dates(book) -> tuple:
    """From the rule book (rulesets/slots.yaml), not written here: the date
    the counts are split at (the first filled by the exception in
    ``k_factor``), the first date ratings are stored as floats
    (``storage``), and the slot's next change after the split (the 2020
    revision of the K wording), before which the pages are read."""
    k = [e.effective for e in book.slots["k_factor"].entries]
    split = next(e.effective for e in book.slots["k_factor"].entries if e.value == WITH)
    return split, book.slots["storage"].entries[-1].effective, min(d for d in k if d > split)


def main(argv=None) -> int:
    args, files, book = corpus_and_book(__doc__, argv)
    if files is None:
        return 2
    split_on, float_from, revised_on = dates(book)
    k_slot = {k: slot_filled(book, "k_factor", k, "pacl_dual_k") for k in (WITH, WITHOUT)}
    dual = [f for f in files if "Rating Sys: D" in f.read_text(encoding="latin-1")]

    def high(pub) -> list:
        return [e for e in pub.entries if e.system == "OTBR" and e.pre is not None
                and e.pre > 2200]

    rows = []
    for f, pub, posts in rated_with_each(dual, book, k_slot, revised_on, wanted=high):
        shown, other = posts[WITH], posts[WITHOUT]
        start = pub.event.sections[0].start
        for e in high(pub):
            key = (e.section, e.system, e.id)
            a, b = shown.get(key), other.get(key)
            if a is None or b is None or abs(a - b) < 1e-9:
                continue
            rows.append({"page": f.stem, "start": start.isoformat(), "id": e.id,
                         "pre": e.pre, "published": e.post, "exception": a, "plain": b})
    counts = collections.Counter()
    for r in rows:
        start = dt.date.fromisoformat(r["start"])
        when = "before" if start < split_on else "after"
        ex, pl = r["exception"], r["plain"]
        print(f"{r['page']:<26} {r['start']} {r['id']:>9} {r['pre']:>6g} -> {r['published']:<6g} "
              f"exception {ex:8.2f}  plain {pl:8.2f}")
        if start < float_from:
            counts[(when, "integer equal to the exception's only")] += (
                r["published"] == round(ex) and r["published"] != round(pl))
            counts[(when, "integer equal to the plain K's only")] += (
                r["published"] == round(pl) and r["published"] != round(ex))
            counts[(when, "integer era posts")] += 1
        counts[(when, "within 1 of the exception's only")] += (
            abs(ex - r["published"]) <= 1 < abs(pl - r["published"]))
        counts[(when, "within 1 of the plain K's only")] += (
            abs(pl - r["published"]) <= 1 < abs(ex - r["published"]))
        counts[(when, "posts")] += 1
    for when in ("before", "after"):
        print(f"sections held {when} {split_on.isoformat()}:")
        for (w, what), n in sorted(counts.items()):
            if w == when:
                print(f"  {what:<42} {n}")
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
