"""Earlier histories the page cannot show, solved from the page.

Beside the unrated players' initial ratings (:mod:`uschess.apps.audit.infer`)
a page hides two facts of a rated player's history that move their post:

* an established player's number of earlier games: an MSA page prints a
  count only for provisional ratings (``P<n>``), and the reader takes
  :data:`~uschess.io.formats.msa.ESTABLISHED_GAMES`, at least N* for every
  rating; a player with N between the established threshold and N* has
  N' = N and a larger K (sec. 3, 4.2);
* an earlier history of only wins or only losses, which sends a player to
  the special formula with an adjusted R0' (sec. 4.1); through step 5 it also
  moves the posts of their unrated and provisional opponents.

The audit's ``games`` and ``history`` causes test each of these on one
player at a time, against the plain re-rating.  Here they become inferred
inputs, as the initial ratings are: for each player whose post is still
missed with the initial ratings inferred and who has such a cause, the count
(searched by bisection between the established threshold and N*, the post
being monotone in it) or the history that reproduces their post is tried on
the whole event, with the values inferred so far, and kept only when the
number of published ratings reproduced grows.  Then each provisional player
still missed, with missed opponents, has both histories tried the same way,
whether or not their own post is reproduced by it (a provisional player
printed at the floor after three games, ``100P3``, whose earlier games were
all losses, moves every opponent's step 5), but not one that moves their
own post further from the page's than it was: their own post is the most
direct evidence of their record.  (``XtblMain_202101022232_2``: CLEMO,
``654P19 -> 749P23``, 759.70 computed; his 19 earlier games as all wins
reproduced one more post at the time and put his own at about 1034; kept,
the initial ratings solved after it left BLAIR, CLEMO and YOUSUFI missed
with no cause; not kept, 45 of 46.)  The work is bounded (:data:`MAX_RATINGS`
ratings of the event), every value is reported as inferred, never as the
page's.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Callable, Optional

from uschess.apps.audit.cause import count_reproduced, post_of, printed_posts, within
from uschess.apps.audit.page_chain import rate_published
from uschess.errors import InputError
from uschess.io.formats.msa import ESTABLISHED_GAMES
from uschess.model import Event
from uschess.rating.pipeline import EventResult, RatingOptions

#: Ratings of the whole event at most, per audit.
MAX_RATINGS = 120
#: The causes whose players are tried.
KINDS = ("games", "history")


@dataclass
class InferredHistory:
    """An earlier history solved from the page: ``games`` earlier games
    (``kind`` "games"), or only wins or only losses (``kind`` "wins" or
    "losses") in ``games`` earlier games."""

    section: str
    system: str
    id: str
    name: str
    kind: str
    games: int
    #: False where ``games`` is the reader's assumption for an established
    #: player (a page that prints no count)
    count_printed: bool = True

    def as_dict(self) -> dict:
        return {"inferred": "history", **dataclasses.asdict(self)}

    def describe(self) -> str:
        if self.kind == "games":
            return (f"{self.games} earlier {self.system} games for {self.name} ({self.id}), an "
                    "established player's count the page does not print (read as "
                    f"{ESTABLISHED_GAMES}), inferred from the page: N' = N gives a larger K")
        count = (f"{self.games} games" if self.count_printed else
                 "in earlier games the page does not count")
        return (f"an earlier {self.system} history of only {self.kind} ({count}) for "
                f"{self.name} ({self.id}), which the page does not show, inferred from the page "
                "(special formula, sec. 4.1)")


def _edited(event: Event, edits: dict) -> Event:
    """``event`` with the records ``edits`` names changed: (section, system,
    pair) -> (kind, games).  Only the edited players' records are copied; a
    player the page prints unrated in the system (rated from an earlier
    section's post, through the chain) has no record here to edit."""
    if not edits:
        return event
    sections = []
    for sec in event.sections:
        mine = {(system, pair): e for (name, system, pair), e in edits.items() if name == sec.name}
        if mine:
            players = []
            for p in sec.players:
                changes = [(system, e) for (system, pair), e in mine.items() if pair == p.pair]
                if changes:
                    ratings = {k: dataclasses.replace(v) for k, v in p.ratings.items()}
                    for system, (kind, games) in changes:
                        r = ratings.get(system)
                        if r is None:  # unrated on the page: its record is the chain's
                            continue
                        if kind == "games":
                            r.games = games
                        elif kind == "wins":
                            r.wins, r.draws, r.losses = r.games, 0, 0
                        else:
                            r.wins, r.draws, r.losses = 0, 0, r.games
                    p = dataclasses.replace(p, ratings=ratings)
                players.append(p)
            sec = dataclasses.replace(sec, players=players)
        sections.append(sec)
    return dataclasses.replace(event, sections=sections)


class _Trials:
    """Ratings of the event with a set of edits, counted against the budget."""

    def __init__(self, event: Event, options: RatingOptions, book, rows, tol: float):
        self.event, self.options, self.book, self.rows, self.tol = event, options, book, rows, tol
        self.used = 0

    def rate(self, edits: dict) -> Optional[EventResult]:
        if self.used >= MAX_RATINGS:
            return None
        self.used += 1
        try:
            return rate_published(_edited(self.event, edits), self.options, book=self.book)
        except InputError:
            return None

    def score(self, result: Optional[EventResult]) -> int:
        return count_reproduced(result, [r.entry for r in self.rows], self.tol)


def counts_reproducing(at: Callable[[int], Optional[float]], lo: int, hi: int, post: float,
                       tol: float) -> list[int]:
    """The earlier-game counts in ``lo``..``hi`` whose post ``at(n)`` is within
    ``tol`` of ``post``, found by bisection (the post moves monotonically with
    the count: N' = N for an established player below N*, sec. 3), closest
    first; at most the two counts around the published post."""
    v_lo, v_hi = at(lo), at(hi)
    if v_lo is None or v_hi is None \
            or not min(v_lo, v_hi) - tol - 1e-9 <= post <= max(v_lo, v_hi) + tol + 1e-9:
        return []
    sign = 1.0 if v_lo >= v_hi else -1.0  # sign * post falls as n grows
    a, b = lo, hi
    while b - a > 1:
        mid = (a + b) // 2
        value = at(mid)
        if value is None:
            return []
        if sign * (value - post) > 0:
            a = mid
        else:
            b = mid
    return sorted((n for n in (a, b) if within(at(n), post, tol)),
                  key=lambda n: abs(at(n) - post))


def _games_tries(row, trials: _Trials, edits: dict, key, base: float,
                 established: int) -> list[tuple[tuple, EventResult]]:
    """The established player's earlier-game count that brings their post
    closest to the published one: bisection from ``established`` + 1 to N*,
    the post moving away from the pre-event rating as N falls."""
    e, pr = row.entry, row.result
    if "standard" not in pr.formula or pr.n_eff is None:
        return []
    rec = row.section.section.player(pr.pair).ratings.get(e.system)
    if rec is None or rec.games != ESTABLISHED_GAMES:
        return []
    lo, hi = established + 1, math.ceil(pr.n_eff) - 1
    want, have = e.post - pr.pre, base - pr.pre
    if hi < lo or want * have <= 0 or abs(want) <= abs(have):
        return []
    seen: dict[int, tuple[Optional[float], Optional[EventResult]]] = {}

    def at(n: int) -> Optional[float]:
        if n not in seen:
            res = trials.rate({**edits, key: ("games", n)})
            seen[n] = (post_of(res, e.section, e.system, e.id) if res else None, res)
        return seen[n][0]

    return [(("games", n), seen[n][1])
            for n in counts_reproducing(at, lo, hi, e.post, trials.tol)]


def printed_provisional(rec, established: int) -> bool:
    """Whether a pre-event record is one the page prints as provisional,
    ``P<n>``: n earlier games, at most the established threshold, or more
    where a page prints a count above it (``XtblMain_201903091412_1``:
    OLIVER RANA, ``Q: 108P31``); not a count the reader assumed for an
    established rating (:data:`~uschess.io.formats.msa.ESTABLISHED_GAMES`).
    Such a player may hold an all-wins or all-losses history (sec. 4.1:
    the special formula whatever N)."""
    return rec is not None and rec.games > 0 and (rec.games <= established
                                                  or rec.games != ESTABLISHED_GAMES)


def moves_away(before: Optional[float], after: Optional[float], post: float,
               tol: float) -> bool:
    """Whether a variant moves a player's post (``before`` it, ``after``)
    further from the published ``post`` than ``tol`` allows: the test a
    history tried for what it does to others passes on its holder's own
    post (the module text)."""
    return after is None or (before is not None and abs(after - post) > abs(before - post) + tol)


def _history_tries(row, trials: _Trials, edits: dict, key, own: bool = True,
                   current: Optional[float] = None) -> list[tuple[tuple, EventResult]]:
    """Only wins, or only losses, in the player's earlier games; with
    ``own``, only a history that reproduces the player's own post; without,
    one that leaves it no further from the page's than ``current`` (the
    player's post with the inputs inferred so far), within the tolerance."""
    e, pr = row.entry, row.result
    rec = row.section.section.player(pr.pair).ratings.get(e.system)
    if rec is None or rec.games <= 0:
        return []
    out = []
    for kind in ("wins", "losses"):
        if (kind == "wins" and rec.all_wins) or (kind == "losses" and rec.all_losses):
            continue
        res = trials.rate({**edits, key: (kind, rec.games)})
        if res is None:
            continue
        got = post_of(res, e.section, e.system, e.id)
        if own:
            if not within(got, e.post, trials.tol):
                continue
        elif moves_away(current, got, e.post, trials.tol):
            continue  # moves the player's own post away from the page's
        out.append(((kind, rec.games), res))
    return out


def _provisional_around_misses(rows, value, tol: float, established) -> list:
    """The missed rows of provisional players (earlier games printed:
    :func:`printed_provisional`) with a hidden history's reach: their unrated
    or provisional opponents rate against their step-4 result (step 5).
    Those with the most missed opponents first."""
    missed = {(r.entry.section, r.entry.system, r.result.pair) for r in rows
              if r.result is not None and value(r) is not None
              and not within(value(r), r.entry.post, tol)}
    out = []
    for r in rows:
        if r.result is None or (r.entry.section, r.entry.system, r.result.pair) not in missed:
            continue
        me = r.section.section.player(r.result.pair)
        rec = me.ratings.get(r.entry.system)
        if not printed_provisional(rec, established(r)):
            continue
        around = sum(1 for g in me.rounds if g.opponent is not None
                     and (r.entry.section, r.entry.system, g.opponent) in missed)
        if around:
            out.append((around, r))
    return [r for _, r in sorted(out, key=lambda x: -x[0])]


def history_edits(event: Event, histories: list) -> dict:
    """The edits (section, system, pair) -> (kind, games) that put the
    inferred ``histories`` (:class:`InferredHistory`) into ``event``."""
    out = {}
    for h in histories:
        sec = next(s for s in event.sections if s.name == h.section)
        pair = next(p.pair for p in sec.players if p.id == h.id)
        out[(h.section, h.system, pair)] = (h.kind, h.games)
    return out


def with_histories(event: Event, histories: list) -> Event:
    """``event`` with the inferred ``histories`` in its players' records."""
    return _edited(event, history_edits(event, histories))


def infer_histories(published, rows, options: RatingOptions, book, tol: float,
                    base_options: Optional[RatingOptions], base_count: Optional[int],
                    established: Callable[[object], int], games_printed: bool = True,
                    accepted: Optional[list] = None):
    """Solve the hidden histories of the players in ``rows`` still missed;
    return (what was inferred, how many published ratings are reproduced
    with everything inferred) or ([], None) when nothing was.  ``base_options``
    rate the event with the initial ratings inferred (None: none were, the
    plain options then); ``established(row)`` is the established threshold
    of the row's rules; ``games_printed`` is False for a page that prints no
    game count of established players; ``accepted``: histories inferred
    before (kept in place, their players not tried again)."""
    if options.reform is not None or options.edition is not None:
        return [], None
    inferred_initial = base_options is not None
    if base_options is None:
        base_options = RatingOptions(rules_on=options.rules_on, known_on=options.known_on,
                                     readings=dict(options.readings), trace=False)
    trials = _Trials(published.event, base_options, book, rows, tol)

    def value(r):
        return r.with_inferred if inferred_initial else r.computed

    todo = [r for r in rows if r.result is not None and value(r) is not None
            and not within(value(r), r.entry.post, tol)
            and any(c.cause in KINDS for c in r.causes)]
    # then provisional players whose history, alone not reproducing their
    # own post, may still reproduce their opponents' (step 5)
    named = {id(r) for r in todo}
    around = [r for r in _provisional_around_misses(rows, value, tol, established)
              if id(r) not in named]
    todo += around
    if not todo:
        return [], None
    around_ids = {id(r) for r in around}
    edits: dict = history_edits(published.event, accepted or [])
    best, best_result = (base_count if base_count is not None
                         else sum(1 for r in rows if r.reproduced)), None
    found: list[InferredHistory] = []
    for r in todo:
        e = r.entry
        key = (e.section, e.system, r.result.pair)
        if key in edits:
            continue
        current = (post_of(best_result, e.section, e.system, e.id) if best_result is not None
                   else value(r))
        if current is None or within(current, e.post, tol):
            continue  # reproduced by an earlier player's history
        kinds = {c.cause for c in r.causes}
        tries = []
        if id(r) in around_ids:
            tries = _history_tries(r, trials, edits, key, own=False, current=current)
        if "games" in kinds:
            tries += _games_tries(r, trials, edits, key, current, established(r))
        if "history" in kinds:
            tries += _history_tries(r, trials, edits, key)
        for edit, res in sorted(tries, key=lambda t: -trials.score(t[1])):
            n = trials.score(res)
            if n > best:
                best, best_result = n, res
                edits[key] = edit
                assumed = (not games_printed and edit[0] != "games"
                           and edit[1] == ESTABLISHED_GAMES)
                found.append(InferredHistory(e.section, e.system, e.id, e.name or e.id,
                                             edit[0], edit[1], count_printed=not assumed))
                break
    if best_result is None:
        return [], None
    posts = printed_posts(best_result)
    for r in rows:
        r.with_inferred = posts.get((r.entry.section, r.entry.system, r.entry.id))
    return found, best
