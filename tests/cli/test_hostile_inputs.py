"""Hostile inputs: every one ends in one located line and exit status 2 (or
is read correctly), never a traceback, a hang, or a silently wrong result.

Each case runs the command a user would run (``uschess rate``, ``audit``,
``fide-update``, ``rate --reform``, ``export --players``) on a file written
for it, and checks the exit status, that stderr is one ``uschess: error:``
line naming the file, and the reason.
"""

from __future__ import annotations

import copy
import json
import time
from pathlib import Path

import pytest
import yaml
from helpers import TEACHING_MSA

from uschess.cli import main
from uschess.io.eventfile import MAX_RATING, load_event
from uschess.io.formats.trf import parse_trf, write_trf
from uschess.io.formats.uscf_dbf import build_uscf_dbf, parse_uscf_dbf

ROOT = Path(__file__).resolve().parents[2]
FIX = ROOT / "fixtures"
WFCC = FIX / "events" / "wfcc15.yaml"
CLUB = FIX / "events" / "club-championship.yaml"
PLAYERS = FIX / "events" / "club-championship.players.yaml"
FIDE = FIX / "fide" / "open-abroad.yaml"
PUBLISHED = FIX / "audit" / "wfcc15-2024-b14.json"
REFORM = FIX / "reforms" / "b-16.yaml"


def event_data() -> dict:
    return yaml.safe_load(WFCC.read_text())


def write(tmp_path: Path, data, name="e.yaml") -> Path:
    path = tmp_path / name
    if isinstance(data, (bytes, str)):
        path.write_bytes(data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data)
    elif name.endswith(".json"):
        path.write_text(json.dumps(data, default=str))
    else:
        path.write_text(yaml.safe_dump(data, sort_keys=False, allow_unicode=True))
    return path


def refused(capsys, argv, path, *needles) -> str:
    """Run the CLI; it must exit 2 with one line naming ``path`` and saying
    every needle."""
    started = time.perf_counter()
    assert main([str(a) for a in argv]) == 2
    assert time.perf_counter() - started < 10
    err = capsys.readouterr().err
    assert err.startswith(f"uschess: error: {path}") and err.count("\n") == 1, err
    for needle in needles:
        assert needle in err, err
    return err


def p0(data):
    return data["sections"][0]["players"][0]


# ------------------------------------------------------------ tracebacks

def test_round_cell_with_a_huge_opponent_number(tmp_path, capsys):
    data = event_data()
    p0(data)["rounds"][0] = "W" + "9" * 5000
    path = write(tmp_path, data)
    refused(capsys, ["rate", path], path, "round 1", "round cell")
    audit = json.loads(PUBLISHED.read_text())
    audit["sections"][0]["players"][0]["rounds"][0] = "W" + "9" * 5000
    apath = write(tmp_path, audit, "p.json")
    refused(capsys, ["audit", apath], apath, "round 1")
    refused(capsys, ["replay", path, "--db", tmp_path / "r.db"], path, "round 1")


@pytest.mark.parametrize("where,value", [
    ("pair", "9" * 5000), ("pair", "9" * 400), ("rating", "9" * 400),
])
def test_huge_integers_are_refused_where_they_stand(tmp_path, capsys, where, value):
    text = WFCC.read_text()
    if where == "pair":
        text = text.replace("- pair: 1\n", f"- pair: {value}\n", 1)
    else:
        text = text.replace("rating: 1206.0", f"rating: {value}", 1)
    path = write(tmp_path, text)
    refused(capsys, ["rate", path], path, f"a number of {len(value)} digits", "at line ")
    # the same in JSON
    jpath = write(tmp_path, json.dumps(event_data()).replace('"pair": 1,', f'"pair": {value},', 1)
                  if where == "pair" else
                  json.dumps(event_data()).replace('"rating": 1206.0', f'"rating": {value}', 1),
                  "e.json")
    refused(capsys, ["rate", jpath], jpath, f"a number of {len(value)} digits")


def test_400_digit_fide_rating_and_published_post(tmp_path, capsys):
    data = yaml.safe_load(FIDE.read_text())
    text = yaml.safe_dump(data, sort_keys=False).replace("fide: 1900", "fide: " + "9" * 400, 1)
    path = write(tmp_path, text, "f.yaml")
    refused(capsys, ["fide-update", path], path, "a number of 400 digits")
    pub = PUBLISHED.read_text()
    start = pub.index('"post":') + len('"post":')
    end = pub.index(",", start) if pub.index(",", start) < pub.index("}", start) else pub.index("}", start)
    text = pub[:start] + " " + "9" * 400 + pub[end:]
    apath = write(tmp_path, text, "p.json")
    refused(capsys, ["audit", apath], apath, "a number of 400 digits")


@pytest.mark.parametrize("mutate,needle", [
    (lambda d: d["event"].update(start="9999-12-31", end="9999-12-31"), "event start: 9999-12-31 is impossible"),
    (lambda d: d["event"].update(start="0001-01-01"), "0001-01-01 is impossible"),
    (lambda d: p0(d).update(fide={"rating": 1900, "date": "0001-01-01"}), "fide: date: 0001-01-01 is impossible"),
    (lambda d: p0(d)["ratings"]["OTBR"].update(date="9999-01-01"), "9999-01-01 is impossible"),
    (lambda d: p0(d)["ratings"]["OTBR"].update(date="0001-01-01"), "0001-01-01 is impossible"),
])
def test_dates_outside_the_rated_era_are_refused_when_read(tmp_path, capsys, mutate, needle):
    data = event_data()
    mutate(data)
    path = write(tmp_path, data)
    refused(capsys, ["rate", path], path, needle, "dates are read from 1900-01-01 to 2099-12-31")


def test_surrogate_escapes_in_names(tmp_path, capsys):
    text = WFCC.read_text().replace('"Pabon, Matthew"', '"\\ud83d\\ude42"')
    path = write(tmp_path, text)
    refused(capsys, ["rate", path], path, "at line 10 column 18",
            "invalid Unicode character escape")
    # JSON joins an escaped pair into the one character it stands for
    data = event_data()
    p0(data)["name"] = "@@"
    jtext = json.dumps(data).replace("@@", "\\ud83d\\ude42")
    jpath = write(tmp_path, jtext, "e.json")
    assert main(["rate", str(jpath)]) == 0
    assert "\U0001F642" in capsys.readouterr().out
    jpath = write(tmp_path, json.dumps(data).replace("@@", "\\ud83d"), "e.json")
    refused(capsys, ["rate", jpath], jpath, "lone surrogate U+D83D at sections[0].players[0].name")


@pytest.mark.parametrize("text,needle", [
    ("parameters: [1, 2]\n", "'parameters' must map parameter names to lists of periods"),
    ("plugins:\n  initialize:\n    - {from: 2020-01-01, plugin: {a: 1}}\n", "plugin {'a': 1} is not one of"),
    ("parameters:\n  1: [{from: 2020-01-01, value: 3}]\n  bonus_multiplier: [{from: 2020-01-01, value: 3}]\n",
     "parameters.1: no such parameter"),
    ("parameters:\n  bonus_multiplier: [{from: 2020-01-01, value: .nan}]\n", "nan at parameters.bonus_multiplier[0].value is not a finite number"),
    ("parameters:\n  bonus_multiplier: [{from: 2020-01-01, value: .inf}]\n", "is not a finite number"),
    ("parameters:\n  bonus_multiplier: [{from: 2020-01-01, value: -1.0e+308}]\n", "outside the parameter's domain 0..100"),
    ("parameters:\n  bonus_multiplier: [{from: 2020-01-01, value: -100000000000000000000}]\n", "a number of 21 digits"),
    ("parameters:\n  bonus_multiplier: [{from: 2020-01-01, value: -5}]\n", "value -5 is outside the parameter's domain 0..100"),
    ("parameters:\n  bonus_multiplier: [{from: 2020-01-01, value: '12'}]\n", "must be a number"),
    ("parameters:\n  established_games: [{from: 2020-01-01, value: 25.5}]\n", "must be a whole number"),
    ("parameters:\n  special_p_inclusive: [{from: 2020-01-01, value: 'no'}]\n", "must be true or false"),
    ("parameters:\n  special_start: [{from: 2020-01-01, value: guess}]\n", "must be one of prior, estimate"),
    ("parameters:\n  olm_systems: [{from: 2020-01-01, value: [OTBR, XYZ]}]\n", "list (maybe empty) of distinct rating systems"),
    ("parameters:\n  nstar: [{from: 2020-01-01, value: {a: 1}}]\n", "lacks key(s) b, cap, center, flat_above"),
    ("parameters:\n  blended: [{from: 2020-01-01, value: [1]}]\n", "must be a mapping"),
    ("parameters:\n  fide_conversion: [{from: 2020-01-01, value: [{intercept: 1, slope: 1, x: 2}]}]\n",
     "has key 'x'"),
    ("parameters:\n  bonus_multiplier: [{from: 2020-01-01, value: 3, colour: red}]\n", "unknown key(s) ['colour']"),
    ("name: [1]\n", "'name' must be text"),
])
def test_reform_files_of_the_wrong_shape_or_out_of_domain(tmp_path, capsys, text, needle):
    path = write(tmp_path, text, "reform.yaml")
    refused(capsys, ["rate", WFCC, "--reform", path], path, needle)


def test_every_baseline_value_is_in_its_domain():
    from uschess.calendar.reform import domain_problem
    from uschess.calendar.rulebook import RuleBook
    book = RuleBook.load()
    for name, t in book.timelines.items():
        assert t.domain and t.domain.get("type"), name
        for e in t.entries:
            assert domain_problem(t, e.value) is None, (name, e.effective)


def test_a_parameter_without_a_domain_is_refused_when_rules_load():
    from uschess.calendar.timeline import timelines_from_raw
    from uschess.errors import RuleError
    with pytest.raises(RuleError, match="needs a 'domain'"):
        timelines_from_raw({"x": {"description": "d", "values": {}}}, "rulesets/x.yaml")
    with pytest.raises(RuleError, match="domain type 'real' is not one of"):
        timelines_from_raw({"x": {"description": "d", "values": {}, "domain": {"type": "real"}}}, "x")


# ------------------------------------------------------------ hangs and memory

BOMB = ('a: &a ["x","x","x","x","x","x","x","x","x","x"]\n'
        + "".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join(['*' + chr(97 + i)] * 10)}]\n"
                  for i in range(8)))


@pytest.mark.parametrize("argv,name", [
    (["rate", "{}"], "e.yaml"),
    (["audit", "{}"], "p.yaml"),
    (["fide-update", "{}"], "f.yaml"),
    (["rate", str(WFCC), "--reform", "{}"], "r.yaml"),
    (["export", "trf", str(CLUB), "--players", "{}", "-o", "{out}"], "players.yaml"),
])
def test_alias_bombs_are_refused_quickly(tmp_path, capsys, argv, name):
    text = BOMB + "name: *i\n"
    path = write(tmp_path, text, name)
    out = tmp_path / "out.trf"
    argv = [a.replace("{}", str(path)).replace("{out}", str(out)) for a in argv]
    refused(capsys, argv, path, "aliases expand to over 10,000 values", "at line ")
    assert not out.exists()


def test_a_self_referring_alias_is_refused(tmp_path, capsys):
    path = write(tmp_path, "event: &e {start: 2025-01-01, x: *e}\n")
    refused(capsys, ["rate", path], path, "an alias refers to a node that contains it",
            "at line 1 column 8")


def test_a_few_aliases_are_still_fine(tmp_path, capsys):
    text = WFCC.read_text().replace("time_control: \"G/60;d5\"", "time_control: &tc \"G/60;d5\"", 1)
    text = text.replace("time_control: \"G/90;d5\"", "time_control: *tc", 1)
    path = write(tmp_path, text)
    assert main(["rate", str(path)]) == 0


@pytest.mark.parametrize("argv,name,limit", [
    (["rate", "{}"], "e.yaml", "4,194,304"),
    (["rate", "{}"], "e.json", "4,194,304"),
    (["audit", "{}"], "p.json", "4,194,304"),
    (["export", "trf", str(CLUB), "--players", "{}", "-o", "{out}"], "players.yaml", "4,194,304"),
    (["rate", str(WFCC), "--reform", "{}"], "r.yaml", "1,048,576"),
    (["audit", "{}", "--start", "2025-01-01"], "t.txt", "16,777,216"),
    (["rate", "{}"], "e.trf", "16,777,216"),
])
def test_size_limits_are_said(tmp_path, capsys, argv, name, limit):
    path = tmp_path / name
    with path.open("wb") as fh:  # sparse after the first line: nothing more is written
        fh.write(b"012 A big event\n")
        fh.truncate(17 * 1024 * 1024 if "16," in limit else 5 * 1024 * 1024)
    argv = [a.replace("{}", str(path)).replace("{out}", str(tmp_path / "o.trf")) for a in argv]
    refused(capsys, argv, path, limit, "refused")


# ------------------------------------------------------------ silently wrong

@pytest.mark.parametrize("mutate,needle", [
    (lambda d: d["event"].update(online="false"), "'online' must be true or false, not 'false'"),
    (lambda d: d["sections"][0].update(online="no"), "'online' must be true or false"),
    (lambda d: d["sections"][0].update(half_k="no"), "'half_k' must be true or false"),
    (lambda d: p0(d)["ratings"]["OTBR"].update(olm="no"), "'olm' must be true or false"),
    (lambda d: p0(d).update(adult=5), "'adult' must be true or false, not 5"),
    (lambda d: p0(d).update(cfc={"rating": 1500, "date": "2025-01-01", "canadian": "no"}),
     "'canadian' must be true or false"),
])
def test_a_boolean_field_takes_only_booleans(tmp_path, capsys, mutate, needle):
    data = event_data()
    mutate(data)
    path = write(tmp_path, data)
    refused(capsys, ["rate", path], path, needle)


def test_duplicate_keys_are_refused(tmp_path, capsys):
    text = WFCC.read_text().replace("rating: 1206.0,", "rating: 1500, rating: 2900,", 1)
    path = write(tmp_path, text)
    refused(capsys, ["rate", path], path, "key 'rating' given twice in one mapping", "line 13")
    jtext = json.dumps(event_data()).replace('"rating": 1206.0', '"rating": 1500, "rating": 2900', 1)
    jpath = write(tmp_path, jtext, "e.json")
    refused(capsys, ["rate", jpath], jpath, "key 'rating' given twice in the object at line 1 "
                                           "column ")


def test_duplicate_ids_in_a_players_file_are_refused(tmp_path, capsys):
    out = tmp_path / "out.trf"
    text = PLAYERS.read_text().replace('players:\n', 'players:\n  "13025577": {name: "X, Y"}\n', 1)
    path = write(tmp_path, text, "players.yaml")
    refused(capsys, ["export", "trf", CLUB, "--players", path, "-o", out], path,
            "key '13025577' given twice")
    text = PLAYERS.read_text().replace('players:\n', 'players:\n  13025577: {name: "X, Y"}\n', 1)
    path = write(tmp_path, text, "players.yaml")
    refused(capsys, ["export", "trf", CLUB, "--players", path, "-o", out], path,
            "member id listed twice")
    assert not out.exists()


@pytest.mark.parametrize("value", ["2025", "2025-03", "2025-W12-5", "2025-080", "2025-3-21",
                                   "20250321", "2025-03-21T10:00", "21/03/2025", "2025-02-30"])
def test_dates_are_yyyy_mm_dd_only(tmp_path, capsys, value):
    data = event_data()
    data["event"]["start"] = value
    data["event"]["end"] = "2025-03-21"
    path = write(tmp_path, data)
    refused(capsys, ["rate", path], path, "event start:", "is not a date")


def test_trf_and_dbf_keep_their_native_dates():
    trf = (FIX / "trf" / "club-championship.trf").read_text()
    assert parse_trf(trf).start.isoformat() == "2024-03-04"  # 042 2024/03/04
    event = _parse_dbf(build_uscf_dbf(load_event(CLUB)))
    assert event.start == load_event(CLUB).start


def _parse_dbf(blobs: dict):
    return parse_uscf_dbf(blobs["THEXPORT.DBF"], blobs["TSEXPORT.DBF"], blobs["TDEXPORT.DBF"])


def test_report_headers_dated_years_before_their_sections_are_refused(tmp_path):
    from uschess.errors import InputError
    event = load_event(CLUB)
    blobs = build_uscf_dbf(event)
    bad = copy.deepcopy(event)
    bad.start = bad.start.replace(year=1999)
    bad_blobs = build_uscf_dbf(bad)
    blobs["THEXPORT.DBF"] = bad_blobs["THEXPORT.DBF"]
    with pytest.raises(InputError, match="the event's dates 1999-.* lie over a "
                                         "year beyond its sections' dates"):
        _parse_dbf(blobs)
    trf = write_trf(event)
    bad_trf = "### uschess event-start=1999/03/09\n" + trf
    with pytest.raises(InputError, match="event-start/event-end: the event's dates 1999-03-09"):
        parse_trf(bad_trf)


@pytest.mark.parametrize("mutate,needle", [
    (lambda d: p0(d).update(birth_date="2025-04-01"), "birth date 2025-04-01 is after the section's start 2025-03-21"),
    (lambda d: [p0(d).pop("ratings"), p0(d).update(fide={"rating": 3, "date": "2025-01-01"})],
     "FIDE rating 3 converts to -1068.3"),
])
def test_impossible_records_are_refused_with_the_reason(tmp_path, capsys, mutate, needle):
    data = event_data()
    mutate(data)
    path = write(tmp_path, data)
    err = refused(capsys, ["rate", path], path, needle)
    assert "player 1 (Pabon, Matthew)" in err


def test_one_rating_bound_for_input_and_output(tmp_path, capsys):
    data = event_data()
    p0(data)["rounds"][2] = "W3"  # a 4000 who wins every game still gains a little
    data["sections"][0]["players"][2]["rounds"][2] = "L1"
    p0(data)["ratings"]["OTBR"]["rating"] = MAX_RATING
    p0(data)["ratings"]["OTBR"].update(games=30, wins=20, draws=5, losses=5)
    p0(data)["ratings"].pop("OTBQ")
    path = write(tmp_path, data)
    refused(capsys, ["rate", path], path, "player 1 (Pabon, Matthew)",
            "is above 4000, the bound of every rating read or written")
    p0(data)["ratings"]["OTBR"]["rating"] = MAX_RATING + 0.5
    path = write(tmp_path, data)
    refused(capsys, ["rate", path], path, "'rating' = 4000.5 is impossible (allowed 0..4000.0)")


@pytest.mark.parametrize("argv,name,text,position", [
    (["rate", "{}"], "e.yaml", None, "line 8 column 16"),
    (["audit", "{}"], "p.json", None, "line 2 column 3"),
    (["export", "trf", str(CLUB), "--players", "{}", "-o", "{out}"], "players.yaml", None,
     "line 5 column 3"),
    (["rate", str(WFCC), "--reform", "{}"], "r.yaml", "name: a\x07b\n", "line 1 column 8"),
    pytest.param(["audit", "{}", "--start", "2016-01-15"], "t.txt", None, "line 1 column 1",
                 marks=pytest.mark.shared_data),
    (["rate", "{}"], "e.trf", None, "line 2 column 6"),
])
def test_control_characters_one_line_with_the_position(tmp_path, capsys, argv, name, text,
                                                       position):
    if text is None:
        source = {"e.yaml": WFCC, "p.json": PUBLISHED, "players.yaml": PLAYERS,
                  "t.txt": TEACHING_MSA,
                  "e.trf": FIX / "trf" / "club-championship.trf"}[name]
        lines = source.read_text().split("\n")
        line, column = (int(x) for x in position.replace("line ", "").split(" column "))
        lines[line - 1] = lines[line - 1][:column - 1] + "\x07" + lines[line - 1][column - 1:]
        text = "\n".join(lines)
    path = write(tmp_path, text, name)
    out = tmp_path / "out.trf"
    argv = [a.replace("{}", str(path)).replace("{out}", str(out)) for a in argv]
    refused(capsys, argv, path, f"control character U+0007 at {position}")
    assert not out.exists()


def test_escaped_control_characters_name_the_value(tmp_path, capsys):
    data = event_data()
    p0(data)["name"] = "a\x07b"
    path = write(tmp_path, data, "e.json")
    refused(capsys, ["rate", path], path, "control character U+0007 at sections[0].players[0].name")


def test_control_characters_in_a_dbf_report_name_the_player_and_column(tmp_path, capsys):
    from uschess.io.formats.uscf_dbf import write_uscf_dbf
    event = load_event(CLUB)
    event.sections[0].players[0].name = "Ok\x07ay"
    folder = tmp_path / "report"
    folder.mkdir()
    write_uscf_dbf(event, folder)
    out = tmp_path / "out.trf"
    err = refused(capsys, ["export", "trf", folder, "-o", out], folder,
                  "control character U+0007 in 'name' at column 3")
    assert "\x07" not in err and "player 1 ('Ok\\x07ay')" in err
    assert not out.exists()


def test_an_opponent_fide_rating_converting_below_the_floor(tmp_path, capsys):
    text = FIDE.read_text().replace("fide: 1900", "fide: 3", 1)
    path = write(tmp_path, text, "f.yaml")
    refused(capsys, ["fide-update", path], path,
            "game 1: FIDE rating 3 converts to -1068.3", "below the absolute floor 100")


def test_a_players_file_birth_date_after_the_event(tmp_path, capsys):
    text = PLAYERS.read_text().replace('    name: Okafor, Daniel\n',
                                       '    name: Okafor, Daniel\n    birth_date: 2030-01-01\n', 1)
    path = write(tmp_path, text, "players.yaml")
    out = tmp_path / "out.trf"
    assert main(["export", "trf", str(CLUB), "--players", str(path), "-o", str(out)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "birth date 2030-01-01 is after the section's start" in err
    assert not out.exists()


def test_mixed_key_types_are_named_not_a_traceback(tmp_path, capsys):
    text = WFCC.read_text().replace("rating: 1206.0,", "rating: 1206.0, 1: 2, x: 3,", 1)
    path = write(tmp_path, text)
    refused(capsys, ["rate", path], path, "rating OTBR: unknown field(s) ['1', 'x']")
    pub = json.loads(PUBLISHED.read_text())
    apath = write(tmp_path, "{1: 2, x: 3, " + json.dumps(pub)[1:], "p.yaml")
    refused(capsys, ["audit", apath], apath, "unknown key(s) ['1', 'x']")


@pytest.mark.parametrize("edit, needles", [
    # a section's keys misspelt: 'system' would have left every system rated,
    # 'half-k' the full K (the section below is rated both ways otherwise)
    (lambda d: d["sections"][0].update({"system": ["OTBR"], "half-k": True}),
     ["section '", "unknown field(s) ['half-k', 'system']", "'half-k' may be 'half_k'",
      "'system' may be 'systems'"]),
    (lambda d: d["event"].update(onlin=True), ["event: unknown field(s) ['onlin']",
                                               "'onlin' may be 'online'"]),
    (lambda d: d.update(sectons=[]), ["the file: unknown field(s) ['sectons']",
                                      "allowed: event, published, sections"]),
])
def test_an_unknown_key_above_the_players_is_refused(tmp_path, capsys, edit, needles):
    """Every level of an event file refuses a key it does not know, as the
    published schema says (``additionalProperties: false``): a key misspelt
    is never left unread while the event is rated without it."""
    data = yaml.safe_load(WFCC.read_text())
    edit(data)
    path = write(tmp_path, yaml.safe_dump(data, sort_keys=False))
    refused(capsys, ["rate", path], path, *needles)


def test_the_readers_keys_are_the_published_schemas():
    """The keys each level of the reader takes are the properties the
    schema lists there, so that the two cannot drift apart."""
    from uschess.io import eventfile as E

    schema = json.loads((ROOT / "engine" / "event.schema.json").read_text())
    section = schema["properties"]["sections"]["items"]
    player = section["properties"]["players"]["items"]
    levels = [(E.FILE_KEYS, schema), (E.EVENT_KEYS, schema["properties"]["event"]),
              (E.SECTION_KEYS, section), (E.PLAYER_KEYS, player),
              (E.FOREIGN_KEYS, player["properties"]["fide"]),
              (E.RECORD_KEYS, player["properties"]["ratings"]["properties"]["OTBR"]),
              (E.HISTORY_KEYS, player["properties"]["match_history"]["items"]),
              (E.PUBLISHED_KEYS, schema["properties"]["published"]["items"])]
    for keys, node in levels:
        assert node.get("additionalProperties") is False
        assert set(node["properties"]) == set(keys)
