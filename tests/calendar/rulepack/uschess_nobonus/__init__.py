"""A rule pack's plugin: the bonus term abolished.

It fills the existing ``bonus`` slot; the date from which it does so is in
``calendar.yaml`` beside this module, cited to the pack's own document.
"""

from __future__ import annotations

from importlib import resources

from uschess.rules.base import RulePlugin, src
from uschess.rules.hookspecs import hookimpl


class NoBonus(RulePlugin):
    """No section earns the bonus term of the standard formula."""

    slot = "bonus"
    name = "bonus-none"
    title = "No bonus term"
    source = src("nobonus", "1")

    @hookimpl
    def uschess_bonus_eligible(self, m, opponent_counts, p):
        return False

    @hookimpl
    def uschess_rule_calendars(self):
        return [resources.files(__name__) / "calendar.yaml"]


PLUGIN = NoBonus()
"""The object the entry point names: the rule book registers it as it is."""
