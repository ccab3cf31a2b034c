"""benchmarks/sweep_seeds.py: a sweep repeated on calibrated histories of
several seeds, with the spread between seeds."""

from __future__ import annotations

import re
import statistics

import pytest

from helpers import benchmark_script


@pytest.mark.slow
def test_sweep_over_seeds_prints_each_seed_and_the_spread_between_them(capsys):
    script = benchmark_script("sweep_seeds")
    runs = [script.one_seed(seed, 120, 40, "bonus_multiplier=8,12") for seed in (1, 2)]
    again = script.one_seed(1, 120, 40, "bonus_multiplier=8,12")
    assert again["rows"] == runs[0]["rows"] and len(again["rows"]) == 3
    assert script.main(["--vary", "bonus_multiplier=8,12", "--seeds", "1-2", "--players", "120",
                        "--events", "40", "--workers", "1"]) == 0
    out = capsys.readouterr().out
    assert "seeds 1, 2" in out and out.count("  seed ") == 2
    # the mean over the seeds is the mean of each seed's difference
    diffs = [next(r["vs_first"]["log_loss"]["diff"] for r in run["rows"]
                  if r["spec"] == "bonus_multiplier=8") for run in runs]
    line = next(x for x in out.splitlines() if x.startswith("  bonus_multiplier=8 "))
    assert float(re.split(r"\s+", line.strip())[1]) == round(statistics.fmean(diffs), 5)
    assert "mean rank" in line and "baseline" in out.splitlines()[-2]


def test_an_unknown_parameter_is_one_line_before_any_history(capsys):
    script = benchmark_script("sweep_seeds")
    with pytest.raises(SystemExit) as stopped:
        script.main(["--vary", "nosuch=1,2", "--seeds", "1-2", "--players", "100000"])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert "--vary nosuch: no such parameter" in err and "Traceback" not in err
