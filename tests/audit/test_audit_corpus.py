"""The verdicts of many pages by era, system and event size
(engine/apps/audit/corpus.py, benchmarks/audit_verdicts.py)."""

from __future__ import annotations

import datetime as dt
import importlib.util
import json

import pytest

from test_audit_infer import _page_file, _published, _swiss

from helpers import ROOT, SHARED_DATA, msa_text_page
from uschess.apps.audit import audit, audit_page, load_published, published_from_dict
from uschess.apps.audit.corpus import CorpusReport, era, page_summary, size
from uschess.apps.audit.verdict import VERDICTS


def test_pages_add_up_by_era_system_and_size(tmp_path):
    """Two constructed pages: the report's cells add up to the verdicts
    of every row, the headline is confirmed + explained, and the in-sample
    column counts the rows reproduced with the inferred inputs."""
    report, rows, in_sample = CorpusReport(), [], 0
    for k, (start, seed) in enumerate((("2015-05-02", 3), ("2021-03-06", 11))):
        raw = _swiss(8, 12, 4, seed, start)
        published, _ = _published(raw)
        (tmp_path / str(k)).mkdir()
        path = _page_file(tmp_path / str(k), raw, published)
        a = audit(published_from_dict(json.loads(path.read_text()), source=str(path)))
        summary = page_summary(a, f"page{k}")
        assert summary["systems"]["OTBR"]["in_sample"] == a.reproduced_inferred
        report.add(summary)
        rows.extend(a.rows)
        in_sample += a.reproduced_inferred
    cell = report.cells[("all", "all", "all")]
    for v in VERDICTS:
        assert cell[v] == sum(r.verdict.verdict == v for r in rows)
    assert cell["total"] == len(rows) and cell["in_sample"] == in_sample
    assert report.cells[(era(dt.date(2015, 5, 2)), "OTBR", size(20))]["total"] == 20
    text = report.format()
    head = 100 * (cell["confirmed"] + cell["explained"]) / cell["total"]
    assert text.splitlines()[-1].startswith("all") and f"{head:.1f}%" in text.splitlines()[-1]


def test_a_provisional_count_that_did_not_grow_is_set_by_hand(tmp_path):
    """``P10`` before and ``P10`` after four rated games: no rule gives it;
    the page's summary lists it with the counts."""
    players = []
    for pair, (pid, rating, cells, total) in enumerate(
            (("12000001", "1500P10 ->1540P10", ["W   2", "W   3", "D   4", "W   2"], "3.5"),
             ("12000002", "1600     ->1580", ["L   1", "D   4", "W   3", "L   1"], "1.5"),
             ("12000003", "1450     ->1440", ["W   4", "L   1", "L   2", "D   4"], "1.5"),
             ("12000004", "1550     ->1545", ["L   3", "D   2", "D   1", "D   3"], "1.5")), 1):
        players.append({"pair": pair, "name": f"P{pair}", "id": pid, "total": total,
                        "cells": cells, "lines": [f"R: {rating}"]})
    page = tmp_path / "page.txt"
    page.write_text(msa_text_page(players, start="2019-05-04"))
    summary = page_summary(audit(load_published(page)), "page.txt")
    assert [(s["id"], s["before"], s["after"], s["games"]) for s in summary["set_by_hand"]] \
        == [("12000001", 10, 10, 4)]
    report = CorpusReport()
    report.add(summary)
    assert "page.txt: P1 (12000001), OTBR, P10 before and P10 after 4 rated games" \
        in report.format()


@pytest.mark.shared_data
def test_the_corpus_script_reports_verdicts_and_dated_findings(capsys):
    """The 2013-05-11 quads of the national record, audited by the
    script: its dated finding listed with the page."""
    folder = SHARED_DATA / "real" / "tourneydata-2001-2014" / "tourneyInfo"
    if not folder.is_dir():
        pytest.skip(f"{folder} is not beside the checkout")
    spec = importlib.util.spec_from_file_location("audit_verdicts",
                                                  ROOT / "benchmarks" / "audit_verdicts.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    page = folder / "2013" / "05" / "tourneyInfo-201305117852.0"
    summary = mod.one_page(page)
    assert summary["total"] == 28 and summary["dated"][0]["rule"] == "nstar"
    assert audit_page(page).verdict_counts()["confirmed"] == 6
