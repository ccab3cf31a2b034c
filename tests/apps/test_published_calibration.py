"""The published ratings scored on real pages (``uschess evaluate --published``:
engine/apps/published_games.py, engine/apps/calibration.py)."""

from __future__ import annotations

import datetime as dt
import json
import math
import random
from pathlib import Path

import pytest

from helpers import SHARED_DATA
from uschess.apps.calibration import (FOLDS, clustered_mean, compare_models, era_of,
                                      fit_logistic, fold_of, score_published)
from uschess.apps.published_games import PageGame, page_files, page_records, read_pages
from uschess.cli import main
from uschess.formulas import we

REAL = SHARED_DATA / "real"
WAUKESHA = REAL / "waukesha-2022-late-spring" / "LateSpring-USCF.txt"
WFCC = REAL / "wfcc-15-2025" / "XtblMain-202503213862.html"
PACL = REAL / "pacl-2001-2021" / "sections"


def game(event, d, score, *, status="established", status_i="established", r=1500.0,
         special=False, special_i=False):
    return PageGame(event, "S", dt.date(2015, 1, 1), "OTBR", "swiss", r + d, r, status,
                    status_i, special, special_i, score)


def test_clustered_mean_is_the_ratio_and_its_cluster_interval():
    rows = [(3.0, 4), (1.0, 4), (2.0, 2)]
    est = clustered_mean(rows)
    m = 6.0 / 10.0
    var = 3 / 2 * sum((x - m * n) ** 2 for x, n in rows) / 100.0
    assert est.n == 10 and est.mean == pytest.approx(m)
    assert est.high - m == pytest.approx(1.959963984540054 * math.sqrt(var))
    assert m - est.low == pytest.approx(est.high - m)
    one = clustered_mean([(2.0, 5)])
    assert one.mean == 0.4 and one.low is None and one.high is None
    assert clustered_mean([]).mean is None


def test_era_is_the_edition_in_force():
    eds = [dt.date(2001, 2, 22), dt.date(2017, 4, 24), dt.date(2020, 6, 11)]
    assert era_of(dt.date(2001, 1, 5), eds) == "before 2001-02-22"
    assert era_of(dt.date(2001, 2, 22), eds) == "from 2001-02-22"
    assert era_of(dt.date(2019, 1, 1), eds) == "from 2017-04-24"
    assert era_of(dt.date(2024, 1, 1), eds) == "from 2020-06-11"


def _drawn(rng, scale, n, offset=0.0, provisional_share=0.0):
    out = []
    for k in range(n):
        d = rng.uniform(-700, 700)
        pa = rng.random() < provisional_share
        pb = rng.random() < provisional_share
        e = 1.0 / (1.0 + 10.0 ** (-(d + offset * (pa - pb)) / scale))
        x = rng.random()
        s = 1.0 if x < e - 0.05 else 0.5 if x < e + 0.05 else 0.0
        s = min(1.0, max(0.0, s))
        out.append(game(f"E{k % 300}", d, s, status="provisional" if pa else "established",
                        status_i="provisional" if pb else "established"))
    return out


@pytest.mark.slow
def test_fitted_logistic_recovers_the_scale_and_the_offset_it_was_drawn_from():
    rng = random.Random(5)
    games = _drawn(rng, 650.0, 20000)
    assert fit_logistic(games, offset=False).scale == pytest.approx(650.0, rel=0.05)
    games = _drawn(rng, 500.0, 30000, offset=120.0, provisional_share=0.4)
    fitted = fit_logistic(games, offset=True)
    assert fitted.scale == pytest.approx(500.0, rel=0.05)
    assert fitted.offset == pytest.approx(120.0, abs=25.0)


@pytest.mark.slow
def test_models_out_of_sample_beat_we_only_where_the_scale_is_not_400():
    rng = random.Random(8)
    at_400 = compare_models(_drawn(rng, 400.0, 4000))
    rows = {r["model"]: r for r in at_400["out_of_sample"]}
    diff = rows["logistic"]["log_loss_vs_we"]
    assert diff["low"] < 0 < diff["high"] or abs(diff["mean"]) < 2e-3
    wide = compare_models(_drawn(rng, 700.0, 4000))
    rows = {r["model"]: r for r in wide["out_of_sample"]}
    assert rows["logistic"]["log_loss_vs_we"]["high"] < 0
    assert wide["in_sample"]["logistic"]["scale"] == pytest.approx(700.0, rel=0.08)
    assert {fold_of(f"E{k}") for k in range(300)} == set(range(FOLDS))


def test_pwe_is_used_for_a_player_the_special_formula_rated():
    g = game("E1", 500.0, 1.0, special=True)
    score = score_published([g, game("E2", -100.0, 0.5)], [dt.date(2001, 2, 22)], pages=2)
    rows = {r["model"]: r for r in score.models["out_of_sample"]}
    # PWe(R, R - 500) is 1: a win costs nothing on the special player's side
    we_loss = -math.log(we(2000.0, 1500.0))
    assert rows["we"]["log_loss"]["mean"] == pytest.approx(
        (we_loss + -(0.5 * math.log(we(1400.0, 1500.0)) + 0.5 * math.log(we(1500.0, 1400.0)))) / 2)
    assert rows["we_pwe"]["log_loss"]["mean"] < rows["we"]["log_loss"]["mean"]


def test_groups_hold_each_game_from_the_favourites_side():
    games = [game("E1", 200.0, 1.0), game("E1", -200.0, 1.0), game("E2", 0.0, 0.5)]
    score = score_published(games, [dt.date(2001, 2, 22)], pages=2)
    overall = score.tables["overall"]["all"]
    assert overall["n"] == 3
    assert overall["expected"] == pytest.approx((2 * we(1700.0, 1500.0) + 0.5) / 3)
    assert overall["observed"]["mean"] == pytest.approx(1.5 / 3)
    assert overall["draws"]["mean"] == pytest.approx(1 / 3)
    assert sum(c["n"] for c in score.calibration) == 6  # both sides


@pytest.mark.shared_data
def test_a_page_gives_its_games_with_the_printed_ratings():
    rec = page_records(str(WAUKESHA))
    assert rec.event == str(WAUKESHA)  # the text page prints no event id
    by_section = {}
    for g in rec.games:
        by_section.setdefault(g.section, []).append(g)
    assert set(by_section) == {"OPEN", "RESERVE"}
    shapes = {s.section: s for s in rec.shapes}
    assert shapes["OPEN"].players == 23 and shapes["RESERVE"].players == 11
    assert shapes["OPEN"].rounds == 4
    assert all(len(by_section[s]) == shapes[s].games for s in shapes)
    # the player new in OPEN is unrated there (scored at his initial rating)
    # and provisional in RESERVE, from OPEN's post (1878P1)
    firsts = [c for c in rec.changes if c.status == "unrated"]
    assert any(c.post == 1878 and c.games == 1 for c in firsts)
    assert all(g.r == round(g.r) for g in rec.games if g.status != "unrated")


@pytest.mark.slow
@pytest.mark.shared_data
def test_evaluate_published_on_real_pages(tmp_path, capsys):
    assert main(["evaluate", "--published", str(WAUKESHA), str(WFCC), "--workers", "1",
                 "--json", "--plot-dir", str(tmp_path / "plots")]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["pages"] == 2 and data["skipped"] == []
    systems = set(data["tables"]["system"])
    assert systems == {"OTBR", "OTBQ"}
    assert 0 < data["tables"]["overall"]["all"]["log_loss"]["mean"] < 1
    assert [r["model"] for r in data["models"]["out_of_sample"]] == \
        ["we", "we_pwe", "logistic", "logistic_provisional"]
    assert sorted(p.name for p in (tmp_path / "plots").iterdir()) == \
        ["calibration.png", "calibration.svg"]
    assert main(["evaluate", "--published", str(WAUKESHA), "--workers", "1"]) == 0
    text = capsys.readouterr().out
    assert "calibration by rating difference" in text and "predictions compared" in text


@pytest.mark.shared_data
def test_pages_read_in_processes_as_in_one():
    files = page_files([str(PACL)])[::97]
    one = read_pages(files, workers=1)
    two = read_pages(files, workers=2)
    assert [o.records.games for o in one] == [o.records.games for o in two]


def test_published_refuses_what_it_does_not_use(tmp_path, capsys):
    page = tmp_path / "notes.txt"
    page.write_text("nothing here\n")
    assert main(["evaluate", "--published", str(page), "--rules", "baseline"]) == 2
    assert "--rules is not used with --published" in capsys.readouterr().err
    assert main(["evaluate", "--published", str(page), "--workers", "0"]) == 2
    assert "--workers" in capsys.readouterr().err
    assert main(["evaluate", "--published", str(page), "--workers", "1"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith("uschess: error:") and "no rated game" in err[-1]
    assert main(["evaluate", str(page), "--workers", "2", "--rules", "baseline"]) == 2
    assert "give it with --published" in capsys.readouterr().err
    assert main(["evaluate", str(tmp_path / "missing")]) == 2
    assert "--rules" in capsys.readouterr().err


DOC = Path(__file__).resolve().parents[2] / "docs" / "findings-calibration.md"


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.parametrize("corpus", ["pacl-2001-2021", "tourneydata-2001-2014"])
def test_the_findings_page_shows_what_its_command_prints(corpus, capsys):
    """docs/findings-calibration.md: its commands run, and the headline
    figures it prints are theirs."""
    assert main(["evaluate", "--published", str(REAL / corpus), "--json", "-q"]) == 0
    data = json.loads(capsys.readouterr().out)
    text = DOC.read_text()
    assert f"uschess evaluate --published ../shared/data/real/{corpus}" in text
    overall = data["tables"]["overall"]["all"]
    models = {r["model"]: r for r in data["models"]["out_of_sample"]}
    shown = [f"{overall['n']:,}", f"{overall['log_loss']['mean']:.4f}",
             f"[{overall['log_loss']['low']:.4f}, {overall['log_loss']['high']:.4f}]",
             f"{models['logistic']['log_loss']['mean']:.4f}",
             f"{models['logistic']['log_loss_vs_we']['mean']:+.4f}",
             f"{data['models']['in_sample']['logistic']['scale']:.0f}"]
    for figure in shown:
        assert figure in text, figure


@pytest.mark.slow
@pytest.mark.shared_data
def test_pages_read_on_a_dask_cluster_as_here():
    import logging
    from dask.distributed import LocalCluster
    files = page_files([str(PACL)])[::150]
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    try:
        there = read_pages(files, scheduler=cluster.scheduler_address)
    finally:
        cluster.close()
    here = read_pages(files, workers=1)
    assert [o.records.games for o in there] == [o.records.games for o in here]


@pytest.mark.shared_data
def test_a_page_that_cannot_be_read_is_named_and_left_out(tmp_path, capsys):
    (tmp_path / "junk.html").write_bytes(b"\x00\x01 not a page")
    (tmp_path / "MANIFEST.tsv").write_text("a\tb\n")  # a corpus's manifest is no page
    assert main(["evaluate", "--published", str(tmp_path), str(WAUKESHA), "--workers", "1",
                 "--json", "--progress"]) == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["pages"] == 2 and len(data["skipped"]) == 1
    assert data["skipped"][0].startswith(str(tmp_path / "junk.html"))
    assert "1 of 2 pages cannot be read or rated" in captured.err
    assert "page" in captured.err and "evaluate" in captured.err  # the progress bar
