"""Synthetic rating histories for tests, benchmarks and evaluation.

``generate_history(seed, players, events)`` yields exactly ``events``
:class:`~uschess.model.Event` objects among exactly ``players`` players (each
plays at least once) in the order a replay takes them (end date, start date,
id), from 2001 to 2025.  Everything is drawn from one ``random.Random(seed)``:
the same arguments always give the same history.  ``write_history`` writes it
as event files with the players' true strengths beside them (``truth.csv``).

The model (docs/guides/analyst.md states it with its numbers):

* every player has a hidden true strength that moves over time: a random walk
  of about 35 points a year; juniors improve quickly towards a ceiling until
  their early twenties and older players decline slowly; each player is a
  little stronger or weaker at faster time controls and online (a fixed offset
  per family);
* a game's expected score is exactly sec. 4.2's We of the two players' true
  strengths in the family of its time control; draws are likelier between
  strong and evenly matched players and take equally from wins and losses;
* players have birth dates (a few only an "adult" flag, a few nothing), a
  debut date and a career length; some have FIDE ratings (dated the first of
  the event's month) and a few Canadians CFC ratings; the rules initialize
  newcomers from these, whatever their true strength;
* newcomers enter the next events first; an event the pool cannot fill takes
  players out of retirement or brings a debut forward;
* events are Swiss sections paired by score groups (no rematches where the
  greedy pairing can avoid them; byes, half-point byes, the odd forfeit) or
  single round-robins (Berger tables);
* time controls rated in all six systems, each only from the date its
  system exists: over the board G/90;d30 (regular), G/45;d5 (dual from 2002),
  G/20;d5 (quick), G/5;d0 (blitz, from 2013-03-01); online G/3+2 (blitz,
  from 2014-10-01), G/15+2 (quick, from 2015-03-01), G/60+5 (regular, from
  2020-06-01).

With a calibrated model (:mod:`uschess.apps.generator_fit`, the command's
default) formats, section sizes and rounds, draws and the share of newcomers
come from the record; a player is first seen unrated, provisional or
established as often as the record's players are: a newcomer's strength is
drawn from the record's first ratings (see ``first_lift``) and is the one
brought to the first event, a player first seen rated brings a rating the
record first shows such players at (its strength) as an OTBR record;
sections are seated near one level, newcomers too, each with a spread drawn
from the record's sections; juniors improve as the calibration's
``careers`` say; and each player's results in an event are drawn from the
true strength plus a form of that event (a normal draw), so they follow We
of the true strengths only on average.

The files carry no ratings other than those records (a calibrated history's
players first seen rated, in their events until the first rated in OTBR;
none with ``--uncalibrated``): a replay takes every player's state from its
store, and initializes newcomers from birth date, FIDE/CFC and their other
systems as the rules in force say.
"""

from __future__ import annotations

import csv
import dataclasses
import datetime as _dt
import io
import json
import math
import os
import random
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterable, Iterator, Optional

import yaml

from uschess.errors import InputError
from uschess.io.files import atomic_write
from uschess.model import Event, ForeignRating, Player, Round, Section, SystemRecord

FIRST_DAY = _dt.date(2001, 1, 6)
LAST_DAY = _dt.date(2025, 12, 20)

#: (kind, time control, online, first date, weight)
FORMATS = [
    ("regular", "G/90;d30", False, _dt.date(2001, 1, 1), 5.0),
    ("dual", "G/45;d5", False, _dt.date(2001, 1, 1), 3.0),
    ("quick", "G/20;d5", False, _dt.date(2001, 1, 1), 1.5),
    ("blitz", "G/5;d0", False, _dt.date(2013, 3, 1), 1.0),
    ("online-blitz", "G/3+2", True, _dt.date(2014, 10, 1), 1.0),
    ("online-quick", "G/15+2", True, _dt.date(2015, 3, 1), 1.0),
    ("online-regular", "G/60+5", True, _dt.date(2020, 6, 1), 0.7),
]
#: Offset family of each format (a player's strength differs by family).
FAMILY = {"regular": 0, "dual": 0, "quick": 1, "blitz": 2, "online-blitz": 3,
          "online-quick": 3, "online-regular": 3}

_LAST = ["Smith", "Johnson", "Nguyen", "Garcia", "Kim", "Patel", "Okafor", "Ivanov", "Rossi",
         "Schmidt", "Dubois", "Sato", "Haddad", "Lindqvist", "Brandt", "Reyes", "Marsh", "Cohen",
         "Novak", "Kowalski", "Chen", "Singh", "Moreau", "Larsen", "Popescu", "Silva", "Yilmaz"]
_FIRST = ["Alex", "Maria", "Daniel", "Wei", "Priya", "Omar", "Sofia", "Liam", "Chidi", "Astrid",
          "Kenji", "Claire", "Tobias", "Bao", "Evelyn", "Matthew", "Daniela", "Ivan", "Nadia",
          "Lucas", "Amara", "Jonas", "Mei", "Rafael", "Zoe", "Hugo"]
_CITIES = ["Boston", "Denver", "Austin", "Portland", "Chicago", "Reno", "Tampa", "Phoenix",
           "Seattle", "Madison", "Albany", "Tulsa", "Omaha", "Raleigh", "Fresno", "Dayton"]
_STATES = ["MA", "CO", "TX", "OR", "IL", "NV", "FL", "AZ", "WA", "WI", "NY", "OK", "NE", "NC",
           "CA", "OH"]


@dataclass
class _Career:
    index: int
    id: str
    name: str
    state: str
    birth: Optional[_dt.date]
    adult: Optional[bool]
    born: _dt.date            # true birth date (even when not reported)
    debut: _dt.date
    retire: _dt.date
    strength: float           # true over-the-board regular strength
    updated: _dt.date         # date of the last drift update
    ceiling: float            # where a junior's improvement levels off
    offsets: tuple            # per family strength offsets
    activity: float           # relative chance to enter an event (0..1]
    online: bool              # plays online at all
    fide: bool
    canadian: bool
    foreign_noise: float = 0.0
    cfc: bool = False
    played: bool = False      # has had an event
    pace: float = 0.35        # share of a junior's gap to the ceiling closed a year (rate)
    prior: Optional[SystemRecord] = None  # (calibrated) the OTBR record brought to the history


def _age(c: _Career, on: _dt.date) -> float:
    return (on - c.born).days / 365.25


def _drift(c: _Career, on: _dt.date, rng: random.Random) -> None:
    """Advance the hidden strength to ``on``."""
    dt = (on - c.updated).days / 365.25
    if dt <= 0:
        return
    age = _age(c, on)
    if age < 22:
        # Juniors close a share of the gap to their ceiling each year.
        gain = (c.ceiling - c.strength) * (1 - math.exp(-c.pace * dt))
        c.strength += max(0.0, gain)
    elif age > 55:
        c.strength -= 6.0 * dt
    c.strength += rng.gauss(0.0, 35.0 * math.sqrt(dt))
    c.strength = min(2850.0, max(150.0, c.strength))
    c.updated = on


def _new_career(i: int, rng: random.Random, id_base: int, first: _dt.date,
                last: _dt.date) -> _Career:
    junior = rng.random() < 0.35
    span_days = max(1, (last - first).days)
    # A third of the players are already active when the history starts.
    if rng.random() < 0.33:
        debut = first + _dt.timedelta(days=rng.randrange(0, min(120, span_days)))
    else:
        debut = first + _dt.timedelta(days=rng.randrange(0, max(1, span_days - 60)))
    if junior:
        age0 = rng.uniform(6.0, 15.0)
        strength = max(200.0, rng.gauss(age0 * 55.0, 150.0))
        ceiling = rng.gauss(1750.0, 300.0)
        career_years = rng.expovariate(1 / 7.0) + 1.0
    else:
        age0 = rng.uniform(18.0, 70.0)
        strength = rng.gauss(1550.0, 330.0)
        ceiling = strength
        career_years = rng.expovariate(1 / 10.0) + 0.5
    born = debut - _dt.timedelta(days=int(age0 * 365.25))
    retire = debut + _dt.timedelta(days=int(career_years * 365.25))
    r = rng.random()
    if r < 0.85:
        birth, adult = born, (None if junior else (True if rng.random() < 0.5 else None))
    elif r < 0.95 and not junior:
        birth, adult = None, True
    else:
        birth, adult = None, None
    offsets = (0.0, rng.gauss(0, 60), rng.gauss(-20, 80), rng.gauss(-40, 90))
    c = _Career(
        index=i, id=str(id_base + i * 7 + 3), name=f"{rng.choice(_LAST)}, {rng.choice(_FIRST)}",
        state=rng.choice(_STATES), birth=birth, adult=adult, born=born, debut=debut,
        retire=retire, strength=min(2750.0, max(150.0, strength)), updated=debut,
        ceiling=ceiling, offsets=offsets, activity=min(1.0, rng.lognormvariate(-1.0, 0.7)),
        online=rng.random() < 0.5, fide=False, canadian=rng.random() < 0.03)
    c.fide = strength > 1500 and rng.random() < 0.25
    c.cfc = c.canadian and rng.random() < 0.8
    c.foreign_noise = rng.gauss(0, 40)
    return c


def _calibrate_career(c: _Career, rng: random.Random, model) -> None:
    """A career drawn as :func:`_new_career` draws it, its strength then
    taken from the record's first ratings (``model.newcomer_strength``): the
    strength it brings to its first event (the pool holds it until then); a
    newcomer below the model's ``junior_below`` is a junior of about the age
    such a rating suggests, who closes ``junior_pace`` of the gap to a
    ceiling ``junior_room`` points above on average (exponential) a year.
    A player the record first shows already rated (``model.prior_record``:
    as often as the record's players, rated as they were when first shown)
    brings that rating as its OTBR record (:func:`_bring_records`), and
    its strength is that rating.
    The age rule is the generator's; the other figures are the calibration's
    ``careers`` (model choices, see :data:`~uschess.apps.generator_fit.CAREERS`)."""
    prior = model.prior_record(rng)
    if prior is not None:
        c.strength = min(2750.0, max(100.0, prior[0]))
        c.prior = SystemRecord(rating=float(round(c.strength)), games=prior[1])
    else:
        c.strength = min(2750.0, max(100.0, model.newcomer_strength(rng, c.debut)))
    if c.strength < model.junior_below:
        age0 = min(17.0, max(5.0, 5.0 + c.strength / 110.0 + rng.gauss(0.0, 1.5)))
        c.born = c.debut - _dt.timedelta(days=int(age0 * 365.25))
        if c.birth is not None:
            c.birth = c.born
        c.adult = None
        c.ceiling = c.strength + rng.expovariate(1.0 / model.junior_room)
        c.pace = model.junior_pace
    else:
        c.born = min(c.born, c.debut - _dt.timedelta(days=int(18 * 365.25)))
        if c.birth is not None:
            c.birth = c.born
        c.ceiling = c.strength
    c.fide = c.strength > 1500 and c.fide
    c.cfc = c.cfc and c.strength > 400


def _near(c: _Career, near: tuple) -> float:
    """The chance a player of strength s is seated in a section of level
    and width ``near``: ``exp(-(s - level)^2 / 2 width^2)``."""
    return math.exp(-((c.strength - near[0]) / near[1]) ** 2 / 2.0)


class _Pool:
    """Players by where they are in their careers: ``waiting`` (before their
    debut), ``fresh`` (debuted, no event yet: they enter the next events
    first, so that every player of the history plays) and ``active``
    (played at least once, drawn by activity until they retire)."""

    def __init__(self, careers: list[_Career], hold: bool = False):
        self.hold = hold
        self.waiting = sorted(careers, key=lambda c: (c.debut, c.index), reverse=True)
        self.fresh: list[_Career] = []
        self.active: list[_Career] = []
        self.retired: list[_Career] = []

    def advance(self, on: _dt.date) -> None:
        while self.waiting and self.waiting[-1].debut <= on:
            self.fresh.append(self.waiting.pop())

    def _enter(self, c: _Career, on: _dt.date, online: bool) -> None:
        """A player's first event: from now on drawn by activity."""
        c.played = True
        if self.hold and on > c.debut:
            # (calibrated) the career starts at the first event: the strength
            # drawn is the one a newcomer brings to it, at the age drawn
            late = on - c.debut
            c.born += late
            c.birth = c.born if c.birth is not None else None
            c.retire += late
            c.debut = c.updated = on
        if online:
            c.online = True      # some players make their debut online
        if c.retire < on:
            c.retire = on
        self.active.append(c)

    def draw(self, rng: random.Random, k: int, on: _dt.date, online: bool,
             taken: set, fresh: Optional[int] = None,
             near: Optional[tuple] = None, due: int = 0) -> list[_Career]:
        """Up to ``k`` players: newcomers first (in debut order; at most
        ``fresh`` of them when given), then active players chosen at random,
        each accepted with the chance of their activity (times
        ``exp(-(s - level)^2 / 2 width^2)`` of their strength s with ``near``
        = (level, width): a section of players of about one level).  With
        ``near``, newcomers too are taken by that chance (the first in line
        always: its strength is the level), and in debut order only as many
        as ``due`` says must play now."""
        out: list[_Career] = []
        seats = min(k, k if fresh is None else fresh)
        if near is not None and self.fresh:
            # newcomers of about the section's level, then those due in order
            keep = []
            for c in self.fresh:
                if len(out) < seats and (not out or rng.random() <= _near(c, near)):
                    out.append(c)
                else:
                    keep.append(c)
            self.fresh = keep
        while self.fresh and len(out) < seats and (near is None or len(out) < due):
            out.append(self.fresh.pop(0))
        for c in out:
            self._enter(c, on, online)
            taken.add(c.index)
        attempts = 0
        while len(out) < k and self.active and attempts < (40 if near is None else 200) * k:
            attempts += 1
            j = rng.randrange(len(self.active))
            c = self.active[j]
            if c.retire < on:
                self.active[j] = self.active[-1]
                self.active.pop()
                self.retired.append(c)
                continue
            if c.index in taken or (online and not c.online) or rng.random() > c.activity:
                continue
            if near is not None and rng.random() > _near(c, near):
                continue
            taken.add(c.index)
            out.append(c)
        return out

    def rescue(self, rng: random.Random, need: int, on: _dt.date, online: bool,
               taken: set) -> list[_Career]:
        """``need`` more players for an event the draw could not fill (a thin
        pool early on, or an online event among over-the-board players):
        active players whatever their activity, then players brought out of
        retirement, then the next players to debut, brought forward."""
        out: list[_Career] = []
        for group in (self.active, self.retired):
            free = [c for c in group if c.index not in taken]
            rng.shuffle(free)
            for c in free[:need - len(out)]:
                c.online = c.online or online
                c.retire = max(c.retire, on)
                if c in self.retired:
                    self.retired.remove(c)
                    self.active.append(c)
                taken.add(c.index)
                out.append(c)
        while len(out) < need and self.waiting:
            c = self.waiting.pop()
            c.debut = c.updated = on
            self._enter(c, on, online)
            taken.add(c.index)
            out.append(c)
        return out


def _result(rng: random.Random, a: float, b: float, model=None) -> str:
    """W, D or L for a player of true strength ``a`` against ``b`` (the
    chance of a draw from the calibration's curve with ``model``, at most
    what the expected score leaves)."""
    e = 1.0 / (1.0 + 10.0 ** ((b - a) / 400.0))
    if model is not None:
        draw = min(model.draw_chance(a, b), 2.0 * min(e, 1.0 - e))
    else:
        level = (a + b) / 2.0
        draw = min(0.45, max(0.04, 0.04 + (level - 1000.0) / 4000.0)) * (1.0 - 2.0 * abs(e - 0.5))
    x = rng.random()
    if x < e - draw / 2.0:
        return "W"
    if x < e + draw / 2.0:
        return "D"
    return "L"


_FLIP = {"W": "L", "L": "W", "D": "D"}


def _swiss(rng: random.Random, strengths: list[float], rounds: int, model=None
           ) -> list[list[str]]:
    """Cells of a Swiss section: pairs 1..n by seed (strength order)."""
    n = len(strengths)
    cells = [[""] * rounds for _ in range(n)]
    score = [0.0] * n
    met = [set() for _ in range(n)]
    had_bye = [False] * n
    withdrawn = [False] * n
    for r in range(rounds):
        playing = []
        for i in range(n):
            if withdrawn[i]:
                cells[i][r] = "U"
            elif r > 0 and rng.random() < 0.015:
                withdrawn[i] = True
                cells[i][r] = "U"
            elif r < rounds - 1 and rng.random() < 0.03:
                cells[i][r] = "H"
                score[i] += 0.5
            else:
                playing.append(i)
        # Score groups, highest first; within a group by seed.
        playing.sort(key=lambda i: (-score[i], i))
        if len(playing) % 2:
            for i in reversed(playing):
                if not had_bye[i]:
                    break
            playing.remove(i)
            had_bye[i] = True
            cells[i][r] = "B"
            score[i] += 1.0
        # Top half of each score group against its bottom half, floating the
        # odd player down; greedy avoidance of rematches.
        order: list[int] = []
        groups: dict[float, list[int]] = {}
        for i in playing:
            groups.setdefault(score[i], []).append(i)
        carry: list[int] = []
        for s in sorted(groups, reverse=True):
            group = carry + groups[s]
            if len(group) % 2:
                carry = [group.pop()]
            else:
                carry = []
            half = len(group) // 2
            for a, b in zip(group[:half], group[half:]):
                order.extend((a, b))
        order.extend(carry)
        pairs = [(order[k], order[k + 1]) for k in range(0, len(order) - 1, 2)]
        for k in range(len(pairs)):
            a, b = pairs[k]
            if b not in met[a]:
                continue
            # swap with the nearest pair (later ones first) that makes both new
            # pairs first meetings
            for j in sorted((j for j in range(len(pairs)) if j != k),
                            key=lambda j: (j < k, abs(j - k))):
                c, d = pairs[j]
                if d not in met[a] and b not in met[c]:
                    pairs[k], pairs[j] = (a, d), (c, b)
                    break
                if c not in met[a] and b not in met[d]:
                    pairs[k], pairs[j] = (a, c), (d, b)
                    break
        for a, b in pairs:
            met[a].add(b)
            met[b].add(a)
            if rng.random() < 0.01:
                ca, cb = ("X", "F") if rng.random() < 0.5 else ("F", "X")
            else:
                ca = _result(rng, strengths[a], strengths[b], model)
                cb = _FLIP[ca]
            cells[a][r] = f"{ca}{b + 1}"
            cells[b][r] = f"{cb}{a + 1}"
            score[a] += {"W": 1.0, "D": 0.5, "L": 0.0, "X": 1.0, "F": 0.0}[ca]
            score[b] += {"W": 1.0, "D": 0.5, "L": 0.0, "X": 1.0, "F": 0.0}[cb]
    return cells


def _round_robin(rng: random.Random, strengths: list[float], model=None) -> list[list[str]]:
    """A single round-robin by the circle method; the odd player out of a
    round (odd sections) sits out with a U."""
    n = len(strengths)
    slots = list(range(n)) + ([None] if n % 2 else [])
    m = len(slots)
    rounds = m - 1
    cells = [[""] * rounds for _ in range(n)]
    for r in range(rounds):
        for k in range(m // 2):
            a, b = slots[k], slots[m - 1 - k]
            if a is None or b is None:
                cells[a if b is None else b][r] = "U"
                continue
            ca = _result(rng, strengths[a], strengths[b], model)
            cells[a][r] = f"{ca}{b + 1}"
            cells[b][r] = f"{_FLIP[ca]}{a + 1}"
        slots = [slots[0], slots[-1]] + slots[1:-1]
    return cells


def _pick_format(rng: random.Random, on: _dt.date, model=None):
    options = [f for f in FORMATS if f[3] <= on]
    weights = [model.format_weight(f[0]) if model is not None else f[4] for f in options]
    total = sum(weights)
    x = rng.uniform(0, total)
    for f, w in zip(options, weights):
        x -= w
        if x <= 0:
            return f
    return options[-1]


def _player(c: _Career, pair: int, cells: list[str], on: _dt.date) -> Player:
    fide = cfc = None
    month = on.replace(day=1)
    if c.fide:
        fide = ForeignRating(rating=float(round(max(1000.0, c.strength - 60 + c.foreign_noise))),
                             date=month)
    if c.cfc:
        cfc = ForeignRating(rating=float(round(max(400.0, c.strength + 40 + c.foreign_noise))),
                            date=month, canadian=True)
    return Player(pair=pair, id=c.id, name=c.name, rounds=[_cell(x) for x in cells],
                  birth_date=c.birth, adult=c.adult, fide=fide, cfc=cfc, state=c.state)


#: The time controls of the formats rated in OTBR (``FAMILY`` 0).
_OTBR_CONTROLS = frozenset(f[1] for f in FORMATS if FAMILY[f[0]] == 0)


def _bring_records(event: Event, priors: dict) -> Event:
    """``event`` with the OTBR record each player of ``priors`` (id ->
    record) brings, dated the first of the event's month, in the events
    the replay takes before and including the player's first one rated in
    OTBR (``priors`` loses the player then)."""
    if not priors:
        return event
    sections = []
    for sec in event.sections:
        month = sec.start.replace(day=1)
        players = []
        for p in sec.players:
            rec = priors.get(p.id)
            if rec is not None:
                p = dataclasses.replace(p, ratings={"OTBR": dataclasses.replace(rec, date=month)})
                if sec.time_control in _OTBR_CONTROLS:
                    del priors[p.id]
            players.append(p)
        sections.append(dataclasses.replace(sec, players=players))
    return dataclasses.replace(event, sections=sections)


def _cell(text: str) -> Round:
    code = text[0]
    return Round(code, int(text[1:]) if len(text) > 1 else None)


def player_games(event: Event) -> int:
    """Rated games counted once per player per section (a game counts for
    both its players; a dual-rated game once)."""
    return sum(1 for s in event.sections for p in s.players for r in p.rounds if r.rated)


#: The rating system whose strength offset family a true strength in that
#: system takes (see ``FAMILY``).
SYSTEM_FAMILY = {"OTBR": 0, "OTBQ": 1, "OTBB": 2, "OLR": 3, "OLQ": 3, "OLB": 3}
SYSTEMS = tuple(SYSTEM_FAMILY)
#: The most players one generated event seats (two sections); a history of
#: more players than ``events * MAX_EVENT_PLAYERS`` cannot give all a game.
MAX_EVENT_PLAYERS = 64
#: The largest history made: its files are held in memory until all are
#: written at once (a few KB an event), every player's career while it is
#: drawn (about 1 KB a player).
MAX_EVENTS = 250_000
MAX_PLAYERS = 2_000_000


def check_sizes(players: int, events: int) -> None:
    """Refuse a history this program will not make (before anything is
    created on disk)."""
    if players < 2:
        raise InputError("a history needs at least 2 players")
    if events < 1:
        raise InputError("a history needs at least 1 event")
    if events > MAX_EVENTS or players > MAX_PLAYERS:
        raise InputError(f"{events:,} events of {players:,} players: at most {MAX_EVENTS:,} "
                         f"events and {MAX_PLAYERS:,} players are made")
    if players > events * MAX_EVENT_PLAYERS:
        raise InputError(f"{players} players cannot all play in {events} event(s) of at most "
                         f"{MAX_EVENT_PLAYERS} players each: ask for at most "
                         f"{events * MAX_EVENT_PLAYERS} players or at least "
                         f"{-(-players // MAX_EVENT_PLAYERS)} events")


@dataclass(frozen=True)
class TrueStrength:
    """A player's hidden strength in each rating system on the first day of
    an event they play in: what the results of that event were drawn from."""

    event: str
    date: _dt.date
    id: str
    strengths: dict

    def row(self) -> list:
        return [self.event, self.date.isoformat(), self.id,
                *(repr(self.strengths[s]) for s in SYSTEMS)]


TRUTH_FILE = "truth.csv"
TRUTH_COLUMNS = ["event", "date", "id", *SYSTEMS]


def generate_history(seed: int, players: int, events: int, *, first: _dt.date = FIRST_DAY,
                     last: _dt.date = LAST_DAY, truth: Optional[list] = None,
                     model=None) -> Iterator[Event]:
    """Yield exactly ``events`` synthetic events among exactly ``players``
    players (every one plays at least once), in replay order (end date,
    start date, id), deterministic by ``seed``.  With a list as ``truth``,
    append a :class:`TrueStrength` for every player in every event, in the
    order drawn.  With ``model`` (a
    :class:`~uschess.apps.generator_fit.CalibratedModel`), the formats,
    sections, newcomers' strengths and draws are drawn from the record.
    Raises :class:`InputError` when the sizes cannot be met."""
    check_sizes(players, events)
    if first < _dt.date(2001, 1, 1) or last < first:
        raise InputError(f"dates {first}..{last} are outside 2001-01-01.. or reversed")
    rng = random.Random(seed)
    span = (last - first).days
    starts = sorted(first + _dt.timedelta(days=rng.randrange(span + 1)) for _ in range(events))
    # Every player debuts by the last event's start, so that all can play.
    careers = [_new_career(i, rng, 10_000_000 + (seed % 1000) * 100_000, first, starts[-1])
               for i in range(players)]
    if model is not None:
        for c in careers:
            _calibrate_career(c, rng, model)
    pool = _Pool(careers, hold=model is not None)
    priors = {c.id: c.prior for c in careers if c.prior is not None}
    # Players per event: about what the pool can provide, 6 to 36 on average.
    mean_size = max(6, min(36, int(players * 0.02) + 6))
    pending: list[tuple] = []
    for n, start in enumerate(starts):
        pool.advance(start)
        kind, tc, online, _, _ = _pick_format(rng, start, model)
        fam = FAMILY[kind]
        days = 0 if kind in ("quick", "blitz") or online else rng.choice((0, 0, 1, 1, 2))
        end = min(last, start + _dt.timedelta(days=days))
        ev_id = f"S{seed}-{n + 1:06d}"
        city = rng.choice(_CITIES)
        # Newcomers enter first; when more are due than the remaining events
        # would seat at this pace, the event grows (the last seats all left).
        backlog = len(pool.fresh)
        due = -(-(backlog + len(pool.waiting)) // (len(starts) - n))
        # (the default draws its chance before looking at the backlog, as it
        # always has: a seed gives the history it gave)
        if model is not None:
            round_robin = (not online) and backlog <= 10 and model.round_robin(rng, kind)
        else:
            round_robin = (not online) and rng.random() < 0.12 and backlog <= 10
        if round_robin:
            size = rng.randint(4, 10)
            split = False
        elif model is not None:  # one section of the record's sizes
            size = model.size(rng, kind, MAX_EVENT_PLAYERS)
            split = False
        else:
            size = max(4, int(rng.gauss(mean_size, mean_size / 3)))
            split = size >= 30 and rng.random() < 0.6
        if due > size:
            size = min(MAX_EVENT_PLAYERS, due)
        split = (split or size > 40) and model is None
        taken: set = set()
        if model is None:
            got = pool.draw(rng, size, start, online, taken)
        else:
            width = model.level_width(kind, rng)
            seats = max(due, model.newcomer_seats(kind, size))
            # the level of the next newcomer in line, or of an active player
            level = (pool.fresh[0] if pool.fresh and seats else
                     rng.choice(pool.active) if pool.active else None)
            near = (level.strength, width) if level is not None and width else None
            got = pool.draw(rng, size, start, online, taken, seats, near, due)
        if len(got) < 2:
            got += pool.rescue(rng, 2 - len(got), start, online, taken)
        for c in got:
            _drift(c, start, rng)
        got.sort(key=lambda c: (-(c.strength + c.offsets[fam]), c.index))
        if round_robin:
            drawn = [("Round Robin", got)]
        elif split and len(got) >= 8:  # the stronger half plays the Open
            half = len(got) // 2
            drawn = [("Open", got[:half]), ("Under 1600", got[half:])]
        else:
            drawn = [("Open", got)]
        sections = []
        for name, group in drawn:
            strengths = [c.strength + c.offsets[fam] for c in group]
            if model is not None:  # each player's form in this event
                strengths = [s + rng.gauss(0.0, model.form) for s in strengths]
            if name == "Round Robin":
                cells = _round_robin(rng, strengths, model)
                sec_kind = "round-robin"
            else:
                if model is not None:
                    rounds = model.rounds(rng, kind)
                else:
                    rounds = {"regular": rng.randint(4, 6), "dual": rng.randint(4, 5),
                              "quick": rng.randint(4, 6), "blitz": rng.randint(5, 9)}.get(
                        kind, rng.randint(5, 8))
                rounds = min(rounds, max(1, len(group) - 1))
                cells = _swiss(rng, strengths, rounds, model)
                sec_kind = "swiss"
            plist = [_player(c, i + 1, cells[i], start) for i, c in enumerate(group)]
            sections.append(Section(name=name, time_control=tc, players=plist, start=start,
                                    end=end, online=online, kind=sec_kind))
            if truth is not None:
                truth.extend(TrueStrength(ev_id, start, c.id, {
                    s: c.strength + c.offsets[f] for s, f in SYSTEM_FAMILY.items()})
                    for c in group)
        label = {"regular": "Open", "dual": "Action", "quick": "Quick", "blitz": "Blitz",
                 "online-blitz": "Online Blitz", "online-quick": "Online Quick",
                 "online-regular": "Online Open"}[kind]
        event = Event(name=f"{city} {label} {start.year}", start=start, end=end,
                      sections=sections, online=online, id=ev_id)
        pending.append(((end, start, ev_id), event))
        # Multi-day events end later than single-day events starting after
        # them: hold events back until no later start can end before them.
        pending.sort(key=lambda x: x[0])
        while pending and pending[0][0][0] < start:
            yield _bring_records(pending.pop(0)[1], priors)
    if pool.fresh:
        raise InputError(f"{len(pool.fresh)} of {players} players found no place in "
                         f"{events} events: ask for fewer players or more events")
    pending.sort(key=lambda x: x[0])
    for _, event in pending:
        yield _bring_records(event, priors)


_GENERATED = re.compile(r"^S\d+-\d{6}\.(json|yaml)$")


def _output_folder(directory, force: bool) -> Path:
    """The folder to write a history into: created if its parent exists,
    refused when it holds anything unless ``force``."""
    out = Path(directory)
    if out.exists() and not out.is_dir():
        raise InputError("exists and is not a directory: give a folder to write the history into",
                         file=out)
    if not out.exists():
        if not out.parent.is_dir():
            raise InputError("the directory to create it in does not exist", file=out)
        try:
            out.mkdir()
        except OSError as err:
            raise InputError(f"cannot create the directory: {err.strerror or err}", file=out)
        return out
    try:
        present = sorted(p.name for p in out.iterdir())
    except OSError as err:
        raise InputError(f"cannot list the directory: {err.strerror or err}", file=out)
    if present and not force:
        shown = ", ".join(present[:3]) + (f" and {len(present) - 3} more" if len(present) > 3 else "")
        raise InputError(f"is not empty ({shown}); a replay of it would mix histories: "
                         "use --force to replace a generated history there", file=out)
    if not os.access(out, os.W_OK | os.X_OK):
        raise InputError("cannot write into the directory: permission denied", file=out)
    return out


def truth_csv(rows: Iterable[TrueStrength]) -> str:
    """The true strengths as CSV (``TRUTH_COLUMNS``, full precision)."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(TRUTH_COLUMNS)
    for r in rows:
        w.writerow(r.row())
    return buf.getvalue()


def write_history(directory, seed: int, players: int, events: int, fmt: str = "json", *,
                  force: bool = False, progress: Optional[Callable[[], None]] = None,
                  model=None) -> list[Path]:
    """Write a generated history as event files named by event id, and the
    players' true strengths beside them (``truth.csv``), all or nothing.

    The folder must be new or empty (``force``: replace a generated history
    in it: its event files and ``truth.csv`` are removed first).
    ``progress()`` is called after each event is made.  Returns the event
    files."""
    from uschess.io.eventfile import event_to_dict
    if fmt not in ("json", "yaml"):
        raise InputError(f"format {fmt!r} is not json or yaml")
    check_sizes(players, events)
    out = _output_folder(directory, force)
    truth: list[TrueStrength] = []
    rendered: dict[Path, bytes] = {}
    for event in generate_history(seed, players, events, truth=truth, model=model):
        data = event_to_dict(event)
        text = (json.dumps(data, indent=2) + "\n" if fmt == "json"
                else yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
        rendered[out / f"{event.id}.{fmt}"] = text.encode("utf-8")
        if progress is not None:
            progress()
    paths = list(rendered)
    rendered[out / TRUTH_FILE] = truth_csv(truth).encode("utf-8")
    stale = [p for p in out.iterdir() if (p.name == TRUTH_FILE or _GENERATED.match(p.name))
             and p not in rendered]
    for p in stale:
        try:
            p.unlink()
        except OSError as err:
            raise InputError(f"cannot remove the earlier history's file: {err.strerror or err}",
                             file=p)
    atomic_write(rendered)
    return paths


#: A strength as ``truth_csv`` writes it (Python's repr of a float).
_PLAIN_NUMBER = re.compile(r"-?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:e[-+]?[0-9]+)?\Z",
                           re.ASCII | re.IGNORECASE)


def read_truth(path) -> dict:
    """``truth.csv`` as ``{(event, id): {system: strength}}``, read as every
    input is (a regular file only: a FIFO is refused, not waited on; a
    byte-order mark dropped); an :class:`InputError` naming the file and
    record for anything malformed, and both records of a player's strengths
    in one event given twice."""
    from uschess.io.eventfile import MAX_RATING, parse_date
    from uschess.io.textdata import open_regular
    path = Path(path)
    out: dict = {}
    given: dict = {}  # (event, id) -> the record that gave it
    try:
        with open_regular(path) as raw, \
                io.TextIOWrapper(raw, encoding="utf-8-sig", newline="") as fh:
            records = _csv_records(fh, path)
            head = next(records, (1, None))[1]
            if head != TRUTH_COLUMNS:
                raise InputError(f"the header is not {','.join(TRUTH_COLUMNS)}", file=path)
            for line, row in records:
                if len(row) != len(TRUTH_COLUMNS):
                    raise InputError(f"{len(row)} fields, expected {len(TRUTH_COLUMNS)}",
                                     file=path, record=line)
                try:
                    values = {s: float(v) for s, v in zip(SYSTEMS, row[3:])}
                except ValueError as err:
                    raise InputError(f"not a number: {err}", file=path, record=line)
                # rating points, the one bound on ratings either way (a family's
                # offset may take a weak player's strength below 0); inf, nan too
                odd = next((s for s, v in values.items() if not abs(v) <= MAX_RATING), None)
                if odd is not None:
                    raise InputError(f"{odd} strength {row[3 + SYSTEMS.index(odd)]!r} is not a "
                                     f"finite number within +-{MAX_RATING:g}", file=path,
                                     record=line)
                odd = next((s for s, v in zip(SYSTEMS, row[3:]) if not _PLAIN_NUMBER.match(v)),
                           None)
                if odd is not None:  # float() takes ' 1200 ', '1_200' and '+1200' too
                    raise InputError(f"{odd} strength {row[3 + SYSTEMS.index(odd)]!r} is not "
                                     "written as a number (digits, a point, an exponent; no "
                                     "spaces, '_' or '+')", file=path, record=line)
                try:
                    parse_date(row[1], "date")
                except InputError as err:
                    raise err.located(file=path, record=line)
                key = (row[0], row[2])
                if key in given:
                    raise InputError(f"player {row[2]} of event {row[0]} given twice: also "
                                     f"in record {given[key]}", file=path, record=line)
                given[key] = line
                out[key] = values
    except OSError as err:
        raise InputError(f"cannot read: {err.strerror or err}", file=path)
    except UnicodeDecodeError:
        raise InputError("not a UTF-8 text file", file=path)
    return out


def _csv_records(fh, path) -> Iterator[tuple[int, list]]:
    """(record number, fields) of each record of the CSV text ``fh``; a
    record the csv module cannot read (a field over its limit of 128 KiB, a
    quote left open) is an :class:`InputError` naming it."""
    reader = csv.reader(fh)
    number = 0
    while True:
        number += 1
        try:
            row = next(reader)
        except StopIteration:
            return
        except csv.Error as err:
            raise InputError(f"not CSV: {err}", file=path, record=number)
        yield number, row
