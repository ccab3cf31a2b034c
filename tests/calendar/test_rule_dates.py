"""One test per dated change: the day before and the day of (issue: every rule
set from 2001 to 2025), plus conflicts, knowledge dates and editions."""

from __future__ import annotations

import datetime as dt

import pytest

from uschess.errors import RuleError
from uschess.calendar.rulebook import RuleBook
from uschess.timecontrol import parse_time_control

from helpers import d

BOOK = RuleBook.load()


def value(name, on, **kw):
    r = BOOK.rules(d(on), **kw)
    return r.params[name].value if name in r.params else r.plugins[name].value


def systems(tc, on, online=False, **kw):
    r = BOOK.rules(d(on), **kw)
    return sorted(r.call.uschess_classify(tc=parse_time_control(tc), online=online, p=r.p))


# (name, change date, value the day before, value on the day), default readings
CHANGES = [
    ("bonus_multiplier", "2008-06-06", 10, 6),
    ("bonus_multiplier", "2012-08-03", 6, 8),
    ("bonus_multiplier", "2014-03-20", 8, 10),
    ("bonus_multiplier", "2015-06-01", 10, 12),
    ("bonus_multiplier", "2017-06-01", 12, 14),
    ("bonus_multiplier", "2023-02-01", 14, 12),
    ("bonus_multiplier", "2025-01-01", 12, 10),
    ("nstar", "2013-05-08", {"a": 1.0, "b": 0.00001, "center": 2200.0, "flat_above": 2200.0, "cap": 50.0},
     {"a": 0.662, "b": 0.00000739, "center": 2569.0, "flat_above": 2355.0, "cap": 50.0}),
    ("floors", "2008-08-07", "floors-002", "floors-sec5"),
    ("floor_levels", "2010-04-01", [1400, 1500, 1600, 1700, 1800, 1900, 2000, 2100],
     [1200, 1300, 1400, 1500, 1600, 1700, 1800, 1900, 2000, 2100]),
    ("storage", "2014-09-01", "store-integer", "store-float"),
    ("initialize", "2020-06-01", "priority-2017", "blended"),
    ("age", "2020-06-01", "age-2017", "age-2020-09"),
    ("bonus", "2020-06-01", "bonus-2017", "bonus-2020-09"),
    ("personal_floor_systems", "2020-06-01", ["OTBR", "OTBQ", "OTBB", "OLR", "OLQ", "OLB"], ["OTBR", "OTBQ", "OTBB"]),
    ("olm_systems", "2020-06-01", ["OTBR", "OTBQ", "OTBB", "OLR", "OLQ", "OLB"], ["OTBR"]),
    ("bonus", "2002-01-01", "bonus-002", "bonus-2017"),  # learned from the record
]


@pytest.mark.parametrize("name,on,before,after", CHANGES, ids=[f"{c[0]}@{c[1]}" for c in CHANGES])
def test_change_day_before_and_day_of(name, on, before, after):
    day_before = (d(on) - dt.timedelta(days=1)).isoformat()
    assert value(name, day_before) == before
    assert value(name, on) == after


def test_fide_conversion_2024_03_01():
    for on, expect in (("2024-02-29", 180 + 0.94 * 1800), ("2024-03-01", -1073 + 1.5667 * 1800)):
        r = BOOK.rules(d(on))
        from uschess.rules.initialization import fide_us
        assert fide_us(1800, r.p) == pytest.approx(expect)
        assert fide_us(2100, r.p) == pytest.approx(20 + 1.02 * 2100)


def test_cfc_conversion_2025_01_01():
    from uschess.rules.initialization import cfc_us
    old, new = BOOK.rules(d("2024-12-31")).p, BOOK.rules(d("2025-01-01")).p
    assert cfc_us(1500, old) == 1410 and cfc_us(1600, old) == pytest.approx(1.1 * 1600 - 240)
    assert cfc_us(1100, new) == pytest.approx(-115 + 0.815 * 1100)
    assert cfc_us(1150, new) == pytest.approx(-650 + 1.28 * 1150)
    assert cfc_us(1610, new) == pytest.approx(-856 + 1.41 * 1610)
    assert cfc_us(2000, new) == pytest.approx(-240 + 1.1 * 2000)


@pytest.mark.parametrize("tc,on,before,after", [
    ("G/45;d5", "2002-01-01", ["OTBR"], ["OTBQ", "OTBR"]),          # dual rating from 2002
    ("G/5;d0", "2004-01-01", [], ["OTBQ"]),                          # quick from mm+ss >= 5
    ("G/5;d0", "2013-03-01", ["OTBQ"], ["OTBB"]),                    # OTB Blitz
    ("G/60;d5", "2013-03-01", ["OTBR"], ["OTBQ", "OTBR"]),           # dual extended to 65
])
def test_otb_time_control_eras(tc, on, before, after):
    day_before = (d(on) - dt.timedelta(days=1)).isoformat()
    assert systems(tc, day_before) == before
    assert systems(tc, on) == after


@pytest.mark.parametrize("tc,on,before,after", [
    ("G/5;d0", "2014-10-01", [], ["OLB"]),
    ("G/15;d5", "2015-03-01", [], ["OLQ"]),
    ("G/45;d5", "2020-06-01", ["OLQ"], ["OLR"]),
])
def test_online_systems_by_date(tc, on, before, after):
    day_before = (d(on) - dt.timedelta(days=1)).isoformat()
    assert systems(tc, day_before, online=True) == before
    assert systems(tc, on, online=True) == after


def test_mm_plus_ss_boundaries_2025():
    on = "2025-03-01"
    assert systems("G/3+2", on) == ["OTBB"]
    assert systems("G/10;d0", on) == ["OTBB"]
    assert systems("G/10+1", on) == ["OTBQ"]
    assert systems("G/25;d5", on) == ["OTBQ", "OTBR"]
    assert systems("G/60+5", on) == ["OTBQ", "OTBR"]
    assert systems("G/61;d5", on) == ["OTBR"]
    assert systems("G/29", on, online=True) == ["OLQ"]
    assert systems("G/30", on, online=True) == ["OLR"]
    assert systems("G/2+2", on) == []


def test_personal_floor_absent_before_2008_08_07():
    assert "personal_floor" not in BOOK.rules(d("2008-08-06")).params
    assert BOOK.rules(d("2008-08-07")).p.personal_floor["cap"] == 150


# -------------------------------------------------------------- conflicts
@pytest.mark.parametrize("conflict,reading,on,default,alternative", [
    ("bonus-14-start", "2017-text", "2017-05-15", 12, 14),
    ("bonus-2008-date", "2020-09-list", "2008-07-01", 6, 10),
    ("bonus-2012-date", "2020-09-list", "2012-08-03", 8, 6),
    ("bonus-2003-2008", "002-announced", "2005-01-01", 10, 16),
])
def test_bonus_conflicts_both_readings(conflict, reading, on, default, alternative):
    assert value("bonus_multiplier", on) == default
    assert value("bonus_multiplier", on, readings={conflict: reading}) == alternative
    warnings = BOOK.rules(d(on)).params["bonus_multiplier"].warnings
    assert any(conflict in w for w in warnings)


def test_revision_2020_readings():
    assert value("initialize", "2020-07-01") == "blended"
    assert value("initialize", "2020-07-01", readings={"revision-2020": "2020-09-proposal"}) == "priority-2020-06"
    assert value("initialize", "2020-09-02", readings={"revision-2020": "2020-09-proposal"}) == "blended"


def test_online_systems_conflict():
    assert systems("G/5;d0", "2016-01-01", online=True) == ["OLB"]
    assert systems("G/5;d0", "2016-01-01", online=True, readings={"online-systems": "2020-09-list"}) == []


def test_unknown_reading_is_an_error():
    with pytest.raises(RuleError):
        BOOK.rules(d("2016-01-01"), readings={"bonus-14-start": "nonsense"})
    with pytest.raises(RuleError):
        BOOK.rules(d("2016-01-01"), readings={"no-such": "x"})


def test_gaps_warn():
    w = BOOK.rules(d("2002-06-01")).warnings()
    assert any("2002-??-??" in x for x in w)
    assert not BOOK.rules(d("2025-03-01")).warnings()


# ------------------------------------------------------- knowledge dates
def test_known_on_keeps_b12_until_the_2025_rerating():
    assert value("bonus_multiplier", "2025-03-21") == 10
    assert value("bonus_multiplier", "2025-03-21", known_on=d("2025-05-01")) == 12
    assert value("bonus_multiplier", "2025-03-21", known_on=d("2025-06-03")) == 10
    entry = BOOK.rules(d("2025-03-21")).params["bonus_multiplier"].entry
    assert entry.retroactive


# ------------------------------------------------------------- editions
def test_editions_as_written():
    assert value("bonus_multiplier", "2017-05-02", edition="2017-04-24") == 14
    assert value("special_start", "2017-05-02", edition="2017-04-24") == "estimate"
    assert value("special_p_inclusive", "2017-05-02", edition="2017-04-24") is False
    assert value("special_p_inclusive", "2020-07-01", edition="2020-06-11") is True
    assert value("initialize", "2020-07-01", edition="2020-06-11") == "priority-2020-06"
    assert value("k_factor", "2020-07-01", edition="2020-06-11") == "k-dual-2020-06"
    assert value("special", "2001-03-01", edition="2001-02-22") == "special-approximate-002"
    assert value("bonus_multiplier", "2021-01-01", edition="2020-09-02") == 14
    assert value("bonus_multiplier", "2025-08-01", edition="2025-07-26") == 10
    with pytest.raises(RuleError):
        BOOK.rules(d("2020-01-01"), edition="1999-01-01")


def test_before_first_rule_is_an_error():
    with pytest.raises(RuleError, match="before the earliest rule"):
        BOOK.rules(d("2000-12-31"))
    BOOK.rules(d("2001-01-01"))
