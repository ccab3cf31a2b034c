"""The optional compiled kernel of the event reader's players
(``engine/reader_kernel.pyx``, built with the formulas' kernel by
``USCHESS_KERNEL=1 pip install -e .``) against the reference,
:func:`uschess.io.eventfile.parse_player` and
:func:`uschess.io.eventfile.validate_section`: the same events, field by
field and as the same types, from the bundled event files and a generated
history; for players mutated in every way the reference refuses, the kernel
declining (so that the reference says what is wrong) and otherwise giving
what the reference gives; the same verdict on sections with every kind of
pairing fault.  Where the kernel is not built the comparisons skip; its
switches are checked either way."""

from __future__ import annotations

import copy
import datetime as dt
import os
import subprocess
import sys

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import uschess.formulas as F
from uschess.errors import InputError
from uschess.io import eventfile as E
from uschess.model import Player, Round, Section

from helpers import ROOT, examples
from test_section_kernel import _differences

try:
    from uschess import reader_kernel as KERNEL
except ImportError:
    KERNEL = None
built = pytest.mark.skipif(KERNEL is None or E.READER is None,
                           reason="the compiled kernel is not built or not current "
                                  "(USCHESS_KERNEL=1 pip install -e . builds it)")


def _reference(monkeypatch, read):
    """``read()`` with the kernel set aside."""
    with monkeypatch.context() as m:
        m.setattr(E, "READER", None)
        return read()


@built
def test_bundled_events_and_a_history_read_the_same(monkeypatch, tmp_path):
    """Every bundled event file, the mixed replay's and a generated
    history's, read with the kernel and with the reference: equal events,
    every value of the same type; the kernel read every section itself."""
    from uschess.cli import main

    assert main(["generate", "--players", "200", "--events", "60", "--seed", "7", "-o",
                 str(tmp_path / "hist")]) == 0
    files = sorted((ROOT / "fixtures" / "events").glob("[!.]*[!s].yaml"))
    files += sorted((ROOT / "fixtures" / "replay-mixed").glob("e*.yaml"))
    files += sorted(p for p in (tmp_path / "hist").iterdir() if p.suffix == ".json")
    read_by_kernel = []
    players = KERNEL.players

    def counted(raw, text_checked):
        got = players(raw, text_checked)
        read_by_kernel.append(got is not None)
        return got
    monkeypatch.setattr(KERNEL, "players", counted, raising=False)
    monkeypatch.setattr(E, "READER", KERNEL)
    got = [E.load_event(p) for p in files]
    monkeypatch.undo()
    want = _reference(monkeypatch, lambda: [E.load_event(p) for p in files])
    assert _differences(got, want) == []
    assert len(read_by_kernel) > 60
    with_history = sum(1 for ev in want for s in ev.sections for p in s.players if p.match_history)
    assert sum(read_by_kernel) >= len(read_by_kernel) - with_history > 0


def _player(pair: int, opponents: list) -> dict:
    return {"pair": pair, "id": f"{12000000 + pair}", "name": f"Player, No {pair}",
            "rounds": opponents}


#: Ways to spoil one player's mapping, each refused by the reference or not
#: (then read alike): the kernel must decline the refused ones.
SPOILS = [
    lambda p: p.update(pair=0), lambda p: p.update(pair=100001), lambda p: p.update(pair="3"),
    lambda p: p.update(pair=True), lambda p: p.update(pair=2.0), lambda p: p.pop("pair", None),
    lambda p: p.update(colour="W"), lambda p: p.update(history=[]),
    lambda p: p.update(id=12), lambda p: p.update(id=None), lambda p: p.update(id=["x"]),
    lambda p: p.update(name=None), lambda p: p.update(name=7), lambda p: p.pop("name", None),
    lambda p: p.update(rounds="W2"), lambda p: p.update(rounds=None),
    lambda p: p.update(rounds=["Q2"]), lambda p: p.update(rounds=["W"]),
    lambda p: p.update(rounds=["B4"]), lambda p: p.update(rounds=[5]),
    lambda p: p.update(rounds=[["W2"]]), lambda p: p.update(rounds=[" d 2 "]),
    lambda p: p.update(rounds=["w0000002"]), lambda p: p.update(rounds=[]),
    lambda p: p.update(state=5), lambda p: p.update(state="WA"), lambda p: p.update(state=None),
    lambda p: p.update(adult="yes"), lambda p: p.update(adult=1), lambda p: p.update(adult=False),
    lambda p: p.update(birth_date="2001-02-30"), lambda p: p.update(birth_date="2001-02-03"),
    lambda p: p.update(birth_date="3001-01-01"), lambda p: p.update(birth_date=""),
    lambda p: p.update(birth_date=dt.date(1990, 5, 6)),
    lambda p: p.update(birth_date=dt.datetime(1990, 5, 6, 1, 2)),
    lambda p: p.update(ratings={"OTBR": {"rating": 1500.5, "games": 12}}),
    lambda p: p.update(ratings={"OTBR": {"rating": 1500, "games": 0}}),
    lambda p: p.update(ratings={"FIDE": {"rating": 1500, "games": 3}}),
    lambda p: p.update(ratings={"OTBQ": None}), lambda p: p.update(ratings={}),
    lambda p: p.update(ratings=[]), lambda p: p.update(ratings=["OTBR"]),
    lambda p: p.update(ratings={"OTBR": {"rating": 1500, "games": 5, "wins": 9}}),
    lambda p: p.update(ratings={"OLB": {"rating": 1400, "games": 8, "colour": 1}}),
    lambda p: p.update(fide={"rating": 1900, "date": "2019-12-01"}),
    lambda p: p.update(fide={"rating": "high"}), lambda p: p.update(fide=1900),
    lambda p: p.update(cfc={"rating": 1700, "canadian": True}),
    lambda p: p.update(cfc={"rating": 1700, "canadian": "yes"}),
    lambda p: p.update(match_history=[{"date": "2024-01-02", "change": 12.5}]),
    lambda p: p.update(match_history="x"),
]


@built
@settings(max_examples=examples(300), deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.integers(0, 3), st.integers(0, len(SPOILS) - 1)), max_size=4),
       st.booleans())
def test_spoiled_players_are_declined_or_read_alike(spoils, text_checked):
    """Four players, some spoiled: where the reference refuses one, the
    kernel declines the section (returns None) and the reference's message
    is the one given; where the reference reads them, the kernel gives the
    same players, or declines what it leaves to the reference (a number for
    a text or a pair, a match history, text not from the checked reader)."""
    raws = [_player(1, ["W2", "D3"]), _player(2, ["L1", "X4"]), _player(3, ["W4", "D1"]),
            _player(4, ["L3", "F2"])]
    for who, spoil in spoils:
        SPOILS[spoil](raws[who])
    got = KERNEL.players(copy.deepcopy(raws), text_checked)
    try:
        want = [E.parse_player(p, text_checked=text_checked) for p in copy.deepcopy(raws)]
    except InputError:
        assert got is None
        return
    if got is not None:
        assert _differences(got, want) == []
    # what it leaves to the reference though the reference reads it: numbers
    # given for a pair (2.0), an id, a name or a state; a match history
    plain = text_checked and all(
        type(p["pair"]) is int and type(p["id"]) is str and type(p["name"]) is str
        and (p.get("state") is None or type(p["state"]) is str)
        and p.get("match_history") is None for p in raws)
    assert (got is not None) == plain


@built
def test_a_refused_file_says_the_same_with_the_kernel(tmp_path, capsys):
    """A file the reference refuses is refused in the same words with the
    kernel on (it declines, and the reference reads)."""
    import json

    from uschess.cli import main

    data = {"event": {"name": "Bad", "start": "2025-03-01"},
            "sections": [{"name": "Open", "time_control": "G/90;d30", "players": [
                _player(1, ["W2", "D3"]), _player(2, ["L1", "Q3"]), _player(3, ["W2", "D1"])]}]}
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    assert main(["rate", str(path)]) == 2
    said = capsys.readouterr().err.strip()
    assert said.count("\n") == 0 and "bad.json" in said and "Open" in said
    assert "2 (Player, No 2)" in said and "round 2" in said and "'Q3'" in said


def _section(players: list) -> Section:
    return Section(name="S", time_control="G/60", players=players, start=dt.date(2025, 1, 4),
                   end=dt.date(2025, 1, 4))


CODES = ["W", "L", "D", "X", "F", "Z", "B", "H", "U"]


@st.composite
def pairings(draw):
    """Players with rounds that mostly agree (a Swiss of random pairings)
    and then a few faults: a pair or id given twice, a round missing, an
    opponent not there or the player themself, results that disagree, a
    forfeit on one side only."""
    n = draw(st.integers(1, 8))
    rounds = draw(st.integers(0, 4))
    cells = {pair: [] for pair in range(1, n + 1)}
    for _ in range(rounds):
        order = draw(st.permutations(list(range(1, n + 1))))
        for i in range(0, n - 1, 2):
            a, b = order[i], order[i + 1]
            code = draw(st.sampled_from(["W", "L", "D", "X", "F", "Z"]))
            cells[a].append(Round(code, b))
            cells[b].append(Round({"W": "L", "L": "W", "D": "D", "X": "F", "F": "X",
                                   "Z": "Z"}[code], a))
        if n % 2:
            cells[order[-1]].append(Round(draw(st.sampled_from(["B", "H", "U"]))))
    players = [Player(pair=p, id=f"{1000 + p}", name=f"P{p}", rounds=cells[p])
               for p in range(1, n + 1)]
    for _ in range(draw(st.integers(0, 2))):
        who = draw(st.integers(0, n - 1))
        fault = draw(st.integers(0, 5))
        p = players[who]
        if fault == 0:
            p.pair = draw(st.integers(1, n + 1))
        elif fault == 1:
            p.id = f"{1000 + draw(st.integers(1, n))}"
        elif fault == 2 and p.rounds:
            p.rounds = p.rounds[:-1]
        elif p.rounds:
            k = draw(st.integers(0, len(p.rounds) - 1))
            code = draw(st.sampled_from(CODES))
            opp = None if code in "BHU" else draw(st.integers(1, n + 1))
            p.rounds = [*p.rounds[:k], Round(code, opp), *p.rounds[k + 1:]]
    return players


@built
@settings(max_examples=examples(400), deadline=None)
@given(pairings())
def test_pairing_faults_get_the_references_verdict(players):
    """``valid`` is True exactly where the reference finds nothing wrong."""
    try:
        _reference_validate(players)
        wanted = True
    except InputError:
        wanted = False
    assert KERNEL.valid(players) is wanted


def _reference_validate(players: list) -> None:
    saved = E.READER
    E.READER = None
    try:
        E.validate_section(_section(players))
    finally:
        E.READER = saved


@built
@given(st.integers(-10**40, 10**40) | st.integers(-10**20, 10**20) | st.integers(-10**3, 10**3))
@settings(max_examples=examples(300), deadline=None)
def test_json_integers_read_and_refused_alike(n):
    """The JSON reader's check of an integer (every integer of every file
    goes through it): the kernel's gives the reference's value, or refuses
    with the reference's message; the checked reader uses the kernel's."""
    from uschess.io import textdata as T

    def outcome(check):
        try:
            got = check(str(n))
            return type(got), got
        except InputError as err:
            return str(err)

    assert outcome(KERNEL.json_int) == outcome(T._json_int)
    assert all(d.parse_int is KERNEL.json_int for d in T._JSON_DECODERS)
    want = outcome(T._json_int)
    try:
        got = T.parse_data(f'{{"n": {n}}}', json_format=True)["n"]
        assert want == (int, got)
    except InputError as err:
        assert str(err).startswith(want)


def test_it_runs_only_with_the_formulas_kernel(monkeypatch):
    """``USCHESS_PURE=1`` (or no formulas' kernel) turns it off too,
    ``USCHESS_PURE=reader`` this one alone, and a kernel older than the
    reference modules it mirrors is not used."""
    monkeypatch.setattr(F, "ACTIVE", F.PURE)
    reader, status = E._reader()
    assert reader is None and status == "pure Python, as the formulas"
    monkeypatch.undo()
    monkeypatch.setenv("USCHESS_PURE", "reader")
    reader, status = E._reader()
    assert reader is None and status.startswith("pure Python")
    monkeypatch.undo()
    if F.ACTIVE is not F.PURE:
        monkeypatch.setenv("USCHESS_PURE", "reader")
        assert "USCHESS_PURE=reader" in E._reader()[1]
        monkeypatch.undo()
    if KERNEL is not None and F.ACTIVE is not F.PURE:
        seen = []

        def older(built_file, sources):
            seen.extend(sources)
            return True
        monkeypatch.setattr(F, "older_than_sources", older)
        reader, status = E._reader()
        assert reader is None and "older than its sources" in status
        assert {p.name for p in seen} >= {"reader_kernel.pyx", "eventfile.py", "model.py",
                                          "textdata.py", "setup.py"}
        monkeypatch.undo()
        reader, status = E._reader()
        assert reader is KERNEL and status == "compiled kernel"


def test_version_names_the_readers_code():
    """``--version`` says which code reads: set aside alone by
    ``USCHESS_PURE=reader``, with the rest by ``USCHESS_PURE=1``."""
    alone = ("reader: pure Python, USCHESS_PURE=reader is set" if F.ACTIVE is not F.PURE
             else "reader: pure Python, as the formulas")  # no formulas' kernel here
    for value, said in (("reader", alone), ("1", "reader: pure Python, as the formulas")):
        out = subprocess.run([sys.executable, "-m", "uschess", "--version"], capture_output=True,
                             text=True, env=dict(os.environ, USCHESS_PURE=value), check=True)
        assert said in out.stdout
