"""The high-rated K exception of sec. 4.2 applies only in a dual-rated section:
one rated in both OTB Regular and OTB Quick, which depends on the date (no
dual rating before 2002, up to mm + ss = 60 until the extension to 65, 000
sec. 8) and on the systems the section is actually rated in (000 and 004
sec. 4.2: "(i.e., dual-rated)").

Each minimal event: A (2300) beats B (2250) in one round; both have 100
games, W/D/L 50/25/25 and 20 events of three or more games.  The expected
ratings are computed here from the documents' formulas."""

from __future__ import annotations

import csv
import json
import math
import subprocess
import sys

import pytest
import yaml

from uschess.cli import main
from uschess.rating.pipeline import RatingOptions, rate_event

from helpers import ROOT, by_pair, event, player, rate

RECORD = {"wins": 50, "draws": 25, "losses": 25, "events3": 20}


def expected_score(r, opp):
    """Sec. 4.2: the winning expectancy 1/(1 + 10^(-(R - R_i)/400))."""
    return 1.0 / (1.0 + 10.0 ** (-(r - opp) / 400.0))


def nstar_2001(r):
    """002 "Standard rating formula": N* = 50/sqrt(1 + (2200 - R)^2/100000), 50 from 2200."""
    return 50.0 if r >= 2200 else 50.0 / math.sqrt(1 + (2200 - r) ** 2 / 100000)


def nstar_2013(r):
    """000 sec. 3: N* = 50/sqrt(0.662 + 0.00000739 (2569 - R)^2), 50 above 2355."""
    return 50.0 if r > 2355 else 50.0 / math.sqrt(0.662 + 0.00000739 * (2569 - r) ** 2)


def plain_k(r, nstar, games=100, m=1):
    """Sec. 4.2 without the exception: K = 800/(N' + m), N' = min(N, N*)."""
    return 800.0 / (min(games, nstar(r)) + m)


def two_player_posts(k_a, k_b, a=2300.0, b=2250.0):
    """Steps 4 and 5 (sec. 1) for a one-game event A beats B (no bonus, m < 3):
    step 5 rates each against the other's step-4 result."""
    a4 = a + k_a * (1 - expected_score(a, b))
    b4 = b + k_b * (0 - expected_score(b, a))
    return a + k_a * (1 - expected_score(a, b4)), b + k_b * (0 - expected_score(b, a4))


def minimal(start, tc, system="OTBR", online=False, **section):
    players = [player(1, ["W2"], rating=2300, games=100, system=system, record=dict(RECORD)),
               player(2, ["L1"], rating=2250, games=100, system=system, record=dict(RECORD))]
    return rate(players, start=start, tc=tc, online=online, **section)


def test_no_exception_before_dual_rating_existed():
    """2001-06-01, G/60;d0: rated in OTBR only (no dual rating until 2002),
    so K = 800/51, and 2001 ratings are integers rounded away from the pre."""
    res = minimal("2001-06-01", "G/60;d0")
    assert [s.system for s in res.sections] == ["OTBR"]
    got = by_pair(res)
    k = plain_k(2300, nstar_2001)
    assert k == 800 / 51
    assert got[1].k == k and got[2].k == plain_k(2250, nstar_2001)
    a, b = two_player_posts(k, plain_k(2250, nstar_2001))
    assert (math.ceil(a), math.floor(b)) == (2307, 2243)
    assert (got[1].post, got[2].post) == (2307.0, 2243.0)


def test_no_exception_above_60_before_the_extension_to_65():
    """2005-06-01, G/60;d5 (mm + ss = 65): dual rating reached only 60 then."""
    res = minimal("2005-06-01", "G/60;d5")
    assert [s.system for s in res.sections] == ["OTBR"]
    got = by_pair(res)
    assert got[1].k == 800 / 51
    assert (got[1].post, got[2].post) == (2307.0, 2243.0)


def test_no_exception_in_a_dual_rated_section_before_2013_05_08():
    """G/45;d5 (mm + ss = 50) was dual-rated in 2005, but the published
    record shows no exception before 2013-05-08 (rulesets/slots.yaml,
    k_factor, learned from the PACL pages): K = 800/(N' + m) in OTBR too."""
    res = minimal("2005-06-01", "G/45;d5")
    assert [s.system for s in res.sections] == ["OTBR", "OTBQ"]
    got = by_pair(res)
    assert got[1].k == plain_k(2300, nstar_2001) == 800 / 51
    assert got[2].k == plain_k(2250, nstar_2001)
    assert (got[1].post, got[2].post) == (2307.0, 2243.0)


def test_exception_in_a_dual_rated_section_from_2013_05_08():
    """The control: the same section of 2013-06-01 holds the exception in
    OTBR: K = 800(6.5 - 0.0025 R)/(N' + m), N' = min(N, N*) of 000 sec. 3."""
    res = minimal("2013-06-01", "G/45;d5")
    assert [s.system for s in res.sections] == ["OTBR", "OTBQ"]
    got = by_pair(res)
    k_a = 800 * (6.5 - 0.0025 * 2300) / (min(100, nstar_2013(2300)) + 1)
    k_b = 800 * (6.5 - 0.0025 * 2250) / (min(100, nstar_2013(2250)) + 1)
    assert got[1].k == pytest.approx(k_a, rel=1e-15) and got[2].k == pytest.approx(k_b, rel=1e-15)
    a, b = two_player_posts(k_a, k_b)
    assert (got[1].post, got[2].post) == (float(math.ceil(a)), float(math.floor(b))) == (2306.0, 2243.0)
    day_before = by_pair(minimal("2013-05-07", "G/45;d5"))
    assert day_before[1].k == plain_k(2300, nstar_2001)  # the N* of before 2013-05-08 too


def test_no_exception_online():
    """2018-06-01, online G/45;d5: rated in OLQ only, never dual-rated."""
    res = minimal("2018-06-01", "G/45;d5", system="OLQ", online=True)
    assert [s.system for s in res.sections] == ["OLQ"]
    got = by_pair(res, "OLQ")
    k_a, k_b = plain_k(2300, nstar_2013), plain_k(2250, nstar_2013)
    a, b = two_player_posts(k_a, k_b)
    assert got[1].k == pytest.approx(k_a, rel=1e-14) and got[2].k == pytest.approx(k_b, rel=1e-14)
    assert got[1].post == pytest.approx(a, rel=1e-14) and got[2].post == pytest.approx(b, rel=1e-14)
    assert round(got[1].post, 4) == 2307.1486 and round(got[2].post, 4) == 2242.2278


def test_no_exception_in_a_section_declared_in_one_system():
    """A dual-rated time control whose section is declared OTBR only is rated
    in one system: no exception (2018, the 2017 wording)."""
    got = by_pair(minimal("2018-06-01", "G/45;d5", systems=["OTBR"]))
    k = plain_k(2300, nstar_2013)
    assert got[1].k == pytest.approx(k, rel=1e-14)
    dual = by_pair(minimal("2018-06-01", "G/45;d5"))
    assert dual[1].k == pytest.approx(800 * (6.5 - 0.0025 * 2300) / (nstar_2013(2300) + 1), rel=1e-14)


def test_no_exception_when_declared_dual_before_dual_rating():
    """Declaring both systems in 2001 does not make a section dual-rated
    before dual rating existed."""
    got = by_pair(minimal("2001-06-01", "G/45;d5", systems=["OTBR", "OTBQ"]))
    assert got[1].k == 800 / 51


def _event_file(tmp_path, start, tc, online=False, system="OTBR"):
    players = [{"pair": i, "id": pid, "name": name, "rounds": [r],
                "ratings": {system: {"rating": rating, "games": 100, **RECORD}}}
               for i, pid, name, rating, r in ((1, "10000001", "A, Player", 2300.0, "W2"),
                                               (2, "10000002", "B, Player", 2250.0, "L1"))]
    data = {"event": {"name": "Dual check", "id": f"dual-{start}", "start": start, "online": online},
            "sections": [{"name": "OPEN", "time_control": tc, "players": players}]}
    path = tmp_path / f"dual-{start}.yaml"
    path.write_text(yaml.safe_dump(data, sort_keys=False), encoding="utf-8")
    return path, data


def _cli(*args):
    return subprocess.run([sys.executable, "-m", "uschess", *map(str, args)], capture_output=True,
                          text=True, cwd=ROOT)


@pytest.mark.parametrize("start,tc,online,system,want", [
    ("2001-06-01", "G/60;d0", False, "OTBR", {"10000001": 2307.0, "10000002": 2243.0}),
    pytest.param("2005-06-01", "G/60;d5", False, "OTBR", {"10000001": 2307.0, "10000002": 2243.0},
                 marks=pytest.mark.slow),
    ("2018-06-01", "G/45;d5", True, "OLQ", {"10000001": 2307.1486, "10000002": 2242.2278}),
])
def test_every_command_that_rates_agrees(tmp_path, start, tc, online, system, want):
    """rate --json, export crosstable, compare, audit and replay give the
    same posts for the minimal events."""
    path, data = _event_file(tmp_path, start, tc, online, system)

    def close(posts):
        return {pid: round(v, 4) for pid, v in posts.items()} == want

    out = _cli("rate", path, "--json")
    assert out.returncode == 0, out.stderr
    rated = {p["id"]: p["post"] for s in json.loads(out.stdout)["sections"] for p in s["players"]}
    assert close(rated)

    csv_path = tmp_path / "ct.csv"
    assert main(["export", "crosstable", str(path), "--format", "csv", "-o", str(csv_path)]) == 0
    with csv_path.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert {r["id"]: float(r["post"]) for r in rows} == rated

    out = _cli("compare", path, "--b", "baseline", "--json")
    assert out.returncode == 0, out.stderr
    cmp = json.loads(out.stdout)["players"]
    assert {r["id"]: r["a"] for r in cmp} == rated == {r["id"]: r["b"] for r in cmp}

    published = dict(data, published=[{"id": pid, "system": system, "post": v}
                                      for pid, v in rated.items()])
    pub_path = tmp_path / "published.json"
    pub_path.write_text(json.dumps(published), encoding="utf-8")
    out = _cli("audit", pub_path, "--json", "--tolerance", "0.00001")
    assert out.returncode == 0, out.stderr
    audit = json.loads(out.stdout)
    assert audit["reproduced"] == audit["total"] == 2

    db = tmp_path / "r.db"
    assert main(["replay", str(path), "--db", str(db)]) == 0
    for pid, post in rated.items():
        out = _cli("player", pid, "--db", db, "--json")
        assert out.returncode == 0, out.stderr
        assert json.loads(out.stdout)["systems"][system]["rating"] == post


def test_rules_timeline_and_show_name_the_dual_rating_dependence():
    out = _cli("rules", "timeline", "k_dual")
    assert out.returncode == 0 and "dual-rated" in out.stdout and "dual_rating_systems" in out.stdout
    out = _cli("rules", "timeline", "dual_rating_systems")
    assert out.returncode == 0
    lines = out.stdout.splitlines()
    assert any(line.strip().startswith("2001-01-01  []") for line in lines)
    assert any(line.strip().startswith('2002-01-01  ["OTBR", "OTBQ"]') and "gap" in line for line in lines)
    out = _cli("rules", "timeline", "k_factor")
    assert "dual-rated sections" in out.stdout and 'record "dual-rating K exception"' in out.stdout
    out = _cli("rules", "show", "--on", "2001-06-01")
    assert "dual_rating_systems    = []" in out.stdout and "k-002" in out.stdout
    out = _cli("rules", "show", "--on", "2013-06-01")
    assert "k-dual-otbr" in out.stdout
    out = _cli("rules", "show", "--on", "2005-06-01", "--json")
    assert json.loads(out.stdout)["parameters"]["dual_rating_systems"]["value"] == ["OTBR", "OTBQ"]


def test_match_and_fide_paths_pass_the_systems():
    """A dual-rated match of 2018 gets the exception in OTBR; a FIDE update
    (no time control) never does."""
    from uschess.io.fide_file import fide_update_from_dict
    from uschess.rating.fide_update import fide_update
    players = [player(i, [r], ratings={s: {"rating": rating, "games": 100, **RECORD}
                                       for s in ("OTBR", "OTBQ")})
               for i, r, rating in ((1, "W2", 2300.0), (2, "L1", 2250.0))]
    res = rate_event(event(players, start="2018-06-01", tc="G/45;d5", type="match"), RatingOptions())
    got = by_pair(res)
    assert got[1].k == pytest.approx(800 * (6.5 - 0.0025 * 2300) / (nstar_2013(2300) + 1), rel=1e-14)
    upd = fide_update_from_dict({"kind": "fide-update",
                             "event": {"name": "Abroad", "start": "2018-06-01", "end": "2018-06-02"},
                             "player": {"id": "1", "ratings": {"OTBR": {"rating": 2300.0, "games": 100}}},
                             "games": [{"fide": 2200, "result": "W"}]}, "upd.yaml")
    assert fide_update(upd).k == pytest.approx(plain_k(2300, nstar_2013), rel=1e-14)


def test_the_dual_rating_gap_of_2002_is_shown_but_no_2002_rating_reads_it():
    """000 sec. 8 gives no day for dual rating in 2002 (project reading 8):
    the rules of 2002 say so, and since the K exception is not in force
    before 2013-05-08 (the record), no player's rating of 2002 reads it."""
    out = _cli("rules", "show", "--on", "2002-06-01")
    assert any(line.startswith("  ! dual_rating_systems") and "2002-??-??" in line
               for line in out.stdout.splitlines())
    got = by_pair(minimal("2002-06-01", "G/45;d5"))
    assert not any(w.startswith("dual_rating_systems") for w in got[1].warnings)
    assert got[1].k == 800 / 51
