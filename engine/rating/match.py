"""Individual matches (sec. 7, "Miscellaneous details", restrictions 1-4).

A section marked ``type: match`` in the event file is rated here instead of by
:func:`uschess.rating.pipeline.rate_section`, and gives a
:class:`~uschess.rating.pipeline.SectionResult` of the same shape (its players are
:class:`MatchPlayerResult`, a :class:`~uschess.rating.pipeline.PlayerResult` with a
``match`` part).  Every number comes from ``rulesets/matches.yaml``:

1. Both players must hold an established published rating in the system (more
   than ``established_games`` games), and their published (rounded) ratings may
   be at most ``match_max_rating_gap`` apart; anything else is refused with an
   :class:`~uschess.errors.InputError` naming the player.
2. The change from one match is capped at ``match_change_cap``; the net change
   from match play in any period of ``match_net_caps`` (180 days, 3 years) is
   capped too.  See :func:`cap_change` for what "net change in any 180 days"
   means here.
3. No bonus: the standard formula without the bonus term.  Otherwise the five
   steps of sec. 1 as written: with both players established, steps 1 and 3 do
   nothing, step 4 rates each player against the other's pre-match rating and
   step 5 again against the other's step-4 result.  (An established player
   whose every earlier game was won, or lost, gets the special formula in step
   4/5 as in any section.)  The caps apply to the final change, step 5 minus
   the pre-match rating.
4. Floors are not automatic.  A capped result below the player's floor is a
   request to lower the floor by ``match_floor_step``: without
   ``grant_floor_requests`` the rating is held at the floor (the request is
   reported in ``match.floor_request``); with it the rating drops (no lower
   than the new floor) and the record after the match is a
   :class:`MatchRecord` whose ``lowered_floor`` is the new floor.  The
   absolute floor (100) is never lowered.  The lowered floor lasts while the
   sec. 5 floor it replaced (``lowered_from``) is still the one computed: a
   later match (:func:`lowered_floor_for`), FIDE update or, in a replay, any
   later event (:func:`honour_lowered_floor`; the ratings store keeps both
   numbers) is judged against it.

The caps look back over the player's earlier matches in the same system, a
list of (date, change).  It comes, first found, from the ``match_history``
argument or ``RatingOptions.match_history`` (a mapping, a function, or a
ratings store, :class:`uschess.io.store.Store`, whose changes with a ``match``
formula are the earlier matches; a store-like source with a ``knows(player
id, system)`` method that says no is passed over), a ``match_history`` attribute of the
:class:`~uschess.model.Player`, or the event file: an optional
``match_history`` list on each player of the match section::

    match_history:
      - {date: 2024-05-01, change: 40.0}            # this section's systems
      - {date: 2023-11-12, change: -12.5, system: OTBQ}

A match's date, for the windows, is its section's end date.
"""

from __future__ import annotations

import datetime as _dt
import math
from dataclasses import dataclass, field
from typing import Any, Iterable, Mapping, Optional, Sequence


from uschess.errors import InputError
from uschess.io.eventfile import parse_date
from uschess.formulas import round_half_up
from uschess.model import SYSTEMS, Player, Section, SystemRecord
from uschess.rules.base import EventCounts
from uschess.rating.pipeline import (DEPENDS, PlayerResult, SectionResult, _record_dict, five_steps,
                       record_after, settle_record, unknown_history_warnings)
from uschess.calendar.rulebook import Rules
from uschess.timecontrol import TimeControl

#: Parameters every match depends on (for per-player warnings).
MATCH_DEPENDS = {"match_max_rating_gap", "match_change_cap", "match_net_caps", "match_floor_step",
                 "established_games"}

HISTORY_KEYS = {"date", "change", "system"}


# --------------------------------------------------------------------- history
@dataclass(frozen=True)
class MatchChange:
    """One earlier match's change to a player's rating (post - pre).
    ``system`` None: the system of the match being rated."""

    date: _dt.date
    change: float
    system: Optional[str] = None

    def as_dict(self) -> dict:
        out = {"date": self.date.isoformat(), "change": self.change}
        if self.system:
            out["system"] = self.system
        return out


def parse_history_entry(raw: Any, what: str = "match_history entry") -> MatchChange:
    """A :class:`MatchChange` from a mapping ``{date, change, system?}``, a
    tuple ``(date, change[, system])`` or a MatchChange; InputError otherwise."""
    if isinstance(raw, MatchChange):
        raw = {"date": raw.date, "change": raw.change, "system": raw.system}
    elif isinstance(raw, (tuple, list)):
        if len(raw) not in (2, 3):
            raise InputError(f"{what}: {raw!r} is not (date, change) or (date, change, system)")
        raw = dict(zip(("date", "change", "system"), raw))
    if not isinstance(raw, Mapping):
        raise InputError(f"{what}: {raw!r} is not a mapping like {{date: 2024-05-01, change: 40.0}}")
    unknown = set(raw) - HISTORY_KEYS
    if unknown:
        raise InputError(f"{what}: unknown field(s) {sorted(map(str, unknown))} "
                         "(allowed: date, change, system)")
    if raw.get("date") is None:
        raise InputError(f"{what}: missing 'date'")
    if "change" not in raw or raw["change"] is None:
        raise InputError(f"{what}: missing 'change'")
    change = raw["change"]
    if isinstance(change, bool) or not isinstance(change, (int, float)) or not math.isfinite(change):
        raise InputError(f"{what}: 'change' must be a finite number, not {change!r}")
    system = raw.get("system")
    if system is not None and system not in SYSTEMS:
        raise InputError(f"{what}: unknown rating system {system!r} (one of {', '.join(SYSTEMS)})")
    return MatchChange(parse_date(raw["date"], f"{what}: date"), float(change), system)


def parse_history(raw: Any, what: str = "match_history") -> list[MatchChange]:
    if raw is None:
        return []
    if isinstance(raw, (str, bytes, Mapping)) or not isinstance(raw, Iterable):
        raise InputError(f"{what} must be a list of {{date, change}} entries")
    return [parse_history_entry(e, f"{what} entry {i}") for i, e in enumerate(raw, start=1)]


#: What ``match_history`` may be: a ratings store (see
#: :func:`store_match_history`), a callable (player id, system) -> entries, or
#: a mapping keyed by (player id, system) or by player id.
HistorySource = Any


def history_lookup(source: HistorySource, player_id: str, system: str) -> Optional[list[MatchChange]]:
    """The earlier match changes of one player in one system from ``source``;
    None when ``source`` says nothing about the player."""
    if source is None:
        return None
    if callable(getattr(source, "history", None)):
        knows = getattr(source, "knows", None)
        if callable(knows) and not knows(player_id, system):
            return None  # a store that has not seen the player there: look further
        return store_match_history(source, player_id, system)
    if callable(source):
        entries = source(player_id, system)
    elif isinstance(source, Mapping):
        if (player_id, system) in source:
            entries = source[(player_id, system)]
        elif player_id in source:
            entries = source[player_id]
        else:
            return None
    else:
        raise InputError("match_history must be a mapping or a function (player id, system) -> entries")
    if entries is None:
        return None
    hist = parse_history(entries, f"match_history of {player_id}")
    return [h for h in hist if h.system in (None, system)]


def store_match_history(store, player_id: str, system: str) -> list[MatchChange]:
    """Earlier match changes kept by a ratings store (:class:`uschess.io.store.Store`
    or anything with its ``history(player_id, system)``): the rows whose
    ``formula`` starts with ``match`` (as :class:`MatchPlayerResult` writes
    it), each as (end date, post - pre)."""
    out = []
    for row in store.history(player_id, system):
        formula = str(row.get("formula") or "")
        if not formula.startswith("match") or row.get("pre") is None or row.get("post") is None:
            continue
        end = row.get("end")
        when = end if isinstance(end, _dt.date) else parse_date(end, "stored match date")
        out.append(MatchChange(when, float(row["post"]) - float(row["pre"]), system))
    return out


# ------------------------------------------------------------------------ caps
def window_end(start: _dt.date, window: Mapping) -> _dt.date:
    """The first day after the period of ``window`` (``days`` days or
    ``years`` calendar years) that begins on ``start``.  A period of years
    beginning on 29 February ends on 28 February."""
    if "days" in window:
        return start + _dt.timedelta(days=int(window["days"]))
    years = int(window["years"])
    try:
        return start.replace(year=start.year + years)
    except ValueError:  # 29 February in a year that has none
        return _dt.date(start.year + years, 3, 1)


def shares_window(earlier: _dt.date, on: _dt.date, window: Mapping) -> bool:
    """Whether a match ending ``earlier`` and one ending ``on`` fit in one
    period of ``window``, both end days counted: ``earlier <= on < earlier + length``.
    For 180 days: 179 days apart yes, 180 days apart no."""
    return earlier <= on < window_end(earlier, window)


@dataclass
class CapOutcome:
    """What the caps of restriction 2 did to one player's change."""

    change_in: float
    change_out: float
    low: float
    high: float
    binding: list[str] = field(default_factory=list)
    windows: list[dict] = field(default_factory=list)

    @property
    def capped(self) -> bool:
        return self.change_out != self.change_in

    def as_dict(self) -> dict:
        return {"change_in": self.change_in, "change_out": self.change_out, "low": self.low,
                "high": self.high, "capped": self.capped, "binding": list(self.binding),
                "windows": self.windows}


def _bounds(earlier_net: float, cap: float) -> tuple[float, float]:
    """The change that keeps |earlier_net + change| <= cap; a change toward
    zero net is never held back, so the interval always contains 0."""
    return min(0.0, -cap - earlier_net), max(0.0, cap - earlier_net)


def cap_change(change: float, on: _dt.date, history: Sequence[MatchChange], *,
               per_match: float, windows: Sequence[Mapping]) -> CapOutcome:
    """Restriction 2 of sec. 7 for a match ending on ``on``.

    * ``per_match``: the change itself lies in [-cap, +cap].
    * Each window (``{window, days|years, cap}``): "the maximum net rating
      change in <window> due to match play" is read as: for **every** period
      of that length that contains this match, the signed sum of the changes
      of all matches in it (the earlier ones of ``history`` and this one) lies
      in [-cap, +cap].  Periods count both end days (see
      :func:`shares_window`).  Matches after ``on`` are not yet known, so the
      periods to check are those starting on the date of each earlier match
      that shares a period with this one (every suffix of the earlier matches
      in date order), and the one holding this match alone.  Checking only the
      period that ends on this match would let a +100 after a -100 be followed
      by another +100 within 180 days.
    * A history that already exceeds a cap (it cannot under these rules, but
      data can be wrong) never forces a change against the result: a change
      toward a smaller net is always allowed.
    """
    low, high = -per_match, per_match
    lows = [(low, f"{per_match:g}-point cap per match")]
    highs = [(high, f"{per_match:g}-point cap per match")]
    reports = []
    for w in windows:
        cap = float(w["cap"])
        name = str(w.get("window") or (f"{w['days']} days" if "days" in w else f"{w['years']} years"))
        inside = sorted((h for h in history if shares_window(h.date, on, w)), key=lambda h: h.date)
        dates = sorted({h.date for h in inside})
        w_low, w_high, worst = -cap, cap, 0.0
        for start in dates:
            net = sum(h.change for h in inside if h.date >= start)
            lo, hi = _bounds(net, cap)
            w_low, w_high = max(w_low, lo), min(w_high, hi)
            if abs(net) > abs(worst):
                worst = net
        reports.append({"window": name, "cap": cap,
                        "earlier": [h.as_dict() for h in inside],
                        "largest_earlier_net": worst, "low": w_low, "high": w_high})
        lows.append((w_low, f"net {cap:g} in any {name}"))
        highs.append((w_high, f"net {cap:g} in any {name}"))
    low = max(v for v, _ in lows)
    high = min(v for v, _ in highs)
    out = min(max(change, low), high)
    binding = []
    if change > high:
        binding = [why for v, why in highs if v == high]
    elif change < low:
        binding = [why for v, why in lows if v == low]
    return CapOutcome(change, out, low, high, binding, reports)


# --------------------------------------------------------------------- results
@dataclass
class MatchRecord(SystemRecord):
    """A record after a match.  ``lowered_floor`` is the floor after a granted
    request to lower it (restriction 4) and ``lowered_from`` the floor it
    replaced; :class:`SystemRecord` has no field for them.  A later match
    rated from this record uses ``lowered_floor`` while sec. 5 still gives
    ``lowered_from`` (a new peak that raises the floor ends it)."""

    lowered_floor: Optional[float] = None
    lowered_from: Optional[float] = None


def lowered_floor_for(before: Optional[SystemRecord], floor: float,
                      reason: str) -> tuple[float, str, Optional[float], Optional[float]]:
    """The floor to use after an event, given the player's record before it
    and the sec. 5 ``floor`` computed on the record after it: a floor lowered
    after an earlier match (``before.lowered_floor``) replaces ``floor`` while
    ``floor`` is still the one it replaced (``before.lowered_from``); a new
    peak that raises the floor ends it.  Returns (floor, reason,
    lowered_floor, lowered_from) with the last two to carry into the record
    after the event (None, None when nothing is lowered)."""
    lowered = getattr(before, "lowered_floor", None)
    origin = getattr(before, "lowered_from", None)
    if lowered is not None and origin is not None and float(floor) == origin:
        return (lowered, f"{reason}, lowered to {lowered:g} after a match (sec. 7)",
                lowered, origin)
    return floor, reason, None, None


def _extra(after: Optional[int], before: Optional[int]) -> int:
    return after - before if after is not None and before is not None else 0


def honour_lowered_floor(pr: PlayerResult, before: Optional[SystemRecord], rules: Rules) -> bool:
    """Carry a lowered floor through a section rated by the pipeline (which
    knows only sec. 5 floors): when ``before`` has one and the sec. 5 floor
    computed for ``pr`` is still the one it replaced, the final rating is
    judged against the lowered floor instead and the record after the event
    is a :class:`MatchRecord` that keeps it.  Personal floors bind only the
    final rating (project reading 1), so no other player's result changes.
    Changes ``pr`` in place; True when it applied.  A ratings replay calls it
    for every player of every section that is not a match."""
    if (getattr(before, "lowered_floor", None) is None or pr.record_after is None or pr.m == 0
            or pr.floor is None or pr.step5 is None or isinstance(pr, MatchPlayerResult)):
        return False
    floor, reason, lowered, origin = lowered_floor_for(before, pr.floor, pr.floor_reason or "")
    if lowered is None:
        return False  # the floor it replaced no longer binds: the lowering has ended
    p, hook = rules.p, rules.hook
    done = pr.record_after
    # the record after the event again, before storage, as the pipeline built it
    after = record_after(before, pr.m, _extra(done.wins, before.wins),
                         _extra(done.draws, before.draws), _extra(done.losses, before.losses),
                         pr.step5, done.date, p, cls=MatchRecord)
    applied = pr.step5 < floor
    post = hook.uschess_store_rating(pre=pr.pre, value=float(floor) if applied else pr.step5, p=p)
    settle_record(after, post, p)
    after.lowered_floor, after.lowered_from = lowered, origin
    pr.post, pr.floor, pr.floor_reason, pr.floor_applied = post, float(floor), reason, applied
    pr.record_after = after
    pr.depends |= DEPENDS["floor"] | MATCH_DEPENDS
    return True


@dataclass
class MatchPlayerResult(PlayerResult):
    """A :class:`PlayerResult` with what the match restrictions did."""

    change_uncapped: Optional[float] = None
    change: Optional[float] = None
    caps: Optional[CapOutcome] = None
    history: list = field(default_factory=list)
    history_source: Optional[str] = None
    floor_request: Optional[dict] = None

    def as_dict(self) -> dict:
        out = super().as_dict()
        rec = self.record_after
        if rec is not None:
            out["record_after"] = {**_record_dict(rec),
                                   "lowered_floor": getattr(rec, "lowered_floor", None),
                                   "lowered_from": getattr(rec, "lowered_from", None)}
        out["match"] = {
            "bonus": False,
            "change_uncapped": self.change_uncapped,
            "change": self.change,
            "caps": self.caps.as_dict() if self.caps else None,
            "history": [h.as_dict() for h in self.history],
            "history_source": self.history_source,
            "floor_request": self.floor_request,
        }
        return out


# --------------------------------------------------------------------- rating
def check_match(section: Section, system: str, rules: Rules) -> None:
    """Restriction 1 (and that a match has two players): InputError otherwise."""
    p = rules.p
    if len(section.players) != 2:
        raise InputError(f"a match is between two players; this match section lists "
                         f"{len(section.players)}", section=section.name)
    hint = ("" if section.systems or system == "OTBR" else
            f" (a match is rated in every system its time control falls in; list the "
            f"section's 'systems' to leave out {system})")
    for pl in section.players:
        rec = pl.ratings.get(system)
        if rec is None:
            raise InputError(f"a match needs an established published {system} rating for both "
                             f"players (sec. 7); this player is unrated in {system}{hint}",
                             player=pl.label)
        if rec.games <= p.established_games:
            raise InputError(f"a match needs an established published {system} rating for both "
                             f"players (sec. 7); this player's is provisional ({rec.games} games, "
                             f"established means more than {p.established_games}){hint}",
                             player=pl.label)
    a, b = section.players
    ra, rb = round_half_up(a.ratings[system].rating), round_half_up(b.ratings[system].rating)
    gap = abs(ra - rb)
    if gap > p.match_max_rating_gap:
        low, high = (a, b) if ra < rb else (b, a)
        raise InputError(f"published {system} ratings {max(ra, rb)} ({high.label}) and "
                         f"{min(ra, rb)} are {gap} points apart; a match allows at most "
                         f"{p.match_max_rating_gap:g} (sec. 7)", player=low.label)


def _history_for(pl: Player, system: str, on: _dt.date, explicit,
                 options) -> tuple[list[MatchChange], str]:
    for source, name in ((explicit, "argument"),
                         (getattr(options, "match_history", None) if options else None, "options")):
        hist = history_lookup(source, pl.id, system)
        if hist is not None:
            if callable(getattr(source, "history", None)):
                # a store may already hold later matches (re-rating the past)
                return [h for h in hist if h.date <= on], "store"
            return hist, name
    if pl.match_history is not None:
        return [h for h in parse_history(pl.match_history) if h.system in (None, system)], "event"
    return [], "none"


def rate_match(section: Section, system: str, rules: Rules, tc: TimeControl, *,
               options=None, event=None, match_history: HistorySource = None,
               grant_floor_requests: Optional[bool] = None, trace: Optional[bool] = None
               ) -> SectionResult:
    """Rate a match section in one system (sec. 7).  ``match_history``: see
    :func:`history_lookup`; ``grant_floor_requests`` defaults to
    ``options.grant_floor_requests`` (False)."""
    p = rules.p
    if grant_floor_requests is None:
        grant_floor_requests = bool(getattr(options, "grant_floor_requests", False))
    if trace is None:
        trace = bool(getattr(options, "trace", True)) if options is not None else True
    check_match(section, system, rules)
    players = list(section.players)
    # The five steps as written (both players established: steps 1 and 3 do
    # nothing), without the bonus term (restriction 3).
    st = five_steps(section, system, rules, tc, trace=trace, bonus=False)
    if not any(e.m for e in st.entrants.values()):
        return SectionResult(section, system, rules, tc, [_unrated(pl, system) for pl in players])
    on = section.end
    out = []
    for pl in players:
        hist, hsource = _history_for(pl, system, on, match_history, options)
        _check_history(hist, on, p.match_change_cap, pl)
        out.append(_finish_match(st.entrants[pl.pair], system, st.step4[pl.pair],
                                 st.step5[pl.pair], st.details4.get(pl.pair),
                                 st.details5[pl.pair], hist, hsource, section, rules,
                                 grant_floor_requests, trace))
    return SectionResult(section, system, rules, tc, out)


def _check_history(hist: list[MatchChange], on: _dt.date, cap: float, pl: Player) -> None:
    for h in hist:
        if h.date > on:
            raise InputError(f"match_history entry dated {h.date.isoformat()} is after this match "
                             f"({on.isoformat()}); list only earlier matches", player=pl.label)
        if abs(h.change) > cap + 1e-9:
            raise InputError(f"match_history entry {h.date.isoformat()}: a change of {h.change:g} "
                             f"is impossible, one match changes a rating by at most {cap:g}",
                             player=pl.label)


def _unrated(pl: Player, system: str) -> MatchPlayerResult:
    rec = pl.ratings[system]
    return MatchPlayerResult(pair=pl.pair, id=pl.id, name=pl.name, system=system, pre=rec.rating,
                             games_before=rec.games, m=0, score=pl.total, post=rec.rating,
                             games_after=rec.games, formula="not rated (no rated games)",
                             record_after=rec, change=0.0, change_uncapped=0.0)


def _finish_match(e, system: str, s4: float, s5: float, info4: Optional[dict], info5: dict,
                  hist, hsource, section: Section, rules: Rules,
                  grant: bool, trace: bool) -> MatchPlayerResult:
    p, hook = rules.p, rules.hook
    pl, rec = e.pl, e.rec
    pre = rec.rating
    m, wins, losses, n_eff = e.m, e.wins, e.losses, e.n_eff
    draws = m - wins - losses
    notes = ["rated as a match (sec. 7): no bonus; caps on the change; floors not automatic"]

    caps = cap_change(s5 - pre, section.end, hist, per_match=p.match_change_cap,
                      windows=p.match_net_caps)
    value = max(pre + caps.change_out, p.absolute_floor)
    if caps.capped:
        notes.append(f"change {caps.change_in:+.2f} capped to {caps.change_out:+.2f} "
                     f"({'; '.join(caps.binding)})")

    after = record_after(rec, m, wins, draws, losses, value, section.end, p, cls=MatchRecord)
    games_after = after.games
    fl = hook.uschess_personal_floor(system=system, after=after,
                                     event=EventCounts.of_games(m, wins, draws, losses), p=p)
    floor, reason, lowered, lowered_from = lowered_floor_for(rec, fl.value, fl.reason)
    if lowered is not None:
        after.lowered_floor, after.lowered_from = lowered, lowered_from
    depends = set(DEPENDS["special"] if info5["formula"] == "special" else DEPENDS["standard"])
    depends |= MATCH_DEPENDS | DEPENDS["floor"] | DEPENDS["storage"]

    post, floor_applied, request = value, False, None
    if value < floor:
        if floor > p.absolute_floor:
            new_floor = max(floor - p.match_floor_step, p.absolute_floor)
            request = {"floor": float(floor), "requested_floor": float(new_floor),
                       "rating_if_granted": max(value, new_floor), "granted": grant,
                       "reason": reason}
            if grant:
                post = max(value, new_floor)
                after.lowered_floor = float(new_floor)
                after.lowered_from = (after.lowered_from if after.lowered_from is not None
                                      else float(floor))
                notes.append(f"result {value:.2f} is below the floor {floor:g}: request to lower "
                             f"it by {p.match_floor_step:g} GRANTED; new floor {new_floor:g}")
            else:
                post, floor_applied = float(floor), True
                notes.append(f"result {value:.2f} is below the floor {floor:g}: request to lower "
                             f"it to {new_floor:g} (not granted here; rating held at the floor; "
                             "grant with --grant-floor-requests)")
        else:
            post, floor_applied = float(floor), True
    post = hook.uschess_store_rating(pre=pre, value=post, p=p)
    settle_record(after, post, p)
    info5 = dict(info5, match={"change_uncapped": s5 - pre, "caps": caps.as_dict()})
    res = MatchPlayerResult(
        pair=pl.pair, id=pl.id, name=pl.name, system=system, pre=pre, games_before=rec.games,
        m=m, score=info5["score"], post=post, games_after=games_after,
        formula=f"match ({info5['formula']}, no bonus)", n_eff=n_eff, step4=s4, step5=s5,
        k=info5.get("k"), bonus=info5.get("bonus"), expected=info5.get("expected"),
        floor=float(floor), floor_reason=reason, floor_applied=floor_applied, record_after=after,
        depends=depends,
        warnings=rules.warnings(depends) + notes + unknown_history_warnings(fl, value, system),
        trace={"step4": info4, "step5": info5} if trace else {},
        change_uncapped=s5 - pre, change=post - pre, caps=caps, history=list(hist),
        history_source=hsource, floor_request=request)
    return res


__all__ = ["MatchChange", "MatchRecord", "MatchPlayerResult", "CapOutcome", "rate_match",
           "lowered_floor_for", "honour_lowered_floor",
           "check_match", "cap_change", "shares_window", "window_end", "history_lookup",
           "store_match_history", "parse_history", "parse_history_entry"]
