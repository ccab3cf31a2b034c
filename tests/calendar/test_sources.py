"""Every value in rulesets/ (parameters, the slot calendar, editions) cites a
source that exists: a registered document, one of its sections, and (where the seed
documents are present beside the project) a file whose text has that section."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import uschess.rules as rule_plugins
from uschess.calendar.rulebook import RuleBook

SEEDS = Path(__file__).resolve().parents[3] / "shared" / "seeds"
BOOK = RuleBook.load()


def all_entries():
    for name, t in BOOK.timelines.items():
        for e in t.entries:
            yield f"{name}@{e.effective}", e
    for slot, t in BOOK.slots.items():
        for e in t.entries:
            yield f"plugin {slot}@{e.effective}", e
    for ed, edition in BOOK.editions.items():
        for name, e in {**edition.parameters, **edition.plugins}.items():
            yield f"edition {ed} {name}", e


@pytest.mark.parametrize("where,entry", list(all_entries()), ids=lambda x: x if isinstance(x, str) else "")
def test_every_value_has_an_existing_source(where, entry):
    doc = BOOK.documents.get(entry.source.doc)
    assert doc is not None, f"{where}: unknown document {entry.source.doc}"
    assert entry.source.section in doc["sections"], f"{where}: no section {entry.source.section}"


def test_plugins_cite_registered_documents():
    for cls in rule_plugins.ALL:
        assert cls.source["doc"] in BOOK.documents, cls.name
        assert cls.source["section"] in BOOK.documents[cls.source["doc"]]["sections"], cls.name


def _heading_present(text: str, section: str) -> bool:
    if section == "intro":
        return True
    if section.startswith("footnote"):
        return "For a time control, write mm" in text
    if section[0].isdigit():
        return re.search(rf"(^|\n)\s*{re.escape(section)}\s+[A-Z]", text) is not None or \
            (section.isdigit() and re.search(rf"(^|\n)\s*{section}\s", text) is not None)
    return section.lower() in text.lower()


@pytest.mark.skipif(not SEEDS.is_dir(), reason="seed documents not beside the project")
def test_cited_sections_exist_in_the_seed_texts():
    for doc_id, doc in BOOK.documents.items():
        if "file" not in doc:
            continue
        text = (SEEDS / doc["file"]).read_text(encoding="utf-8")
        for section in doc["sections"]:
            assert _heading_present(text, section), f"{doc_id}: section {section} not found"


def test_conflicts_have_two_readings_and_a_default():
    for c in BOOK.conflicts.values():
        assert len(c.readings) >= 2 and c.default in c.readings


def test_decided_on_only_where_known():
    retro = [(n, e.effective) for n, t in BOOK.timelines.items() for e in t.entries if e.retroactive]
    assert retro  # the 2025 cut of B is a correction of the past
