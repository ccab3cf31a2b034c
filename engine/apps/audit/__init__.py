"""Audit published ratings: re-rate an event and explain what differs.

Input is a published result in one of two forms.

**A published crosstable page** in any layout :mod:`uschess.io.formats.pages`
reads (the MSA page saved as HTML or copied to text, a bare MSA table, the TD
crosstable, ``uschess export crosstable`` output), turned into an event by
:mod:`uschess.io.formats.page_event`: what the page states is used, options fill
only what it does not state, and every printed post-event rating is a
published value.  A bare MSA table of one system prints no dates: the
section's start date must be given (``start``).

**A published-results file** (JSON, or YAML with the same structure): the
event file's structure (``event`` and ``sections``, exactly as
:func:`uschess.io.eventfile.event_from_dict` reads them, players with their
pre-event ``ratings``) plus the published post-event ratings::

    {"event": {"name": "Club Open", "start": "2024-03-09", "end": "2024-03-10"},
     "sections": [{"name": "OPEN", "time_control": "G/90;d5", "players": [...]}],
     "published": [
       {"id": "12743305", "system": "OTBR", "pre": 2201, "post": 2203},
       {"id": "32711850", "system": "OTBR", "post": 1747, "section": "OPEN"}]}

Each ``published`` entry has ``id`` (the player's id in ``sections``),
``system`` (``OTBR`` ... ``OLB``) and ``post`` (the published post-event
rating); optionally ``pre`` (the published pre-event rating, or null for an
unrated player: checked against the event's record, which must agree to
within 0.5 since published ratings are rounded), ``section`` (needed only
when the id plays in several sections) and ``name``.  Nothing else is
allowed; an id, system and section may be listed once.

**What the audit does.**  The event is rated under the rules in force on each
section's start date (as known on ``known_on`` and with the ``readings``
given).  A published rating is *reproduced* when the computed post differs
from it by at most the tolerance (default 1: published pre-event ratings are
rounded).  For every other player the audit shows the calculation step by
step (:func:`uschess.apps.report.explain_player`) and the likely causes it can test
by re-rating variants; a cause is reported only when its variant reproduces
the published value within the tolerance:

``initialization``
    an unrated player's initial rating, which no page shows: as an adult
    (1300) or as a player not known to be adult, else solved from the
    published posts (:mod:`uschess.apps.audit.infer`); also for the
    opponents it moves;
``zero_games``
    a pre-event rating the page prints on 0 games (``817P0``), which the
    reader takes as unrated, rated as the player's rating with N = 0 (no
    step-3 estimate), kept as an input the page states
    (:mod:`uschess.apps.audit.zero_games`);
``chaining``
    section chaining: sections rated apart, or each from the earlier
    sections' computed results (:mod:`uschess.apps.audit.page_chain`);
``floor``
    the computed post is below the published one and the published value is
    a floor the file cannot show: a 100-point level (an established floor
    when it is one of the levels in force, a prize floor up to the highest
    prize floor, the Original Life Master floor) or a possible personal
    absolute floor (AF, 100..150).  Floors bind only the final rating
    (project reading 1), so the variant is the computed post raised to it.
``games``
    an established player's number of earlier games, which an MSA page does
    not print (taken as 50, at least N*): a count from 26 up to N* gives
    N' = N and a larger K; the counts that reproduce the post are named
    (and solved as an input the page cannot show, below);
``bonus_multiplier``
    every other value of B in the history (6, 8, 10, 12, 14, 16), each a
    reform of ``bonus_multiplier`` over the whole event;
``k_exception``
    the dual-rating K exception of sec. 4.2 not applied (K = 800/(N' + m)
    for every player), for a player whose K was the exception's: the PACL
    pages show it only from 2013-05 (:mod:`uschess.apps.audit.k_exception`);
``effective_games``
    the other effective-games formula(s) (``nstar``) of the history;
``rounding``
    the player's and the opponents' pre-event ratings moved by -0.5, 0 or
    +0.5 (the closest variant is shown; tried when the difference is within
    the tolerance plus :data:`ROUNDING_REACH`);
``history``
    an earlier history of only wins, or only losses (wins or losses = games),
    which the file does not show: the player's own, or an opponent's whose
    own published post is missed too and reproduced by the same history
    (step 5 rates against the opponent's step-4 result);
``scored_cells``
    the page's ``N`` (a point) and ``R`` (half a point) cells against a
    named opponent, which the reader takes as byes, rated as games with
    each player's own score (:mod:`uschess.apps.audit.published` reads them
    from the page's player lines): one player's cells at a time, the
    opponent's the mirror, then every player's at once, each with their own
    score (``N 77`` against ``R 79``: a win for one, a draw for the other);
    and every cell of the section at once with the hidden inputs inferred
    again on it, kept as an inferred input when it reproduces more
    (:mod:`uschess.apps.audit.rescored`);
``corrected``
    the page says the section was corrected after it was rated (its ratings
    are of the games first reported): the event audited again with each
    game of the section given another result, the inputs the page cannot
    show inferred again with it; the game that reproduces the most
    published ratings, more than the games shown, is reported as inferred
    and names the posts it reproduces (:mod:`uschess.apps.audit.corrected`);
``tradeoff``
    after the hidden inputs are solved: one unrated player's initial
    rating moved alone reproduces the post but loses others, named with
    what it costs (:mod:`uschess.apps.audit.tradeoff`);
``reading``
    another reading of a recorded conflict that changes the rules of the
    player's section;
``known_on``
    the rules as known on the page's Rated (or Re-Rated) date, else when the
    event ended (a later retroactive correction not yet applied), when no
    ``known_on`` was given.

After the initial ratings, the players still missed with a ``games`` or
``history`` cause have that history solved from the page too
(:mod:`uschess.apps.audit.hidden`): kept only when the whole event, re-rated
with it, reproduces more published ratings, and reported as inferred; the
two are then solved in turn while the count grows
(:mod:`uschess.apps.audit.alternate`).  A post still missed is then checked
for a floor against the post computed with everything inferred, for a
trade-off between the unknowns, and, a provisional player's, for their own
all-wins or all-losses history on top of the inputs inferred
(:mod:`uschess.apps.audit.own_history`), then for theirs or a provisional
opponent's with the initial ratings solved again on it
(:mod:`uschess.apps.audit.history_again`), and, an unrated player's whose
post the page prints established (N bounded, not given), for a larger N of
their initial rating with the initial ratings solved again
(:mod:`uschess.apps.audit.initial_games`).

Whenever a computed rating depended on a conflicted or undocumented value
(``PlayerResult.warnings``) the audit lists it, with the notes on the rules in
force for each section.

**What the evidence is worth.**  Every published rating gets a verdict
(:mod:`uschess.apps.audit.verdict`): ``confirmed`` (reproduced from what the
page prints), ``explained`` (reproduced with inferred inputs and again by a
solve that did not see it: out of sample), ``fitted`` (reproduced only with its
own post in the fit), held by a ``floor`` the page cannot show, or
``unexplained``.  The headline is confirmed + explained; the count with
inferred inputs is shown beside it as in sample.  Every cause states the values
it was free to choose and what it does to the page's other posts; each post
missed gets one finding (one cause, ambiguous, only a rule value fitted, a
dated finding, or no cause found), and a rule version of another period that
reproduces the page much better is reported first as a dated finding
(:mod:`uschess.apps.audit.findings`).  A player's systems share one birth date
or adult flag (:mod:`uschess.apps.audit.person`).

**How it is built.**  :func:`audit` is a pipeline of named stages over one
model of the page (:mod:`uschess.apps.audit.pipeline`); the causes are
:class:`~uschess.apps.audit.cause.CauseCheck` objects registered through a
pluggy hook (:mod:`uschess.apps.audit.hookspecs`,
:mod:`uschess.apps.audit.causes`).  :func:`audit_page` audits one file.
"""

from __future__ import annotations

from uschess.apps.audit.causes import CAUSE_ORDER
from uschess.apps.audit.pipeline import audit, audit_page
from uschess.apps.audit.records import Audit, AuditRow
from uschess.apps.audit.published import (
    PublishedEntry,
    PublishedResults,
    load_published,
    published_from_dict,
    published_from_page,
)
from uschess.apps.audit.render import (
    format_html,
    format_store_html,
    format_store_text,
    format_text,
)
from uschess.apps.audit.store_audit import StoreAudit, audit_store

__all__ = ["audit", "audit_page", "load_published", "published_from_dict", "published_from_page",
           "format_text", "format_html", "audit_store", "format_store_text", "format_store_html",
           "PublishedEntry", "PublishedResults", "Audit", "AuditRow", "StoreAudit", "CAUSE_ORDER"]
