"""Values of the wrong type are refused, never read as "not given".

Python takes ``false``, ``0``, ``""``, ``[]``, ``{}`` and YAML's ``no`` as
false; a reader that asks ``if value`` reads them as a field left out (an
open-ended reform period, an event ending the day it starts).  Each reader
refuses them in one located line and exit status 2, as it refuses a number
written as text (``' 1200 '``, ``1_200``, ``+1200``).  The cases of the
hostile-input campaign run first, one by one, as a user runs the commands;
then a property: for every date and number field of every reader, any such
value is refused.
"""

from __future__ import annotations

import copy
import json
import os
from pathlib import Path

import pytest
import yaml
from helpers import examples
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_hostile_inputs import CLUB, FIDE, PLAYERS, PUBLISHED, ROOT, WFCC, p0, refused, write

from uschess.cli import main
from uschess.io.eventfile import MIN_RATING

B16 = ROOT / "fixtures" / "reforms" / "b-16.yaml"


def load(path: Path):
    return json.loads(path.read_text()) if path.suffix == ".json" else yaml.safe_load(path.read_text())


# ------------------------------------------------------------ the cases found

@pytest.mark.parametrize("value", [False, 0, "", [], {}])
def test_an_event_end_that_is_false_is_not_a_missing_end(tmp_path, capsys, value):
    data = load(WFCC)
    data["event"]["end"] = value
    path = write(tmp_path, data, "e.yaml")
    refused(capsys, ["rate", path], path, f"event end: {value!r} is not a date")


def test_a_section_start_of_false(tmp_path, capsys):
    data = load(WFCC)
    data["sections"][1]["start"] = False
    path = write(tmp_path, data, "e.yaml")
    refused(capsys, ["rate", path], path, "section 'OPEN'", "start: False is not a date")


def test_a_fide_update_end_of_0(tmp_path, capsys):
    data = load(FIDE)
    data["event"]["end"] = 0
    path = write(tmp_path, data, "f.yaml")
    refused(capsys, ["fide-update", path], path, "event end: 0 is not a date")


def test_a_reform_period_until_no_is_not_open_ended(tmp_path, capsys):
    text = "parameters:\n  bonus_multiplier: [{from: 2001-01-01, until: no, value: 16}]\n"
    path = write(tmp_path, text, "r.yaml")
    refused(capsys, ["rate", WFCC, "--reform", path], path,
            "parameters.bonus_multiplier period 1", "until: False is not a date")


def test_a_reform_period_before_the_first_rules(tmp_path, capsys):
    text = "parameters:\n  bonus_multiplier: [{from: 1999-01-01, value: 16}]\n"
    path = write(tmp_path, text, "r.yaml")
    refused(capsys, ["rate", WFCC, "--reform", path], path,
            "'from' 1999-01-01 is before the earliest rules (2001-01-01)")


@pytest.mark.parametrize("value", ["2009-05-14 ", " 2009-05-14"])
def test_a_players_file_date_with_spaces(tmp_path, capsys, value):
    text = PLAYERS.read_text().replace("    name: Okafor, Daniel\n",
                                       f"    name: Okafor, Daniel\n    birth_date: '{value}'\n", 1)
    path = write(tmp_path, text, "players.yaml")
    out = tmp_path / "out.trf"
    refused(capsys, ["export", "trf", CLUB, "--players", path, "-o", out], path,
            "player 12873461", f"birth_date: {value!r} has spaces around the date")
    assert not out.exists()


@pytest.mark.parametrize("value", [False, 0, "", []])
def test_a_players_file_ratings_of_false_are_no_ratings_to_clear(tmp_path, capsys, value):
    data = load(PLAYERS)
    data["players"]["12873461"]["ratings"] = value
    path = write(tmp_path, data, "players.yaml")
    out = tmp_path / "out.trf"
    refused(capsys, ["export", "trf", CLUB, "--players", path, "-o", out], path,
            "player 12873461", "'ratings' must map systems to records")


@pytest.mark.parametrize("value", [0, 20250321, -5, "0000"])
def test_a_birth_year_out_of_the_readable_years(tmp_path, capsys, value):
    data = load(WFCC)
    p0(data)["birth_date"] = value
    path = write(tmp_path, data, "e.yaml")
    refused(capsys, ["rate", path], path, "player 1 (Pabon, Matthew)",
            f"birth_date: {value!r} is impossible (years are read from 1900 to 2099)")


def test_a_pre_event_rating_of_0(tmp_path, capsys):
    data = load(WFCC)
    p0(data)["ratings"]["OTBR"]["rating"] = 0
    path = write(tmp_path, data, "e.yaml")
    refused(capsys, ["rate", path], path, "player 1 (Pabon, Matthew)",
            "'rating' = 0 is impossible (allowed 100..4000)")
    pub = load(PUBLISHED)
    pub["published"][0]["pre"] = 0
    apath = write(tmp_path, pub, "p.json")
    refused(capsys, ["audit", apath], apath, "published entry 1: 'pre' = 0 is impossible")


def test_the_lowest_rating_read_is_the_lowest_absolute_floor():
    from uschess.calendar.rulebook import RuleBook
    floors = RuleBook.load().timelines["absolute_floor"]
    assert MIN_RATING == min(e.value for e in floors.entries)


def _msa_text() -> str:
    from uschess.io.formats.msa import MsaRow, format_msa
    rows = [MsaRow(1, "A B", 1.0, ["W   2"], "MI", "12345678", 1500, None, 1510, None),
            MsaRow(2, "C D", 0.0, ["L   1"], "MI", "23456789", 1400, None, 1390, None)]
    return format_msa(rows, 1)


def test_an_msa_post_of_p0(tmp_path, capsys):
    text = _msa_text()
    path = write(tmp_path, text, "t.txt")
    assert main(["audit", str(path), "--start", "2025-01-04"]) in (0, 1)
    capsys.readouterr()
    assert "->1510 " in text
    path = write(tmp_path, text.replace("->1510 ", "->1510P0"), "t.txt")
    refused(capsys, ["audit", path, "--start", "2025-01-04"], path, "player 1 (A B)",
            "post-event rating '1510P0': a rating after an event is based on at least one game")


def _history(tmp_path: Path) -> Path:
    folder = tmp_path / "history"
    assert main(["generate", "--seed", "3", "--players", "12", "--events", "2", "-o",
                 str(folder), "--quiet"]) == 0
    return folder


@pytest.mark.parametrize("spelling", [" 1200 ", "1_200", "+1200", "1200 ", "\u0661\u0662\u0660\u0660"])
def test_truth_numbers_are_written_as_numbers(tmp_path, capsys, spelling):
    folder = _history(tmp_path)
    truth = folder / "truth.csv"
    lines = truth.read_text().splitlines()
    cells = lines[1].split(",")
    cells[3] = f'"{spelling}"'
    lines[1] = ",".join(cells)
    truth.write_text("\n".join(lines) + "\n")
    capsys.readouterr()
    refused(capsys, ["evaluate", folder, "--rules", "baseline"], truth, "record 2",
            f"OTBR strength {spelling!r} is not written as a number")


def test_truth_rows_matching_no_player_are_counted(tmp_path, capsys):
    folder = _history(tmp_path)
    truth = folder / "truth.csv"
    lines = truth.read_text().splitlines()
    stray = [",".join(["no-such-event", *line.split(",")[1:]]) for line in lines[1:4]]
    truth.write_text("\n".join(lines + stray) + "\n")
    capsys.readouterr()
    assert main(["evaluate", str(folder), "--rules", "baseline", "--json"]) == 0
    err = capsys.readouterr().err
    assert f"3 of its {len(lines) - 1 + 3:,} records match no player" in err, err
    truth.write_text("\n".join(lines[:1] + stray) + "\n")
    refused(capsys, ["evaluate", folder, "--rules", "baseline"], truth,
            "none of its 3 records matches a player of an event of the history")


@pytest.mark.parametrize("where,key,value", [
    ("event", "name", False), ("event", "name", ["WFCC"]), ("section", "name", False),
    ("section", "name", {"a": 1}), ("section", "time_control", False),
    ("section", "time_control", ["G/60"]),
])
def test_names_and_time_controls_are_text(tmp_path, capsys, where, key, value):
    data = load(WFCC)
    (data["event"] if where == "event" else data["sections"][0])[key] = value
    path = write(tmp_path, data, "e.yaml")
    refused(capsys, ["rate", path], path, f"{where}: '{key}' must be text")


# ------------------------------------------------------------ the property

#: Values of the wrong type for a date field and for a number field.
WRONG_DATES = [False, True, 0, 1, 20250321, 2025.5, "", " ", "no", "2025-03-21 ", " 2025-03-21",
               [], {}, ["2025-03-21"], {"date": "2025-03-21"}]
WRONG_NUMBERS = [False, True, "", " ", "no", " 1200 ", "1_200", "+1200", "1200", "1e3", [], {},
                 [1200], {"value": 1200}]


def _event_fields(prefix=()) -> list:
    """(path, kind) of every date and number field of an event file."""
    player = prefix + ("sections", 0, "players", 0)
    record = player + ("ratings", "OTBR")
    out = [(prefix + ("event", "start"), "date"), (prefix + ("event", "end"), "date"),
           (prefix + ("sections", 0, "start"), "date"), (prefix + ("sections", 0, "end"), "date"),
           (player + ("birth_date",), "date"), (player + ("pair",), "number"),
           (player + ("fide", "rating"), "number"), (player + ("fide", "date"), "date"),
           (player + ("cfc", "rating"), "number"), (player + ("cfc", "date"), "date"),
           (player + ("match_history", 0, "date"), "date"),
           (player + ("match_history", 0, "change"), "number"),
           (record + ("date",), "date")]
    out += [(record + (key,), "number") for key in
            ("rating", "games", "wins", "draws", "losses", "events3", "peak", "prize_floor",
             "games_above_2200", "lowered_floor", "lowered_from")]
    return out


def _put(data, path, value) -> None:
    """Set ``data[path]``, making the mappings and lists on the way."""
    node = data
    for key, nxt in zip(path, path[1:]):
        if isinstance(node, list):
            node = node[key]
            continue
        if key not in node or node[key] is None:
            node[key] = [{}] if isinstance(nxt, int) else {}
        node = node[key]
    node[path[-1]] = value


#: reader -> (seed file, file name, command, fields)
READERS = {
    "event file": (WFCC, "e.yaml", ["rate", "{}"], _event_fields()),
    "event file (JSON)": (WFCC, "e.json", ["rate", "{}"], _event_fields()),
    "published results": (PUBLISHED, "p.json", ["audit", "{}"],
                          _event_fields() + [(("published", 0, "post"), "number"),
                                             (("published", 0, "pre"), "number")]),
    "players file": (PLAYERS, "players.yaml",
                     ["export", "trf", str(CLUB), "--players", "{}", "-o", "{out}"],
                     [(("players", "12873461") + path, kind) for path, kind in
                      [(("birth_date",), "date"), (("fide", "rating"), "number"),
                       (("fide", "date"), "date"), (("cfc", "rating"), "number"),
                       (("cfc", "date"), "date"), (("ratings", "OTBR", "rating"), "number"),
                       (("ratings", "OTBR", "games"), "number"),
                       (("ratings", "OTBR", "date"), "date"),
                       (("ratings", "OTBR", "peak"), "number")]]),
    "FIDE update": (FIDE, "f.yaml", ["fide-update", "{}"],
                    [(("event", "start"), "date"), (("event", "end"), "date"),
                     (("games", 0, "fide"), "number"),
                     (("player", "ratings", "OTBR", "rating"), "number"),
                     (("player", "ratings", "OTBR", "games"), "number"),
                     (("player", "ratings", "OTBR", "date"), "date")]),
    "reform file": (B16, "r.yaml", ["rate", str(WFCC), "--reform", "{}"],
                    [(("parameters", "bonus_multiplier", 0, "from"), "date"),
                     (("parameters", "bonus_multiplier", 0, "until"), "date"),
                     (("parameters", "bonus_multiplier", 0, "value"), "number")]),
}

PROPERTY = settings(max_examples=examples(300), deadline=None, database=None,
                    suppress_health_check=[HealthCheck.function_scoped_fixture,
                                           HealthCheck.too_slow])


@PROPERTY
@given(data=st.data())
def test_every_date_and_number_field_refuses_a_value_of_the_wrong_type(tmp_path, capsys, data):
    reader = data.draw(st.sampled_from(sorted(READERS)), label="reader")
    seed, name, argv, fields = READERS[reader]
    path_, kind = data.draw(st.sampled_from(fields), label="field")
    value = data.draw(st.sampled_from(WRONG_DATES if kind == "date" else WRONG_NUMBERS),
                      label="value")
    raw = copy.deepcopy(load(seed))
    if path_[-2:] == ("match_history", 0) or "match_history" in path_:
        _put(raw, path_[:-1], {"date": "2024-01-01", "change": 10.0})
    _put(raw, path_, value)
    path = write(tmp_path, raw, name)
    out = tmp_path / "out.trf"
    if out.exists():
        os.unlink(out)
    refused(capsys, [a.replace("{}", str(path)).replace("{out}", str(out)) for a in argv], path)
    assert not out.exists()


def test_the_property_covers_every_date_and_number_of_the_event_schema():
    """Each date or number property of the published event schema is one of
    the fields the property writes."""
    schema = json.loads((ROOT / "engine" / "event.schema.json").read_text())
    found = set()

    def walk(node, path):
        if not isinstance(node, dict):
            return
        kinds = node.get("type")
        kinds = set(kinds) if isinstance(kinds, list) else {kinds}
        if node.get("format") == "date" or (kinds & {"number", "integer"} and "string" not in kinds):
            found.add(path[-1])
        for key, sub in node.get("properties", {}).items():
            walk(sub, path + (key,))
        walk(node.get("items"), path)
        for sub in node.get("anyOf", []) + node.get("oneOf", []):
            walk(sub, path)
        for sub in node.get("additionalProperties", {}).values() if isinstance(
                node.get("additionalProperties"), dict) else ():
            walk(sub, path)
        for sub in node.get("patternProperties", {}).values():
            walk(sub, path)

    walk(schema, ())
    written = {path[-1] for _, _, _, fields in READERS.values() for path, _ in fields}
    assert found and found <= written, sorted(found - written)


#: A truth.csv strength and date that are not written as truth_csv writes them.
WRONG_TRUTH = ["", " ", "no", "false", " 1200 ", "1200 ", "1_200", "+1200", "\u0661\u0662",
               "1,200", "0x4b0", "1200.0.0", "nan", "inf", "-inf", "1e999", "[]", "{}"]
WRONG_TRUTH_DATES = ["", " ", "no", "0", "false", "2025-03-21 ", " 2025-03-21", "20250321",
                     "2025-3-21", "2025-02-30", "0001-01-01"]


@PROPERTY
@given(data=st.data())
def test_every_truth_field_refuses_what_truth_csv_never_writes(tmp_path, data):
    from uschess.apps.generate import TRUTH_COLUMNS, read_truth
    from uschess.errors import InputError
    row = ["E1", "2025-03-21", "12345678"] + [repr(1500.0 + i / 3) for i in range(6)]
    column = data.draw(st.integers(1, len(TRUTH_COLUMNS) - 1).filter(lambda c: c != 2))
    row[column] = data.draw(st.sampled_from(WRONG_TRUTH_DATES if column == 1 else WRONG_TRUTH))
    path = tmp_path / "truth.csv"
    import csv
    with path.open("w", newline="") as fh:
        csv.writer(fh).writerows([TRUTH_COLUMNS, row])
    with pytest.raises(InputError) as err:
        read_truth(path)
    assert str(err.value).startswith(f"{path}: record 2: ")
