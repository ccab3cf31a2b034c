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
found: :func:`take_net_gains` tries it again after every other search of the
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

from uschess.apps.audit.alternate import _plain
from uschess.apps.audit.cause import Cause, loses, printed_posts, within
from uschess.apps.audit.infer import (_common_values, _options, inferred_record, named_alone,
                                      names_inferred)
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
#: solve of its section (3-4 s of CPU on 45 players, 13-25 s on 140, 13-19 s
#: on the 1,166-player page).
HELD = 3
#: A cause names at most this many of the posts a variant loses.
MAX_NAMED = 3


def moved_posts(rows, posts: dict, tol: float) -> tuple[list, list]:
    """(lost, gained): the rows whose published post ``rows``' current
    ``with_inferred`` reproduces and ``posts`` ((section, system, id) ->
    post of a variant, :func:`~uschess.apps.audit.cause.printed_posts`) does
    not, and the other way round."""
    lost, gained = [], []
    for r in rows:
        before = within(r.with_inferred, r.entry.post, tol)
        after = within(posts.get((r.entry.section, r.entry.system, r.entry.id)), r.entry.post, tol)
        if before and not after:
            lost.append(r)
        elif after and not before:
            gained.append(r)
    return lost, gained


def named_posts(lost: list) -> str:
    """The first :data:`MAX_NAMED` of the posts a variant loses, named for a
    cause's text (``and N more`` after them)."""
    named = ", ".join(f"{r.entry.name or r.entry.id} ({r.entry.id}, {r.entry.system} "
                      f"{r.entry.post:g})" for r in lost[:MAX_NAMED])
    return named + (f" and {len(lost) - MAX_NAMED} more" if len(lost) > MAX_NAMED else "")


def _settle(rows, tol: float) -> None:
    """A post the inputs reproduce now keeps no trade-off cause: a variant
    taken in after its trade-off was named settled it."""
    for r in rows:
        if r.causes and within(r.with_inferred, r.entry.post, tol):
            r.causes = [c for c in r.causes if c.cause != "tradeoff"]


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
    try:
        res = rate_published(event, _options(options, event_values, inputs.games), book=book)
    except InputError:
        return None
    posts = printed_posts(res)
    post = posts.get((r.entry.section, r.entry.system, r.entry.id))
    if not within(post, r.entry.post, tol):
        return None
    lost, gained = moved_posts(rows, posts, tol)
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
    or fewer than they gain: :func:`take_net_gains`):
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


def tradeoff_causes(published, rows, options: RatingOptions, book, tol: float, inputs) -> int:
    """Add ``tradeoff`` causes to the rows still missed with ``inputs``
    (:class:`uschess.apps.audit.alternate.Inputs`, updated when a variant
    loses nothing); returns how many published ratings are reproduced with
    the inputs after that."""
    if not inputs.values:
        return inputs.count
    event = inputs.event(published.event)
    hidden = {(r.entry.system, r.entry.section) for r in rows
              if (r.entry.id, r.entry.system) in inputs.values}
    missed = [r for r in rows if r.result is not None and r.with_inferred is not None
              and not within(r.with_inferred, r.entry.post, tol)
              and (r.entry.system, r.entry.section) in hidden
              and all(c.cause == "initialization" for c in r.causes)]
    if not missed:
        return inputs.count
    try:
        plain = rate_published(event, _plain(options), book=book)
    except InputError:
        return inputs.count
    by_key = {(sr.section.name, sr.system): sr for sr in plain.sections}
    event_work = held = 0
    count = inputs.count
    for key in dict.fromkeys((r.entry.section, r.entry.system) for r in missed):
        sr = by_key.get(key)
        if sr is None:
            continue
        here = [r for r in rows if (r.entry.section, r.entry.system) == key
                and r.result is not None]
        mine = [r for r in here if (r.entry.id, key[1]) in inputs.values]
        if not mine:
            continue
        pair_of = {r.entry.id: r.result.pair for r in here}
        owners = {r.result.pair: r for r in mine}
        name_of = {r.result.pair: (r.entry.name or r.entry.id, r.entry.id) for r in here}
        games = {pair_of[r.entry.id]: inputs.games[(r.entry.id, key[1])] for r in mine}
        values = {pair_of[r.entry.id]: inputs.values[(r.entry.id, key[1])] for r in mine}
        published_posts = {r.result.pair: r.entry.post for r in here}
        model = SectionModel(sr, games)

        def adopt(section_values: dict, event_values: dict, posts_now: dict, gained: list,
                  own: dict) -> None:
            """A variant that loses no post taken into the inputs (the
            section's ``values`` and ``base`` follow it)."""
            nonlocal base, count
            _take_in(inputs, rows, sr, owners, event_values, posts_now, own)
            values.update(section_values)
            base = model.posts(values) or base
            count += len(gained)
            inputs.count = count

        limit = max(4 * len(values) + 50, WORK // max(1, len(sr.section.players)))
        base = model.posts(values)
        if base is None:
            continue
        p = sr.rules.p
        low, high = p.absolute_floor, p.special_cap
        slopes: dict = {}  # published pair -> {unknown: slope}
        measured = forward_slopes(model, values, sorted(values), base, PROBE, -math.inf, high,
                                  MIN_SLOPE, lambda: model.evaluations >= limit)
        for u, col in measured.items():
            for j, s in col.items():
                slopes.setdefault(j, {})[u] = s
        blind = {r.result.pair for r in missed if (r.entry.section, r.entry.system) == key
                 and r.result.pair not in slopes}
        if blind:  # posts stored as integers may not move for a probe: a wider one
            wide = forward_slopes(model, values, sorted(values), base, WIDE_PROBE, -math.inf,
                                  high, MIN_SLOPE, lambda: model.evaluations >= limit)
            for u, col in wide.items():
                for j, s in col.items():
                    if j in blind:
                        slopes.setdefault(j, {})[u] = s
        for r in sorted(missed, key=lambda r: r.result.pair):
            if (r.entry.section, r.entry.system) != key or within(r.with_inferred, r.entry.post,
                                                                  tol):
                continue
            j = r.result.pair
            named = named_initial(r)
            if named is not None and j in values and event_work < EVENT_WORK and held < HELD:
                # the named value held, the others solved again around it
                event_work += 1
                held += 1
                h = _held(event, options, book, rows, r, sr, owners, games, values, j,
                          named["initial_rating"], published_posts, tol, inputs)
                if h is not None:
                    if not h.lost:
                        adopt(h.values, h.event_values, h.posts, h.gained, {j: True})
                        continue
                    r.causes.append(_held_cause(
                        r, r.entry.id, key[1], f"initialized {named['how']}",
                        named["initial_rating"], inputs.values[(r.entry.id, key[1])], h))
                    if len(h.gained) > len(h.lost):
                        inputs.net_gains.append((r, r.causes[-1].variant))
                    # and the search of one value alone below, which may cost less
            cands = sorted(slopes.get(j, {}).items(), key=lambda t: (-abs(t[1]), t[0]))
            # each unknown alone, the least costly first: what it loses is
            # counted on the section, then confirmed on the whole event
            found = []
            for u, s in cands[:CANDIDATES]:
                if model.evaluations >= limit:
                    break
                got = _search(model, values, u, j, r.entry.post, s, low, high, tol, limit)
                if got is None:
                    continue
                x, posts = got
                lost = sum(1 for i, pub in published_posts.items()
                           if within(base.get(i), pub, tol) and not within(posts.get(i), pub, tol))
                found.append((lost, len(found), u, x))
                if not lost:
                    break
            for _, _, u, x in sorted(found)[:2]:
                if event_work >= EVENT_WORK:
                    break
                event_work += 1
                uid = name_of[u][1]
                moved_values = {**inputs.values, (uid, key[1]): x}
                opts = _options(options, moved_values, inputs.games)
                try:
                    res = rate_published(event, opts, book=book)
                except InputError:
                    continue
                posts_now = printed_posts(res)
                value = posts_now.get((r.entry.section, r.entry.system, r.entry.id))
                if not within(value, r.entry.post, tol):
                    continue
                lost, gained = moved_posts(rows, posts_now, tol)
                if not lost:
                    # the solve stopped short of it: taken into the inputs
                    adopt({u: x}, moved_values, posts_now, gained, {u: u in slopes.get(u, {})})
                    break
                own = "their own" if uid == r.entry.id else f"{name_of[u][0]} ({uid})'s"
                h = None
                if held < HELD and event_work < EVENT_WORK:
                    # the value held and the others solved again: it may cost less
                    event_work += 1
                    held += 1
                    h = _held(event, options, book, rows, r, sr, owners, games, values, u, x,
                              published_posts, tol, inputs)
                if h is not None and len(h.lost) < len(lost):
                    if not h.lost:
                        adopt(h.values, h.event_values, h.posts, h.gained,
                              {u: u in slopes.get(u, {})})
                        break
                    r.causes.append(_held_cause(
                        r, uid, key[1], f"with {own} initial {key[1]} rating held at {x:.0f} "
                        f"instead of the {inputs.values[(uid, key[1])]:.0f} inferred as the "
                        "page's best fit", x, inputs.values[(uid, key[1])], h))
                    if len(h.gained) > len(h.lost):
                        inputs.net_gains.append((r, r.causes[-1].variant))
                    break
                r.causes.append(Cause(
                    "tradeoff",
                    f"reproduced with {own} initial {key[1]} rating at {x:.0f} instead of the "
                    f"{inputs.values[(uid, key[1])]:.0f} inferred as the page's best fit (the "
                    f"post is {value:.2f}), which loses {len(lost)} other published post"
                    f"{'s' if len(lost) != 1 else ''} ({named_posts(lost)}): no one set of the inputs "
                    "the page hides reproduces them all", value, r.entry.post,
                    variant={"id": uid, "system": key[1], "initial_rating": x,
                             "inferred": inputs.values[(uid, key[1])],
                             "loses": loses(lost)}))
                if len(gained) > len(lost):
                    inputs.net_gains.append((r, r.causes[-1].variant))
                break
    _settle(rows, tol)
    return count


def _given_up_causes(lost: list, gained: list, given_up: dict, taken: dict, system: str,
                     first: str, names: dict) -> None:
    """Each post in ``lost`` (its post with the values given up still in
    its ``with_inferred``) gets the ``tradeoff`` cause of the values given
    up (``given_up``: id -> value; ``taken``: id -> the value taken in
    instead; ``first``: the id of the value searched), which reproduce it
    and lose the posts in ``gained``; its ``initialization`` cause naming
    the values inferred then is dropped (the trade-off says what they
    were)."""
    value = given_up.get(first, taken[first])
    again = {pid: x for pid, x in given_up.items() if pid != first}
    who = names.get(first, first)
    for r in lost:
        post = r.with_inferred
        r.causes = [c for c in r.causes if not names_inferred(c)]
        r.causes.append(Cause(
            "tradeoff",
            f"reproduced with {who} ({first})'s initial {system} rating at {value:.0f}"
            + (f" and {len(again)} other unrated players' at the values solved before"
               if again else "")
            + f" (the post is {post:.2f}); the inputs inferred put it at {taken[first]:.0f}"
            + (" with the others solved again around it" if again else "")
            + f", which reproduces {len(gained)} published post{'s' if len(gained) != 1 else ''} "
            f"that those values lose ({named_posts(gained)}): no one set of the inputs the "
            "page hides reproduces them all", post, r.entry.post,
            variant={"id": first, "system": system, "initial_rating": value,
                     "inferred": taken[first], **({"solved_again": again} if again else {}),
                     "loses": loses(gained)}))


def take_net_gains(published, rows, options: RatingOptions, book, tol: float,
                   inputs) -> Optional[int]:
    """The trade-offs found that reproduce more published posts than they
    lose (``inputs.net_gains``), tried again after every other search and
    taken into the inputs where they still do: the page's best fit is the
    set of inputs that reproduces the most posts, and the one-value search
    fits posts one at a time.  Taken in last, since taken in when found
    they would leave the searches after them less to gain (on
    ``XtblMain_202007043302_3`` a trade-off worth three posts would have
    kept the initial counts' search from eleven).  Each post a value taken
    in loses gets the trade-off of the values given up.  Returns how many
    published ratings are reproduced with the inputs after that, or None
    where nothing was tried."""
    pending, inputs.net_gains = inputs.net_gains, []
    if not pending or inputs.count is None:
        return None
    event = inputs.event(published.event)
    try:
        plain = rate_published(event, _plain(options), book=book)
    except InputError:
        return None
    by_key = {(sr.section.name, sr.system): sr for sr in plain.sections}
    names = {r.entry.id: r.entry.name or r.entry.id for r in rows}
    taken = 0
    for r, v in pending:
        if within(r.with_inferred, r.entry.post, tol):
            continue
        system = v["system"]
        key = (r.entry.section, system)
        changed = {v["id"]: v["initial_rating"], **v.get("solved_again", {})}
        sr = by_key.get(key)
        if sr is None or any((pid, system) not in inputs.values for pid in changed):
            continue
        moved = {**inputs.values, **{(pid, system): x for pid, x in changed.items()}}
        try:
            res = rate_published(event, _options(options, moved, inputs.games), book=book)
        except InputError:
            continue
        posts = printed_posts(res)
        if not within(posts.get((r.entry.section, r.entry.system, r.entry.id)), r.entry.post,
                      tol):
            continue
        lost, gained = moved_posts(rows, posts, tol)
        if len(gained) <= len(lost):
            continue
        given_up = {pid: inputs.values[(pid, system)] for pid in changed
                    if inputs.values[(pid, system)] != changed[pid]}
        _given_up_causes(lost, gained, given_up, changed, system, v["id"], names)
        owners = {x.result.pair: x for x in rows if (x.entry.section, x.entry.system) == key
                  and x.result is not None and (x.entry.id, system) in inputs.values}
        _take_in(inputs, rows, sr, owners, moved, posts, {})
        inputs.count += len(gained) - len(lost)
        taken += 1
    if taken:
        _settle(rows, tol)
    return inputs.count
