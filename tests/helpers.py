"""Small builders for events in tests."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from uschess.io.eventfile import event_from_dict
from uschess.rating.pipeline import RatingOptions, rate_event

ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = ROOT.parent / "shared" / "data"
"""The real published crosstables, read in place (see ``../shared/data/README.md``)."""
TEACHING_MSA = SHARED_DATA / "msa" / "tournamentinfo.txt"
"""The teaching data set: one MSA section of 64 players (rate it as starting 2016-01-15)."""


def player(pair, rounds, *, rating=None, games=None, system="OTBR", pid=None, **extra):
    out = {"pair": pair, "id": pid or f"{10000000 + pair}", "name": f"Player {pair}", "rounds": rounds}
    if rating is not None:
        rec = {"rating": rating, "games": games}
        rec.update(extra.pop("record", {}))
        out["ratings"] = {system: rec}
    out.update(extra)
    return out


def event(players, *, start="2025-03-21", tc="G/90;d30", online=False, name="Test", **section):
    return event_from_dict({
        "event": {"name": name, "start": start, "end": section.pop("end", start), "online": online},
        "sections": [{"name": "S", "time_control": tc, "players": players, **section}],
    }, source="test.yaml")


def rate(players, options=None, **kw):
    res = rate_event(event(players, **kw), options or RatingOptions())
    return res


def by_pair(result, system="OTBR"):
    return {p.pair: p for s in result.sections if s.system == system for p in s.players}


def d(text):
    return dt.date.fromisoformat(text)


#: A game's result for the opponent.
MIRROR = {"W": "L", "L": "W", "D": "D", "X": "F", "F": "X"}


def msa_text_page(players, *, start: str, rated: str = None, system: str = "R",
                  tc: str = "G/90;d30", tnmt: str = "S", name: str = "OPEN") -> str:
    """One section of an MSA page copied from a browser as text (the layout
    of the Waukesha page).  ``players`` are dicts with ``pair``, ``name``,
    ``id``, ``total`` (as printed), ``cells`` (one a round, as printed:
    ``W   3``) and ``lines``: the rating lines as printed after the ID, the
    first beside it (``R: 1293   ->1343``), any other under it
    (``Q: 1548P4 ->1540P8``); ``state`` (default ``KS``)."""
    rounds = len(players[0]["cells"])
    bar = "-" * (48 + 6 * rounds)
    empty = "     |" + "     |" * rounds
    lines = [f"Section 1 - {name}", f"Section Date(s) \t\t{start} thru {start}",
             f"Processed \t\tReceived: {start}   Entered: {start}   Rated: {rated or start}",
             f"Stats \t\t{rounds} Rounds,  {len(players)} Players;  K Factor: F  "
             f"Rating Sys: {system}  Tnmt Type: {tnmt}", f"Time Control: {tc}", "", bar,
             " Pair | Player Name                     |Total|" + "Round|" * rounds,
             " Num  | USCF ID / Rtg (Pre->Post)       | Pts |"
             + "".join(f"  {k}  |" for k in range(1, rounds + 1)), bar]
    for p in players:
        lines.append(f"{p['pair']:5d} | {p['name']:<32}|{p['total']:<5}|"
                     + "".join(f"{c:<5}|" for c in p["cells"]))
        first, *more = p["lines"]
        lines.append(f"   {p.get('state', 'KS'):>2} |{' ' + p['id'] + ' / ' + first:<33}|" + empty)
        lines.extend(f"      |{' ' * 12 + line:<33}|" + empty for line in more)
        lines.append(bar)
    return "\n".join(lines) + "\n"


def store_write(eid="E1", rating=1234.5678901234567, pid="100", system="OTBR", pre=None):
    """One event's write to a ratings store: a player's record and change."""
    from uschess.model import ForeignRating, SystemRecord
    from uschess.io.store import Change, EventWrite, PlayerInfo
    D = dt.date
    rec = SystemRecord(rating=rating, games=4, wins=2, draws=1, losses=1, events3=1,
                       peak=None, date=D(2020, 1, 5), games_above_2200=0)
    w = EventWrite(id=eid, name="Test", start=D(2020, 1, 4), end=D(2020, 1, 5), source="x.yaml")
    w.changes.append(Change(event_id=eid, pos=0, section="Open", system=system, player_id=pid,
                            pre=pre, post=rating, games_before=0, games_after=4, m=4, score=2.5,
                            formula="special", floor_applied=False, fingerprint="fp1"))
    w.ratings[(pid, system)] = rec
    w.players.append(PlayerInfo(id=pid, name="Doe, Jane", birth_date=D(2000, 2, 29),
                                fide=ForeignRating(1900.0, D(2019, 12, 1))))
    w.rulesets["fp1"] = {"parameters": {"k": 1}}
    return w


#: Store tables compared between runs (events apart: applied_at is a clock).
STORE_TABLES = ("players", "ratings", "changes", "rulesets", "published")


def store_snapshot(db) -> dict:
    """Everything a replay wrote to a store, for comparing two runs."""
    from uschess.io.store import Store
    with Store.open(db, create=False) as store:
        out = {t: store.dump(t) for t in STORE_TABLES}
        out["events"] = [(e["id"], e["seq"], e["name"], e["start"], e["end"], e["source"])
                         for e in store.events()]
    return out


def examples(full: int) -> int:
    """A property's example budget under the loaded hypothesis profile:
    ``full`` under ``ci``, its share under ``dev`` (see ``conftest.py``)."""
    from hypothesis import settings
    return max(1, full * settings.default.max_examples // 100)


def count_calls(monkeypatch, owner, name: str) -> list:
    """``owner.name`` replaced (for the test) by a wrapper that notes each
    call; returns the list it appends to (its length: the calls made)."""
    calls: list = []
    real = getattr(owner, name)

    def counted(*args, **kwargs):
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls


def benchmark_script(name: str):
    """The module of ``benchmarks/<name>.py``, loaded from its file (the
    benchmarks are scripts, not a package)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(name, ROOT / "benchmarks" / f"{name}.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod

