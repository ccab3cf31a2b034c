"""The verdicts of many audited pages, by era, system and event size.

:func:`page_summary` keeps of one page's audit what a corpus report needs,
as plain data (JSON, or a worker's answer): per system the verdicts
counted, the in-sample count, the page's dated findings and the posts that
look set by hand.  :class:`CorpusReport` adds pages up and
:meth:`CorpusReport.format` prints the table: each era of the rules, system
and event size with the four verdicts and the floors, the headline
(confirmed + explained) and the in-sample figure beside it, then every
dated finding and every post set by hand, with its page.
"""

from __future__ import annotations

import datetime as _dt
import textwrap
from collections import defaultdict
from dataclasses import dataclass, field

from uschess.apps.audit.cause import within
from uschess.apps.audit.hidden import printed_provisional
from uschess.apps.audit.verdict import VERDICTS

#: Eras of the rules (000 sec. 8): integer ratings before 2014-09-01, the
#: float era to the 2017 B = 14, that to the 2020 revision, and after.
ERAS = (("2001-2014-08", "2014-09-01"), ("2014-09..2017-05", "2017-06-01"),
        ("2017-06..2020-05", "2020-06-01"), ("2020-06..", "9999-12-31"))
#: Event sizes (the players of the page), as (largest, name).
SIZES = ((10, "1-10"), (30, "11-30"), (100, "31-100"), (None, "101+"))


def era(date: _dt.date) -> str:
    """The era of :data:`ERAS` of a date."""
    text = date.isoformat()
    for name, before in ERAS:
        if text < before:
            return name
    return ERAS[-1][0]


def size(players: int) -> str:
    for most, name in SIZES:
        if most is None or players <= most:
            return name
    return SIZES[-1][1]


def _set_by_hand(a) -> list[dict]:
    """Posts whose printed provisional count did not grow with the games
    rated (``P14`` before, ``P14`` after 6 games): a record changed by hand
    between the two, which no rule gives."""
    out = []
    for r in a.rows:
        e, pr = r.entry, r.result
        if pr is None or not pr.m or e.post_games is None or r.section is None:
            continue
        rec = r.section.section.player(pr.pair).ratings.get(e.system)
        if not printed_provisional(rec, int(r.section.rules.p.established_games)):
            continue
        if e.post_games <= rec.games:
            out.append({"id": e.id, "name": e.name, "system": e.system, "section": e.section,
                        "before": rec.games, "after": e.post_games, "games": pr.m})
    return out


def page_summary(a, page: str) -> dict:
    """What a corpus report keeps of audit ``a`` of ``page``."""
    event = a.published.event
    players = len({p.id for sec in event.sections for p in sec.players})
    systems: dict = {}
    inferred = a.reproduced_inferred is not None
    for r in a.rows:
        if r.verdict is None:
            continue
        got = systems.setdefault(r.entry.system, {**{v: 0 for v in VERDICTS}, "in_sample": 0})
        got[r.verdict.verdict] += 1
        got["in_sample"] += (within(r.with_inferred, r.entry.post, a.tolerance) if inferred
                             else r.reproduced)
    return {"page": page, "start": event.start.isoformat(), "players": players,
            "systems": systems, "total": a.total,
            "in_sample": a.reproduced_inferred if a.reproduced_inferred is not None
            else a.reproduced,
            "dated": [d.as_dict() for d in a.dated], "set_by_hand": _set_by_hand(a),
            "people": _people(a)}


def _people(a) -> dict:
    """The players whose age-based initial ratings, solved one system at a
    time, differed: how many one fact explains, those left with two stories
    (each described) with what the best single fact would cost them in
    published posts, and the values no age gives."""
    people = a.people
    if people is None:
        return {"one_fact": 0, "cost": 0, "two_stories": [], "implausible": []}
    left = [f for f in people.facts if not f.adopted]
    return {"one_fact": len(people.facts) - len(left), "cost": sum(f.cost for f in left),
            "two_stories": [f.describe() for f in left] + list(people.two_stories),
            "implausible": [i.describe() for i in people.implausible]}


@dataclass
class CorpusReport:
    """Page summaries added up (:func:`page_summary`)."""

    cells: dict = field(default_factory=lambda: defaultdict(lambda: defaultdict(int)))
    dated: list = field(default_factory=list)
    set_by_hand: list = field(default_factory=list)
    #: players with one fact for all their systems, and (page, description)
    #: of those left with two stories and of values no age gives
    one_fact: int = 0
    cost: int = 0
    two_stories: list = field(default_factory=list)
    implausible: list = field(default_factory=list)
    unread: list = field(default_factory=list)
    pages: int = 0

    def add(self, summary: dict) -> None:
        self.pages += 1
        when = era(_dt.date.fromisoformat(summary["start"]))
        big = size(summary["players"])
        for system, counts in summary["systems"].items():
            for key in ((when, system, big), ("all", "all", "all")):
                cell = self.cells[key]
                for v, n in counts.items():
                    cell[v] += n
                cell["total"] += sum(counts[v] for v in VERDICTS)
        self.dated.extend((summary["page"], d) for d in summary["dated"])
        self.set_by_hand.extend((summary["page"], s) for s in summary["set_by_hand"])
        people = summary.get("people", {})
        self.one_fact += people.get("one_fact", 0)
        self.cost += people.get("cost", 0)
        self.two_stories.extend((summary["page"], d) for d in people.get("two_stories", ()))
        self.implausible.extend((summary["page"], d) for d in people.get("implausible", ()))

    def refused(self, page: str, why: str) -> None:
        self.unread.append((page, why))

    def _dated_lines(self) -> list[str]:
        """The dated findings: those of the rules as known on the pages'
        Rated dates grouped by the decision that changed them (with the
        posts they reproduce beyond the rules in force), then each page's
        finding of a rule version of another period."""
        if not self.dated:
            return []
        known = defaultdict(list)
        for page, d in self.dated:
            if d["rule"] == "known_on":
                known[d["changed"]].append((page, d["reproduced"] - d["in_force"]))
        lines = [f"dated findings: {len(self.dated)} on {len({p for p, _ in self.dated})} pages"]
        for changed, pages in known.items():
            lines.append(f"  the rules as known on the page's Rated date, before a retroactive "
                         f"decision ({changed}): {len(pages)} pages, {sum(n for _, n in pages):,} "
                         "posts reproduced beyond the rules in force as known today, no value "
                         "fitted (the date is the page's own):")
            lines.extend(textwrap.wrap(", ".join(p for p, _ in pages), 100, initial_indent="    ",
                                       subsequent_indent="    "))
        lines.extend(f"  {page}: {d['finding']}" for page, d in self.dated if d["rule"] != "known_on")
        return lines

    def format(self) -> str:
        head = (f"{'era':<18} {'system':<6} {'players':<13} {'posts':>6} {'confirmed':>9} "
                f"{'explained':>9} {'fitted':>6} {'floor':>5} {'unexpl.':>7} {'headline':>9} "
                f"{'in sample':>9}")
        lines = [f"{self.pages} pages audited, {len(self.unread)} refused; headline = "
                 "confirmed + explained (out of sample); in sample = reproduced with the "
                 "inferred inputs fitted to the same posts", head]
        order = {name: k for k, (_, name) in enumerate(SIZES)}
        keys = sorted((k for k in self.cells if k[0] != "all"),
                      key=lambda k: (k[0], k[1], order[k[2]])) + [("all", "all", "all")]
        for key in keys:
            c = self.cells[key]
            total = c["total"]
            if not total:
                continue
            pct = 100 * (c["confirmed"] + c["explained"]) / total
            lines.append(f"{key[0]:<18} {key[1]:<6} {key[2]:<13} {total:>6} "
                         f"{c['confirmed']:>9} {c['explained']:>9} {c['fitted']:>6} "
                         f"{c['floor']:>5} {c['unexplained']:>7} {pct:>8.1f}% "
                         f"{100 * c['in_sample'] / total:>8.1f}%")
        lines.extend(self._dated_lines())
        if self.set_by_hand:
            lines.append("posts set by hand (a provisional count that did not grow):")
            lines.extend(f"  {page}: {s['name']} ({s['id']}), {s['system']}, P{s['before']} "
                         f"before and P{s['after']} after {s['games']} rated games"
                         for page, s in self.set_by_hand)
        if self.one_fact or self.two_stories or self.implausible:
            lines.extend(self._people_lines())
        if self.unread:
            lines.append("pages refused:")
            lines.extend(f"  {page}: {why}" for page, why in self.unread)
        return "\n".join(lines) + "\n"

    def _people_lines(self) -> list[str]:
        """How many players one fact explains, and those left with two
        stories."""
        lines = [f"players whose age-based initial ratings, solved one system at a time, "
                 f"differed: {self.one_fact} given one fact for all their systems (a birth "
                 f"date or the adult flag), {len(self.two_stories)} left with two stories "
                 f"(the best single fact would lose {self.cost} published posts in all; each "
                 f"page's summary describes them); {len(self.implausible)} inferred age-based "
                 f"values no age gives"]
        return lines
