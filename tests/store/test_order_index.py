"""The order of a replay and a comparison kept out of Python's memory
(:class:`uschess.apps.replay.OrderIndex`): the same order as a stable sort
of the keys, the same occurrences and the same first duplicate, and Python
objects that do not grow with the number of items."""

from __future__ import annotations

import datetime as dt
import tracemalloc

import pytest
from hypothesis import given, settings, strategies as st

from uschess.apps.replay_order import OrderIndex

DAY0 = dt.date(2025, 1, 1)
# ids over letters whose UTF-8 bytes and code points order alike only if the
# index compares text as Python does (ASCII, Latin-1, Greek, CJK, beyond BMP)
IDS = st.text(alphabet="aAz0é\u00ffΩ中\U0001F600", min_size=1, max_size=4)
KEYS = st.lists(st.tuples(st.integers(0, 4), st.integers(0, 3), IDS), max_size=40)


def _index(keys):
    out = OrderIndex()
    for i, (end, back, eid) in enumerate(keys):
        out.add((DAY0 + dt.timedelta(end), DAY0 + dt.timedelta(end - back), eid),
                None, f"/h/{i}.json", event_file=bool(i % 2))
    return out


def _reference(keys):
    """What a list sorted in Python gives: (key, path) in order, occurrences,
    and the first id met twice with the paths of its first two items."""
    items = [((DAY0 + dt.timedelta(end), DAY0 + dt.timedelta(end - back), eid), f"/h/{i}.json")
             for i, (end, back, eid) in enumerate(keys)]
    items.sort(key=lambda x: x[0])  # stable: as given among equal keys
    seen: dict[str, list] = {}
    occurrences, twice = [], None
    for key, path in items:
        seen.setdefault(key[2], []).append(path)
        occurrences.append(len(seen[key[2]]))
        if twice is None and len(seen[key[2]]) == 2:
            twice = (key[2], *seen[key[2]])
    return items, occurrences, twice


@settings(max_examples=150, deadline=None)
@given(KEYS)
def test_the_index_orders_as_a_stable_sort_of_the_keys(keys):
    index = _index(keys)
    try:
        items, occurrences, twice = _reference(keys)
        got = list(index.entries())
        assert [(e.key, e.path) for e in got] == items
        assert [e.occurrence for e in got] == occurrences
        assert [e.event_file for e in got] == [int(p[3:-5]) % 2 == 1 for _, p in items]
        assert [i for chunk in index.id_chunks(7) for i in chunk] == [k[2] for k in keys]
        assert index.first_duplicate() == twice
        assert len(index) == len(keys)
    finally:
        index.close()


def test_applied_ids_are_marked_and_the_first_in_replay_order_named():
    index = _index([(3, 0, "c"), (1, 0, "b"), (2, 0, "a"), (1, 1, "d")])
    try:
        assert index.first_applied() is None
        index.mark_applied({"a": "2025-02-01T00:00:00", "c": "2025-02-02T00:00:00"})
        assert index.first_applied() == ("a", "2025-02-01T00:00:00", "/h/2.json", 2)
        assert [(e.key[2], e.applied) for e in index.entries()] == [
            ("d", None), ("b", None), ("a", "2025-02-01T00:00:00"), ("c", "2025-02-02T00:00:00")]
    finally:
        index.close()


def test_items_held_are_handed_out_once_and_let_go():
    index = OrderIndex()
    kept = object()
    index.add((DAY0, DAY0, "b"), kept, None)
    index.add((DAY0, DAY0, "a"), None, "/h/a.json", event_file=True)
    assert index.held() == [kept]
    got = list(index.entries())
    assert [(e.key[2], e.item) for e in got] == [("a", None), ("b", kept)]
    assert index.held() == []  # handed out: the index no longer holds it
    index.close()


def _python_bytes(n: int) -> int:
    """Python memory still allocated after indexing ``n`` header-only items."""
    tracemalloc.start()
    try:
        index = OrderIndex()
        for i in range(n):
            day = DAY0 + dt.timedelta(i % 365)
            index.add((day, day, f"event-{i:07d}"), None,
                      f"/history/of/a/club/2025/event-{i:07d}.json", event_file=True)
        size = tracemalloc.get_traced_memory()[0]
        index.close()
        return size
    finally:
        tracemalloc.stop()


@pytest.mark.slow
def test_the_index_holds_no_python_object_per_item():
    # A list of the items took about 400 bytes an item in Python objects (a
    # key, a path, a record), 12 MB at 30,000; the index's Python memory
    # must not grow with the items (SQLite's own is its bounded page cache).
    small, large = _python_bytes(2_000), _python_bytes(30_000)
    assert large - small < 200_000, (small, large)


def test_a_temporary_file_that_fails_is_one_located_line(tmp_path, monkeypatch, capsys):
    """The order's temporary file out of room (SQLite's own error) stops a
    replay before anything is written, with one line and status 2."""
    import sqlite3

    from uschess.apps import replay_order as replay_module
    from uschess.apps.generate import write_history
    from uschess.cli import main

    write_history(tmp_path / "events", seed=5, players=30, events=4)

    def full(self, *args, **kw):
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(replay_module.OrderIndex, "add", full)
    db = tmp_path / "r.db"
    assert main(["replay", str(tmp_path / "events"), "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "temporary file" in err[0] and "disk is full" in err[0], err
    assert not db.exists()  # a new store the run wrote nothing into is not left
