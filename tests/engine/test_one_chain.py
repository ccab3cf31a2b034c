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

ROOT = Path(__file__).resolve().parents[2]
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


class _OneAtATime:
    """A chain's base that answers one system at a time (``record`` only)."""

    def __init__(self, records: dict):
        self.held = records  # (player id, system) -> record

    def record(self, player_id, system):
        return self.held.get((player_id, system))

    def match_history(self, player_id, system):
        return None


class _AllAtOnce(_OneAtATime):
    """The same base, also answering every system of a player at once."""

    def records(self, player_id):
        return {s: r for (pid, s), r in self.held.items() if pid == player_id} or None


@pytest.mark.parametrize("base_kind", [_OneAtATime, _AllAtOnce])
def test_a_base_gives_what_the_chain_would_have_kept(histories, base_kind):
    """The second half of a history rated on a base holding the records
    after the first half gives the posts one chain over the whole history
    gives, whether the base answers one system at a time or every system of
    a player at once (the chain then asks only the systems a player has,
    in its own records or the base's)."""
    from uschess.rating.chain import Chain

    events = [load_item(str(f)) for f in histories["generated"]]
    events = [e for e in events if hasattr(e, "sections")]
    half = len(events) // 2
    options = RatingOptions(trace=False)
    whole, first = Chain(), Chain()
    for e in events[:half]:
        whole.rate_event(e, options)
        first.rate_event(e, options)
    on_base = Chain(base_kind(dict(first.records)))
    later = {}
    for e in events[half:]:
        got = whole.rate_event(e, options)
        again = on_base.rate_event(e, options)
        for a, b in zip(got.sections, again.sections):
            for pa, pb in zip(a.players, b.players):
                later[(e.id, a.section.name, a.system, pa.id)] = (pa.pre, pa.post, pb.pre, pb.post)
    assert later and any(pre_a is not None for pre_a, *_ in later.values())
    assert all(pa == pb and qa == qb for pa, qa, pb, qb in later.values())
