"""The command line as a user runs it: output, JSON shape and bad input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from uschess.cli import main

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "fixtures" / "events" / "wfcc15.yaml"


def run(*args):
    return subprocess.run([sys.executable, "-m", "uschess", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


def test_rate_prints_crosstables():
    out = run("rate", EXAMPLE)
    assert out.returncode == 0, out.stderr
    assert "UNDER 1400 - OTBR" in out.stdout and "UNDER 1400 - OTBQ" in out.stdout
    assert "R: 1206P6 -> " in out.stdout and "Unrated -> " in out.stdout


def test_rate_json_shape(capsys):
    assert main(["rate", str(EXAMPLE), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"event", "rulesets", "sections"}
    sec = data["sections"][0]
    # each distinct rule set is given once and referred to by its fingerprint
    assert len(data["rulesets"]) == len({s["rules"] for s in data["sections"]})
    assert all(data["rulesets"][s["rules"]]["fingerprint"] == s["rules"] for s in data["sections"])
    assert {"name", "system", "rules", "players"} <= set(sec)
    for key in ("id", "pair", "pre", "post", "post_rounded", "games_before", "games_after", "formula",
                "initial", "n_eff", "step3", "step4", "step5", "k", "bonus", "floor", "floor_applied",
                "record_after"):
        assert key in sec["players"][0]
    assert isinstance(sec["players"][0]["post"], float)
    assert data["rulesets"][sec["rules"]]["parameters"]["bonus_multiplier"]["source"] == "000"


def test_python_api_matches_json(capsys):
    from uschess.io.eventfile import load_event
    from uschess.rating.pipeline import rate_event
    result = rate_event(load_event(EXAMPLE))
    main(["rate", str(EXAMPLE), "--json"])
    assert json.loads(capsys.readouterr().out) == json.loads(json.dumps(result.as_dict(), default=str))


def test_explain_cites_sources(capsys):
    assert main(["rate", str(EXAMPLE), "--explain", "32711850"]) == 0
    out = capsys.readouterr().out
    assert "step 1" in out and "blended" in out and "000 sec. 4.1" in out and "step 5" in out


def test_explain_shows_numbers_as_the_documents_do_and_json_keeps_them(capsys):
    """Ratings, points and N' to 2 decimals, K to 2 and E to 3 (as 002's
    worked example: N_e = 16.57, K = 38.89, E = 1.363); every digit in --json."""
    import re
    assert main(["rate", str(EXAMPLE), "--explain", "32207444"]) == 0
    out = capsys.readouterr().out
    assert not re.search(r"[0-9]\.[0-9]{4,}", out), out
    assert "K = 50.00" in out and re.search(r"E = [0-9]\.[0-9]{3}$", out, re.M)
    assert "post = 1232.46 (shown 1232)" in out and "walk [1282.28]" in out
    assert main(["rate", str(EXAMPLE), "--explain", "32207444", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {e["result"]["post"] for e in data["explanations"]} == {1282.2762379232822,
                                                                   1232.4614393370912}


def test_rules_show_json(capsys):
    assert main(["rules", "show", "--on", "2016-01-15", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["on"] == "2016-01-15"
    b = data["parameters"]["bonus_multiplier"]
    assert b["value"] == 12 and b["effective"] == "2015-06-01" and b["source"] == "000" and b["section"] == "8"
    assert {"slot", "name"} <= set(data["plugins"][0])


def test_rules_timeline_and_diff(capsys):
    assert main(["rules", "timeline", "bonus_multiplier"]) == 0
    out = capsys.readouterr().out
    assert "2017-05-01" in out and "2017-06-01" in out and "retroactive" in out
    assert main(["rules", "diff", "2016-01-01", "2025-03-01", "--json"]) == 0
    names = {c["name"] for c in json.loads(capsys.readouterr().out)["changes"]}
    assert {"bonus_multiplier", "initialize", "fide_conversion", "cfc_conversion"} <= names


def write(tmp_path, data, name="e.yaml"):
    p = tmp_path / name
    p.write_text(data if isinstance(data, str) else yaml.safe_dump(data), encoding="utf-8")
    return p


def base():
    return yaml.safe_load(EXAMPLE.read_text())


@pytest.mark.parametrize("mutate,needle", [
    (lambda e: e["sections"][0]["players"][0]["rounds"].__setitem__(0, "W9"), "opponent pair 9 does not exist"),
    (lambda e: e["sections"][0]["players"][1]["rounds"].__setitem__(0, "W1"), "results disagree"),
    (lambda e: e["sections"][0]["players"].append(dict(e["sections"][0]["players"][0])), "listed twice"),
    (lambda e: e["sections"][0]["players"][0]["rounds"].append("B"), "rounds but player"),
    (lambda e: e["sections"][0].__setitem__("time_control", "sixty minutes"), "cannot read"),
    (lambda e: e["sections"][0]["players"][0]["ratings"]["OTBR"].__setitem__("rating", -5), "impossible"),
    (lambda e: e["sections"][0]["players"][0]["ratings"]["OTBR"].__setitem__("wins", 99), "exceeds games"),
    (lambda e: e["event"].__setitem__("end", "2025-03-01"), "before start"),
    (lambda e: [e["event"].update(start="1999-05-01", end="1999-05-01"),
                [p.pop("birth_date", None) for p in e["sections"][0]["players"]]],
     "before the earliest rule"),
    (lambda e: e["sections"][0]["players"][0].pop("id"), "missing 'id'"),
    (lambda e: e["sections"][0]["players"][0]["rounds"].__setitem__(1, "Q5"), "round 2"),
    (lambda e: e["sections"][0].__setitem__("time_control", "G/2+1"), "rated in no"),
])
def test_bad_input_exit_2_one_line(tmp_path, capsys, mutate, needle):
    data = base()
    mutate(data)
    path = write(tmp_path, data)
    assert main(["rate", str(path)]) == 2
    err = capsys.readouterr().err
    assert needle in err and str(path) in err and err.count("\n") == 1
    assert "Traceback" not in err


def test_error_names_section_player_and_round(tmp_path, capsys):
    data = base()
    data["sections"][0]["players"][0]["rounds"][2] = "W6"
    main(["rate", str(write(tmp_path, data))])
    err = capsys.readouterr().err
    assert "section 'UNDER 1400'" in err and "player 1 (Pabon, Matthew)" in err and "round 3" in err


@pytest.mark.parametrize("text,needle", [("event: [unclosed", "malformed YAML"),
                                         ("!!python/object:os.system {}", "malformed YAML"),
                                         ("", "must be a mapping")])
def test_malformed_files(tmp_path, capsys, text, needle):
    assert main(["rate", str(write(tmp_path, text))]) == 2
    assert needle in capsys.readouterr().err


def test_malformed_json_and_missing_file(tmp_path, capsys):
    assert main(["rate", str(write(tmp_path, "{\"event\": ", "e.json"))]) == 2
    assert "malformed JSON" in capsys.readouterr().err
    assert main(["rate", str(tmp_path / "nope.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_fixtures_match_published_schema():
    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads((ROOT / "engine" / "event.schema.json").read_text())
    for path in (ROOT / "fixtures" / "events").glob("*.yaml"):
        if path.name.endswith(".players.yaml"):
            continue
        data = json.loads(json.dumps(yaml.safe_load(path.read_text()), default=str))
        jsonschema.validate(data, schema)


def test_json_for_a_player_left_unrated(tmp_path, capsys):
    """An unrated player whose only round is a bye stays unrated: post is null."""
    data = base()
    sec = data["sections"][1]
    sec["players"].append({"pair": 5, "id": "39999999", "name": "Late, Entry", "rounds": ["B", "U", "U"]})
    assert main(["rate", str(write(tmp_path, data)), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    late = [p for s in out["sections"] for p in s["players"] if p["id"] == "39999999"][0]
    assert late["post"] is None and late["post_rounded"] is None and late["m"] == 0
    assert main(["rate", str(write(tmp_path, data))]) == 0
    assert "Unrated -> Unrated" in capsys.readouterr().out


def test_a_directory_given_to_replay_stands_for_its_event_files(tmp_path):
    """``uschess replay DIR``: the files of DIR whose last suffix is an event
    file's (as Path.suffix reads it, any case), players files and
    directories left out, symbolic links to files followed; sorted."""
    from uschess.commands.replay import expand

    d = tmp_path / "events"
    d.mkdir()
    for name in ("b.json", "a.YAML", "c.yml", "d.trf", "e.players.yaml", "E.Players.JSON",
                 "f.txt", ".json", "g.", "h.json.bak", "..json", "players.json"):
        (d / name).write_text("{}", encoding="utf-8")
    (d / "dir.json").mkdir()
    (d / "link.json").symlink_to(d / "b.json")
    (d / "dangling.json").symlink_to(d / "missing.json")
    got = expand([str(d) + "/"])
    want = sorted(str(p) for p in d.iterdir()
                  if p.suffix.lower() in (".json", ".yaml", ".yml", ".trf") and p.is_file()
                  and not p.stem.lower().endswith(".players"))
    assert got == want
    assert [Path(p).name for p in got] == ["..json", "a.YAML", "b.json", "c.yml", "d.trf",
                                           "link.json", "players.json"]


def test_a_directory_that_cannot_be_listed_is_one_line(tmp_path, monkeypatch, capsys):
    import os

    d = tmp_path / "events"
    d.mkdir()

    def refused(path):
        raise PermissionError(13, "Permission denied", str(path))
    monkeypatch.setattr(os, "listdir", refused)
    assert main(["replay", str(d), "--db", str(tmp_path / "r.db")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "cannot list the directory: Permission denied" in err
    assert str(d) in err and not (tmp_path / "r.db").exists()


def test_audit_of_a_page_shows_its_progress_on_a_terminal_only(capsys):
    """The audit of a page (its share done unknown) says what runs and for
    how long: on a terminal or with --progress, never with --quiet, and
    nothing of it is left on the line."""
    page = str(ROOT / "fixtures" / "audit" / "wfcc15-2024-b14.json")
    assert main(["audit", page, "--json"]) == 0
    assert capsys.readouterr().err == ""  # standard error is no terminal here
    assert main(["audit", page, "--json", "--progress"]) == 0
    captured = capsys.readouterr()
    assert f"auditing {page}: 00:0" in captured.err and captured.err.endswith("\r")
    assert json.loads(captured.out)["total"] == 16
    assert main(["audit", page, "--json", "--progress", "-q"]) == 0
    assert capsys.readouterr().err == ""


def test_explain_of_a_player_not_in_the_event_is_refused_before_rating(capsys, monkeypatch):
    import uschess.commands.rate as command
    monkeypatch.setattr(command, "rate_event", lambda *a, **k: pytest.fail("rated"))
    assert main(["rate", str(EXAMPLE), "--explain", "99999999"]) == 2
    assert capsys.readouterr().err == (f"uschess: error: {EXAMPLE}: no player with id "
                                       "'99999999' in this event\n")
