"""``uschess audit DIR``: every page under a directory audited, bad pages
refused in one line each without stopping the run, resumable from its
results file, on one process, a local cluster or an existing Dask cluster
(engine/apps/audit_dir.py, engine/commands/audit_dir.py)."""

from __future__ import annotations

import json

import pytest

from uschess.apps.audit_dir import counts_of, pages_under
from uschess.cli import main

from helpers import ROOT

EVENTS = ROOT / "fixtures" / "events"


@pytest.fixture(scope="module")
def pages(tmp_path_factory):
    """Two exported events (36 posts, every one reproduced), an empty page,
    a page that is no crosstable, and a README that is not a page."""
    root = tmp_path_factory.mktemp("pages")
    (root / "club").mkdir()
    for event, out in (("wfcc15.yaml", root / "wfcc15.txt"),
                       ("club-championship.yaml", root / "club" / "championship.txt")):
        assert main(["-q", "export", "crosstable", str(EVENTS / event), "--format", "msa",
                     "-o", str(out)]) == 0
    (root / "club" / "empty.html").write_bytes(b"")
    (root / "notes.txt").write_text("no crosstable here\n", encoding="utf-8")
    (root / "README.md").write_text("# pages\n", encoding="utf-8")
    return root


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _plain(totals: dict) -> dict:
    """The totals other than the verdicts' counts."""
    return {k: n for k, n in totals.items() if not k.startswith("verdicts.")}


def test_pages_under_skips_what_is_not_a_page(pages):
    assert [j.rel for j in pages_under(pages)] == [
        "club/championship.txt", "club/empty.html", "notes.txt", "wfcc15.txt"]


def test_counts_are_every_whole_number_of_a_report():
    report = {"reproduced": 3, "total": 4, "tolerance": 1.0, "strict": True, "source": "x",
              "summary": {"confirmed": 2, "explained": 1, "label": "a"}, "players": [{"total": 9}]}
    assert counts_of(report) == {"reproduced": 3, "total": 4, "summary.confirmed": 2,
                                 "summary.explained": 1}


def test_dir_audits_every_page_and_refuses_bad_ones_in_one_line(pages, tmp_path, capsys):
    index = tmp_path / "index.html"
    code, out, err = run(capsys, "audit", pages, "--workers", 1, "--html", index)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"4 pages under {pages}: 2 audited, 2 refused, 0 failed"
    assert "  reproduced: 36 (100.0% of total)" in lines and "  total: 36" in lines
    assert lines[1] == ("  confirmed + explained: 36 of 36 published ratings (100.0%); "
                        "in sample, with inferred inputs: 36 (100.0%)")
    refused = [ln for ln in lines if ln.startswith("refused: ")]
    assert len(refused) == 2 and any("empty.html" in ln for ln in refused)
    assert any("notes.txt" in ln for ln in refused)
    text = index.read_text(encoding="utf-8")
    assert 'href="index-pages/club__championship.txt.html"' in text and "empty.html" in text
    report = tmp_path / "index-pages" / "wfcc15.txt.html"
    assert "16 of 16 reproduced" in report.read_text(encoding="utf-8")


def test_results_file_resumes_after_a_line_cut_short(pages, tmp_path, capsys):
    results = tmp_path / "r.jsonl"
    code, first, _ = run(capsys, "audit", pages, "--workers", 1, "--results", results, "--json")
    assert code == 0
    lines = results.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["format"] == "uschess-audit-dir-1" and len(lines) == 5
    # a run killed while it wrote the last page's line
    cut = "\n".join(lines[:-1]) + "\n" + lines[-1][:40]
    results.write_text(cut, encoding="utf-8")
    code, again, err = run(capsys, "audit", pages, "--workers", 1, "--results", results, "--json")
    assert code == 0 and "cut short" in err
    data = json.loads(again)
    assert data["resumed"] == 3 and data["pages"] == 4
    assert data["totals"] == json.loads(first)["totals"]
    assert _plain(data["totals"]) == {"reproduced": 36, "total": 36}
    assert data["totals"]["verdicts.confirmed"] == 36  # the exports print every input
    kept = results.read_text(encoding="utf-8").splitlines()
    assert len(kept) == 5 and all(json.loads(ln) for ln in kept)


def test_results_of_other_settings_are_refused(pages, tmp_path, capsys):
    results = tmp_path / "r.jsonl"
    assert run(capsys, "audit", pages, "--workers", 1, "--results", results)[0] == 0
    code, _, err = run(capsys, "audit", pages, "--workers", 1, "--results", results,
                       "--tolerance", 2)
    assert code == 2 and err.count("\n") == 1 and "other settings" in err


def test_damaged_results_file_is_one_line(pages, tmp_path, capsys):
    results = tmp_path / "r.jsonl"
    assert run(capsys, "audit", pages, "--workers", 1, "--results", results)[0] == 0
    lines = results.read_text(encoding="utf-8").splitlines()
    lines[2] = "{not json"
    results.write_text("\n".join(lines) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "audit", pages, "--workers", 1, "--results", results)
    assert code == 2 and err.count("\n") == 1 and "record 3" in err and "damaged" in err


@pytest.mark.parametrize("extra", [["--start", "2024-01-01"], ["--section", "1"], ["--all"]])
def test_options_of_one_page_are_refused_for_a_directory(pages, capsys, extra):
    code, _, err = run(capsys, "audit", pages, *extra)
    assert code == 2 and err.count("\n") == 1 and "not a directory of pages" in err


def test_directory_options_are_refused_for_one_page(pages, capsys):
    code, _, err = run(capsys, "audit", pages / "wfcc15.txt", "--results", "r.jsonl")
    assert code == 2 and err.count("\n") == 1 and "only for a directory" in err


def test_scheduler_of_an_existing_cluster(pages, tmp_path, capsys):
    distributed = pytest.importorskip("dask.distributed")
    # a worker thread in this process behind a scheduler reached over TCP, as
    # a cluster elsewhere is (a worker process more costs seconds to start)
    with distributed.LocalCluster(n_workers=1, threads_per_worker=1, processes=False,
                                  protocol="tcp", dashboard_address=":0") as cluster:
        assert cluster.scheduler_address.startswith("tcp://")
        code, out, err = run(capsys, "audit", pages, "--scheduler", cluster.scheduler_address,
                             "--results", tmp_path / "r.jsonl", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert (data["audited"], data["refused"], data["failed"]) == (2, 2, 0)
    assert _plain(data["totals"]) == {"reproduced": 36, "total": 36}
    assert [r["page"] for r in data["records"]] == [j.rel for j in pages_under(pages)]


def test_read_only_lists_every_page_read_or_refused(pages, capsys):
    code, out, err = run(capsys, "audit", pages, "--read-only", "--workers", 1)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == f"4 pages under {pages}: 0 audited, 2 read, 2 refused, 0 failed"
    assert "  published: 36" in lines
    assert "read: wfcc15.txt: 16 published ratings in 2 sections" in lines
    assert sum(ln.startswith(("read: ", "refused: ")) for ln in lines) == 4


@pytest.mark.parametrize("kept", ["", '{"format": "uschess-au'])
def test_a_results_file_stopped_before_its_first_line_starts_again(pages, tmp_path, capsys,
                                                                   kept):
    results = tmp_path / "r.jsonl"
    results.write_text(kept, encoding="utf-8")
    code, out, _ = run(capsys, "audit", pages, "--workers", 1, "--results", results, "--json")
    assert code == 0 and json.loads(out)["resumed"] == 0
    lines = results.read_text(encoding="utf-8").splitlines()
    assert json.loads(lines[0])["format"] == "uschess-audit-dir-1" and len(lines) == 5


@pytest.mark.slow  # a run of 400 pages started, killed and run again
def test_a_killed_run_resumes_to_the_same_summary(pages, tmp_path):
    import os
    import shutil
    import signal
    import subprocess
    import sys
    import time

    many = tmp_path / "many"
    many.mkdir()
    page = (pages / "wfcc15.txt").read_text(encoding="utf-8")
    for k in range(400):
        (many / f"p{k:03d}.txt").write_text(page, encoding="utf-8")
    results = tmp_path / "r.jsonl"
    argv = [sys.executable, "-m", "uschess", "-q", "audit", str(many), "--workers", "1",
            "--results", str(results), "--json"]
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None and (
                not results.exists() or results.read_bytes().count(b"\n") < 30):
            time.sleep(0.01)
        assert proc.poll() is None, "the run ended before it could be killed"
        os.kill(proc.pid, signal.SIGKILL)
    finally:
        proc.wait()
    kept = results.read_bytes().count(b"\n") - 1
    assert 0 < kept < 400
    again = subprocess.run(argv, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    data = json.loads(again.stdout)
    assert data["pages"] == 400 and data["audited"] == 400 and data["resumed"] >= kept - 1
    assert _plain(data["totals"]) == {"reproduced": 16 * 400, "total": 16 * 400}
    lines = results.read_text(encoding="utf-8").splitlines()
    assert len({json.loads(ln)["page"] for ln in lines[1:]}) == 400
    shutil.rmtree(many)


@pytest.mark.slow  # starts a local cluster of two worker processes
def test_local_cores_give_the_summary_of_one_process(pages, capsys):
    pytest.importorskip("dask.distributed")
    code, out, err = run(capsys, "audit", pages, "--workers", 2, "--json")
    assert code == 0, err
    code, one, err = run(capsys, "audit", pages, "--workers", 1, "--json")
    assert code == 0, err
    strip = [{k: v for k, v in r.items() if k not in ("cpu_seconds", "seconds")}
             for r in json.loads(out)["records"]]
    assert strip == [{k: v for k, v in r.items() if k not in ("cpu_seconds", "seconds")}
                     for r in json.loads(one)["records"]]


def test_a_page_that_breaks_the_audit_is_one_failed_line(pages, capsys, monkeypatch):
    import uschess.apps.audit as audit_app

    real = audit_app.load_published

    def breaks(path, **kw):
        if str(path).endswith("wfcc15.txt"):
            raise RuntimeError("a reader bug")
        return real(path, **kw)

    monkeypatch.setattr(audit_app, "load_published", breaks)
    code, out, _ = run(capsys, "audit", pages, "--workers", 1)
    assert code == 0
    assert out.splitlines()[0] == f"4 pages under {pages}: 1 audited, 2 refused, 1 failed"
    failed, = [ln for ln in out.splitlines() if ln.startswith("failed: ")]
    assert failed.endswith("wfcc15.txt: RuntimeError: a reader bug")


def test_the_index_and_reports_written_under_the_directory_are_not_pages(pages, tmp_path,
                                                                        capsys):
    import shutil
    root = tmp_path / "copy"
    shutil.copytree(pages, root)
    for _ in range(2):
        code, out, _ = run(capsys, "audit", root, "--workers", 1, "--html",
                           root / "index.html", "--force")
        assert code == 0 and out.startswith(f"4 pages under {root}:")
    assert (root / "index-pages" / "wfcc15.txt.html").is_file()


def test_as_rated_refuses_each_page_without_a_rated_date(pages, capsys):
    code, out, _ = run(capsys, "audit", pages, "--workers", 1, "--as-rated")
    assert code == 0
    assert out.splitlines()[0] == f"4 pages under {pages}: 0 audited, 4 refused, 0 failed"
    assert sum("states no Rated date (--as-rated)" in ln for ln in out.splitlines()) == 2
