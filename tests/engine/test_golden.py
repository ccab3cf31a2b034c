"""Golden results (pytest-regressions): every bundled example event rated,
every player's values at full precision.  A change to any rule or formula that
moves a rating shows up here; regenerate with ``--force-regen`` only after
checking the difference is intended."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from uschess.io.eventfile import load_event
from uschess.io.formats.msa import load_msa
from uschess.rating.pipeline import RatingOptions, rate_event

from helpers import TEACHING_MSA

ROOT = Path(__file__).resolve().parents[2]
KEYS = ("pre", "post", "games_before", "games_after", "formula", "n_eff", "step3", "step4",
        "step5", "k", "bonus", "floor", "floor_applied")


def summary(result) -> dict:
    out = {}
    for sec in result.as_dict()["sections"]:
        rows = {}
        for p in sec["players"]:
            row = {k: p[k] for k in KEYS}
            if p["initial"]:
                row["initial"] = [p["initial"]["rating"], p["initial"]["games"]]
            rows[f"{p['pair']} {p['id']}"] = row
        out[f"{sec['name']} {sec['system']}"] = {"fingerprint": sec["rules"],
                                                 "players": rows}
    return out


@pytest.mark.parametrize("name", ["wfcc15", "club-championship"])
def test_example_events(name, data_regression):
    data_regression.check(summary(rate_event(load_event(ROOT / "fixtures" / "events" / f"{name}.yaml"))))


@pytest.mark.parametrize("options", ["baseline", "known-on-2025-05-01", "edition-2017"])
def test_example_under_other_rules(options, data_regression):
    opts = {"baseline": RatingOptions(),
            "known-on-2025-05-01": RatingOptions(known_on=dt.date(2025, 5, 1)),
            "edition-2017": RatingOptions(edition="2017-04-24", rules_on=dt.date(2017, 5, 2))}[options]
    data_regression.check(summary(rate_event(load_event(ROOT / "fixtures" / "events" / "wfcc15.yaml"), opts)))


@pytest.mark.shared_data
def test_real_crosstable(data_regression):
    ct = load_msa(TEACHING_MSA, start=dt.date(2016, 1, 15))
    data_regression.check(summary(rate_event(ct.event)))
