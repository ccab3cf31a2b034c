"""The compiled rule book (``uschess.calendar.cache``): ``RuleBook.load``
reads the rule files once and keeps what it built in the user's cache; the
cache is used only while nothing it came from has changed, a damaged or
unwritable cache is passed over silently, and a book from the cache rates
exactly as one built from the YAML."""

from __future__ import annotations

import datetime as dt
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from helpers import ROOT
from uschess.calendar import cache as book_cache
from uschess.calendar import rulebook
from uschess.calendar.rulebook import RuleBook
from uschess.io.eventfile import load_event
from uschess.rating.pipeline import RatingOptions, rate_event

RULESETS = Path(rulebook._rulesets_dir())
EVENTS = [ROOT / "fixtures" / "events" / "wfcc15.yaml", ROOT / "fixtures" / "events" / "club-championship.yaml"]
#: dates across every edition of the rules
DATES = [dt.date(2001, 1, 1), dt.date(2004, 6, 30), dt.date(2008, 1, 1), dt.date(2013, 5, 8),
         dt.date(2017, 4, 24), dt.date(2020, 6, 11), dt.date(2020, 9, 2), dt.date(2025, 3, 21),
         dt.date(2025, 7, 26), dt.date(2026, 11, 1)]


@pytest.fixture
def cache_dir(tmp_path, monkeypatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(book_cache.CACHE_ENV, str(folder))
    return folder


@pytest.fixture
def rulesets(tmp_path) -> Path:
    """A copy of the project's rule files that a test may edit."""
    copy = tmp_path / "rulesets"
    shutil.copytree(RULESETS, copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


def no_build(monkeypatch):
    """From here on, building the book from the YAML fails the test."""
    def refuse(*args, **kwargs):
        raise AssertionError("the rule book was built from the YAML, not read from the cache")
    monkeypatch.setattr(RuleBook, "build", classmethod(refuse))


def posts(book: RuleBook, path: Path) -> dict:
    result = rate_event(load_event(path), RatingOptions(), book)
    return {(s.section.name, s.system, p.id): (p.post, p.record_after, p.warnings, p.floor_reason)
            for s in result.sections for p in s.players}


def test_the_first_load_writes_the_cache_and_the_next_reads_it(cache_dir, rulesets, monkeypatch):
    built = RuleBook.load_compiled(rulesets)
    files = list(cache_dir.glob("rulebook-*.pickle"))
    assert len(files) == 1 and files[0].stat().st_size > 0
    no_build(monkeypatch)
    cached = RuleBook.load_compiled(rulesets)
    assert cached is not built
    for on in DATES:
        assert cached.rules(on).as_dict() == built.rules(on).as_dict()


def test_a_book_from_the_cache_rates_exactly_as_one_from_the_yaml(cache_dir, monkeypatch):
    RuleBook.load_compiled()  # writes the cache
    no_build(monkeypatch)
    cached = RuleBook.load_compiled()
    monkeypatch.undo()
    fresh = RuleBook.build()
    assert cached.timelines == fresh.timelines and cached.slots == fresh.slots
    assert cached.editions == fresh.editions and cached.documents == fresh.documents
    assert cached.conflicts == fresh.conflicts and list(cached.registered) == list(fresh.registered)
    for on in DATES:
        for edition in [None, *fresh.editions]:
            a, b = cached.rules(on, edition=edition), fresh.rules(on, edition=edition)
            assert a.as_dict() == b.as_dict() and a.fingerprint == b.fingerprint
    for path in EVENTS:
        assert posts(cached, path) == posts(fresh, path)  # floats compared exactly


def test_a_book_from_the_cache_registers_no_plugins_until_a_manager_is_asked_for(
        cache_dir, monkeypatch):
    """Without rule packs the cached book calls the built-in plugins with no
    plugin manager (no registration at start-up); asked for one, it gets a
    manager holding the very objects it calls."""
    RuleBook.load_compiled()  # writes the cache
    no_build(monkeypatch)
    monkeypatch.setattr(rulebook.pluggy, "PluginManager", lambda *a, **k: pytest.fail(
        "a plugin manager was built while loading the rule book from its cache"))
    cached = RuleBook.load_compiled()
    rules = cached.rules(dt.date(2025, 3, 21))
    assert rules.call.uschess_store_rating(pre=1500.0, value=1510.4, p=rules.p) == 1510.4
    for slot, res in rules.plugins.items():
        fn = getattr(rules.call, cached.slot_hooks[slot])
        assert fn.__self__ is cached.registered[res.value]
    monkeypatch.undo()
    assert all(cached.manager.get_plugin(name) is plugin
               for name, plugin in cached.registered.items())
    assert not cached.from_entry_points


def test_the_cache_is_rebuilt_when_a_rule_file_changes(cache_dir, rulesets, monkeypatch):
    on = dt.date(2025, 3, 21)
    assert RuleBook.load_compiled(rulesets).rules(on).p.bonus_multiplier == 10
    bonus = rulesets / "bonus.yaml"
    text = bonus.read_text(encoding="utf-8")
    old = '2025-01-01:\n      value: 10\n'
    assert old in text
    bonus.write_text(text.replace(old, old.replace("10", "11")), encoding="utf-8")
    assert RuleBook.load_compiled(rulesets).rules(on).p.bonus_multiplier == 11
    no_build(monkeypatch)  # and the rebuilt book was cached in turn
    assert RuleBook.load_compiled(rulesets).rules(on).p.bonus_multiplier == 11


def test_the_cache_is_rebuilt_when_an_edition_file_is_added(cache_dir, rulesets):
    before = RuleBook.load_compiled(rulesets)
    src = sorted((rulesets / "editions").glob("*.yaml"))[-1]
    raw = src.read_text(encoding="utf-8")
    (rulesets / "editions" / "2026-01-01.yaml").write_text(
        raw.replace(f"edition: {src.stem}", "edition: 2026-01-01"), encoding="utf-8")
    after = RuleBook.load_compiled(rulesets)
    assert "2026-01-01" in after.editions and "2026-01-01" not in before.editions


def test_the_cache_is_rebuilt_for_another_version(cache_dir, rulesets, monkeypatch):
    RuleBook.load_compiled(rulesets)
    real = book_cache._distributions
    monkeypatch.setattr(book_cache, "_distributions", lambda: ("99.0", real()[1]))
    calls = []
    build = RuleBook.build.__func__
    monkeypatch.setattr(RuleBook, "build", classmethod(lambda cls, *a, **k: calls.append(1) or build(cls, *a, **k)))
    RuleBook.load_compiled(rulesets)
    assert calls == [1]
    RuleBook.load_compiled(rulesets)  # cached for that version now
    assert calls == [1]


def test_a_corrupt_cache_is_ignored_and_rewritten(cache_dir, rulesets, monkeypatch):
    good = RuleBook.load_compiled(rulesets)
    (path,) = cache_dir.glob("rulebook-*.pickle")
    for junk in (b"", b"not a pickle at all", path.read_bytes()[: path.stat().st_size // 2]):
        path.write_bytes(junk)
        book = RuleBook.load_compiled(rulesets)
        assert book.rules(DATES[-1]).as_dict() == good.rules(DATES[-1]).as_dict()
        assert path.stat().st_size > len(junk)  # written again, whole
    no_build(monkeypatch)
    RuleBook.load_compiled(rulesets)


def test_an_unwritable_cache_folder_loads_from_the_yaml(tmp_path, rulesets, monkeypatch):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv(book_cache.CACHE_ENV, str(blocker / "cache"))
    book = RuleBook.load_compiled(rulesets)
    assert book.rules(DATES[-1]).p.absolute_floor == 100


def test_an_empty_cache_variable_turns_the_cache_off(tmp_path, monkeypatch):
    monkeypatch.setenv(book_cache.CACHE_ENV, "")
    assert book_cache.cache_dir() is None and book_cache.cache_file(RULESETS) is None
    monkeypatch.delenv(book_cache.CACHE_ENV)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    assert book_cache.cache_dir() == tmp_path / "xdg" / "uschess"
    monkeypatch.delenv("XDG_CACHE_HOME")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    assert book_cache.cache_dir() == tmp_path / "home" / ".cache" / "uschess"
    monkeypatch.setattr(book_cache.os.path, "expanduser", lambda path: path)  # no home found
    assert book_cache.cache_dir() is None


def test_the_key_names_the_installed_version():
    version, _ = book_cache._distributions()
    assert version == "0.1.0"  # pyproject.toml's version of this checkout's install


# ------------------------------------------------------------ as a user runs it
def _rate(path: Path, cache: str, *extra) -> subprocess.CompletedProcess:
    env = dict(os.environ, **{book_cache.CACHE_ENV: cache})
    return subprocess.run([sys.executable, "-m", "uschess", "rate", str(path), *extra],
                          capture_output=True, text=True, env=env, timeout=120)


def test_cli_the_same_results_without_with_and_from_a_damaged_cache(tmp_path):
    cache = tmp_path / "cache"
    runs = {}
    for label, folder in (("off", ""), ("writes", str(cache)), ("reads", str(cache))):
        runs[label] = _rate(EVENTS[0], folder, "--json")
    assert list(cache.glob("rulebook-*.pickle"))
    for path in cache.glob("rulebook-*.pickle"):
        path.write_bytes(b"\x80\x05garbage")
    runs["damaged"] = _rate(EVENTS[0], str(cache), "--json")
    for label, out in runs.items():
        assert out.returncode == 0 and out.stderr == "", (label, out.stderr)
        assert out.stdout == runs["off"].stdout, label
    assert json.loads(runs["off"].stdout)["sections"]
