"""A rule pack installed beside the project adds a dated plugin to it.

``tests/calendar/rulepack/`` is a separate distribution (its own ``pyproject.toml``)
whose plugin, ``bonus-none``, fills the existing ``bonus`` slot from the date
its own ``calendar.yaml`` gives.  It is installed here the way an editable
install does it: a ``.dist-info`` directory carrying the entry points of the
pack's ``pyproject.toml`` is written to a temporary directory, which goes on
``sys.path`` with the pack's source.  ``importlib.metadata`` then finds the
distribution and pluggy's ``load_setuptools_entrypoints`` loads the plugin,
exactly as for a pack installed with pip, in milliseconds and without
touching the interpreter's site-packages (``pip install`` would build a wheel
and install it globally or need a network for build isolation).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from helpers import by_pair, d, event, player
from uschess.calendar.reform import reform_from_dict
from uschess.calendar.rulebook import RuleBook
from uschess.errors import InputError, RuleError
from uschess.rating.pipeline import RatingOptions, rate_event

tomllib = pytest.importorskip("tomllib")

RULEPACK = Path(__file__).resolve().parent / "rulepack"
PACK_DATE = dt.date(2027, 1, 1)  # the date in tests/calendar/rulepack/uschess_nobonus/calendar.yaml


def install_rulepack(site: Path, pack: Path = RULEPACK) -> list[Path]:
    """Install ``pack`` for ``importlib.metadata`` in ``site``: its metadata and
    entry points (from its ``pyproject.toml``) as a ``.dist-info``.  Returns the
    ``sys.path`` entries that make it importable (``site`` and the source)."""
    meta = tomllib.loads((pack / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    info = site / f"{meta['name'].replace('-', '_')}-{meta['version']}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {meta['name']}\n"
                                   f"Version: {meta['version']}\n", encoding="utf-8")
    lines = []
    for group, points in meta.get("entry-points", {}).items():
        lines.append(f"[{group}]")
        lines.extend(f"{name} = {target}" for name, target in points.items())
    (info / "entry_points.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return [site, pack]


@pytest.fixture
def pack_path(tmp_path, monkeypatch):
    """The pack installed on ``sys.path`` for this test only."""
    RuleBook.load()  # the session's own book stays the project's alone
    entries = install_rulepack(tmp_path / "site")
    for entry in reversed(entries):
        monkeypatch.syspath_prepend(str(entry))
    yield entries
    sys.modules.pop("uschess_nobonus", None)


@pytest.fixture
def pack_book(pack_path):
    return RuleBook.build()


def bonus_players():
    """Player 1 beats four higher-rated players: a bonus wherever one is allowed."""
    players = [player(1, ["W2", "W3", "W4", "W5"], rating=1500, games=100)]
    for i in range(2, 6):
        rounds = ["U"] * 4
        rounds[i - 2] = "L1"
        players.append(player(i, rounds, rating=1900, games=100))
    return players


def rate_on(start: str, book: RuleBook, options=None):
    return by_pair(rate_event(event(bonus_players(), start=start), options or RatingOptions(),
                              book=book))[1]


def test_the_pack_is_found_through_its_entry_point(pack_path):
    book = RuleBook.build()
    assert "bonus-none" in book.plugins_in("bonus")
    assert book.manager.get_plugin("bonus-none") is book.registered["bonus-none"]
    # the same interpreter and sys.path, without entry-point discovery: not there
    assert "bonus-none" not in RuleBook.build(entry_point_group=None).registered
    # and the project's own book never saw it
    assert "bonus-none" not in RuleBook.load().registered


def test_the_packs_calendar_rows_date_its_plugin(pack_book):
    before = pack_book.rules(PACK_DATE - dt.timedelta(days=1))
    after = pack_book.rules(PACK_DATE)
    assert before.plugins["bonus"].value == "bonus-2020-09"
    assert after.plugins["bonus"].value == "bonus-none"
    assert after.plugins["bonus"].entry.source.cite() == "nobonus sec. 1"
    assert "nobonus" in pack_book.documents
    assert after.fingerprint != RuleBook.load().rules(PACK_DATE).fingerprint
    assert before.fingerprint == RuleBook.load().rules(PACK_DATE - dt.timedelta(days=1)).fingerprint
    rows = [(e.effective, e.value) for e in pack_book.slots["bonus"].entries]
    assert rows[-1] == (PACK_DATE, "bonus-none")
    assert rows[:-1] == [(e.effective, e.value) for e in RuleBook.load().slots["bonus"].entries]


def test_a_section_after_the_packs_date_is_rated_with_it(pack_book):
    before = rate_on("2026-12-28", pack_book)
    after = rate_on("2027-01-04", pack_book)
    assert before.bonus > 0 and before.trace["step5"]["bonus_eligible"] is True
    assert after.bonus == 0.0 and after.trace["step5"]["bonus_eligible"] is False
    # the same section without the pack keeps its bonus
    assert rate_on("2027-01-04", RuleBook.load()).bonus > 0


def test_a_reform_swaps_a_slot_to_the_packs_plugin_by_name(pack_book):
    reform = reform_from_dict({"name": "no bonus in 2025", "plugins": {"bonus": [
        {"from": "2025-01-01", "until": "2026-01-01", "plugin": "bonus-none"}]}},
        source="nobonus.yaml", book=pack_book)
    opts = RatingOptions(reform=reform)
    assert rate_on("2025-03-21", pack_book, opts).bonus == 0.0
    assert rate_on("2026-03-21", pack_book, opts).bonus > 0
    assert rate_on("2024-03-21", pack_book, opts).bonus > 0
    rules = pack_book.rules(d("2025-03-21"), reform=reform)
    assert rules.plugins["bonus"].origin == "reform"


def test_without_the_pack_a_reform_naming_its_plugin_is_refused():
    raw = {"plugins": {"bonus": [{"from": "2025-01-01", "plugin": "bonus-none"}]}}
    with pytest.raises(InputError, match=r"nobonus.yaml: plugins.bonus period 1: plugin 'bonus-none' "
                                         r"is not one of bonus-002, bonus-2017, bonus-2020-09"):
        reform_from_dict(raw, source="nobonus.yaml")


def test_a_reform_naming_an_unknown_slot_is_refused():
    raw = {"plugins": {"bonuses": [{"from": "2025-01-01", "plugin": "bonus-2017"}]}}
    with pytest.raises(InputError, match=r"plugins.bonuses: no such plugin slot \(known: age, bonus"):
        reform_from_dict(raw, source="r.yaml")


def test_a_reform_naming_another_slots_plugin_is_refused():
    raw = {"plugins": {"bonus": [{"from": "2025-01-01", "plugin": "k-dual-otbr"}]}}
    with pytest.raises(InputError, match="plugin 'k-dual-otbr' is not one of"):
        reform_from_dict(raw, source="r.yaml")


def test_a_pack_that_cannot_be_imported_is_one_clear_error(tmp_path, monkeypatch):
    broken = tmp_path / "broken"
    (broken / "src").mkdir(parents=True)
    (broken / "pyproject.toml").write_text(
        '[project]\nname = "broken-pack"\nversion = "0.1"\n'
        '[project.entry-points."uschess.rules"]\nmissing = "uschess_no_such_module:PLUGIN"\n')
    for entry in install_rulepack(tmp_path / "site", broken):
        monkeypatch.syspath_prepend(str(entry))
    with pytest.raises(RuleError, match=r"rule pack \(entry points 'uschess.rules': missing = "
                                        r"uschess_no_such_module:PLUGIN \(broken-pack 0.1\)\) cannot be "
                                        r"loaded: ModuleNotFoundError: No module named 'uschess_no_such_module'"):
        RuleBook.build()


# ------------------------------------------------------------ as a user runs it
def _run(args, pythonpath, cwd):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(str(p) for p in pythonpath))
    return subprocess.run([sys.executable, "-m", "uschess", *args], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120)


@pytest.mark.slow
def test_cli_with_the_pack_installed(tmp_path):
    path = install_rulepack(tmp_path / "site")
    files = {}
    for start in ("2026-12-28", "2027-01-04"):
        files[start] = tmp_path / f"club-{start}.yaml"
        files[start].write_text(yaml.safe_dump({
            "event": {"name": "Club", "start": start, "end": start},
            "sections": [{"name": "S", "time_control": "G/90;d30", "players": bonus_players()}]}))
    bonus = {}
    for start, f in files.items():
        for label, pythonpath in (("pack", path), ("project", [])):
            out = _run(["rate", str(f), "--json"], pythonpath, tmp_path)
            assert out.returncode == 0, out.stderr
            bonus[start, label] = json.loads(out.stdout)["sections"][0]["players"][0]["bonus"]
    assert bonus["2026-12-28", "pack"] == bonus["2026-12-28", "project"] > 0
    assert bonus["2027-01-04", "pack"] == 0.0 < bonus["2027-01-04", "project"]

    out = _run(["rules", "timeline", "bonus"], path, tmp_path)
    assert out.returncode == 0, out.stderr
    assert "  2027-01-01  bonus-none  [nobonus sec. 1]" in out.stdout
    assert "  2017-04-24  bonus-2017  [004 sec. 4.2]" in out.stdout

    reform = tmp_path / "nobonus-2026.yaml"
    reform.write_text("plugins:\n  bonus:\n    - {from: 2026-12-01, plugin: bonus-none}\n")
    out = _run(["rate", str(files["2026-12-28"]), "--json", "--reform", str(reform)], path, tmp_path)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["sections"][0]["players"][0]["bonus"] == 0.0
    out = _run(["rate", str(files["2026-12-28"]), "--reform", str(reform)], [], tmp_path)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and "Traceback" not in out.stderr
    assert "plugin 'bonus-none' is not one of" in out.stderr
