"""A published page (:mod:`uschess.io.formats.pages`) as an event to re-rate
and the published ratings to compare.

What the page states is used; command-line values (:class:`PageOptions`) fill
only what it does not state, and a value the page states wins over a
different command-line value, with a note.  What neither gives:

* the time control, when the page prints none (the TD layout, a bare table):
  one rated in exactly the systems the page names (:data:`DEFAULT_TC`);
* an established player's game count (never printed):
  :data:`~uschess.io.formats.msa.ESTABLISHED_GAMES`;
* an unrated player's age: unknown (the rules' default initialization)
  unless ``--adult ID`` is given or the page prints the initial rating: the
  TD layout's ``1300/00`` (1300 is the adult's), this project's export's
  ``Initial R: 1246/05`` line; step 1 takes a printed initial rating and its
  N as stated (``Player.initial``).

A member listed twice in one section (a re-entry or a double entry) is rated
as US Chess rates it: one player with the games of both entries (the second
entry's games are moved to extra rounds after the last one, since the order
of games within an event does not change a rating), with a note.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
from dataclasses import dataclass, field
from typing import Optional

from uschess.errors import InputError
from uschess.io.eventfile import match_pairs, validate_section
from uschess.io.reentry import merge_reentries
from uschess.io.formats.msa import ESTABLISHED_GAMES
from uschess.io.formats.pages import TNMT_TYPES, Page, PagePlayer, PageSection
from uschess.timecontrol import parse_time_control
from uschess.model import (FIDE_OPPONENT_ID, FORFEIT_CODES, MIRROR, SYSTEMS, Event, ForeignRating,
                           Player, Round, Section, SystemRecord, copy_with)

#: A time control for a section whose page prints none, rated in exactly the
#: systems the page names (the K exception of dual-rated sections depends on
#: it, so a page without it is noted).
DEFAULT_TC = {("OTBR",): "G/120", ("OTBQ",): "G/30", ("OTBR", "OTBQ"): "G/60;d5",
              ("OTBB",): "G/5", ("OLR",): "G/60", ("OLQ",): "G/15", ("OLB",): "G/3"}


@dataclass
class PageOptions:
    """What the command line may add to a page."""

    start: Optional[_dt.date] = None
    end: Optional[_dt.date] = None
    time_control: Optional[str] = None
    system: Optional[str] = None
    name: Optional[str] = None
    adult: set = field(default_factory=set)
    section: Optional[str] = None  # only this section (number or name)


@dataclass
class SectionFacts:
    """Per section, what the page says beyond the event model (for reports)."""

    name: str
    number: Optional[int]
    systems: list[str]
    rated: Optional[_dt.date]
    rerated: Optional[_dt.date]
    k_factor: Optional[str]
    rating_sys: Optional[str]
    tnmt_type: Optional[str]
    initial: dict = field(default_factory=dict)  # id -> the TD layout's initial rating


def _pick(page_value, option, what: str, where: str, notes: list):
    if page_value is not None:
        if option is not None and option != page_value:
            notes.append(f"{where}: the page states {what} {page_value}; the command line's "
                         f"{option} is not used")
        return page_value
    return option


def section_from_page(sec: PageSection, page: Page, opts: PageOptions, notes: list
                      ) -> tuple[Section, list[tuple[PagePlayer, str]], SectionFacts]:
    """The :class:`Section` to rate and the published (player, system) pairs."""
    where = f"section {sec.name or sec.number}"
    systems = sec.systems
    if opts.system is not None:
        if opts.system not in SYSTEMS:
            raise InputError(f"--system {opts.system!r} is not one of {', '.join(SYSTEMS)}")
        if sec.rating_sys is None and systems == [opts.system]:
            pass
        elif opts.system not in systems:
            notes.append(f"{where}: the page shows {', '.join(systems)}; --system "
                         f"{opts.system} is not used")
    start = _pick(sec.start, opts.start, "start date", where, notes) or page.start
    if start is None:
        raise InputError("the page states no dates: give the section's start date with "
                         "--start DATE", section=sec.name)
    end = sec.end if sec.start is not None else (opts.end or page.end if opts.start is None
                                                 else opts.end) or start
    if sec.end is not None and opts.end is not None and opts.end != sec.end:
        notes.append(f"{where}: the page states end date {sec.end}; the command line's "
                     f"{opts.end} is not used")
    if end < start:
        raise InputError(f"end {end} is before start {start}", section=sec.name)
    tc = _pick(sec.time_control, opts.time_control, "time control", where, notes)
    if tc is not None:
        try:
            parse_time_control(tc)
        except InputError as err:
            fallback = opts.time_control or DEFAULT_TC.get(tuple(systems))
            if fallback is None or fallback == tc:
                raise
            notes.append(f"{where}: the time control {tc!r} cannot be read ({err.message}): "
                         f"taken as {fallback} (rated in {', '.join(systems)} as the page says)")
            tc = fallback
    if tc is None:
        tc = DEFAULT_TC.get(tuple(systems))
        if tc is None:
            raise InputError("the page prints no time control: give it with --time-control",
                             section=sec.name)
        notes.append(f"{where}: the page prints no time control: taken as {tc} (rated in "
                     f"{', '.join(systems)} as the page says)")
    players = sec.players
    if sec.player_count is not None and sec.player_count != len(players):
        notes.append(f"{where}: the header says {sec.player_count} players, the table lists "
                     f"{len(players)}")
    out_players, published, seen = [], [], set()
    facts = SectionFacts(sec.name, sec.number, systems, sec.rated, sec.rerated, sec.k_factor,
                         sec.rating_sys, sec.tnmt_type)
    assumed = False
    stated: list[str] = []
    for p in players:
        ratings, initial = {}, {}
        for system, printed in p.ratings.items():
            if printed.pre is not None and (printed.pre_games is None or printed.pre_games > 0):
                games = printed.pre_games if printed.pre_games is not None else ESTABLISHED_GAMES
                assumed = assumed or printed.pre_games is None
                ratings[system] = SystemRecord(rating=printed.pre, games=games, date=start)
            elif printed.pre is None and printed.initial is not None:
                initial[system] = SystemRecord(rating=printed.initial,
                                               games=printed.initial_games, date=start)
                stated.append(f"{p.id} {printed.initial:g}/{printed.initial_games:02d} in "
                              f"{system}" + (" (an adult's 1300)" if printed.initial == 1300
                                             and not printed.initial_games else ""))
            if printed.post is not None and system in systems and (p.id, system) not in seen:
                seen.add((p.id, system))  # a re-entry's entries print one post
                published.append((p, system))
        adult = True if p.id in opts.adult else None
        if p.initial is not None:
            facts.initial[p.id] = p.initial
            if p.initial == 1300:
                adult = True
        out_players.append(Player(pair=p.pair, id=p.id, name=p.name, rounds=p.rounds,
                                  ratings=ratings, state=p.state, adult=adult,
                                  initial=initial))
    if stated:
        notes.append(f"{where}: the page states the initial rating and N of unrated "
                     f"players (taken as stated): {', '.join(stated)}")
    if assumed:
        notes.append(f"{where}: established players' game counts are not printed: taken as "
                     f"{ESTABLISHED_GAMES} (any N >= N* gives the same N')")
    kind = TNMT_TYPES.get(sec.tnmt_type or "S", "swiss")
    if sec.abroad:
        out_players = with_fide_opponents(out_players)
        kind = "fide-update"
        notes.append(f"{where}: Rating Sys {sec.rating_sys}, a FIDE event abroad: the cells "
                     "print the opponents' FIDE ratings; each player's OTBR rating is updated "
                     "from them (sec. 6)")
    section = Section(name=sec.name or (opts.name or "section"), time_control=tc,
                      players=out_players, start=start, end=end,
                      online=bool(sec.online), half_k=sec.k_factor == "H",
                      kind=kind, systems=list(systems), match_as_rated=kind == "match")
    if sec.k_factor == "Q":
        notes.append(f"{where}: K Factor Q (an older page's quick-rating K) is rated with the "
                     "full K of the rules in force")
    section, merged = merge_reentries(section)
    section.notes.extend(merged)
    notes.extend(merged)
    try:
        validate_section(section)
    except InputError as err:
        regrouped = regroup_games(section)
        if regrouped is not None:
            section = regrouped
            notes.append(f"{where}: the two sides of some games are printed in different "
                         f"rounds ({err.message}; a round robin's columns, say): every game "
                         "matched from both sides and rated once (a rating does not depend on "
                         "the round order)")
        else:
            section, mended = mend_opponent_numbers(section)
            section, dropped = drop_unmatched_games(section)
            if not mended and not dropped:
                raise
            notes.extend(f"{where}: {m}" for m in mended + dropped)
            section.notes.extend(mended + dropped)
        validate_section(section)
    # the pairs are checked on the games as mended and merged above
    if section.kind == "match" and match_pairs(section, idle=True) is None:
        notes.append(f"{where}: Tnmt Type M, but the games are not two-player matches (a "
                     "player meets two opponents): rated as a Swiss")
        section = copy_with(section, kind="swiss", match_as_rated=False)
    return section, published, facts


#: Below this a number a FIDE event abroad prints for an opponent is no
#: FIDE rating (the FIDE list's lowest ratings have been 1000 and above).
LOWEST_FIDE = 1000


def with_fide_opponents(players: list[Player]) -> list[Player]:
    """The players of a FIDE event abroad with one opponent player for each
    game, known by the FIDE rating the cell prints (``W2410``; below
    :data:`LOWEST_FIDE` no rating, a game sec. 6 ignores), named so that
    :func:`uschess.rating.fide_update.rate_fide_section` tells them apart;
    a forfeit or bye printed with a number keeps no number."""
    width = max((len(p.rounds) for p in players), default=0)
    following = max((p.pair for p in players), default=0) + 1
    out, opponents = [], []
    for p in players:
        rounds = []
        for k, r in enumerate(p.rounds):
            if r.opponent is None or r.code not in MIRROR or r.code in FORFEIT_CODES:
                rounds.append(Round(r.code) if r.opponent is not None else r)
                continue
            cells = [Round("U")] * width
            cells[k] = Round(MIRROR[r.code], p.pair)
            fide = ForeignRating(float(r.opponent)) if r.opponent >= LOWEST_FIDE else None
            opponents.append(Player(pair=following, id=f"{FIDE_OPPONENT_ID}{following}",
                                    name=f"FIDE-rated opponent ({r.opponent})", rounds=cells,
                                    fide=fide))
            rounds.append(Round(r.code, following))
            following += 1
        out.append(dataclasses.replace(p, rounds=rounds))
    return out + opponents


def mend_opponent_numbers(section: Section) -> tuple[Section, list[str]]:
    """``section`` with the opponent numbers that a page misprints put right,
    and a note for each; no note when there is none.

    A game cell is misprinted when the player it names does not name the
    player back in that round, and exactly one other player does, with the
    mirrored result, whom the cell does not name (event 201402175282: pair
    566 prints ``L1119`` in round 5, pair 1119's round 5 is ``U``, and pair
    1001 prints ``W566``).  The game is the one both sides of which the page
    prints save a number; the posts of both players check it."""
    by_pair = {p.pair: p for p in section.players}
    rounds = {p.pair: list(p.rounds) for p in section.players}
    claims: dict[tuple[int, int], list[int]] = {}  # (pair, round) -> pairs naming it
    for p in section.players:
        for k, r in enumerate(p.rounds):
            if r.opponent is not None and r.opponent in by_pair:
                claims.setdefault((r.opponent, k), []).append(p.pair)
    notes = []
    for p in section.players:
        for k, r in enumerate(p.rounds):
            if r.opponent is None or r.code not in MIRROR or r.opponent not in by_pair:
                continue
            theirs = by_pair[r.opponent].rounds
            if k < len(theirs) and theirs[k].opponent == p.pair:
                continue  # named back: not misprinted
            others = [q for q in claims.get((p.pair, k), ())
                      if q != r.opponent and by_pair[q].rounds[k].code == MIRROR[r.code]]
            if len(others) != 1:
                continue
            q = others[0]
            rounds[p.pair][k] = Round(r.code, q)
            notes.append(f"pair {p.pair} prints {r} in round {k + 1}, but pair {r.opponent}'s "
                         f"round {k + 1} is {theirs[k] if k < len(theirs) else 'missing'} and "
                         f"pair {q} prints {by_pair[q].rounds[k]}: read as the game with pair "
                         f"{q} (the opponent's number misprinted)")
    if not notes:
        return section, []
    players = [dataclasses.replace(p, rounds=rounds[p.pair]) for p in section.players]
    return dataclasses.replace(section, players=players), notes


def _agrees(section_pairs: dict, pair: int, k: int, r: Round) -> bool:
    """Whether the game cell ``r`` of ``pair`` in round ``k`` (0-based) is
    printed back by its opponent (a one-sided forfeit is)."""
    opp = section_pairs.get(r.opponent)
    if opp is None or r.opponent == pair or k >= len(opp.rounds):
        return False
    back = opp.rounds[k]
    if back.opponent is None:
        return r.code in FORFEIT_CODES
    return back.opponent == pair and MIRROR.get(r.code) == back.code


def drop_unmatched_games(section: Section) -> tuple[Section, list[str]]:
    """``section`` with every game whose two sides the page prints
    differently (a double win, a game on one side only, an opponent that
    is not there) taken out of the rating: both cells become unplayed, with
    a note for each game; the rest of the section is rated as printed."""
    by_pair = {p.pair: p for p in section.players}
    rounds = {p.pair: list(p.rounds) for p in section.players}
    notes = []
    for p in section.players:
        for k, r in enumerate(p.rounds):
            if r.opponent is None or _agrees(by_pair, p.pair, k, r) \
                    or rounds[p.pair][k].code == "U":
                continue
            opp = by_pair.get(r.opponent)
            back = opp.rounds[k] if opp is not None and k < len(opp.rounds) else None
            rounds[p.pair][k] = Round("U")
            if back is not None and back.opponent == p.pair:
                rounds[opp.pair][k] = Round("U")
                what = f"pair {opp.pair} prints {back}: the two sides disagree"
            elif opp is None:
                what = f"there is no pair {r.opponent}"
            else:
                what = (f"pair {opp.pair}'s round {k + 1} is {back}: a game printed on one "
                        "side only")
            notes.append(f"round {k + 1}: pair {p.pair} prints {r}, {what}; the game is not "
                         "rated (both cells taken as unplayed)")
    if not notes:
        return section, []
    players = [dataclasses.replace(p, rounds=rounds[p.pair]) for p in section.players]
    return dataclasses.replace(section, players=players), notes


def regroup_games(section: Section) -> Optional[Section]:
    """``section`` with its games matched from both sides whatever round each
    side prints them in, laid out again so that both sides share a round (a
    game in the first round free for both players), or None when the two
    sides of the games do not agree as sets.  A forfeit both sides lose (a
    double forfeit) is no game: each keeps a forfeit loss without opponent."""
    by_pair = {p.pair: p for p in section.players}
    both_forfeited = {(p.pair, r.opponent) for p in section.players for r in p.rounds
                      if r.code == "F" and r.opponent in by_pair
                      and any(x.code == "F" and x.opponent == p.pair
                              for x in by_pair[r.opponent].rounds)}
    told: dict = {}
    for p in section.players:
        for r in p.rounds:
            if (p.pair, r.opponent) in both_forfeited:
                continue  # a double forfeit: no game, kept below as a forfeit loss
            if r.opponent is not None:
                if r.opponent not in by_pair or r.opponent == p.pair:
                    return None
                told.setdefault((p.pair, r.opponent), []).append(r.code)
    games = []
    for (a, b), codes in told.items():
        if a > b:
            continue
        back = sorted(MIRROR[c] for c in told.get((b, a), []))
        if sorted(codes) != back:
            return None
        games.extend((a, b, c) for c in codes)
    if any((b, a) not in told for (a, b) in told):
        return None
    cells: dict = {p.pair: {} for p in section.players}
    for a, b, code in games:
        k = 0
        while k in cells[a] or k in cells[b]:
            k += 1
        cells[a][k], cells[b][k] = Round(code, b), Round(MIRROR[code], a)
    for p in section.players:
        for r in p.rounds:
            if (p.pair, r.opponent) in both_forfeited:
                r = Round("F")
            if r.opponent is None and r.code != "U":
                k = 0
                while k in cells[p.pair]:
                    k += 1
                cells[p.pair][k] = r
    rounds = max((max(c) + 1 for c in cells.values() if c), default=0)
    players = [dataclasses.replace(p, rounds=[cells[p.pair].get(k, Round("U"))
                                              for k in range(rounds)])
               for p in section.players]
    return dataclasses.replace(section, players=players)


def event_from_page(page: Page, opts: Optional[PageOptions] = None):
    """(Event, [(section name, PagePlayer, system)], notes, facts per section)."""
    opts = opts or PageOptions()
    notes: list[str] = list(page.warnings)
    sections, published, facts = [], [], []
    chosen = page.sections
    if opts.section is not None:
        chosen = [s for s in page.sections
                  if str(s.number) == str(opts.section) or s.name == opts.section]
        if not chosen:
            raise InputError(f"the page has no section {opts.section!r}", file=page.source)
    names, unrated = set(), []
    for sec in chosen:
        try:
            section, pubs, fact = section_from_page(sec, page, opts, notes)
        except InputError as err:
            err.located(file=page.source, section=sec.name, record=sec.line)
            if len(chosen) == 1:
                raise
            unrated.append(err)  # one section cannot lose the page: the others are rated
            notes.append(f"section {sec.name or sec.number}: not rated ({err.message})")
            continue
        if section.name in names:  # two sections of one name: told apart by number
            unique, k = f"{section.name} ({sec.number})", 2
            while unique in names:  # and a number printed twice, by its place too
                unique, k = f"{section.name} ({sec.number}, {k})", k + 1
            section.name = fact.name = unique
        names.add(section.name)
        sections.append(section)
        published.extend((section.name, p, s) for p, s in pubs)
        facts.append(fact)
    if not sections:
        raise unrated[0]
    name = _pick(page.event_name, opts.name, "event name", "event", notes) or (
        chosen[0].name if chosen else "event")
    event = Event(name=name, start=min(s.start for s in sections),
                  end=max(s.end for s in sections), sections=sections,
                  online=all(s.online for s in sections), id=page.event_id, source=page.source)
    return event, published, notes, facts
