"""The audit as a pipeline of named stages over one model of the page.

:func:`audit` rates the published event under the rules in force (the
``rate`` stage builds :class:`AuditModel`: the rows, the variants, the
chain) and then runs :data:`STAGES` in order, each a function of the model
named by what it infers or tries:

``causes``
    the registered causes of each post missed (:mod:`uschess.apps.audit.causes`);
``initial ratings``
    the unrated players' initial ratings solved (:mod:`uschess.apps.audit.infer`);
``histories``
    hidden earlier histories, alternated with the initial ratings
    (:mod:`uschess.apps.audit.hidden`, :mod:`uschess.apps.audit.alternate`);
``floors with inferred``
    a floor under the post computed with the inferred inputs;
``trade-offs``
    one initial rating moved alone, and a provisional player's own history
    (:mod:`uschess.apps.audit.tradeoff`, :mod:`uschess.apps.audit.own_history`);
``histories again``, ``initial counts again``, ``net gains``
    the searches with the initial ratings solved again
    (:mod:`uschess.apps.audit.history_again`,
    :mod:`uschess.apps.audit.initial_games`, :func:`~uschess.apps.audit.net_gains.take_net_gains`);
``one story per person``
    one birth date (or adult flag) for all of a player's systems
    (:mod:`uschess.apps.audit.person`);
``zero games``
    a pre printed on 0 games rated as a rating (:mod:`uschess.apps.audit.zero_games`);
``whole event``
    the whole-event variants that reproduce more than the rules in force;
``scored cells``, ``corrected``
    the event audited again with the page's N/R cells as games, or a
    corrected section's game rated otherwise (:mod:`uschess.apps.audit.rescored`,
    :mod:`uschess.apps.audit.corrected`);
``verdicts``
    a verdict per published rating (:mod:`uschess.apps.audit.verdict`);
``findings``
    every cause's free values and evidence, a finding per post missed
    (:mod:`uschess.apps.audit.findings`).
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Callable, Optional

from uschess.apps.audit.alternate import alternate
from uschess.apps.audit.inputs import Inputs
from uschess.apps.audit.cause import Cause, _fmt, count_reproduced, printed_value, within
from uschess.apps.audit.causes import cause_rank, row_causes
from uschess.apps.audit.corrected import InferredCorrection, section_games
from uschess.apps.audit.findings import (attach_inferred_evidence, dated_findings,
                                         put_dated_first, row_finding, state_free_values)
from uschess.apps.audit.floors import _floor_cause
from uschess.apps.audit.hidden import infer_histories
from uschess.apps.audit.history_again import histories_again
from uschess.apps.audit.infer import (explain_reproduced, initialization_causes,
                                      restate_inferred_causes)
from uschess.apps.audit.initial_games import initial_counts_again
from uschess.apps.audit.own_history import own_histories
from uschess.apps.audit.page_chain import PageChain, rate_published
from uschess.apps.audit.person import one_story_per_person
from uschess.apps.audit.published import PublishedResults, load_published
from uschess.apps.audit.records import Audit, AuditRow
from uschess.apps.audit.rescored import rescored_cells
from uschess.apps.audit.net_gains import take_net_gains
from uschess.apps.audit.tradeoff import tradeoff_causes
from uschess.apps.audit.variants import GAMES_NOT_PRINTED, _player_event, _Variants
from uschess.apps.audit.verdict import assign_verdicts
from uschess.apps.audit.zero_games import zero_games_causes
from uschess.apps.report import explain_player
from uschess.calendar.rulebook import RuleBook
from uschess.errors import InputError
from uschess.rating.pipeline import RatingOptions
from uschess.rating.results import EventResult


@dataclass
class AuditModel:
    """One audit's page as the stages see it: what was published, how it
    is rated, the rows, the variants rated so far and what is inferred."""

    published: PublishedResults
    options: RatingOptions
    book: RuleBook
    tol: float
    known_on: object
    readings: dict
    chain: PageChain
    result: EventResult
    rows: list
    variants: _Variants
    #: the Audit the stages fill in (built with the rows)
    audit: Audit
    verdicts: bool = True
    solved: dict = field(default_factory=dict)
    inputs: Optional[Inputs] = None
    inferred: list = field(default_factory=list)
    with_inferred: Optional[int] = None
    #: the variant keys of the dated findings
    dated_keys: frozenset = frozenset()

    def established(self, r) -> int:
        return int(r.section.rules.p.established_games)

    def again(self) -> dict:
        """The arguments of an audit of a variant of the event."""
        return dict(tolerance=self.tol, known_on=self.known_on, readings=self.readings,
                    book=self.book, options=dataclasses.replace(self.options, trace=False),
                    verdicts=False)


def _sort_causes(rows) -> None:
    for r in rows:
        r.causes.sort(key=cause_rank)


def _rows(published: PublishedResults, result: EventResult, tol: float) -> list[AuditRow]:
    """A row per published rating, with the post computed under the rules
    in force (or why none was)."""
    index = {(sr.section.name, sr.system): sr for sr in result.sections}
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
        row = AuditRow(entry, sr, pr, computed, within(computed, entry.post, tol))
        if computed is None:
            row.problem = "unrated and played no rated game: no post-event rating"
        rows.append(row)
    return rows


def _rate(published: PublishedResults, tolerance, known_on, readings, book, options,
          verdicts: bool) -> AuditModel:
    """The ``rate`` stage: the event rated under the rules in force."""
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
    variants = _Variants(published.event, options, book, published.rated_on,
                         games_printed=published.kind not in GAMES_NOT_PRINTED)
    variants.scored = list(published.scored)
    rows = _rows(published, result, tolerance)
    variants.published_posts = {(r.entry.section, r.entry.system, r.entry.id): r.entry.post
                                for r in rows}
    variants.missed = {(r.entry.section, r.entry.system, r.result.pair) for r in rows
                       if not r.reproduced and r.result is not None}
    variants.rows = rows
    a = Audit(published, result, rows, float(tolerance), known_on, readings)
    a.overruled, a.chained = chain.overruled, chain.chained
    return AuditModel(published, options, book, tolerance, known_on, readings, chain, result,
                      rows, variants, a, verdicts)


def _causes(m: AuditModel) -> None:
    for row in m.rows:
        if not row.reproduced and row.result is not None:
            row.explain = explain_player(EventResult(m.result.event, [row.section]),
                                         row.entry.id)
            if row.computed is not None:
                row.causes = row_causes(row, m.variants, m.book, m.tol)


def _initial_ratings(m: AuditModel) -> None:
    m.inferred, m.with_inferred = initialization_causes(
        m.published, m.rows, m.result, m.options, m.book, m.tol, solved=m.solved)


def _histories(m: AuditModel) -> None:
    solved = m.solved
    histories, with_histories = infer_histories(
        m.published, m.rows, m.options, m.book, m.tol, solved.get("options"), m.with_inferred,
        m.established, m.variants.games_printed)
    if histories:
        inputs = alternate(m.published, m.rows, m.options, m.book, m.tol,
                           Inputs(solved.get("values", {}), solved.get("games", {}),
                                  list(m.inferred), histories, with_histories),
                           m.established, m.variants.games_printed)
    else:
        inputs = Inputs(solved.get("values", {}), solved.get("games", {}), list(m.inferred), [],
                        m.with_inferred)
    if not inputs.initial:
        # the initial ratings stayed at the rules' values (with the histories
        # too, where there are some): the later searches take the sections
        # as having nothing to solve
        inputs.values, inputs.games = {}, {}
    if inputs.initial or inputs.histories:
        m.inferred, m.with_inferred = inputs.initial + inputs.histories, inputs.count
    m.inputs = inputs


def _floors_with_inferred(m: AuditModel) -> None:
    """A floor that holds the post computed with the inferred values."""
    for r in m.rows:
        if (r.with_inferred is not None and not within(r.with_inferred, r.entry.post, m.tol)
                and r.result is not None and not any(c.cause == "floor" for c in r.causes)):
            cause = _floor_cause(dataclasses.replace(r, computed=r.with_inferred), m.tol)
            if cause is not None:
                cause.detail = "with the inputs inferred from the page, " + cause.detail
                r.causes.append(cause)


def _tradeoffs(m: AuditModel) -> None:
    inputs = m.inputs
    if inputs.values and inputs.count is not None and inputs.count < len(m.rows):
        tradeoff_causes(m.published, m.rows, m.options, m.book, m.tol, inputs)  # updates inputs
        m.with_inferred = own_histories(m.published, m.rows, m.options, m.book, m.tol, inputs)
        m.inferred = inputs.initial + inputs.histories


def _histories_again(m: AuditModel) -> None:
    if m.with_inferred is None or m.with_inferred < len(m.rows):
        m.with_inferred = histories_again(m.published, m.rows, m.options, m.book, m.tol,
                                          m.inputs)
        m.inferred = m.inputs.initial + m.inputs.histories


def _initial_counts_again(m: AuditModel) -> None:
    if m.with_inferred is not None and m.with_inferred < len(m.rows):
        m.with_inferred = initial_counts_again(m.published, m.rows, m.options, m.book, m.tol,
                                               m.inputs)
        m.inferred = m.inputs.initial + m.inputs.histories


def _net_gains(m: AuditModel) -> None:
    gained = take_net_gains(m.published, m.rows, m.options, m.book, m.tol, m.inputs)
    if gained is not None:
        m.with_inferred = gained
        m.inferred = m.inputs.initial + m.inputs.histories
    restate_inferred_causes(m.rows, m.inferred, m.tol)


def _one_story_per_person(m: AuditModel) -> None:
    m.audit.people = one_story_per_person(m)


def _zero_games(m: AuditModel) -> None:
    zero = zero_games_causes(m.published, m.rows, m.options, m.book, m.tol, m.inputs,
                             _player_event)
    if zero is not None:  # a pre printed on 0 games, rated as a rating
        m.inferred, m.with_inferred = list(m.inferred) + [zero], zero.reproduced
    _sort_causes(m.rows)


def _whole_event(m: AuditModel) -> None:
    """The whole-event variants tried that reproduce more than the rules in
    force, best first; what is inferred handed to the Audit."""
    better = []
    base_count = sum(1 for r in m.rows if r.reproduced)
    for label, res in m.variants.whole_event():
        n = count_reproduced(res, m.published.entries, m.tol)
        if n > base_count:
            better.append((label, n))
    better.sort(key=lambda x: -x[1])
    a = m.audit
    a.variants, a.inferred, a.reproduced_inferred = better, m.inferred, m.with_inferred
    dated = dated_findings(m.variants, m.book, m.published.entries, m.tol, count_reproduced)
    a.dated = [d for d, _ in dated]
    m.dated_keys = frozenset(k for _, k in dated)
    put_dated_first(m.rows, m.dated_keys)


def _scored_cells(m: AuditModel) -> None:
    """The N/R cells as games, the hidden inputs inferred again."""
    if m.published.scored:
        again = m.again()
        rescored_cells(m.audit, lambda ev: audit(dataclasses.replace(
            m.published, event=ev, scored=[], corrected=[]), **again), _player_event)
        _sort_causes(m.rows)


def _corrected_stage(m: AuditModel) -> None:
    if m.published.corrected:
        _corrected(m.audit, dict(m.again(), options=m.options))
    explain_reproduced(m.rows, m.audit.inferred, m.tol)


def _verdicts(m: AuditModel) -> None:
    if m.verdicts:
        assign_verdicts(m.audit, page=m.published.kind != "json")


def _findings(m: AuditModel) -> None:
    """The free values and evidence of every cause, a finding per post
    missed (:mod:`uschess.apps.audit.findings`)."""
    state_free_values(m.rows)
    attach_inferred_evidence(m.rows, m.tol)
    for r in m.rows:  # a rule version that fits the whole page is not a value fitted to one post
        for c in r.causes:
            if c.key is not None and c.key in m.dated_keys:
                c.weak = False
    for r in m.rows:
        r.finding, r.finding_causes = row_finding(r, m.dated_keys)


#: The stages after ``rate``, in order, by name.
STAGES: tuple[tuple[str, Callable[[AuditModel], None]], ...] = (
    ("causes", _causes),
    ("initial ratings", _initial_ratings),
    ("histories", _histories),
    ("floors with inferred", _floors_with_inferred),
    ("trade-offs", _tradeoffs),
    ("histories again", _histories_again),
    ("initial counts again", _initial_counts_again),
    ("net gains", _net_gains),
    ("one story per person", _one_story_per_person),
    ("zero games", _zero_games),
    ("whole event", _whole_event),
    ("scored cells", _scored_cells),
    ("corrected", _corrected_stage),
    ("verdicts", _verdicts),
    ("findings", _findings),
)


def audit(published: PublishedResults, *, tolerance: float = 1.0, known_on=None,
          readings: Optional[dict] = None, book: Optional[RuleBook] = None,
          options: Optional[RatingOptions] = None, verdicts: bool = True) -> Audit:
    """Re-rate the published event and explain every rating not reproduced
    within ``tolerance`` (see :mod:`uschess.apps.audit`).  ``options`` (the
    command line's rules options) replaces ``known_on`` and ``readings``.
    ``verdicts``: give each published rating its verdict (the audits of
    variants of the event made inside an audit need none)."""
    m = _rate(published, tolerance, known_on, readings, book, options, verdicts)
    for _name, stage in STAGES:
        stage(m)
    return m.audit


def audit_page(path, *, tolerance: float = 1.0, options: Optional[RatingOptions] = None,
               **reading) -> Audit:
    """Audit one page or published-results file at ``path``: read it
    (:func:`~uschess.apps.audit.published.load_published`, ``reading`` its
    options: ``start``, ``end``, ``time_control``, ``system``, ``adult``,
    ``section``, ``name``) and audit it with the rules ``options``.  The
    report is the Audit's ``as_dict()``: ``summary`` (the headline line),
    ``verdicts`` (the verdict counts, the headline count, the in-sample
    count and the findings counted), ``players``, ``dated_findings`` and
    the rest.  Bad input raises InputError naming the file."""
    return audit(load_published(path, **reading), tolerance=tolerance, options=options)


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
                row.causes.sort(key=cause_rank)
        a.inferred = [i for i in a.inferred if isinstance(i, InferredCorrection)] + [record] \
            + [i for i in alt.inferred if not isinstance(i, InferredCorrection)]
        a.reproduced_inferred = n
