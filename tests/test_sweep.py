"""Sweeping reform values on Dask distributed (engine/apps/sweep.py, ``uschess sweep``)."""

from __future__ import annotations

import json

import pytest
import yaml

from uschess.apps.sweep import combinations, parse_vary
from uschess.apps.generate import write_history
from uschess.cli import main
from uschess.errors import InputError

distributed = pytest.importorskip("dask.distributed")


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    base = tmp_path_factory.mktemp("sweep")
    write_history(base / "hist", seed=5, players=120, events=50)
    return base / "hist"


@pytest.fixture(scope="module")
def cluster():
    """A local Dask cluster of two worker processes, started here."""
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=":0") as c:
        yield c


def _numbers(data: dict) -> dict:
    """What must be identical between sweep and evaluate: everything but the
    names of the versions."""
    ranking = [{k: v for k, v in r.items() if k not in ("spec", "label")}
               for r in data["ranking"]]
    versions = [{k: v for k, v in x.items() if k not in ("spec", "label")}
                for x in data["versions"]]
    return {"ranking": ranking, "versions": versions, "events": data["events"]}


def test_vary_parses_and_every_reform_is_validated():
    assert parse_vary("bonus_multiplier=6, 8,10.5").values == (6, 8, 10.5)
    combos = combinations([parse_vary("bonus_multiplier=6,8"),
                           parse_vary("bonus_m_prime_min=3,4")])
    assert [c.key for c in combos] == [
        "baseline", "bonus_multiplier=6,bonus_m_prime_min=3",
        "bonus_multiplier=6,bonus_m_prime_min=4", "bonus_multiplier=8,bonus_m_prime_min=3",
        "bonus_multiplier=8,bonus_m_prime_min=4"]
    reform = combos[1].side.options.reform
    assert reform.parameters["bonus_multiplier"][0].value == 6
    for bad in ("bonus_multiplier", "bonus_multiplier=", "bonus_multiplier=6,,8",
                "bonus_multiplier=6,6"):
        with pytest.raises(InputError, match="--vary"):
            parse_vary(bad)
    with pytest.raises(InputError, match="no such parameter"):
        combinations([parse_vary("bonus_multiplyer=6")])
    with pytest.raises(InputError, match="must be a number"):
        combinations([parse_vary("bonus_multiplier=six")])


@pytest.mark.parametrize("args,words", [
    (["--vary", "no_such=1,2"], "no such parameter"),
    (["--vary", "bonus_multiplier=a,b"], "must be a number"),
    (["--vary", "bonus_multiplier=6", "--from", "2020-13-01"], "2020-13-01"),
    (["--vary", "bonus_multiplier=6", "--workers", "0"], "--workers"),
])
def test_bad_sweeps_fail_before_anything_runs(history, tmp_path, capsys, args, words):
    results = tmp_path / "r.json"
    assert main(["sweep", str(history), *args, "--results", str(results)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and words in err
    assert not results.exists()


def test_sweep_on_a_cluster_equals_sequential_evaluate_and_resumes(history, cluster, tmp_path,
                                                                    capsys):
    results = tmp_path / "results.json"
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=8,14", "--from", "2005-01-01",
                 "--scheduler", cluster.scheduler_address, "--results", str(results),
                 "--json"]) == 0
    captured = capsys.readouterr()
    swept = json.loads(captured.out)
    progress = [line for line in captured.err.splitlines() if line.startswith("[")]
    assert len(progress) == 3 and progress[-1].startswith("[3/3]")
    assert {c["key"] for c in swept["combinations"]} == {"baseline", "bonus_multiplier=8",
                                                         "bonus_multiplier=14"}
    # the same versions one after another with evaluate, from reform files
    specs = ["baseline"]
    for b in (8, 14):
        f = tmp_path / f"b{b}.yaml"
        f.write_text(yaml.safe_dump({"name": f"B {b}", "parameters": {"bonus_multiplier": [
            {"from": "2005-01-01", "value": b}]}}))
        specs.append(f"reform:{f}")
    assert main(["evaluate", str(history), *sum((["--rules", s] for s in specs), []),
                 "--json", "--quiet"]) == 0
    sequential = json.loads(capsys.readouterr().out)
    assert _numbers(swept) == _numbers(sequential)
    assert swept["ranking"][0]["log_loss"] <= swept["ranking"][-1]["log_loss"]

    # a rerun skips every finished combination (no cluster needed)
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=8,14", "--from", "2005-01-01",
                 "--scheduler", "tcp://127.0.0.1:1", "--results", str(results), "--json"]) == 0
    again = json.loads(capsys.readouterr().out)
    assert sorted(again["resumed"]) == sorted(["baseline", "bonus_multiplier=8",
                                               "bonus_multiplier=14"])
    assert _numbers(again) == _numbers(swept)
    # a new value runs alone; the others are kept
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=8,14,10", "--from",
                 "2005-01-01", "--scheduler", cluster.scheduler_address, "--results",
                 str(results)]) == 0
    captured = capsys.readouterr()
    assert "3 already in" in captured.err and "[4/4] bonus_multiplier=10" in captured.err
    assert "bonus_multiplier=10" in captured.out
    kept = json.loads(results.read_text())
    assert set(kept["results"]) == {"baseline", "bonus_multiplier=8", "bonus_multiplier=14",
                                    "bonus_multiplier=10"}
    # the results file belongs to its history and settings
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=8", "--from", "2006-01-01",
                 "--results", str(results)]) == 2
    assert "other settings" in capsys.readouterr().err


def test_sweep_starts_its_own_local_cluster(history, capsys):
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=12", "--workers", "1"]) == 0
    captured = capsys.readouterr()
    assert "a local cluster of 1 worker(s)" in captured.err and "[2/2]" in captured.err
    assert "bonus_multiplier=12" in captured.out and "rank" in captured.out


@pytest.mark.slow  # waits for the connection to time out
def test_unreachable_scheduler_is_one_line(history, capsys):
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=12", "--scheduler",
                 "tcp://127.0.0.1:1", "--timeout", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tcp://127.0.0.1:1" in err


def test_interrupted_sweep_says_how_to_resume(history, tmp_path, capsys, monkeypatch):
    import uschess.commands.sweep as command

    def interrupted(events, truth, combos, *, results, **kw):
        results.add(combos[0].key, {"state": {}, "cpu_seconds": 0.0, "seconds": 0.0})
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "sweep", interrupted)
    results = tmp_path / "r.json"
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=8,14", "--results",
                 str(results)]) == 130
    err = capsys.readouterr().err
    assert "1 of 3 versions finished and kept in" in err and "again to resume" in err
    assert set(json.loads(results.read_text())["results"]) == {"baseline"}
