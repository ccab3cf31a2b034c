"""Every shell example of the README and the docs runs, and prints what the
page shows (the convention: docs/tools/docs_examples.py).  A changed figure or a
broken example fails here; ``python docs/tools/docs_examples.py --update``
rewrites the pages from a run when the change is meant."""

from __future__ import annotations

import os
import re
import sys
import time

import pytest

from helpers import ROOT, SHARED_DATA

sys.path.insert(0, str(ROOT / "docs" / "tools"))
import docs_examples  # noqa: E402

FULL = os.environ.get("USCHESS_HYPOTHESIS") == "ci"
#: Pages whose examples take seconds of CPU (a history compared with plots,
#: real pages audited one after another): they run with the slow tests.
LONG_PAGES = {"docs/guides/analyst.md", "docs/guides/auditor.md"}
PAGES = [pytest.param(path, marks=pytest.mark.slow) if path.relative_to(ROOT).as_posix() in LONG_PAGES else path
         for path in docs_examples.pages(ROOT)]


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_page_examples_print_what_the_page_shows(path, tmp_path):
    page = docs_examples.parse(path)
    outcome = docs_examples.run_page(page, tmp_path, shared=SHARED_DATA if SHARED_DATA.is_dir() else None,
                                     full=FULL)
    assert not outcome.failures, "\n\n".join(outcome.failures)
    if outcome.ran == 0 and outcome.skipped and any("skip" not in b.flags for b in page.blocks):
        pytest.skip("; ".join(outcome.skipped))


def test_the_readme_is_short():
    assert len((ROOT / "README.md").read_text(encoding="utf-8").splitlines()) <= 250


def test_ci_runs_the_readme_test_command():
    """.ci/run installs the project as the README's test command does (with
    pip's quiet flags) and ends by running the suite (with the full
    hypothesis profile)."""
    readme = docs_examples.parse(ROOT / "README.md")
    commands = [c.text for b in readme.blocks for c in b.commands]
    assert "pip install -e '.[test]' && python -m pytest" in commands
    ci = [line for line in (ROOT / ".ci" / "run").read_text().splitlines() if line and not line.startswith("#")]
    installs = [re.sub(r"--\S+ ", "", line.replace("python -m pip", "pip")) for line in ci]
    assert "pip install -e '.[test]'" in installs
    assert ci[-1] == "USCHESS_HYPOTHESIS=ci python -m pytest"


def _page(tmp_path, text) -> docs_examples.Page:
    path = tmp_path / "page.md"
    path.write_text(text, encoding="utf-8")
    return docs_examples.parse(path)


def _run(tmp_path, page):
    work = tmp_path / "work"
    return docs_examples.run_page(page, work, shared=None, full=False)


def test_a_changed_figure_fails_and_update_writes_the_new_one(tmp_path):
    page = _page(tmp_path, "```console\n$ uschess rules diff 2023-01-31 2023-02-01\n"
                           "parameter bonus_multiplier: 14 -> 10  [000 sec. 8]\n```\n")
    outcome = _run(tmp_path, page)
    assert outcome.ran == 1 and len(outcome.failures) == 1
    assert "-parameter bonus_multiplier: 14 -> 10" in outcome.failures[0]
    assert "+parameter bonus_multiplier: 14 -> 12" in outcome.failures[0]
    assert docs_examples.update(page, outcome)
    again = docs_examples.parse(page.path)
    assert not _run(tmp_path / "2", again).failures
    assert "14 -> 12" in page.path.read_text()


def test_wildcards_and_files_and_status(tmp_path):
    page = _page(tmp_path, "<!-- example: file a.txt -->\n```text\none\ntwo\nthree\n```\n\n"
                           "```console\n$ cat a.txt\none\n...\n$ echo took 3.2 s\ntook ... s\n```\n\n"
                           "```console\n$ false\n```\n")
    outcome = _run(tmp_path, page)
    assert outcome.ran == 3
    assert len(outcome.failures) == 1 and "`false` exited with status 1" in outcome.failures[0]


def test_blocks_not_run_say_why(tmp_path):
    page = _page(tmp_path, "<!-- example: slow -->\n```console\n$ false\n```\n"
                           "<!-- example: shared-data -->\n```console\n$ false\n```\n"
                           "<!-- example: skip starts a server, of course -->\n```console\n$ false\n```\n")
    outcome = _run(tmp_path, page)
    assert outcome.ran == 0 and not outcome.failures
    assert [s.split(": ", 1)[1] for s in outcome.skipped] == [
        "slow: runs with USCHESS_HYPOTHESIS=ci (.ci/run)",
        f"needs the real pages ({SHARED_DATA} is not beside the checkout)",
        "starts a server, of course"]


@pytest.mark.parametrize("text, message", [
    ("```sh\nuschess rate x\n```\n", "must be a 'console' block"),
    ("```console\nuschess rate x\n```\n", "output before any '$ ' command"),
    ("<!-- example: fast -->\n```console\n$ true\n```\n", "unknown example directive 'fast'"),
    ("<!-- example: skip -->\n```console\n$ true\n```\n", "needs a reason"),
    ("```console\n$ true\n", "never closed"),
])
def test_a_page_that_breaks_the_convention_is_refused(tmp_path, text, message):
    with pytest.raises(docs_examples.PageError, match=re.escape(message)):
        _page(tmp_path, text)


def test_what_a_page_leaves_running_is_stopped(tmp_path):
    page = _page(tmp_path, "```console\n$ sleep 300 > /dev/null 2>&1 & echo $! > pid\n```\n")
    outcome = _run(tmp_path, page)
    assert outcome.ran == 1 and not outcome.failures
    pid = int((tmp_path / "work" / "project" / "pid").read_text())
    for _ in range(50):
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return
        time.sleep(0.1)
    pytest.fail(f"process {pid} still runs")


TIMING = re.compile(r"\bin [0-9][0-9.]* ?m?s\b|\([0-9][0-9,.]*/s\)|\([0-9][0-9.]* ?m?s\)|[0-9][0-9,.]* requests/s")


@pytest.mark.parametrize("path", docs_examples.pages(ROOT), ids=lambda p: p.relative_to(ROOT).as_posix())
def test_timings_are_not_shown_as_figures(path):
    """A time or a rate differs from run to run: a page shows it as '...'."""
    shown = [line for block in docs_examples.parse(path).blocks for cmd in block.commands
             for line in cmd.expected if TIMING.search(line)]
    assert not shown, shown
