"""Replay of a history larger than what it keeps in memory: events beyond
``KEEP_PLAYERS`` player entries are ordered by a glance at their headers and
read, in full and checked, one at a time when their turn comes.  The store
must be the one an all-in-memory replay writes; a bad file among them stops
the run at that event with the events before it applied, in one located line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from helpers import store_snapshot as snapshot

import uschess.apps.replay_order as replay_module
from uschess.apps.generate import write_history
from uschess.apps.replay import load_item, replay
from uschess.apps.replay_order import _ordered, _size
from uschess.cli import main
from uschess.io.store import Store
from uschess.rating.options import RatingOptions


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    """A generated history (JSON files) and the store of a replay that kept
    every event in memory."""
    return _history(tmp_path_factory, "json")


def _history(tmp_path_factory, fmt):
    base = tmp_path_factory.mktemp("streamed")
    files = write_history(base / "events", seed=11, players=120, events=60, fmt=fmt)
    db = base / "kept.db"
    assert main(["replay", str(base / "events"), "--db", str(db)]) == 0
    return base, files, db


def test_a_streamed_replay_writes_the_store_of_a_kept_one(history, tmp_path, monkeypatch, capsys):
    base, files, kept = history
    monkeypatch.setattr(replay_module, "KEEP_PLAYERS", 40)  # two or three events
    db = tmp_path / "streamed.db"
    assert main(["replay", str(base / "events"), "--db", str(db)]) == 0
    assert f"{len(files)} event(s) applied" in capsys.readouterr().out
    assert snapshot(db) == snapshot(kept)


def test_a_streamed_yaml_history_too(tmp_path_factory, tmp_path, monkeypatch):
    base, files, kept = _history(tmp_path_factory, "yaml")
    monkeypatch.setattr(replay_module, "KEEP_PLAYERS", 40)
    items = list(_ordered([str(f) for f in files], None).entries())
    assert sum(1 for x in items if x.item is None) > len(files) // 2  # glanced at, not held
    db = tmp_path / "streamed.db"
    assert main(["replay", str(base / "events"), "--db", str(db)]) == 0
    assert snapshot(db) == snapshot(kept)


def test_the_ordering_pass_keeps_no_more_than_its_budget(history, monkeypatch):
    base, files, _ = history
    monkeypatch.setattr(replay_module, "KEEP_PLAYERS", 100)
    shuffled = sorted(files, key=lambda p: p.name[::-1])  # not in replay order
    items = list(_ordered([str(f) for f in shuffled], None).entries())
    held = [x for x in items if x.item is not None]
    assert 0 < sum(_size(x.item) for x in held) <= 100
    assert len(held) < len(files)
    # the glance orders as the full read does
    assert [x.key for x in items] == sorted(replay_module.event_key(load_item(f)) for f in files)
    assert all(x.event_file for x in items if x.item is None)


def _copy(files, events: Path) -> Path:
    """The history's event files copied into ``events`` (to break one)."""
    events.mkdir()
    for f in files:
        (events / f.name).write_bytes(f.read_bytes())
    return events


def _bad_round(path: Path) -> tuple[str, str, int]:
    """Break a round cell of the file's first player (the header is left
    alone); return (section, player label, round)."""
    data = json.loads(path.read_text())
    section = data["sections"][0]
    player = section["players"][0]
    player["rounds"][1] = "W-3"
    path.write_text(json.dumps(data, indent=2))
    return section["name"], f"{player['pair']} ({player['name']})", 2


def test_a_bad_file_read_at_its_turn_stops_the_run_after_whole_events(history, tmp_path,
                                                                       monkeypatch, capsys):
    base, files, _ = history
    events = _copy(files, tmp_path / "events")
    ordered = sorted(events.glob("*.json"))
    bad = ordered[40]
    section, player, round_ = _bad_round(bad)
    monkeypatch.setattr(replay_module, "KEEP_PLAYERS", 40)
    db = tmp_path / "r.db"
    assert main(["replay", str(events), "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    line = err[0]
    for part in (str(bad), f"section {section!r}" if "'" not in section else section, player,
                 f"round {round_}", "stopped at event", "40 event(s) before it are applied",
                 "--skip-applied"):
        assert part in line, (part, line)
    with Store.open(db, create=False) as store:
        assert [e["source"] for e in store.events()] == [str(f) for f in ordered[:40]]
    # fixed, the run resumes to the store of an uninterrupted replay
    bad.write_bytes((base / "events" / bad.name).read_bytes())
    assert main(["replay", str(events), "--db", str(db), "--skip-applied"]) == 0
    whole = tmp_path / "whole.db"
    assert main(["replay", str(events), "--db", str(whole)]) == 0
    assert snapshot(db) == snapshot(whole)


def test_a_file_whose_header_does_not_read_stops_the_run_before_any_write(history, tmp_path,
                                                                         monkeypatch, capsys):
    base, files, _ = history
    events = _copy(files, tmp_path / "events")
    bad = sorted(events.glob("*.json"))[50]
    data = json.loads(bad.read_text())
    data["event"]["end"] = "2024-02-30"
    bad.write_text(json.dumps(data))
    monkeypatch.setattr(replay_module, "KEEP_PLAYERS", 40)
    db = tmp_path / "r.db"
    assert main(["replay", str(events), "--db", str(db)]) == 2
    line = capsys.readouterr().err.strip()
    assert str(bad) in line and "2024-02-30" in line and "\n" not in line
    with Store.open(db) as store:
        assert store.events() == []


def test_a_file_changed_during_the_run_is_refused(history, tmp_path, monkeypatch):
    base, files, _ = history
    events = _copy(files, tmp_path / "events")
    paths = sorted(str(p) for p in events.glob("*.json"))
    victim = Path(paths[-1])
    monkeypatch.setattr(replay_module, "KEEP_PLAYERS", 40)

    def paths_then_change():
        yield from paths
        data = json.loads(victim.read_text())
        data["event"]["start"] = data["event"]["end"] = "2020-01-01"
        victim.write_text(json.dumps(data))

    with Store.open(tmp_path / "r.db") as store:
        with pytest.raises(replay_module.InputError, match="changed while the replay was running"):
            replay(paths_then_change(), store, RatingOptions(trace=False))


def test_a_glance_reads_only_the_keys_asked_for():
    import datetime as dt

    from uschess.io.textdata import peek_top_level
    yaml_text = b"event: {start: 2025-01-02, id: E1}\nsections: [{players: *nowhere}]\n"
    assert peek_top_level(yaml_text, ("event", "kind"), json_format=False) is None  # no such anchor
    yaml_text = b"event: {start: 2025-01-02, id: E1}\nsections: [1, 2]\n"
    assert peek_top_level(yaml_text, ("event", "kind"), json_format=False) == {
        "event": {"start": dt.date(2025, 1, 2), "id": "E1"}}
    assert peek_top_level(b"[1, 2]", ("event",), json_format=False) is None
    assert peek_top_level(b"{bad", ("event",), json_format=True) is None
    assert peek_top_level(b'{"kind": "fide-update", "x": 1}', ("event", "kind"),
                          json_format=True) == {"kind": "fide-update"}


def test_a_glance_reads_past_a_byte_order_mark():
    from uschess.io.textdata import peek_top_level
    for json_format, text in ((True, b'{"event": {"id": "E"}}'), (False, b"event: {id: E}\n")):
        assert peek_top_level(b"\xef\xbb\xbf" + text, ("event",), json_format=json_format) == {
            "event": {"id": "E"}}
