"""The public API: a few names importable from ``uschess`` itself, each the
object its module defines, enough to rate an event and to write a rule."""

from __future__ import annotations

import datetime as dt
import subprocess
import sys

import uschess
from helpers import ROOT


def test_every_public_name_is_its_modules_object():
    import importlib

    assert uschess.__all__ == sorted(uschess.PUBLIC)
    for name, module in uschess.PUBLIC.items():
        assert getattr(uschess, name) is getattr(importlib.import_module(module), name)
        assert name in dir(uschess)


def test_rate_an_event_through_the_public_names():
    """The module docstring's example: the bundled event rated through
    ``load_event`` and ``rate_event`` gives the ratings the command prints."""
    import json

    from uschess import RatingOptions, load_event, rate_event

    result = rate_event(load_event(ROOT / "fixtures/events/wfcc15.yaml"))
    cli = subprocess.run([sys.executable, "-m", "uschess", "rate", "--json",
                          str(ROOT / "fixtures/events/wfcc15.yaml")],
                         capture_output=True, text=True, check=True)
    want = {(s["system"], p["id"]): p["post"] for s in json.loads(cli.stdout)["sections"]
            for p in s["players"]}
    got = {(s.system, p.id): p.post for s in result.sections for p in s.players}
    assert got == want and len(got) >= 16
    # the same event under another day's rules, through the options
    older = rate_event(load_event(ROOT / "fixtures/events/wfcc15.yaml"),
                       RatingOptions(rules_on=dt.date(2012, 1, 1)))
    assert [p.post for p in older.sections[0].players] != \
        [p.post for p in result.sections[0].players]


def test_a_rule_written_with_the_public_names_takes_its_slot():
    """A rule pack's plugin from ``uschess.RulePlugin``, ``src`` and
    ``hookimpl``, given to the rule book as a reform: it answers in its slot."""
    from uschess import Reform, RuleBook, RulePlugin, hookimpl, src

    class NoBonus(RulePlugin):
        slot, name, title = "bonus", "bonus-none-test", "No bonus term"
        source = src("test", "1")

        @hookimpl
        def uschess_bonus_eligible(self, m, opponent_counts, p):
            return False

    rules = RuleBook.load().rules(dt.date(2025, 3, 21),
                                  reform=Reform("no-bonus", extra_plugins=[NoBonus()]))
    assert rules.call.uschess_bonus_eligible(m=5, opponent_counts={1: 1}, p=rules.p) is False


def test_import_uschess_imports_no_public_module():
    """``import uschess`` stays quick: the names load when first used."""
    code = ("import sys, uschess; "
            "print(sorted(m for m in sys.modules if m.startswith('uschess.')))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
