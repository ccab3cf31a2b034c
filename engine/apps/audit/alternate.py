"""The two kinds of inputs a page cannot show, solved in turn until they agree.

The audit first solves the unrated players' initial ratings
(:mod:`uschess.apps.audit.infer`), then, on top of them, the hidden earlier
histories of players still missed (:mod:`uschess.apps.audit.hidden`).  The
initial ratings were fitted to posts that the histories then move: an
all-losses history of a provisional opponent changes that opponent's step-4
result, against which every unrated opponent is rated in step 5, so the
values that fitted best without it no longer do.  Here the two are
alternated: the initial ratings are solved again on the event with the
accepted histories in place (each section's solve starting from the values
found before), kept only when the whole event re-rated with them reproduces
more published ratings; then the histories of the players still missed are
tried again on top of them; and so on while the count grows, at most
:data:`ROUNDS` times (each solve has its own budget, so the work stays
bounded, and the order is fixed, so the same page gives the same values).
Every value found stays reported as inferred.  An unrated player the first
solve left at the rules' value is solved here too: with N = 0 their own post
may depend on their initial rating only through an opponent's step 4, which
only the opponent's history makes fit (``XtblMain_200507154991_1``: GAN,
through KNIGHT's all-losses history); values still at the rules' after this
are dropped before the later searches (nothing pins them there).
"""

from __future__ import annotations

from typing import Callable, Optional

from uschess.apps.audit.cause import count_reproduced, printed_posts, within
from uschess.apps.audit.hidden import infer_histories
from uschess.apps.audit.infer import inferred_record
from uschess.apps.audit.inputs import Inputs, _common_values, _options, _plain
from uschess.apps.audit.page_chain import rate_published
from uschess.apps.audit.solve import FULL, Effort, SectionModel, Unknown, solve_section
from uschess.errors import InputError
from uschess.model import Event
from uschess.rating.pipeline import RatingOptions

#: Rounds of (initial ratings again, then histories again) at most.
ROUNDS = 3


def resolve_initial(event: Event, rows, options: RatingOptions, book, tol: float,
                    inputs: Inputs, effort: Effort = FULL) -> Optional[tuple[dict, list]]:
    """The initial ratings solved again on ``event`` (the histories in
    place), each section and system with an unknown and a post still missed,
    from the values in ``inputs``, each solve within ``effort``.  Returns
    (values, their reports), or None when the event cannot be rated."""
    try:
        result = rate_published(event, _plain(options), book=book)
    except InputError:
        return None
    values = dict(inputs.values)
    old = {(i.id, i.system): i for i in inputs.initial}
    reports: dict = dict(old)
    for sr in result.sections:
        here = [r for r in rows if r.entry.section == sr.section.name
                and r.entry.system == sr.system and r.result is not None]
        mine = sorted((r for r in here if (r.entry.id, sr.system) in values),
                      key=lambda r: r.result.pair)
        if not mine or all(within(r.with_inferred, r.entry.post, tol) for r in here):
            continue
        games = {r.result.pair: inputs.games[(r.entry.id, sr.system)] for r in mine}
        unknowns = [Unknown(r.result.pair, r.entry.id, values[(r.entry.id, sr.system)],
                            games[r.result.pair]) for r in mine]
        p = sr.rules.p
        sol = solve_section(SectionModel(sr, games), unknowns,
                            {r.result.pair: r.entry.post for r in here}, tol,
                            p.absolute_floor, p.special_cap, common=_common_values(sr.rules),
                            effort=effort)
        if sol is None:
            continue
        for r, u in zip(mine, unknowns):
            k = (r.entry.id, sr.system)
            values[k] = u.value
            pins = sol.pinned_by.get(u.pair)
            if pins is None and k in old:  # not measured again: as measured before
                pins = ([u.pair] if old[k].own else []) + [None] * old[k].pinned_by
            if r.result.initial is None:
                continue  # rated from a history in place: the report made before it stands
            record = inferred_record(sr, r, u, pins or [])
            if record is None:
                reports.pop(k, None)
            else:
                reports[k] = record
    return values, [reports[(i.id, i.system)] for i in inputs.initial
                    if (i.id, i.system) in reports] + \
        [v for k, v in reports.items() if k not in old]


def alternate(published, rows, options: RatingOptions, book, tol: float, inputs: Inputs,
              established: Callable[[object], int], games_printed: bool) -> Inputs:
    """Alternate the two solves as the module text says, from ``inputs``
    (the initial ratings and then the histories solved once); returns the
    inputs with the most published ratings reproduced, ``rows``'
    ``with_inferred`` set from them."""
    if not inputs.histories or not inputs.values or inputs.count >= len(rows):
        return inputs
    for _ in range(ROUNDS):
        event = inputs.event(published.event)
        got = resolve_initial(event, rows, options, book, tol, inputs)
        if got is None:
            break
        values, initial = got
        opts = _options(options, values, inputs.games)
        try:
            result = rate_published(event, opts, book=book)
        except InputError:
            break
        n = count_reproduced(result, [r.entry for r in rows], tol)
        if n <= inputs.count:
            break
        inputs = Inputs(values, inputs.games, initial, inputs.histories, n)
        posts = printed_posts(result)
        for r in rows:
            r.with_inferred = posts.get((r.entry.section, r.entry.system, r.entry.id))
        if n >= len(rows):
            break
        more, count = infer_histories(published, rows, options, book, tol, opts, n,
                                      established, games_printed, accepted=inputs.histories)
        if more:
            inputs.histories = list(inputs.histories) + more
            inputs.count = count
    return inputs
