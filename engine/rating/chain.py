"""The chain: what one rated unit hands the next.

US Chess rates an event's sections one after another, and events in order:
a player's record after one unit (rating, games, wins/draws/losses, events,
peak, a floor lowered after a match) is the pre-event record of the next
unit where the player plays in the same system, and a match's change counts
toward the caps of the player's later matches.  A :class:`Chain` carries
exactly that, and every command that rates uses one:

* ``rate`` rates an event's sections through a fresh chain (sections in the
  event's order, as listed);
* ``compare`` keeps one chain per rule version across a history;
* ``replay`` backs a chain with the ratings store (:class:`ChainBase`): what
  the chain has not seen, it asks the store.

The first unit a player appears in uses the record its own file gives (or
the base's).  A player's record from the chain replaces the file's; the
result says so in ``PlayerResult.pre_from``.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache
from typing import TYPE_CHECKING, Callable, Optional, Protocol

from uschess.calendar.rulebook import RuleBook
from uschess.errors import InputError
from uschess.model import (SYSTEMS, Event, MatchChange, Player, Section, SystemRecord,
                           copy_with)
from uschess.rating.match import rate_match
from uschess.rating.options import RatingOptions
from uschess.rating.results import EventResult, MatchPlayerResult, SectionResult
from uschess.rating.section import declared_systems_warnings, rate_section, systems_for
from uschess.timecontrol import TimeControl, parse_time_control

if TYPE_CHECKING:  # read when an update is rated (a command rating events alone never asks)
    from uschess.io.fide_file import FideUpdate
    from uschess.rating.fide_update import FideUpdateResult


#: Every choice of systems in the order of SYSTEMS (the keys of a player's
#: records as :meth:`Chain._from_base` sets them).
_IN_ORDER = frozenset(tuple(s for i, s in enumerate(SYSTEMS) if bits >> i & 1)
                      for bits in range(1, 2 ** len(SYSTEMS)))


@lru_cache(maxsize=256)
def _time_control(text: str) -> TimeControl:
    """A section's time control, parsed once per text (a TimeControl is a
    value: the sections of an event, and of a history, share a few texts)."""
    return parse_time_control(text)


class ChainBase(Protocol):
    """Where a chain looks for what it has not seen itself (a ratings store)."""

    def record(self, player_id: str, system: str) -> Optional[SystemRecord]:
        """The player's record in the system, None when unknown."""

    def match_history(self, player_id: str, system: str) -> Optional[list[MatchChange]]:
        """The player's earlier match changes in the system, None when the
        base has not seen the player there."""

    # optional: ``records(player_id)``, the player's records in every system
    # at once (a mapping system -> record, None or empty when unknown), which
    # the chain then asks instead of ``record`` once per system


class Chain:
    """Records and match changes carried from one rated unit to the next.

    ``records`` maps (player id, system) to the record after the player's
    last rated unit; ``origin`` to the unit it came from (event label,
    section name or None); ``matches`` to the match changes
    made through this chain."""

    def __init__(self, base: Optional[ChainBase] = None,
                 on_record: Optional[Callable[[str, str, SystemRecord, SystemRecord], None]] = None):
        self.base = base
        self.records: dict[tuple[str, str], SystemRecord] = {}
        self.origin: dict[tuple[str, str], tuple[str, Optional[str]]] = {}
        self.matches: dict[tuple[str, str], list[MatchChange]] = {}
        #: player id -> the systems ``records`` holds for the player (so that a
        #: section's players the chain has never rated cost one lookup)
        self.systems_of: dict[str, set[str]] = {}
        #: called (player id, system, the file's record, the chain's) when a
        #: file's pre-event record is replaced by the chain's
        self.on_record = on_record

    # ---------------------------------------------------------------- state
    def record(self, player_id: str, system: str, event: Optional[str] = None
               ) -> tuple[Optional[SystemRecord], Optional[str]]:
        """The chain's record of a player in a system and where it came from,
        said from within ``event`` ((None, None) when neither the chain nor
        its base knows it)."""
        key = (player_id, system)
        rec = self.records.get(key)
        if rec is not None:
            return rec, self._came_from(key, event)
        if self.base is not None:
            rec = self.base.record(player_id, system)
            if rec is not None:
                return rec, "store"
        return None, None

    def _came_from(self, key: tuple[str, str], event: Optional[str]) -> str:
        """Where the chain's record under ``key`` came from, said from within
        ``event``: an earlier section of it, or an earlier event."""
        label, section = self.origin[key]
        if section is not None and label == event:
            return f"section {section}"
        return f"event {label}"

    def match_history(self, player_id: str, system: str) -> Optional[list[MatchChange]]:
        """Earlier match changes of a player in a system as the chain knows
        them: the base's (when it has seen the player there) and the chain's
        own; None when neither has seen the player in the system (the event
        file's ``match_history`` then serves)."""
        key = (player_id, system)
        base = self.base.match_history(player_id, system) if self.base is not None else None
        own = self.matches.get(key)
        if base is None and own is None and key not in self.records:
            return None
        return [*(base or []), *(own or [])]

    def _put(self, key: tuple[str, str], record: SystemRecord,
             where: tuple[str, Optional[str]]) -> None:
        """Hold ``record`` as the player's latest in the system of ``key``."""
        self.records[key] = record
        self.origin[key] = where
        held = self.systems_of.get(key[0])
        if held is None:
            self.systems_of[key[0]] = {key[1]}
        else:
            held.add(key[1])

    def _keep(self, result: SectionResult, where: tuple[str, Optional[str]]) -> None:
        is_match = result.section.kind == "match"
        system = result.system
        put = self._put
        for pr in result.players:
            if pr.m == 0 or pr.record_after is None:
                continue
            key = (pr.id, system)
            put(key, pr.record_after, where)
            if is_match and isinstance(pr, MatchPlayerResult):  # not a player held or unrated
                self.matches.setdefault(key, []).append(
                    MatchChange(result.section.end, pr.post - pr.pre, result.system))

    # --------------------------------------------------------------- rating
    def rate_event(self, event: Event, options: Optional[RatingOptions] = None, book=None,
                   label: Optional[str] = None, *, keep_last: bool = True) -> EventResult:
        """Rate ``event``'s sections in the event's order, each in every system
        it is rated in, every player starting from the chain's record where
        it has one; the chain keeps each result.  ``label`` names the event in
        ``pre_from`` for later events (default: its id or name).  Without
        ``keep_last`` the chain does not keep the last section's results: for
        a chain that rates this one event and is then dropped, where nothing
        would read them."""
        options = options or RatingOptions()
        book = book or RuleBook.load()
        label = label or event.id or event.name
        out = []
        last = len(event.sections) - 1
        for i, section in enumerate(event.sections):
            try:
                rules = options.rules_for(book, section.start)
                tc = _time_control(str(section.time_control))
                declared = declared_systems_warnings(section, rules, tc)
                # every system's record as it stands before the section: a
                # dual-rated section's OTBQ pass must not see its OTBR result
                rated, came_from = self._before(section, label)
                for system in systems_for(section, rules, tc):
                    pre_from = {pair: where for (pair, sys_), where in came_from.items()
                                if sys_ == system}
                    if section.kind == "fide-update":  # sec. 6: a FIDE event abroad
                        from uschess.rating.fide_update import rate_fide_section
                        sr = rate_fide_section(rated, rules, tc, trace=options.trace)
                    elif section.kind == "match":  # sec. 7: individual matches
                        sr = rate_match(rated, system, rules, tc, options=options,
                                        chain_history=self.match_history)
                        for pr in sr.players:
                            pr.pre_from = pre_from.get(pr.pair)
                    else:
                        sr = rate_section(rated, system, rules, tc, trace=options.trace,
                                          pre_from=pre_from)
                    sr.warnings.extend(declared)
                    sr.warnings.extend(section.notes)  # what the reader noted (a re-entry)
                    out.append(sr)
                    if keep_last or i < last:
                        self._keep(sr, (label, section.name))
            except InputError as err:
                raise err.located(section=section.name, file=event.source)
        return EventResult(event, out)

    def _before(self, section: Section, label: str) -> tuple[Section, dict]:
        """The section with each player's records in every system as the chain
        has them (the file's where it has none): the rated system's record and
        the others alike, since initialization draws on a player's ratings in
        other systems (sec. 2).  Also where each (pair, system) record came
        from when not the file.  The section passed in is not changed."""
        players, came_from = [], {}
        own_records = self.records
        base = self.base
        if base is None and not own_records:  # nothing to give: every record is the file's
            return section, came_from
        all_of = getattr(base, "records", None)  # every system of a player at once
        systems_of = self.systems_of
        for pl in section.players:
            pid = pl.id
            held = systems_of.get(pid)
            stored = all_of(pid) if all_of is not None else None
            if base is None or all_of is not None:  # the systems with a record are known
                if held is None:
                    if not stored:
                        players.append(pl)
                        continue
                    if not pl.ratings:  # a replay's usual player: every record the base's
                        players.append(self._from_base(pl, stored, came_from))
                        continue
                systems = [s for s in SYSTEMS
                           if (held is not None and s in held) or (stored and s in stored)]
            else:  # a base that answers one system at a time: ask it of each
                systems = SYSTEMS
            ratings = None
            for system in systems:
                key = (pid, system)
                rec = own_records.get(key)
                if rec is not None:
                    where = self._came_from(key, label)
                else:
                    if all_of is not None:
                        rec = stored.get(system) if stored else None
                    elif base is not None:
                        rec = base.record(pid, system)
                    if rec is None:
                        continue
                    where = "store"
                own = pl.ratings.get(system)
                if own is not None and self.on_record is not None:
                    self.on_record(pid, system, own, rec)
                if ratings is None:
                    ratings = dict(pl.ratings)
                ratings[system] = rec
                came_from[(pl.pair, system)] = where
            players.append(pl if ratings is None else copy_with(pl, ratings=ratings))
        if not came_from:
            return section, came_from
        return copy_with(section, players=players), came_from

    @staticmethod
    def _from_base(pl: Player, stored: dict, came_from: dict) -> Player:
        """:meth:`_before` for a player the chain holds nothing of and whose
        file gives no record: the base's records in the systems' order (as
        the loop of :meth:`_before` would set them), each noted as the
        store's.  A base that holds them in that order already (a replay's)
        is copied as it is."""
        pair = pl.pair
        if tuple(stored) in _IN_ORDER:
            ratings = dict(stored)
        else:
            ratings = {system: stored[system] for system in SYSTEMS
                       if stored.get(system) is not None}
        for system in ratings:
            came_from[(pair, system)] = "store"
        return copy_with(pl, ratings=ratings) if ratings else pl

    def rate_fide_update(self, update: FideUpdate, options: Optional[RatingOptions] = None,
                         book=None) -> FideUpdateResult:
        """Rate an update from a foreign FIDE event (sec. 6) from the chain's
        OTBR record of the player (the update's own when the chain has none)."""
        from uschess.io.fide_file import SYSTEM as FIDE_SYSTEM
        from uschess.rating.fide_update import rate_fide_update

        options = options or RatingOptions()
        rec, _ = self.record(update.player_id, FIDE_SYSTEM)
        if rec is not None:
            if self.on_record is not None and update.record is not None:
                self.on_record(update.player_id, FIDE_SYSTEM, update.record, rec)
            update = replace(update, record=rec)
        rules = options.rules_for(book or RuleBook.load(), update.start)
        result = rate_fide_update(update, rules, trace=options.trace)
        if result.m:
            key = (update.player_id, FIDE_SYSTEM)
            self._put(key, result.record_after,
                      (f"FIDE update {update.event_id or update.event_name}", None))
        return result


__all__ = ["Chain", "ChainBase"]
