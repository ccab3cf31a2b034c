"""What the causes of the posts missed amount to: the evidence of each
cause, one finding per post, and dated findings about a whole page.

*Evidence.*  A cause is a variant of the event that reproduces one post;
what it does to the page's other posts says what it is worth: how many of
the posts the rules in force reproduce it keeps and loses, and how many of
the others missed it reproduces too (:class:`~uschess.apps.audit.cause.Evidence`).
Each cause also states the values it was free to choose.

*A finding per post missed* (:func:`row_finding`):

``cause``
    one kind of cause fits (or one fits with fewer posts lost than the rest);
``ambiguous``
    causes of several kinds fit equally well: each is listed, none is
    chosen;
``weak``
    only a value of a rule fitted to the post fits (another B, N*, K):
    that a setting fits one post is no evidence that the rules were
    otherwise;
``dated``
    the post is reproduced by a rule version of a dated finding;
``no cause found``
    nothing tried reproduces it: a valid answer, counted.

*Dated findings* (:func:`dated_findings`): a version of a rule from
another period that reproduces the page much better than the version in
force on its date (at least :data:`LEAST_GAINED` more posts and at least
half of those missed): the rule's change may have taken effect on another
day than the documents date it.  Reported first, with the dates.  The
rules as known on the page's Rated date do the same when a later
retroactive decision changed them (:class:`KnowledgeFinding`): the page was
rated before the decision, with no value chosen to fit (the date is the
page's own).
"""

from __future__ import annotations

import datetime as _dt
import json
from dataclasses import dataclass
from typing import Optional

from uschess.apps.audit.cause import HISTORIES, Evidence, names_inferred, within

#: The kinds of finding of a post missed, in the order reports count them.
FINDINGS = ("dated", "cause", "ambiguous", "weak", "no cause found")
#: How the reports word each finding of a post missed.
FINDING_WORDS = {"dated": "reproduced by a rule version of a dated finding",
                 "cause": "with one cause", "ambiguous": "ambiguous (causes of several kinds fit)",
                 "weak": "with only a rule value fitted to them (not evidence)",
                 "no cause found": "with no cause found"}
#: A rule version reproducing the page better by fewer posts than this is
#: not a dated finding.
LEAST_GAINED = 3


def evidence(posts, row, rows, tol: float) -> Evidence:
    """What a variant's printed ``posts`` do to the published posts of
    ``rows`` other than ``row``'s."""
    return _counted((r.reproduced, within(posts.get((r.entry.section, r.entry.system,
                                                     r.entry.id)), r.entry.post, tol))
                    for r in rows if r is not row)


def _counted(pairs) -> Evidence:
    """Evidence from (reproduced by the rules in force, reproduced by the
    variant) for each post."""
    keeps = loses = gains = 0
    for before, got in pairs:
        if before:
            keeps += got
            loses += not got
        else:
            gains += got
    return Evidence(keeps, loses, gains)


def row_finding(row, dated_keys: frozenset = frozenset()) -> tuple[Optional[str], list[str]]:
    """The finding on a missed row (None for a row reproduced or not
    computed) and the causes it names."""
    if row.reproduced or row.computed is None:
        return None, []
    if not row.causes:
        return "no cause found", []
    dated = [c.cause for c in row.causes if c.key is not None and c.key in dated_keys]
    if dated:
        return "dated", dated[:1]
    strong = [c for c in row.causes if not c.weak]
    if not strong:
        return "weak", list(dict.fromkeys(c.cause for c in row.causes))
    if all(c.evidence is not None for c in strong):
        least = min(c.evidence.loses for c in strong)
        strong = [c for c in strong if c.evidence.loses == least]
    names = list(dict.fromkeys(c.cause for c in strong))
    return ("ambiguous" if len(names) > 1 else "cause"), names


@dataclass
class DatedFinding:
    """A rule version of another period that reproduces the page much
    better than the one in force on its date."""

    rule: str
    label: str
    #: the period the version was in force (``until`` None: still in force)
    since: _dt.date
    until: Optional[_dt.date]
    source: str
    #: the first section's start date
    dated: _dt.date
    reproduced: int
    in_force: int
    total: int

    @property
    def days(self) -> int:
        """Days from the version's period to the page's date (after its end
        positive, before its start negative)."""
        if self.until is not None and self.dated >= self.until:
            return (self.dated - self.until).days + 1
        return (self.dated - self.since).days

    def describe(self) -> str:
        period = (f"in force {self.since.isoformat()} to "
                  f"{(self.until - _dt.timedelta(days=1)).isoformat()}" if self.until
                  else f"in force from {self.since.isoformat()}")
        when = (f"{self.days} day{'s' if self.days != 1 else ''} after that version ended"
                if self.days > 0 else f"{-self.days} days before that version began")
        return (f"{self.label} ({self.rule} {period} [{self.source}]) reproduces "
                f"{self.reproduced} of {self.total}, the rules in force on "
                f"{self.dated.isoformat()} {self.in_force}: the page was rated with the version "
                f"of another period, {when}")

    def as_dict(self) -> dict:
        return {"rule": self.rule, "label": self.label, "since": self.since.isoformat(),
                "until": self.until.isoformat() if self.until else None, "source": self.source,
                "dated": self.dated.isoformat(), "days": self.days,
                "reproduced": self.reproduced, "in_force": self.in_force, "total": self.total,
                "finding": self.describe()}


@dataclass
class KnowledgeFinding:
    """The rules as known on the page's Rated (or Re-Rated) date reproduce
    the page much better than the rules in force as known today: a
    retroactive decision after the page was rated changed them."""

    #: what the decision changed: 'online_half_k True -> False [...], decided ...'
    changed: str
    #: the knowledge date (the page's Rated date, or the event's end)
    known_on: _dt.date
    #: the first section's start date
    dated: _dt.date
    reproduced: int
    in_force: int
    total: int

    def describe(self) -> str:
        return (f"the rules as known on {self.known_on.isoformat()} reproduce {self.reproduced} of "
                f"{self.total}, the rules in force on {self.dated.isoformat()} as known today "
                f"{self.in_force}: the page was rated before a retroactive decision changed them"
                + (f" ({self.changed})" if self.changed else ""))

    def as_dict(self) -> dict:
        return {"rule": "known_on", "label": f"as known on {self.known_on.isoformat()}",
                "known_on": self.known_on.isoformat(), "changed": self.changed,
                "dated": self.dated.isoformat(), "reproduced": self.reproduced,
                "in_force": self.in_force, "total": self.total, "finding": self.describe()}


def changed_rules(now, then) -> str:
    """What differs between two resolved rule sets: 'bonus_multiplier 12 ->
    10 [source], decided 2025-06-03' and the like."""
    parts = []
    for name, res in now.params.items():
        old = then.params.get(name)
        if old is not None and old.value != res.value:
            decided = getattr(res.entry, "decided_on", None)
            parts.append(f"{name} {old.value!r} -> {res.value!r} [{res.entry.source.cite()}]"
                         + (f", decided {decided}" if decided else ""))
    return "; ".join(parts)


def _knowledge_finding(variants, book, key, day, n, base) -> KnowledgeFinding:
    """The finding of the rules as known on ``key``'s date, with what the
    decisions after it changed in the sections' rules."""
    when = key[1]
    opts = variants.options
    changes = []
    for sr in {id(r.section): r.section for r in variants.rows}.values():
        then = book.rules(sr.rules.on, known_on=when, readings=opts.readings,
                          edition=opts.edition, reform=opts.reform)
        text = changed_rules(sr.rules, then)
        if text and text not in changes:
            changes.append(text)
    return KnowledgeFinding("; ".join(changes), when, day, n, base, len(variants.rows))


def _period(book, name: str, value, day: _dt.date):
    """The period of ``name``'s timeline with ``value`` nearest to ``day``:
    (since, until, source), or None."""
    entries = sorted(book.timelines[name].entries, key=lambda e: e.effective)
    best = None
    for k, e in enumerate(entries):
        if e.value != value:
            continue
        until = entries[k + 1].effective if k + 1 < len(entries) else None
        gap = (0 if e.effective <= day and (until is None or day < until)
               else min(abs((day - e.effective).days),
                        abs((day - until).days) if until else 10 ** 6))
        if best is None or gap < best[0]:
            best = (gap, e.effective, until, e.source.cite())
    return None if best is None else best[1:]


def dated_findings(variants, book, entries, tol: float, count_reproduced) -> list:
    """(finding, variant key) for each rule version among the whole-event
    variants rated that reproduces much more than the rules in force (a
    version of another period, or the rules as known on the page's date)."""
    base = sum(1 for r in variants.rows if r.reproduced)
    missed = len(variants.rows) - base
    day = min(s.start for s in variants.event.sections)
    out = []
    for key, label in variants.labels.items():
        res = variants._cache.get(key)
        if res is None or key[0] not in ("reform", "known_on"):
            continue
        n = count_reproduced(res, entries, tol)
        if n - base < max(LEAST_GAINED, missed / 2):
            continue
        if key[0] == "known_on":
            out.append((_knowledge_finding(variants, book, key, day, n, base), key))
            continue
        name, value = key[1], json.loads(key[2])
        period = _period(book, name, value, day)
        if period is None:
            continue
        since, until, source = period
        out.append((DatedFinding(name, label, since, until, source, day, n, base,
                                 len(variants.rows)), key))
    out.sort(key=lambda f: -f[0].reproduced)
    return out


def put_dated_first(rows, keys: frozenset) -> None:
    """Each row's causes from a dated finding's variant first."""
    for r in rows:
        r.causes.sort(key=lambda c: not (c.key is not None and c.key in keys))


def count_findings(rows) -> dict:
    """Finding -> how many rows have it."""
    counts = {f: 0 for f in FINDINGS}
    for r in rows:
        if r.finding is not None:
            counts[r.finding] += 1
    return counts


#: The free values of the causes the inference stages make (the checks
#: state their own).
INFERRED_FREE = {
    "initialization": "the initial ratings of the unrated players, one per player, solved "
                      "from the page",
    "history": "earlier histories (only wins or only losses), one per player, kept where they "
               "reproduce more",
    "tradeoff": "one initial rating moved alone",
    "corrected": "one game's result of the corrected section",
    "zero_games": "none (the pre-event rating the page prints on 0 games)",
    "scored_cells": "none (the cells the page prints)",
    "games": "an unrated player's count of earlier games (up to the rules' cap)",
    "floor": "none (the level is the published value; its kind is named)",
}


def state_free_values(rows) -> None:
    """The free values of the causes the inference stages made."""
    for r in rows:
        for c in r.causes:
            if c.free_values is None:
                c.free_values = INFERRED_FREE.get(c.cause, "not stated by the cause")


def inferred_evidence(rows, tol: float) -> Optional[Evidence]:
    """What the inferred inputs do to the page's posts (None when nothing
    was inferred): the evidence of the causes naming them."""
    if all(r.with_inferred is None for r in rows):
        return None
    return _counted((r.reproduced, within(r.with_inferred, r.entry.post, tol)) for r in rows)


def attach_inferred_evidence(rows, tol: float) -> None:
    """The causes naming the inferred inputs get the page's evidence with
    them (less the row's own post)."""
    ev = inferred_evidence(rows, tol)
    if ev is None:
        return
    for r in rows:
        for c in r.causes:
            if c.evidence is None and c.posts is None and (
                    names_inferred(c) or (c.cause == "history" and c.detail.startswith(HISTORIES))):
                c.evidence = Evidence(ev.keeps, ev.loses,
                                      ev.gains - within(r.with_inferred, r.entry.post, tol))
