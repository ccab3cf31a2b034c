"""The finish step, one for every kind of rated unit: after steps 1-5
(:mod:`uschess.rating.steps`), the caps of a match, the personal floor (or a
floor lowered after a match), storage, and the record after the event.

Personal floors bind only the final rating (project reading 1) and reflect
the record including the event (project reading 2).  A floor lowered at a
player's request after a match (sec. 7, restriction 4) is carried in the
record (``SystemRecord.lowered_floor`` / ``lowered_from``) and replaces the
sec. 5 floor while sec. 5 still gives the floor it replaced; a new peak that
raises the floor ends it.  In a match, floors are not automatic: a result
below the floor is a request to lower it by ``match_floor_step``, granted or
not (``grant``).
"""

from __future__ import annotations

import datetime as _dt
from dataclasses import dataclass
from typing import Optional, Sequence

from uschess.errors import InputError
from uschess.io.eventfile import MAX_RATING
from uschess.model import MatchChange, SystemRecord
from uschess.rating.caps import cap_change
from uschess.rating.results import MatchPlayerResult, PlayerResult
from uschess.rating.steps import Entrant, Steps
from uschess.rules.base import EventCounts, Floor


def record_after(rec: Optional[SystemRecord], m: int, wins: int, draws: int, losses: int,
                 value: float, date, p, initial_games: int = 0) -> SystemRecord:
    """A player's record after an event of ``m`` rated games, rated ``value``
    before personal floors and storage.  Counts include the event (project
    reading 2); unknown earlier counts stay unknown, except for a player new
    to the system.  A player new to the system has played N + m games after
    it, N the games step 1 gave the initial rating (``initial_games``; 0 for
    an age-based one), as the published provisional counts show (project
    reading 12).  The highest established rating takes in the pre-event
    rating (when established) and ``value`` (when established after).  A
    floor lowered after a match is carried over (the finish step decides
    whether it still holds)."""

    est = p.established_games
    olm = p.olm
    three = 1 if m >= p.event_rated_games else 0
    if rec is None:  # new to the system: every win, draw and loss is this event's
        games = initial_games + m
        peak = value if games > est else None
        above = 0
        after = SystemRecord(value, games, wins, draws, losses, three, peak, False, None, date, 0)
    else:
        games = rec.games + m
        was_established = rec.games > est
        peak = rec.peak
        if was_established and (peak is None or rec.rating > peak):
            peak = rec.rating
        if games > est and (peak is None or value > peak):
            peak = value
        g2200 = rec.games_above_2200
        if g2200 is not None and was_established and rec.rating > olm["above"]:
            g2200 += m
        after = SystemRecord(
            value, games,
            None if rec.wins is None else rec.wins + wins,
            None if rec.draws is None else rec.draws + draws,
            None if rec.losses is None else rec.losses + losses,
            None if rec.events3 is None else rec.events3 + three,
            peak, rec.olm, rec.prize_floor, date, g2200)
        above = g2200
    if above is not None and above >= olm["games"]:
        after.olm = True
    return after


def settle_record(after: SystemRecord, post: float, p, who=None) -> None:
    """Set the stored post-event rating on the record (and the peak).  A
    rating above MAX_RATING, the bound every rating is read with, is refused:
    what is written must read back, and no real rating comes near it.
    ``who`` names the player in that message: a label, or the player (whose
    label is only made then)."""
    if post > MAX_RATING:
        raise InputError(f"the post-event rating {post:.2f} is above {MAX_RATING:g}, the bound "
                         "of every rating read or written: the pre-event ratings cannot be "
                         "real", player=getattr(who, "label", who))
    after.rating = post
    if after.games > p.established_games:
        peak = after.peak
        after.peak = post if peak is None or post > peak else peak  # max(peak, post)


def lowered_floor_for(before: Optional[SystemRecord], floor: float,
                      reason: str) -> tuple[float, str, Optional[float], Optional[float]]:
    """The floor to use after an event, given the player's record before it
    and the sec. 5 ``floor`` computed on the record after it: a floor lowered
    after an earlier match (``before.lowered_floor``) replaces ``floor`` while
    ``floor`` is still the one it replaced (``before.lowered_from``).  Returns
    (floor, reason, lowered_floor, lowered_from), the last two to carry into
    the record after the event (None, None when nothing is lowered)."""
    if before is not None and before.lowered_floor is not None and float(floor) == before.lowered_from:
        lowered = before.lowered_floor
        return (lowered, f"{reason}, lowered to {lowered:g} after a match (sec. 7)",
                lowered, before.lowered_from)
    return floor, reason, None, None


@dataclass
class MatchInputs:
    """What a match's finish needs beyond the steps: the player's earlier
    match changes in the system (sec. 7 restriction 2) and where they came
    from, and whether requests to lower a floor are granted."""

    history: Sequence[MatchChange]
    history_source: str
    grant: bool = False


def finish(e: Entrant, system: str, st: Steps, rules, end: _dt.date, *,
           match: Optional[MatchInputs] = None) -> PlayerResult:
    """The finish step for one player with rated games (``e.m > 0``); traced
    as the steps were (``st.recorder``)."""
    return FinishStep(system, st, rules, end)(e, match)


class FinishStep:
    """The finish step of one rated unit in one system, for each of its
    players with rated games in turn (``step(e)``; a match's player with
    their :class:`MatchInputs`): the caps of a match (sec. 7), the personal
    floor (sec. 5; in a match, a request to lower it), storage, and the
    record after the event.  It keeps what the steps' recorder asks
    (``st.recorder``): the rules each rating read, turned into the warnings
    of the rules in force, and what steps 4 and 5 did."""

    __slots__ = ("system", "st", "rules", "end", "kind", "last5", "recorder", "traced")

    def __init__(self, system: str, st: Steps, rules, end: _dt.date):
        self.system, self.st, self.rules, self.end = system, st, rules, end
        self.kind = st.kind
        self.last5 = st.kind.last_step == 5
        self.recorder = st.recorder
        self.traced = st.recorder.on

    def __call__(self, e: Entrant, match: Optional[MatchInputs] = None) -> PlayerResult:
        kind, system, end, rules = self.kind, self.system, self.end, self.rules
        traced = self.traced
        pl = e.pl
        pair = pl.pair
        reads = e.reads
        if traced:  # the views note what the rating reads
            p, call = reads.params(rules.p), reads.calls(rules.call)
        else:
            p, call = rules.p, rules.call
        rec = e.rec
        pre = rec.rating if rec is not None else None
        step5 = self.st.step5[pair]
        value = step5
        notes: list[str] = []
        caps = None
        if kind.caps:
            caps, value = _capped(step5, pre, end, match, p, notes)

        m, wins, losses = e.m, e.wins, e.losses
        draws = m - wins - losses  # Entrant.draws
        # The highest rating attained is the rating as stored (sec. 5): in the
        # integer era the rounded one, so the record's peak is taken from it
        attained = call.uschess_store_rating(pre=pre, value=value, p=p)
        after = record_after(rec, m, wins, draws, losses, attained, end, p,
                             0 if rec is not None else e.n)
        event = EventCounts(wins, draws, losses, 1 if m >= p.event_rated_games else 0)
        if traced:
            floor_reads = self.recorder.reads()
            fl = floor_reads.calls(rules.call).uschess_personal_floor(
                system=system, after=after, event=event, p=floor_reads.params(rules.p))
        else:
            fl = call.uschess_personal_floor(system=system, after=after, event=event, p=p)
        if rec is not None and rec.lowered_floor is not None:
            floor, reason, lowered, lowered_from = lowered_floor_for(rec, fl.value, fl.reason)
            if lowered is not None:
                after.lowered_floor, after.lowered_from = lowered, lowered_from
        else:  # no floor was lowered after a match: the sec. 5 floor
            floor, reason, lowered = fl.value, fl.reason, None

        post, floor_applied, request = value, False, None
        if value < floor:
            if kind.floor_requests and floor > p.absolute_floor:
                post, floor_applied, request = _floor_request(value, floor, reason, match,
                                                              after, p, notes)
            else:
                post, floor_applied = float(floor), True
        # storage is a function of (pre, value): unmoved by a floor, the rating attained
        post = attained if post is value else call.uschess_store_rating(pre=pre, value=post, p=p)
        settle_record(after, post, p, pl)

        # A floor is part of what the rating depended on when it bound, when a
        # lowered floor stood in for it, or in a match (where it decides a request).
        # (untraced, a rating reads nothing it notes: it depends on no rule's warnings)
        if traced:
            depends = frozenset(reads.names | floor_reads.names if (
                floor_applied or lowered is not None or kind.floor_requests) else reads.names)
            warnings = rules.warnings(depends) if depends else []
        else:
            depends, warnings = _NOTHING, []
        if notes:
            warnings += notes
        if fl.could_be is not None and value < fl.could_be:
            warnings += unknown_history_warnings(fl, value, system)
        if floor_applied and pre is not None and pre < floor:
            warnings += below_floor_warnings(pre, floor, reason)
        last5, st = self.last5, self.st
        formula = "special" if e.special else "standard"
        if match is not None:
            formula = f"match ({formula}, no bonus)"
        # K, E, bonus: the standard formula's in the last step (None: special).  Positional,
        # in field order (a test holds it): a third of the time of 25 keywords
        out = (PlayerResult if match is None else MatchPlayerResult)(
            pair, pl.id, pl.name, system, pre,                      # pair .. pre
            rec.games if rec else 0, m, e.score, post,              # games_before .. post
            after.games, formula,                                   # games_after, formula
            st.initial.get(pair), e.n_eff, st.step3.get(pair),     # initial, n_eff, step3
            st.step4[pair] if last5 else None, step5 if last5 else None,   # step4, step5
            e.k, e.bonus, e.expected,                               # k, bonus, expected
            float(floor) if kind.floor_requests else floor, reason,   # floor, floor_reason
            floor_applied, after, depends, warnings)   # floor_applied .. warnings
        if match is not None:
            out.change_uncapped, out.change, out.caps = step5 - pre, post - pre, caps
            out.history, out.history_source = list(match.history), match.history_source
            out.floor_request = request
        if traced:
            out.trace = self._trace(pair, match, step5 - pre if match is not None else None, caps)
        return out

    def _trace(self, pair: int, match: Optional[MatchInputs], change: Optional[float],
               caps) -> dict:
        """What steps 4 and 5 did for the player of ``pair`` (a match's caps
        with step 5: ``change``, the change before them, and ``caps``)."""
        info5 = self.st.details5[pair]
        if match is not None:
            info5 = dict(info5, match={"change_uncapped": change, "caps": caps.as_dict()})
        return {"step4": self.st.details4.get(pair), "step5": info5}


#: What an untraced rating depends on: no rule is noted.
_NOTHING: frozenset = frozenset()


def _capped(step5: float, pre: float, end: _dt.date, match: MatchInputs, p,
            notes: list) -> tuple:
    """A match's change capped (sec. 7 restriction 2): (the caps' outcome,
    the rating they give, at least the absolute floor); what they did goes
    into ``notes``."""
    caps = cap_change(step5 - pre, end, match.history, per_match=p.match_change_cap,
                      windows=p.match_net_caps)
    notes.append("rated as a match (sec. 7): no bonus; caps on the change; "
                 "floors not automatic")
    if caps.capped:
        notes.append(f"change {caps.change_in:+.2f} capped to {caps.change_out:+.2f} "
                     f"({'; '.join(caps.binding)})")
    return caps, max(pre + caps.change_out, p.absolute_floor)


def _floor_request(value: float, floor: float, reason: str, match: MatchInputs,
                   after: SystemRecord, p, notes: list) -> tuple:
    """A match result below the floor (sec. 7 restriction 4): a request to
    lower the floor by ``match_floor_step``, granted or not.  Returns (post
    before storage, whether the floor holds it, the request)."""
    new_floor = max(floor - p.match_floor_step, p.absolute_floor)
    request = {"floor": float(floor), "requested_floor": float(new_floor),
               "rating_if_granted": max(value, new_floor), "granted": match.grant,
               "reason": reason}
    if match.grant:
        after.lowered_floor = float(new_floor)
        if after.lowered_from is None:
            after.lowered_from = float(floor)
        notes.append(f"result {value:.2f} is below the floor {floor:g}: request to "
                     f"lower it by {p.match_floor_step:g} GRANTED; new floor {new_floor:g}")
        return max(value, new_floor), False, request
    notes.append(f"result {value:.2f} is below the floor {floor:g}: request to "
                 f"lower it to {new_floor:g} (not granted here; rating held at "
                 "the floor; grant with --grant-floor-requests)")
    return float(floor), True, request


def unknown_history_warnings(fl: Floor, value: float, system: str) -> list[str]:
    """The warning for a rating ``value`` (before floors) that a higher floor
    could still raise: the record's earlier win/draw/event counts are unknown,
    so the personal absolute floor counted this event's results only (sec. 5)."""
    if fl.could_be is None or value >= fl.could_be:
        return []
    return [f"earlier {', '.join(fl.unknown)} in {system} unknown: the floor {fl.value:g} "
            f"counts only this event's results there and may be higher, up to {fl.could_be:g} "
            "(sec. 5)"]


def below_floor_warnings(pre: float, floor: float, reason: str) -> list[str]:
    """The warning for a result held at a floor that the pre-event rating
    was already below.  A floor holds a rating up (sec. 5); the record
    should never have been under it, so the input is inconsistent (a peak,
    prize floor or OLM flag that does not belong to the record) or the
    floor was lowered in a way the record does not say (a floor lowered
    after a match is given as ``lowered_floor``/``lowered_from``).  The
    result is still held at the floor, as the rules say."""
    return [f"the pre-event rating {pre:.2f} is already below the floor {floor:g} ({reason}) "
            "that holds the result: the record is inconsistent, or its floor was lowered "
            "(give lowered_floor and lowered_from)"]


def unrated(pl, system: str, rec: Optional[SystemRecord], pre_from: Optional[str] = None
            ) -> PlayerResult:
    """A player with no rated game in the unit: nothing changes."""
    return PlayerResult(
        pair=pl.pair, id=pl.id, name=pl.name, system=system,
        pre=rec.rating if rec else None, games_before=rec.games if rec else 0, m=0,
        score=pl.total, post=rec.rating if rec else None,
        games_after=rec.games if rec else 0, formula="not rated (no rated games)",
        record_after=rec, pre_from=pre_from)


__all__ = ["record_after", "settle_record", "lowered_floor_for", "MatchInputs", "finish",
           "FinishStep",
           "below_floor_warnings", "unknown_history_warnings", "unrated"]
