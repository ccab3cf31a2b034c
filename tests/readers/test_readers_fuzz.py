"""Fuzzing every reader through the command a user runs.

For each kind of input (event file in YAML and JSON, players file, reform
file, published-results file, FIDE-update file, MSA crosstable, TRF, DBF
rating report) hypothesis mutates a real file: random byte edits (the
``mutated`` strategy of ``test_formats_fuzz``) and hostile tokens a person
or a program might write (aliases, merge keys, tags, 5,000-digit numbers,
``.nan``, control characters, escaped surrogates, duplicated lines, dates
of year 1 or 9999).  Every run must

* exit with status 0, or 2 with exactly one ``uschess: error: FILE: ...``
  line on stderr;
* leave the output file as it was when it exits 2;
* take under 10 seconds, and keep the process under 1 GB more than it
  started with.

The budget is 100 examples per reader under the ``ci`` hypothesis profile
and its share (10) under ``dev`` (see ``conftest.py``);
``READER_FUZZ_EXAMPLES`` in the environment overrides both.
"""

from __future__ import annotations

import contextlib
import io
import os
import resource
import shutil
import time
from pathlib import Path

import pytest
from helpers import TEACHING_MSA, examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_formats_fuzz import DBF_OFFSETS, mutated

from uschess.cli import main

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures"
WFCC = FIX / "events" / "wfcc15.yaml"
CLUB = FIX / "events" / "club-championship.yaml"
EXAMPLES = int(os.environ.get("READER_FUZZ_EXAMPLES") or examples(100))
FUZZ = settings(max_examples=EXAMPLES, deadline=None, database=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.function_scoped_fixture])
SENTINEL = b"an earlier output, to be left alone\n"
LIMIT_SECONDS = 10
LIMIT_BYTES = 1024 ** 3

#: Tokens inserted at random places (YAML and JSON alike).
HOSTILE = [b"&a ", b"*a", b"<<: *a\n", b"!!python/object:os.system ", b"!!set ", b"!!binary ",
           b"9" * 5000, b"9" * 400, b"-1e308", b".nan", b".inf", b"NaN", b"Infinity",
           b"\x07", b"\x00", b"\x1b[2J", b"\\ud83d", b'"\\ud83d\\ude42"', b"\xed\xa0\xbd",
           b"0001-01-01", b"9999-12-31", b"2025-W12-5", b"2025", b"yes", b"no", b'"false"',
           b"~", b"[]", b"{}", b"- ", b": ", b"\n  ", b'"', b"'", b",", b"{", b"}", b"[", b"]",
           b"rating: 2900, rating: 1500", b"\xef\xbb\xbf", b"\r", b"\t"]


@st.composite
def hostile(draw, seed: bytes, *, header_offsets=()):
    """``seed`` with byte edits, hostile tokens, or both."""
    data = bytearray(seed)
    if draw(st.booleans()):
        data = bytearray(draw(mutated(bytes(data), header_offsets=header_offsets)))
    for _ in range(draw(st.integers(0 if data != bytearray(seed) else 1, 4))):
        at = draw(st.integers(0, len(data)))
        data[at:at] = draw(st.sampled_from(HOSTILE))
    if draw(st.integers(0, 9)) == 0:  # a whole line repeated: duplicate keys, players
        lines = bytes(data).split(b"\n")
        i = draw(st.integers(0, len(lines) - 1))
        lines.insert(i, lines[i])
        data = bytearray(b"\n".join(lines))
    return bytes(data)


def run(argv: list[str], source: Path, out: Path) -> None:
    """Run the CLI and check the properties of the module text."""
    out.write_bytes(SENTINEL)
    err, stdout = io.StringIO(), io.StringIO()
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    started = time.perf_counter()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(stdout):
        status = main(argv)
    seconds = time.perf_counter() - started
    grown = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024 - before
    text = err.getvalue()
    assert status in (0, 2), (status, text)
    assert seconds < LIMIT_SECONDS, (seconds, argv)
    assert grown < LIMIT_BYTES, (grown, argv)
    if status == 2:
        lines = [line for line in text.split("\n") if line]
        errors = [line for line in lines if line.startswith("uschess: error: ")]
        assert len(errors) == 1 and text.endswith("\n"), text
        assert errors[0].startswith(f"uschess: error: {source}"), text
        assert out.read_bytes() == SENTINEL, "output touched on error"


@pytest.fixture
def workdir(tmp_path):
    return tmp_path


def _case(workdir: Path, name: str, blob: bytes) -> Path:
    path = workdir / name
    path.write_bytes(blob)
    return path


@FUZZ
@given(data=st.data())
def test_fuzz_event_yaml(workdir, data):
    blob = data.draw(hostile(WFCC.read_bytes()))
    path, out = _case(workdir, "e.yaml", blob), workdir / "out.trf"
    run(["export", "trf", str(path), "-o", str(out), "--force"], path, out)


@FUZZ
@given(data=st.data())
def test_fuzz_event_json(workdir, data):
    blob = data.draw(hostile((FIX / "audit" / "wfcc15-2024-b14.json").read_bytes()))
    path, out = _case(workdir, "e.json", blob), workdir / "out.txt"
    run(["export", "crosstable", str(path), "-o", str(out), "--force"], path, out)


@FUZZ
@given(data=st.data())
def test_fuzz_players_file(workdir, data):
    blob = data.draw(hostile((FIX / "events" / "club-championship.players.yaml").read_bytes()))
    path, out = _case(workdir, "players.yaml", blob), workdir / "out.trf"
    run(["export", "trf", str(CLUB), "--players", str(path), "-o", str(out), "--force"], path, out)


@FUZZ
@given(data=st.data())
def test_fuzz_reform_file(workdir, data):
    seed = data.draw(st.sampled_from(sorted((FIX / "reforms").glob("*.yaml"))))
    blob = data.draw(hostile(seed.read_bytes()))
    path, out = _case(workdir, "reform.yaml", blob), workdir / "out.txt"
    run(["export", "crosstable", str(WFCC), "--reform", str(path), "-o", str(out), "--force"],
        path, out)


@FUZZ
@given(data=st.data())
def test_fuzz_published_results(workdir, data):
    seed = data.draw(st.sampled_from(sorted((FIX / "audit").glob("*.json"))))
    blob = data.draw(hostile(seed.read_bytes()))
    path, out = _case(workdir, "published.json", blob), workdir / "out.html"
    run(["audit", str(path), "--html", str(out), "--force"], path, out)


@FUZZ
@given(data=st.data())
def test_fuzz_fide_update(workdir, data):
    seed = data.draw(st.sampled_from([FIX / "fide" / "open-abroad.yaml",
                                      FIX / "fide" / "world-youth.yaml"]))
    blob = data.draw(hostile(seed.read_bytes()))
    path, out = _case(workdir, "update.yaml", blob), workdir / "unused"
    run(["fide-update", str(path), "--json"], path, out)


@pytest.mark.shared_data
@FUZZ
@given(data=st.data())
def test_fuzz_msa_crosstable(workdir, data):
    blob = data.draw(hostile(TEACHING_MSA.read_bytes()))
    path, out = _case(workdir, "crosstable.txt", blob), workdir / "out.html"
    run(["audit", str(path), "--start", "2016-01-15", "--html", str(out), "--force"], path, out)


@FUZZ
@given(data=st.data())
def test_fuzz_trf(workdir, data):
    seed = data.draw(st.sampled_from(sorted((FIX / "trf").glob("*.trf"))))
    blob = data.draw(hostile(seed.read_bytes()))
    path, out = _case(workdir, "event.trf", blob), workdir / "out.txt"
    run(["export", "crosstable", str(path), "-o", str(out), "--force"], path, out)


@FUZZ
@given(data=st.data())
def test_fuzz_dbf_report(workdir, data):
    folder = data.draw(st.sampled_from(sorted(p for p in (FIX / "dbf").iterdir() if p.is_dir())))
    target = workdir / "report"
    shutil.rmtree(target, ignore_errors=True)
    shutil.copytree(folder, target)
    files = sorted(target.iterdir())
    victim = data.draw(st.sampled_from(files))
    victim.write_bytes(data.draw(mutated(victim.read_bytes(), header_offsets=DBF_OFFSETS)))
    out = workdir / "out.trf"
    out.write_bytes(SENTINEL)
    run(["export", "trf", str(target), "-o", str(out), "--force"], target, out)
