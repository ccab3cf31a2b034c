"""The causes tried for each published rating not reproduced: each a
variant of the event rated again (:mod:`uschess.apps.audit.causes` registers
them)."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Optional

from uschess.apps.audit.cause import Cause, CauseCheck, PrintedPosts, _fmt, post_of, within
from uschess.apps.audit.findings import changed_rules
from uschess.apps.audit.floors import _floor_cause
from uschess.apps.audit.hookspecs import auditimpl
from uschess.apps.audit.hidden import counts_reproducing
from uschess.apps.audit.k_exception import k_exception_causes
from uschess.apps.audit.page_chain import SectionsApart
from uschess.apps.audit.rescored import scored_event
from uschess.apps.audit.variants import _history_values, _page_record, _player_event, _Variants
from uschess.errors import InputError
from uschess.formulas import n_star
from uschess.io.formats.msa import ESTABLISHED_GAMES
from uschess.rating.chain import Chain

if TYPE_CHECKING:  # the rows the checks read (records imports the verdicts)
    from uschess.apps.audit.records import AuditRow


class FloorCheck(CauseCheck):
    name = "floor"
    rates = "nothing again: the computed post held at the published floor level"
    free_values = "none (the level is the published value; its kind is named)"
    evidence = "the floors of the rules in force that can hold a rating at the published level"

    def causes(self, row, variants, book, tol):
        floor = _floor_cause(row, tol)
        return [floor] if floor else []


class BonusMultiplierCheck(CauseCheck):
    name = "bonus_multiplier"
    rates = "the whole event with each other value of B in the history of the rules"
    free_values = "B, one rule value chosen for the whole event"
    evidence = "the post with that B"
    weak = True

    def causes(self, row, variants, book, tol):
        e, p = row.entry, row.section.rules.p
        out = []
        for b in sorted(_history_values(book, "bonus_multiplier")):
            if b == p.bonus_multiplier:
                continue
            res = variants.reform("bonus_multiplier", b, f"B = {b:g}")
            value = post_of(res, e.section, e.system, e.id)
            if within(value, e.post, tol):
                out.append(Cause(self.name, f"bonus multiplier B = {b:g} (the rules in force "
                                 f"use B = {p.bonus_multiplier:g}) gives {_fmt(value)}", value,
                                 e.post, posts=res, key=variants.reform_key("bonus_multiplier", b)))
        return out


class KExceptionCheck(CauseCheck):
    name = "k_exception"
    rates = "the event without the dual-rating K exception (sec. 4.2)"
    free_values = "whether the exception applies, one rule reading"
    evidence = "the post with K = 800/(N' + m)"
    weak = True

    def causes(self, row, variants, book, tol):
        return k_exception_causes(row, variants, variants.rows, tol)


class EffectiveGamesCheck(CauseCheck):
    name = "effective_games"
    rates = "the whole event with each other effective-games formula (N*) of the history"
    free_values = "the N* formula, one rule version chosen for the whole event"
    evidence = "the post with that formula, its source cited"
    weak = True

    def causes(self, row, variants, book, tol):
        e, p = row.entry, row.section.rules.p
        out = []
        for entry in book.timelines["nstar"].entries:
            if entry.value == p.nstar:
                continue
            res = variants.reform("nstar", entry.value,
                                  f"N* in force from {entry.effective.isoformat()}")
            value = post_of(res, e.section, e.system, e.id)
            if within(value, e.post, tol):
                ns = entry.value
                out.append(Cause(
                    self.name, f"the effective-games formula in force from "
                    f"{entry.effective.isoformat()} [{entry.source.cite()}]: N* = {ns['cap']:g}/"
                    f"sqrt({ns['a']:g} + {ns['b']:g}({ns['center']:g} - R0)^2), gives "
                    f"{_fmt(value)}", value, e.post, posts=res,
                    key=variants.reform_key("nstar", entry.value)))
        return out


class EstablishedGamesCheck(CauseCheck):
    name = "games"
    rates = "the event with the player's earlier game count from 26 up to N*"
    free_values = "the player's earlier game count (one count)"
    evidence = "the counts that reproduce the post"

    def causes(self, row, variants, book, tol):
        return _established_games(row, variants, tol)


class ContradictedGamesCheck(CauseCheck):
    name = "games"
    rates = "the event with a provisional player's count, whose printed counts fell, 0 to N*"
    free_values = "the player's earlier game count (one count)"
    evidence = "the counts that reproduce the post"

    def causes(self, row, variants, book, tol):
        return _contradicted_games(row, variants, tol)


class RoundingCheck(CauseCheck):
    name = "rounding"
    rates = "the event with the player's and the opponents' pre-event ratings moved by 0.5"
    free_values = "two half-point moves (the player's, the opponents')"
    evidence = "the closest post of the moves"

    def causes(self, row, variants, book, tol):
        return _rounding(row, variants, tol)


class HistoryCheck(CauseCheck):
    name = "history"
    rates = "the event with an earlier history of only wins or only losses"
    free_values = "one player's earlier history (wins or losses)"
    evidence = "the post, and the opponent's own post where it is an opponent's history"

    def causes(self, row, variants, book, tol):
        return _history(row, variants, tol)


class ChainingCheck(CauseCheck):
    name = "chaining"
    rates = "the event with its sections rated apart, or each from the earlier results"
    free_values = "the chaining of sections, one reading for the event"
    evidence = "the post with it"

    def causes(self, row, variants, book, tol):
        return _chaining(row, variants, tol)


class ScoredCellsCheck(CauseCheck):
    name = "scored_cells"
    rates = "the event with the page's N and R cells rated as games"
    free_values = "none (the cells the page prints)"
    evidence = "the cells rated and the post"

    def causes(self, row, variants, book, tol):
        return _scored_cells(row, variants, tol)


class ReadingCheck(CauseCheck):
    name = "reading"
    rates = "the event with another reading of a recorded conflict of the documents"
    free_values = "the reading, one for the event"
    evidence = "the post with it"

    def causes(self, row, variants, book, tol):
        e, sr = row.entry, row.section
        out = []
        for cid, conflict in book.conflicts.items():
            current = variants.options.readings.get(cid, conflict.default)
            for reading in conflict.readings:
                if reading == current:
                    continue
                readings = {**variants.options.readings, cid: reading}
                alt = book.rules(sr.rules.on, known_on=variants.options.known_on,
                                 readings=readings, edition=variants.options.edition,
                                 reform=variants.options.reform)
                if alt.fingerprint == sr.rules.fingerprint:
                    continue
                key = ("reading", cid, reading)
                res = variants.rate(key, readings=readings, label=f"reading {cid}={reading}")
                value = post_of(res, e.section, e.system, e.id)
                if within(value, e.post, tol):
                    out.append(Cause(self.name, f"conflict '{cid}' read as '{reading}' "
                                     f"({conflict.readings[reading]}) gives {_fmt(value)}",
                                     value, e.post, posts=res, key=key))
        return out


class KnownOnCheck(CauseCheck):
    name = "known_on"
    rates = "the event under the rules as known on the page's Rated date (or the event's end)"
    free_values = "none (the date the page prints)"
    evidence = "the post, and the rule values a later retroactive decision changed"

    def causes(self, row, variants, book, tol):
        e, sr = row.entry, row.section
        if variants.options.known_on is not None:
            return []
        when = variants.rated_on or variants.event.end
        alt = book.rules(sr.rules.on, known_on=when, readings=variants.options.readings,
                         edition=variants.options.edition, reform=variants.options.reform)
        if alt.fingerprint == sr.rules.fingerprint:
            return []
        key = ("known_on", when)
        res = variants.rate(key, known_on=when, label=f"as known on {when.isoformat()}")
        value = post_of(res, e.section, e.system, e.id)
        if not within(value, e.post, tol):
            return []
        changed = changed_rules(sr.rules, alt)
        what = "the page's Rated (or Re-Rated) date" if variants.rated_on else "the event's end"
        return [Cause(self.name, f"the rules as known on {what} ({when.isoformat()}) give "
                      f"{_fmt(value)}: the rules in force were changed after that date by a "
                      "retroactive decision" + (f" ({changed})" if changed else ""), value,
                      e.post, posts=res, key=key)]


#: The checks of this module in the order they are tried (a row's causes of
#: one name keep this order).
BUILT_IN = (FloorCheck(), BonusMultiplierCheck(), KExceptionCheck(), EffectiveGamesCheck(),
            EstablishedGamesCheck(), ContradictedGamesCheck(), RoundingCheck(), HistoryCheck(),
            ChainingCheck(), ScoredCellsCheck(), ReadingCheck(), KnownOnCheck())


class BuiltInCauses:
    """The plugin that registers :data:`BUILT_IN`."""

    @auditimpl
    def uschess_audit_causes(self):
        return list(BUILT_IN)


#: The rounding variants are tried only when the difference is at most the
#: tolerance plus this: moving R0 and every opponent by the same amount moves
#: both formulas' result by that amount, so half a point in the inputs moves
#: the post by about half a point, never by several.
ROUNDING_REACH = 2.0


def _rounding(row: AuditRow, variants: _Variants, tol: float) -> list[Cause]:
    e, pr = row.entry, row.result
    if row.diff is None or abs(row.diff) > tol + ROUNDING_REACH:
        return []
    sec = row.section.section
    me = sec.player(pr.pair)
    opps = {r.opponent for r in me.rounds if r.rated}
    has_own = e.system in me.ratings
    has_opps = any(e.system in sec.player(o).ratings for o in opps)
    best = None
    steps = (-0.5, 0.0, 0.5)
    for d_own in (steps if has_own else (0.0,)):
        for d_opp in (steps if has_opps else (0.0,)):
            if d_own == 0 and d_opp == 0:
                continue

            def change(s, d_own=d_own, d_opp=d_opp):
                for pl in s.players:
                    rec = pl.ratings.get(e.system)
                    if rec is None:
                        continue
                    if pl.pair == pr.pair:
                        rec.rating += d_own
                    elif pl.pair in opps:
                        rec.rating += d_opp
            ev = _player_event(variants.event, e.section, change)
            res = variants.rate(("rounding", e.section, e.system, pr.pair, d_own, d_opp), event=ev)
            value = post_of(res, e.section, e.system, e.id)
            if within(value, e.post, tol) and (best is None or abs(value - e.post) < abs(best[0] - e.post)):
                best = (value, d_own, d_opp, res)
    if best is None:
        return []
    value, d_own, d_opp, res = best
    parts = []
    if d_own:
        parts.append(f"the player's pre-event rating {d_own:+g}")
    if d_opp:
        parts.append(f"the opponents' pre-event ratings {d_opp:+g}")
    return [Cause("rounding", f"published pre-event ratings are rounded: with {' and '.join(parts)} "
                  f"the post is {_fmt(value)}", value, e.post, posts=res)]


def _chaining(row: AuditRow, variants: _Variants, tol: float) -> list[Cause]:
    """Section chaining: a player in an earlier section of the event starts a
    later one from its result (US Chess rates sections in sequence).  Tried
    both ways: the later section from the page's own pre-event ratings, and
    from the earlier sections' computed results."""
    e = row.entry
    if sum(1 for s in variants.event.sections if any(p.id == e.id for p in s.players)) < 2 \
            and row.result.pre_from is None:
        return []
    out = []
    for chain, key, what in (
            (SectionsApart(), "apart", "each section rated from its own pre-event ratings (no "
                                       "chaining)"),
            (Chain(), "chained", "every pre-event rating in a later section taken from the "
                                 "earlier section's computed result (section chaining)")):
        res = variants.rate(("chaining", key), chain=chain, label=what)
        value = post_of(res, e.section, e.system, e.id)
        if within(value, e.post, tol):
            out.append(Cause("chaining", f"with {what}, the post is {_fmt(value)}", value,
                             e.post, posts=res, key=("chaining", key)))
    return out


def _scored_variant(variants: _Variants, section: str,
                    pair: Optional[int]) -> Optional[PrintedPosts]:
    """The event re-rated with player ``pair``'s ``N``/``R`` cells of
    ``section`` (:class:`~uschess.apps.audit.published.ScoredCell`) rated as
    games with the player's own score (N a win, R a draw) against the
    opponent named, the opponent's cell of that round the mirror.  ``pair``
    None: every player's such cells at once, each with that player's own
    score (a cell's opponent whose own cell of the round is scored keeps
    their own score, not the mirror: ``N 77`` against ``R 79`` is a win
    for one and a draw for the other)."""
    key = ("scored", section, pair)
    if key in variants._cache:
        return variants._cache[key]
    cells = [c for c in variants.scored if c.section == section and (pair is None or c.pair == pair)]
    try:
        ev = scored_event(variants.event, section, cells, _player_event)
    except (KeyError, IndexError, ValueError, InputError):
        variants._cache[key] = None
        return None
    return variants.rate(key, event=ev)


def _scored_cells(row: AuditRow, variants: _Variants, tol: float) -> list[Cause]:
    """The page's ``N`` (a point) and ``R`` (half a point) cells against a
    named opponent, which the reader takes as byes (no game rated): each
    player's cells rated as games with that player's own score, tried for
    every player of the section who has such cells (at most one rating of
    the event each, whoever asks), then every player's at once, each with
    their own score."""
    e = row.entry
    out = []
    pairs = list(dict.fromkeys(c.pair for c in variants.scored if c.section == e.section))
    for pair in pairs + ([None] if len(pairs) > 1 else []):
        res = _scored_variant(variants, e.section, pair)
        value = post_of(res, e.section, e.system, e.id)
        if not within(value, e.post, tol):
            continue
        cells = [c for c in variants.scored if c.section == e.section
                 and (pair is None or c.pair == pair)]
        what = "; ".join((f"pair {c.pair} " if pair is None else "")
                         + f"round {c.index + 1}: {c.code} {c.opponent} as a "
                         f"{'win' if c.code == 'N' else 'draw'}" for c in cells[:8]) \
            + (f"; {len(cells) - 8} more" if len(cells) > 8 else "")
        who = ("every player's" if pair is None else "the player's" if pair == row.result.pair
               else f"pair {pair}'s ({row.section.section.player(pair).name})")
        out.append(Cause("scored_cells", f"{who} N/R cells rated as games with "
                         f"{'each' if pair is None else 'that'} player's own "
                         f"score ({what}; the reader takes them as byes, not rated) give "
                         f"{_fmt(value)}", value, e.post, posts=res))
        break
    return out


def _post_with_games(row: AuditRow, variants: _Variants, n: int) -> Optional[float]:
    """The row's post with the player's earlier game count in its system set
    to ``n`` (one variant of the event, shared by the searches of N)."""
    e, pair = row.entry, row.result.pair
    if _page_record(variants.event, e.section, pair, e.system) is None:
        return None

    def change(s):
        s.player(pair).ratings[e.system].games = n
    res = variants.rate(("games", e.section, e.system, pair, n),
                        event=_player_event(variants.event, e.section, change))
    return post_of(res, e.section, e.system, e.id)


def _games_variant(variants: _Variants, row: AuditRow, n: int) -> Optional[PrintedPosts]:
    """The printed posts of the event with the row's player's earlier game
    count set to ``n`` (rated by :func:`_post_with_games`)."""
    e = row.entry
    return variants._cache.get(("games", e.section, e.system, row.result.pair, n))


def _established_games(row: AuditRow, variants: _Variants, tol: float) -> list[Cause]:
    """An established player's number of earlier games, which an MSA page
    does not print: the reader takes :data:`ESTABLISHED_GAMES`, at least N*
    for every rating, but an established player (N > 25) may have fewer games
    than N*, and then N' = N and K = 800/(N' + m) is larger (sec. 3, 4.2).
    The post moves away from the pre-event rating as N falls, so the counts
    from established_games + 1 up to N* are searched by bisection for one
    that reproduces the published post; the cause names the counts that do."""
    e, pr = row.entry, row.result
    if variants.games_printed or "standard" not in pr.formula or pr.n_eff is None:
        return []
    me = row.section.section.player(pr.pair)
    rec = me.ratings.get(e.system)
    if rec is None or rec.games != ESTABLISHED_GAMES:
        return []
    lo, hi = int(row.section.rules.p.established_games) + 1, math.ceil(pr.n_eff) - 1
    published_change, change = e.post - pr.pre, row.computed - pr.pre
    if hi < lo or published_change * change <= 0 or abs(published_change) <= abs(change):
        return []  # fewer games only move the post further the same way
    values: dict = {}

    def at(n: int) -> Optional[float]:
        if n not in values:
            values[n] = _post_with_games(row, variants, n)
        return values[n]

    found = counts_reproducing(at, lo, hi, e.post, tol)
    if not found:
        return []
    first = last = found[0]
    while first - 1 >= lo and within(at(first - 1), e.post, tol):
        first -= 1
    while last + 1 <= hi and within(at(last + 1), e.post, tol):
        last += 1
    best = min(range(first, last + 1), key=lambda n: abs(at(n) - e.post))
    counts = f"N = {first}" if first == last else f"N = {first} to {last}"
    return [Cause("games", f"an established player with fewer earlier games than N* = "
                  f"{pr.n_eff:.1f}, which the page does not print (taken as "
                  f"{ESTABLISHED_GAMES}): {counts} gives a larger K (N' = N) and with N = {best} "
                  f"the post is {_fmt(at(best))}", at(best), e.post,
                  posts=_games_variant(variants, row, best))]


def _contradicted_games(row: AuditRow, variants: _Variants, tol: float) -> list[Cause]:
    """A provisional player whose printed game counts fell: the pre printed
    ``P<n>`` and the post ``P<k>`` with k < n, fewer games after the event
    than before it (the member record was changed between the two; the page
    cannot say how).  The count rated is then not the one printed: every N
    from 0 to N* (sec. 3; past it every N gives the same N') is tried and
    the cause names the counts that reproduce the post.  (A post count above
    n + m has a reading that needs no cause, games rated elsewhere in
    between, and is left alone.)"""
    e, pr = row.entry, row.result
    if e.post_games is None or pr.m <= 0:
        return []
    p = row.section.rules.p
    rec = row.section.section.player(pr.pair).ratings.get(e.system)
    if rec is None or not 0 < rec.games <= p.established_games or e.post_games >= rec.games:
        return []
    most = math.ceil(n_star(rec.rating, **p.nstar))
    values = {n: _post_with_games(row, variants, n) for n in range(most + 1)}
    found = [n for n, v in values.items() if within(v, e.post, tol)]
    if not found:
        return []
    best = min(found, key=lambda n: abs(values[n] - e.post))
    return [Cause("games", f"the page's game counts fell (P{rec.games} before, "
                  f"P{e.post_games} after {pr.m} rated games): the count rated is not the one "
                  f"printed; N = {_count_runs(found, most)} reproduces the post (with N = "
                  f"{best}: {_fmt(values[best])})", values[best], e.post,
                  variant={"id": e.id, "system": e.system, "games": best,
                           "printed": [rec.games, e.post_games]},
                  posts=_games_variant(variants, row, best))]


def _count_runs(counts: list[int], most: int) -> str:
    """Ascending game counts as runs: ``3 to 5, 8, 21 or more`` (a run that
    reaches ``most``, N*, goes on: every larger N gives the same N')."""
    out, start = [], counts[0]
    for a, b in zip(counts, counts[1:] + [None]):
        if b == a + 1:
            continue
        out.append(f"{start} or more" if a == most else
                   str(a) if start == a else f"{start} to {a}")
        start = b
    return ", ".join(out)


def _history(row: AuditRow, variants: _Variants, tol: float) -> list[Cause]:
    """An earlier history of only wins or only losses (which sends a player
    to the special formula with an adjusted R0', sec. 4.1), which a page
    does not show: the player's own, or an opponent's whose own published
    post is missed too and is reproduced by the same history (step 5 rates
    against the opponent's step-4 result, so one hidden history moves every
    opponent's post)."""
    e, pr = row.entry, row.result
    sec = row.section.section
    me = sec.player(pr.pair)
    out = []
    rec = me.ratings.get(e.system)
    for kind in _history_kinds(rec):
        res = _history_variant(variants, e.section, e.system, pr.pair, kind)
        value = post_of(res, e.section, e.system, e.id)
        if within(value, e.post, tol):
            out.append(Cause("history", f"an earlier history of only {kind} ({kind} = games = "
                             f"{rec.games}), which the file does not show, gives {_fmt(value)} "
                             "(special formula)", value, e.post, posts=res))
    seen = set()
    for rnd in me.rounds:
        o = rnd.opponent
        if not rnd.rated or o is None or o in seen \
                or (e.section, e.system, o) not in variants.missed:
            continue
        seen.add(o)
        opp = sec.player(o)
        orec = opp.ratings.get(e.system)
        own = variants.published_posts.get((e.section, e.system, opp.id))
        if own is None:
            continue
        for kind in _history_kinds(orec):
            res = _history_variant(variants, e.section, e.system, o, kind)
            value = post_of(res, e.section, e.system, e.id)
            theirs = post_of(res, e.section, e.system, opp.id)
            if within(value, e.post, tol) and within(theirs, own, tol):
                out.append(Cause("history", f"opponent {opp.name} ({opp.id}) with an earlier "
                                 f"history of only {kind} ({kind} = games = {orec.games}), which "
                                 f"the file does not show: it gives this player {_fmt(value)} and "
                                 f"that opponent their published {own:g} ({_fmt(theirs)}, "
                                 "special formula)", value, e.post, posts=res))
    return out


def _history_kinds(rec) -> list[str]:
    """The hidden histories worth trying for a record: only wins, only
    losses (not the one it already has; none without earlier games)."""
    if rec is None or rec.games <= 0:
        return []
    return [k for k in ("wins", "losses")
            if not (k == "wins" and rec.all_wins) and not (k == "losses" and rec.all_losses)]


def _history_variant(variants: _Variants, section: str, system: str, pair: int,
                     kind: str) -> Optional[PrintedPosts]:
    """The event re-rated with player ``pair``'s earlier ``system`` games all
    wins or all losses (computed once, whoever asks)."""
    key = ("history", section, system, pair, kind)
    if key in variants._cache:  # no copy of the event to build
        return variants._cache[key]
    if _page_record(variants.event, section, pair, system) is None:
        return None

    def change(s):
        r = s.player(pair).ratings[system]
        r.wins, r.draws, r.losses = (r.games, 0, 0) if kind == "wins" else (0, 0, r.games)
    ev = _player_event(variants.event, section, change)
    return variants.rate(key, event=ev)
