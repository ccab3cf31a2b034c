"""What a page cannot show about unrated players, solved from the page.

A page prints ``Unrated`` for a player's pre-event rating but not the initial
rating step 1 gave them (sec. 2: from their age, their ratings in other
systems, FIDE or CFC), and through steps 3-5 that value moves their
opponents and their opponents' opponents too.  The published posts pin it
down.  For each section and system with a published rating not reproduced:

* named variants first: each unrated player whose own post is missed
  initialized as an adult (1300, sec. 2.3) or as one not known to be adult
  (the rules' default);
* then every unrated player's initial rating solved from the page, player by
  player over the section (:mod:`uschess.apps.audit.solve`): N from the page
  (a post printed ``P<n>`` after m games had N = n - m), each value from the
  published posts that depend on it (their own when N > 0, those of the
  players around them when N = 0), within the rules' range of ratings;
* then the whole event rated again with the values found and every published
  rating re-checked.

A rating reproduced only with inferred values gets the cause
``initialization`` naming the values ("initial rating about 1460, inferred
from the page; the rules in force give 750"): an inferred value is always
reported as inferred, never as the page's.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Optional

from uschess.apps.audit.cause import (AROUND, HISTORIES, OWN, Cause, named_alone,
                                      names_inferred, printed_posts, within)
from uschess.apps.audit.hidden import InferredHistory
from uschess.apps.audit.page_chain import rate_published as rate_event
from uschess.apps.audit.inputs import _common_values, _initial_games, _options
from uschess.apps.audit.solve import SectionModel, Unknown, solve_section
from uschess.calendar.rulebook import RuleBook
from uschess.errors import InputError
from uschess.model import Event
from uschess.rating.pipeline import EventResult, RatingOptions
from uschess.rules.base import Initial

#: An inferred value closer than this to the rules' own is not reported.
SEARCH_STEP = 0.1
#: A cause names at most this many of the inferred initial ratings that
#: moved a player's post (their opponents' first).
MAX_NAMED = 6


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
    #: whether the player's own published post depends on the value, and how
    #: many other published posts do (what pins it down)
    own: bool = False
    pinned_by: int = 0
    #: N of the value (from the page's P<n>, or the least N an established
    #: post implies; else the rules')
    games: int = 0
    #: N the rules in force give with their value (a blended initial
    #: rating counts the other system's games, 000 sec. 2)
    rules_games: int = 0

    @property
    def other_systems(self) -> bool:
        """Whether the value came from ratings the page does not show: the
        page's P<n> gives it N > 0 games where the rules in force, knowing
        no other rating, start the player from their age, and an age-based
        start counts no games (sec. 2)."""
        return self.games > 0 and self.rules_how.startswith(("age-based", "no other information"))

    @property
    def story(self) -> Optional[str]:
        """The fact the value stands for: ``adult``, ``age`` (a birth
        year), ``other systems`` or None (a value no fact of sec. 2 names)."""
        if self.other_systems:
            return "other systems"
        if self.adult is not None and self.value == self.adult:
            return "adult"
        return "age" if self.age is not None else None

    def as_dict(self) -> dict:
        return {"inferred": "initial rating", **dataclasses.asdict(self), "story": self.story}

    def describe(self) -> str:
        if self.other_systems:
            what = (f" (not an age-based start, which counts no games: ratings in other systems "
                    f"the page does not show, sec. 2; one US Chess rating of about "
                    f"{self.value:.0f} with at least {self.games} games in another system gives it)")
        elif self.adult is not None and self.value == self.adult:
            what = f" (an adult's {self.adult:g}, sec. 2.3)"
        elif self.age is not None:
            what = (f" (the age-based rating of a player aged about {self.age:.0f}, born about "
                    f"{self.year}, sec. 2.3, or ratings in other systems)")
        else:
            what = ""
        pins = []
        if self.own:
            pins.append("their own post")
        if self.pinned_by:
            pins.append(f"the posts of {self.pinned_by} other player"
                        f"{'s' if self.pinned_by != 1 else ''}")
        weight = f", N = {self.games}" if self.games or self.games != self.rules_games else ""
        rules_weight = f", N = {self.rules_games}" if self.rules_games != self.games else ""
        return (f"initial {self.system} rating about {self.value:.0f}{weight}{what} for "
                f"{self.name} "
                f"({self.id}), inferred from the page ({' and '.join(pins) or 'the section'}), "
                f"which does not show it; the rules in force give {self.rules_value:.0f}"
                f"{rules_weight} ({self.rules_how})")


def _age_for(value: float, a: dict) -> Optional[float]:
    """The age whose age-based rating (sec. 2.3: per_year x age between the
    young and old ages) is ``value``, or None outside that range."""
    age = value / a["per_year"]
    return age if a["young_below"] <= age <= a["old_above"] else None


def _named_initial(sr, pl, adult: bool) -> Optional[Initial]:
    """Step 1's answer for ``pl`` in ``sr``'s system had the player been
    (or not been) an adult (sec. 2.3), from the rules of ``sr``."""
    rules = sr.rules
    try:
        return rules.call.uschess_initial_rating(player=dataclasses.replace(pl, adult=adult),
                                                 system=sr.system, end=sr.section.end,
                                                 p=rules.p, hook=rules.call)
    except InputError:
        return None


def inferred_record(sr, row, u: Unknown, pins) -> Optional[Inferred]:
    """What is reported of unknown ``u`` (``row``'s player in section result
    ``sr``) solved at ``u.value``, ``pins`` the published posts (pairs) that
    depend on it; None when the value and its N are the rules' own (the N
    alone may differ: a page's P<n> counts no games of a blended initial
    rating the rules count, 000 sec. 2), and when the row's player was rated
    from a record (a history solved in place before the event)."""
    initial = row.result.initial
    if initial is None:  # rated from a record (a history in place): no initialization to report
        return None
    if abs(u.value - initial.rating) <= SEARCH_STEP and u.games == initial.games:
        return None
    a = sr.rules.p.age_formula
    age = _age_for(u.value, a)
    return Inferred(sr.section.name, sr.system, row.entry.id, row.entry.name, u.value,
                    initial.rating, initial.how, age,
                    None if age is None else round(sr.section.start.year - age),
                    a.get("adult"), own=u.pair in pins,
                    pinned_by=sum(1 for j in pins if j != u.pair), games=u.games,
                    rules_games=initial.games)


def _named_variants(sr, mine: list, model: SectionModel, tol: float) -> dict:
    """pair -> the named initial rating (sec. 2.3's fallbacks: as an adult,
    or as a player not known to be adult) that reproduces the own post of
    each unrated player of ``mine`` still missed, with its
    ``initialization`` cause added to the row."""
    start: dict = {}
    for r in mine:
        if r.reproduced:
            continue
        pl = sr.section.player(r.result.pair)
        for adult in (True, False):
            if bool(pl.adult) == adult:
                continue
            init = _named_initial(sr, pl, adult)
            if init is None or init.rating == r.result.initial.rating:
                continue
            posts = model.posts({r.result.pair: init.rating})
            value = posts.get(r.result.pair) if posts else None
            if within(value, r.entry.post, tol):
                start[r.result.pair] = init.rating
                how = (f"as an adult ({init.rating:g}, sec. 2.3: no birth date, adult)"
                       if adult else
                       "as a player not known to be adult (the rules' default)")
                r.causes.append(Cause("initialization", f"initialized {how} the post is "
                                      f"{value:.2f}; the page cannot show the player's age",
                                      value, r.entry.post,
                                      variant={"id": r.entry.id, "system": sr.system,
                                               "initial_rating": init.rating,
                                               "adult": adult, "how": how}))
                break
    return start


def initialization_causes(published, rows, result: EventResult, options: RatingOptions,
                          book: RuleBook, tol: float, solved: Optional[dict] = None):
    """Add ``initialization`` causes to ``rows`` (audit rows); return the
    values inferred and how many published ratings are reproduced with them
    (None when nothing was inferred).  ``solved``, when given, receives the
    rating options that rate the event with them (``options``)."""

    if options.reform is not None or options.edition is not None:
        return [], None
    event: Event = published.event
    unrated = [r for r in rows if r.entry.pre is None and r.result is not None
               and r.result.initial is not None and r.computed is not None]
    if not unrated:
        return [], None
    inferred: list[Inferred] = []
    values: dict = {}   # (id, system) -> initial rating
    games: dict = {}    # (id, system) -> its N
    for sr in result.sections:
        here = [r for r in rows if r.entry.section == sr.section.name
                and r.entry.system == sr.system and r.result is not None
                and r.computed is not None]
        mine = [r for r in here if r.entry.pre is None and r.result.initial is not None]
        if not mine or all(r.reproduced for r in here):
            continue
        own_games = {r.result.pair: _initial_games(r, published.kind != "json") for r in mine}
        model = SectionModel(sr, own_games)
        start = _named_variants(sr, mine, model, tol)  # adult or not first
        unknowns = [Unknown(r.result.pair, r.entry.id,
                            start.get(r.result.pair, r.result.initial.rating),
                            own_games[r.result.pair]) for r in mine]
        published_posts = {r.result.pair: r.entry.post for r in here}
        p = sr.rules.p
        sol = solve_section(model, unknowns, published_posts, tol, p.absolute_floor,
                            p.special_cap, common=_common_values(sr.rules))
        if sol is None:
            continue
        for r, u in zip(sorted(mine, key=lambda r: r.result.pair), sorted(unknowns,
                                                                        key=lambda u: u.pair)):
            k = (r.entry.id, sr.system)
            values[k], games[k] = u.value, u.games
            record = inferred_record(sr, r, u, sol.pinned_by.get(u.pair, []))
            if record is not None:
                inferred.append(record)
    if solved is not None and values:
        # handed on even when nothing moved from the rules' values: the
        # players stay unknowns, which a hidden history found next may move
        # (the alternating solve, alternate.py, starts from these)
        solved.update(values=dict(values), games=dict(games))
    if not inferred:
        return [], None
    final_options = _options(options, values, games)
    try:
        final = rate_event(event, final_options, book=book)
    except InputError:
        return [], None
    if solved is not None:
        solved.update(options=final_options)
    count = 0
    posts = printed_posts(final)
    for r in rows:
        value = posts.get((r.entry.section, r.entry.system, r.entry.id))
        r.with_inferred = value
        ok = within(value, r.entry.post, tol)
        count += ok
        if ok and not r.reproduced and not any(c.cause == "initialization" for c in r.causes):
            cause = inferred_cause(r, inferred, value)
            if cause is not None:
                r.causes.append(cause)
    return inferred, count


def inferred_cause(r, inferred: list, value: float, also: str = "") -> Optional[Cause]:
    """The ``initialization`` cause of audit row ``r`` reproduced at
    ``value`` with the initial ratings ``inferred`` (records of any kind:
    those of :class:`Inferred` in the row's section and system are named,
    the player's own if there is one, else the opponents' first, at most
    :data:`MAX_NAMED`; ``also``: the other inputs inferred that the post
    needs, named after them); None when none is of that section and system."""
    here = [i for i in inferred if isinstance(i, Inferred) and i.section == r.entry.section
            and i.system == r.entry.system]
    if not here:
        return None
    own = next((i for i in here if i.id == r.entry.id), None)
    if own is not None:
        detail, it = OWN + own.describe(), "it"
    else:
        me = r.section.section.player(r.result.pair)
        opps = {r.section.section.player(g.opponent).id for g in me.rounds
                if g.opponent is not None}
        shown = sorted(here, key=lambda i: (i.id not in opps, i.id))[:MAX_NAMED]
        detail = (AROUND + "; ".join(i.describe() for i in shown)
                  + (f"; and {len(here) - len(shown)} more" if len(here) > len(shown) else ""))
        it = "them"
    if also:
        detail, it = f"{detail}; and {also}", "them all"
    return Cause("initialization", f"{detail}; with {it} the post is {value:.2f}", value,
                 r.entry.post)


#: How the part of a cause naming the inferred histories begins.
def inferred_inputs_cause(r, inferred: list, value: float) -> Optional[Cause]:
    """The cause of audit row ``r``, reproduced at ``value`` with everything
    the audit inferred (``inferred``: records of any kind): the
    ``initialization`` cause naming the initial ratings of its section and
    system (:func:`inferred_cause`) and after them the earlier histories
    inferred there (:class:`~uschess.apps.audit.hidden.InferredHistory`),
    or a ``history`` cause where only histories were inferred there; None
    where nothing of its section and system was."""
    histories = sorted((i for i in inferred if isinstance(i, InferredHistory)
                        and i.section == r.entry.section and i.system == r.entry.system),
                       key=lambda i: (i.id != r.entry.id, i.id))
    if not histories:
        return inferred_cause(r, inferred, value)
    named = HISTORIES + "; ".join(i.describe() for i in histories[:MAX_NAMED]) + (
        f"; and {len(histories) - MAX_NAMED} more" if len(histories) > MAX_NAMED else "")
    return (inferred_cause(r, inferred, value, also=named)
            or Cause("history", f"{named}; with them the post is {value:.2f}", value,
                     r.entry.post))


def explain_reproduced(rows, inferred: list, tol: float) -> None:
    """A cause for each row that no cause explains but that the inputs
    inferred reproduce: the searches after the first solve (the histories,
    the solves again, the trade-offs taken in) reproduce posts that no cause
    was attached to (or only a named initialization tried alone), and such a
    row would read "no cause found" beside a summary that counts it
    reproduced."""
    for r in rows:
        if r.reproduced or r.result is None or not within(r.with_inferred, r.entry.post, tol) \
                or not all(named_alone(c) for c in r.causes):
            continue
        cause = inferred_inputs_cause(r, inferred, r.with_inferred)
        if cause is not None:
            r.causes.append(cause)


def restate_inferred_causes(rows, inferred: list, tol: float) -> None:
    """The ``initialization`` causes that name the inferred initial ratings,
    stated again with the values the audit ended with: the searches after
    the first solve (the histories, the initial N) solve the values again,
    and a cause naming the first values would contradict the report's list
    of what was inferred.  A row no longer reproduced keeps its cause."""
    for r in rows:
        if r.result is None or not within(r.with_inferred, r.entry.post, tol):
            continue
        for k, c in enumerate(r.causes):
            if names_inferred(c):
                again = inferred_cause(r, inferred, r.with_inferred)
                if again is not None:
                    r.causes[k] = again
