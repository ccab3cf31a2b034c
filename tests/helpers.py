"""Small builders for events in tests."""

from __future__ import annotations

import datetime as dt

from engine.eventfile import event_from_dict
from engine.pipeline import RatingOptions, rate_event


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
