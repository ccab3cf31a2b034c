"""Time proportional to the input: an event of many two-player sections
costs the same per section at 1,000 sections as at 15,000 (the growth of
``benchmarks/sections_bench.py``, CPU time per section over the smaller
event's, against its yardstick's; a part growing faster than the input,
such as a list searched once per section, or the cycle collector's walks
over all that was read, shows as a growth well above 1)."""

from __future__ import annotations

import gc
import sys

import pytest

from helpers import ROOT
from uschess.errors import InputError
from uschess.io.eventfile import event_from_dict
from uschess.rating.pipeline import rate_event

sys.path.insert(0, str(ROOT / "benchmarks"))

import sections_bench  # noqa: E402


@pytest.mark.slow  # about 10 s of CPU
def test_many_sections_cost_the_same_per_section():
    rows = sections_bench.run([1000, 15000], repeat=2)
    big = rows[-1]
    # over the yardstick's growth, which a larger heap's cost in the
    # processor's caches raises as much (a search per section made the
    # engine's 4.0, the collector's walks 1.6 to 1.7)
    assert big["relative_growth"] < 1.3, rows


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
