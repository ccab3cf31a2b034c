"""``benchmarks/pacl_audit.py --pages FILE``: the audit of the pages a list
names, with each page's count of misses left with no cause."""

from __future__ import annotations

import json

import pytest

from helpers import SHARED_DATA, benchmark_script

PAGES = SHARED_DATA / "real" / "pacl-2001-2021" / "sections"
PAGE = "XtblMain_200106249860_1.html"  # one miss with no cause (Troyan, 1998)


def _bench():
    return benchmark_script("pacl_audit")


@pytest.mark.shared_data
@pytest.mark.skipif(not PAGES.is_dir(), reason="the PACL pages are not beside the checkout")
def test_pages_list_audits_only_those_pages_and_counts_misses_with_no_cause(tmp_path, capsys):
    listing = tmp_path / "pages.txt"
    listing.write_text(f"# count page\n1 {PAGE}\n")
    out_json = tmp_path / "misses.json"
    assert _bench().main(["--pages", str(listing), "--json", str(out_json)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("1 pages audited")
    lines = out.splitlines()
    at = next(i for i, line in enumerate(lines) if line.strip().startswith(PAGE))
    row = lines[at].split()
    total, inferred, none = map(int, row[1:])
    misses = json.loads(out_json.read_text())
    assert {m["page"] for m in misses} == {PAGE}
    assert total > inferred >= total - len(misses)
    # the no-cause column counts the misses the JSON leaves without a cause
    unexplained = [m for m in misses if not m["reproduced_inferred"]
                   and m["cause"] in ("unexplained", "initialization")]
    assert none >= 1 and none <= len(unexplained)
    assert lines[at + 1].split() == ["all"] + row[1:]  # the sum over the list


@pytest.mark.shared_data
@pytest.mark.skipif(not PAGES.is_dir(), reason="the PACL pages are not beside the checkout")
def test_pages_list_naming_a_page_not_in_the_corpus_is_refused(tmp_path, capsys):
    listing = tmp_path / "pages.txt"
    listing.write_text("XtblMain_000000000000_1.html\n")
    assert _bench().main(["--pages", str(listing)]) == 2
    assert "not in the corpus: XtblMain_000000000000_1.html" in capsys.readouterr().err
