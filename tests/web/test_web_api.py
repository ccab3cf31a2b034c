"""The web app through Starlette's test client: every page's data, and the
API's JSON compared, text for text, with what the matching ``--json``
command prints."""

from __future__ import annotations

import html
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import urllib.request
import zipfile
from pathlib import Path

import pytest
import yaml

pytest.importorskip("starlette", reason="the web extra is not installed")
pytest.importorskip("multipart", reason="the web extra is not installed (python-multipart)")
from starlette.testclient import TestClient  # noqa: E402

from helpers import ROOT, SHARED_DATA, TEACHING_MSA  # noqa: E402
from uschess.apps.report import rating_text  # noqa: E402
from uschess.cli import main  # noqa: E402
from uschess.web.app import create_app  # noqa: E402

DBF = ROOT / "fixtures" / "dbf" / "club-championship"
PLAYERS = ROOT / "fixtures" / "events" / "club-championship.players.yaml"
WFCC = ROOT / "fixtures" / "events" / "wfcc15.yaml"
ESTIMATE = {"date": "2025-03-21", "tc": "G/60;d5", "rating": "1500", "games": "30",
            "opp_rating_1": "1600", "opp_result_1": "W",
            "opp_rating_2": "1720", "opp_games_2": "12", "opp_result_2": "D",
            "opp_result_3": "L"}  # an unrated opponent


@pytest.fixture()
def client():
    return TestClient(create_app())


def cli(argv, capsys) -> str:
    capsys.readouterr()
    assert main(argv) == 0
    return capsys.readouterr().out


def cli_error(argv, capsys) -> str:
    capsys.readouterr()
    assert main(argv) == 2
    return capsys.readouterr().err


def report_zip(name_prefix="club/") -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for f in sorted(DBF.iterdir()):
            archive.write(f, arcname=name_prefix + f.name)
    return buf.getvalue()


def page_error(text: str) -> str:
    found = re.findall(r'id="error">([^<]*)<', text)
    assert len(found) == 1, text[:500]
    assert "Traceback" not in text
    return html.unescape(found[0])


# ---------------------------------------------------------------- rules

@pytest.mark.parametrize("url, argv", [
    ("/api/rules/conflicts", ["rules", "conflicts", "--json"]),
    ("/api/rules/timeline", ["rules", "timeline", "--json"]),
    ("/api/rules/timeline/bonus_multiplier", ["rules", "timeline", "bonus_multiplier", "--json"]),
    ("/api/rules/show?on=2016-01-01", ["rules", "show", "--on", "2016-01-01", "--json"]),
    ("/api/rules/show?on=2025-03-21&known_on=2025-05-01",
     ["rules", "show", "--on", "2025-03-21", "--known-on", "2025-05-01", "--json"]),
    ("/api/rules/show?on=2017-05-15&reading=bonus-14-start=2017-text",
     ["rules", "show", "--on", "2017-05-15", "--reading", "bonus-14-start=2017-text", "--json"]),
    ("/api/rules/diff?date1=2012-01-01&date2=2025-03-01",
     ["rules", "diff", "2012-01-01", "2025-03-01", "--json"]),
])
def test_rules_api_is_the_commands_json(client, capsys, url, argv):
    r = client.get(url)
    assert r.status_code == 200
    assert r.headers["content-type"].startswith("application/json")
    assert r.text == cli(argv, capsys)


def test_rules_api_errors_are_one_line(client, capsys):
    r = client.get("/api/rules/timeline/no_such_rule")
    assert r.status_code == 400
    assert r.json()["error"] == cli_error(["rules", "timeline", "no_such_rule"], capsys) \
        .removeprefix("uschess: error: ").strip()
    r = client.get("/api/rules/show?on=1999-01-01")
    assert r.status_code == 400 and "\n" not in r.json()["error"]
    r = client.get("/api/rules/diff?date1=2016-01-01&date2=soon")
    assert r.status_code == 400 and "date2" in r.json()["error"]


def test_rules_page_shows_timeline_conflicts_and_diff(client):
    r = client.get("/rules?on=2016-01-01&date1=2012-01-01&date2=2025-03-01")
    assert r.status_code == 200
    text = html.unescape(r.text)
    diff = client.get("/api/rules/diff?date1=2012-01-01&date2=2025-03-01").json()
    assert diff["changes"]
    diff_part = text.split('id="diff"')[1].split("</section>")[0]
    for change in diff["changes"]:
        assert change["name"] in diff_part
    conflicts = client.get("/api/rules/conflicts").json()
    for cid, c in conflicts.items():
        assert cid in text and c["description"] in text
        for reading in c["readings"].values():
            assert reading in text
    timeline = client.get("/api/rules/timeline").json()
    for name, t in timeline.items():
        assert f'id="tl-{name}"' in r.text
        for value in t["values"]:
            assert value["effective"] in text
    from uschess.commands.rules import _plugin_titles
    known = _plugin_titles()
    titles = [known[v["value"]] for t in timeline.values() if t["kind"] == "plugin"
              for v in t["values"] if known.get(v["value"])]
    assert titles and all(t in text for t in titles)  # what each plugin in force does
    shown = client.get("/api/rules/show?on=2016-01-01").json()
    assert shown["fingerprint"] in text
    assert page_error(client.get("/rules?date1=2016-01-01&date2=x").text).startswith("date2")


# ---------------------------------------------------------------- estimator

def test_estimate_is_what_rate_prints_for_its_event_file(client, capsys, tmp_path, monkeypatch):
    event = client.get("/estimate/event.yaml", params=ESTIMATE)
    assert event.status_code == 200
    (tmp_path / "estimate.yaml").write_text(event.text)
    monkeypatch.chdir(tmp_path)
    expected = cli(["rate", "estimate.yaml", "--json"], capsys)
    api = client.get("/api/estimate", params=ESTIMATE)
    assert api.status_code == 200
    assert api.text == expected

    page = client.get("/estimate", params=ESTIMATE)
    assert page.status_code == 200
    data = json.loads(expected)
    mine = {s["system"]: p for s in data["sections"] for p in s["players"] if p["id"] == "1"}
    assert set(mine) == {"OTBR", "OTBQ"}  # G/60;d5 is dual-rated
    for system, p in mine.items():
        shown = re.findall(rf'id="post-{system}">([^<]*)<', page.text)
        assert shown == [rating_text(p["post"])]  # 2 decimals; --json unrounded
    explain = html.unescape(page.text.split('id="explain">')[1].split("</pre>")[0])
    assert explain == cli(["rate", "estimate.yaml", "--explain", "1"], capsys)
    from uschess.io.formats.msa import ESTABLISHED_GAMES
    assert (f"opponents' ratings without a game count are taken as based on {ESTABLISHED_GAMES} "
            "games") in html.unescape(page.text)


def test_estimate_compare_shows_the_other_rules_side_by_side(client, capsys, tmp_path, monkeypatch):
    params = {**ESTIMATE, "compare": "rules-on:2016-01-01"}
    (tmp_path / "estimate.yaml").write_text(client.get("/estimate/event.yaml", params=params).text)
    monkeypatch.chdir(tmp_path)
    base = json.loads(cli(["rate", "estimate.yaml", "--json"], capsys))
    other = json.loads(cli(["rate", "estimate.yaml", "--rules-on", "2016-01-01", "--json"], capsys))
    page = client.get("/estimate", params=params)
    assert page.status_code == 200
    for data, prefix in ((base, "post"), (other, "other-post")):
        post = next(p["post"] for s in data["sections"] if s["system"] == "OTBR"
                    for p in s["players"] if p["id"] == "1")
        assert re.findall(rf'id="{prefix}-OTBR">([^<]*)<', page.text) == [rating_text(post)]
    assert 'id="explain-other"' in page.text
    assert {other["rulesets"][s["rules"]]["on"] for s in other["sections"]} == {"2016-01-01"}
    assert {base["rulesets"][s["rules"]]["on"] for s in base["sections"]} == {"2025-03-21"}


def test_estimate_foreign_ratings_reach_the_event(client):
    params = {**ESTIMATE, "rating": "", "games": "", "fide": "2050", "cfc": "1900", "canadian": "1",
              "birth": "2001-02-03", "adult": "1"}
    event = yaml.safe_load(client.get("/estimate/event.yaml", params=params).text)
    me = event["sections"][0]["players"][0]
    assert me["fide"] == {"rating": 2050.0, "date": "2025-03-21"}
    assert me["cfc"] == {"rating": 1900.0, "date": "2025-03-21", "canadian": True}
    assert me["birth_date"] == "2001-02-03" and me["adult"] is True and "ratings" not in me
    data = client.get("/api/estimate", params=params).json()
    mine = [p for s in data["sections"] for p in s["players"] if p["id"] == "1"]
    assert mine and all(p["pre"] is None and p["initial"] for p in mine)
    assert any("fide" in json.dumps(p["initial"]["sources"]).lower() for p in mine)


@pytest.mark.parametrize("change, words", [
    ({"rating": "abc"}, "your rating: 'abc' is not a number"),
    ({"rating": "1_500"}, "'1_500' is not a number"),
    ({"rating": "\u0661\u0665\u0660\u0660"}, "is not a number"),
    ({"date": "2025-W12-5"}, "'2025-W12-5' is not a date (YYYY-MM-DD)"),
    ({"opp_result_1": ""}, "opponent 1: choose the result"),
    ({"games": ""}, "your rating needs the number of games"),
    ({"date": "1999-01-01"}, "1999-01-01"),
    ({"tc": "G/zz"}, "estimate.yaml: section 'Estimate'"),
    ({"rules": "reform:/etc/passwd"}, "reform files cannot be named"),
    ({"compare": "edition:1066-10-14"}, "unknown edition"),
])
def test_estimate_errors_are_one_located_line(client, change, words):
    r = client.get("/estimate", params={**ESTIMATE, **change})
    assert r.status_code == 400
    assert words in page_error(r.text)
    api = client.get("/api/estimate", params={**ESTIMATE, **change})
    assert api.status_code == 400 and words in api.json()["error"]


def test_pages_need_no_javascript(client):
    pages = ["/", "/estimate", "/estimate?" + "&".join(f"{k}={v}" for k, v in ESTIMATE.items()),
             "/rate", "/rules", "/store", upload_dbf(client).headers["location"]]
    for url in pages:
        text = client.get(url).text
        assert "<script" not in text.lower() and "onclick" not in text.lower(), url
        for form in re.findall(r"<form[^>]*>", text):
            assert 'method="get"' in form or 'method="post"' in form, (url, form)


def test_estimate_form_keeps_its_values_and_grows(client):
    r = client.get("/estimate", params={**ESTIMATE, "rows": "10"})
    assert 'id="opp_rating_10"' in r.text and 'id="opp_rating_11"' not in r.text
    assert 'value="1720"' in r.text
    more = re.findall(r'href="/estimate\?([^"]*)">more rows', r.text)[0]
    assert 'id="opp_rating_14"' in client.get("/estimate?" + html.unescape(more)).text


# ---------------------------------------------------------------- rating an upload

def upload_dbf(client, **data):
    return client.post("/rate", files={"event": ("club.zip", report_zip()),
                                       "players": ("club.players.yaml", PLAYERS.read_bytes())},
                       data=data, follow_redirects=False)


def test_rate_upload_api_is_rate_json(client, capsys, tmp_path, monkeypatch):
    # the same report as a directory named like the upload, and the players file
    shutil.copytree(DBF, tmp_path / "club.zip")
    shutil.copy(PLAYERS, tmp_path / "club.players.yaml")
    monkeypatch.chdir(tmp_path)
    expected = cli(["rate", "club.zip", "--players", "club.players.yaml", "--json"], capsys)
    r = client.post("/api/rate", files={"event": ("club.zip", report_zip()),
                                        "players": ("club.players.yaml", PLAYERS.read_bytes())})
    assert r.status_code == 200
    assert r.text == expected
    shutil.copy(WFCC, tmp_path / "wfcc15.yaml")
    r = client.post("/api/rate", files={"event": ("wfcc15.yaml", WFCC.read_bytes())},
                    data={"rules": "known-on:2025-05-01"})
    assert r.text == cli(["rate", "wfcc15.yaml", "--known-on", "2025-05-01", "--json"], capsys)


def test_rated_page_crosstable_explanation_and_downloads(client, capsys, tmp_path, monkeypatch):
    r = upload_dbf(client)
    assert r.status_code == 303
    token_url = r.headers["location"]
    page = client.get(token_url)
    assert page.status_code == 200
    shutil.copytree(DBF, tmp_path / "club.zip")
    shutil.copy(PLAYERS, tmp_path / "club.players.yaml")
    monkeypatch.chdir(tmp_path)
    args = ["club.zip", "--players", "club.players.yaml"]
    data = json.loads(cli(["rate", *args, "--json"], capsys))
    text = html.unescape(page.text)
    sections = text.split('class="crosstable"')[1:]
    assert len(sections) == len(data["sections"])
    for sec, shown in zip(data["sections"], sections):
        assert f"{sec['name']} · {sec['system']}" in shown
        for p in sec["players"]:
            row = shown.split(f"/player/{p['id']}\"")[1].split("</tr>")[0]
            assert p["name"] in row
            assert rating_text(p["post"]) in row if p["post"] is not None else "-" in row
    # every player's label as the text crosstable prints it
    labels = re.findall(r"^ *(\d+)  .*?  (\d{8}) .*?: (\S+) -> (\S+)", cli(["rate", *args], capsys),
                        re.M)
    assert labels
    for pair, pid, pre, post in labels:
        assert re.search(rf"<td>{pid}</td>(?:(?!</tr>).)*<td>{re.escape(pre)}</td>\s*"
                         rf"<td class=\"post\">{re.escape(post)}", page.text, re.S)

    pid = data["sections"][0]["players"][0]["id"]
    api = client.get(f"/api{token_url}/explain/{pid}")
    assert api.status_code == 200
    assert api.text == cli(["rate", *args, "--explain", pid, "--json"], capsys)
    assert client.get(f"/api{token_url}/explain/99999999").status_code == 404
    expl = client.get(f"{token_url}/player/{pid}")
    assert expl.status_code == 200
    assert html.unescape(expl.text.split('id="explain">')[1].split("</pre>")[0]) == \
        cli(["rate", *args, "--explain", pid], capsys)
    assert client.get(f"{token_url}/player/99999999").status_code == 404

    for fmt, argv in (("json", ["--format", "json"]), ("csv", ["--format", "csv"]),
                      ("msa", ["--format", "msa"])):
        got = client.get(f"{token_url}/download/{fmt}")
        assert got.status_code == 200 and "attachment" in got.headers["content-disposition"]
        assert got.text == cli(["export", "crosstable", *args, *argv], capsys)
    got = client.get(f"{token_url}/download/dbf")
    assert got.headers["content-type"] == "application/zip"
    cli(["export", "dbf", *args, "-o", "out"], capsys)
    with zipfile.ZipFile(io.BytesIO(got.content)) as archive:
        assert sorted(archive.namelist()) == ["TDEXPORT.DBF", "THEXPORT.DBF", "TSEXPORT.DBF"]
        for name in archive.namelist():
            assert archive.read(name) == (tmp_path / "out" / name).read_bytes()
    assert client.get(f"{token_url}/download/pdf").status_code == 404
    assert client.get("/rate/not-a-token").status_code == 404


def test_download_names_are_safe(client):
    r = client.post("/rate", files={"event": ('we"ird\r\nname;.yaml', WFCC.read_bytes())},
                    follow_redirects=False)
    assert r.status_code == 303
    got = client.get(r.headers["location"] + "/download/csv")
    assert got.status_code == 200
    assert re.fullmatch(r'attachment; filename="we[A-Za-z0-9._-]*name-rated\.csv"',
                        got.headers["content-disposition"])


def test_report_without_member_data(client, capsys, tmp_path, monkeypatch):
    shutil.copytree(DBF, tmp_path / "club.zip")
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    assert main(["rate", "club.zip"]) == 2
    refused = capsys.readouterr().err.removeprefix("uschess: error: ").strip()
    r = client.post("/rate", files={"event": ("club.zip", report_zip())})
    # the same words, but the page's fields where the command line names its options
    assert r.status_code == 400 and page_error(r.text) == refused.replace(
        "(--players FILE)", "(the Players file)").replace(
        "--all-unrated", "the box 'rate them all as unrated'")
    expected = cli(["rate", "club.zip", "--all-unrated", "--json"], capsys)
    r = client.post("/api/rate", files={"event": ("club.zip", report_zip())},
                    data={"all_unrated": "1"})
    assert r.status_code == 200 and r.text == expected
    missing = json.loads(expected)["member_data"]["missing"]
    assert missing
    page = client.get(upload_dbf_unrated(client).headers["location"])
    assert f"{len(missing)} of {len(missing)} player(s) have no member data" in html.unescape(page.text)


def upload_dbf_unrated(client):
    return client.post("/rate", files={"event": ("club.zip", report_zip())},
                       data={"all_unrated": "1"}, follow_redirects=False)


def test_rate_trf_and_single_report_file(client):
    trf = ROOT / "fixtures" / "trf" / "club-championship.trf"
    r = client.post("/api/rate", files={"event": ("club.trf", trf.read_bytes()),
                                        "players": ("p.yaml", PLAYERS.read_bytes())})
    assert r.status_code == 200 and r.json()["event"]["source"] == "club.trf"
    r = client.post("/api/rate", files={"event": ("THEXPORT.DBF", (DBF / "THEXPORT.DBF").read_bytes())})
    assert r.status_code == 400  # the other two files of the report are not there
    assert r.json()["error"].startswith("THEXPORT.DBF: ")


@pytest.mark.parametrize("name, body, words", [
    ("event.pdf", b"%PDF", "event.pdf: not a file this page reads"),
    ("empty.yaml", b"", "empty.yaml: the uploaded file is empty"),
    ("broken.yaml", b"event: {name: x}\nsections: 3\n", "broken.yaml: "),
    ("../../../etc/cron.d/x.yaml", b"event: [\n", "x.yaml: malformed YAML"),
    ("notes.zip", b"PK\x03\x04 not really", "notes.zip: not a zip archive"),
    ("game.trf", b"012 nothing else\nrubbish\n", "game.trf"),
])
def test_bad_uploads_give_the_located_line(client, name, body, words):
    r = client.post("/rate", files={"event": (name, body)})
    assert r.status_code == 400
    line = page_error(r.text)
    assert line.startswith(words)
    assert "/tmp" not in line and "uschess-web-" not in line
    api = client.post("/api/rate", files={"event": (name, body)})
    assert api.status_code == 400 and api.json()["error"] == line


def test_zip_without_a_report_and_with_a_bad_member(client):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        archive.writestr("readme.txt", "hello")
        archive.writestr("../../THEXPORT.DBF", b"not a dbf")
    r = client.post("/rate", files={"event": ("report.zip", buf.getvalue())})
    assert r.status_code == 400
    assert page_error(r.text).startswith("report.zip: the zip holds no TSEXPORT.DBF, TDEXPORT.DBF")
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as archive:
        for name in ("THEXPORT.DBF", "TSEXPORT.DBF"):
            archive.write(DBF / name, arcname=name)
        archive.writestr("TDEXPORT.DBF", b"\x03garbage")
    r = client.post("/rate", files={"event": ("report.zip", buf.getvalue())})
    assert r.status_code == 400
    assert page_error(r.text).startswith("report.zip: TDEXPORT.DBF")


def test_uploads_are_size_and_time_limited():
    small = TestClient(create_app(max_upload=2000))
    r = small.post("/rate", files={"event": ("club.zip", report_zip())})
    assert r.status_code == 413 and "larger than the 0.002 MB this server accepts" in r.text
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as archive:
        for name in ("THEXPORT.DBF", "TSEXPORT.DBF"):
            archive.write(DBF / name, arcname=name)
        archive.writestr("TDEXPORT.DBF", b"\0" * 5_000_000)
    assert len(bomb.getvalue()) < 50_000
    r = TestClient(create_app(max_upload=50_000)).post("/rate", files={"event": ("bomb.zip", bomb.getvalue())})
    assert r.status_code == 400
    assert page_error(r.text) == "bomb.zip: the report unpacks to more than 0.05 MB"
    hurried = TestClient(create_app(time_limit=1e-6))
    r = hurried.post("/rate", files={"event": ("wfcc15.yaml", WFCC.read_bytes())})
    assert r.status_code == 400
    assert "not done within" in page_error(r.text)


def test_missing_file_and_bad_form_fields(client):
    r = client.post("/rate", data={"rules": "baseline"})
    assert r.status_code == 400 and "choose a file" in page_error(r.text)
    r = client.post("/rate", files={"event": ("wfcc15.yaml", WFCC.read_bytes())},
                    data={"rules": "rules-on:often"})
    assert r.status_code == 400 and "rules-on" in page_error(r.text)


# ---------------------------------------------------------------- audit

def test_published_results_file_opens_the_audit(client, capsys, tmp_path, monkeypatch):
    fixture = ROOT / "fixtures" / "audit" / "wfcc15-2024-b14.json"
    shutil.copy(fixture, tmp_path / fixture.name)
    monkeypatch.chdir(tmp_path)
    capsys.readouterr()
    status = main(["audit", fixture.name, "--json"])
    expected = capsys.readouterr().out
    assert status == 0
    api = client.post("/api/audit", files={"event": (fixture.name, fixture.read_bytes())})
    assert api.status_code == 200 and api.text == expected
    r = client.post("/rate", files={"event": (fixture.name, fixture.read_bytes())})
    assert r.status_code == 200
    data = json.loads(expected)
    assert html.unescape(re.findall(r'id="audit-summary">([^<]*)<', r.text)[0]) == data["summary"]
    assert client.post("/api/audit", files={"event": ("wfcc15.yaml", WFCC.read_bytes())}) \
        .json()["error"].startswith("wfcc15.yaml: carries no published ratings")


@pytest.mark.shared_data
def test_msa_crosstable_audit_lists_misses_first(client, capsys, monkeypatch):
    if not TEACHING_MSA.exists():
        pytest.skip(f"the shared data is not beside the project ({TEACHING_MSA})")
    monkeypatch.chdir(TEACHING_MSA.parent)
    expected = cli(["audit", TEACHING_MSA.name, "--start", "2016-01-15", "--json"], capsys)
    body = TEACHING_MSA.read_bytes()
    api = client.post("/api/audit", files={"event": (TEACHING_MSA.name, body)},
                      data={"start": "2016-01-15"})
    assert api.status_code == 200 and api.text == expected
    r = client.post("/rate", files={"event": (TEACHING_MSA.name, body)},
                    data={"start": "2016-01-15"})
    assert r.status_code == 200
    assert "62 of 64 reproduced" in r.text
    rows = re.findall(r'<tr class="(ok|miss)">', r.text)
    assert rows == ["miss"] * 2 + ["ok"] * 62
    misses = [p for p in json.loads(expected)["players"] if not p["reproduced"]]
    first = r.text.split('<tr class="miss">')[1:3]
    for p, row in zip(sorted(misses, key=lambda p: p["pair"]), first):
        assert f"<td>{p['id']}</td>" in row and "floor" in row
    r = client.post("/rate", files={"event": (TEACHING_MSA.name, body)})
    assert r.status_code == 400 and "give the section's start date" in page_error(r.text)


# ---------------------------------------------------------------- store

@pytest.fixture(scope="module")
def store(tmp_path_factory):
    root = tmp_path_factory.mktemp("store")
    assert main(["generate", "--players", "40", "--events", "6", "--seed", "5",
                 "-o", str(root / "hist")]) == 0
    assert main(["replay", str(root / "hist"), "--db", str(root / "ratings.db")]) == 0
    return root / "ratings.db"


def test_store_pages_and_player_api(store, capsys):
    from collections import Counter
    from uschess.io.formats.detect import load_event_any
    played = Counter(pl.id for f in sorted((store.parent / "hist").iterdir())
                     if f.suffix in (".json", ".yaml") for sec in load_event_any(f).sections
                     for pl in sec.players)
    pid = played.most_common(1)[0][0]  # the player with the longest history
    client = TestClient(create_app(str(store)))
    expected = cli(["player", pid, "--db", str(store), "--json"], capsys)
    api = client.get(f"/api/player/{pid}")
    assert api.status_code == 200 and api.text == expected
    page = client.get("/store", params={"id": pid})
    assert page.status_code == 200
    data = json.loads(expected)
    for system, s in data["systems"].items():
        assert f"{system}: {s['rating']:.2f} after {s['games']} games" in page.text
        for h in s["history"]:
            assert h["event"] in page.text
    plot = client.get(f"/store/plot/{pid}.png")
    assert plot.status_code == 200 and plot.content.startswith(b"\x89PNG")
    missing = client.get("/api/player/00000000")
    assert missing.status_code == 400 and "no player with id 00000000" in missing.json()["error"]
    assert client.get("/store", params={"id": "00000000"}).status_code == 400
    without = TestClient(create_app())
    assert "uschess serve --db" in without.get("/store").text
    assert without.get(f"/api/player/{pid}").status_code == 404


# ---------------------------------------------------------------- the command

def test_serve_refuses_a_missing_store(tmp_path, capsys):
    err = cli_error(["serve", "--db", str(tmp_path / "none.db")], capsys)
    assert err.count("\n") == 1 and "none.db" in err
    assert not (tmp_path / "none.db").exists()


def test_serve_answers_on_loopback():
    env = {k: v for k, v in os.environ.items() if k != "USCHESS_DB"}
    proc = subprocess.Popen([sys.executable, "-m", "uschess", "serve", "--port", "0", "--json"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    try:
        lines = []
        while not lines or lines[-1] != "}\n":  # the JSON, printed once listening
            line = proc.stdout.readline()
            if not line:
                raise AssertionError(f"serve stopped: {proc.stderr.read()}")
            lines.append(line)
        info = json.loads("".join(lines))
        assert info["host"] == "127.0.0.1" and info["port"] > 0 and info["db"] is None
        assert info["url"] == f"http://127.0.0.1:{info['port']}/"
        with urllib.request.urlopen(info["url"] + "rules", timeout=10) as r:
            assert "bonus_multiplier" in r.read().decode()
        with urllib.request.urlopen(info["url"] + "api/rules/conflicts", timeout=10) as r:
            assert "bonus-14-start" in json.loads(r.read())
    finally:
        proc.terminate()
        proc.wait(timeout=10)


def test_serve_refuses_a_port_in_use(capsys):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen(1)
        port = busy.getsockname()[1]
        err = cli_error(["serve", "--port", str(port)], capsys)
    assert err == f"uschess: error: cannot listen on 127.0.0.1 port {port}: Address already in use\n"


def test_uploads_are_staged_in_a_temporary_directory_and_removed(client, tmp_path, monkeypatch):
    import tempfile
    staging = tmp_path / "tmp"
    staging.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(staging))
    noted = tmp_path / "staged.txt"  # the upload is read in a worker process: noted in a file
    import uschess.web.uploads as uploads
    real_stage = uploads.Staging.stage

    def stage(self, upload, role, suffixes, max_bytes):
        path = real_stage(self, upload, role, suffixes, max_bytes)
        with noted.open("a") as fh:
            fh.write(f"{path}\n")
        return path

    monkeypatch.setattr(uploads.Staging, "stage", stage)
    r = client.post("/rate", files={"event": ("../../../../club.zip", report_zip()),
                                    "players": ("/etc/players.yaml", PLAYERS.read_bytes())},
                    follow_redirects=False)
    assert r.status_code == 303
    seen = [Path(line) for line in noted.read_text().splitlines()]
    assert [p.name for p in seen] == ["event", "players.yaml"]  # fixed names, not the uploads'
    assert all(staging in p.parents for p in seen)
    assert not any(p.exists() for p in seen)  # removed once read
    # what is left is the idle worker's own directory, empty
    assert all(d.name.startswith("uschess-web-worker-") and not any(d.iterdir())
               for d in staging.iterdir())
    assert not (tmp_path.parent / "club.zip").exists()


def test_a_streamed_body_past_the_limit_is_refused():
    import anyio
    from uschess.web.app import BodyLimit

    async def app(scope, receive, send):
        while (await receive()).get("more_body"):
            pass
        await send({"type": "http.response.start", "status": 200, "headers": []})
        await send({"type": "http.response.body", "body": b"read it all"})

    async def call():
        chunks = [{"type": "http.request", "body": b"x" * 600, "more_body": True}] * 3
        sent = []

        async def receive():
            return chunks.pop(0) if chunks else {"type": "http.request", "body": b""}

        async def send(message):
            sent.append(message)

        scope = {"type": "http", "method": "POST", "path": "/rate", "headers": []}
        await BodyLimit(app, 1000)(scope, receive, send)
        return sent

    sent = anyio.run(call)
    assert sent[0]["status"] == 413 and b"MB" in sent[1]["body"]


def test_a_bad_players_file_is_named_as_uploaded(client):
    r = client.post("/rate", files={"event": ("club.zip", report_zip()),
                                    "players": ("members.yaml", b"players:\n  '123': {ratings: 7}\n")})
    assert r.status_code == 400
    line = page_error(r.text)
    assert line.startswith("members.yaml: ") and "players.yaml" not in line


def test_serve_listens_on_loopback_by_default():
    from uschess.cli import build_parser
    args = build_parser("serve").parse_args(["serve"])
    assert (args.host, args.port, args.db) == ("127.0.0.1", 8000, None)


def test_templates_and_css_are_package_data():
    import fnmatch
    import tomllib
    globs = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"] \
        ["package-data"]["uschess.web"]
    web = ROOT / "engine" / "web"
    files = [p.relative_to(web).as_posix() for p in web.rglob("*")
             if p.is_file() and p.suffix not in (".py", ".pyc")]
    assert any(f.startswith("templates/") for f in files) and "static/style.css" in files
    missing = [f for f in files if not any(fnmatch.fnmatch(f, g) for g in globs)]
    assert not missing, f"not installed with the package: {missing}"


@pytest.mark.shared_data
def test_a_published_text_page_upload_opens_the_audit(client, capsys):
    """An MSA page copied to text states its dates and carries published
    ratings: the upload is audited as 'uschess audit PAGE' audits it."""
    page = SHARED_DATA / "real" / "waukesha-2022-late-spring" / "LateSpring-USCF.txt"
    r = client.post("/rate", files={"event": (page.name, page.read_bytes())})
    assert r.status_code == 200, r.text
    assert "of 34 reproduced" in r.text

