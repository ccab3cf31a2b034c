"""What the web pages show people: numbers as US Chess shows them (the
unrounded values stay in the JSON), ratings written as US Chess writes
them, an unrated opponent's rating with its reason, errors in the words of
the page's fields, an audit's cause on one line with its detail behind a
click."""

from __future__ import annotations

import html
import re

import pytest

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("multipart", reason="the web extra is not installed (python-multipart)")
from starlette.testclient import TestClient  # noqa: E402

from helpers import ROOT  # noqa: E402
from uschess.web.app import create_app  # noqa: E402

ESTIMATE = {"date": "2025-03-21", "tc": "G/90;d30", "rating": "1500", "games": "30",
            "opp_rating_1": "1600", "opp_result_1": "W",
            "opp_rating_2": "1720", "opp_games_2": "12", "opp_result_2": "D",
            "opp_result_3": "D"}  # an unrated opponent
#: A number printed with more decimals than a person reads.
LONG_NUMBER = re.compile(r"[0-9]\.[0-9]{5,}")


@pytest.fixture(scope="module")
def client():
    return TestClient(create_app())


def api_post(client, params) -> float:
    data = client.get("/api/estimate", params=params).json()
    (post,) = [p["post"] for s in data["sections"] if s["system"] == "OTBR"
               for p in s["players"] if p["id"] == "1"]
    return post


def page_text(response) -> str:
    assert response.status_code == 200, response.text[:300]
    return html.unescape(response.text)


def test_estimate_numbers_are_shown_rounded_and_kept_whole_in_json(client):
    post = api_post(client, ESTIMATE)
    assert LONG_NUMBER.search(repr(post))  # the JSON keeps every digit
    text = page_text(client.get("/estimate", params={**ESTIMATE, "compare": "rules-on:2016-01-01"}))
    assert f'id="post-OTBR">{post:.2f}<' in text
    assert not LONG_NUMBER.search(text.split("<body")[1])
    assert re.search(r"K [0-9]+\.[0-9]{2},", text)


@pytest.mark.parametrize("change, same_as", [
    ({"rating": "1500P5", "games": ""}, {"games": "5"}),
    ({"rating": "1500p5", "games": ""}, {"games": "5"}),
    ({"opp_rating_2": "1720P12", "opp_games_2": ""}, {}),
    ({"opp_rating_3": "Unrated"}, {}),
    ({"opp_rating_3": "unr."}, {}),
])
def test_the_estimator_reads_ratings_as_us_chess_writes_them(client, change, same_as):
    assert api_post(client, {**ESTIMATE, **change}) == api_post(client, {**ESTIMATE, **same_as})


def test_a_provisional_rating_disagreeing_with_its_games_is_refused(client):
    r = client.get("/estimate", params={**ESTIMATE, "opp_rating_2": "1720P12", "opp_games_2": "9"})
    assert r.status_code == 400
    assert ("opponent 2: rating '1720P12' is provisional on 12 games, but the games field says 9"
            in html.unescape(r.text))


def test_an_unrated_opponent_is_shown_with_the_rating_given_and_why(client):
    text = page_text(client.get("/estimate", params=ESTIMATE))
    assert ("Opponent 3 is unrated: step 1 gives them 750.00 (age-based: no birth date, not "
            "known to be adult: taken as 15); step 4 rates them 1500.00 from their game with "
            "you, the rating your step 5 uses.") in text


def test_errors_name_the_page_fields_not_command_line_options(client):
    r = client.get("/estimate", params={**ESTIMATE, "rating": "abc"})
    error = html.unescape(re.search(r'id="error">([^<]*)<', r.text)[1])
    assert error == "your rating: 'abc' is not a number"
    trf = (ROOT / "fixtures" / "trf" / "club-championship.trf").read_bytes()
    r = client.post("/rate", files={"event": ("club.trf", trf)})
    error = html.unescape(re.search(r'id="error">([^<]*)<', r.text)[1])
    assert r.status_code == 400 and "--" not in error
    assert "(the Players file)" in error and "the box 'rate them all as unrated'" in error
    assert "--all-unrated" not in client.get("/rate").text


def test_an_audit_cause_is_one_line_with_its_detail_behind_a_click(client):
    page = ROOT / "fixtures" / "audit" / "wfcc15-2024-b14.json"
    text = page_text(client.post("/rate", files={"event": (page.name, page.read_bytes())}))
    cell = re.search(r'<details class="cause"><summary>([^<]*)</summary>\s*<ul>(.*?)</ul>',
                     text, re.S)
    assert cell[1] == "bonus multiplier: gives 1223.77"
    assert "bonus multiplier B = 14 (the rules in force use B = 12) gives 1223.77" in cell[2]
    assert not LONG_NUMBER.search(text.split("<body")[1])
