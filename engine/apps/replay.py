"""Replay: rate a sequence of events into a ratings store, in order.

``replay(events, store, options)`` takes events (``Event`` objects or event
file paths) and FIDE updates (:class:`~uschess.io.fide_file.FideUpdate` objects
or their files), orders them by end date, then start date, then id (the
event's ``id``, or its file's stem; a FIDE update's :func:`store_event_id`),
and for each event:

1. reads the state of every player in it from the store (each system's
   record, birth date, FIDE/CFC ratings); a player or system the store has not
   seen takes the file's pre-event data, and where the file's data disagrees
   with the store's by more than rounding (rating off by more than 0.5, or a
   different number of games) the store wins and the disagreement is
   reported in the summary;
2. rates it through the one :class:`~uschess.rating.chain.Chain`, backed by
   the store, under the rules in force on each section's start (or the
   options given): sections in the event's order, a player entered in two
   sections rated in the same system starting the second from the first
   one's result, a dual-rated section updating both systems;
3. writes its changes (:meth:`Store.apply_event`), :data:`COMMIT_EVERY`
   events to a transaction (:meth:`Store.batch`): a replay killed at any
   moment leaves whole events only, every event up to its last commit, and
   running it again with ``skip_applied`` resumes where it stopped.

Memory stays bounded whatever the history's size: the ordering pass
(:mod:`uschess.apps.replay_order`) keeps a few events in full and, beyond
them, only each file's order key and path, in a temporary SQLite file; the
players' state is cached for at most :data:`CACHE_PLAYERS` players.
The ids of the events applied, which the summary lists, are read back from
the store at the end of the run.

A FIDE update (sec. 6) is rated from the player's OTBR record in the store
(the file's record serves when the store has none; a disagreement is
reported) and written as one event with one change, section ``FIDE``
(:func:`apply_fide_update` writes one alone); paths are told apart by
peeking (:func:`~uschess.apps.replay_order.load_item`).

Matches (sec. 7) take their earlier match changes, for the 180-day and 3-year
caps, from the chain: the players' matches in the store, from whatever file,
and those of earlier sections of the same event.  A file's ``match_history``
serves only for a player the store has not seen in the system; for one it
has, it is ignored and reported as a disagreement when it differs.

A floor lowered after a match (``grant_floor_requests``; sec. 7, restriction
4) is kept in the player's record with the sec. 5 floor it replaced (the
store keeps both), and the finish step honours it in every later event, match
and FIDE update of the player in that system while that sec. 5 floor is
still the one computed.

An event or FIDE update already in the store is refused (an
:class:`InputError` naming it, before anything is written), or skipped with
``skip_applied=True``.
"""

from __future__ import annotations

import datetime as _dt
import gc
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Callable, Iterable, Iterator, Optional

from uschess.errors import InputError
from uschess.io.fide_file import SYSTEM as FIDE_SYSTEM, FideUpdate
from uschess.io.store import Change, EventWrite, PlayerInfo, Store
from uschess.model import SYSTEMS, Event, MatchChange, Player, SystemRecord, copy_with
from uschess.calendar.rulebook import RuleBook
from uschess.rating.chain import Chain
from uschess.rating.fide_update import FideUpdateResult
from uschess.rating.match import store_match_history
from uschess.rating.options import RatingOptions
from uschess.rating.results import EventResult, MatchPlayerResult, PlayerResult
from uschess.apps.replay_order import (EventLike, Item, _mark_applied, _ordered, _release,
                                       _stream, event_id, event_key, item_id, load_event_file,
                                       load_item, store_event_id)

#: What the commands and the other applications take from here: the replay,
#: and the ids and order of what it rates (:mod:`uschess.apps.replay_order`).
__all__ = ["replay", "apply_fide_update", "fide_update_write", "ReplaySummary", "Disagreement",
           "COMMIT_EVERY", "Item", "EventLike", "event_id", "item_id", "event_key", "load_item",
           "store_event_id"]

#: Players whose state a replay keeps in memory (beyond this, it starts over).
#: A full cache is most of a replay's peak memory (a player's state grows
#: with the systems they are rated in), so the bound trades a little CPU,
#: where the cache is emptied, for a peak that does not grow with the
#: history (``benchmarks/replay_bench.py --players`` measures both).
CACHE_PLAYERS = 25_000
#: Events a replay writes per transaction (:meth:`Store.batch`; fewer when
#: they hold :data:`uschess.io.store.BATCH_CHANGES` changes): a commit writes
#: every page its events changed, and pages that several events share (the
#: players' rows and the indexes) are written once for them all, as is a
#: player's row who played several of them
#: (:meth:`uschess.io.store_connection._Connection.upsert_later`).  Larger batches
#: save little more; what a kill loses is the open transaction, and
#: ``--skip-applied`` resumes from the last commit.
COMMIT_EVERY = 1024
#: The cyclic garbage collector's first threshold during a replay (Python's
#: default is 700; see :func:`_fewer_collections`).
GC_THRESHOLD = 100_000
#: How far a file's rating may be from the store's and still agree (rounding).
ROUNDING = 0.5

@dataclass
class Disagreement:
    """The event file's pre-event data differs from the store's."""

    event: str
    section: str
    player: str
    what: str                    # "rating" (a system record), "birth_date" or "match_history"
    system: Optional[str]
    file: object
    store: object

    def __str__(self) -> str:
        sys_ = f" {self.system}" if self.system else ""
        return (f"event {self.event}, section {self.section!r}, player {self.player}:{sys_} "
                f"{self.what} in the file {self.file} differs from the store's {self.store} "
                "(the store's is used)")

    def as_dict(self) -> dict:
        return {"event": self.event, "section": self.section, "player": self.player,
                "what": self.what, "system": self.system, "file": _plain(self.file),
                "store": _plain(self.store)}


def _plain(value):
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items()}
    if isinstance(value, (_dt.date,)):
        return value.isoformat()
    return value


@dataclass
class ReplaySummary:
    store: str
    applied: list = field(default_factory=list)       # event ids, in the order applied (*)
    skipped: list = field(default_factory=list)       # already in the store
    fide_updates: int = 0                             # of the applied, FIDE updates
    player_updates: int = 0                           # change rows written
    players: int = 0                                  # distinct players updated
    new_players: int = 0                              # players the store had not seen
    player_games: int = 0                             # rated games, once per player per section
    seconds: float = 0.0
    disagreements: list = field(default_factory=list)
    warnings: list = field(default_factory=list)
    # (*) read back from the store at the end of the run, when the players'
    # cache is gone: not held while the run goes (it grows with the history)
    events_applied: int = 0                           # counted while the run goes

    @property
    def rate(self) -> float:
        return self.player_games / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict:
        return {"store": self.store, "events_applied": len(self.applied),
                "events_skipped": len(self.skipped), "fide_updates_applied": self.fide_updates,
                "applied": list(self.applied),
                "skipped": list(self.skipped), "player_updates": self.player_updates,
                "players": self.players, "new_players": self.new_players,
                "player_games": self.player_games, "seconds": round(self.seconds, 3),
                "player_games_per_second": round(self.rate, 1),
                "disagreements": [d.as_dict() for d in self.disagreements],
                "warnings": list(self.warnings)}

    def format(self) -> str:
        fide = f" ({self.fide_updates} of them FIDE updates)" if self.fide_updates else ""
        lines = [f"{len(self.applied)} event(s) applied{fide}, {len(self.skipped)} skipped (already "
                 f"in the store) in {self.seconds:.2f} s",
                 f"{self.player_updates} rating change(s) written (one per player, event section "
                 f"and system) for {self.players} player(s); {self.new_players} player(s) new to "
                 "the store (entered even without a rated game)",
                 f"{self.player_games} player-games rated ({self.rate:,.0f}/s)"]
        if self.disagreements:
            lines.append(f"{len(self.disagreements)} disagreement(s) between files and the store")
        return "\n".join(lines) + "\n"


# --------------------------------------------------------------- merging
def _merge_info(p: Player, known: Optional[PlayerInfo], eid, section, disagreements) -> PlayerInfo:
    """The player's identity: the store's, completed and refreshed by the file
    (a later FIDE/CFC rating, a name or state; a birth date or adult flag
    only where the store has none)."""
    if known is None:  # (positional, in the order of PlayerInfo's fields)
        return PlayerInfo(p.id, p.name, p.birth_date, p.adult, p.state, p.fide, p.cfc)
    if p.birth_date is not None and known.birth_date is not None \
            and p.birth_date != known.birth_date:
        disagreements.append(Disagreement(eid, section, p.id, "birth_date", None,
                                          p.birth_date, known.birth_date))
    fide = known.fide if p.fide is None else _newer(p.fide, known.fide)
    cfc = known.cfc if p.cfc is None else _newer(p.cfc, known.cfc)
    name = p.name or known.name
    state = p.state or known.state
    birth = known.birth_date if known.birth_date is not None else p.birth_date
    adult = known.adult if known.adult is not None else p.adult
    if (fide is known.fide and cfc is known.cfc and name == known.name and state == known.state
            and birth == known.birth_date and adult == known.adult):
        return known
    return PlayerInfo(p.id, name, birth, adult, state, fide, cfc)  # (in field order)


def _with_info(p: Player, info: PlayerInfo) -> Player:
    """The player with the identity a replay rates them by (the same player
    when the file already says all of it)."""
    if (p.birth_date == info.birth_date and p.adult is info.adult and p.state == info.state
            and p.fide is info.fide and p.cfc is info.cfc):
        return p
    return copy_with(p, birth_date=info.birth_date, adult=info.adult, fide=info.fide,
                     cfc=info.cfc, state=info.state)


def _newer(mine, theirs):
    """The file's FIDE/CFC rating unless the store's is dated later."""
    if mine is None or mine == theirs:
        return theirs
    if theirs is None or (mine.date or _dt.date.min) >= (theirs.date or _dt.date.min):
        return mine
    return theirs


def _disagrees(file_rec: SystemRecord, store_rec: SystemRecord) -> bool:
    return (abs(file_rec.rating - store_rec.rating) > ROUNDING + 1e-9
            or file_rec.games != store_rec.games)


def _summary_record(rec: SystemRecord) -> dict:
    return {"rating": rec.rating, "games": rec.games}


class _SharedRules:
    """The rule book as a replay reads it: ``rules`` and ``fingerprint`` of
    the combination in force (resolving a date is a lookup in the book)."""

    def __init__(self, book: RuleBook):
        self.book = book

    def rules(self, on, *, known_on=None, readings=None, edition=None, reform=None):
        return self.book.rules(on, known_on=known_on, readings=readings, edition=edition,
                               reform=reform)

    def fingerprint(self, rules) -> str:
        return rules.fingerprint


def _put_state(held: dict, system: str, rec: SystemRecord) -> None:
    """``rec`` as a player's record in ``system`` among the records ``held``,
    kept in the order of SYSTEMS (which the chain then copies as it is)."""
    held[system] = rec
    if len(held) > 1:
        ordered = {s: held[s] for s in SYSTEMS if s in held}
        held.clear()
        held.update(ordered)


class _StoreBase:
    """The ratings store as the base of a replay's chain: the players' records
    (read once per run into the replayer's cache, ``states``: player id ->
    system -> record, the replayer's own dict, changed in place) and their
    earlier match changes (committed events).  It holds the cache, not the
    replayer: no reference cycle keeps the cache alive after the run."""

    def __init__(self, states: dict, store: Store):
        self.states = states
        self.store = store

    def record(self, player_id: str, system: str) -> Optional[SystemRecord]:
        return self.states.get(player_id, {}).get(system)

    def records(self, player_id: str) -> Optional[dict[str, SystemRecord]]:
        """The player's records in every system, in the order of SYSTEMS (not to
        be changed)."""
        return self.states.get(player_id)

    def match_history(self, player_id: str, system: str) -> Optional[list[MatchChange]]:
        if system not in self.states.get(player_id, {}):
            return None
        return store_match_history(self.store, player_id, system)


@dataclass
class Prepared:
    """One event (or FIDE update) rated against the store, not yet written:
    the write, how many players are new to the store, the disagreements
    between the file and the store, and the rating result."""

    write: EventWrite
    new: int
    disagreements: list
    result: object  # EventResult or FideUpdateResult


def _history_disagreement(eid: str, section: str, pl: Player, pr: PlayerResult,
                          system: str) -> Optional[Disagreement]:
    """The file's match_history of a player for whom the chain's (the
    store's) was used, when the two differ (beyond rounding)."""
    if not pl.match_history or not isinstance(pr, MatchPlayerResult) or pr.history_source != "chain":
        return None
    mine = sorted((h for h in pl.match_history if h.system in (None, system)),
                  key=lambda h: (h.date, h.change))
    theirs = sorted(pr.history, key=lambda h: (h.date, h.change))
    if len(mine) == len(theirs) and all(
            a.date == b.date and abs(a.change - b.change) <= ROUNDING + 1e-9
            for a, b in zip(mine, theirs)):
        return None
    return Disagreement(eid, section, pl.id, "match_history", system,
                        [h.as_dict() for h in mine], [h.as_dict() for h in theirs])


class _Replayer:
    """Rates events against a store through a chain backed by it.  The
    players' state is read from the store once per run and kept (written
    through after each commit), for at most ``CACHE_PLAYERS`` players: a
    replay is the store's only writer.  ``whole``: the cache holds every
    player the store holds (a replay into a store without players, until the
    cache is first emptied), so a player not in it is new to the store and
    is not looked up."""

    def __init__(self, store: Store, options: RatingOptions, book: RuleBook):
        self.store = store
        self.options = options
        self.book = _SharedRules(book)
        self._states: dict[str, dict[str, SystemRecord]] = {}
        self.base = _StoreBase(self._states, store)
        self._infos: dict[str, Optional[PlayerInfo]] = {}
        self.whole = False
        self.games = 0                         # player-games rated so far

    def _load(self, ids: list[str]) -> None:
        missing = [pid for pid in ids if pid not in self._infos]
        if not missing:
            return
        if len(self._infos) + len(missing) > CACHE_PLAYERS:
            self._states.clear()
            self._infos.clear()
            self.whole = False
            missing = list(dict.fromkeys(ids))  # this event's cached players went too
        if self.whole:  # none of them is in the store
            for pid in missing:
                self._infos[pid] = None
                self._states[pid] = {}
            return
        infos = self.store.players(missing)
        for pid in missing:
            self._infos[pid] = infos.get(pid)
            self._states[pid] = {}
        for (pid, system), rec in self.store.states(missing).items():
            _put_state(self._states[pid], system, rec)

    def committed(self, write: EventWrite) -> None:
        states = self._states
        for (pid, system), rec in write.ratings.items():
            held = states.get(pid)
            if held is None:
                states[pid] = {system: rec}
            elif system in held:
                held[system] = rec
            else:
                _put_state(held, system, rec)
        for info in write.players:
            self._infos[info.id] = info

    def fingerprint(self, rules) -> str:
        return self.book.fingerprint(rules)

    def _chain(self, eid: str, section: list[str], disagreements: list) -> Chain:
        """A chain over the store for one event; ``section``: a one-item
        list holding the name of the section being rated (set by the
        caller as it goes), to name it in a disagreement."""
        def differs(pid: str, system: str, file_rec: SystemRecord, used: SystemRecord) -> None:
            if _disagrees(file_rec, used):
                disagreements.append(Disagreement(eid, section[0], pid, "rating", system,
                                                  _summary_record(file_rec),
                                                  _summary_record(used)))
        return Chain(self.base, on_record=differs)

    def _rules_stored(self, write: EventWrite, rules) -> str:
        fp = self.fingerprint(rules)
        if fp not in write.rulesets and not self.store.has_rules(fp):
            stored = rules.as_dict()
            stored.pop("on", None)
            write.rulesets[fp] = stored
        return fp

    def prepare(self, event: Event, eid: str):
        """Rate one event against the store: the write, the new players,
        the disagreements."""
        ids = list(dict.fromkeys(p.id for s in event.sections for p in s.players))
        self._load(ids)
        known = {pid: self._infos[pid] for pid in ids if self._infos[pid] is not None}
        write = EventWrite(id=eid, name=event.name, start=event.start, end=event.end,
                           source=event.source)
        disagreements: list[Disagreement] = []
        infos: dict[str, PlayerInfo] = {}
        sections = []
        for section in event.sections:
            players = []
            for p in section.players:
                info = infos.get(p.id)
                if info is None:
                    info = infos[p.id] = _merge_info(p, known.get(p.id), eid, section.name,
                                                     disagreements)
                players.append(_with_info(p, info))
            sections.append(copy_with(section, players=players))
        current = [""]  # the section being rated, for the disagreements
        chain = self._chain(eid, current, disagreements)
        one = copy_with(event, sections=sections, id=eid)
        result = EventResult(one, [])
        last = sections[-1] if sections else None
        for section in sections:
            current[0] = section.name
            # the chain is the event's own: what its last section gives is read from the
            # results, never from the chain again
            part = chain.rate_event(copy_with(one, sections=[section]), self.options, self.book,
                                    label=eid, keep_last=section is not last)
            result.sections.extend(part.sections)
        by_pair = {}
        for sr in result.sections:
            if sr.section.kind == "match":
                by_pair = {pl.pair: pl for pl in sr.section.players}
                for pr in sr.players:
                    d = _history_disagreement(eid, sr.section.name, by_pair[pr.pair], pr, sr.system)
                    if d is not None:
                        disagreements.append(d)
        seen_sections = set()
        for sr in result.sections:
            if sr.section.name not in seen_sections:  # rated games, once per player
                seen_sections.add(sr.section.name)
                self.games += sum(pr.m for pr in sr.players)
            fp = self._rules_stored(write, sr.rules)
            name, system = sr.section.name, sr.system
            for pr in sr.players:
                if pr.m == 0 or pr.record_after is None:
                    continue  # no rated game: nothing changes
                # positional, in the order of Change's fields: a third of
                # the time of fourteen keywords, once per player-change
                write.changes.append(Change(
                    eid, len(write.changes), name, system, pr.id, pr.pre, pr.post,
                    pr.games_before, pr.games_after, pr.m, pr.score, pr.formula,
                    bool(pr.floor_applied), fp))
                write.ratings[(pr.id, system)] = pr.record_after
        for pid, info in infos.items():
            if known.get(pid) is not info:
                write.players.append(info)
        new = sum(1 for pid in infos if pid not in known)
        return Prepared(write, new, disagreements, result)

    def prepare_fide(self, update: FideUpdate, eid: str):
        """Rate one FIDE update against the store: the write (as
        :func:`apply_fide_update` writes it), the new players, the disagreements."""
        pid = update.player_id
        self._load([pid])
        known = self._infos[pid]
        disagreements: list[Disagreement] = []
        chain = self._chain(eid, ["FIDE"], disagreements)
        result = chain.rate_fide_update(update, self.options, self.book)
        fp = self.fingerprint(result.rules)
        write = fide_update_write(result, fingerprint=fp, rules_stored=self.store.has_rules(fp),
                                  new_player=known is None)
        self.games += result.m
        return Prepared(write, int(known is None), disagreements, result)


def fide_update_write(result: FideUpdateResult, *, fingerprint: Optional[str] = None,
                      rules_stored: bool = False, new_player: bool = False) -> EventWrite:
    """What a rated FIDE update writes to a ratings store: one event (id
    :func:`store_event_id`) with one change in section ``FIDE`` (none when no
    opponent counted), the rules unless ``rules_stored``, and the player's
    identity when ``new_player``.  ``fingerprint`` defaults to the result's
    rules'."""
    update = result.update
    eid = store_event_id(update)
    write = EventWrite(id=eid, name=update.event_name, start=update.start, end=update.end,
                       source=update.source)
    if result.m:
        fp = fingerprint or result.rules.fingerprint
        if not rules_stored:
            rules = result.rules.as_dict()
            rules.pop("on", None)
            write.rulesets[fp] = rules
        write.changes.append(Change(
            event_id=eid, pos=0, section="FIDE", system=FIDE_SYSTEM, player_id=update.player_id,
            pre=result.pre, post=result.post, games_before=result.games_before,
            games_after=result.games_after, m=result.m, score=result.score,
            formula=result.formula, floor_applied=bool(result.floor_applied), fingerprint=fp))
        write.ratings[(update.player_id, FIDE_SYSTEM)] = result.record_after
    if new_player:
        write.players.append(PlayerInfo(id=update.player_id, name=update.player_name))
    return write


def apply_fide_update(update: FideUpdate, store: Store, options: Optional[RatingOptions] = None,
                      book: Optional[RuleBook] = None) -> FideUpdateResult:
    """Rate ``update`` from the player's OTBR state in a ratings store (the
    store's record wins over the file's) and write it there as one event:
    the same write a replay makes of it, holding the store's writer lock."""
    with store.writer(on_wait=lambda m: print(f"uschess: {m}", file=sys.stderr)):
        replayer = _Replayer(store, options or RatingOptions(), book or RuleBook.load())
        prepared = replayer.prepare_fide(update, store_event_id(update))
        store.apply_event(prepared.write)
    return prepared.result


def replay(events: Iterable[EventLike], store: Store, options: Optional[RatingOptions] = None,
           *, skip_applied: bool = False, ordered: bool = False,
           progress: Optional[Callable[[int, int, int, float], None]] = None,
           book: Optional[RuleBook] = None,
           loader: Optional[Callable[[str], Event]] = None,
           wait: Optional[float] = None, commit_every: int = COMMIT_EVERY) -> ReplaySummary:
    """:func:`_replay` holding the store's writer lock throughout: another
    replay into the same store waits (``wait`` seconds at most; None: as
    long as it takes) and says so on stderr, or is refused.  The events are
    committed ``commit_every`` at a time (1: each in its own transaction),
    and those written when the run ends, however it ends: a run killed or
    stopped by an error leaves whole events only, every event up to its last
    commit, and ``skip_applied`` resumes from there.  A SQLite store the
    run created and wrote no event into is removed when it fails
    (:meth:`Store.discard_if_new`)."""
    with store.writer(wait=wait, on_wait=lambda m: print(f"uschess: {m}", file=sys.stderr)):
        try:
            with store.changes_index_after(), store.batch(commit_every), _fewer_collections():
                return _replay(events, store, options, skip_applied=skip_applied,
                               ordered=ordered, progress=progress, book=book, loader=loader)
        except BaseException:
            store.discard_if_new()  # a run that wrote nothing leaves no new, empty store
            raise


def _replay(events: Iterable[EventLike], store: Store, options: Optional[RatingOptions] = None,
            *, skip_applied: bool = False, ordered: bool = False,
            progress: Optional[Callable[[int, int, int, float], None]] = None,
            book: Optional[RuleBook] = None,
            loader: Optional[Callable[[str], Event]] = None) -> ReplaySummary:
    """Rate ``events`` (events and FIDE updates, or their paths) into
    ``store`` in replay order; see the module text.

    ``ordered=True`` streams the events as given (memory stays bounded for a
    generator of any length) and only checks that they come in replay order;
    otherwise all are read first and sorted.  ``progress(done, total,
    player_games, seconds)`` is called after each event (total is 0 when
    streaming).  ``loader`` reads an event from a path that is not a FIDE
    update (:func:`load_item`; default: every format the program reads)."""
    options = options or RatingOptions(trace=False)
    book = book or RuleBook.load()
    started = time.perf_counter()
    summary = ReplaySummary(store=store.name)
    replayer = _Replayer(store, options, book)
    replayer.whole = not store.has_players()
    last = store.last_event()
    last_key = (last["end"], last["start"], last["id"]) if last else None
    # the players rated are counted in the store at the end, not kept here:
    # a set of every player's id would grow with the history
    seq_before = store.last_seq()

    if ordered:
        total = 0
        stream: Iterator = _stream(events, loader)
    else:
        items = _ordered(events, loader)
        total = len(items)
        _mark_applied(store, items)
        first = items.first_applied()
        if first is not None and not skip_applied:
            items.close()
            eid, when, where, count = first
            more = f" (and {count - 1} more)" if count > 1 else ""
            raise InputError(f"event {eid} is already applied to {store.name} "
                             f"(on {when}){more}; it is never applied twice: "
                             "use --skip-applied to skip applied events and resume",
                             file=where)
        stream = _release(items)

    done = 0
    for key, event, path, is_applied, event_file in stream:
        eid = key[2]
        if is_applied is None:
            is_applied = store.is_applied(eid)
            if is_applied and not skip_applied:
                raise InputError(f"event {eid} is already applied to {store.name}; it is never "
                                 "applied twice: use --skip-applied to skip applied events",
                                 file=path or (event.source if event else None))
        if is_applied:
            summary.skipped.append(eid)
            done += 1
            if progress:
                progress(done, total, summary.player_games, time.perf_counter() - started)
            continue
        if event is None:  # read when its turn comes
            try:
                event = load_event_file(path, loader) if event_file else load_item(path, loader)
            except InputError as err:
                raise _stopped(err, eid, summary).located(file=path)
            if event_key(event) != key:
                raise InputError("changed while the replay was running", file=path)
        if last_key is not None and key < last_key:
            summary.warnings.append(f"event {eid} (ends {key[0]}) is replayed after event "
                                    f"{last_key[2]} (ends {last_key[0]}), which is later in "
                                    "replay order: it is rated against the store's current state")
        is_fide = isinstance(event, FideUpdate)
        try:
            prepared = (replayer.prepare_fide if is_fide else replayer.prepare)(event, eid)
            write, new, disagreements = prepared.write, prepared.new, prepared.disagreements
        except InputError as err:
            raise _stopped(err, eid, summary).located(file=event.source or path)
        if not is_fide and event.published:  # an imported page: kept with the event
            write.published = list(event.published)
        store.apply_event(write)
        replayer.committed(write)
        last_key = key if last_key is None or key > last_key else last_key
        summary.events_applied += 1
        summary.fide_updates += is_fide
        summary.player_updates += len(write.changes)
        summary.new_players += new
        summary.disagreements.extend(disagreements)
        summary.player_games = replayer.games
        done += 1
        if progress:
            progress(done, total, summary.player_games, time.perf_counter() - started)
    del replayer, stream  # the players' cache goes before the ids are read back
    summary.applied = store.event_ids_after(seq_before)
    summary.players = store.players_rated_after(seq_before)
    summary.seconds = time.perf_counter() - started
    return summary


@contextmanager
def _fewer_collections():
    """The cyclic garbage collector run less often for the block (its
    thresholds as they were after it).  A replay makes and drops millions of
    small objects, freed by their reference counts (a replay of 400 events
    leaves no cyclic garbage at all), while it holds a growing cache of
    players' states that each collection walks again: with Python's default
    first threshold (700) a long replay spends a second or more in
    thousands of collections that free nothing, and at :data:`GC_THRESHOLD`
    a handful, with the same peak memory.  A collection still comes after
    every 100,000 objects the block's work keeps, so cycles made on a path
    that makes them are collected."""
    before = gc.get_threshold()
    gc.set_threshold(max(before[0], GC_THRESHOLD), *before[1:])
    try:
        yield
    finally:
        gc.set_threshold(*before)


def _stopped(err: InputError, eid: str, summary: ReplaySummary) -> InputError:
    """``err`` saying, when events are already applied, where the run stopped
    and how to resume."""
    if summary.events_applied:
        err.message += (f" (stopped at event {eid}; the {summary.events_applied} event(s) "
                        "before it are applied: fix it and rerun with --skip-applied)")
        err.args = (err.message,)
    return err

