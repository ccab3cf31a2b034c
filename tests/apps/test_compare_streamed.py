"""``uschess compare`` rates a history event by event on both sides and
keeps counts instead of every result (memory bounded whatever the history's
size): its table, CSV and exit status must be those of the comparison held
in memory (:func:`uschess.apps.compare.compare`), also when the files are
ordered by a glance at their headers and read at their turn."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

import uschess.apps.replay_order as replay_module
from uschess.apps.compare import (Tally, _stats, compare, compare_streamed, format_text,
                                  iter_text, parse_rules_spec, to_csv, PostsRow)
from uschess.apps.generate import write_history
from uschess.apps.replay import load_item
from uschess.cli import main

ROOT = Path(__file__).resolve().parents[2]
B_SIDE = f"reform:{ROOT / 'fixtures' / 'reforms' / 'b-16.yaml'}"


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    base = tmp_path_factory.mktemp("cmp-streamed")
    files = write_history(base / "events", seed=5, players=90, events=45)
    # listed out of order, as a shell glob of differently named files may be
    files = sorted(files, key=lambda p: p.name[::-1])
    a, b = parse_rules_spec("baseline"), parse_rules_spec(B_SIDE)
    for side in (a, b):
        side.options.trace = False
    held = compare([load_item(str(f)) for f in files], a, b)
    return files, held


@pytest.mark.parametrize("keep", [None, 40])
@pytest.mark.parametrize("changed_only", [False, True])
def test_the_table_is_the_one_of_the_comparison_in_memory(history, capsys, monkeypatch, keep,
                                                          changed_only):
    files, held = history
    if keep is not None:
        monkeypatch.setattr(replay_module, "KEEP_PLAYERS", keep)
    argv = ["compare", *map(str, files), "--a", "baseline", "--b", B_SIDE]
    assert main(argv + (["--changed-only"] if changed_only else [])) == 0
    out = capsys.readouterr().out
    assert out == format_text(held, changed_only=changed_only)
    assert sum(1 for r in held.rows if r.changed) > 0  # the reform changes something


@pytest.mark.parametrize("keep", [None, 40])
def test_the_json_is_the_one_of_the_comparison_in_memory(history, capsys, monkeypatch, keep):
    files, held = history
    if keep is not None:
        monkeypatch.setattr(replay_module, "KEEP_PLAYERS", keep)
    assert main(["compare", *map(str, files), "--a", "baseline", "--b", B_SIDE, "--json"]) == 0
    out = capsys.readouterr().out
    assert out == json.dumps(held.as_dict(), indent=2, allow_nan=False, default=str) + "\n"
    assert json.loads(out)["summary"]["overall"]["changed"] > 0


def test_json_in_pieces_is_json_dumps():
    from uschess.apps.compare import _Lazy, _json_pieces
    doc = {"a": _Lazy(lambda: iter([{"x": [1, {"y": None}], "z": "\u00e9"}, [], {}])),
           "b": {"c": _Lazy(lambda: iter(())), "d": {}, "e": {"f": [1.5, "2"]}}, "g": []}
    plain = {"a": [{"x": [1, {"y": None}], "z": "\u00e9"}, [], {}],
             "b": {"c": [], "d": {}, "e": {"f": [1.5, "2"]}}, "g": []}
    assert "".join(_json_pieces(doc, 0)) == json.dumps(plain, indent=2)


def test_the_csv_and_the_strict_status_are_the_ones_in_memory(history, tmp_path, monkeypatch):
    files, held = history
    monkeypatch.setattr(replay_module, "KEEP_PLAYERS", 40)
    out = tmp_path / "cmp.csv"
    argv = ["compare", *map(str, files), "--a", "baseline", "--b", B_SIDE,
            "--csv", str(out), "--strict"]
    assert main(argv) == 1  # B changes posts
    assert out.read_text() == to_csv(held)
    same = ["compare", *map(str, files), "--a", "baseline", "--b", "baseline", "--strict"]
    assert main(same) == 0


def test_streamed_statistics_and_rows_in_process(history):
    files, held = history
    a, b = held.a, held.b
    with compare_streamed([str(f) for f in files], a, b) as cmp:
        assert cmp.overall_stats() == held.summary()["overall"]
        assert cmp.system_stats() == held.summary()["systems"]
        assert [r.astuple() for r in cmp.rows()] == [PostsRow.of(r).astuple() for r in held.rows]
        assert [blk.stats for blk in cmp.blocks()] == [
            {k: v for k, v in e.items() if k not in ("event", "name", "start", "end")}
            for e in held.summary()["events"]]
        assert "".join(iter_text(cmp)) == format_text(held)
        assert cmp.diffs() == [r.diff for r in held.rows if r.diff is not None]


def test_a_tally_counts_as_the_statistics_of_all_rows_do():
    """Ties for the largest change and among the winners keep the first
    come; posts on one side only are counted apart."""
    rng = random.Random(3)
    rows = []
    for i in range(400):
        a = rng.choice([None, 1500.0, 1500.25, 1612.5])
        b = rng.choice([None, a, 1500.0, 1499.75, 1612.5 + rng.choice([0.0, 3.0, -3.0])])
        rows.append(PostsRow("E", "Event", None, "Open", i, f"{rng.randrange(30):08d}",
                             f"P{i}", rng.choice(["OTBR", "OTBQ"]), a, b))
    tally = Tally()
    for r in rows:
        tally.add(r)
    stats = tally.stats()
    winners = sorted((r for r in rows if r.changed and r.diff > 0), key=lambda r: (-r.diff, r.id))
    assert [w["name"] for w in stats["top_winners"]] == [r.name for r in winners[:5]]
    assert stats == _stats(rows)


def test_rating_paths_are_the_ones_in_memory(history, capsys, monkeypatch):
    files, held = history
    monkeypatch.setattr(replay_module, "KEEP_PLAYERS", 40)
    ids = [r.id for r in held.rows if r.changed][:1] + [held.rows[0].id]
    argv = ["compare", *map(str, files), "--a", "baseline", "--b", B_SIDE, "--json"]
    assert main(argv + [arg for pid in ids for arg in ("--player", pid)]) == 0
    out = capsys.readouterr().out
    assert out == json.dumps(held.as_dict(ids), indent=2, allow_nan=False, default=str) + "\n"
    assert all(json.loads(out)["paths"][pid] for pid in ids)


def test_a_player_in_none_of_the_events_is_refused(history, capsys):
    files, _ = history
    argv = ["compare", *map(str, files), "--a", "baseline", "--b", B_SIDE, "--json",
            "--player", "99999999"]
    assert main(argv) == 2
    captured = capsys.readouterr()
    assert "--player 99999999: in none of the events" in captured.err and captured.out == ""
