"""Re-ratings of the event under variants (another value of a rule, a
player's record changed), each rated once and kept as printed posts."""

from __future__ import annotations

import dataclasses
import datetime as _dt
import json
from typing import Optional

from uschess.apps.audit.cause import PrintedPosts
from uschess.apps.audit.page_chain import rate_published
from uschess.calendar.reform import reform_from_dict
from uschess.calendar.rulebook import RuleBook
from uschess.errors import InputError
from uschess.model import Event, SystemRecord, copy_with
from uschess.rating.pipeline import RatingOptions


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

    @staticmethod
    def reform_key(name: str, value) -> tuple:
        """The key of :meth:`reform`'s variant of ``name`` = ``value``."""
        return ("reform", name, json.dumps(value, sort_keys=True, default=str))

    def reform(self, name: str, value, label: str) -> Optional[PrintedPosts]:
        raw = {"name": label, "parameters": {name: [{"from": self.book.earliest().isoformat(),
                                                     "value": value}]}}
        return self.rate(self.reform_key(name, value), label=label,
                         reform=reform_from_dict(raw, source="audit", book=self.book))

    def whole_event(self) -> list[tuple[str, PrintedPosts]]:
        return [(label, self._cache[key]) for key, label in self.labels.items()
                if self._cache.get(key) is not None]


#: A record's fields in the order its class takes them.
_RECORD_FIELDS = tuple(f.name for f in dataclasses.fields(SystemRecord))


def _record_copy(rec: SystemRecord) -> SystemRecord:
    """A copy of ``rec``: what ``dataclasses.replace(rec)`` gives, every
    field passed to the class at once (an audit copies a large section's
    records for each of hundreds of variants)."""
    return type(rec)(*[getattr(rec, name) for name in _RECORD_FIELDS])


def _player_event(event: Event, section: str, change) -> Event:
    """A copy of ``event`` in which ``change`` may edit the records of one
    section's players (only those are copied; rounds and the rest are shared
    and must not be edited)."""
    sections = []
    for sec in event.sections:
        if sec.name == section:
            players = [copy_with(p, ratings={k: _record_copy(v) for k, v in p.ratings.items()})
                       for p in sec.players]
            sec = copy_with(sec, players=players)
            change(sec)
        sections.append(sec)
    return copy_with(event, sections=sections)


def _page_record(event: Event, section: str, pair: int, system: str):
    """Player ``pair``'s own record in ``system`` as the page gives it (None
    for a player unrated there: a record an earlier section of the event
    gives them through the chain is not the page's, and no variant edits it)."""
    for sec in event.sections:
        if sec.name == section:
            return sec.player(pair).ratings.get(system)
    return None


#: Sources that print no game count for an established player: every page
#: layout (the MSA page and table, the TD crosstable's ``1510*``, the
#: project's own export); a published-results file gives the counts.
GAMES_NOT_PRINTED = ("msa-html", "msa-text", "msa-table", "msa", "td", "export")
