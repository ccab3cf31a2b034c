"""Work proportional to the input: an event of many two-player sections
costs the same lines of Python per section at 300 sections as at 100
(``benchmarks/sections_bench.py --lines``: a count, not a time, so the
machine's load does not move it; a part growing faster than the input, such
as a list searched in Python once per section, raises the count from 2N to
3N above the count from N to 2N).  The time per section, which also sees
compiled code and the cycle collector, is the benchmark's to measure
(``benchmarks/report.py``); the collector's part is checked here by what it
depends on: collection paused while reading and rating, and back on after.
"""

from __future__ import annotations

import gc
import json
import os
import subprocess
import sys

import pytest

from helpers import ROOT
from uschess.errors import InputError
from uschess.io.eventfile import event_from_dict
from uschess.rating.pipeline import rate_event

sys.path.insert(0, str(ROOT / "benchmarks"))

import sections_bench  # noqa: E402


@pytest.mark.parametrize("body", ["installed", "python"])
def test_many_sections_cost_the_same_lines_per_section(body):
    env = dict(os.environ)
    if body == "python":
        env["USCHESS_PURE"] = "1"
    out = subprocess.run([sys.executable, str(ROOT / "benchmarks" / "sections_bench.py"),
                          "--lines", "--sizes", "100,200,300", "--json"],
                         capture_output=True, text=True, env=env, check=True).stdout
    rows = json.loads(out)
    first = rows[1]["lines"] - rows[0]["lines"]
    second = rows[2]["lines"] - rows[1]["lines"]
    assert first > 100 * 100, rows  # the sections were read and rated
    assert abs(second - first) <= 0.01 * first, rows


def test_the_collector_runs_again_after_reading_and_rating():
    assert gc.isenabled()
    event = event_from_dict(sections_bench.event_data(3))
    assert gc.isenabled()
    rate_event(event)
    assert gc.isenabled()
    data = sections_bench.event_data(3)
    data["sections"][2]["name"] = "M1"
    with pytest.raises(InputError, match="section name used twice"):
        event_from_dict(data)
    assert gc.isenabled()
