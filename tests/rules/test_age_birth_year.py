"""A birth date known by its year only (a TRF's ``1980/00/00``): kept as a
year, the age of sec. 2.3 taken from 2 July of that year, with a warning;
never dropped (a 44-year-old read as having no birth date is initialized as
a 15-year-old: 750 instead of 1300)."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from uschess.cli import main
from uschess.io.eventfile import event_from_dict, event_to_dict, parse_birth_date
from uschess.io.formats.trf import parse_trf, write_trf
from uschess.model import BirthYear
from uschess.rating.pipeline import RatingOptions, rate_event

from helpers import ROOT

BUDAPEST = ROOT / "fixtures" / "trf" / "trf16-budapest.trf"


def lone_unrated(birth) -> dict:
    """An event of 2024-07-01 where an unrated player meets a rated one."""
    them = {"pair": 2, "id": "20000002", "name": "Rated, R", "rounds": ["W1"],
            "ratings": {"OTBR": {"rating": 1500, "games": 40}}}
    me = {"pair": 1, "id": "10000001", "name": "Year, Only", "rounds": ["L2"], "birth_date": birth}
    return {"event": {"name": "E", "start": "2024-07-01", "end": "2024-07-01"},
            "sections": [{"name": "S", "time_control": "G/90", "players": [me, them]}]}


def initial_of(raw: dict) -> float:
    result = rate_event(event_from_dict(raw, source="t.yaml"), RatingOptions())
    (pr,) = [p for s in result.sections for p in s.players if p.id == "10000001"]
    return pr.initial.rating


def test_a_44_year_old_known_by_year_is_initialized_as_an_adult():
    assert initial_of(lone_unrated("1980")) == 1300
    assert initial_of(lone_unrated(None)) == 750  # no birth date, not known to be adult


def test_the_age_is_taken_from_the_middle_of_the_year():
    """Age = (end - birth) / 365.25 (sec. 2.3), birth = 2 July of the year: a
    child's rating is the one of a birthday in the middle of the year."""
    got = initial_of(lone_unrated(2014))
    assert got == 50 * (dt.date(2024, 7, 1) - dt.date(2014, 7, 2)).days / 365.25
    assert initial_of(lone_unrated("2014-01-01")) - got == pytest.approx(50 * 182 / 365.25)


def test_year_only_is_written_back_as_a_year():
    assert parse_birth_date("1980") == dt.date(1980, 7, 2)
    assert isinstance(parse_birth_date(1980), BirthYear)
    assert not isinstance(parse_birth_date("1980-07-02"), BirthYear)
    event = event_from_dict(lone_unrated("1980"), source="t.yaml")
    assert event_to_dict(event)["sections"][0]["players"][0]["birth_date"] == "1980"
    trf = write_trf(event)
    assert "1980/00/00" in trf
    again = parse_trf(trf, source="t.trf")
    assert repr(again.sections[0].player(1).birth_date) == "BirthYear(1980)"
    assert BirthYear(1980) + dt.timedelta(days=1) == dt.date(1980, 7, 3)  # a plain date then


def test_a_trf_with_birth_years_warns_and_rates_from_them(capsys):
    assert main(["rate", str(BUDAPEST), "--all-unrated", "--json"]) == 0
    captured = capsys.readouterr()
    assert ("2 player(s) have a birth year but no day: the age (sec. 2.3) is taken from 2 July "
            "of that year") in captured.err
    data = json.loads(captured.out)
    years = {m["id"]: m["shown"] for m in data["member_data"]["birth_year_only"]}
    assert years == {"2901234": "born 1992", "trf-5": "born 1978"}


def test_the_event_schema_allows_a_year_alone():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "engine" / "event.schema.json").read_text())
    checker = jsonschema.FormatChecker()
    for birth in ("1980", 1980, "1980-07-02"):
        jsonschema.validate(lone_unrated(birth), schema, format_checker=checker)
    for birth in ("80", "1980-7-2"):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate(lone_unrated(birth), schema, format_checker=checker)
