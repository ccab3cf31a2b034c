"""One chain for every command: ``compare`` of two identical rule versions
and ``replay`` into a store give the same ratings, to the bit, on every
fixture history (events, matches with their caps and floor requests, FIDE
updates), and ``rate`` of one event gives what both give for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from uschess.apps.compare import compare, parse_rules_spec
from uschess.apps.replay import load_item, replay
from uschess.cli import main
from uschess.io.store import Store
from uschess.rating.pipeline import RatingOptions, rate_event

ROOT = Path(__file__).resolve().parents[1]
MIXED = ROOT / "fixtures" / "replay-mixed"


def _histories(tmp_path_factory):
    out = {"replay-mixed": sorted(MIXED.glob("*.yaml")),
           "examples": sorted((ROOT / "fixtures" / "events").glob("[!.]*[!s].yaml"))}
    gen = tmp_path_factory.mktemp("generated") / "hist"
    assert main(["generate", "--players", "60", "--events", "12", "--seed", "5", "-o", str(gen)]) == 0
    out["generated"] = sorted(p for p in gen.iterdir() if p.suffix in (".json", ".yaml"))
    return out


@pytest.fixture(scope="module")
def histories(tmp_path_factory):
    return _histories(tmp_path_factory)


@pytest.mark.parametrize("name", ["replay-mixed", "examples", "generated"])
@pytest.mark.parametrize("grant", [False, True])
def test_compare_of_identical_rules_is_the_replay(histories, name, grant, tmp_path):
    files = histories[name]
    assert files
    options = RatingOptions(trace=False, grant_floor_requests=grant)
    with Store.open(tmp_path / "r.db") as store:
        replay([str(f) for f in files], store, options)
        stored = {(c["event_id"], c["section"], c["system"], c["player_id"]): (c["pre"], c["post"])
                  for c in _changes(store)}
    side = parse_rules_spec("baseline")
    side.options.grant_floor_requests = grant
    side.options.trace = False
    cmp = compare([load_item(str(f)) for f in files], side, side)
    compared = {(r.event, r.section, r.system, r.id): (r.a.pre, r.a.post)
                for r in cmp.rows if r.a is not None and r.a.m}
    assert compared == stored                      # every change, bit for bit
    assert all(r.diff == 0.0 for r in cmp.rows)


def _changes(store):
    cols = ("event_id", "pos", "section", "system", "player_id", "pre", "post")
    return [dict(zip(cols, row)) for row in
            store.conn.fetchall(f"SELECT {', '.join(cols)} FROM changes")]


def test_the_180_day_cap_holds_in_compare_as_in_replay():
    """Player A after e1 and the matches m1..m3: the third match is held by
    the net cap of 100 in 180 days in both."""
    files = [str(MIXED / n) for n in ("e1-winter-swiss.yaml", "m1-match.yaml", "m2-match.yaml",
                                      "m3-match.yaml")]
    side = parse_rules_spec("baseline")
    cmp = compare([load_item(f) for f in files], side, side)
    a = {r.event: r.a for r in cmp.rows if r.id == "A"}
    assert a["M3"].post == a["M2"].post == pytest.approx(1937.27, abs=0.005)
    assert a["M3"].post - a["M1"].pre == pytest.approx(100.0)
    assert a["M3"].history_source == "chain" and len(a["M3"].history) == 2


def test_rate_of_one_event_is_what_the_chains_give(histories):
    for path in histories["examples"]:
        event = load_item(str(path))
        side = parse_rules_spec("baseline")
        cmp = compare([event], side, side)
        rated = rate_event(event)
        assert {(s.section.name, s.system, p.id): p.post for s in rated.sections for p in s.players
                if p.m} == {(r.section, r.system, r.id): r.a.post for r in cmp.rows}
