"""The optional compiled kernel of the special and the standard formula
(``engine/formulas_kernel.pyx``, built with ``USCHESS_KERNEL=1 pip install
-e .``) against the reference, ``engine/formulas.py``: the same values bit
for bit (the issue asks 1e-9) and the same objects, under the parameters of
every era and edition and any a reform could set, and the same posts when
whole events are rated either way.  Where the kernel is not built the
comparisons skip; the switches (``USCHESS_PURE``, a kernel older than its
sources) are checked either way."""

from __future__ import annotations

import datetime as dt
import json
import math
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import uschess.formulas as F
from uschess.calendar.rulebook import RuleBook

from helpers import examples

ROOT = Path(__file__).resolve().parents[2]

try:
    from uschess import formulas_kernel as KERNEL
except ImportError:
    KERNEL = None
built = pytest.mark.skipif(KERNEL is None, reason="the compiled kernel is not built "
                           "(USCHESS_KERNEL=1 pip install -e . builds it)")


def _special_parameters() -> list:
    """The special formula's parameters (eps, cap, start, p-count) of every
    dated change, every edition and every reading of a recorded conflict."""
    book = RuleBook.load()
    dates = sorted({e.effective for t in [*book.timelines.values(), *book.slots.values()]
                    for e in t.entries} | {dt.date(2026, 1, 1)})
    choices = [{}, *({"edition": e} for e in book.editions),
               *({"readings": {c: r}} for c, conflict in book.conflicts.items()
                 for r in conflict.readings)]
    found = set()
    for on in dates:
        for choice in choices:
            p = book.rules(on, **choice).p
            found.add((p.special_eps, p.special_cap, p.special_start, p.special_p_inclusive))
    return sorted(found, key=repr)


ERAS = _special_parameters()

ratings = st.one_of(st.floats(0.0, 3000.0), st.integers(0, 3000),
                    st.integers(1, 30).map(lambda h: 100.0 * h))  # on each other's knots
opponent_lists = st.lists(ratings, max_size=80).flatmap(  # past the 64 held on the stack
    lambda xs: st.sampled_from([xs, tuple(xs)]))
free_parameters = st.tuples(st.sampled_from([1e-7, 1e-9, 1e-4, 0.5]),
                            st.one_of(st.sampled_from([2700.0, 2700, 2400.0]), st.floats(0, 4000)),
                            st.sampled_from(["prior", "estimate"]), st.booleans())


def _same(a, b) -> bool:
    """The same object value: type and every bit of a float (the sign of a zero too)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, float):
        return struct.pack("<d", a) == struct.pack("<d", b)
    if isinstance(a, tuple):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def test_every_era_has_its_special_parameters():
    assert ERAS
    assert {start for _, _, start, _ in ERAS} == {"prior", "estimate"}
    assert {p for *_, p in ERAS} == {True, False}


@built
@given(r0=ratings, n_eff=st.one_of(st.floats(0.0, 60.0), st.integers(0, 25)),
       opponents=opponent_lists, half_points=st.integers(0, 160),
       history=st.sampled_from(["", "wins", "losses", "both"]),
       parameters=st.one_of(st.sampled_from(ERAS), free_parameters))
@settings(max_examples=examples(2000), deadline=None)
def test_the_special_formula_is_the_reference_bit_for_bit(r0, n_eff, opponents, half_points,
                                                         history, parameters):
    """Sec. 4.1: the same M, as the same object (an integer R0 where the
    walk ends on it stays the integer)."""
    eps, cap, start, p_inclusive = parameters
    score = min(half_points / 2.0, float(len(opponents)))
    kw = dict(all_wins=history in ("wins", "both"), all_losses=history in ("losses", "both"),
              eps=eps, cap=cap, start=start, p_inclusive=p_inclusive)
    want = F.PURE.special_rating(r0, n_eff, opponents, score, **kw)
    got = KERNEL.special_rating(r0, n_eff, opponents, score, **kw)
    assert _same(got, want), (got, want)
    assert abs(got - want) <= 1e-9


@built
@given(r0=ratings, k=st.one_of(st.floats(0.1, 80.0), st.integers(1, 60)), opponents=opponent_lists,
       half_points=st.integers(0, 160), eligible=st.sampled_from([True, False, None]),
       b=st.sampled_from([14, 14.0, 10.0, 6.0, 0.0]), m_prime_min=st.sampled_from([4, 3, 0]))
@settings(max_examples=examples(2000), deadline=None)
def test_the_standard_formula_is_the_reference_bit_for_bit(r0, k, opponents, half_points,
                                                          eligible, b, m_prime_min):
    """Sec. 4.2: the same (Rs, E, bonus)."""
    score = min(half_points / 2.0, float(len(opponents)))
    want = F.PURE.standard_rating(r0, k, opponents, score, eligible, b, m_prime_min)
    got = KERNEL.standard_rating(r0, k, opponents, score, bonus_eligible=eligible, b=b,
                                 m_prime_min=m_prime_min)
    assert _same(got, want), (got, want)


@built
def test_a_traced_special_rating_is_the_references():
    """``--explain`` shows the knot walk: a call with a trace is the reference's."""
    args = (1500, 6.0, [1400.0, 1550.0, 1650.0], 1.5)
    kw = dict(all_wins=False, all_losses=False, eps=1e-7, cap=2700.0)
    want, got = F.SpecialTrace(), F.SpecialTrace()
    assert KERNEL.special_rating(*args, trace=got, **kw) == F.PURE.special_rating(*args, trace=want,
                                                                                  **kw)
    assert got.as_dict() == want.as_dict() and got.moves


_RATE_ALL = """
import json, sys
from uschess.formulas import KERNEL_STATUS
from uschess.io.eventfile import load_event
from uschess.rating.pipeline import RatingOptions, rate_event
out = {"status": KERNEL_STATUS, "posts": {}}
for path in sys.argv[1:]:
    for s in rate_event(load_event(path), RatingOptions(trace=False)).sections:
        for p in s.players:
            out["posts"][f"{path} {s.section.name} {s.system} {p.id}"] = [
                None if p.post is None else p.post.hex(), p.k]
print(json.dumps(out))
"""


@built
def test_events_rated_with_either_give_the_same_posts(tmp_path):
    """The bundled events and a generated history's, each rated in a process
    with the kernel and in one with ``USCHESS_PURE=1``: the same posts (and
    K), bit for bit."""
    from uschess.cli import main

    assert main(["generate", "--players", "150", "--events", "30", "--seed", "11", "-o",
                 str(tmp_path / "hist")]) == 0
    files = sorted(str(p) for p in (ROOT / "fixtures" / "events").glob("[!.]*[!s].yaml"))
    files += sorted(str(p) for p in (ROOT / "fixtures" / "replay-mixed").glob("e*.yaml"))
    files += sorted(str(p) for p in (tmp_path / "hist").iterdir() if p.suffix == ".json")
    runs = {}
    for pure in ("0", "1"):
        env = dict(os.environ, USCHESS_PURE=pure)
        out = subprocess.run([sys.executable, "-c", _RATE_ALL, *files], capture_output=True,
                             text=True, env=env, check=True)
        runs[pure] = json.loads(out.stdout)
    assert runs["0"]["status"] == "compiled kernel"
    assert runs["1"]["status"].startswith("pure Python")
    ks = [k for _, k in runs["0"]["posts"].values()]
    assert len(ks) > 300 and None in ks and any(k is not None for k in ks)  # both formulas
    assert runs["0"]["posts"] == runs["1"]["posts"]


def test_pure_is_chosen_when_asked(monkeypatch):
    monkeypatch.setenv("USCHESS_PURE", "1")
    formulas, status = F._compiled()
    assert formulas is None and "USCHESS_PURE=1" in status


def test_a_kernel_older_than_its_sources_is_not_used(tmp_path):
    """A source tree where formulas.py or the kernel's source changed after
    the build: the reference serves until the kernel is built again."""
    built_file, source = tmp_path / "kernel.so", tmp_path / "formulas.py"
    built_file.write_bytes(b"")
    source.write_text("")
    os.utime(built_file, (1_000_000, 1_000_000))
    os.utime(source, (2_000_000, 2_000_000))
    assert F.older_than_sources(built_file, [source])
    os.utime(built_file, (3_000_000, 3_000_000))
    assert not F.older_than_sources(built_file, [source])
    assert not F.older_than_sources(tmp_path / "gone.so", [source])
    # a source that is not there leaves the others to decide
    os.utime(built_file, (1_000_000, 1_000_000))
    assert F.older_than_sources(built_file, [tmp_path / "gone.pxi", source])


def test_the_build_flags_are_among_a_kernels_sources(monkeypatch):
    """``setup.py`` counts as a source of each kernel module in a source
    tree: its compiler flags change results in the last bit (a build
    without ``-fno-builtin-pow`` squared differently), so a kernel built
    before they changed is not used."""
    seen = []
    monkeypatch.setattr(F, "older_than_sources",
                        lambda built, sources: seen.append(sources) or False)
    kernel, _ = F.load_kernel("formulas_kernel", [])
    if kernel is None or not Path(kernel.__file__).with_name("formulas_kernel.pyx").exists():
        pytest.skip("the kernel is not built in this source tree")
    assert ROOT / "setup.py" in [Path(s).resolve() for s in seen[0]]


def test_the_steps_call_the_active_formulas():
    """What ``--version`` names is what the steps call."""
    from uschess.rating import steps

    assert steps.standard_rating is F.ACTIVE.standard_rating is F.standard_rating
    assert F.special_rating is F.ACTIVE.special_rating
    assert (F.ACTIVE is F.PURE) == (F.KERNEL_STATUS != "compiled kernel")
    assert math.isclose(F.PURE.standard_rating(1500.0, 32.0, [1500.0], 1.0, False, 14, 4)[0], 1516.0)
