"""Where the PACL pages show every input: the engine against US Chess.

    python benchmarks/pacl_findings.py [--every K] [--limit N] [--json FILE] [--misses N]

Reads ``../shared/data/real/pacl-2001-2021/sections`` in place.  Of each page
(the section its file name names) it keeps the rating systems in which every
player of the section prints a pre-event rating: no unrated player, so no
initial rating the page cannot show (a member listed twice is one player, as
the reader rates a re-entry).  Those are audited as ``uschess audit PAGE
--as-rated`` does (the rules as known on the page's Rated or Re-Rated date),
so a rating not reproduced within 1 point is a disagreement between the
engine and US Chess, not an unknown input.

It prints the reproduced share per era of the rules, OTB or online, and per
rating system, then the misses grouped by pattern: the signed difference
(computed - published), the best cause the audit finds, whether the player
got a bonus, provisional (printed ``P`` count) or established, the special
or standard formula, whether a floor held, the section's rating system
(dual-rated sections print R and Q lines), the printed K factor, and the
page's Rated or Re-Rated date.  ``--json FILE`` writes every miss with these
fields; ``--misses N`` lists the N largest.
"""

from __future__ import annotations

import collections
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from pacl_audit import NAME, corpus_files, corpus_parser, era  # noqa: E402

#: Rating systems by the section's ``Rating Sys:`` letter.
KINDS = {"R": "Regular", "Q": "Quick", "D": "dual", "B": "Blitz", "OR": "Regular",
         "OQ": "Quick", "OB": "Blitz"}


#: Causes that name an input the page cannot show (a floor, an established
#: player's game count, an all-wins/all-losses history, rounded pre-event
#: ratings, an unrated player's initialization, section chaining); the other
#: causes (another B, N*, reading or rules date) are disagreements with the
#: rules in force.
HIDDEN_INPUTS = ("floor", "games", "history", "rounding", "initialization", "chaining")


def known_systems(section) -> list[str]:
    """The systems of ``section`` in which every player prints a pre-event
    rating (established or provisional with its count)."""
    return [s for s in section.systems if all(s in p.ratings for p in section.players)]


def provisional(section, pair: int, system: str) -> bool:
    """Whether the page prints a ``P<n>`` count for the player's pre-event
    rating (an established player's count is not printed: the reader takes
    ESTABLISHED_GAMES)."""
    from uschess.io.formats.msa import ESTABLISHED_GAMES
    rec = section.player(pair).ratings.get(system)
    return rec is not None and rec.games != ESTABLISHED_GAMES


def diff_bucket(d: float) -> str:
    a = abs(d)
    sign = "+" if d > 0 else "-"
    for top in (2, 5, 10, 25, 50, 100):
        if a <= top:
            return f"{sign}{top:>3}"
    return f"{sign}>100"


def miss_record(page: str, pub, facts, row) -> dict:
    """One miss and the pattern fields it is grouped by."""
    e, pr, sec = row.entry, row.result, row.section.section
    rec = sec.player(pr.pair).ratings.get(e.system)
    best = row.causes[0].cause if row.causes else "none found"
    return {
        "page": page, "id": e.id, "name": e.name, "system": e.system,
        "start": sec.start.isoformat(), "era": era(sec.start),
        "online": bool(sec.online), "rating_sys": facts.rating_sys,
        "k_factor": facts.k_factor, "tnmt_type": facts.tnmt_type,
        "rated": facts.rated.isoformat() if facts.rated else None,
        "rerated": facts.rerated.isoformat() if facts.rerated else None,
        "published_pre": e.pre, "pre": pr.pre, "pre_games": rec.games if rec else None,
        "provisional": provisional(sec, pr.pair, e.system),
        "published": e.post, "post_games": e.post_games, "computed": row.computed,
        "diff": row.diff, "m": pr.m, "score": pr.score, "formula": pr.formula,
        "k": pr.k, "bonus": pr.bonus, "floor_applied": pr.floor_applied,
        "floor": pr.floor, "cause": best,
        "causes": [c.as_dict() for c in row.causes],
    }


def main(argv=None) -> int:
    ap = corpus_parser(__doc__)
    ap.add_argument("--misses", type=int, default=0, metavar="N",
                    help="list the N largest misses")
    args = ap.parse_args(argv)
    files = corpus_files(args)
    if files is None:
        return 2
    from uschess.apps.audit import audit, load_published
    from uschess.calendar.rulebook import RuleBook
    from uschess.errors import InputError

    book = RuleBook.load()
    totals = collections.defaultdict(lambda: [0, 0, 0])  # key -> [reproduced, + hidden, total]
    misses = []
    pages = skipped = unread = 0
    started = time.perf_counter()
    for k, f in enumerate(files, 1):
        m = NAME.search(f.name)
        try:
            pub = load_published(f, section=m.group(2) if m else None)
        except InputError:
            unread += 1
            continue
        sec = pub.event.sections[0]
        systems = known_systems(sec)
        if not systems:
            skipped += 1
            continue
        pages += 1
        facts = pub.facts[0]
        try:
            a = audit(pub, book=book, known_on=pub.rated_on)
        except InputError:
            unread += 1
            continue
        place = "online" if sec.online else "OTB"
        kind = KINDS.get(facts.rating_sys or "", "?")
        for row in a.rows:
            if row.entry.system not in systems:
                continue
            for key in (f"era   {era(sec.start)} {place}", f"kind  {place} {kind}",
                        f"sys   {row.entry.system}", f"type  Tnmt Type {facts.tnmt_type}",
                        "pre   " + ("provisional (P printed)" if provisional(
                            sec, row.entry.pair, row.entry.system) else "established"),
                        "page  " + (f"Re-Rated {facts.rerated.year}" if facts.rerated
                                    else "Rated only"), "all"):
                hidden = bool(row.causes) and row.causes[0].cause in HIDDEN_INPUTS
                totals[key][0] += row.reproduced
                totals[key][1] += row.reproduced or hidden
                totals[key][2] += 1
            if not row.reproduced and row.computed is not None:
                misses.append(miss_record(f.name, pub, facts, row))
        if k % 100 == 0:
            print(f"  {k} pages, {time.perf_counter() - started:.0f} s", file=sys.stderr)
    print(f"{len(files)} pages in {time.perf_counter() - started:.0f} s: {pages} with every "
          f"input printed in at least one system, {skipped} with an unrated player in every "
          f"system, {unread} not read")
    print(f"  {'':<34} {'ratings':>7}   {'reproduced':>14}   {'or a hidden input':>17}")
    for key in sorted(totals):
        n, nh, t = totals[key]
        print(f"  {key:<34} {t:>7}   {n:>6} {100 * n / t:6.1f}%   {nh:>9} {100 * nh / t:6.1f}%")
    if misses:
        groups = (
            ("best cause", lambda x: x["cause"]),
            ("difference computed - published", lambda x: diff_bucket(x["diff"])),
            ("era", lambda x: f"{x['era']} {'online' if x['online'] else 'OTB'}"),
            ("rating system of the section / system", lambda x: f"{x['rating_sys']} {x['system']}"),
            ("printed K factor", lambda x: x["k_factor"]),
            ("tournament type", lambda x: x["tnmt_type"]),
            ("provisional (printed P) or established",
             lambda x: "provisional" if x["provisional"] else "established"),
            ("formula", lambda x: x["formula"]),
            ("bonus", lambda x: "bonus" if x["bonus"] else "no bonus"),
            ("a floor held (engine)", lambda x: "floor" if x["floor_applied"] else "no floor"),
            ("page date", lambda x: ("Re-Rated " + x["rerated"][:7]) if x["rerated"]
             else ("Rated " + (x["rated"] or "?")[:7])),
        )
        print(f"{len(misses)} misses by pattern:")
        for title, key in groups:
            c = collections.Counter(key(x) for x in misses)
            print(f"  {title}:")
            for value, n in sorted(c.items(), key=lambda kv: (-kv[1], str(kv[0]))):
                print(f"    {str(value):<40} {n:>6}")
        floors = {(x["id"], x["system"], x["published"]) for x in misses if x["cause"] == "floor"}
        print(f"  the floors: {len(floors)} distinct players and levels; the most frequent:")
        per = collections.Counter((x["id"], x["system"], x["published"]) for x in misses
                                  if x["cause"] == "floor")
        for (pid, system, level), n in per.most_common(5):
            print(f"    {pid} {system} at {level:g}: {n} pages")
        by_page = collections.Counter(x["page"] for x in misses)
        print("  pages with the most misses:")
        for page, n in by_page.most_common(15):
            print(f"    {page:<40} {n:>6}")
        if args.misses:
            print(f"the {args.misses} largest misses:")
            for x in sorted(misses, key=lambda x: -abs(x["diff"]))[:args.misses]:
                print(f"  {x['page']} {x['id']} {x['system']} pre {x['pre']:g} "
                      f"(P{x['pre_games']}) published {x['published']:g} computed "
                      f"{x['computed']:.2f} ({x['cause']}, {x['formula']})")
    if args.json:
        Path(args.json).write_text(json.dumps(misses, indent=1, default=str))
    return 0


if __name__ == "__main__":
    sys.exit(main())
