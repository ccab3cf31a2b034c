"""Comparing rule versions (engine/compare.py, ``uschess compare``)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
import yaml

from uschess.cli import main
from uschess.apps.compare import (CSV_COLUMNS, compare, order_events, parse_rules_spec, replay,
                            to_csv)
from uschess.errors import InputError
from uschess.io.eventfile import event_to_dict, load_event
from uschess.io.formats.msa import load_msa
from uschess.rating.pipeline import RatingOptions, rate_event
from uschess.calendar.rulebook import RuleBook

from helpers import TEACHING_MSA

ROOT = Path(__file__).resolve().parents[2]
WFCC = ROOT / "fixtures" / "events" / "wfcc15.yaml"
MSA = TEACHING_MSA
REFORMS = ROOT / "fixtures" / "reforms"
B16 = REFORMS / "b-16.yaml"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _shifted(event_raw: dict, days: int, event_id: str) -> dict:
    """An event-file dict moved ``days`` later (record dates kept)."""
    raw = json.loads(json.dumps(event_raw))
    for key in ("start", "end"):
        raw["event"][key] = (dt.date.fromisoformat(raw["event"][key]) + dt.timedelta(days=days)).isoformat()
    raw["event"]["id"] = event_id
    raw["event"]["name"] = f"{raw['event']['name']} +{days}d"
    return raw


@pytest.fixture(scope="module")
def wfcc():
    return load_event(WFCC)


@pytest.fixture(scope="module")
def msa_event():
    return load_msa(MSA, start=dt.date(2016, 1, 15)).event


@pytest.fixture()
def two_events(tmp_path):
    """wfcc15 and the same event four weeks later, as files (the later one first)."""
    raw = event_to_dict(load_event(WFCC))
    raw["event"]["id"] = "wfcc15"
    later = tmp_path / "later.yaml"
    first = tmp_path / "first.yaml"
    later.write_text(yaml.safe_dump(_shifted(raw, 28, "wfcc15-later")), encoding="utf-8")
    first.write_text(yaml.safe_dump(raw), encoding="utf-8")
    return later, first


# ------------------------------------------------------------- semantics

@pytest.mark.parametrize("spec", ["baseline", "rules-on:2016-01-15", "edition:2017-04-24",
                                  "known-on:2025-01-01", "reading:p-count=2017-text",
                                  f"reform:{B16}"])
def test_identical_rules_show_no_differences(wfcc, spec):
    a = parse_rules_spec(spec)
    b = parse_rules_spec(spec)
    cmp = compare([wfcc], a, b)
    overall = cmp.summary()["overall"]
    assert cmp.rows and overall["rated"] == len(cmp.rows)
    assert overall["changed"] == 0 and overall["changed_shown"] == 0
    assert overall["winners"] == overall["losers"] == 0
    assert overall["mean"] == 0 and overall["mean_abs"] == 0 and overall["largest"] is None
    assert all(r.diff == 0 for r in cmp.rows)


def _bonus(pr, step):
    info = pr.trace.get(step) or {}
    return info.get("bonus") or 0


@pytest.mark.parametrize("which", ["wfcc", pytest.param("msa_event", marks=pytest.mark.shared_data)])
@pytest.mark.parametrize("b_value", [6, 8, 14, 16])
def test_a_reform_of_b_changes_the_players_with_bonuses(request, tmp_path, which, b_value):
    """Changing B changes every player with a bonus under either side, and
    nobody else except through them: step 5 rates each player against the
    opponents' step-4 ratings, so an opponent of a player whose step-4 bonus
    changed moves too (the brief's "exactly the players with bonuses" holds for
    a player's own formula; the opponents' step 5 follows from the pipeline)."""
    event = request.getfixturevalue(which)
    reform = tmp_path / "b.yaml"
    reform.write_text(yaml.safe_dump({"name": f"B {b_value}", "parameters": {
        "bonus_multiplier": [{"from": "2001-01-01", "value": b_value}]}}), encoding="utf-8")
    cmp = compare([event], parse_rules_spec("baseline"), parse_rules_spec(f"reform:{reform}"))
    changed = {(r.section, r.system, r.pair) for r in cmp.rows if r.changed}
    bonus_final = {(r.section, r.system, r.pair) for r in cmp.rows
                   if (r.a.bonus or 0) > 0 or (r.b.bonus or 0) > 0}
    bonus_step4 = {(r.section, r.system, r.pair) for r in cmp.rows
                   if _bonus(r.a, "step4") > 0 or _bonus(r.b, "step4") > 0}
    assert bonus_final, "the event should have players with a bonus"
    assert bonus_final <= changed
    reached = set(bonus_final | bonus_step4)
    for sec in event.sections:
        for p in sec.players:
            for system in {r.system for r in cmp.rows if r.section == sec.name}:
                if (sec.name, system, p.pair) in bonus_step4:
                    reached |= {(sec.name, system, r.opponent) for r in p.rounds if r.rated}
    assert changed <= reached
    # A player with no bonus anywhere and no opponent with a step-4 bonus is untouched.
    untouched = {(r.section, r.system, r.pair) for r in cmp.rows} - reached
    assert all(not r.changed for r in cmp.rows if (r.section, r.system, r.pair) in untouched)


def test_b_reform_in_numbers(wfcc):
    """Pabon's OTBQ bonus: B 10 -> 16 with m' = 4 costs 6 x 2 = 12 points."""
    cmp = compare([wfcc], parse_rules_spec("baseline"), parse_rules_spec(f"reform:{B16}"))
    row = next(r for r in cmp.rows if r.id == "32207444" and r.system == "OTBQ")
    assert row.a.bonus > 0 and row.diff == pytest.approx(-12.0)
    s = cmp.summary()
    assert s["overall"]["largest"]["id"] == "32207444"
    assert s["overall"]["losers"] == s["overall"]["changed"] and s["overall"]["winners"] == 0
    assert s["systems"]["OTBR"]["changed"] == 0
    assert s["events"][0]["event"] == "wfcc15"


@pytest.mark.shared_data
def test_a_reform_never_changes_the_baseline(wfcc, msa_event):
    book = RuleBook.load()
    before = [json.dumps(rate_event(e).as_dict(), sort_keys=True, default=str) for e in (wfcc, msa_event)]
    fp_before = [book.rules(d).fingerprint for d in (dt.date(2016, 1, 15), dt.date(2025, 3, 21))]
    entries_before = [(e.effective, e.value) for e in book.timelines["bonus_multiplier"].entries]
    for spec in (f"reform:{B16}", f"reform:{REFORMS / 'b-stays-14.yaml'}",
                 f"reform:{REFORMS / 'priority-lists-after-2020.yaml'}"):
        compare([wfcc, msa_event], parse_rules_spec("baseline"), parse_rules_spec(spec))
    after = [json.dumps(rate_event(e).as_dict(), sort_keys=True, default=str) for e in (wfcc, msa_event)]
    assert before == after
    assert fp_before == [book.rules(d).fingerprint for d in (dt.date(2016, 1, 15), dt.date(2025, 3, 21))]
    assert entries_before == [(e.effective, e.value) for e in book.timelines["bonus_multiplier"].entries]
    assert RuleBook.load() is book


def test_fixture_reforms(wfcc):
    b14 = parse_rules_spec(f"reform:{REFORMS / 'b-stays-14.yaml'}")
    book = RuleBook.load()
    assert book.rules(dt.date(2024, 1, 1), reform=b14.options.reform).p.bonus_multiplier == 14
    assert book.rules(dt.date(2025, 3, 21), reform=b14.options.reform).p.bonus_multiplier == 14
    assert book.rules(dt.date(2023, 1, 31), reform=b14.options.reform).p.bonus_multiplier == 14
    assert book.rules(dt.date(2016, 1, 15), reform=b14.options.reform).p.bonus_multiplier == 12
    pl = parse_rules_spec(f"reform:{REFORMS / 'priority-lists-after-2020.yaml'}")
    rules = book.rules(dt.date(2025, 3, 21), reform=pl.options.reform)
    assert rules.plugins["initialize"].value == "priority-2020-06"
    assert book.rules(dt.date(2025, 3, 21)).plugins["initialize"].value == "blended"
    cmp = compare([wfcc], parse_rules_spec("baseline"), pl)
    # Only the unrated players' initial ratings differ, and through them their opponents.
    assert {r.id for r in cmp.rows if r.changed} and all(
        r.a.initial is not None for r in cmp.rows if r.changed and r.a.pre is None)


def test_rules_specifications():
    assert parse_rules_spec("baseline").options == RatingOptions()
    side = parse_rules_spec(f"reform:{B16}+known-on:2025-01-01")
    assert side.options.reform.name == "B is 16" and side.options.known_on == dt.date(2025, 1, 1)
    assert parse_rules_spec("reading:p-count=2017-text,bonus-14-start=2017-text").options.readings == {
        "p-count": "2017-text", "bonus-14-start": "2017-text"}
    assert parse_rules_spec("edition:2017-04-24").options.edition == "2017-04-24"
    assert parse_rules_spec("rules-on:2016-01-15").options.rules_on == dt.date(2016, 1, 15)
    for bad in ("", "later", "rules-on:", "rules-on:someday", "edition:1999-01-01",
                "reading:p-count", "reading:nope=x", "reading:p-count=nope",
                "baseline+known-on:2020-01-01", "known-on:2020-01-01+known-on:2021-01-01",
                "reform:/no/such/file.yaml", "rules-on:1990-01-01", "baseline:x"):
        with pytest.raises(InputError):
            parse_rules_spec(bad, what="--b")


# ------------------------------------------------------------- the chain

def test_chain_feeds_each_sides_record_after_into_the_next_event(two_events):
    later, first = two_events
    events = [load_event(later), load_event(first)]
    ordered = order_events(events)
    assert [k for k, _ in ordered] == ["wfcc15", "wfcc15-later"]  # by end date, not argument order
    a = parse_rules_spec("baseline")
    b = parse_rules_spec(f"reform:{B16}")
    cmp = compare(events, a, b)
    for side in ("a", "b"):
        results = cmp.results_a if side == "a" else cmp.results_b
        first_posts = {(p.id, s.system): p.record_after for s in results[0].sections for p in s.players if p.m}
        for s in results[1].sections:
            for p in s.players:
                if (p.id, s.system) in first_posts:
                    rec = first_posts[(p.id, s.system)]
                    assert p.pre == rec.rating and p.games_before == rec.games
    # Under B the first event's -12 for Pabon's OTBQ is carried into the second.
    pabon = [r for r in cmp.rows if r.id == "32207444" and r.system == "OTBQ"]
    assert len(pabon) == 2 and pabon[1].a.pre != pabon[1].b.pre
    assert pabon[1].b.pre == pytest.approx(pabon[0].b_post)
    # The inputs are not modified.
    assert events[1].sections[0].players[0].ratings["OTBQ"].rating == 1150.0
    # Independent: the later event starts from its own file.
    ind = compare(events, a, b, chain=False)
    assert all(r.a.pre == r.b.pre for r in ind.rows)
    assert ind.rows[-1].a.pre == replay(order_events(events), a.options, chain=False)[1].sections[-1].players[-1].pre


def test_paths(two_events):
    later, first = two_events
    cmp = compare([load_event(later), load_event(first)], parse_rules_spec("baseline"),
                  parse_rules_spec(f"reform:{B16}"))
    paths = cmp.paths(["32207444", "32510077"])
    pabon = paths["32207444"]["OTBQ"]
    assert [p["pre"] for p in pabon] == [True, False, False]
    assert pabon[0]["a"] == pabon[0]["b"] == 1150.0
    assert pabon[1]["date"] < pabon[2]["date"]
    assert pabon[2]["a"] - pabon[2]["b"] > 12  # the difference accumulates
    haddad = paths["32510077"]["OTBR"]  # unrated at first: no pre point
    assert [p["pre"] for p in haddad] == [False, False]


# ------------------------------------------------------------- command line

def test_cli_text(capsys):
    assert main(["compare", str(WFCC), "--b", f"reform:{B16}"]) == 0
    out = capsys.readouterr().out
    assert "A = baseline" in out and "B is 16" in out
    assert "16 rated, 4 changed" in out and "-12.00 *" in out
    assert main(["compare", str(WFCC), "--b", f"reform:{B16}", "--changed-only"]) == 0
    listed = [line for line in capsys.readouterr().out.splitlines() if "UNDER 1400" in line or "OPEN " in line]
    assert len(listed) == 4 and all(line.endswith(" *") for line in listed)
    assert main(["compare", str(WFCC), "--a", "rules-on:2016-01-15", "--b", "rules-on:2016-01-15"]) == 0
    assert "0 changed" in capsys.readouterr().out


def test_cli_json_and_csv_shapes(tmp_path, capsys, two_events):
    later, first = two_events
    out_csv = tmp_path / "cmp.csv"
    assert main(["compare", str(later), str(first), "--b", f"reform:{B16}", "--json",
                 "--csv", str(out_csv)]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"players", "summary"}
    assert len(data["players"]) == 32
    for row in data["players"]:
        assert {"id", "system", "event", "a", "b", "diff"} <= set(row)
        assert row["diff"] == pytest.approx(row["b"] - row["a"])
    s = data["summary"]
    for key in ("overall", "events", "systems", "a", "b", "chain", "order"):
        assert key in s
    for key in ("rated", "changed", "changed_shown", "mean", "mean_abs", "largest", "winners",
                "losers", "top_winners", "top_losers", "only_a", "only_b"):
        assert key in s["overall"] and key in s["events"][0]
    assert [e["event"] for e in s["events"]] == ["wfcc15", "wfcc15-later"]
    rows = list(csv.reader(io.StringIO(out_csv.read_text(encoding="utf-8"))))
    assert rows[0] == CSV_COLUMNS
    assert len(rows) == 1 + len(data["players"])
    by_key = {(r["event"], r["section"], r["system"], r["id"]): r for r in data["players"]}
    for line in rows[1:]:
        rec = dict(zip(CSV_COLUMNS, line))
        js = by_key[(rec["event"], rec["section"], rec["system"], rec["id"])]
        assert float(rec["a"]) == js["a"] and float(rec["b"]) == js["b"] and float(rec["diff"]) == js["diff"]


def test_csv_leaves_one_sided_cells_empty(wfcc):
    # G/60;d5 is dual-rated in 2025 but Regular only under the rules of 2005.
    cmp = compare([wfcc], parse_rules_spec("baseline"), parse_rules_spec("rules-on:2005-01-01"))
    s = cmp.summary()["overall"]
    assert s["only_a"] > 0
    text = to_csv(cmp)
    assert any(line.endswith(",,") for line in text.splitlines()[1:])


@pytest.mark.slow
def test_cli_plots(tmp_path, capsys, two_events):
    pytest.importorskip("matplotlib")
    later, first = two_events
    plots = tmp_path / "plots"
    assert main(["compare", str(later), str(first), "--b", f"reform:{B16}", "--plot-dir", str(plots),
                 "--player", "32207444", "--player", "32711850"]) == 0
    capsys.readouterr()
    for stem in ("differences", "paths"):
        png = (plots / f"{stem}.png").read_bytes()
        assert png.startswith(PNG_SIGNATURE)
        root = ET.fromstring((plots / f"{stem}.svg").read_bytes())
        assert root.tag.endswith("svg")
    assert not list(plots.glob(".*.tmp"))
    # Without --player only the distribution is drawn.
    other = tmp_path / "only"
    assert main(["compare", str(WFCC), "--b", f"reform:{B16}", "--plot-dir", str(other)]) == 0
    assert sorted(p.name for p in other.iterdir()) == ["differences.png", "differences.svg"]


def test_cli_bad_input_exits_2(tmp_path, capsys):
    bad_reform = tmp_path / "bad.yaml"
    bad_reform.write_text("name: x\nparameters:\n  bonus_multiplier:\n    - {from: 2020-01-01, value: big}\n",
                          encoding="utf-8")
    unknown_param = tmp_path / "unknown.yaml"
    unknown_param.write_text("parameters:\n  no_such_thing:\n    - {from: 2020-01-01, value: 1}\n",
                             encoding="utf-8")
    not_yaml = tmp_path / "broken.yaml"
    not_yaml.write_text("parameters: [unclosed\n", encoding="utf-8")
    bad_plugin = tmp_path / "plugin.yaml"
    bad_plugin.write_text("plugins:\n  initialize:\n    - {from: 2020-01-01, plugin: nope}\n", encoding="utf-8")
    # A later period is malformed: nothing of the file is applied, nothing rated.
    late_error = tmp_path / "late.yaml"
    late_error.write_text("parameters:\n  bonus_multiplier:\n    - {from: 2020-01-01, value: 14}\n"
                          "    - {from: 2019-01-01, until: 2018-01-01, value: 16}\n", encoding="utf-8")
    plots = tmp_path / "plots"
    for argv in (["--b", f"reform:{bad_reform}"], ["--b", f"reform:{unknown_param}"],
                 ["--b", f"reform:{not_yaml}"], ["--b", f"reform:{bad_plugin}"],
                 ["--b", f"reform:{late_error}", "--plot-dir", str(plots)],
                 ["--b", "whatever"], ["--a", "edition:1999", "--b", "baseline"],
                 ["--b", "baseline", "--player", "00000000", "--plot-dir", str(plots)],
                 ["--b", "baseline", "--player", "32207444"]):
        assert main(["compare", str(WFCC), *argv]) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("uschess: error: ") and err.count("\n") == 1
    assert not plots.exists()
    assert main(["compare", str(tmp_path / "missing.yaml"), "--b", "baseline"]) == 2
    capsys.readouterr()


def test_a_folder_of_events_is_its_event_files(tmp_path, capsys, two_events):
    """``compare DIR`` reads the event files of DIR, as ``replay`` does."""
    later, first = two_events
    assert main(["compare", str(first), str(later), "--b", f"reform:{B16}", "--json"]) == 0
    from_files = json.loads(capsys.readouterr().out)
    assert main(["compare", str(tmp_path), "--b", f"reform:{B16}", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == from_files
    assert len({row["event"] for row in from_files["players"]}) == 2


def test_player_in_none_of_the_events_is_refused_before_rating(tmp_path, capsys, monkeypatch,
                                                               two_events):
    """--player names a player of none of the events: refused before any
    event is rated; one that is in them is found however the file is read."""
    import uschess.commands.compare as command
    rated = []
    monkeypatch.setattr(command, "compare_streamed",
                        lambda *a, **kw: rated.append(1) or pytest.fail("rated"))
    plots = tmp_path / "plots"
    assert main(["compare", str(tmp_path), "--b", "baseline", "--player", "10301977",
                 "--plot-dir", str(plots)]) == 2
    err = capsys.readouterr().err
    assert err == "uschess: error: --player 10301977: in none of the events\n"
    assert rated == [] and not plots.exists()
    present = load_event(WFCC).sections[0].players[-1].id
    monkeypatch.undo()
    assert main(["compare", str(WFCC), "--b", "baseline", "--player", present, "--json"]) == 0
    assert present in json.loads(capsys.readouterr().out)["paths"]


def test_a_side_read_from_standard_input(capsys, monkeypatch):
    """``--b reform:-`` is standard input, as ``--reform -`` is; standard
    input is read once, so an event given as - too is refused."""
    assert main(["compare", str(WFCC), "--b", f"reform:{B16}", "--json"]) == 0
    from_file = json.loads(capsys.readouterr().out)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(B16.read_bytes())))
    assert main(["compare", str(WFCC), "--b", "reform:-", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["players"] == from_file["players"]
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(B16.read_bytes())))
    assert main(["compare", "-", "--b", "reform:-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "standard input (-) is already read" in err
