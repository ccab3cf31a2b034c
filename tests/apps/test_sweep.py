"""Sweeping reform values on Dask distributed (engine/apps/sweep.py, ``uschess sweep``)."""

from __future__ import annotations

import json
import os
import socket
import time
from pathlib import Path

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


@pytest.mark.slow  # a cluster of processes started and run twice (the default run starts one)
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


@pytest.mark.slow
def test_sweep_starts_its_own_local_cluster(history, capsys):
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=12", "--workers", "1",
                 "--progress"]) == 0
    captured = capsys.readouterr()
    assert "a local cluster of 1 worker(s)" in captured.err and "[2/2]" in captured.err
    assert "bonus_multiplier=12" in captured.out and "rank" in captured.out
    # the versions' progress bar (--progress: shown off a terminal too)
    assert "sweep:   0%" in captured.err and "0/2 [" in captured.err


@pytest.mark.slow  # waits for the connection to time out
def test_unreachable_scheduler_is_one_line(history, capsys):
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=12", "--scheduler",
                 "tcp://127.0.0.1:1", "--timeout", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "tcp://127.0.0.1:1" in err


def test_interrupted_sweep_says_how_to_resume(history, tmp_path, capsys, monkeypatch):
    import uschess.commands.sweep as command

    def interrupted(histories, combos, *, results, **kw):
        results.add(combos[0].key, {"state": {}, "cpu_seconds": 0.0, "seconds": 0.0})
        raise KeyboardInterrupt

    monkeypatch.setattr(command, "sweep_histories", interrupted)
    results = tmp_path / "r.json"
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=8,14", "--results",
                 str(results)]) == 130
    err = capsys.readouterr().err
    assert "1 of 3 versions finished and kept in" in err and "again to resume" in err
    assert set(json.loads(results.read_text())["results"]) == {"baseline"}


@pytest.mark.slow  # a cluster of processes started
def test_each_history_evaluated_and_the_answer_given_over_them(history, cluster, tmp_path,
                                                                 capsys):
    """--each: every version on every history, each history's evaluation
    the one 'evaluate' gives it (bit for bit), and over the histories the
    mean difference from the baseline with Student's t interval; a rerun
    with the results file runs nothing."""
    other = tmp_path / "other"
    write_history(other, seed=6, players=100, events=40)
    results = tmp_path / "results.json"
    argv = ["sweep", "--each", str(history), str(other), "--vary", "bonus_multiplier=8,14",
            "--scheduler", cluster.scheduler_address, "--results", str(results), "--json"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    swept = json.loads(captured.out)
    assert "on each of 2 histories" in captured.err and "[6/6] " in captured.err
    assert set(json.loads(results.read_text())["results"]) == {
        f"{k}/{c}" for k in (1, 2) for c in ("baseline", "bonus_multiplier=8", "bonus_multiplier=14")}
    assert [h["name"] for h in swept["histories"]] == [str(history), str(other)]
    for h, path in zip(swept["histories"], (history, other)):
        assert main(["sweep", str(path), "--vary", "bonus_multiplier=8,14", "--scheduler",
                     cluster.scheduler_address, "--json", "-q"]) == 0
        assert _numbers(h) == _numbers(json.loads(capsys.readouterr().out))
    diffs = {v["spec"]: [next(r for r in h["ranking"] if r["spec"] == v["spec"])
                         ["vs_first"]["log_loss"]["diff"] for h in swept["histories"]]
             for v in swept["across"]["versions"]}
    for v in swept["across"]["versions"]:
        mean = sum(diffs[v["spec"]]) / 2
        half = 12.706 * abs(diffs[v["spec"]][0] - diffs[v["spec"]][1]) / 2  # t(1) sd/sqrt(2)
        assert v["diffs"] == diffs[v["spec"]]
        assert v["mean"] == pytest.approx(mean) and v["high"] - v["mean"] == pytest.approx(half)
    assert main(argv[:-1] + ["--scheduler", "tcp://127.0.0.1:1"]) == 0  # all kept: no cluster
    captured = capsys.readouterr()
    assert "[" not in captured.err and "over the 2 histories" in captured.out


def test_the_answer_over_histories_resolves_a_version_only_when_they_agree():
    from uschess.apps.sweep_across import across, t975

    def ranking(diff6, low6, high6, diff14):
        rows = [{"spec": "baseline", "order": 0, "n": 100, "vs_first": None},
                {"spec": "B=6", "order": 1, "n": 100,
                 "vs_first": {"log_loss": {"diff": diff6, "low": low6, "high": high6}}},
                {"spec": "B=14", "order": 2, "n": 100,
                 "vs_first": {"log_loss": {"diff": diff14, "low": diff14 - 1, "high": diff14 + 1}}}]
        for rank, r in enumerate(sorted(rows, key=lambda r: r["vs_first"]["log_loss"]["diff"]
                                        if r["vs_first"] else 0.0), start=1):
            r["rank"] = rank
        return rows

    a = across(["h1", "h2", "h3"], [ranking(2.0, 1.0, 3.0, 1.0), ranking(3.0, 2.0, 4.0, -1.0),
                                    ranking(4.0, -1.0, 9.0, 0.0)], "baseline")
    b6, b14 = a.versions
    assert (b6.spec, b6.mean, b6.better, b6.worse) == ("B=6", 3.0, 0, 2)
    assert b6.low == pytest.approx(3.0 - t975(2) * 1.0 / 3 ** 0.5)
    assert b6.verdict() == "worse" and b14.verdict() == "not resolved"
    assert (b6.mean_rank, a.baseline_rank) == (3.0, pytest.approx(4 / 3))
    text = "\n".join(a.format())
    assert "over the 3 histories" in text and "B=6" in text and "worse" in text
    assert t975(40) == 1.96
    with pytest.raises(ValueError):
        across(["h1"], [ranking(1.0, 0.0, 2.0, 0.0)], "baseline")


def test_each_needs_two_histories_and_their_own_truth(history, capsys):
    assert main(["sweep", "--each", str(history), "--vary", "bonus_multiplier=8"]) == 2
    assert "two histories or more" in capsys.readouterr().err
    assert main(["sweep", "--each", str(history), str(history), "--truth",
                 str(history / "truth.csv"), "--vary", "bonus_multiplier=8"]) == 2
    assert "--truth names one for all" in capsys.readouterr().err


def _results_file(history, tmp_path) -> dict:
    """A sound results file of ``history`` (one finished version, the
    baseline's scores of the wfcc15 event: the file is checked, not rated)."""
    from uschess.apps.compare import parse_rules_spec
    from uschess.apps.evaluate import evaluate
    from uschess.apps.sweep import RESULTS_FORMAT, history_fingerprint
    from uschess.commands.evaluate import load_history
    from uschess.io.eventfile import load_event
    wfcc = Path(__file__).resolve().parents[2] / "fixtures" / "events" / "wfcc15.yaml"
    state = evaluate([load_event(wfcc)], [parse_rules_spec("baseline")]).versions[0].to_state()
    return {"format": RESULTS_FORMAT, "history": history_fingerprint(*load_history([history])),
            "settings": {"from": None, "drift_system": "OTBR"},
            "results": {"baseline": {"state": state, "cpu_seconds": 0.5, "seconds": 0.5}}}


def _nan(data):
    data["results"]["baseline"]["state"]["overall"]["log_loss"] = float("nan")


def _negative(data):
    data["results"]["baseline"]["state"]["overall"]["n"] = -5


def _none_counted(data):
    data["results"]["baseline"]["state"]["overall"]["n"] = 0


def _no_state(data):
    del data["results"]["baseline"]["state"]


def _empty_state(data):
    data["results"]["baseline"]["state"] = {}


def _cpu_text(data):
    data["results"]["baseline"]["cpu_seconds"] = "0.5"


def _results(value):
    def damage(data):
        data["results"] = value
    return damage


def _result(value):
    def damage(data):
        data["results"]["baseline"] = value
    return damage


@pytest.mark.parametrize("damage, words", [
    (_nan, "NaN is not a number these files accept"),
    (_negative, "results['baseline'].state.overall: 'n' = -5 is impossible"),
    (_none_counted, "results['baseline'].state.overall: 'log_loss' = "),
    ('{"format": "x", ', "key 'format' given twice"),
    (_no_state, "results['baseline']: missing 'state'"),
    (_empty_state, "results['baseline'].state: missing 'bands', 'calibration'"),
    (_results(5), "results must be a mapping, not a number (5)"),
    (_results([1]), "results must be a mapping, not a list"),
    (_results("abc"), "results must be a mapping, not text"),
    (_result(5), "results['baseline'] must be a mapping, not a number (5)"),
    (_cpu_text, "results['baseline']: 'cpu_seconds' must be a number, not '0.5'"),
    ("[" * 100_000, "nested over 32 deep at line 1 column 33"),
    ("fifo", "is a FIFO (named pipe), not a regular file"),
])
def test_damaged_results_file_is_refused_before_anything_runs(history, tmp_path, capsys,
                                                              monkeypatch, damage, words):
    import uschess.commands.sweep as command

    def never(*args, **kwargs):
        raise AssertionError("a task ran")

    monkeypatch.setattr(command, "sweep_histories", never)
    results = tmp_path / "r.json"
    if damage == "fifo":  # refused at once, not waited on
        os.mkfifo(results)
    elif isinstance(damage, str):
        results.write_text(damage + json.dumps(_results_file(history, tmp_path))[1:])
    else:
        data = _results_file(history, tmp_path)
        damage(data)
        results.write_text(json.dumps(data))
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=6", "--results",
                 str(results)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"{results}: " in err and words in err


def test_a_sound_results_file_passes_the_checks(history, tmp_path, capsys):
    """What ``to_state`` writes is read back: the sweep goes on to the
    scheduler (for the combination not in the file)."""
    results = tmp_path / "r.json"
    results.write_text(json.dumps(_results_file(history, tmp_path)))
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=6", "--results",
                 str(results), "--scheduler", "tcp://127.0.0.1:1", "--timeout", "0.2"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--scheduler tcp://127.0.0.1:1: " in err


@pytest.mark.parametrize("address", ["ucx://127.0.0.1:1", "tls://127.0.0.1:1"])
def test_a_scheduler_address_dask_cannot_use_is_one_line(history, capsys, address):
    assert main(["sweep", str(history), "--vary", "bonus_multiplier=12", "--scheduler",
                 address, "--timeout", "1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert f"--scheduler {address}: cannot connect" in err


def test_a_scheduler_that_never_answers_is_bounded_by_timeout(history, capsys):
    """A peer that accepts the connection and never says a word: the
    handshake waits no longer than --timeout."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(5)  # connections complete in the backlog; none is answered
        address = "tcp://127.0.0.1:%d" % silent.getsockname()[1]
        started = time.monotonic()
        assert main(["sweep", str(history), "--vary", "bonus_multiplier=12", "--scheduler",
                     address, "--timeout", "0.5"]) == 2
        assert time.monotonic() - started < 5
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"--scheduler {address}: no answer within 0.5 s" in err
