"""A member listed twice in one section: a re-entry or a double entry.

Real crosstables list the same member at two pairs of one section (a player
who withdrew and re-entered, or who was entered twice); US Chess rates the
entries as one player with the games of both (for example event 200209216150,
section 1, member 12687052 at pairs 5 and 27, both printed with the same
pre- and post-event rating).  :func:`merge_reentries` does the same for every
reader: the member keeps the first entry's pair, record and details, and
every game of every entry.  A rating uses the games of an event as a whole,
not their order, so the games move to extra rounds: a game between entry
``b`` of one player and entry ``c`` of another goes to the block of rounds of
the unordered pair {b, c}, the same block for both sides.
"""

from __future__ import annotations

import dataclasses

from uschess.errors import InputError
from uschess.model import Player, Round, Section


def merge_reentries(section: Section) -> tuple[Section, list[str]]:
    """``section`` with one player per member, and a note per merged member
    (the section itself when no member is listed twice)."""
    by_id: dict[str, list[Player]] = {}
    for p in section.players:
        by_id.setdefault(p.id, []).append(p)
    doubles = {pid: entries for pid, entries in by_id.items() if len(entries) > 1}
    if not doubles:
        return section, []
    pairs = [p.pair for p in section.players]
    if len(set(pairs)) != len(pairs):
        return section, []  # a pair listed twice: the section's own check reports it
    rounds = max(len(p.rounds) for p in section.players)
    most = max(len(e) for e in doubles.values())
    order = [(b, c) for b in range(most) for c in range(b, most)]
    blocks: dict[tuple[int, int], int] = {}
    for i, (b, c) in enumerate(order):
        blocks[(b, c)] = blocks[(c, b)] = i
    entry_of = {p.pair: (by_id[p.id][0].pair, by_id[p.id].index(p)) for p in section.players}
    total = rounds * len(order)
    notes = [f"section {section.name}: member {pid} is listed {len(entries)} times (pairs "
             f"{', '.join(str(e.pair) for e in entries)}): rated as one player with the games "
             "of every entry, as US Chess rates a re-entry"
             for pid, entries in doubles.items()]
    players = []
    for p in section.players:
        if entry_of[p.pair][1]:
            continue
        cells: list[Round] = [Round("U")] * total
        for b, e in enumerate(by_id[p.id]):
            for k, r in enumerate(e.rounds):
                if r.opponent is not None and r.opponent in entry_of:
                    first, c = entry_of[r.opponent]
                    at, cell = blocks[(b, c)] * rounds + k, Round(r.code, first)
                elif r.code == "U" and r.opponent is None:
                    continue
                else:
                    at, cell = blocks[(b, b)] * rounds + k, r
                if cells[at].code != "U" or cells[at].opponent is not None:
                    raise InputError(f"member {p.id}'s entries have results in round {k + 1} "
                                     "that cannot be told apart", player=e.label, round=k + 1,
                                     section=section.name)
                cells[at] = cell
        ratings = dict(p.ratings)
        for e in by_id[p.id][1:]:
            for system, rec in e.ratings.items():
                ratings.setdefault(system, rec)
        players.append(dataclasses.replace(p, rounds=cells, ratings=ratings))
    return dataclasses.replace(section, players=players), notes
