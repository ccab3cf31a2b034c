"""Posts that no single set of the inferred inputs reproduces together.

After the initial ratings and the hidden histories are solved from the page
(:mod:`uschess.apps.audit.alternate`), a post may still be missed although
one unknown, moved alone, reproduces it: the values solved are the best
*compromise* for the whole section, and the page's posts pull one unrated
player's initial rating two ways (their own post one way, an opponent's the
other; with N = 0 their value seeds step 3 of every unrated opponent and so
step 4 of those opponents' opponents).  For each post still missed, each
unknown that post depends on (measured: the section rated with that value
moved by :data:`PROBE`; the largest slopes first, at most
:data:`CANDIDATES`) is searched alone, by secant steps from the slope then a
coarse look over the rules' range, for a value that reproduces the post.  The
variant found is confirmed on the whole event (histories in place, every
other inferred value kept) and named with what it costs: the published posts
reproduced with the inferred values that the variant loses.  A variant that
loses none (the solve stopped short of it) is taken into the inferred values
at once, and every later search starts from them.

A missed post that a named initialization of its own player reproduces
(an adult's 1300 or the rules' default, sec. 2.3:
:func:`~uschess.apps.audit.infer.initialization_causes` tried it with every
other unrated player at the rules' value) is tried first with that value held
and the section's other unknowns solved again around it (a whole solve:
the tenth of one, :data:`~uschess.apps.audit.solve.AGAIN`, reproduced one
post fewer on the page below): the fit that moved the player away from it
may have been a compromise of the others' values, not of theirs
(``XtblMain_201402175282_1``: ``15363151`` at 1300, the page's best fit
2206 with N = 0).  Confirmed on the whole event as below.  Likewise the
value of a trade-off found below (one unknown moved alone, at the cost of
other posts) is held with the others solved again, and named instead where
that loses fewer posts (``XtblMain_202006272422_6``: 16861986's post, ten
posts lost by 17307025's value alone, five with the others solved again).

A trade-off that reproduces more posts than it loses is not taken in when
found: :func:`~uschess.apps.audit.net_gains.take_net_gains` tries it again after every other search of the
audit, on the inputs as they then are, and takes it in where it still gains
more than it loses; the posts it loses get the trade-off of the values given
up.

The cause is ``tradeoff``: "reproduced with X's initial rating at 1240 (the
page's best fit 1130), which loses Y's post": the page's posts cannot all be
met by any one set of the inputs the audit infers.  Every search is bounded
(:data:`WORK` ratings of a section per section, :data:`EVENT_WORK` ratings
of the event per audit) and goes in pairing order: the same page gives the
same causes.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Optional

from uschess.apps.audit.cause import Cause, loses, named_alone, printed_posts, within
from uschess.apps.audit.infer import inferred_record
from uschess.apps.audit.inputs import _common_values, _options, _plain, _settle, moved_posts, named_posts
from uschess.apps.audit.page_chain import rate_published
from uschess.apps.audit.solve import FULL, SectionModel, Unknown, forward_slopes, solve_section
from uschess.errors import InputError
from uschess.rating.pipeline import RatingOptions

#: The move of an initial rating that measures which posts depend on it.
PROBE = 50.0
#: The probe again for a missed post that :data:`PROBE` moves by no unknown:
#: a post stored as an integer (before 2014-09-01, 000 sec. 8) may not move
#: for a value moved 50 points that reaches it through an opponent's step 3.
WIDE_PROBE = 400.0
#: A post moving less than this per point of an initial rating does not
#: depend on it.
MIN_SLOPE = 1e-3
#: Unknowns searched per missed post at most (the largest slopes first).
CANDIDATES = 6
#: Secant steps from the measured slope before the coarse look.
SECANT = 6
#: The coarse look over the range: this many points apart.
GRID = 200.0
#: Work per section at most, in ratings of one player (ratings of the section
#: x its players: a small section gets many searches, a large one fewer), and
#: ratings of the whole event per audit (each variant found is confirmed on
#: the event).
WORK, EVENT_WORK = 200_000, 80
#: Values held with the others solved again (named initializations first,
#: then the values of trade-offs found), per audit at most: each is a whole
#: solve of its section, the costliest step of the search.
HELD = 3


def _search(model: SectionModel, values: dict, pair: int, target: int, post: float,
            slope: float, low: float, high: float, tol: float, limit: int) -> Optional[tuple]:
    """A value of unknown ``pair`` (the others at ``values``) whose section
    rating puts ``target``'s post within ``tol`` of ``post``: secant steps
    from the measured ``slope``, then a coarse look over [low, high] with a
    secant step inside each interval that brackets the post.  Returns
    (value, posts) or None."""
    def at(x: float):
        posts = model.posts({**values, pair: x})
        return None if posts is None else (posts.get(target), posts)

    x0 = values[pair]
    base = at(x0)
    if base is None or base[0] is None:
        return None
    y0 = base[0] - post
    x, y = x0, y0
    s = slope
    for _ in range(SECANT):
        if model.evaluations >= limit or not s:
            break
        x1 = min(high, max(low, x - y / s))
        if x1 == x:
            break
        got = at(x1)
        if got is None or got[0] is None:
            break
        y1 = got[0] - post
        if abs(y1) <= tol:
            return x1, got[1]
        s = (y1 - y) / (x1 - x) if x1 != x else 0.0
        x, y = x1, y1
    # the post need not be monotone in one value (opponents coming within
    # 400 points, all-win and all-loss results): a coarse look, and a secant
    # step inside each bracket
    prev = None
    g = low
    while g <= high + 1e-9 and model.evaluations < limit:
        got = at(g)
        if got is not None and got[0] is not None:
            yg = got[0] - post
            if abs(yg) <= tol:
                return g, got[1]
            if prev is not None and (prev[1] < 0) != (yg < 0):
                xm = prev[0] - prev[1] * (g - prev[0]) / (yg - prev[1])
                mid = at(xm)
                if mid is not None and mid[0] is not None and abs(mid[0] - post) <= tol:
                    return xm, mid[1]
            prev = (g, yg)
        g += GRID
    return None


def named_initial(r) -> Optional[dict]:
    """The named initialization (sec. 2.3) that reproduced row ``r``'s post
    alone: the ``variant`` of its ``initialization`` cause, or None."""
    return next((c.variant for c in r.causes if named_alone(c)), None)


def _around_named(sr, games: dict, values: dict, ids: dict, me: int, value: float,
                  published_posts: dict, tol: float) -> Optional[dict]:
    """The section's unknowns (``values``, pair -> initial rating) solved
    again with unknown ``me`` held at ``value``; returns every unknown's
    value (``me`` at ``value``), or None when the section cannot be rated."""
    others = [Unknown(u, ids[u], values[u], games[u]) for u in sorted(values) if u != me]
    if others:
        p = sr.rules.p
        sol = solve_section(SectionModel(sr, games, fixed={me: value}), others,
                            published_posts, tol, p.absolute_floor, p.special_cap,
                            common=_common_values(sr.rules), effort=FULL)
        if sol is None:
            return None
    return {**{u.pair: u.value for u in others}, me: value}


@dataclass
class Held:
    """One unknown held at a value, the section's other unknowns solved again
    around it, the event rated with them: the section's values (pair ->
    initial rating), the event's values ((id, system) -> initial rating),
    the printed posts, the missed post, the rows it loses and gains, and
    the other unknowns it moved (id -> value)."""

    values: dict
    event_values: dict
    posts: dict
    post: float
    lost: list
    gained: list
    moved: dict


def _on_event(event, options: RatingOptions, book, rows, r, event_values: dict, games: dict,
              tol: float) -> Optional[tuple]:
    """The whole ``event`` rated with initial ratings ``event_values``:
    (its printed posts, row ``r``'s post, the posts lost, the posts gained),
    or None where that does not reproduce ``r``'s post."""
    try:
        res = rate_published(event, _options(options, event_values, games), book=book)
    except InputError:
        return None
    posts = printed_posts(res)
    post = posts.get((r.entry.section, r.entry.system, r.entry.id))
    if not within(post, r.entry.post, tol):
        return None
    lost, gained = moved_posts(rows, posts, tol)
    return posts, post, lost, gained


def _held(event, options: RatingOptions, book, rows, r, sr, owners: dict, games: dict,
          values: dict, me: int, value: float, published_posts: dict, tol: float,
          inputs) -> Optional[Held]:
    """Unknown ``me`` of section result ``sr`` held at ``value`` and the
    others solved again around it (:func:`_around_named`), confirmed on the
    whole ``event``; None where that does not reproduce row ``r``'s post."""
    got = _around_named(sr, games, values, {u: owners[u].entry.id for u in values}, me, value,
                        published_posts, tol)
    if got is None:
        return None
    system = sr.system
    event_values = {**inputs.values,
                    **{(owners[u].entry.id, system): v for u, v in got.items()}}
    on_event = _on_event(event, options, book, rows, r, event_values, inputs.games, tol)
    if on_event is None:
        return None
    posts, post, lost, gained = on_event
    moved = {owners[u].entry.id: v for u, v in got.items() if u != me and v != values[u]}
    return Held(got, event_values, posts, post, lost, gained, moved)


def _held_cause(r, uid: str, system: str, how: str, value: float, inferred: float,
                h: Held) -> Cause:
    """The ``tradeoff`` cause of row ``r`` reproduced by ``h`` (unknown
    ``uid`` held at ``value``, ``how`` says which value it is)."""
    return Cause(
        "tradeoff",
        f"reproduced {how} with the other unrated players' initial {system} ratings solved "
        f"again around it ({len(h.moved)} moved; the post is {h.post:.2f}), which loses "
        f"{len(h.lost)} other published post{'s' if len(h.lost) != 1 else ''} "
        f"({named_posts(h.lost)}): no one set of the inputs the page hides reproduces them all",
        h.post, r.entry.post,
        variant={"id": uid, "system": system, "initial_rating": value, "inferred": inferred,
                 "solved_again": h.moved, "loses": loses(h.lost)})


def _take_in(inputs, rows, sr, owners: dict, moved_values: dict, posts_now: dict,
             own: dict) -> None:
    """Variant values taken into ``inputs`` (they lose no published post,
    or fewer than they gain: :func:`~uschess.apps.audit.net_gains.take_net_gains`):
    each moved unknown's report made again (``owners``: pair -> the audit row
    of each unknown of section result ``sr``; ``own``: pair -> whether the
    player's own post depends on the value, else as reported before), the
    rows' ``with_inferred`` set from ``posts_now``."""
    for u, owner in owners.items():
        k = (owner.entry.id, sr.system)
        if moved_values[k] == inputs.values[k]:
            continue
        prev = next((i for i in inputs.initial if (i.id, i.system) == k), None)
        pins = ([u] * own.get(u, bool(prev and prev.own))
                + [None] * (prev.pinned_by if prev else 0))
        record = inferred_record(sr, owner, Unknown(u, owner.entry.id, moved_values[k],
                                                    inputs.games[k], moved_values[k]), pins)
        inputs.initial = [i for i in inputs.initial if (i.id, i.system) != k]
        if record is not None:
            inputs.initial.append(record)
    inputs.values = moved_values
    for r2 in rows:
        r2.with_inferred = posts_now.get((r2.entry.section, r2.entry.system, r2.entry.id))


@dataclass
class _Work:
    """What the trade-off searches of one audit have spent: ratings of the
    whole event, and solves with a value held."""

    event: int = 0
    held: int = 0

    def event_left(self) -> bool:
        return self.event < EVENT_WORK

    def held_left(self) -> bool:
        return self.held < HELD and self.event < EVENT_WORK


class _Search:
    """The trade-off searches of one audit (the module text)."""

    def __init__(self, published, rows, options: RatingOptions, book, tol: float, inputs):
        self.rows, self.options, self.book, self.tol = rows, options, book, tol
        self.inputs = inputs
        self.event = inputs.event(published.event)
        self.work = _Work()
        self.count = inputs.count

    def missed(self) -> list:
        """The rows missed with the inputs, in a section and system with an
        unknown, with no cause but the initial ratings."""
        inputs, tol = self.inputs, self.tol
        hidden = {(r.entry.system, r.entry.section) for r in self.rows
                  if (r.entry.id, r.entry.system) in inputs.values}
        return [r for r in self.rows if r.result is not None and r.with_inferred is not None
                and not within(r.with_inferred, r.entry.post, tol)
                and (r.entry.system, r.entry.section) in hidden
                and all(c.cause == "initialization" for c in r.causes)]


class _Section:
    """One section's trade-off searches: its unknowns, their values, the
    section model and the posts' slopes, shared by its missed rows."""

    def __init__(self, search: _Search, sr, key, missed: list):
        self.search, self.sr, self.key = search, sr, key
        inputs, rows = search.inputs, search.rows
        here = [r for r in rows if (r.entry.section, r.entry.system) == key
                and r.result is not None]
        mine = [r for r in here if (r.entry.id, key[1]) in inputs.values]
        self.empty = not mine
        pair_of = {r.entry.id: r.result.pair for r in here}
        self.owners = {r.result.pair: r for r in mine}
        self.name_of = {r.result.pair: (r.entry.name or r.entry.id, r.entry.id) for r in here}
        self.games = {pair_of[r.entry.id]: inputs.games[(r.entry.id, key[1])] for r in mine}
        self.values = {pair_of[r.entry.id]: inputs.values[(r.entry.id, key[1])] for r in mine}
        self.published_posts = {r.result.pair: r.entry.post for r in here}
        self.model = SectionModel(sr, self.games)
        self.limit = max(4 * len(self.values) + 50, WORK // max(1, len(sr.section.players)))
        self.base = None if self.empty else self.model.posts(self.values)
        self.low, self.high = sr.rules.p.absolute_floor, sr.rules.p.special_cap
        self.missed = missed

    def adopt(self, section_values: dict, event_values: dict, posts_now: dict, gained: list,
              own: dict) -> None:
        """A variant that loses no post taken into the inputs (the
        section's ``values`` and ``base`` follow it)."""
        search = self.search
        _take_in(search.inputs, search.rows, self.sr, self.owners, event_values, posts_now, own)
        self.values.update(section_values)
        self.base = self.model.posts(self.values) or self.base
        search.count += len(gained)
        search.inputs.count = search.count

    def measure(self) -> None:
        """published pair -> {unknown: slope} of the section's posts."""
        model, values, base, high = self.model, self.values, self.base, self.high

        def stop():
            return model.evaluations >= self.limit
        self.slopes: dict = {}
        measured = forward_slopes(model, values, sorted(values), base, PROBE, -math.inf, high,
                                  MIN_SLOPE, stop)
        for u, col in measured.items():
            for j, s in col.items():
                self.slopes.setdefault(j, {})[u] = s
        blind = {r.result.pair for r in self.missed
                 if (r.entry.section, r.entry.system) == self.key
                 and r.result.pair not in self.slopes}
        if blind:  # posts stored as integers may not move for a probe: a wider one
            wide = forward_slopes(model, values, sorted(values), base, WIDE_PROBE, -math.inf,
                                  high, MIN_SLOPE, stop)
            for u, col in wide.items():
                for j, s in col.items():
                    if j in blind:
                        self.slopes.setdefault(j, {})[u] = s

    def held(self, r, pair: int, value: float) -> Optional["Held"]:
        """The value of ``pair`` held, the others solved again around it."""
        search = self.search
        search.work.event += 1
        search.work.held += 1
        return _held(search.event, search.options, search.book, search.rows, r, self.sr,
                     self.owners, self.games, self.values, pair, value, self.published_posts,
                     search.tol, search.inputs)

    def named(self, r) -> None:
        """A named initial value (an adult's) of the row's own player held."""
        inputs, key, j = self.search.inputs, self.key, r.result.pair
        named = named_initial(r)
        if named is None or j not in self.values or not self.search.work.held_left():
            return False
        h = self.held(r, j, named["initial_rating"])
        if h is None:
            return False
        if not h.lost:
            self.adopt(h.values, h.event_values, h.posts, h.gained, {j: True})
            return True
        r.causes.append(_held_cause(
            r, r.entry.id, key[1], f"initialized {named['how']}",
            named["initial_rating"], inputs.values[(r.entry.id, key[1])], h))
        if len(h.gained) > len(h.lost):
            inputs.net_gains.append((r, r.causes[-1].variant))
        return False  # and the search of one value alone, which may cost less

    def alone(self, r) -> list:
        """Each unknown the row's post depends on moved alone, the least
        costly first: (posts lost in the section, order, unknown, value)."""
        j, tol = r.result.pair, self.search.tol
        cands = sorted(self.slopes.get(j, {}).items(), key=lambda t: (-abs(t[1]), t[0]))
        found = []
        for u, s in cands[:CANDIDATES]:
            if self.model.evaluations >= self.limit:
                break
            got = _search(self.model, self.values, u, j, r.entry.post, s, self.low, self.high,
                          tol, self.limit)
            if got is None:
                continue
            x, posts = got
            lost = sum(1 for i, pub in self.published_posts.items()
                       if within(self.base.get(i), pub, tol) and not within(posts.get(i), pub,
                                                                             tol))
            found.append((lost, len(found), u, x))
            if not lost:
                break
        return found

    def on_event(self, r, u: int, x: float) -> bool:
        """Unknown ``u`` at ``x`` confirmed on the whole event: taken in when
        it loses nothing, else the cause it costs; True when done."""
        search, key, tol = self.search, self.key, self.search.tol
        inputs = search.inputs
        search.work.event += 1
        uid = self.name_of[u][1]
        moved_values = {**inputs.values, (uid, key[1]): x}
        on_event = _on_event(search.event, search.options, search.book, search.rows, r,
                             moved_values, inputs.games, tol)
        if on_event is None:
            return False
        posts_now, value, lost, gained = on_event
        if not lost:  # the solve stopped short of it: taken into the inputs
            self.adopt({u: x}, moved_values, posts_now, gained, {u: u in self.slopes.get(u, {})})
            return True
        own = "their own" if uid == r.entry.id else f"{self.name_of[u][0]} ({uid})'s"
        inferred = inputs.values[(uid, key[1])]
        h = self.held(r, u, x) if search.work.held_left() else None
        if h is not None and len(h.lost) < len(lost):  # held, the others solved again
            if not h.lost:
                self.adopt(h.values, h.event_values, h.posts, h.gained,
                           {u: u in self.slopes.get(u, {})})
                return True
            r.causes.append(_held_cause(
                r, uid, key[1], f"with {own} initial {key[1]} rating held at {x:.0f} "
                f"instead of the {inferred:.0f} inferred as the page's best fit", x, inferred, h))
            if len(h.gained) > len(h.lost):
                inputs.net_gains.append((r, r.causes[-1].variant))
            return True
        r.causes.append(Cause(
            "tradeoff",
            f"reproduced with {own} initial {key[1]} rating at {x:.0f} instead of the "
            f"{inferred:.0f} inferred as the page's best fit (the "
            f"post is {value:.2f}), which loses {len(lost)} other published post"
            f"{'s' if len(lost) != 1 else ''} ({named_posts(lost)}): no one set of the inputs "
            "the page hides reproduces them all", value, r.entry.post,
            variant={"id": uid, "system": key[1], "initial_rating": x, "inferred": inferred,
                     "loses": loses(lost)}))
        if len(gained) > len(lost):
            inputs.net_gains.append((r, r.causes[-1].variant))
        return True

    def rows(self):
        """The section's rows still missed with the inputs, by pair."""
        for r in sorted(self.missed, key=lambda r: r.result.pair):
            if (r.entry.section, r.entry.system) == self.key \
                    and not within(r.with_inferred, r.entry.post, self.search.tol):
                yield r


def tradeoff_causes(published, rows, options: RatingOptions, book, tol: float, inputs) -> int:
    """Add ``tradeoff`` causes to the rows still missed with ``inputs``
    (:class:`uschess.apps.audit.alternate.Inputs`, updated when a variant
    loses nothing); returns how many published ratings are reproduced with
    the inputs after that."""
    if not inputs.values:
        return inputs.count
    search = _Search(published, rows, options, book, tol, inputs)
    missed = search.missed()
    if not missed:
        return inputs.count
    try:
        plain = rate_published(search.event, _plain(options), book=book)
    except InputError:
        return inputs.count
    by_key = {(sr.section.name, sr.system): sr for sr in plain.sections}
    for key in dict.fromkeys((r.entry.section, r.entry.system) for r in missed):
        sr = by_key.get(key)
        if sr is None:
            continue
        sec = _Section(search, sr, key, missed)
        if sec.empty or sec.base is None:
            continue
        sec.measure()
        for r in sec.rows():
            if sec.named(r):
                continue
            for _, _, u, x in sorted(sec.alone(r))[:2]:
                if not search.work.event_left():
                    break
                if sec.on_event(r, u, x):
                    break
    _settle(rows, tol)
    return search.count
