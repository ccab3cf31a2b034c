"""The docs site builds with warnings as errors (broken internal links and
anchors fail), the reference it holds is generated from the code, and a
newcomer finds the two commonest tasks on its first page."""

from __future__ import annotations

import argparse
import importlib.util
import json
import re
import subprocess
import sys

import pytest
import yaml

from helpers import ROOT

sys.path.insert(0, str(ROOT / "docs" / "tools"))
import docs_reference  # noqa: E402

needs_mkdocs = pytest.mark.skipif(
    importlib.util.find_spec("mkdocs") is None or importlib.util.find_spec("material") is None,
    reason="mkdocs and mkdocs-material are not installed (the 'docs' extra; the 'test' extra includes it)")


@pytest.mark.slow
@needs_mkdocs
def test_the_site_builds_strict(tmp_path):
    site = tmp_path / "site"
    proc = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet",
                           "-f", str(ROOT / "mkdocs.yml"), "-d", str(site)],
                          cwd=ROOT, capture_output=True, text=True, env={**_env(), "NO_MKDOCS_2_WARNING": "1"})
    assert proc.returncode == 0, proc.stdout + proc.stderr
    index = (site / "index.html").read_text(encoding="utf-8")
    first_screen = index[index.index('id="what-do-you-want-to-do"'):][:3000]
    assert "rate my DBF or TRF report" in first_screen and 'href="guides/td/#rate-a-dbf-rating-report-or-a-trf"' in first_screen
    assert "audit this page" in first_screen and 'href="guides/auditor/#audit-a-published-page"' in first_screen
    for page in ("reference/commands", "reference/event-file", "reference/rules", "changelog", "contributing"):
        assert (site / page / "index.html").is_file(), page


def _env():
    import os
    return {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}


def test_the_commands_reference_has_every_command_and_option():
    from uschess.cli import build_parser
    page = docs_reference.commands_page()
    for words, parser in docs_reference._leaves(build_parser(), ("uschess",)):
        assert f"# {' '.join(words)}\n" in page
        for action in parser._actions:
            if action.help != argparse.SUPPRESS and not isinstance(action, argparse._HelpAction):
                for option in action.option_strings:
                    assert f"`{option}" in page, (words, option)


def test_the_event_file_reference_has_every_field_of_the_schema():
    page = docs_reference.event_file_page()
    schema = json.loads((ROOT / "engine" / "event.schema.json").read_text())
    event = schema["properties"]["event"]["properties"]
    player = schema["properties"]["sections"]["items"]["properties"]["players"]["items"]["properties"]
    for name in event:
        assert f"`event.{name}`" in page
    for name in player:
        assert f"`sections[].players[].{name}`" in page
    for name in player["ratings"]["properties"]["OTBR"]["properties"]:
        assert f"`sections[].players[].ratings.SYSTEM.{name}`" in page


def test_the_rules_reference_has_every_timeline_conflict_and_reading():
    from uschess.calendar.rulebook import RuleBook
    page = docs_reference.rules_page()
    book = RuleBook.load()
    for name in [*book.timelines, *book.slots, *book.conflicts]:
        assert f"### {name}\n" in page
    readings = yaml.safe_load((ROOT / "rulesets" / "readings" / "project.yaml").read_text())["readings"]
    for number, reading in readings.items():
        assert f"### Reading {number}: {reading['title']}" in page


def test_every_reading_cited_is_recorded():
    readings = yaml.safe_load((ROOT / "rulesets" / "readings" / "project.yaml").read_text())["readings"]
    cited = set()
    for folder in ("rulesets", "rules", "engine"):
        for path in (ROOT / folder).rglob("*"):
            if path.suffix in (".yaml", ".py", ".pyx") and path.is_file():
                cited |= {int(n) for n in re.findall(r"project reading (\d+)", path.read_text(encoding="utf-8"))}
    assert cited and cited <= set(readings), sorted(cited - set(readings))
    assert sorted(readings) == list(range(1, len(readings) + 1))
    documents = yaml.safe_load((ROOT / "rulesets" / "documents.yaml").read_text())["documents"]
    assert documents["project"]["sections"] == [f"reading {n}" for n in sorted(readings)]


@pytest.mark.parametrize("name", ["README.md", "CONTRIBUTING.md", "CHANGELOG.md", "fixtures/audit/README.md"])
def test_links_outside_the_site_lead_somewhere(name):
    """The pages read on the repository (not built by MkDocs) link to files
    that exist and to headings those files have."""
    page = ROOT / name
    for target in re.findall(r"\]\(([^)\s]+)\)", page.read_text(encoding="utf-8")):
        if re.match(r"[a-z]+:", target):
            continue
        path, _, anchor = target.partition("#")
        linked = (page.parent / path).resolve() if path else page
        assert linked.exists(), f"{name}: {target}"
        if anchor and linked.suffix == ".md":
            headings = re.findall(r"^#+ (.+)$", linked.read_text(encoding="utf-8"), re.M)
            assert anchor in {docs_reference._anchor(h) for h in headings}, f"{name}: {target}"
