"""The verdicts of many pages by era, system and event size
(engine/apps/audit/corpus.py, benchmarks/audit_verdicts.py)."""

from __future__ import annotations

import datetime as dt
import json
import sys

import pytest

from test_audit_infer import _page_file, _published, _swiss

from helpers import ROOT, SHARED_DATA, benchmark_script, msa_text_page
from uschess.apps.audit import audit, audit_page, load_published, published_from_dict
from uschess.apps.audit.corpus import CorpusReport, era, page_summary, size
from uschess.apps.audit.verdict import VERDICTS


@pytest.mark.slow
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


def _summary(page, start, dated):
    return {"page": page, "start": start, "players": 12, "total": 12, "in_sample": 0,
            "systems": {"OLB": dict.fromkeys(VERDICTS, 0) | {"unexplained": 12, "in_sample": 0}},
            "dated": dated, "set_by_hand": []}


def test_knowledge_findings_are_grouped_by_the_decision_and_counted():
    """Pages rated before a retroactive decision are listed under it once,
    with the posts the rules as known then reproduce beyond the rules in
    force; a rule version of another period keeps a line of its own."""
    half_k = "online_half_k True -> False [record], decided 2021-06-23"
    known = {"rule": "known_on", "changed": half_k, "reproduced": 12, "in_force": 0}
    report = CorpusReport()
    report.add(_summary("a.html", "2020-06-10", [known]))
    report.add(_summary("b.html", "2020-07-13", [known | {"reproduced": 10, "in_force": 1}]))
    report.add(_summary("c.html", "2013-05-11", [{"rule": "nstar", "finding": "N* of 2001 reproduces"}]))
    text = report.format()
    assert "dated findings: 3 on 3 pages" in text
    assert (f"  the rules as known on the page's Rated date, before a retroactive decision ({half_k}): "
            "2 pages, 21 posts reproduced beyond the rules in force") in text.replace("\n    ", " ")
    assert "    a.html, b.html\n" in text and "  c.html: N* of 2001 reproduces\n" in text


@pytest.mark.shared_data
def test_the_corpus_script_reports_verdicts_and_dated_findings(capsys):
    """The 2013-05-11 quads of the national record, audited by the
    script: its dated finding listed with the page."""
    folder = SHARED_DATA / "real" / "tourneydata-2001-2014" / "tourneyInfo"
    if not folder.is_dir():
        pytest.skip(f"{folder} is not beside the checkout")
    mod = benchmark_script("audit_verdicts")
    page = folder / "2013" / "05" / "tourneyInfo-201305117852.0"
    summary = mod.one_page(page)
    assert summary["total"] == 28 and summary["dated"][0]["rule"] == "nstar"
    assert audit_page(page).verdict_counts()["confirmed"] == 6


def _verdicts_script():
    return benchmark_script("audit_verdicts")


@pytest.mark.shared_data
def test_a_results_file_resumes_and_refuses_other_sources(tmp_path, capsys):
    """Pages kept in ``--results`` are not audited again and add up to the
    same table; a file written by other sources is refused in one line."""
    mod = _verdicts_script()
    results = tmp_path / "r.jsonl"
    argv = ["national", "--every", "275", "--results", str(results)]
    assert mod.main(argv) == 0
    first = capsys.readouterr().out
    lines = results.read_text().splitlines()
    assert len(lines) == 1 + 3 and "0 kept" in first
    assert all(json.loads(line)["sha256"] for line in lines[1:])
    assert mod.main(argv + ["--markdown", str(tmp_path / "r.md")]) == 0
    again = capsys.readouterr().out
    assert "every one kept" in again
    # after the two lines of timing: the headline, then the table
    headline, table = first.split("\n", 3)[2], first.split("\n", 3)[3]
    assert headline.startswith("national: ") and "confirmed or explained" in headline
    assert again.split("\n", 2)[2] == first.split("\n", 2)[2]
    page = (tmp_path / "r.md").read_text()
    assert f"\n\n{headline}\n\n" in page and f"```text\n{table}```" in page
    header = json.loads(lines[0])
    lines[0] = json.dumps({**header, "sources": "0" * 64})
    results.write_text("\n".join(lines) + "\n")
    with pytest.raises(SystemExit, match="by other sources"):
        mod.main(argv)


STORED = {"national": ROOT / "benchmarks" / "results" / "audit-national",
          "pacl": ROOT / "benchmarks" / "results" / "audit-pacl"}


def _stored(corpus: str) -> tuple[dict, list[dict]]:
    lines = STORED[corpus].with_suffix(".jsonl").read_text().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


@pytest.mark.parametrize("corpus", sorted(STORED))
def test_the_stored_corpus_figures_add_up_from_their_pages(corpus):
    """``benchmarks/results/audit-*.md``, the table the docs quote, is
    what the pages kept beside it in ``.jsonl`` add up to, every page of
    the corpus among them."""
    mod = _verdicts_script()
    header, pages = _stored(corpus)
    assert header["corpus"] == corpus
    report = CorpusReport()
    for page in pages:
        if "refused" in page:
            report.refused(page["page"], page["refused"])
        else:
            report.add(page)
    text = STORED[corpus].with_suffix(".md").read_text()
    assert report.format() in text
    assert f"\n\n{mod.headline(corpus, report)}\n\n" in text
    expected = {"national": 825, "pacl": 1469}[corpus]
    assert len({p["page"] for p in pages}) == len(pages) == expected


#: The sample of stored pages audited again: every SAMPLE_EVERY-th page whose
#: stored audit took at most SAMPLE_SECONDS of CPU, and the largest page
#: under LARGE_SECONDS (a bound on the slow run's time).
SAMPLE_EVERY, SAMPLE_SECONDS, LARGE_SECONDS = 20, 20.0, 60.0


@pytest.mark.slow
@pytest.mark.shared_data
@pytest.mark.parametrize("corpus", sorted(STORED))
def test_the_stored_pages_audit_the_same_today(corpus):
    """A sample of the stored pages, audited again, gives the summaries
    stored: the corpus figures are the current engine's (a change that
    moves a verdict fails here, and the corpus is run again with the
    command its page names)."""
    mod = _verdicts_script()
    folder, pattern = mod.CORPORA[corpus]
    files = {f.name: f for f in folder.glob(pattern)}
    _, pages = _stored(corpus)
    sample = [p for p in pages[::SAMPLE_EVERY] if p.get("cpu_seconds", 0) <= SAMPLE_SECONDS]
    sample.append(max((p for p in pages if p.get("cpu_seconds", 0) <= LARGE_SECONDS),
                      key=lambda p: p["cpu_seconds"]))
    assert len(sample) > 40
    for stored in sample:
        name = stored["page"]
        f = files[name]
        assert mod.page_digest(f) == stored["sha256"], name
        again = json.loads(json.dumps(mod.one_page(f)))
        again.pop("cpu_seconds", None)
        stored = {k: v for k, v in stored.items() if k not in ("cpu_seconds", "sha256")}
        assert again == stored, name


@pytest.mark.slow
@pytest.mark.shared_data
def test_audit_pages_times_two_engines_and_compares_their_reports(tmp_path, capsys):
    """``benchmarks/audit_pages.py`` audits a page named by its file name in
    a child process per engine, prints its CPU seconds and whether the
    engines' JSON reports are the same, and keeps the reports."""
    mod = benchmark_script("audit_pages")
    name = "XtblMain_200101050440_1.html"
    assert mod.main([name, "--engine", sys.executable, "--engine", sys.executable,
                     "--json-dir", str(tmp_path)]) == 0
    line = capsys.readouterr().out.splitlines()[-1].split()
    assert line[0] == name and line[1] == "6" and line[-1] == "yes"
    kept = sorted(tmp_path.glob(f"*/{name}.json"))
    assert len(kept) == 2 and json.loads(kept[0].read_text())["total"] == 6
    with pytest.raises(SystemExit, match="no such page"):
        mod.main(["XtblMain_000000000000_1.html"])


@pytest.mark.parametrize("args, said", [
    (["--engine", "/nonexistent/python"], "--engine /nonexistent/python: not an interpreter"),
    (["--json-dir", "/proc/no-such-folder"], "--json-dir /proc/no-such-folder:"),
])
def test_audit_pages_refuses_a_bad_engine_or_folder_in_one_line(args, said, capsys):
    mod = benchmark_script("audit_pages")
    page = str(ROOT / "fixtures" / "audit" / "tournamentinfo-b14.json")
    with pytest.raises(SystemExit) as stopped:
        mod.main([page, *args])
    assert stopped.value.code == 2
    err = capsys.readouterr().err
    assert said in err and "Traceback" not in err
