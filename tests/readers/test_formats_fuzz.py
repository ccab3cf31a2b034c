"""Fuzzing the format readers: any input ends in an Event or an InputError.

Each parser gets mutated copies of the fixture files: overwritten, inserted
and deleted bytes, truncations and, for dBase headers, absurd values written
over the record count, header and record lengths and field descriptors (a
4 GB record count, a 2 GB field address, 255-byte widths).  Any other
exception (or a hang) is a bug.  Inputs that once crashed a reader are kept
under ``fixtures/fuzz/`` and replayed by :func:`test_fuzz_regressions`.

``FUZZ_EXAMPLES`` (environment) overrides the number of examples per parser
(default: 2000 under the ``ci`` hypothesis profile, see ``conftest.py``).
"""

from __future__ import annotations

import json
import os
import struct
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uschess.errors import InputError
from uschess.io.formats.dbase import parse_dbf
from uschess.io.formats.players import parse_players_text
from uschess.io.formats.trf import parse_trf
from uschess.io.formats.uscf_dbf import FILE_NAMES, parse_uscf_dbf
from uschess.model import Event

from helpers import examples

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "fixtures"
EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES") or examples(2000))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])


def report_dirs():
    return sorted(p for p in (FIXTURES / "dbf").iterdir() if p.is_dir())


def report_blobs(folder: Path) -> dict[str, bytes]:
    out = {}
    for path in folder.iterdir():
        for role, name in FILE_NAMES.items():
            if path.name.upper() == name:
                out[role] = path.read_bytes()
    return out


DBF_SEEDS = [path.read_bytes() for folder in report_dirs() for path in sorted(folder.iterdir())]
REPORT_SEEDS = [report_blobs(folder) for folder in report_dirs()]
TRF_SEEDS = [p.read_bytes() for p in sorted((FIXTURES / "trf").glob("*.trf"))]
_PLAYERS_YAML = (FIXTURES / "events" / "club-championship.players.yaml").read_text()
PLAYER_SEEDS = [(_PLAYERS_YAML.encode(), False),
                (json.dumps(yaml.safe_load(_PLAYERS_YAML), default=str).encode(), True)]

#: Values that break naive readers when written over header integers.
ABSURD = [0, 1, 2, 31, 32, 33, 255, 256, 0x7FFF, 0xFFFF, 0x10000, 0x7FFFFFFF,
          0x80000000, 0xFFFFFFFF]


@st.composite
def mutated(draw, seed: bytes, *, header_offsets=()):
    """``seed`` with up to six random edits."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 6))):
        op = draw(st.sampled_from(["overwrite", "insert", "delete", "truncate", "integer",
                                   "duplicate"]))
        size = len(data)
        if op == "truncate":
            del data[draw(st.integers(0, size)):]
        elif op == "overwrite" and size:
            at = draw(st.integers(0, size - 1))
            data[at:at + 1] = draw(st.binary(min_size=1, max_size=4))
        elif op == "insert":
            at = draw(st.integers(0, size))
            data[at:at] = draw(st.binary(min_size=1, max_size=40))
        elif op == "delete" and size:
            at = draw(st.integers(0, size - 1))
            del data[at:at + draw(st.integers(1, 40))]
        elif op == "duplicate" and size:
            at = draw(st.integers(0, size - 1))
            data[at:at] = data[at:at + draw(st.integers(1, 200))]
        elif op == "integer" and size >= 4:
            choices = [o for o in header_offsets if o + 4 <= size] or [0]
            at = draw(st.one_of(st.sampled_from(choices), st.integers(0, size - 4)))
            width = draw(st.sampled_from([1, 2, 4]))
            value = draw(st.sampled_from(ABSURD)) & ((1 << (8 * width)) - 1)
            struct.pack_into({1: "<B", 2: "<H", 4: "<I"}[width], data, at, value)
    return bytes(data)


# Record count, header length, record length, then per descriptor: type,
# data address (4 bytes), width, decimals.
DBF_OFFSETS = [4, 8, 10] + [32 * k + d for k in range(1, 12) for d in (11, 12, 16, 17)]


def accept(parse, *args, **kw):
    """Run a parser: an InputError is a refusal, any other exception fails."""
    try:
        result = parse(*args, **kw)
    except InputError as err:
        assert str(err)  # a message a user can read
        return None
    return result


@FUZZ
@given(data=st.data())
def test_fuzz_dbase(data):
    seed = data.draw(st.sampled_from(DBF_SEEDS))
    blob = data.draw(mutated(seed, header_offsets=DBF_OFFSETS))
    accept(parse_dbf, blob, source="fuzz.dbf")
    accept(parse_dbf, blob, source="fuzz.dbf", raw=True, include_deleted=True)


@pytest.mark.slow
@FUZZ
@given(data=st.data())
def test_fuzz_uscf_report(data):
    seed = dict(data.draw(st.sampled_from(REPORT_SEEDS)))
    for role in data.draw(st.sets(st.sampled_from(sorted(FILE_NAMES)), min_size=1)):
        seed[role] = data.draw(mutated(seed[role], header_offsets=DBF_OFFSETS))
    event = accept(parse_uscf_dbf, seed["header"], seed["sections"], seed["details"],
                   source="fuzz")
    assert event is None or isinstance(event, Event)


TRF_ALPHABET = st.sampled_from(list(b"0123456789 +-=WDLHFUZwb/.:\n\r#") + [0xE9, 0x00])


@st.composite
def mutated_trf(draw):
    seed = draw(st.sampled_from(TRF_SEEDS))
    if draw(st.booleans()):
        return draw(mutated(seed))
    lines = seed.split(b"\n")
    for _ in range(draw(st.integers(1, 5))):
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(["char", "drop", "copy", "cut", "swap"]))
        line = lines[i]
        if op == "char" and line:
            at = draw(st.integers(0, len(line)))
            lines[i] = line[:at] + bytes([draw(TRF_ALPHABET)]) + line[at + 1:]
        elif op == "drop":
            del lines[i]
        elif op == "copy":
            lines.insert(draw(st.integers(0, len(lines))), line)
        elif op == "cut":
            lines[i] = line[:draw(st.integers(0, len(line)))]
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        if not lines:
            break
    return b"\n".join(lines)


@FUZZ
@given(blob=mutated_trf())
def test_fuzz_trf(blob):
    event = accept(parse_trf, blob, source="fuzz.trf")
    assert event is None or isinstance(event, Event)


#: Fragments that steer YAML/JSON into its constructors and structure.
YAML_TOKENS = [b"!!float ", b"!!int ", b"!!bool ", b"!!binary ", b"!!timestamp ", b"!!str ",
               b"!!null ", b'""', b"&a ", b"*a",
               b"{", b"}", b"[", b"]", b": ", b"- ", b"'", b'"', b"\n  ", b"? ", b"null",
               b"2024-02-30", b"2024-01-01 25:00:00", b".nan", b".inf", b"-1", b"1e999",
               b"9" * 4400, b"true", b"OTBX", b"games", b"rating", b"<<: *a", b"\t"]


@st.composite
def mutated_text(draw, seed: bytes):
    """Token-level edits: swap digits, insert YAML/JSON fragments."""
    data = bytearray(seed)
    for _ in range(draw(st.integers(1, 4))):
        at = draw(st.integers(0, len(data)))
        if draw(st.booleans()):
            digits = [i for i, c in enumerate(data) if 48 <= c <= 57]
            if digits:
                data[draw(st.sampled_from(digits))] = draw(st.integers(48, 57))
                continue
        data[at:at] = draw(st.sampled_from(YAML_TOKENS))
    return bytes(data)


@FUZZ
@given(data=st.data())
def test_fuzz_players(data):
    seed, is_json = data.draw(st.sampled_from(PLAYER_SEEDS))
    blob = data.draw(st.one_of(mutated(seed), mutated_text(seed)))
    accept(parse_players_text, blob, json_format=is_json, source="fuzz.yaml")


# --------------------------------------------------------------------------
# Inputs that once crashed a reader

def regressions():
    folder = FIXTURES / "fuzz"
    return sorted(folder.iterdir()) if folder.is_dir() else []


def replay(path: Path):
    """Dispatch a regression input by its name: ``dbf-*``, ``report-*``
    (a directory), ``trf-*``, ``players-*``."""
    kind = path.name.split("-", 1)[0]
    if kind == "dbf":
        return accept(parse_dbf, path.read_bytes(), source=str(path))
    if kind == "report":
        blobs = report_blobs(path)
        return accept(parse_uscf_dbf, blobs["header"], blobs["sections"], blobs["details"],
                      source=str(path))
    if kind == "trf":
        return accept(parse_trf, path.read_bytes(), source=str(path))
    if kind == "players":
        return accept(parse_players_text, path.read_bytes(),
                      json_format=path.suffix == ".json", source=str(path))
    raise AssertionError(f"unknown regression kind: {path.name}")


@pytest.mark.parametrize("path", regressions(), ids=lambda p: p.name)
def test_fuzz_regressions(path):
    replay(path)


def test_event_file_with_constructor_errors_is_refused(tmp_path):
    """PyYAML's plain exceptions (an impossible date, '!!timestamp null')
    become an InputError naming the file."""
    from uschess.io.formats.detect import load_event_any
    for n, text in enumerate(["event: {name: X, start: 2024-02-30}\nsections: []\n",
                              "event: {name: X, start: !!timestamp null}\n"]):
        path = tmp_path / f"event{n}.yaml"
        path.write_text(text)
        with pytest.raises(InputError, match="unreadable value") as info:
            load_event_any(path)
        assert info.value.file == str(path)
        # in the file's words, not Python's
        assert "Error" not in str(info.value) and "NoneType" not in str(info.value)
        assert ("(day is out of range for month)" if n == 0 else
                "(not a valid timestamp)") in str(info.value)


@pytest.mark.parametrize("text,words", [
    ("", "the file must be a mapping, not empty (null)"),
    ("- 1\n", "the file must be a mapping, not a list"),
    ("event: {name: X, start: 2024-01-01}\nsections: [~]\n", "section must be a mapping, not empty"),
    ("event: {name: X, start: 2024-01-01}\nsections: [{name: A, time_control: G/60, "
     "players: [7]}]\n", "player must be a mapping, not a number (7)"),
    ("event: {name: X, start: 2024-01-01}\nx: !!set {a, b}\n", "a set at x is not data"),
])
def test_a_wrong_kind_of_value_is_named_as_the_file_would(tmp_path, text, words):
    from uschess.io.formats.detect import load_event_any
    path = tmp_path / "event.yaml"
    path.write_text(text)
    with pytest.raises(InputError) as info:
        load_event_any(path)
    assert words in str(info.value) and "Type" not in str(info.value)


def test_absurd_dbf_headers_are_refused_quickly():
    seed = DBF_SEEDS[0]
    for offset, fmt, value in [(4, "<I", 0xFFFFFFFF), (8, "<H", 0xFFFF), (10, "<H", 0xFFFF),
                               (32 + 12, "<I", 0x80000000), (32 + 16, "<B", 255),
                               (32 + 17, "<B", 255)]:
        blob = bytearray(seed)
        struct.pack_into(fmt, blob, offset, value)
        accept(parse_dbf, bytes(blob))
