"""Re-rating published results and finding the causes of what is not
reproduced: each cause a variant of the rating that reproduces it."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
import math
from dataclasses import dataclass, field
from typing import Optional

from uschess.apps.audit.alternate import Inputs, alternate
from uschess.apps.audit.cause import (Cause, PrintedPosts, count_reproduced, post_of, printed_value,
                                      within)
from uschess.apps.audit.corrected import InferredCorrection, section_games
from uschess.apps.audit.hidden import counts_reproducing, infer_histories
from uschess.apps.audit.history_again import histories_again
from uschess.apps.audit.initial_games import initial_counts_again
from uschess.apps.audit.infer import (explain_reproduced, initialization_causes,
                                      restate_inferred_causes)
from uschess.apps.audit.k_exception import k_exception_causes
from uschess.apps.audit.own_history import own_histories
from uschess.apps.audit.page_chain import PageChain, SectionsApart, rate_published
from uschess.apps.audit.published import PublishedEntry, PublishedResults
from uschess.apps.audit.rescored import rescored_cells, scored_event
from uschess.apps.audit.tradeoff import take_net_gains, tradeoff_causes
from uschess.apps.audit.verdict import Verdict, assign_verdicts, verdict_counts
from uschess.apps.audit.zero_games import zero_games_causes
from uschess.apps.report import explain_player
from uschess.calendar.reform import reform_from_dict
from uschess.calendar.rulebook import RuleBook
from uschess.errors import InputError
from uschess.formulas import n_star
from uschess.io.formats.msa import ESTABLISHED_GAMES
from uschess.model import Event
from uschess.rating.chain import Chain
from uschess.rating.pipeline import RatingOptions
from uschess.rating.results import EventResult, PlayerResult, SectionResult

#: Best explanation first: inputs the page cannot show (and the page's own
#: Rated date) before another value of a rule for one player.
CAUSE_ORDER = ("floor", "initialization", "zero_games", "known_on", "chaining", "corrected", "scored_cells", "games",
               "rounding", "history", "tradeoff", "bonus_multiplier", "k_exception", "effective_games", "reading")



@dataclass
class AuditRow:
    entry: PublishedEntry
    section: Optional[SectionResult]
    result: Optional[PlayerResult]
    computed: Optional[float]
    reproduced: bool
    causes: list[Cause] = field(default_factory=list)
    problem: Optional[str] = None  # why no rating was computed
    explain: Optional[str] = None
    #: the post with the initial ratings inferred from the page (None when
    #: none were inferred for the event)
    with_inferred: Optional[float] = None
    #: what the evidence for the published rating is worth
    #: (:mod:`uschess.apps.audit.verdict`)
    verdict: Optional[Verdict] = None

    @property
    def diff(self) -> Optional[float]:
        return None if self.computed is None else self.computed - self.entry.post

    @property
    def warnings(self) -> list[str]:
        return list(self.result.warnings) if self.result is not None else []

    def as_dict(self) -> dict:
        e = self.entry
        return {"id": e.id, "system": e.system, "published": e.post, "computed": self.computed,
                "diff": self.diff, "causes": [c.as_dict() for c in self.causes],
                "reproduced": self.reproduced, "section": e.section, "pair": e.pair,
                "name": e.name, "published_pre": e.pre,
                "pre": self.result.pre if self.result is not None else None,
                "warnings": self.warnings, "problem": self.problem, "explain": self.explain,
                "with_inferred": self.with_inferred,
                "verdict": self.verdict.as_dict() if self.verdict is not None else None}


@dataclass
class Audit:
    published: PublishedResults
    result: EventResult
    rows: list[AuditRow]
    tolerance: float
    known_on: Optional[_dt.date] = None
    readings: dict = field(default_factory=dict)
    #: whole-event variants tried that reproduce more published ratings than
    #: the rules in force: (what, how many reproduced), best first
    variants: list = field(default_factory=list)
    #: initial ratings and earlier histories the page cannot show, solved
    #: from its published posts (infer.Inferred, hidden.InferredHistory)
    inferred: list = field(default_factory=list)
    #: how many are reproduced with them
    reproduced_inferred: Optional[int] = None
    #: section chaining: printed pre-event ratings kept over the earlier
    #: section's result (page_chain.Overruled), and (section, system, id)
    #: whose pre came from an earlier section
    overruled: list = field(default_factory=list)
    chained: list = field(default_factory=list)

    def by_section(self) -> list[tuple[str, str, int, int]]:
        """(section, system, reproduced, total) in page order."""
        out: dict = {}
        for r in self.rows:
            key = (r.entry.section, r.entry.system)
            n, m = out.get(key, (0, 0))
            out[key] = (n + r.reproduced, m + 1)
        return [(sec, system, n, m) for (sec, system), (n, m) in out.items()]

    @property
    def total(self) -> int:
        return len(self.rows)

    @property
    def reproduced(self) -> int:
        return sum(1 for r in self.rows if r.reproduced)

    @property
    def mismatches(self) -> list[AuditRow]:
        return [r for r in self.rows if not r.reproduced]

    def summary_line(self) -> str:
        tol = f"{self.tolerance:g} point{'s' if self.tolerance != 1 else ''}"
        explained = sum(1 for r in self.mismatches if r.causes)
        text = f"{self.reproduced} of {self.total} reproduced within {tol}"
        if self.mismatches:
            text += f"; {explained} of the other {len(self.mismatches)} with a likely cause"
        head = self.verdict_line()
        return text if head is None else f"{head}; {text}"

    def verdict_counts(self) -> dict:
        """Verdict -> how many published ratings have it."""
        return verdict_counts(self.rows)

    def methods(self) -> list[str]:
        """How the posts reproduced only with inferred inputs were withheld."""
        return sorted({r.verdict.method for r in self.rows
                       if r.verdict is not None and r.verdict.method})

    def verdict_line(self) -> Optional[str]:
        """The headline: confirmed + explained of all, then the rest."""
        if any(r.verdict is None for r in self.rows) or not self.rows:
            return None
        n = self.verdict_counts()
        text = (f"{n['confirmed'] + n['explained']} of {self.total} confirmed or explained "
                f"({n['confirmed']} confirmed, {n['explained']} explained out of sample)")
        rest = [f"{n['fitted']} fitted", f"{n['floor']} held by a floor the page cannot show",
                f"{n['unexplained']} unexplained"]
        return text + ", " + ", ".join(rest)

    def verdicts_dict(self) -> dict:
        """The verdict counts, the headline (confirmed + explained) and the
        in-sample count beside them, as the JSON report gives them."""
        n = self.verdict_counts()
        return {**n, "headline": n["confirmed"] + n["explained"], "total": self.total,
                "in_sample": (self.reproduced_inferred if self.reproduced_inferred is not None
                              else self.reproduced),
                "out_of_sample_methods": self.methods()}

    def warning_groups(self) -> list[tuple[str, list[AuditRow]]]:
        """Each warning a computed rating depended on, with the players it touched."""
        groups: dict[str, list] = {}
        for r in self.rows:
            for w in r.warnings:
                groups.setdefault(w, []).append(r)
        return list(groups.items())

    def sections(self) -> list[dict]:
        return [{"name": s.section.name, "system": s.system, "rules_on": s.rules.on.isoformat(),
                 "known_on": s.rules.known_on.isoformat() if s.rules.known_on else None,
                 "fingerprint": s.rules.fingerprint, "bonus_multiplier": s.rules.p.bonus_multiplier,
                 "warnings": list(s.warnings) + s.rules.warnings()} for s in self.result.sections]

    def as_dict(self) -> dict:
        return {"reproduced": self.reproduced, "total": self.total,
                "players": [r.as_dict() for r in self.rows],
                "summary": self.summary_line(), "source": self.published.source,
                "format": self.published.kind, "tolerance": self.tolerance,
                "known_on": self.known_on.isoformat() if self.known_on else None,
                "readings": dict(self.readings), "notes": list(self.published.notes),
                "sections": self.sections(),
                "variants": [{"variant": v, "reproduced": n} for v, n in self.variants],
                "by_section": [{"section": sec, "system": system, "reproduced": n, "total": m}
                               for sec, system, n, m in self.by_section()],
                "inferred": [i.as_dict() for i in self.inferred],
                "chaining": {"chained": [{"section": a, "system": b, "id": c}
                                         for a, b, c in self.chained],
                             "overruled": [dataclasses.asdict(o) for o in self.overruled]},
                "reproduced_inferred": self.reproduced_inferred,
                "rated_on": (self.published.rated_on.isoformat()
                             if self.published.rated_on else None),
                "warnings": [{"warning": w, "players": [r.entry.id for r in rows]}
                             for w, rows in self.warning_groups()],
                "verdicts": self.verdicts_dict()}


def _history_values(book: RuleBook, name: str) -> list:
    out = []
    for e in book.timelines[name].entries:
        if e.value not in out:
            out.append(e.value)
    return out


class _Variants:
    """Re-ratings of the event under variants, each computed once."""

    def __init__(self, event: Event, options: RatingOptions, book: RuleBook,
                 rated_on: Optional[_dt.date] = None, games_printed: bool = True):
        self.event, self.options, self.book = event, options, book
        self.rated_on = rated_on
        #: False where the source prints no game count for established
        #: players (an MSA page: they are taken as ESTABLISHED_GAMES)
        self.games_printed = games_printed
        #: set by the audit: (section, system, id) -> published post, and the
        #: (section, system, pair) whose post is not reproduced
        self.published_posts: dict = {}
        self.missed: set = set()
        self._cache: dict = {}
        self.labels: dict = {}  # whole-event variants: key -> what it is
        #: the page's N and R cells against an opponent (published.ScoredCell)
        self.scored: list = []
        #: set by the audit: every row (what a whole-event variant loses)
        self.rows: list = []

    def rate(self, key, *, event: Optional[Event] = None, label: Optional[str] = None,
             chain=None, **changes) -> Optional[PrintedPosts]:
        """The printed posts of the event (or ``event``) re-rated with
        ``changes`` to the options; ``chain`` is the chain to rate it through
        (default: a PageChain).  Only the posts are kept: an audit tries
        hundreds of variants on a large page."""
        if label is not None and event is None:
            self.labels[key] = label
        if key not in self._cache:
            opts = RatingOptions(rules_on=self.options.rules_on, known_on=self.options.known_on,
                                 readings=dict(self.options.readings), edition=self.options.edition,
                                 reform=self.options.reform, trace=False)
            for name, value in changes.items():
                setattr(opts, name, value)
            try:
                if chain is not None:
                    got = chain.rate_event(event or self.event, opts, self.book)
                else:
                    got = rate_published(event or self.event, opts, book=self.book)
                self._cache[key] = PrintedPosts.of(got)
            except InputError:
                self._cache[key] = None  # a variant that cannot be rated reproduces nothing
        return self._cache[key]

    def reform(self, name: str, value, label: str) -> Optional[PrintedPosts]:
        raw = {"name": label, "parameters": {name: [{"from": self.book.earliest().isoformat(),
                                                     "value": value}]}}
        return self.rate(("reform", name, json.dumps(value, sort_keys=True, default=str)),
                         label=label, reform=reform_from_dict(raw, source="audit", book=self.book))

    def whole_event(self) -> list[tuple[str, PrintedPosts]]:
        return [(label, self._cache[key]) for key, label in self.labels.items()
                if self._cache.get(key) is not None]


def _fmt(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.2f}"


def _personal_floors(rules) -> bool:
    """Whether the floors plugin in force has the personal absolute floor
    (asked of the plugin, not of its name)."""
    plugin = RuleBook.load().registered.get(rules.plugins["floors"].value)
    return bool(getattr(plugin, "personal", False))


def floor_kinds(level: float, system: str, params, personal_floors: bool,
                af: Optional[float] = None) -> list[str]:
    """The kinds of floor that can hold a rating at ``level`` in ``system``
    under resolved parameters ``params`` (a mapping name -> value):
    established floor levels, a prize floor, the OLM floor (100-point levels)
    and the personal absolute floor (base < level <= cap, when
    ``personal_floors`` are in force).  ``af`` is the player's own AF when
    their record gives it (then only that value counts as an AF)."""
    kinds = []
    if level != int(level):
        return kinds
    if level % 100 == 0:
        drop = params.get("floor_drop", 200)
        if level in (params.get("floor_levels") or []):
            kinds.append(f"an established floor (a highest established rating of at least "
                         f"{level + drop:g})")
        if level <= (params.get("prize_floor_top") or 0):
            kinds.append("a prize floor")
        olm = params.get("olm")
        if olm and level == olm["floor"] and system in (params.get("olm_systems") or []):
            kinds.append("the Original Life Master floor")
        if not kinds:
            kinds.append("a 100-point floor level")
    pf = params.get("personal_floor")
    if (personal_floors and pf and system in (params.get("personal_floor_systems") or [])
            and pf["base"] < level <= pf["cap"] and (af is None or af == level)):
        kinds.append(f"the personal absolute floor (AF = {level:g})" if af == level else
                     f"a personal absolute floor of {level:g} ({_af_counts(level, pf)}, a record "
                     "the file does not give)")
    return kinds


def _af_counts(level: float, pf: dict) -> str:
    """The rated-game counts that give a personal absolute floor of ``level``
    (000 sec. 5: AF = base + win N_W + draw N_D + event N_R, at most cap)."""
    need = int(level - pf["base"])
    w, d, e = pf["win"], pf["draw"], pf["event"]
    wins = need // w
    rest = need - wins * w
    draws = rest // d
    events = rest - draws * d
    example = f"for example {wins} wins, {draws} draws and {events // e} events"
    return (f"AF = {pf['base']:g} + {w:g} x wins + {d:g} x draws + {e:g} x events with 3+ rated "
            f"games, so {w:g}N_W + {d:g}N_D + {e:g}N_R = {need} ({example}, or any other "
            "counts that add up so)")


def _floor_detail(level: float, computed: float, kinds: list[str]) -> str:
    return (f"published {level:g} is a floor level and the computed {computed:.2f} is below it: "
            f"held by {' or '.join(kinds)}, which the file cannot show (floors bind only the "
            "final rating)")


def _floor_cause(row: AuditRow, tol: float) -> Optional[Cause]:
    e, pr, sr = row.entry, row.result, row.section
    level = e.post
    if row.computed is None or not row.computed < level - tol:
        return None
    rec = pr.record_after
    af = None
    pf_res = sr.rules.params.get("personal_floor")  # not in force before 2008
    pf = pf_res.value if pf_res is not None else None
    if (pf and rec is not None and rec.wins is not None and rec.draws is not None
            and rec.events3 is not None):
        af = min(pf["base"] + pf["win"] * rec.wins + pf["draw"] * rec.draws
                 + pf["event"] * rec.events3, pf["cap"])
    params = {name: res.value for name, res in sr.rules.params.items()}
    kinds = floor_kinds(level, e.system, params, _personal_floors(sr.rules), af)
    if not kinds:
        return None
    return Cause("floor", _floor_detail(level, row.computed, kinds), level, level)


def _player_event(event: Event, section: str, change) -> Event:
    """A copy of ``event`` in which ``change`` may edit the records of one
    section's players (only those are copied; rounds and the rest are shared
    and must not be edited)."""
    sections = []
    for sec in event.sections:
        if sec.name == section:
            players = [dataclasses.replace(p, ratings={k: dataclasses.replace(v)
                                                       for k, v in p.ratings.items()})
                       for p in sec.players]
            sec = dataclasses.replace(sec, players=players)
            change(sec)
        sections.append(sec)
    return dataclasses.replace(event, sections=sections)


def _page_record(event: Event, section: str, pair: int, system: str):
    """Player ``pair``'s own record in ``system`` as the page gives it (None
    for a player unrated there: a record an earlier section of the event
    gives them through the chain is not the page's, and no variant edits it)."""
    for sec in event.sections:
        if sec.name == section:
            return sec.player(pair).ratings.get(system)
    return None


def _causes(row: AuditRow, variants: _Variants, book: RuleBook, tol: float) -> list[Cause]:
    e, sr = row.entry, row.section
    out: list[Cause] = []
    floor = _floor_cause(row, tol)
    if floor:
        out.append(floor)
    p = sr.rules.p

    for b in sorted(_history_values(book, "bonus_multiplier")):
        if b == p.bonus_multiplier:
            continue
        value = post_of(variants.reform("bonus_multiplier", b, f"B = {b:g}"),
                      e.section, e.system, e.id)
        if within(value, e.post, tol):
            out.append(Cause("bonus_multiplier", f"bonus multiplier B = {b:g} (the rules in force "
                             f"use B = {p.bonus_multiplier:g}) gives {_fmt(value)}", value, e.post))

    out.extend(k_exception_causes(row, variants, variants.rows, tol))

    for entry in book.timelines["nstar"].entries:
        if entry.value == p.nstar:
            continue
        value = post_of(variants.reform("nstar", entry.value,
                                      f"N* in force from {entry.effective.isoformat()}"),
                      e.section, e.system, e.id)
        if within(value, e.post, tol):
            ns = entry.value
            out.append(Cause("effective_games",
                             f"the effective-games formula in force from {entry.effective.isoformat()} "
                             f"[{entry.source.cite()}]: N* = {ns['cap']:g}/sqrt({ns['a']:g} + "
                             f"{ns['b']:g}({ns['center']:g} - R0)^2), gives {_fmt(value)}",
                             value, e.post))

    out.extend(_established_games(row, variants, tol))
    out.extend(_contradicted_games(row, variants, tol))
    out.extend(_rounding(row, variants, tol))
    out.extend(_history(row, variants, tol))
    out.extend(_chaining(row, variants, tol))
    out.extend(_scored_cells(row, variants, tol))

    for cid, conflict in book.conflicts.items():
        current = variants.options.readings.get(cid, conflict.default)
        for reading in conflict.readings:
            if reading == current:
                continue
            readings = {**variants.options.readings, cid: reading}
            alt = book.rules(sr.rules.on, known_on=variants.options.known_on, readings=readings,
                             edition=variants.options.edition, reform=variants.options.reform)
            if alt.fingerprint == sr.rules.fingerprint:
                continue
            value = post_of(variants.rate(("reading", cid, reading), readings=readings,
                                        label=f"reading {cid}={reading}"),
                          e.section, e.system, e.id)
            if within(value, e.post, tol):
                out.append(Cause("reading", f"conflict '{cid}' read as '{reading}' "
                                 f"({conflict.readings[reading]}) gives {_fmt(value)}", value, e.post))

    if variants.options.known_on is None:
        when = variants.rated_on or variants.event.end
        alt = book.rules(sr.rules.on, known_on=when, readings=variants.options.readings,
                         edition=variants.options.edition, reform=variants.options.reform)
        if alt.fingerprint != sr.rules.fingerprint:
            value = post_of(variants.rate(("known_on", when), known_on=when,
                                        label=f"as known on {when.isoformat()}"),
                          e.section, e.system, e.id)
            if within(value, e.post, tol):
                changed = _changed_rules(sr.rules, alt)
                what = ("the page's Rated (or Re-Rated) date" if variants.rated_on
                        else "the event's end")
                out.append(Cause("known_on", f"the rules as known on {what} "
                                 f"({when.isoformat()}) give {_fmt(value)}: the rules in force "
                                 f"were changed after that date by a retroactive decision"
                                 + (f" ({changed})" if changed else ""), value, e.post))
    return out


def _changed_rules(now, then) -> str:
    """What differs between two resolved rule sets: 'B = 12 -> 10 (decided
    2025-06-03)' and the like."""
    parts = []
    for name, res in now.params.items():
        old = then.params.get(name)
        if old is not None and old.value != res.value:
            decided = getattr(res.entry, "decided_on", None)
            parts.append(f"{name} {old.value!r} -> {res.value!r} [{res.entry.source.cite()}]"
                         + (f", decided {decided}" if decided else ""))
    return "; ".join(parts)


#: Sources that print no game count for an established player: every page
#: layout (the MSA page and table, the TD crosstable's ``1510*``, the
#: project's own export); a published-results file gives the counts.
GAMES_NOT_PRINTED = ("msa-html", "msa-text", "msa-table", "msa", "td", "export")


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
                best = (value, d_own, d_opp)
    if best is None:
        return []
    value, d_own, d_opp = best
    parts = []
    if d_own:
        parts.append(f"the player's pre-event rating {d_own:+g}")
    if d_opp:
        parts.append(f"the opponents' pre-event ratings {d_opp:+g}")
    return [Cause("rounding", f"published pre-event ratings are rounded: with {' and '.join(parts)} "
                  f"the post is {_fmt(value)}", value, e.post)]


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
        value = post_of(variants.rate(("chaining", key), chain=chain, label=what),
                      e.section, e.system, e.id)
        if within(value, e.post, tol):
            out.append(Cause("chaining", f"with {what}, the post is {_fmt(value)}", value,
                             e.post))
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
        value = post_of(_scored_variant(variants, e.section, pair), e.section, e.system, e.id)
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
                         f"{_fmt(value)}", value, e.post))
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
                  f"the post is {_fmt(at(best))}", at(best), e.post)]


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
                           "printed": [rec.games, e.post_games]})]


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
        value = post_of(_history_variant(variants, e.section, e.system, pr.pair, kind),
                      e.section, e.system, e.id)
        if within(value, e.post, tol):
            out.append(Cause("history", f"an earlier history of only {kind} ({kind} = games = "
                             f"{rec.games}), which the file does not show, gives {_fmt(value)} "
                             "(special formula)", value, e.post))
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
                                 "special formula)", value, e.post))
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


def audit(published: PublishedResults, *, tolerance: float = 1.0, known_on=None,
          readings: Optional[dict] = None, book: Optional[RuleBook] = None,
          options: Optional[RatingOptions] = None, verdicts: bool = True) -> Audit:
    """Re-rate the published event and explain every rating not reproduced
    within ``tolerance`` (see the module text).  ``options`` (the command
    line's rules options) replaces ``known_on`` and ``readings``.
    ``verdicts``: give each published rating its verdict
    (:mod:`uschess.apps.audit.verdict`; the audits of variants of the event
    made inside an audit need none)."""
    if options is not None:
        known_on, readings = options.known_on, dict(options.readings)
    if isinstance(tolerance, bool) or not isinstance(tolerance, (int, float)) \
            or not math.isfinite(tolerance) or tolerance < 0:
        raise InputError(f"tolerance {tolerance!r} must be a number of points >= 0")
    book = book or RuleBook.load()
    readings = dict(readings or {})
    book.check_readings(readings)
    options = (RatingOptions(known_on=known_on, readings=readings, trace=True) if options is None
               else dataclasses.replace(options, readings=readings, trace=True))
    chain = PageChain()
    result = rate_published(published.event, options, book=book, chain=chain)
    index = {(sr.section.name, sr.system): sr for sr in result.sections}
    variants = _Variants(published.event, options, book, published.rated_on,
                         games_printed=published.kind not in GAMES_NOT_PRINTED)
    variants.scored = list(published.scored)
    rows = []
    for entry in published.entries:
        sr = index.get((entry.section, entry.system))
        pr = None
        if sr is not None:
            pr = next((x for x in sr.players if x.id == entry.id), None)
        if sr is None or pr is None:
            systems = [s.system for s in result.sections if s.section.name == entry.section]
            problem = (f"section {entry.section!r} is not rated in {entry.system} under the rules "
                       f"in force (rated in: {', '.join(systems) or 'none'})")
            rows.append(AuditRow(entry, sr, pr, None, False, problem=problem))
            continue
        computed = printed_value(pr)
        row = AuditRow(entry, sr, pr, computed, within(computed, entry.post, tolerance))
        if computed is None:
            row.problem = "unrated and played no rated game: no post-event rating"
        rows.append(row)
    variants.published_posts = {(r.entry.section, r.entry.system, r.entry.id): r.entry.post
                                for r in rows}
    variants.missed = {(r.entry.section, r.entry.system, r.result.pair) for r in rows
                       if not r.reproduced and r.result is not None}
    variants.rows = rows
    for row in rows:
        if not row.reproduced and row.result is not None:
            row.explain = explain_player(EventResult(result.event, [row.section]), row.entry.id)
            if row.computed is not None:
                causes = _causes(row, variants, book, tolerance)
                row.causes = sorted(causes, key=lambda c: CAUSE_ORDER.index(c.cause))
    solved: dict = {}
    inferred, with_inferred = initialization_causes(published, rows, result, options, book,
                                                    tolerance, solved=solved)
    histories, with_histories = infer_histories(
        published, rows, options, book, tolerance, solved.get("options"), with_inferred,
        lambda r: int(r.section.rules.p.established_games), variants.games_printed)
    if histories:
        inputs = alternate(published, rows, options, book, tolerance,
                           Inputs(solved.get("values", {}), solved.get("games", {}),
                                  list(inferred), histories, with_histories),
                           lambda r: int(r.section.rules.p.established_games),
                           variants.games_printed)
    else:
        inputs = Inputs(solved.get("values", {}), solved.get("games", {}), list(inferred), [],
                        with_inferred)
    if not inputs.initial:
        # the initial ratings stayed at the rules' values (with the histories
        # too, where there are some): the searches below take the sections
        # as having nothing to solve (solving them there again found nothing
        # more on the corpus and cost 9% more CPU)
        inputs.values, inputs.games = {}, {}
    if inputs.initial or inputs.histories:
        inferred, with_inferred = inputs.initial + inputs.histories, inputs.count
    for r in rows:  # a floor that holds the post computed with the inferred values
        if (r.with_inferred is not None and not within(r.with_inferred, r.entry.post, tolerance)
                and r.result is not None and not any(c.cause == "floor" for c in r.causes)):
            cause = _floor_cause(dataclasses.replace(r, computed=r.with_inferred), tolerance)
            if cause is not None:
                cause.detail = ("with the inputs inferred from the page, "
                                + cause.detail)
                r.causes.append(cause)
    if inputs.values and inputs.count is not None and inputs.count < len(rows):
        tradeoff_causes(published, rows, options, book, tolerance, inputs)  # updates inputs
        with_inferred = own_histories(published, rows, options, book, tolerance, inputs)
        inferred = inputs.initial + inputs.histories
    if with_inferred is None or with_inferred < len(rows):
        with_inferred = histories_again(published, rows, options, book, tolerance, inputs)
        inferred = inputs.initial + inputs.histories
    if with_inferred is not None and with_inferred < len(rows):
        with_inferred = initial_counts_again(published, rows, options, book, tolerance, inputs)
        inferred = inputs.initial + inputs.histories
    gained = take_net_gains(published, rows, options, book, tolerance, inputs)
    if gained is not None:
        with_inferred = gained
        inferred = inputs.initial + inputs.histories
    restate_inferred_causes(rows, inferred, tolerance)
    zero = zero_games_causes(published, rows, options, book, tolerance, inputs, _player_event)
    if zero is not None:  # a pre printed on 0 games, rated as a rating
        inferred, with_inferred = list(inferred) + [zero], zero.reproduced
    for r in rows:
        r.causes.sort(key=lambda c: CAUSE_ORDER.index(c.cause))
    better = []
    base_count = sum(1 for r in rows if r.reproduced)
    for label, res in variants.whole_event():
        n = count_reproduced(res, published.entries, tolerance)
        if n > base_count:
            better.append((label, n))
    better.sort(key=lambda x: -x[1])
    a = Audit(published, result, rows, float(tolerance), known_on, readings, better,
              inferred, with_inferred)
    a.overruled = chain.overruled
    a.chained = chain.chained
    if published.scored:  # the N/R cells as games, the hidden inputs inferred again
        again = dict(tolerance=tolerance, known_on=known_on, readings=readings, book=book,
                     options=dataclasses.replace(options, trace=False), verdicts=False)
        rescored_cells(a, lambda ev: audit(dataclasses.replace(
            published, event=ev, scored=[], corrected=[]), **again), _player_event)
        for r in rows:
            r.causes.sort(key=lambda c: CAUSE_ORDER.index(c.cause))
    if published.corrected:
        _corrected(a, dict(tolerance=tolerance, known_on=known_on, readings=readings, book=book,
                           options=options, verdicts=False))
    explain_reproduced(rows, a.inferred, tolerance)
    if verdicts:
        assign_verdicts(a, page=published.kind != "json")
    return a


def _corrected(a: Audit, how: dict) -> None:
    """For each section the page says was corrected after it was rated
    (:mod:`uschess.apps.audit.corrected`): the event audited again with each
    game of the section rated with another result (the inputs the page
    cannot show inferred again with it); the game whose audit reproduces the
    most published ratings, more than ``a`` does, is kept as an inferred
    input: ``a``'s posts with inferred inputs become that audit's, and each
    post it reproduces that ``a`` misses gets the cause ``corrected``."""
    published, tol = a.published, a.tolerance
    how = dict(how, options=dataclasses.replace(how["options"], trace=False))
    base = published.event  # with the games kept for the sections before
    for name in published.corrected:
        sec = next((s for s in published.event.sections if s.name == name), None)
        if sec is None:
            continue
        shown = a.reproduced_inferred if a.reproduced_inferred is not None else a.reproduced
        best = None
        for g in section_games(sec):
            event = _player_event(base, name, g.apply)
            try:
                alt = audit(dataclasses.replace(published, event=event, corrected=[]), **how)
            except InputError:
                continue
            n = alt.reproduced_inferred if alt.reproduced_inferred is not None else alt.reproduced
            if n > (best[2] if best else shown):
                best = (g, alt, n)
        if best is None:
            continue
        g, alt, n = best
        base = _player_event(base, name, g.apply)
        record = InferredCorrection(name, g.index + 1, g.pair, sec.player(g.pair).name,
                                    g.opponent, sec.player(g.opponent).name, g.shown, g.result,
                                    n, shown)
        for row, other in zip(a.rows, alt.rows):
            value = other.with_inferred if other.with_inferred is not None else other.computed
            row.with_inferred = value
            if not row.reproduced and within(value, row.entry.post, tol):
                row.causes.append(Cause(
                    "corrected", f"the page says section {name} was corrected after it was "
                    f"rated: with {g.describe(sec)}, as first rated"
                    + (" (and the inputs the page cannot show inferred with it)"
                       if alt.inferred else "") + f", the post is {_fmt(value)} ({n} of the "
                    f"event's {len(a.rows)} published ratings reproduced, {shown} with the "
                    f"games shown)", value, row.entry.post,
                    variant={"section": name, "round": g.index + 1, "pair": g.pair,
                             "opponent": g.opponent, "shown": g.shown, "rated": g.result}))
                row.causes.sort(key=lambda c: CAUSE_ORDER.index(c.cause))
        a.inferred = [i for i in a.inferred if isinstance(i, InferredCorrection)] + [record] \
            + [i for i in alt.inferred if not isinstance(i, InferredCorrection)]
        a.reproduced_inferred = n
