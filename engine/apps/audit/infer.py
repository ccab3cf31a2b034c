"""What a page cannot show about unrated players, solved from the page.

A page prints ``Unrated`` for a player's pre-event rating but not the initial
rating step 1 gave them (sec. 2: from their age, their ratings in other
systems, FIDE or CFC), and through steps 4 and 5 that value moves their
opponents too.  The published posts pin it down:

* named variants first: the player initialized as an adult (1300, sec. 2.3)
  or as one not known to be adult (the rules' default);
* then, for every unrated player whose published post is not reproduced, a
  one-dimensional search for the initial rating that reproduces it (N from
  the page: a post printed ``P<n>`` after m games had N = n - m), iterated
  over the section since each value moves the others' opponents, and every
  published rating re-checked with the values found;
* an initial rating with N = 0 hardly moves its own post, only the
  opponents': for the players whose own post does not pin it down, the one
  value of the age-based range (:data:`FLAT_VALUES`, the same for all of
  them) that reproduces the most published ratings of the section.

A rating reproduced only with an inferred value gets the cause
``initialization`` naming the value ("initial rating about 1460, from
ratings the page does not show; the rules in force give 750").
"""

from __future__ import annotations

import dataclasses
import json
from dataclasses import dataclass
from typing import Optional

from uschess.apps.audit.cause import Cause
from uschess.apps.audit.page_chain import rate_published as rate_event
from uschess.calendar.rulebook import Reform, RuleBook
from uschess.errors import InputError
from uschess.model import Event
from uschess.rating.pipeline import EventResult, RatingOptions
from uschess.rules.base import Initial
from uschess.rules.hookspecs import hookimpl

#: Range of an initial rating and the smallest change worth a pass.
SEARCH_LOW, SEARCH_HIGH, SEARCH_STEP = 100.0, 2900.0, 0.1
#: Newton passes over a section (two ratings of the section each), the move
#: used to measure slopes, the least slope (points of post per point of
#: initial rating) worth following and the largest move in one pass.
PASSES, STEP, MIN_SLOPE, MAX_MOVE = 12, 20.0, 0.02, 400.0
#: Values tried, for all at once, for the unrated players whose own post
#: does not pin their initial rating down (the age-based range of sec. 2.3).
FLAT_VALUES = tuple(range(100, 1400, 100))
#: Sections with more unrated players than this are not searched.
MAX_UNKNOWN = 400


@dataclass
class Inferred:
    """An initial rating solved from the page."""

    section: str
    system: str
    id: str
    name: str
    value: float
    rules_value: float
    rules_how: str
    #: the age whose age-based rating (sec. 2.3) is the value, when one is
    age: Optional[float] = None
    year: Optional[int] = None
    #: an inferred adult's rating under the rules in force (``age_formula``)
    adult: Optional[float] = None

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)

    def describe(self) -> str:
        if self.adult is not None and self.value == self.adult:
            what = f" (an adult's {self.adult:g}, sec. 2.3)"
        elif self.age is not None:
            what = (f" (the age-based rating of a player aged about {self.age:.0f}, born about "
                    f"{self.year}, sec. 2.3, or ratings in other systems)")
        else:
            what = ""
        return (f"initial {self.system} rating about {self.value:.0f}{what} for {self.name} "
                f"({self.id}), from what the page does not show; the rules in force give "
                f"{self.rules_value:.0f} ({self.rules_how})")


def _age_for(value: float, a: dict) -> Optional[float]:
    """The age whose age-based rating (sec. 2.3: per_year x age between the
    young and old ages) is ``value``, or None outside that range."""
    age = value / a["per_year"]
    return age if a["young_below"] <= age <= a["old_above"] else None


def _initial_games(row) -> int:
    """N of an unrated player's initial rating, from the page: a post printed
    ``P<n>`` after m rated games was initialized with n - m (000 sec. 2: the
    blended N counts as games); otherwise the rules' own N."""
    m = row.result.m
    n_after = row.entry.post_games
    if n_after is not None and n_after >= m:
        return n_after - m
    return row.result.initial.games


class _InitialRatings:
    """A plugin answering step 1 for the players given (firstresult: it is
    registered after the baseline, so it answers first; None hands the other
    players back to the rules)."""

    def __init__(self, values: dict, games: dict):
        self.values, self.games = dict(values), dict(games)

    @hookimpl
    def uschess_initial_rating(self, player, system, end, p, hook):
        value = self.values.get((player.id, system))
        if value is None:
            return None
        return Initial(value, self.games.get((player.id, system), 0),
                       "inferred from the published posts")


def _options(base: RatingOptions, values: dict, games: Optional[dict] = None) -> RatingOptions:
    games = games or {}
    name = "inferred " + json.dumps(sorted((k[0], k[1], round(v, 3), games.get(k, 0))
                                           for k, v in values.items()))
    return RatingOptions(rules_on=base.rules_on, known_on=base.known_on,
                         readings=dict(base.readings), edition=base.edition,
                         reform=Reform(name=name, extra_plugins=[_InitialRatings(values, games)]),
                         trace=False)


def _post(result: Optional[EventResult], section: str, system: str, pid: str) -> Optional[float]:
    if result is None:
        return None
    for sr in result.sections:
        if sr.section.name == section and sr.system == system:
            for pr in sr.players:
                if pr.id == pid:
                    value = pr.post if pr.m else pr.pre
                    return value
    return None


def _within(value, published, tol) -> bool:
    return value is not None and abs(value - published) <= tol + 1e-9


def initialization_causes(published, rows, result: EventResult, options: RatingOptions,
                          book: RuleBook, tol: float):
    """Add ``initialization`` causes to ``rows`` (audit rows); return the
    values inferred and how many published ratings are reproduced with them
    (None when nothing was inferred)."""

    if options.reform is not None or options.edition is not None:
        return [], None
    event: Event = published.event
    unrated = [r for r in rows if r.entry.pre is None and r.result is not None
               and r.result.initial is not None and r.computed is not None]
    if not unrated:
        return [], None
    # named variants: adult or not (sec. 2.3's fallbacks)
    named: dict = {}  # (id, system) -> the initial rating of the variant that reproduced it
    for r in unrated:
        if r.reproduced:
            continue
        sec = next(s for s in event.sections if s.name == r.entry.section)
        me = next(p for p in sec.players if p.id == r.entry.id)
        for adult in (True, False):
            if bool(me.adult) == adult:
                continue
            players = [dataclasses.replace(p, adult=adult) if p.id == me.id else p
                       for p in sec.players]
            ev = dataclasses.replace(event, sections=[dataclasses.replace(sec, players=players)])
            try:
                res = rate_event(ev, dataclasses.replace(options, trace=False), book=book)
            except InputError:
                continue
            value = _post(res, sec.name, r.entry.system, r.entry.id)
            if _within(value, r.entry.post, tol):
                init = next((pr.initial for sr in res.sections if sr.system == r.entry.system
                             and sr.section.name == sec.name for pr in sr.players
                             if pr.id == r.entry.id), None)
                if init is not None:
                    named[(r.entry.id, r.entry.system)] = init.rating
                how = ("as an adult (1300, sec. 2.3: no birth date, adult)" if adult else
                       "as a player not known to be adult (the rules' default)")
                r.causes.append(Cause("initialization", f"initialized {how} the post is "
                                      f"{value:.2f}; the page cannot show the player's age",
                                      value, r.entry.post))
    # the search, section by section
    inferred: list[Inferred] = []
    values: dict = {}
    final: dict = {}
    for sec in event.sections:
        mine = [r for r in unrated if r.entry.section == sec.name]
        missing = [r for r in mine if not r.reproduced]
        if not missing or len(mine) > MAX_UNKNOWN:
            continue
        ev = dataclasses.replace(event, sections=[sec])
        current = {(r.entry.id, r.entry.system):
                   named.get((r.entry.id, r.entry.system), r.result.initial.rating) for r in mine}
        games = {(r.entry.id, r.entry.system): _initial_games(r) for r in mine}
        cache: dict = {}

        def rate(vals, ev=ev, cache=cache, games=games):
            key = tuple(sorted((k, round(v, 2)) for k, v in vals.items()))
            if key not in cache:
                try:
                    cache[key] = rate_event(ev, _options(options, vals, games), book=book)
                except InputError:
                    cache[key] = None
            return cache[key]

        section_rows = [r for r in rows if r.entry.section == sec.name]

        def reproduced(res, section_rows=section_rows, name=sec.name) -> int:
            return sum(_within(_post(res, name, r.entry.system, r.entry.id), r.entry.post, tol)
                       for r in section_rows) if res is not None else -1

        # Newton steps on every unknown at once: each player's post depends
        # mostly on their own initial rating, so one evaluation with every
        # value moved by STEP gives each its slope (two ratings a pass)
        flat: set = set()
        for _ in range(PASSES):
            res = rate(current)
            if res is None:
                break
            off = {}
            for r in mine:
                k = (r.entry.id, r.entry.system)
                v = _post(res, sec.name, r.entry.system, r.entry.id)
                if v is not None and not _within(v, r.entry.post, tol):
                    off[k] = v - r.entry.post
            if not off:
                break
            moved = rate({k: x + STEP if k in off else x for k, x in current.items()})
            if moved is None:
                break
            changed = False
            for r in mine:
                k = (r.entry.id, r.entry.system)
                if k not in off:
                    continue
                v0 = _post(res, sec.name, r.entry.system, r.entry.id)
                v1 = _post(moved, sec.name, r.entry.system, r.entry.id)
                slope = (v1 - v0) / STEP if v0 is not None and v1 is not None else 0.0
                if slope < MIN_SLOPE:
                    flat.add(k)  # the own post hardly depends on it: see below
                    continue
                step = max(-MAX_MOVE, min(MAX_MOVE, -off[k] / slope))
                x = min(SEARCH_HIGH, max(SEARCH_LOW, current[k] + step))
                if abs(x - current[k]) > SEARCH_STEP:
                    current[k] = round(x, 1)
                    changed = True
            if not changed:
                break
        # an initial rating with no weight (N = 0: age-based or default)
        # barely moves its own post but moves the opponents' (through their
        # step 4): one value for all such players, the one that reproduces
        # the most published ratings of the section
        if flat:
            best, count = None, reproduced(rate(current))
            for x in FLAT_VALUES:
                n = reproduced(rate({**current, **{k: float(x) for k in flat}}))
                if n > count:
                    best, count = x, n
            if best is not None:
                current.update({k: float(best) for k in flat})
        res = rate(current)
        if res is None:
            continue
        for r in mine:
            k = (r.entry.id, r.entry.system)
            if abs(current[k] - r.result.initial.rating) > SEARCH_STEP:
                age = adult = None
                try:
                    rules = book.rules(sec.start, known_on=options.known_on,
                                       readings=options.readings)
                    age = _age_for(current[k], rules.p.age_formula)
                    adult = rules.p.age_formula.get("adult")
                except InputError:
                    pass
                inferred.append(Inferred(sec.name, r.entry.system, r.entry.id, r.entry.name,
                                         current[k], r.result.initial.rating,
                                         r.result.initial.how, age,
                                         None if age is None else round(sec.start.year - age),
                                         adult))
        values.update({(sec.name,) + k: v for k, v in current.items()})
        final[sec.name] = res
    if not inferred:
        return [], None
    count = 0
    for r in rows:
        res = final.get(r.entry.section)
        value = _post(res, r.entry.section, r.entry.system, r.entry.id) if res else r.computed
        ok = _within(value, r.entry.post, tol)
        count += ok
        if ok and not r.reproduced and not any(c.cause == "initialization" for c in r.causes):
            here = [i for i in inferred if i.section == r.entry.section
                    and i.system == r.entry.system]
            if not here:
                continue
            own = next((i for i in here if i.id == r.entry.id), None)
            if own is not None:
                detail = (f"the initial rating the page cannot show: {own.describe()}; "
                          f"with it the post is {value:.2f}")
            else:
                detail = ("an unrated opponent's initial rating the page cannot show: "
                          + "; ".join(i.describe() for i in here)
                          + f"; with it the post is {value:.2f}")
            r.causes.append(Cause("initialization", detail, value, r.entry.post))
    return inferred, count
