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
the unordered pair {b, c}, the same block for both sides.  Where two games
of one merged player fall on the same round of a block (entries that both
played a round: event 201807080972, section 3, member 12688571 at pairs 22
and 211, both with a game in round 1), the later game moves to the first
round after it that is free for both its players, with a note.
"""

from __future__ import annotations

import dataclasses

from uschess.errors import InputError
from uschess.model import Player, Round, Section


def merge_reentries(section: Section) -> tuple[Section, list[str]]:
    """``section`` with one player per member, and a note per merged member
    (the section itself when no member is listed twice)."""
    players = section.players
    if len({p.id for p in players}) == len(players):  # the common case, said at once
        return section, []
    by_id: dict[str, list[Player]] = {}
    for p in section.players:
        by_id.setdefault(p.id, []).append(p)
    doubles = {pid: entries for pid, entries in by_id.items() if len(entries) > 1}
    if not doubles:
        return section, []
    pairs = [p.pair for p in section.players]
    if len(set(pairs)) != len(pairs):
        return section, []  # a pair listed twice: the section's own check reports it
    for entries in doubles.values():  # said here, in the rounds as the file numbers them
        own = {e.pair for e in entries}
        for e in entries:
            for k, r in enumerate(e.rounds, start=1):
                if r.opponent is not None and r.opponent in own:
                    what = ("paired against themself" if r.opponent == e.pair else
                            f"paired against pair {r.opponent}, another entry of the same member")
                    raise InputError(what, section=section.name, player=e.label, round=k)
    rounds = max(len(p.rounds) for p in section.players)
    most = max(len(e) for e in doubles.values())
    order = [(b, c) for b in range(most) for c in range(b, most)]
    blocks: dict[tuple[int, int], int] = {}
    for i, (b, c) in enumerate(order):
        blocks[(b, c)] = blocks[(c, b)] = i
    entry_of = {p.pair: (by_id[p.id][0].pair, by_id[p.id].index(p)) for p in section.players}
    by_pair = {p.pair: p for p in section.players}
    notes = [f"section {section.name}: member {pid} is listed {len(entries)} times (pairs "
             f"{', '.join(str(e.pair) for e in entries)}): rated as one player with the games "
             "of every entry, as US Chess rates a re-entry"
             for pid, entries in doubles.items()]
    cells: dict[int, dict[int, Round]] = {p.pair: {} for p in section.players
                                          if not entry_of[p.pair][1]}
    placed: set = set()  # (entry pair, round) of cells already laid out
    moved = set()

    def free(first: int, at: int) -> bool:
        return at not in cells[first]

    for p in section.players:
        mine, b = entry_of[p.pair]
        for k, r in enumerate(p.rounds):
            if (p.pair, k) in placed:
                continue
            if r.opponent is not None and r.opponent in entry_of and r.opponent != p.pair:
                theirs, c = entry_of[r.opponent]
                back = by_pair[r.opponent].rounds
                mirrored = k < len(back) and back[k].opponent == p.pair \
                    and (r.opponent, k) not in placed
                at = want = blocks[(b, c)] * rounds + k
                if mirrored:
                    # both sides of one game share a round: the block of the
                    # entries' pair, or the first round after it free for both
                    while not (free(mine, at) and free(theirs, at)):
                        at += 1
                    cells[theirs][at] = Round(back[k].code, mine)
                    placed.add((r.opponent, k))
                else:
                    while not free(mine, at):
                        at += 1
                cell = Round(r.code, theirs)
            elif r.code == "U" and r.opponent is None:
                continue
            else:
                at = want = blocks[(b, b)] * rounds + k
                cell = r
                while not free(mine, at):
                    at += 1
            if at != want:  # name the member listed twice whose games collided
                moved.update(x for x in (p.id, by_pair[r.opponent].id if r.opponent in by_pair
                                         else None) if x in doubles)
            cells[mine][at] = cell
            placed.add((p.pair, k))
    total = max([rounds * len(order)] + [at + 1 for c in cells.values() for at in c])
    if moved:
        notes.append(f"section {section.name}: the entries of "
                     f"{', '.join(sorted(moved))} have results in the same round: "
                     "their games are laid out in further rounds (a rating does not "
                     "depend on the order of an event's games)")
    players = []
    for p in section.players:
        if entry_of[p.pair][1]:
            continue
        laid = cells[p.pair]
        cells_of_p = [laid.get(at, Round("U")) for at in range(total)]
        ratings = dict(p.ratings)
        for e in by_id[p.id][1:]:
            for system, rec in e.ratings.items():
                ratings.setdefault(system, rec)
        players.append(dataclasses.replace(p, rounds=cells_of_p, ratings=ratings))
    return dataclasses.replace(section, players=players), notes
