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

A match section is two players, or a team match: pairs, each player's games
all against one opponent who plays no one else, each pair rated as its own
match (:func:`uschess.io.eventfile.match_pairs`).  A section marked
``match_as_rated`` (a page's ``Tnmt Type: M``: US Chess rated it as a match)
is not refused for a pair restriction 1 does not allow: the rule in force in
the slot ``match_unallowed`` (learned from the record, ``rules/matches.py``)
says whether each such player is rated as a match all the same or, with a
provisional rating, held at it (:func:`unallowed_pairs`; the opponent then
meets the held rating in steps 4 and 5); an unrated player is rated as in any
section.  Only results rated as a match count toward later caps.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from typing import Any, Mapping, Optional

from uschess.errors import InputError
from uschess.formulas import round_half_up
from uschess.io.eventfile import match_pairs, parse_date, parse_history
from uschess.model import MatchChange, Player, Section
from uschess.rating.finish import MatchInputs, finish, unrated
from uschess.rating.results import SectionResult
from uschess.rating.steps import MATCH, STANDARD, five_steps
from uschess.timecontrol import TimeControl


#: The formula of a match player held at the pre-event rating (learned from
#: the record; not a match change, so no later match's caps count it).
HELD = "held at the pre-event rating (sec. 7 not met)"

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


# --------------------------------------------------------------------- rating
def _pairs_or_refuse(section: Section) -> list[tuple[Player, Player]]:
    """The section's two-player matches; InputError when it is not made of
    them.  A player without rated games (forfeits) may be listed in a match of
    two and in a section read from a page (``match_as_rated``)."""
    pairs = match_pairs(section, idle=section.match_as_rated or len(section.players) == 2)
    if pairs is None:
        raise InputError(f"a match is between two players; this match section lists "
                         f"{len(section.players)} (a team match lists pairs, each player's "
                         f"games all against one opponent who plays no one else)",
                         section=section.name)
    return pairs


def _refusal(pair: tuple[Player, Player], system: str, rules, hint: str) -> Optional[InputError]:
    """Why sec. 7 restriction 1 does not allow this pair, or None."""
    p = rules.p
    for pl in pair:
        rec = pl.ratings.get(system)
        if rec is None:
            return InputError(f"a match needs an established published {system} rating for both "
                              f"players (sec. 7); this player is unrated in {system}{hint}",
                              player=pl.label)
        if rec.games <= p.established_games:
            return InputError(f"a match needs an established published {system} rating for both "
                              f"players (sec. 7); this player's is provisional ({rec.games} games, "
                              f"established means more than {p.established_games}){hint}",
                              player=pl.label)
    a, b = pair
    ra, rb = round_half_up(a.ratings[system].rating), round_half_up(b.ratings[system].rating)
    gap = abs(ra - rb)
    if gap > p.match_max_rating_gap:
        low, high = (a, b) if ra < rb else (b, a)
        return InputError(f"published {system} ratings {max(ra, rb)} ({high.label}) and "
                          f"{min(ra, rb)} are {gap} points apart; a match allows at most "
                          f"{p.match_max_rating_gap:g} (sec. 7)", player=low.label)
    return None


def check_match(section: Section, system: str, rules) -> None:
    """Restriction 1 (and that a match is made of two-player matches):
    InputError otherwise."""
    hint = ("" if section.systems or system == "OTBR" else
            f" (a match is rated in every system its time control falls in; list the "
            f"section's 'systems' to leave out {system})")
    for pair in _pairs_or_refuse(section):
        err = _refusal(pair, system, rules, hint)
        if err is not None:
            raise err


def _established(pl: Player, system: str, p) -> bool:
    rec = pl.ratings.get(system)
    return rec is not None and rec.games > p.established_games


def unallowed_pairs(section: Section, system: str, rules) -> dict[int, str]:
    """For a section rated as US Chess rated it (``match_as_rated``): each
    player of a pair that restriction 1 does not allow, by pair number, with
    how the record's rule in force (slot ``match_unallowed``) rates them:
    ``held`` (keeps the pre-event rating), ``unrated`` (no rating to cap: the
    five steps as in any section) or ``match``."""
    out: dict[int, str] = {}
    p = rules.p
    for a, b in _pairs_or_refuse(section):
        if _refusal((a, b), system, rules, "") is None:
            continue
        for pl in (a, b):
            rated = pl.ratings.get(system) is not None
            held = rules.call.uschess_match_held(
                established=_established(pl, system, p), rated=rated, p=p)
            out[pl.pair] = "held" if held and rated else ("match" if rated else "unrated")
    return out


def _history_for(pl: Player, system: str, on: _dt.date, explicit, options,
                 chain_history=None) -> tuple[list[MatchChange], str]:
    for source, name in ((explicit, "argument"),
                         (getattr(options, "match_history", None) if options else None, "options")):
        hist = history_lookup(source, pl.id, system)
        if hist is not None:
            if callable(getattr(source, "history", None)):
                # a store may already hold later matches (re-rating the past)
                return [h for h in hist if h.date <= on], "store"
            return hist, name
    if chain_history is not None:
        hist = chain_history(pl.id, system)
        if hist is not None:
            return [h for h in hist if h.date <= on], "chain"
    if pl.match_history is not None:
        return [h for h in pl.match_history if h.system in (None, system)], "event"
    return [], "none"


def rate_match(section: Section, system: str, rules, tc: TimeControl, *,
               options=None, match_history: HistorySource = None,
               grant_floor_requests: Optional[bool] = None, trace: Optional[bool] = None,
               chain_history=None) -> SectionResult:
    """Rate a match section in one system (sec. 7): the one pipeline with the
    match kind (no bonus, caps, floor requests).  ``match_history``: see
    :func:`history_lookup`; ``chain_history(player id, system)`` gives the
    earlier changes a chain of rated units knows (None where it knows none);
    ``grant_floor_requests`` defaults to ``options.grant_floor_requests``."""
    if grant_floor_requests is None:
        grant_floor_requests = bool(getattr(options, "grant_floor_requests", False))
    if trace is None:
        trace = bool(getattr(options, "trace", True)) if options is not None else True
    if section.match_as_rated:
        unallowed = unallowed_pairs(section, system, rules)
    else:
        unallowed = {}
        check_match(section, system, rules)
    learned = (f"(learned from the record: match_unallowed = "
               f"{rules.plugins['match_unallowed'].value})" if unallowed else "")
    held = frozenset(pair for pair, how in unallowed.items() if how == "held")
    st = five_steps(section, system, rules, tc, kind=MATCH, trace=trace, held=held)
    on = section.end
    out = []
    plain = None
    for pl in section.players:
        e = st.entrants[pl.pair]
        if not e.m:
            out.append(unrated(pl, system, e.rec))
            continue
        how = unallowed.get(pl.pair)
        if how is not None:
            e.reads.names.add("match_unallowed")  # its warnings name the record's rule
        if how in ("held", "unrated"):
            if plain is None:  # no cap, no floor request: nothing is rated as a match
                plain = dataclasses.replace(st, kind=STANDARD)
            res = finish(e, system, plain, rules, on)
            if how == "held":
                res.formula = HELD
                res.warnings.append(
                    f"not rated: a match needs both players established within "
                    f"{rules.p.match_max_rating_gap:g} points (sec. 7); this section was rated "
                    f"as a match all the same, and the rule in force {learned} holds this "
                    f"player's provisional rating (games counted), the opponent rated against it")
            else:
                res.warnings.append(
                    "unrated, so not rated as a match (sec. 7 needs both players established): "
                    f"rated as in any section, the opponent as a match {learned}")
            out.append(res)
            continue
        hist, hsource = _history_for(pl, system, on, match_history, options, chain_history)
        _check_history(hist, on, rules.p.match_change_cap, pl)
        res = finish(e, system, st, rules, on,
                     match=MatchInputs(hist, hsource, grant_floor_requests))
        if how == "match":
            res.warnings.append(
                "rated as a match although sec. 7 needs both players established within "
                f"{rules.p.match_max_rating_gap:g} points: the rule in force for a section rated "
                f"as a match all the same {learned}")
        out.append(res)
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


__all__ = ["rate_match", "check_match", "match_pairs", "unallowed_pairs", "history_lookup",
           "store_match_history", "HELD"]
