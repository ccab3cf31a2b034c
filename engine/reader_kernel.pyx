# cython: language_level=3, boundscheck=False, wraparound=False
"""The optional compiled kernel of the event reader's players.

:func:`players` is the list :func:`uschess.io.eventfile.parse_section` makes
of a section's ``players:`` (:func:`uschess.io.eventfile.parse_player` of
each), and :func:`valid` says whether
:func:`uschess.io.eventfile.validate_section` would pass a section's
players.  Those functions are the reference: this module does what they do
on well-formed input read by the checked reader, asking the reference's own
helpers for every value it does not build itself (the round cells not read
before, ratings records, dates, FIDE and CFC ratings), and gives the very
values they give (and :func:`json_int` is the JSON reader's check of an
integer, :func:`uschess.io.textdata._json_int`).  It never says what is
wrong: on anything the reference would refuse, or that it does not do
itself (a match history, a player mapping of another type, data not from
the checked reader), :func:`players` returns None and :func:`valid`
False, and the reference reads the section again and refuses it with its
own message.  ``tests/engine/test_reader_kernel.py``
checks that the two give equal events, and the same verdicts.

Imported by :mod:`uschess.io.eventfile` once that module's functions are
defined (its last lines); built with the formulas' kernel (``USCHESS_KERNEL=1
pip install ...``, see ``setup.py``); ``USCHESS_PURE=1`` turns it off with
the rest of the kernel, ``USCHESS_PURE=reader`` alone.
"""

from uschess.errors import InputError
from uschess.io.refusals import MAX_INTEGER_DIGITS
from uschess.io.eventfile import (_CELLS, _DATES, MAX_PAIR, PLAYER_KEYS, parse_date,
                                  parse_foreign, parse_record, parse_round)
from uschess.model import FORFEIT_CODES, MIRROR, SYSTEMS, Player

cdef frozenset _KEYS = frozenset(PLAYER_KEYS)
cdef frozenset _SYSTEMS = frozenset(SYSTEMS)
cdef dict _CELL_CACHE = _CELLS     # the reference's caches themselves (emptied in place when full)
cdef dict _DATE_CACHE = _DATES
cdef dict _MIRROR = dict(MIRROR)
cdef frozenset _FORFEITS = frozenset(FORFEIT_CODES)


def json_int(str text):
    """:func:`uschess.io.textdata._json_int` (a JSON integer of at most
    MAX_INTEGER_DIGITS digits, refused with the same message beyond), which
    the JSON parser calls for every integer of every file: the same checks
    and value without a Python call each time."""
    cdef Py_ssize_t digits = len(text.lstrip("-"))
    if digits > MAX_INTEGER_DIGITS:
        raise InputError(f"a number of {digits} digits (no value needs more than "
                         f"{MAX_INTEGER_DIGITS})")
    return int(text)


def players(list players_raw, bint text_checked):
    """The section's players as :func:`parse_player` reads them, or None
    (the reference reads them: one of them is not plain, or is refused)."""
    if not text_checked:
        return None
    cdef list out = []
    for raw in players_raw:
        p = _player(raw)
        if p is None:
            return None
        out.append(p)
    return out


cdef object _player(object raw):
    if type(raw) is not dict:
        return None
    cdef dict d = <dict>raw
    pair = d.get("pair")
    if type(pair) is not int or not 1 <= pair <= MAX_PAIR:
        return None
    if not _KEYS.issuperset(d):
        return None
    pid = d.get("id")
    name = d.get("name")
    cells = d.get("rounds")
    state = d.get("state")
    if type(pid) is not str or type(name) is not str or type(cells) is not list:
        return None
    if state is not None and type(state) is not str:
        return None
    rounds = _rounds(<list>cells)
    if rounds is None:
        return None
    cdef dict ratings = {}
    ratings_raw = d.get("ratings")
    if ratings_raw is not None:
        if type(ratings_raw) is not dict:
            return None
        for system, rec in (<dict>ratings_raw).items():
            if system not in _SYSTEMS:
                return None
            if rec is not None:
                try:
                    ratings[system] = parse_record(rec, system)
                except InputError:
                    return None
    if d.get("match_history") is not None or d.get("initial") is not None:
        return None  # read by the Python reader
    adult = d.get("adult")
    if adult is not None and type(adult) is not bool:
        return None
    birth = d.get("birth_date")
    fide = d.get("fide")
    cfc = d.get("cfc")
    birth_date = _DATE_CACHE.get(birth) if type(birth) is str else None
    try:
        if birth_date is None and birth is not None:  # a date not read before, or not text
            birth_date = parse_date(birth, "birth_date")
        fide_rating = parse_foreign(fide, "fide") if fide is not None else None
        cfc_rating = parse_foreign(cfc, "cfc") if cfc is not None else None
    except InputError:
        return None
    return Player(pair=pair, id=pid, name=name, rounds=rounds, ratings=ratings,
                  birth_date=birth_date, adult=adult, fide=fide_rating, cfc=cfc_rating,
                  state=state, match_history=None)


cdef list _rounds(list cells):
    cdef list out = []
    for cell in cells:
        if type(cell) is not str:
            return None
        r = _CELL_CACHE.get(cell)
        if r is None:
            try:
                r = parse_round(cell)
            except InputError:
                return None
        out.append(r)
    return out


def valid(list section_players):
    """Whether :func:`validate_section` passes these players: pairs and
    ids given once, as many rounds each, every opponent there and agreeing
    (or a forfeit recorded on one side only).  False as well where a
    player's rounds are not a list (the reference then decides)."""
    cdef dict rounds_of = {}            # pair -> the player's rounds
    cdef set ids = set()
    cdef list rounds, back_rounds
    cdef Py_ssize_t n = -1, i
    if not section_players:
        return True
    for p in section_players:
        pair = p.pair
        if pair in rounds_of:
            return False
        got = p.rounds
        if type(got) is not list:
            return False
        rounds = got
        if n < 0:
            n = len(rounds)
        elif len(rounds) != n:
            return False
        rounds_of[pair] = rounds
        pid = p.id
        if pid in ids:
            return False
        ids.add(pid)
    for p in section_players:
        pair = p.pair
        rounds = rounds_of[pair]
        for i in range(n):
            r = rounds[i]
            opponent = r.opponent
            if opponent is None:
                continue
            if opponent == pair:
                return False
            got = rounds_of.get(opponent)
            if got is None:
                return False
            back_rounds = got
            back = back_rounds[i]
            if back.opponent == pair and _MIRROR.get(r.code) == back.code:
                continue
            if back.opponent is None and r.code in _FORFEITS:
                continue
            return False
    return True
