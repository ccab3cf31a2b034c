"""Scoring rule versions by prediction (engine/apps/evaluate.py, ``uschess evaluate``)."""

from __future__ import annotations

import io
import json
import math
import os
from pathlib import Path

import pytest

from uschess.apps.compare import order_events, parse_rules_spec, replay
from uschess.apps.evaluate import (BOOTSTRAP, Tally, VersionScores, band_of, bootstrap_difference,
                                   calibration_bin, evaluate, format_text, game_scores,
                                   replay_chain, spearman)
from uschess.apps.generate import read_truth, write_history
from uschess.cli import main
from uschess.formulas import we
from uschess.io.eventfile import load_event
from uschess.rating.pipeline import RatingOptions, rate_event

ROOT = Path(__file__).resolve().parents[2]
WFCC = ROOT / "fixtures" / "events" / "wfcc15.yaml"
B16 = ROOT / "fixtures" / "reforms" / "b-16.yaml"


@pytest.fixture(scope="module")
def history(tmp_path_factory):
    base = tmp_path_factory.mktemp("evaluate")
    files = write_history(base / "hist", seed=9, players=160, events=70)
    return base / "hist", [load_event(p) for p in files]


def test_game_scores_are_deviance_and_brier():
    assert game_scores(0.5, 1.0) == (math.log(2.0), 0.25)
    assert game_scores(0.5, 0.5)[0] == pytest.approx(math.log(2.0))
    loss, sq = game_scores(0.8, 0.5)  # a draw is half a point
    assert loss == pytest.approx(-(0.5 * math.log(0.8) + 0.5 * math.log(0.2)))
    assert sq == pytest.approx(0.09)
    assert math.isfinite(game_scores(0.0, 1.0)[0])  # kept away from log(0)


def test_bins_bands_and_spearman():
    assert calibration_bin(0.0) == 0.0 and calibration_bin(24.9) == 0.0
    assert calibration_bin(25.0) == 50.0 and calibration_bin(-74.0) == -50.0
    assert calibration_bin(5000.0) == 600.0 and calibration_bin(-5000.0) == -600.0
    assert [band_of(x) for x in (100, 999.9, 1000, 1399.5, 1799, 2199, 2200, 2900)] == \
        ["<1000", "<1000", "1000-1399", "1000-1399", "1400-1799", "1800-2199", "2200+", "2200+"]
    assert spearman([1, 2, 3, 4], [1, 3, 2, 4]) == pytest.approx(0.8)
    assert spearman([1, 2, 3], [3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 2, 2, 3], [1, 2, 2, 3]) == pytest.approx(1.0)  # ties share ranks
    assert spearman([1, 1, 1], [1, 2, 3]) is None


def test_every_game_scored_by_pre_event_ratings_of_one_event():
    """The wfcc15 event by hand: each rated game from both sides, We of the
    pre-event (or step-1 initial) ratings, per system."""
    event = load_event(WFCC)
    result = rate_event(event, RatingOptions(trace=False))
    expected = {}
    for sr in result.sections:
        used = {p.pair: (p.pre if p.pre is not None else p.initial.rating)
                for p in sr.players if p.m}
        t = expected.setdefault(sr.system, Tally())
        for pl in sr.section.players:
            for r in pl.rounds:
                if r.rated:
                    e = we(used[pl.pair], used[r.opponent])
                    t.add(e, r.points, *game_scores(e, r.points))
    ev = evaluate([event], [parse_rules_spec("baseline")])
    got = ev.versions[0]
    assert set(got.systems) == set(expected) == {"OTBR", "OTBQ"}
    for system, t in expected.items():
        assert got.systems[system] == t  # exact sums
    assert got.overall.n == sum(t.n for t in expected.values())
    assert got.overall.log_loss == pytest.approx(sum(t.log_loss for t in expected.values()))


def test_the_adapter_is_the_chain_of_compare(history):
    _, events = history
    ordered = order_events(events)
    ours = replay_chain(events, RatingOptions())
    theirs = replay(ordered, RatingOptions(trace=False))
    assert [k for k, _, _ in ours] == [k for k, _ in ordered]
    for (_, _, a), b in zip(ours, theirs):
        assert [(p.id, p.system, p.post) for s in a.sections for p in s.players] == \
            [(p.id, p.system, p.post) for s in b.sections for p in s.players]


def test_splits_add_up_and_truth_is_scored(history):
    folder, events = history
    truth = read_truth(folder / "truth.csv")
    ev = evaluate(events, [parse_rules_spec("baseline")], truth=truth)
    v = ev.versions[0]
    n = v.overall.n
    assert n > 1000
    for part in (v.systems, v.statuses, v.bands, v.calibration):
        assert sum(t.n for t in part.values()) == n
        assert sum(t.log_loss for t in part.values()) == pytest.approx(v.overall.log_loss)
    assert sum(t.n for _, t in v.events) == n and len(v.events) == len(events)
    assert set(v.statuses) == {"established", "provisional", "unrated"}
    # each game from both sides: the expected scores of the two sides add to 1
    assert v.overall.expected == pytest.approx(n / 2)
    assert v.overall.observed == pytest.approx(n / 2)
    t = v.truth["all"]
    assert t.n > 100 and t.rmse > 0 and 0 < t.spearman <= 1
    assert t.rmse >= abs(t.mean_error)
    years = [p.date.year for p in v.drift]
    assert years == list(range(years[0], years[-1] + 1)) and years[-1] == 2025
    assert all(p.pool_true is not None for p in v.drift if p.pool_n)


def test_bootstrap_of_a_version_against_itself_is_zero(history):
    _, events = history
    side = parse_rules_spec("baseline")
    a = evaluate(events, [side]).versions[0]
    d = bootstrap_difference(a, a, "log_loss")
    assert d == {"diff": 0.0, "low": 0.0, "high": 0.0, "resamples": BOOTSTRAP}
    # and the interval of a real difference holds the difference, the same each time
    b = evaluate(events, [parse_rules_spec(f"reform:{B16}")]).versions[0]
    d1, d2 = bootstrap_difference(a, b, "brier"), bootstrap_difference(a, b, "brier")
    assert d1 == d2 and d1["low"] <= d1["diff"] <= d1["high"] and d1["diff"] != 0.0


def test_results_state_round_trips_exactly(history):
    _, events = history
    v = evaluate(events, [parse_rules_spec("baseline")]).versions[0]
    again = VersionScores.from_state(json.loads(json.dumps(v.to_state())))
    assert again.as_dict() == v.as_dict() and again.events == v.events


@pytest.mark.slow
def test_cli_ranks_versions_with_plots(history, tmp_path, capsys):
    folder, _ = history
    plots = tmp_path / "plots"
    assert main(["evaluate", str(folder), "--rules", "baseline", "--rules", f"reform:{B16}",
                 "--json", "--plot-dir", str(plots), "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["events"] == 70 and data["truth"] is True and data["reference"] == "baseline"
    ranking = data["ranking"]
    assert [r["rank"] for r in ranking] == [1, 2]
    assert ranking[0]["log_loss"] <= ranking[1]["log_loss"]
    other = next(r for r in ranking if r["spec"] != "baseline")
    iv = other["vs_first"]["log_loss"]
    assert iv["low"] <= iv["diff"] <= iv["high"]
    assert other["rmse"] > 0
    for v in data["versions"]:
        assert set(v) >= {"log_loss", "brier", "systems", "statuses", "bands", "calibration",
                          "drift", "truth"}
        for c in v["calibration"]:
            assert c["n"] > 0 and 0 <= c["expected"] <= 1 and 0 <= c["observed"] <= 1
    for name in ("calibration.png", "calibration.svg", "drift.png", "drift.svg"):
        assert (plots / name).stat().st_size > 1000
    assert (plots / "calibration.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # the text report carries the same ranking
    assert main(["evaluate", str(folder), "--rules", "baseline", "--rules", f"reform:{B16}",
                 "--quiet"]) == 0
    captured = capsys.readouterr()
    text = captured.out
    assert "evaluate:" not in captured.err  # quiet: no bar, no progress lines
    assert "log-loss vs first [95%]" in text and "calibration" in text and "drift in OTBR" in text
    assert "against the true strengths" in text
    assert f"{ranking[0]['log_loss']:.5f}" in text


def test_text_without_truth_has_no_truth_columns():
    ev = evaluate([load_event(WFCC)], [parse_rules_spec("baseline"),
                                       parse_rules_spec("rules-on:2016-01-01")])
    text = format_text(ev)
    assert "RMSE" not in text and "rules-on:2016-01-01" in text


@pytest.mark.parametrize("args,words", [
    (["--rules", "nonsense"], "--rules 'nonsense'"),
    (["--rules", "reform:/no/such.yaml"], "/no/such.yaml"),
    (["--rules", "baseline", "--rules", "baseline"], "given twice"),
    (["--rules", "baseline", "--truth", "BADTRUTH"], "BADTRUTH"),
])
def test_bad_input_is_one_line(history, tmp_path, capsys, args, words):
    folder, _ = history
    bad = tmp_path / "truth.csv"
    bad.write_text("event,date,id,OTBR\nx,2001-01-01,1,2\n")
    args = [str(bad) if a == "BADTRUTH" else a for a in args]
    words = str(bad) if words == "BADTRUTH" else words
    assert main(["evaluate", str(folder), *args]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err and words in err


def test_missing_history_is_one_line(tmp_path, capsys):
    assert main(["evaluate", str(tmp_path / "none.json"), "--rules", "baseline"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none.json" in err


def test_mixed_history_with_matches_and_fide_updates(capsys):
    """Events, matches and a FIDE update in one folder: every game of the
    events and matches is scored; the update moves the rating without games."""
    mixed = ROOT / "fixtures" / "replay-mixed"
    assert main(["evaluate", str(mixed), "--rules", "baseline", "--json", "--quiet"]) == 0
    data = json.loads(capsys.readouterr().out)
    v = data["versions"][0]
    assert data["events"] == len([p for p in mixed.iterdir() if p.suffix == ".yaml"])
    assert v["n"] > 0 and data["truth"] is False
    from uschess.apps.evaluate import replay_chain
    from uschess.apps.replay import load_item
    items = [load_item(p) for p in sorted(mixed.glob("*.yaml"))]
    games = sum(1 for _, _, res in replay_chain(items, RatingOptions()) for sr in res.sections
                for pl in sr.section.players for r in pl.rounds if r.rated)
    assert v["n"] == games


@pytest.fixture(scope="module")
def small(tmp_path_factory):
    """A history of four events with its truth.csv."""
    folder = tmp_path_factory.mktemp("evaluate-small") / "hist"
    write_history(folder, seed=3, players=20, events=4)
    return folder


def _evaluate_json(capsys, *args) -> dict:
    assert main(["evaluate", *map(str, args), "--json", "--quiet"]) == 0
    return json.loads(capsys.readouterr().out)


def _one_line(capsys, *args) -> str:
    assert main(["evaluate", *map(str, args)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "Traceback" not in err
    return err


def test_a_history_without_rated_games_prints_dashes(capsys):
    """A FIDE update alone: no rated game, so no mean to print."""
    abroad = ROOT / "fixtures" / "fide" / "open-abroad.yaml"
    assert main(["evaluate", str(abroad), "--rules", "baseline"]) == 0
    captured = capsys.readouterr()
    assert "evaluated baseline: 0 player-games, log-loss - (" in captured.err
    assert "Traceback" not in captured.err
    assert any(line.split()[:5] == ["1", "baseline", "0", "-", "-"]
               for line in captured.out.splitlines())
    data = _evaluate_json(capsys, abroad, "--rules", "baseline")
    assert data["ranking"][0]["n"] == 0 and data["ranking"][0]["log_loss"] is None


@pytest.mark.parametrize("damage, words", [
    ("fifo", "is a FIFO (named pipe), not a regular file"),
    ("big field", "record 2: not CSV: field larger than field limit"),
    ("twice", "record 5: player {id} of event {event} given twice: also in record 2"),
])
def test_damaged_truth_file_is_one_line(small, tmp_path, capsys, damage, words):
    truth = tmp_path / "truth.csv"
    lines = (small / "truth.csv").read_text(encoding="utf-8").splitlines()
    event, _, pid = lines[1].split(",")[:3]
    if damage == "fifo":  # refused at once, not waited on
        os.mkfifo(truth)
    elif damage == "big field":
        truth.write_text("\n".join([lines[0], '"' + "x" * 200_000 + '"', *lines[2:]]) + "\n")
    else:
        truth.write_text("\n".join([*lines[:4], lines[1], *lines[4:]]) + "\n")
    err = _one_line(capsys, small, "--rules", "baseline", "--truth", truth)
    assert f"{truth}: " in err and words.format(id=pid, event=event) in err


def test_truth_with_a_bom_or_from_standard_input_reads_as_the_file(small, tmp_path, capsys,
                                                                   monkeypatch):
    plain = small / "truth.csv"
    expected = _evaluate_json(capsys, small, "--rules", "baseline", "--truth", plain)
    assert expected["truth"] is True
    bom = tmp_path / "bom.csv"
    bom.write_bytes(b"\xef\xbb\xbf" + plain.read_bytes())
    assert _evaluate_json(capsys, small, "--rules", "baseline", "--truth", bom) == expected
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(plain.read_bytes())))
    assert _evaluate_json(capsys, small, "--rules", "baseline", "--truth", "-") == expected


def test_a_reform_from_standard_input(small, capsys, monkeypatch):
    """``reform:-`` is standard input, as ``--reform -`` is, read once."""
    from_file = _evaluate_json(capsys, small, "--rules", "baseline", "--rules", f"reform:{B16}")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(B16.read_bytes())))
    from_stdin = _evaluate_json(capsys, small, "--rules", "baseline", "--rules", "reform:-")
    for data in (from_file, from_stdin):
        for row in data["ranking"] + data["versions"]:
            del row["spec"], row["label"]
    assert from_stdin == from_file
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(B16.read_bytes())))
    err = _one_line(capsys, small, "--rules", "reform:-", "--rules", "baseline", "--truth", "-")
    assert "--truth: standard input (-) is already read for another input" in err


def test_plot_dir_follows_the_overwrite_rule(small, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    plots = tmp_path / "plots"
    plots.mkdir()
    (plots / "drift.svg").write_text("mine")
    err = _one_line(capsys, small, "--rules", "baseline", "--plot-dir", plots)
    assert f"{plots}: already holds drift.svg; use --force to replace them" in err
    assert (plots / "drift.svg").read_text() == "mine"
    err = _one_line(capsys, small, "--rules", "baseline", "--plot-dir", "-")
    assert "--plot-dir: plots is several files; it cannot go to standard output" in err
    assert not Path("-").exists()
    assert main(["evaluate", str(small), "--rules", "baseline", "--plot-dir", str(plots),
                 "--force"]) == 0
    wrote = [line for line in capsys.readouterr().err.splitlines() if line.startswith("wrote")]
    assert sorted(wrote) == [f"wrote {plots / name}" for name in
                             ("calibration.png", "calibration.svg", "drift.png", "drift.svg")]
    assert (plots / "drift.svg").read_bytes().startswith(b"<?xml")


def test_progress_bar_over_the_versions(history, capsys):
    """``--progress``: a bar over the versions (shown off a terminal too), the
    line of each version finished above it."""
    folder, _ = history
    assert main(["evaluate", str(folder), "--rules", "baseline", "--rules", f"reform:{B16}",
                 "--progress"]) == 0
    err = capsys.readouterr().err
    assert "evaluate:   0%" in err and "0/2 [" in err and "1/2 [" in err
    assert err.count("uschess: evaluated ") == 2
