"""A section that declares its rating systems (an event file's ``systems``, a
rating report's S_R_SYSTEM) is rated as declared, and where the declaration
contradicts the time control every output says so: the declared systems and
what the time control is rated in on that date (000 footnote 1, sec. 8)."""

from __future__ import annotations

import json
import subprocess
import sys

import yaml

from uschess.cli import main
from uschess.io.eventfile import load_event
from uschess.rating.pipeline import rate_event

from helpers import ROOT, by_pair, player, rate

WARNING = ("section declared as rated in OTBR, but G/3+2 (mm + ss = 5) is rated in OTBB over "
           "the board on 2018-06-01")


def _blitz(tmp_path, systems=("OTBR",), tc="G/3+2", start="2018-06-01"):
    data = {"event": {"name": "Blitz night", "id": "blitz", "start": start},
            "sections": [{"name": "BLITZ", "time_control": tc, "systems": list(systems), "players": [
                {"pair": 1, "id": "10000001", "name": "A", "rounds": ["W2"],
                 "ratings": {s: {"rating": 1500.0, "games": 40} for s in ("OTBR", "OTBQ", "OTBB")}},
                {"pair": 2, "id": "10000002", "name": "B", "rounds": ["L1"],
                 "ratings": {s: {"rating": 1400.0, "games": 40} for s in ("OTBR", "OTBQ", "OTBB")}}]}]}
    path = tmp_path / "blitz.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path, data


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "uschess", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


def test_override_is_honoured_and_warned_in_text_json_and_explain(tmp_path):
    path, _ = _blitz(tmp_path)
    res = rate_event(load_event(path))
    assert [s.system for s in res.sections] == ["OTBR"]
    # rated as declared: the OTBR records move, exactly as an OTBR-classified section would
    plain = by_pair(rate([player(1, ["W2"], rating=1500.0, games=40),
                          player(2, ["L1"], rating=1400.0, games=40)], start="2018-06-01", tc="G/90;d30"))
    assert {p.pair: p.post for p in res.sections[0].players} == {k: v.post for k, v in plain.items()}
    assert res.sections[0].warnings == [WARNING + " [000 sec. 8]; rated as declared"]

    out = _cli("rate", path)
    assert out.returncode == 0, out.stderr
    assert "notes on the section:\n  ! " + WARNING in out.stdout
    out = _cli("rate", path, "--json")
    assert any(w.startswith(WARNING) for w in json.loads(out.stdout)["sections"][0]["warnings"])
    out = _cli("rate", path, "--explain", "10000001")
    assert "  ! " + WARNING in out.stdout


def test_audit_names_the_declared_system(tmp_path):
    path, data = _blitz(tmp_path)
    posts = {p.id: p.post for p in rate_event(load_event(path)).sections[0].players}
    pub = dict(data, published=[{"id": pid, "system": "OTBR", "post": v} for pid, v in posts.items()])
    pub_path = tmp_path / "published.json"
    pub_path.write_text(json.dumps(pub), encoding="utf-8")
    out = _cli("audit", pub_path, "--json")
    assert out.returncode == 0, out.stderr
    audit = json.loads(out.stdout)
    assert audit["reproduced"] == 2
    assert any(w.startswith(WARNING) for w in audit["sections"][0]["warnings"])
    html = tmp_path / "audit.html"
    out = _cli("audit", pub_path, "--html", html)
    assert out.returncode == 0, out.stderr
    assert WARNING in out.stdout and WARNING in html.read_text(encoding="utf-8")


def test_rating_report_s_r_system_contradicting_the_time_control(tmp_path):
    """A DBF rating report whose S_R_SYSTEM says R for a G/3+2 section."""
    path, data = _blitz(tmp_path)
    report = tmp_path / "report"
    assert main(["export", "dbf", str(path), "-o", str(report)]) == 0
    players = {"players": {p["id"]: {"name": p["name"], "ratings": p["ratings"]}
                           for p in data["sections"][0]["players"]}}
    pfile = tmp_path / "players.yaml"
    pfile.write_text(yaml.safe_dump(players), encoding="utf-8")
    out = _cli("rate", report, "--players", pfile, "--json")
    assert out.returncode == 0, out.stderr
    sec = json.loads(out.stdout)["sections"]
    assert [s["system"] for s in sec] == ["OTBR"]
    assert any(w.startswith(WARNING) for w in sec[0]["warnings"])


def test_no_warning_when_the_declaration_agrees(tmp_path):
    path, _ = _blitz(tmp_path, systems=("OTBR", "OTBQ"), tc="G/45;d5")
    res = rate_event(load_event(path))
    assert [s.system for s in res.sections] == ["OTBR", "OTBQ"]
    assert all(s.warnings == [] for s in res.sections)
    club = rate_event(load_event(ROOT / "fixtures" / "events" / "club-championship.yaml"))
    assert all(s.warnings == [] for s in club.sections)


def test_warning_uses_the_rules_of_the_sections_date(tmp_path):
    """In 2010 a G/3+2 section was quick-rated (OTBQ from mm + ss = 5, 2004);
    declared Regular, the warning says so."""
    path, _ = _blitz(tmp_path, start="2010-06-01")
    res = rate_event(load_event(path))
    assert res.sections[0].warnings[0].startswith(
        "section declared as rated in OTBR, but G/3+2 (mm + ss = 5) is rated in OTBQ over the "
        "board on 2010-06-01")
    # a dual-rated control declared Regular only is named with both systems
    path, _ = _blitz(tmp_path, tc="G/45;d5")
    assert "is rated in OTBR + OTBQ over the board" in rate_event(load_event(path)).sections[0].warnings[0]
