"""What the causes amount to (engine/apps/audit/findings.py): every cause
states its free values and what it does to the other posts; a post
reproduced only by a rule value fitted to it is no evidence; "no cause
found" is counted; causes of several kinds that fit equally are
"ambiguous"; a rule version of another period that reproduces a page much
better is a dated finding, reported first, and so are the rules as known on
the page's Rated date where a later retroactive decision changed them."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from helpers import SHARED_DATA, event, player
from uschess.apps.audit import audit, format_text, load_published, published_from_dict
from uschess.apps.audit.cause import Cause, Evidence, within
from uschess.apps.audit.causes import CAUSE_ORDER, registered_checks
from uschess.apps.audit.findings import row_finding
from uschess.apps.audit.records import AuditRow
from uschess.calendar.reform import reform_from_dict
from uschess.calendar.rulebook import RuleBook
from uschess.io.eventfile import event_to_dict
from uschess.rating.pipeline import RatingOptions, rate_event

ONLINE_2020 = (SHARED_DATA / "real" / "pacl-2001-2021" / "sections" / "XtblMain_202006108502_1.html")
QUADS_2013 = (SHARED_DATA / "real" / "tourneydata-2001-2014" / "tourneyInfo" / "2013" / "05"
              / "tourneyInfo-201305117852.0")

PLAYERS = [player(1, ["W2", "W3", "W4", "W5"], rating=1400, games=60),
           player(2, ["L1", "W5", "D6", "W4"], rating=1750, games=60),
           player(3, ["W4", "L1", "L5", "D6"], rating=1800, games=60),
           player(4, ["L3", "D6", "L1", "L2"], rating=1850, games=60),
           player(5, ["D6", "L2", "W3", "L1"], rating=1700, games=60),
           player(6, ["D5", "D4", "D2", "D3"], rating=1650, games=60)]


def _posts(reform=None) -> dict:
    ev = event(PLAYERS, start="2019-05-04")
    res = rate_event(ev, RatingOptions(trace=False, reform=reform))
    return {pr.id: pr.post for pr in res.sections[0].players}


def _b6():
    book = RuleBook.load()
    return reform_from_dict({"name": "B = 6", "parameters": {"bonus_multiplier": [
        {"from": book.earliest().isoformat(), "value": 6}]}}, source="test", book=book)


def _audit(published: dict):
    out = event_to_dict(event(PLAYERS, start="2019-05-04"))
    out["published"] = [{"id": pid, "system": "OTBR", "post": round(post)}
                        for pid, post in published.items()]
    return audit(published_from_dict(json.loads(json.dumps(out)), source="page.json"))


def test_a_rule_value_fitted_to_one_post_is_weak_and_no_cause_is_counted():
    """Player 1's post is the one B = 6 gives (the rules in force use 14),
    player 6's is 333 points off: the first is reproduced only by a bonus
    multiplier chosen for it, a setting that fits (weak), the second by
    nothing (no cause found); both are counted, and the B = 6 cause states
    its free value and what it does to the other posts, counted again here
    from the variant's posts."""
    plain, b6 = _posts(), _posts(_b6())
    ids = sorted(plain)
    published = {pid: plain[pid] for pid in ids}
    published[ids[0]] = b6[ids[0]]
    published[ids[5]] = plain[ids[5]] + 333
    a = _audit(published)
    one = next(r for r in a.rows if r.entry.id == ids[0])
    assert [c.cause for c in one.causes] == ["bonus_multiplier"]
    (cause,) = one.causes
    assert cause.weak and "B, one rule value" in cause.free_values
    others = [r for r in a.rows if r is not one]
    kept = sum(1 for r in others if r.reproduced
               and within(b6[r.entry.id], r.entry.post, a.tolerance))
    lost = sum(1 for r in others if r.reproduced) - kept
    gained = sum(1 for r in others if not r.reproduced
                 and within(b6[r.entry.id], r.entry.post, a.tolerance))
    assert cause.evidence == Evidence(kept, lost, gained)
    assert (one.finding, one.finding_causes) == ("weak", ["bonus_multiplier"])
    off = next(r for r in a.rows if r.entry.id == ids[5])
    assert off.causes == [] and off.finding == "no cause found"
    counts = a.as_dict()["verdicts"]["findings"]
    assert counts["weak"] == 1 and counts["no cause found"] == 1
    text = format_text(a)
    assert "1 with only a rule value fitted to them (not evidence)" in text
    assert "1 with no cause found" in text
    assert "finding: only a rule value fitted to this post (bonus_multiplier)" in text
    assert "[free: B, one rule value chosen for the whole event; keeps " in text


def _row_with(causes):
    row = AuditRow(None, None, None, 1500.0, False)
    row.causes = causes
    return row


def test_causes_of_several_kinds_that_fit_equally_are_ambiguous():
    """Two inputs the page cannot show each reproduce a post and lose no
    other post: neither is chosen.  One that loses fewer posts is the
    cause; rule values alone are weak."""
    def c(name, loses, weak=False):
        return Cause(name, "", 1500.0, 1500.0, weak=weak, evidence=Evidence(10 - loses, loses, 0))

    assert row_finding(_row_with([c("rounding", 0), c("history", 0)])) == \
        ("ambiguous", ["rounding", "history"])
    assert row_finding(_row_with([c("rounding", 0), c("history", 2)])) == ("cause", ["rounding"])
    assert row_finding(_row_with([c("history", 0), c("bonus_multiplier", 0, weak=True)])) == \
        ("cause", ["history"])
    assert row_finding(_row_with([c("bonus_multiplier", 0, weak=True),
                                  c("effective_games", 0, weak=True)])) == \
        ("weak", ["bonus_multiplier", "effective_games"])


def test_every_registered_cause_states_what_it_rates_and_its_free_values():
    checks = registered_checks()
    assert {c.name for c in checks} <= set(CAUSE_ORDER)
    for check in checks:
        assert check.name and check.rates and check.free_values and check.evidence
    weak = {c.name for c in checks if c.weak}
    assert weak == {"bonus_multiplier", "k_exception", "effective_games"}


@pytest.mark.shared_data
def test_a_rule_version_of_another_period_is_a_dated_finding_reported_first():
    """2013-05-11 quads (national record): the rules in force (N* of
    2013-05-08) reproduce 6 of 28; the N* in force until 2013-05-07
    reproduces all 28.  That is reported first, with its dates, and each
    post missed names it first instead of a per-player cause."""
    if not QUADS_2013.exists():
        pytest.skip(f"{QUADS_2013} is not beside the checkout")
    a = audit(load_published(QUADS_2013))
    assert (a.reproduced, a.total) == (6, 28)
    (d,) = a.dated
    assert (d.rule, d.since, d.until) == ("nstar", dt.date(2001, 1, 1), dt.date(2013, 5, 8))
    assert (d.reproduced, d.in_force, d.dated, d.days) == (28, 6, dt.date(2013, 5, 11), 4)
    missed = [r for r in a.rows if not r.reproduced]
    assert all(r.finding == "dated" and r.causes[0].cause == "effective_games" for r in missed)
    text = format_text(a)
    first = text.index("dated finding: N* in force from 2001-01-01")
    assert first < text.index("confirmed or explained")
    assert a.as_dict()["dated_findings"][0]["days"] == 4


@pytest.mark.shared_data
def test_the_rules_as_known_on_the_rated_date_are_a_dated_finding():
    """An online blitz of 2020-06-10 (PACL), Rated 2021-06-16: the rules in
    force as known today reproduce none of its 12 posts; as known on its
    Rated date, before the decision of 2021-06-23 that took the half K of
    online sections back, all 12.  That is a dated finding with no value
    fitted, reported first; the verdicts stay those of the rules in force."""
    if not ONLINE_2020.exists():
        pytest.skip(f"{ONLINE_2020} is not beside the checkout")
    a = audit(load_published(ONLINE_2020))
    assert (a.reproduced, a.total) == (0, 12)
    (d,) = a.dated
    assert (d.known_on, d.dated, d.reproduced, d.in_force) == (
        dt.date(2021, 6, 16), dt.date(2020, 6, 10), 12, 0)
    assert d.changed.startswith("online_half_k True -> False") and "decided 2021-06-23" in d.changed
    assert all(r.finding == "dated" and r.causes[0].cause == "known_on"
               for r in a.rows if not r.reproduced)
    text = format_text(a)
    assert text.index("dated finding: the rules as known on 2021-06-16 reproduce 12 of 12") < text.index(
        "confirmed or explained")
    out = a.as_dict()
    assert out["dated_findings"][0]["rule"] == "known_on"
    assert out["verdicts"]["confirmed"] + out["verdicts"]["explained"] == 0


def test_a_cause_plugin_registered_through_the_hook_is_asked(monkeypatch):
    """A package's cause check, registered under the entry-point group,
    is asked for every post missed, and what it finds is reported with
    its free values, after the audit's own causes."""
    import pluggy

    from uschess.apps.audit import causes
    from uschess.apps.audit.cause import CauseCheck
    from uschess.apps.audit.hookspecs import ENTRY_POINTS, auditimpl

    asked = []

    class Typo(CauseCheck):
        name, rates = "typo", "nothing again: the published post read with its digits swapped"
        free_values, evidence = "which two digits", "the post with them swapped"

        def causes(self, row, variants, book, tol):
            asked.append(row.entry.id)
            return [Cause(self.name, "digits swapped", row.computed, row.entry.post)]

    class Plugin:
        @auditimpl
        def uschess_audit_causes(self):
            return [Typo()]

    def load(self, group, name=None):
        assert group == ENTRY_POINTS
        self.register(Plugin(), name="typo")
        return 1

    monkeypatch.setattr(pluggy.PluginManager, "load_setuptools_entrypoints", load)
    causes.registered_checks.cache_clear()
    try:
        plain = _posts()
        ids = sorted(plain)
        published = {pid: plain[pid] for pid in ids}
        published[ids[5]] += 333
        a = _audit(published)
    finally:
        causes.registered_checks.cache_clear()
    off = next(r for r in a.rows if r.entry.id == ids[5])
    assert asked == [ids[5]]
    assert [c.cause for c in off.causes] == ["typo"]
    assert off.causes[0].free_values == "which two digits"
    assert (off.finding, off.finding_causes) == ("cause", ["typo"])
