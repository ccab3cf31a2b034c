"""Updating a US Chess rating from a foreign FIDE event (sec. 6).

Only a player with an established OTBR rating is eligible.  Each opponent's
FIDE rating is converted to the US Chess scale by the initialization plugin in
force on the event's start date (its ``fide_us``, over ``p.fide_conversion``,
sec. 2.1 / 2017 sec. 2.6; for a youth event its ``fide_youth_us``, over the
youth conversion of sec. 6, ``p.fide_youth_conversion``), so a conversion of
another shape reaches both; opponents without a FIDE rating are ignored.
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

Input: :mod:`uschess.io.fide_file` (YAML or JSON, or a TRF)::

    kind: fide-update
    event: {name: "Open abroad", start: "2024-03-10", end: "2024-03-15", youth: false}
    player: {id: "12345678", name: "Doe, Jane", ratings: {OTBR: {rating: 2100.0, games: 120}}}
    games: [{opponent: "Smith", fide: 1900, result: W}, {fide: 2050, result: D}, {result: L}]

or a TRF of the foreign event with the player's id (:func:`fide_update_from_trf`;
the player's OTBR record from a players file).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Optional

from uschess.errors import InputError
from uschess.calendar.rulebook import RuleBook
from uschess.formulas import effective_games, round_half_up
from uschess.io.fide_file import SYSTEM, FideGame, FideUpdate
from uschess.model import (FIDE_OPPONENT_ID, GAME_CODES, MIRROR, Event, Player, Round, Section,
                           SystemRecord)
from uschess.rating.finish import finish
from uschess.rating.options import RatingOptions
from uschess.rating.results import EventResult, PlayerResult, SectionResult
from uschess.rating.steps import FIDE_UPDATE, five_steps

#: Pair numbers of the unit a FIDE update is rated as: the player, then one
#: pair per distinct opponent.
PLAYER_PAIR = 1


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
    rules: object  # uschess.calendar.rulebook.Rules
    update: FideUpdate
    formula: str = "fide-update (standard, once)"
    warnings: list = field(default_factory=list)
    notes: list = field(default_factory=list)
    player: Optional[PlayerResult] = None  # the pipeline's result (None: no game counted)

    def as_event_result(self, event_id: Optional[str] = None) -> EventResult:
        """The update as a one-section event result (section ``FIDE``, the
        player alone), for code that reads events and updates alike."""
        u = self.update
        pl = Player(pair=PLAYER_PAIR, id=u.player_id, name=u.player_name or "", rounds=[])
        section = Section(name="FIDE", time_control="", players=[pl], start=u.start, end=u.end)
        event = Event(name=u.event_name, start=u.start, end=u.end, sections=[section],
                      id=event_id or u.event_id, source=u.source)
        players = [self.player] if self.player is not None else []
        return EventResult(event, [SectionResult(section, SYSTEM, self.rules, None, players)])

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
            "record_after": self.record_after.as_dict(compact=True),
            "rules": {"on": self.rules.on.isoformat(), "fingerprint": self.rules.fingerprint},
            "warnings": list(self.warnings), "notes": list(self.notes),
        }


def fide_update(update: FideUpdate, options: Optional[RatingOptions] = None,
                book=None) -> FideUpdateResult:
    """Sec. 6: the player's OTBR rating after the foreign event, under the
    rules in force on the event's start (or those ``options`` pick)."""
    options = options or RatingOptions()
    return rate_fide_update(update, options.rules_for(book or RuleBook.load(), update.start),
                            trace=options.trace)


def _unit(update: FideUpdate, counted: list[FideOpponent], record: SystemRecord,
          ) -> tuple[Section, dict]:
    """The foreign event as a unit of the pipeline: the player (pair 1) and
    one pair per opponent, an opponent told apart by name (an unnamed one,
    or one named twice with another FIDE rating, is another opponent), each
    at its converted rating.  Returns the section and the records by pair."""
    pairs: dict = {}
    rounds, opponents, records = [], [], {PLAYER_PAIR: record}
    for i, o in enumerate(counted):
        key = (o.name, o.us) if o.name is not None else ("#", i)
        pair = pairs.get(key)
        if pair is None:
            pair = pairs[key] = PLAYER_PAIR + 1 + len(pairs)
            opponents.append(Player(pair=pair, id=f"{FIDE_OPPONENT_ID}{pair}",
                                    name=o.name or "(unnamed)", rounds=[]))
            records[pair] = SystemRecord(rating=o.us, games=1)
        rounds.append(Round(o.result, pair))
        opponents[pair - PLAYER_PAIR - 1].rounds.append(Round(MIRROR[o.result], PLAYER_PAIR))
    player = Player(pair=PLAYER_PAIR, id=update.player_id, name=update.player_name or "",
                    rounds=rounds)
    section = Section(name="FIDE", time_control="", players=[player, *opponents],
                      start=update.start, end=update.end)
    return section, records


def rate_fide_update(update: FideUpdate, rules, trace: bool = True) -> FideUpdateResult:
    """Sec. 6 under ``rules``: the standard formula with the bonus, applied
    once (the pipeline's steps stopping at step 4, the standard formula for
    the player whatever the history), then the one finish step."""
    where = dict(file=update.source, player=update.player_id)
    p = rules.p
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
    # the conversion of the initialization in force (sec. 2.1; sec. 6 for a
    # youth event): one rule for initialization and FIDE updates alike
    init = rules.plugin("initialize")
    convert = init.fide_youth_us if update.youth else init.fide_us
    opponents = []
    for i, g in enumerate(update.games, start=1):
        if g.result not in GAME_CODES:
            raise InputError(f"result {g.result!r} is not W, D or L", **where)
        try:
            us = convert(g.fide, p) if g.fide is not None else None
        except InputError as err:
            raise InputError(f"game {i}: {err.message}", **where) from None
        opponents.append(FideOpponent(g.opponent, g.fide, us, g.result, g.fide is None))
    counted = [o for o in opponents if not o.ignored]
    conv = rules.params[conversion]
    notes = [f"rules in force on {rules.on.isoformat()} (the event's start)",
             f"opponents converted with {conversion}"
             + (" (youth event)" if update.youth else "")
             + f" [{conv.entry.source.cite() if conv.entry else '?'}"
             + (f", in force from {conv.entry.effective.isoformat()}]"
                if conv.entry and conv.origin == "history" else "]")]
    ignored = len(opponents) - len(counted)
    if ignored:
        notes.append(f"{ignored} opponent(s) without a FIDE rating ignored (sec. 6)")
    common = dict(id=update.player_id, name=update.player_name, system=SYSTEM, pre=rec.rating,
                  games_before=rec.games, youth=update.youth, conversion=conversion,
                  opponents=opponents, rules=rules, update=update)
    if not counted:
        notes.append("no FIDE-rated opponent: the rating is unchanged")
        return FideUpdateResult(
            **common, post=rec.rating, k=None, bonus=None, bonus_eligible=None, expected=None,
            score=0.0, m=0, n_eff=effective_games(rec.games, rec.rating, **p.nstar),
            games_after=rec.games, floor=None, floor_reason=None, floor_applied=False,
            record_after=rec, warnings=rules.warnings({conversion}), notes=notes)
    section, records = _unit(update, counted, rec)
    st = five_steps(section, SYSTEM, rules, None, kind=FIDE_UPDATE, trace=trace, records=records)
    e = st.entrants[PLAYER_PAIR]
    e.reads.names.add(conversion)
    pr = finish(e, SYSTEM, st, rules, update.end)
    return FideUpdateResult(
        **common, post=pr.post, k=pr.k, bonus=pr.bonus, bonus_eligible=e.eligible,
        expected=pr.expected, score=pr.score, m=pr.m, n_eff=pr.n_eff,
        games_after=pr.games_after, floor=float(pr.floor), floor_reason=pr.floor_reason,
        floor_applied=pr.floor_applied, record_after=pr.record_after, warnings=pr.warnings,
        notes=notes, player=pr)


def rate_fide_section(section: Section, rules, tc=None, trace: bool = True) -> SectionResult:
    """A section of a FIDE event abroad as a page prints it (sec. 6): each
    player's OTBR rating updated from the FIDE ratings of the opponents,
    the players whose id begins with :data:`FIDE_OPPONENT_ID` (their
    ``fide`` rating; none: a game sec. 6 ignores).  A player sec. 6 does
    not update (no established OTBR rating) gets no result, with a warning;
    so does one with no FIDE-rated game.  ``tc``: the section's time control
    (for reports; sec. 6 rates without one)."""
    by_pair = {p.pair: p for p in section.players}
    players, warnings = [], []
    for pl in section.players:
        if pl.id.startswith(FIDE_OPPONENT_ID):
            continue
        games = []
        for r in pl.rounds:
            if r.opponent is not None and r.code in GAME_CODES:
                fide = by_pair[r.opponent].fide
                games.append(FideGame(r.code, fide=fide.rating if fide is not None else None))
        update = FideUpdate(pl.id, pl.ratings.get(SYSTEM), games, section.start, section.end,
                            event_name=section.name, player_name=pl.name)
        try:
            result = rate_fide_update(update, rules, trace=trace)
        except InputError as err:
            warnings.append(f"player {pl.label}: not updated ({err.message})")
            continue
        if result.player is None:
            warnings.append(f"player {pl.label}: no FIDE-rated game: not updated")
            continue
        players.append(replace(result.player, pair=pl.pair))
    return SectionResult(section, SYSTEM, rules, tc, players, warnings)


__all__ = ["FideOpponent", "FideUpdateResult", "fide_update",
           "rate_fide_section", "rate_fide_update"]
