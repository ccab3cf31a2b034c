"""The checked reader's scans of the raw text agree with plain definitions:
control characters and lone surrogates (one pass over an ASCII text's bytes,
a regular expression otherwise), JSON nesting (the brackets left when the
strings are removed), and the event reader's trust in strings the checked
reader has already seen."""

from __future__ import annotations

import json
import random

import pytest

from uschess.cli import main
from uschess.errors import InputError
from uschess.io.eventfile import event_from_dict, load_event
from uschess.io.store import Store
from uschess.io.textdata import MAX_DEPTH, _json_too_deep, check_text, parse_data

#: What a text may not hold (the module's rule, written out plainly).
REFUSED = {c for c in range(0x20) if c not in (9, 10, 13)} | set(range(0x7F, 0xA0)) \
    | set(range(0xD800, 0xE000))


def plain_refusal(text: str):
    """The first refused character by the plain rule: a control character
    before any surrogate (the message names a control character first)."""
    controls = [i for i, ch in enumerate(text) if ord(ch) in REFUSED and not 0xD800 <= ord(ch) < 0xE000]
    if controls:
        return "control", text[controls[0]]
    surrogates = [i for i, ch in enumerate(text) if 0xD800 <= ord(ch) < 0xE000]
    if surrogates:
        return "surrogate", text[surrogates[0]]
    return None


ALPHABET = ["a", "Z", " ", "\t", "\n", "\r", "{", "\"", "~", "\x07", "\x00", "\x1f", "\x7f",
            "\x85", "\x9f", "\xa0", "é", "ß", "€", "\ud83d", "\U0001F600"]


@pytest.mark.parametrize("seed", range(6))
def test_check_text_refuses_exactly_the_refused_characters(seed):
    rng = random.Random(seed)
    for _ in range(400):
        # mostly plain ASCII, sometimes one odd character
        text = "".join(rng.choice(ALPHABET[:9] if rng.random() < 0.9 else ALPHABET)
                       for _ in range(rng.randint(0, 40)))
        expected = plain_refusal(text)
        if expected is None:
            check_text(text)
            continue
        with pytest.raises(InputError) as err:
            check_text(text)
        kind, ch = expected
        word = "control character" if kind == "control" else "lone surrogate"
        assert f"{word} U+{ord(ch):04X} at line" in str(err.value)


def plain_depth(value) -> int:
    if isinstance(value, dict):
        return 1 + max(map(plain_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(plain_depth, value), default=0)
    return 0


@pytest.mark.parametrize("depth", [MAX_DEPTH - 1, MAX_DEPTH, MAX_DEPTH + 1, MAX_DEPTH + 5])
def test_json_nesting_is_counted_without_the_strings(depth):
    rng = random.Random(depth)
    for _ in range(50):
        value = "x"
        for _ in range(depth):
            noise = rng.choice(["[", "]]", "{", "}", "", "é[", "€}{"])
            value = [value, noise] if rng.random() < 0.5 else {"k" + noise: value}
        # wide siblings with brackets in their strings do not add depth
        text = json.dumps({"a": value, "b": ["[[[[", "{{{", "]]"] * 20}, ensure_ascii=False)
        assert "\\" not in text
        assert _json_too_deep(text) == (plain_depth(json.loads(text)) > MAX_DEPTH)


@pytest.mark.parametrize("depth", [1, MAX_DEPTH, MAX_DEPTH + 1])
def test_the_shortest_texts_of_a_depth(depth):
    """The shortest text of each depth (no room to spare for the length
    check that skips short texts): brackets alone, and braces and brackets."""
    outer = ['{"":' if i % 2 else "[" for i in range(depth - 1)]
    mixed = "".join(outer) + "{}" + "".join("}" if o.startswith("{") else "]"
                                            for o in reversed(outer))
    for text in ("[" * depth + "]" * depth, mixed):
        assert plain_depth(json.loads(text)) == depth
        assert _json_too_deep(text) == (depth > MAX_DEPTH)


def test_a_deep_file_is_refused_with_its_path(tmp_path):
    text = '{"event": ' + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + ', "name": "é"}'
    with pytest.raises(InputError, match=r"nested over 32 deep at event\[0\]"):
        parse_data(text, json_format=True, source="deep.json")


def event_data(name: str) -> dict:
    return {"event": {"name": "Checks", "start": "2025-03-01"},
            "sections": [{"name": "Open", "time_control": "G/90;d30", "players": [
                {"pair": 1, "id": "10000001", "name": name, "rounds": ["W2"]},
                {"pair": 2, "id": "10000002", "name": "Other, Player", "rounds": ["L1"]}]}]}


@pytest.mark.parametrize("name,message", [
    ("Mü\x07ller", "control character U+0007 at line"),          # raw, in a non-ASCII text
    ("Mu\x85ller", "control character U+0085 at line"),          # a C1 control, raw
])
def test_raw_control_characters_in_an_event_file(tmp_path, capsys, name, message):
    path = tmp_path / "e.json"
    text = json.dumps(event_data("NAME"), ensure_ascii=False).replace("NAME", name)
    path.write_text(text, encoding="utf-8")
    assert main(["rate", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and str(path) in err and message in err


@pytest.mark.parametrize("escaped,message", [
    ("Mu\\u0007ller", "control character U+0007 at sections[0].players[0].name"),
    ("Mu\\ud83dller", "lone surrogate U+D83D at sections[0].players[0].name"),
])
def test_escaped_refused_characters_are_found_by_the_checked_reader(tmp_path, capsys,
                                                                    escaped, message):
    text = json.dumps(event_data("NAME")).replace("NAME", escaped)
    path = tmp_path / "e.json"
    path.write_text(text, encoding="utf-8")
    for argv in (["rate", str(path)], ["replay", str(path), "--db", str(tmp_path / "s.db")]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(path) in err and message in err
    if (tmp_path / "s.db").exists():
        with Store.open(tmp_path / "s.db", create=False) as store:
            assert store.counts()["events"] == 0


def test_data_not_from_the_checked_reader_is_still_checked():
    with pytest.raises(InputError, match=r"control character U\+0007 in 'name' at column 3"):
        event_from_dict(event_data("Mu\x07ller"), source="made.json")
    # the same data through the checked reader of a file is trusted, and reads alike
    event = event_from_dict(event_data("Muller"), source="made.json")
    assert [p.name for p in event.sections[0].players] == ["Muller", "Other, Player"]


def test_a_checked_file_reads_the_same_as_its_data(tmp_path):
    path = tmp_path / "e.json"
    path.write_text(json.dumps(event_data("Müller, Jörg")), encoding="utf-8")
    assert load_event(path) == event_from_dict(event_data("Müller, Jörg"), source=str(path))


@pytest.mark.parametrize("seed", range(4))
def test_the_json_glance_reads_what_the_whole_text_says(seed):
    """peek_top_level reads an escape-free JSON object only up to the keys
    asked for; whatever the keys' order, spacing and what the other values
    hold (the keys' names among them), it gives what the whole text gives."""
    from uschess.io.textdata import peek_top_level
    rng = random.Random(seed)
    keys = ("event", "kind")
    for _ in range(200):
        names = rng.sample(["event", "kind", "sections", "published", "x"], rng.randint(0, 5))
        obj = {}
        for name in names:
            obj[name] = rng.choice([{"id": "kind", "start": "2025-01-01"}, ["event", {"kind": 1}],
                                    "fide-update", 3, None, {"event": {"kind": []}}])
        text = json.dumps(obj, indent=rng.choice([None, 1, 4]), ensure_ascii=rng.random() < 0.5)
        if rng.random() < 0.3:
            text = " \n" + text.replace(": ", " :  ") + "\n"
        data = text.encode()
        whole = json.loads(data)
        expected = {k: whole[k] for k in keys if k in whole}
        assert peek_top_level(data, keys, json_format=True) == expected, text
    assert peek_top_level(b'{"sections": [{"name": "kind"}], "event": {"id": 3}}', keys,
                          json_format=True) == {"event": {"id": 3}}
    assert peek_top_level(b'{"x": 1, "event": [1, ', keys, json_format=True) is None
    # a file cut short is read whole (and does not read): None, as before
    assert peek_top_level(b'{"event": {"id": 3}, "sections": [{"na', keys,
                          json_format=True) is None
    assert peek_top_level(b'{"a": "\\u0041", "event": 2}', keys, json_format=True) == {"event": 2}


def test_a_file_read_whole_even_when_it_grew_after_its_size_was_taken(tmp_path, monkeypatch):
    """read_limited reads as many bytes as the file's size said, and on
    when there are more: the whole file under the limit, refused over it."""
    import os
    from pathlib import Path

    import uschess.io.textdata as T
    from uschess.io.textdata import read_limited
    path = tmp_path / "f.json"
    path.write_bytes(b"x" * 5000)
    real_fstat = os.fstat

    def stale(fd):  # the size before the file grew
        st = real_fstat(fd)
        return os.stat_result((*st[:6], 10, *st[7:]))
    monkeypatch.setattr(T.os, "fstat", stale)
    assert read_limited(path, 6000, "file") == b"x" * 5000
    assert read_limited(path, 5000, "file") == b"x" * 5000
    with pytest.raises(InputError, match="over 4,999 bytes"):
        read_limited(path, 4999, "file")
    monkeypatch.undo()
    # reads that return less than asked (as one a signal interrupts): read on
    real_read = os.read
    monkeypatch.setattr(T.os, "read", lambda fd, n: real_read(fd, min(n, 7)))
    assert read_limited(path, 6000, "file") == b"x" * 5000
    with pytest.raises(InputError, match="over 4,999 bytes"):
        read_limited(path, 4999, "file")
    assert Path(path).read_bytes() == b"x" * 5000
