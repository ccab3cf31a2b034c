"""Updating a US Chess rating from a foreign FIDE event (sec. 6).

Only a player with an established OTBR rating is eligible.  Each opponent's
FIDE rating is converted to the US Chess scale with the FIDE conversion in
force on the event's start date (``p.fide_conversion``, sec. 2.1 / 2017 sec.
2.6), or, for a youth event, the youth conversion of sec. 6
(``p.fide_youth_conversion``); opponents without a FIDE rating are ignored.
Then the standard formula, with the bonus, is applied once (no step 5): K from
the ``uschess_k_factor`` hook (no time control, so no dual-rating
exception), bonus eligibility from the ``uschess_bonus_eligible`` hook.

Decisions where sec. 6 is silent (each also in the result's ``notes``):

* the rules are those in force on the event's start date, as for a section;
* an opponent is told apart by name (games against an unnamed opponent count
  as against distinct opponents) for bonus eligibility;
* the update is booked like a rated event: N grows by the games counted, the
  win/draw/loss counts and N_R (three or more games) with it, and the
  personal floors of sec. 5 bind the result (sec. 5: "No rating can be lower
  than the absolute rating floor"; only matches are exempted, sec. 7), or a
  floor lowered after an earlier match while the sec. 5 floor it replaced is
  still the one computed (:func:`uschess.rating.match.lowered_floor_for`);
* an event with no FIDE-rated opponent leaves the rating as it is.

Input (YAML or JSON; :func:`load_fide_update`)::

    kind: fide-update
    event: {name: "Open abroad", start: "2024-03-10", end: "2024-03-15", youth: false}
    player: {id: "12345678", name: "Doe, Jane", ratings: {OTBR: {rating: 2100.0, games: 120}}}
    games: [{opponent: "Smith", fide: 1900, result: W}, {fide: 2050, result: D}, {result: L}]

or a TRF of the foreign event with the player's id (:func:`fide_update_from_trf`;
the player's OTBR record from a players file).
"""

from __future__ import annotations

import datetime as _dt
import math
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Mapping, Optional


from uschess.errors import InputError
from uschess.io.eventfile import (MAX_RATING, event_dates, mapping, parse_record, read_data,
                        record_to_dict)
from uschess.formulas import effective_games, piecewise, round_half_up, standard_rating
from uschess.rating.match import MatchRecord, lowered_floor_for
from uschess.model import SystemRecord
from uschess.rating.pipeline import DEPENDS, RatingOptions, record_after, settle_record
from uschess.calendar.rulebook import RuleBook, Rules

SYSTEM = "OTBR"
RESULTS = {"W": 1.0, "D": 0.5, "L": 0.0}
TOP_KEYS = {"kind", "event", "player", "games"}
EVENT_KEYS = {"name", "start", "end", "youth", "id"}
PLAYER_KEYS = {"id", "name", "ratings"}
GAME_KEYS = {"opponent", "fide", "result"}
FIDE_DEPENDS = {"fide_conversion", "fide_youth_conversion", "k_factor", "k_numerator", "nstar",
                "bonus", "bonus_multiplier", "bonus_m_prime_min", "established_games"}


@dataclass
class FideGame:
    """One game of the foreign event: the opponent's name (optional), FIDE
    rating (None: unrated, the game is ignored) and the player's result."""

    result: str
    fide: Optional[float] = None
    opponent: Optional[str] = None

    @property
    def points(self) -> float:
        return RESULTS[self.result]


@dataclass
class FideUpdate:
    """A foreign FIDE-rated event for one player."""

    player_id: str
    record: Optional[SystemRecord]  # the player's OTBR record before the event
    games: list[FideGame]
    start: _dt.date
    end: _dt.date
    youth: bool = False
    event_name: str = "(foreign FIDE event)"
    event_id: Optional[str] = None
    player_name: Optional[str] = None
    source: Optional[str] = None


@dataclass
class FideOpponent:
    name: Optional[str]
    fide: Optional[float]
    us: Optional[float]
    result: str
    ignored: bool

    def as_dict(self) -> dict:
        return {"name": self.name, "fide": self.fide, "us": self.us, "result": self.result,
                "ignored": self.ignored}


@dataclass
class FideUpdateResult:
    id: str
    name: Optional[str]
    system: str
    pre: float
    post: float
    k: Optional[float]
    bonus: Optional[float]
    bonus_eligible: Optional[bool]
    expected: Optional[float]
    score: float
    m: int
    n_eff: float
    games_before: int
    games_after: int
    youth: bool
    conversion: str
    opponents: list[FideOpponent]
    floor: Optional[float]
    floor_reason: Optional[str]
    floor_applied: bool
    record_after: SystemRecord
    rules: Rules
    update: FideUpdate
    formula: str = "fide-update (standard, once)"
    warnings: list = field(default_factory=list)
    notes: list = field(default_factory=list)

    @property
    def post_rounded(self) -> int:
        return round_half_up(self.post)

    @property
    def change(self) -> float:
        return self.post - self.pre

    def as_dict(self) -> dict:
        u = self.update
        return {
            "id": self.id, "name": self.name, "system": self.system, "pre": self.pre,
            "post": self.post, "post_rounded": self.post_rounded, "k": self.k,
            "bonus": self.bonus, "bonus_eligible": self.bonus_eligible,
            "expected": self.expected, "score": self.score, "m": self.m, "n_eff": self.n_eff,
            "games_before": self.games_before, "games_after": self.games_after,
            "formula": self.formula,
            "event": {"name": u.event_name, "id": u.event_id, "start": u.start.isoformat(),
                      "end": u.end.isoformat(), "youth": u.youth, "source": u.source},
            "conversion": self.conversion,
            "opponents": [o.as_dict() for o in self.opponents],
            "floor": self.floor, "floor_reason": self.floor_reason,
            "floor_applied": self.floor_applied,
            "record_after": record_to_dict(self.record_after),
            "rules": {"on": self.rules.on.isoformat(), "fingerprint": self.rules.fingerprint},
            "warnings": list(self.warnings), "notes": list(self.notes),
        }


# ---------------------------------------------------------------- reading
def _unknown(raw: Mapping, allowed: set, what: str) -> None:
    extra = set(raw) - allowed
    if extra:
        raise InputError(f"{what}: unknown field(s) {sorted(map(str, extra))} "
                         f"(allowed: {', '.join(sorted(allowed))})")


def parse_game(raw: Any, number: int) -> FideGame:
    what = f"game {number}"
    raw = mapping(raw, what)
    _unknown(raw, GAME_KEYS, what)
    result = raw.get("result")
    if not isinstance(result, str) or result.strip().upper() not in RESULTS:
        raise InputError(f"{what}: 'result' must be W, D or L, not {result!r}")
    fide = raw.get("fide")
    if fide is not None:
        if isinstance(fide, bool) or not isinstance(fide, (int, float)) or not math.isfinite(fide):
            raise InputError(f"{what}: 'fide' must be a number, not {fide!r}")
        if not 0 < fide <= MAX_RATING:
            raise InputError(f"{what}: FIDE rating {fide!r} is impossible (leave 'fide' out "
                             "for an opponent without one)")
        fide = float(fide)
    opponent = raw.get("opponent")
    if opponent is not None and not isinstance(opponent, (str, int)):
        raise InputError(f"{what}: 'opponent' must be a name, not {opponent!r}")
    return FideGame(result.strip().upper(), fide,
                    str(opponent) if opponent is not None else None)


def fide_update_from_dict(raw: Any, source: Optional[str] = None) -> FideUpdate:
    """A :class:`FideUpdate` from the file structure (module docstring)."""
    try:
        raw = mapping(raw, "the file")
        _unknown(raw, TOP_KEYS, "the file")
        if raw.get("kind") != "fide-update":
            raise InputError("'kind' must be fide-update (is this an event file? rate it "
                             "with 'uschess rate')")
        ev = mapping(raw.get("event"), "'event'")
        _unknown(ev, EVENT_KEYS, "event")
        start, end = event_dates(ev)
        youth = ev.get("youth", False)
        if not isinstance(youth, bool):
            raise InputError(f"event: 'youth' must be true or false, not {youth!r}")
        pl = mapping(raw.get("player"), "'player'")
        _unknown(pl, PLAYER_KEYS, "player")
        if pl.get("id") is None or str(pl["id"]).strip() == "":
            raise InputError("player: missing 'id'")
        pid = str(pl["id"])
        try:
            ratings = mapping(pl.get("ratings") or {}, "ratings")
            record = None
            for system, rec in ratings.items():
                if system != SYSTEM:
                    raise InputError(f"only the {SYSTEM} rating is updated from a FIDE event; "
                                     f"leave out {system!r}")
                record = parse_record(rec, system) if rec is not None else None
        except InputError as err:
            raise err.located(player=pid)
        games_raw = raw.get("games")
        if not isinstance(games_raw, list) or not games_raw:
            raise InputError("'games' must be a non-empty list of {opponent, fide, result}")
        games = [parse_game(g, i) for i, g in enumerate(games_raw, start=1)]
        return FideUpdate(player_id=pid, record=record, games=games, start=start, end=end,
                          youth=youth, event_name=str(ev.get("name") or "(foreign FIDE event)"),
                          event_id=str(ev["id"]) if ev.get("id") is not None else None,
                          player_name=str(pl["name"]) if pl.get("name") is not None else None,
                          source=source)
    except InputError as err:
        raise err.located(file=source)


def is_fide_update_data(raw: Any) -> bool:
    """Whether a file's data is a FIDE update (a mapping with ``kind: fide-update``)."""
    return isinstance(raw, Mapping) and raw.get("kind") == "fide-update"


def load_fide_update(path) -> FideUpdate:
    """Read a FIDE update file (``.yaml``, ``.yml`` or ``.json``)."""
    return fide_update_from_dict(read_data(path), source=str(path))


def fide_update_from_trf(path, player_id: str, *, players_file=None, youth: bool = False,
                         record: Optional[SystemRecord] = None) -> FideUpdate:
    """The games of player ``player_id`` (US Chess id, else FIDE id, as
    :mod:`uschess.io.formats.trf` names players) in a TRF of the foreign event.
    The TRF carries no US Chess rating: the OTBR record comes from
    ``players_file`` (see :mod:`uschess.io.formats.players`) or ``record``."""
    try:
        from uschess.io.formats.detect import load_event_any
    except ImportError:
        raise InputError("TRF input needs uschess.io.formats.trf", file=path)
    event = load_event_any(path, players_file=players_file)
    found = [(s, p) for s in event.sections for p in s.players if p.id == str(player_id)]
    if not found:
        raise InputError(f"no player with id {player_id} in this TRF", file=path)
    if len(found) > 1:
        raise InputError(f"player {player_id} is in more than one section of this TRF", file=path)
    section, pl = found[0]
    opponents = {p.pair: p for p in section.players}
    games = []
    for r in pl.rounds:
        if not r.rated:
            continue  # forfeits and byes are not games
        opp = opponents[r.opponent]
        rating = opp.fide.rating if opp.fide is not None and opp.fide.rating else None
        games.append(FideGame(r.code, float(rating) if rating else None, opp.name))
    if not games:
        raise InputError(f"player {player_id} has no played games in this TRF", file=path)
    rec = record if record is not None else pl.ratings.get(SYSTEM)
    return FideUpdate(player_id=pl.id, record=rec, games=games, start=section.start,
                      end=section.end, youth=youth, event_name=event.name, event_id=event.id,
                      player_name=pl.name, source=str(path))


# ----------------------------------------------------------------- rating
def _rules_for(update: FideUpdate, options: RatingOptions, book: Optional[RuleBook]) -> Rules:
    book = book or RuleBook.load()
    return book.rules(options.rules_on or update.start, known_on=options.known_on,
                      readings=options.readings, edition=options.edition, reform=options.reform)


def fide_update(update: FideUpdate, options: Optional[RatingOptions] = None,
                book: Optional[RuleBook] = None) -> FideUpdateResult:
    """Sec. 6: the player's OTBR rating after the foreign event."""
    options = options or RatingOptions()
    where = dict(file=update.source, player=update.player_id)
    rules = _rules_for(update, options, book)
    p, hook = rules.p, rules.hook
    rec = update.record
    if rec is None:
        raise InputError(f"only players with an established US Chess {SYSTEM} rating are "
                         f"updated from FIDE events (sec. 6); this player has none", **where)
    if rec.games <= p.established_games:
        raise InputError(f"only players with an established US Chess {SYSTEM} rating are "
                         f"updated from FIDE events (sec. 6); this player's is provisional "
                         f"({rec.games} games, established means more than "
                         f"{p.established_games})", **where)
    conversion = "fide_youth_conversion" if update.youth else "fide_conversion"
    pieces = getattr(p, conversion)
    opponents = []
    for i, g in enumerate(update.games, start=1):
        if g.result not in RESULTS:
            raise InputError(f"result {g.result!r} is not W, D or L", **where)
        us = piecewise(g.fide, pieces) if g.fide is not None else None
        if us is not None and us < p.absolute_floor:
            raise InputError(f"game {i}: FIDE rating {g.fide:g} converts to {us:g} on the US "
                             f"Chess scale, below the absolute floor {p.absolute_floor:g}: no "
                             "real FIDE rating does", **where)
        opponents.append(FideOpponent(g.opponent, g.fide, us, g.result, g.fide is None))
    counted = [(i, o) for i, o in enumerate(opponents) if not o.ignored]
    m = len(counted)
    pre = rec.rating
    n_eff = effective_games(rec.games, pre, **p.nstar)
    conv = rules.params[conversion]
    notes = [f"rules in force on {rules.on.isoformat()} (the event's start)",
             f"opponents converted with {conversion}"
             + (" (youth event)" if update.youth else "")
             + f" [{conv.entry.source.cite() if conv.entry else '?'}"
             + (f", in force from {conv.entry.effective.isoformat()}]"
                if conv.entry and conv.origin == "history" else "]")]
    ignored = len(opponents) - m
    if ignored:
        notes.append(f"{ignored} opponent(s) without a FIDE rating ignored (sec. 6)")
    depends = set(FIDE_DEPENDS) | DEPENDS["floor"] | DEPENDS["storage"]
    if m == 0:
        notes.append("no FIDE-rated opponent: the rating is unchanged")
        return FideUpdateResult(
            id=update.player_id, name=update.player_name, system=SYSTEM, pre=pre, post=pre,
            k=None, bonus=None, bonus_eligible=None, expected=None, score=0.0, m=0, n_eff=n_eff,
            games_before=rec.games, games_after=rec.games, youth=update.youth,
            conversion=conversion, opponents=opponents, floor=None, floor_reason=None,
            floor_applied=False, record_after=rec, rules=rules, update=update,
            warnings=rules.warnings(depends), notes=notes)
    opps = [o.us for _, o in counted]
    score = sum(RESULTS[o.result] for _, o in counted)
    k = hook.uschess_k_factor(r0=pre, n_eff=n_eff, m=m, system=SYSTEM, tc=None, half_k=False,
                              otbr=pre, p=p)
    # unnamed opponents are told apart by their place in the list
    counts = Counter(o.name if o.name is not None else f"#{i}" for i, o in counted)
    eligible = bool(hook.uschess_bonus_eligible(m=m, opponent_counts=counts, p=p))
    value, expected, bonus = standard_rating(pre, k, opps, score, bonus_eligible=eligible,
                                             b=p.bonus_multiplier,
                                             m_prime_min=p.bonus_m_prime_min)
    value = max(value, p.absolute_floor)

    wins = sum(1 for _, o in counted if o.result == "W")
    losses = sum(1 for _, o in counted if o.result == "L")
    draws = m - wins - losses

    carries = getattr(rec, "lowered_floor", None) is not None
    after = record_after(rec, m, wins, draws, losses, value, update.end, p,
                         cls=MatchRecord if carries else SystemRecord)
    floor, reason = hook.uschess_personal_floor(system=SYSTEM, after=after, p=p)
    floor, reason, lowered, lowered_from = lowered_floor_for(rec, floor, reason)
    if lowered is not None:
        after.lowered_floor, after.lowered_from = lowered, lowered_from
    floor_applied = value < floor
    post = float(floor) if floor_applied else value
    post = hook.uschess_store_rating(pre=pre, value=post, p=p)
    settle_record(after, post, p)
    return FideUpdateResult(
        id=update.player_id, name=update.player_name, system=SYSTEM, pre=pre, post=post, k=k,
        bonus=bonus, bonus_eligible=eligible, expected=expected, score=score, m=m, n_eff=n_eff,
        games_before=rec.games, games_after=after.games, youth=update.youth,
        conversion=conversion, opponents=opponents, floor=float(floor), floor_reason=reason,
        floor_applied=floor_applied, record_after=after, rules=rules, update=update,
        warnings=rules.warnings(depends), notes=notes)


def store_event_id(update: FideUpdate) -> str:
    """The id a FIDE update is kept under in a ratings store."""
    return update.event_id or f"fide-update:{update.player_id}:{update.start.isoformat()}"


def fide_update_write(result: FideUpdateResult, *, fingerprint: Optional[str] = None,
                      rules_stored: bool = False, new_player: bool = False):
    """What a rated FIDE update writes to a ratings store
    (:class:`uschess.io.store.EventWrite`): one event (id :func:`store_event_id`)
    with one change in section ``FIDE`` (none when no opponent counted), the
    rules unless ``rules_stored``, and the player's identity when
    ``new_player``.  ``fingerprint`` defaults to the result's rules'."""
    from uschess.io.store import EventWrite, PlayerInfo

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
        write.changes.append((eid, 0, "FIDE", SYSTEM, update.player_id, result.pre, result.post,
                              result.games_before, result.games_after, result.m, result.score,
                              result.formula, int(result.floor_applied), fp))
        write.ratings[(update.player_id, SYSTEM)] = result.record_after
    if new_player:
        write.players.append(PlayerInfo(id=update.player_id, name=update.player_name))
    return write


def apply_fide_update(update: FideUpdate, store, options: Optional[RatingOptions] = None,
                      book: Optional[RuleBook] = None) -> FideUpdateResult:
    """Rate ``update`` from the player's OTBR state in a ratings store
    (:class:`uschess.io.store.Store`; the store's record wins over the file's) and
    write it there as one event (id :func:`store_event_id`, section ``FIDE``)
    with one change.  A replay (:func:`uschess.apps.replay.replay`) takes FIDE
    updates among its events and writes the same."""
    from dataclasses import replace

    stored = store.states([update.player_id]).get((update.player_id, SYSTEM))
    if stored is not None:
        update = replace(update, record=stored)
    result = fide_update(update, options, book)
    write = fide_update_write(result, rules_stored=store.rules(result.rules.fingerprint) is not None,
                              new_player=store.player(update.player_id) is None)
    store.apply_event(write)
    return result


def format_result(res: FideUpdateResult) -> str:
    """The text ``uschess fide-update`` prints."""
    u = res.update
    lines = [f"{res.name or res.id} ({res.id}): {u.event_name} {u.start.isoformat()}"
             f"{'..' + u.end.isoformat() if u.end != u.start else ''}"
             f"{' (youth event)' if u.youth else ''}",
             f"  rules in force on {res.rules.on.isoformat()} (fingerprint {res.rules.fingerprint})"]
    for o in res.opponents:
        shown = "no FIDE rating: ignored" if o.ignored else f"FIDE {o.fide:g} -> US {o.us:.2f}"
        lines.append(f"  {o.result}  {o.name or '(unnamed)':<28} {shown}")
    if res.m:
        lines.append(f"  N' = {res.n_eff:.4f}, m = {res.m}, K = {res.k:.4f}, S = {res.score:g}, "
                     f"E = {res.expected:.4f}, bonus = {res.bonus:.4f} "
                     f"({'eligible' if res.bonus_eligible else 'not eligible'})")
        if res.floor_applied:
            lines.append(f"  floor {res.floor:g} ({res.floor_reason}) applied")
    lines.append(f"  {SYSTEM}: {res.pre:.2f} -> {res.post:.2f} (shown {round_half_up(res.pre)} -> "
                 f"{res.post_rounded}), N {res.games_before} -> {res.games_after}")
    for n in res.notes:
        lines.append(f"  - {n}")
    for w in res.warnings:
        lines.append(f"  ! {w}")
    return "\n".join(lines) + "\n"


__all__ = ["FideGame", "FideUpdate", "FideOpponent", "FideUpdateResult", "fide_update",
           "apply_fide_update", "store_event_id", "fide_update_write", "is_fide_update_data",
           "fide_update_from_dict", "load_fide_update", "fide_update_from_trf", "format_result"]
