"""One explanation per person: the facts a page hides, shared by a player's
systems.

The initial ratings are solved per section and system
(:mod:`uschess.apps.audit.infer`), one free number each.  But a player
unrated in two systems of a dual-rated event was initialized in both from
the same facts: one birth date (or one adult flag) gives the age-based
rating of sec. 2.3 in each.  Two numbers that imply two ages are two
stories about one person.  So for every player with age-based initial
ratings inferred in several systems, one birth date is tried for all of
them: an adult (no birth date, sec. 2.3), the age each value implies
(where the formula gives it), their mean; each gives every system's
initial rating through the rules' own step 1 (the hook of the rules in
force, never a copy of the formula), and so are ages between them (a
grid of :data:`GRID` steps).  The event is rated with each (every other
inferred input in place); the fact that reproduces the most published
posts replaces the separate numbers where it reproduces as many (fewer
free values for the same fit).  Where none does, the report says the
player has two stories and what the best single fact would cost: the
start in one system may have come from what the page cannot show (another
system's rating, FIDE), not from an age.

Each fact is stated in the words of the documents ("born about 1999,
initialized at 1300 by sec. 2.3"), within sensible bounds: an age of
:data:`YOUNGEST` to :data:`OLDEST`.  An age-based value that no age
gives (above the formula's oldest value, or below its youngest) is
flagged as implausible: the player's initial rating came from elsewhere
(another system, FIDE, CFC) or the value is an artifact of the fit.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from dataclasses import dataclass, field
from typing import Optional

from uschess.apps.audit.cause import count_reproduced, printed_posts
from uschess.apps.audit.infer import Inferred, restate_inferred_causes
from uschess.apps.audit.inputs import _options
from uschess.apps.audit.page_chain import rate_published
from uschess.errors import InputError

#: The ages a birth date inferred from a page may give.
YOUNGEST, OLDEST = 3, 100
#: Values of a player's systems closer than this are one story already.
SAME = 0.5
#: Ages tried between the youngest and the oldest a player's separate
#: values imply, beside those ages and their mean (steps of the span).
GRID = 6


@dataclass
class PersonFact:
    """One fact about a player tried for all of their systems."""

    id: str
    name: str
    #: ``born about <year>`` or ``an adult (no birth date)``
    fact: str
    year: Optional[int]
    #: system -> the initial rating the fact gives (sec. 2.3)
    values: dict
    #: system -> the value solved alone
    separate: dict
    #: published posts reproduced with the fact, and with the separate values
    reproduced: int
    reproduced_separate: int
    adopted: bool

    @property
    def cost(self) -> int:
        """Published posts the separate numbers reproduced and the one fact
        does not."""
        return max(0, self.reproduced_separate - self.reproduced)

    def describe(self) -> str:
        given = ", ".join(f"{v:.0f} in {s}" for s, v in self.values.items())
        alone = ", ".join(f"{v:.0f} in {s}" for s, v in self.separate.items())
        if self.adopted:
            return (f"{self.name} ({self.id}): {self.fact}, initialized at {given} by sec. 2.3, "
                    f"one fact for all systems ({self.reproduced} published posts reproduced; "
                    f"solved one system at a time: {alone}, {self.reproduced_separate})")
        return (f"{self.name} ({self.id}) has two stories: solved one system at a time the "
                f"initial ratings are {alone} ({self.reproduced_separate} reproduced), which no "
                f"one birth date gives; the best single fact, {self.fact} ({given} by sec. 2.3), "
                f"reproduces {self.reproduced}, {self.cost} fewer")

    def as_dict(self) -> dict:
        return {**dataclasses.asdict(self), "cost": self.cost, "describe": self.describe()}


@dataclass
class Implausible:
    """An inferred age-based value that no age of sec. 2.3 gives."""

    id: str
    name: str
    system: str
    value: float
    why: str

    def describe(self) -> str:
        return (f"implausible: the initial {self.system} rating {self.value:.0f} inferred for "
                f"{self.name} ({self.id}) {self.why}")

    def as_dict(self) -> dict:
        return {**dataclasses.asdict(self), "describe": self.describe()}


@dataclass
class People:
    facts: list = field(default_factory=list)
    implausible: list = field(default_factory=list)
    #: players left with a number per system: no fact could be tried
    #: (step 1 refused every candidate), each described
    two_stories: list = field(default_factory=list)


def _age_based(i: Inferred) -> bool:
    """Whether the rules initialized the player from their age, or would
    have with a birth date (the last resort where none is known): a fact
    shared by the player's systems decides it; not where the page gives the
    start games, which an age-based start never has (:attr:`Inferred.other_systems`)."""
    return i.rules_how.startswith(("age-based", "no other information")) and not i.other_systems


def implausible(records: list) -> list[Implausible]:
    """The age-based values of ``records`` (with their section results'
    age formula ``a``) that no age gives."""
    out = []
    for i, a in records:
        if not _age_based(i):
            continue
        if i.value > a["old"] + 0.5:
            out.append(Implausible(i.id, i.name, i.system, i.value,
                                   f"is above the {a['old']:g} that sec. 2.3 gives at any age: "
                                   "an initial rating from elsewhere (another system, FIDE, CFC) "
                                   "the page does not show, or an artifact of the fit"))
        elif i.value < a["young"] - 0.5:
            out.append(Implausible(i.id, i.name, i.system, i.value,
                                   f"is below the {a['young']:g} that sec. 2.3 gives at any age"))
    return out


def _candidates(records: list, on: _dt.date, a: dict) -> list:
    """(label, year, birth date or None, adult) facts to try; ``on`` is the
    date step 1 takes the age on (the section's end)."""
    ages = sorted({round(i.value / a["per_year"], 1) for i, _ in records
                   if a["young_below"] <= i.value / a["per_year"] < a["old_above"]})
    if len(ages) > 1:
        low, high = ages[0], ages[-1]
        ages.append(round(sum(ages) / len(ages), 1))
        ages.extend(round(low + (high - low) * k / GRID, 1) for k in range(1, GRID))
        ages = sorted(set(ages))
    # an adult first: at the formula's oldest age a birth date says no more
    out = [("an adult (no birth date, sec. 2.3)", None, None, True)]
    for age in ages:
        if not YOUNGEST <= age <= OLDEST:
            continue
        born = on - _dt.timedelta(days=round(age * a["days_per_year"]))
        out.append((f"born about {born.year}", born.year, born, False))
    return out


def _initial_with(sr, pl, born, adult) -> Optional[float]:
    """Step 1's rating for ``pl`` in section result ``sr``'s system with
    the birth date ``born`` (or as an adult), by the rules in force."""
    who = dataclasses.replace(pl, birth_date=born, adult=adult)
    try:
        got = sr.rules.call.uschess_initial_rating(player=who, system=sr.system,
                                                   end=sr.section.end, p=sr.rules.p,
                                                   hook=sr.rules.call)
    except InputError:
        return None
    return None if got is None else got.rating


def _count(m, values: dict) -> tuple[int, Optional[dict]]:
    inputs = m.inputs
    try:
        res = rate_published(inputs.event(m.published.event),
                             _options(m.options, values, inputs.games), book=m.book)
    except InputError:
        return -1, None
    return count_reproduced(res, m.published.entries, m.tol), printed_posts(res)


def _try_person(m, pid: str, records: list, rows_by: dict) -> Optional[PersonFact]:
    inputs = m.inputs
    first_row = rows_by[(records[0][0].section, records[0][0].system, pid)]
    sr0, a = first_row.section, records[0][1]
    pl = sr0.section.player(first_row.result.pair)
    separate = {i.system: i.value for i, _ in records}
    base = m.with_inferred if m.with_inferred is not None else m.audit.reproduced
    best = None
    for label, year, born, adult in _candidates(records, sr0.section.end, a):
        values, given = dict(inputs.values), {}
        for i, _ in records:
            r = rows_by[(i.section, i.system, pid)]
            v = _initial_with(r.section, pl, born, adult)
            if v is None:
                break
            values[(pid, i.system)] = given[i.system] = v
        else:
            n, posts = _count(m, values)
            if best is None or n > best[0]:
                best = (n, label, year, born, given, values, posts)
    if best is None:
        return None
    n, label, year, born, given, values, posts = best
    fact = PersonFact(pid, records[0][0].name, label, year, given, separate, n, base, n >= base)
    if not fact.adopted:
        return fact
    inputs.values = values
    m.with_inferred = inputs.count = n
    for r in m.rows:
        r.with_inferred = posts.get((r.entry.section, r.entry.system, r.entry.id))
    for i, _ in records:
        i.value, i.year = given[i.system], year
        i.age = (None if born is None else
                 (sr0.section.end - born).days / a["days_per_year"])
    return fact


def one_story_per_person(m) -> People:
    """The stage of the module text over audit model ``m``."""
    people = People()
    inputs = m.inputs
    if inputs is None:
        return people
    rows_by = {(r.entry.section, r.entry.system, r.entry.id): r for r in m.rows
               if r.result is not None}
    records = [(i, rows_by[(i.section, i.system, i.id)].section.rules.p.age_formula)
               for i in inputs.initial if isinstance(i, Inferred)
               and (i.section, i.system, i.id) in rows_by]
    by_person: dict = {}
    for i, a in records:
        if _age_based(i) and (i.id, i.system) in inputs.values:
            by_person.setdefault(i.id, []).append((i, a))
    for pid, mine in by_person.items():
        values = [i.value for i, _ in mine]
        if len({i.system for i, _ in mine}) < 2 or max(values) - min(values) <= SAME:
            continue  # one system, or one value for all: one story already
        fact = _try_person(m, pid, mine, rows_by)
        if fact is not None:
            people.facts.append(fact)
        else:
            alone = ", ".join(f"{i.value:.0f} in {i.system}" for i, _ in mine)
            people.two_stories.append(f"{mine[0][0].name} ({pid}) has two stories: {alone}, "
                                      "solved one system at a time; no birth date could be tried")
    if any(f.adopted for f in people.facts):
        m.inferred = inputs.initial + inputs.histories
        restate_inferred_causes(m.rows, m.inferred, m.tol)
    people.implausible = implausible(records)  # the values the audit ends with
    return people
