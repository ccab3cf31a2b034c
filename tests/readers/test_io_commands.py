"""``uschess import`` and ``uschess export``: tournament files in and out
through the command line, and the crosstable writers of uschess.io.exports."""

from __future__ import annotations

import csv
import io
import json
import math
import os
from pathlib import Path

import pytest

from uschess.cli import main
from uschess.io.eventfile import event_to_dict, load_event
from uschess.io.exports import CSV_COLUMNS, MSA_LABELS, msa_blocks
from uschess.io.formats.detect import load_event_any
from uschess.io.formats.msa import parse_msa
from uschess.formulas import round_half_up
from uschess.rating.pipeline import rate_event

ROOT = Path(__file__).resolve().parents[2]
CLUB_YAML = ROOT / "fixtures" / "events" / "club-championship.yaml"
CLUB_PLAYERS = ROOT / "fixtures" / "events" / "club-championship.players.yaml"
CLUB_DBF = ROOT / "fixtures" / "dbf" / "club-championship"
CLUB_TRF = ROOT / "fixtures" / "trf" / "club-championship.trf"


def cli(*args) -> int:
    return main([str(a) for a in args])


def posts(result) -> dict:
    """Every computed post, by (section, system, pair)."""
    return {(s.section.name, s.system, p.pair): p.post for s in result.sections for p in s.players}


@pytest.fixture(scope="module")
def club_result():
    return rate_event(load_event(CLUB_YAML))


# --------------------------------------------------------------------------
# import

@pytest.mark.parametrize("source", [CLUB_DBF, CLUB_DBF / "TDEXPORT.DBF", CLUB_TRF],
                         ids=["dbf-dir", "dbf-file", "trf"])
@pytest.mark.parametrize("suffix", [".yaml", ".json"])
def test_import_equals_the_event_file(tmp_path, capsys, source, suffix):
    out = tmp_path / f"club{suffix}"
    assert cli("import", source, "--players", CLUB_PLAYERS, "-o", out) == 0
    assert f"wrote {out}" in capsys.readouterr().err
    # a report or TRF plus the players file carries everything the YAML holds
    assert event_to_dict(load_event(out)) == event_to_dict(load_event(CLUB_YAML))
    assert not list(tmp_path.glob("*.tmp"))


def test_import_of_an_event_file_is_the_same_event(tmp_path):
    out = tmp_path / "copy.json"
    assert cli("import", CLUB_YAML, "-o", out) == 0
    assert json.loads(out.read_text())["event"]["id"] == "202403251012"
    assert event_to_dict(load_event(out)) == event_to_dict(load_event(CLUB_YAML))


def test_import_without_players_keeps_what_the_report_says(tmp_path):
    out = tmp_path / "bare.yaml"
    assert cli("import", CLUB_DBF, "-o", out) == 0
    event = load_event(out)
    assert all(p.ratings == {} for s in event.sections for p in s.players)


def test_import_writes_no_event_file_the_rater_would_refuse(tmp_path, capsys):
    """A time control the rater cannot read (a report's 'G/3X;d5') is
    refused at the import, naming the source and the section, not written
    for ``rate`` to refuse later."""
    text = CLUB_YAML.read_text()
    assert "time_control: G/" in text
    bad = tmp_path / "bad.yaml"
    bad.write_text(text.replace("time_control: G/", "time_control: G/3X", 1))
    out = tmp_path / "out.json"
    assert cli("import", bad, "-o", out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bad.yaml" in err and "section '" in err
    assert "cannot read 'G/3X" in err and not out.exists()


def test_import_refuses_to_overwrite_without_force(tmp_path, capsys):
    out = tmp_path / "club.yaml"
    out.write_text("keep me")
    assert cli("import", CLUB_TRF, "--players", CLUB_PLAYERS, "-o", out) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--force" in err
    assert out.read_text() == "keep me"
    assert cli("import", CLUB_TRF, "--players", CLUB_PLAYERS, "-o", out, "--force") == 0
    assert event_to_dict(load_event(out)) == event_to_dict(load_event(CLUB_YAML))


# --------------------------------------------------------------------------
# One event, three formats, identical ratings

@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    """The club championship written by 'export dbf' and 'export trf'."""
    folder = tmp_path_factory.mktemp("exported")
    assert cli("export", "dbf", CLUB_YAML, "-o", folder / "report") == 0
    assert cli("export", "trf", CLUB_YAML, "-o", folder / "club.trf") == 0
    return folder


def test_export_writes_the_committed_fixtures(exported):
    assert (exported / "club.trf").read_bytes() == CLUB_TRF.read_bytes()
    assert sorted(p.name for p in (exported / "report").iterdir()) == \
        ["TDEXPORT.DBF", "THEXPORT.DBF", "TSEXPORT.DBF"]


@pytest.mark.parametrize("which", ["dbf-exported", "trf-exported", "dbf-fixture", "trf-fixture"])
def test_rated_identically_from_yaml_dbf_and_trf(exported, club_result, which):
    path = {"dbf-exported": exported / "report", "trf-exported": exported / "club.trf",
            "dbf-fixture": CLUB_DBF, "trf-fixture": CLUB_TRF}[which]
    result = rate_event(load_event_any(path, players_file=CLUB_PLAYERS))
    expected = posts(club_result)
    got = posts(result)
    assert list(got) == list(expected)
    assert {k[:2] for k in expected} == {("OPEN", "OTBR"), ("U1600", "OTBR"), ("U1600", "OTBQ")}
    for key, post in expected.items():
        assert got[key] == post, key  # exactly the same float


def test_cli_round_trip_through_dbf(tmp_path, capsys):
    assert cli("export", "dbf", CLUB_YAML, "-o", tmp_path / "r",
               "--header", "H_AFF_ID=A6041234", "--header", "h_ctd_id=12004567") == 0
    capsys.readouterr()
    assert cli("rate", tmp_path / "r", "--players", CLUB_PLAYERS, "--json") == 0
    from_dbf = json.loads(capsys.readouterr().out)
    assert cli("rate", CLUB_YAML, "--json") == 0
    from_yaml = json.loads(capsys.readouterr().out)
    for data in (from_dbf, from_yaml):
        data["event"].pop("source")
    # the report names the three players the players file leaves out
    assert [m["id"] for m in from_dbf.pop("member_data")["missing"]] == [
        "31554208", "31601177", "31601198"]
    assert from_dbf == from_yaml
    import dbfread
    head = next(iter(dbfread.DBF(str(tmp_path / "r" / "THEXPORT.DBF"))))
    assert head["H_AFF_ID"] == "A6041234" and head["H_CTD_ID"] == "12004567"


def test_export_dbf_refuses_to_replace_a_report_without_force(tmp_path, capsys):
    assert cli("export", "dbf", CLUB_YAML, "-o", tmp_path) == 0
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    assert cli("export", "dbf", CLUB_TRF, "-o", tmp_path) == 2
    assert "--force" in capsys.readouterr().err
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir()} == before
    assert cli("export", "dbf", CLUB_TRF, "--players", CLUB_PLAYERS, "-o", tmp_path,
               "--force") == 0


# --------------------------------------------------------------------------
# export crosstable

def test_crosstable_msa_parses_back(club_result, capsys):
    assert cli("export", "crosstable", CLUB_YAML) == 0
    text = capsys.readouterr().out
    assert text.startswith("Springfield Chess Club Championship 2024 (202403251012)")
    blocks = msa_blocks(text)
    assert [h.split(",")[0] for h, _ in blocks] == [
        "Section OPEN - OTBR (R)", "Section U1600 - OTBR (R)", "Section U1600 - OTBQ (Q)"]
    assert len(blocks) == len(club_result.sections)
    for (head, table), res in zip(blocks, club_result.sections):
        assert f"{res.section.name} - {res.system}" in head
        ct = parse_msa(table, start=res.section.start, end=res.section.end,
                       time_control=res.section.time_control, system=res.system)
        for pr in res.players:
            pub = ct.published[pr.pair]
            assert pub.id == pr.id and pub.name == pr.name
            assert pub.post == round_half_up(pr.post)
            assert pub.pre == (None if pr.pre is None else round_half_up(pr.pre))
            est = res.rules.p.established_games
            assert pub.pre_games == (pr.games_before if pr.pre is not None
                                     and pr.games_before <= est else None)
            assert pub.post_games == (pr.games_after if pr.games_after <= est else None)
        # the games are those of the section
        section = ct.section
        assert [p.rounds for p in section.players] == [p.rounds for p in res.section.players]
    assert "16702345 / R: 1755P22->" in text and "31554208 / R: Unrated->" in text
    assert "30998764 / Q: Unrated->" in text


def test_crosstable_csv_has_the_columns(club_result, tmp_path, capsys):
    out = tmp_path / "club.csv"
    assert cli("export", "crosstable", CLUB_YAML, "-o", out) == 0  # format from the suffix
    assert capsys.readouterr().err == f"wrote {out}\n"
    rows = list(csv.DictReader(io.StringIO(out.read_text())))
    assert tuple(rows[0]) == CSV_COLUMNS
    expected = [(s, p) for s in club_result.sections for p in s.players]
    assert len(rows) == len(expected) == 8 + 6 + 6
    for row, (res, pr) in zip(rows, expected):
        assert row["event"] == "Springfield Chess Club Championship 2024"
        assert (row["section"], row["system"], int(row["pair"]), row["id"]) == \
            (res.section.name, res.system, pr.pair, pr.id)
        assert float(row["post"]) == pr.post  # full precision
        assert int(row["post_rounded"]) == pr.post_rounded
        assert int(row["games_after"]) == pr.games_after
        assert int(row["pre_games"]) == pr.games_before
        assert row["pre"] == ("" if pr.pre is None else repr(pr.pre))
        assert row["formula"] == pr.formula
        assert row["k"] == ("" if pr.k is None else repr(pr.k))
        assert row["floor_applied"] in ("true", "false")
    assert cli("export", "crosstable", CLUB_YAML, "--format", "CSV") == 0
    assert capsys.readouterr().out == out.read_text()


def test_crosstable_json_equals_rate_json(capsys, tmp_path):
    assert cli("rate", CLUB_YAML, "--json", "--rules-on", "2012-01-01") == 0
    rated = capsys.readouterr().out
    assert cli("export", "crosstable", CLUB_YAML, "--format", "json",
               "--rules-on", "2012-01-01") == 0
    assert capsys.readouterr().out == rated
    out = tmp_path / "club.json"
    assert cli("export", "crosstable", CLUB_DBF, "--players", CLUB_PLAYERS, "-o", out,
               "--rules-on", "2012-01-01") == 0
    data, expected = json.loads(out.read_text()), json.loads(rated)
    for d in (data, expected):
        d["event"].pop("source")
    assert data == expected


def test_crosstable_rules_options_change_the_result(capsys):
    assert cli("export", "crosstable", CLUB_YAML, "--format", "json") == 0
    now = json.loads(capsys.readouterr().out)
    assert cli("export", "crosstable", CLUB_YAML, "--format", "json",
               "--edition", "2001-02-22") == 0
    then = json.loads(capsys.readouterr().out)
    assert now["sections"][0]["rules"] != then["sections"][0]["rules"]


ODD_EVENT = """\
event: {name: Odd Cases, start: 2024-05-04, online: true}
sections:
  - name: Arena
    time_control: G/10;+2
    systems: [OLQ]
    players:
      - {pair: 1, id: "11", name: "Ames, A", rounds: [W2, H],
         ratings: {OLQ: {rating: 1500, games: 30}}}
      - {pair: 2, id: "12", name: "Bell, B", rounds: [L1, U],
         ratings: {OLQ: {rating: 1450, games: 8}}}
      - {pair: 3, id: "13", name: "Cole, C", rounds: [B, U]}
"""


def test_crosstable_of_online_and_unrated_without_games(tmp_path, capsys):
    path = tmp_path / "odd.yaml"
    path.write_text(ODD_EVENT)
    assert cli("export", "crosstable", path) == 0
    text = capsys.readouterr().out
    (head, table), = msa_blocks(text)
    assert head.startswith("Section Arena - OLQ (OQ)") and MSA_LABELS["OLQ"] == "OQ"
    # a player unrated in the system who played no rated game stays unrated
    assert "13 / OQ: Unrated->Unrated" in table
    kept = "\n".join(line for line in table.splitlines()
                     if not any(s in line for s in ("| Cole, C", "13 / OQ"))) + "\n"
    ct = parse_msa(kept, start=load_event(path).start, system="OLQ")
    assert ct.published[2].pre_games == 8 and ct.published[1].pre_games is None
    assert cli("export", "crosstable", path, "--format", "csv") == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert (rows[2]["post"], rows[2]["post_rounded"], rows[2]["pre"]) == ("", "", "")
    assert cli("export", "crosstable", path, "--format", "json") == 0
    players = json.loads(capsys.readouterr().out)["sections"][0]["players"]
    assert players[2]["post"] is None and players[2]["post_rounded"] is None
    assert math.isfinite(players[0]["post"])


# --------------------------------------------------------------------------
# Errors: one line, exit 2

def err_of(capsys) -> str:
    err = capsys.readouterr().err
    assert err.startswith("uschess: error: ") and err.count("\n") == 1, err
    return err


@pytest.mark.parametrize("args,words", [
    (["export", "pdf", CLUB_YAML, "-o", "x.pdf"], "unknown export 'pdf'"),
    (["export", "crosstable", CLUB_YAML, "--format", "xml"], "unknown crosstable format"),
    (["export", "dbf", CLUB_TRF, "--players", "missing.yaml", "-o", "{tmp}/r"], "no such file"),
    (["import", CLUB_TRF, "--players", "{tmp}/none.yaml", "-o", "{tmp}/o.yaml"], "no such file"),
    (["import", CLUB_TRF], "-o"),
    (["import", CLUB_TRF, "-o", "{tmp}/club.txt"], ".yaml"),
    (["import", CLUB_TRF, "-o", "{tmp}/nowhere/club.yaml"], "does not exist"),
    (["import", "{tmp}/absent.trf", "-o", "{tmp}/o.yaml"], "no such file"),
    (["import", "{tmp}", "-o", "{tmp}/o.yaml"], "not a rating report"),
    (["export", "trf", CLUB_YAML, "-o", "{tmp}/club.pgn"], ".trf"),
    (["export", "trf", CLUB_YAML], "-o"),
    (["export", "dbf", CLUB_YAML], "-o"),
    (["export", "dbf", CLUB_YAML, "-o", "{tmp}/file/r"], "cannot"),
    (["export", "dbf", CLUB_YAML, "-o", "{tmp}/file"], "not a directory"),
    (["export", "dbf", CLUB_YAML, "-o", "{tmp}/r", "--header", "H_NAME=x"], "H_NAME"),
    (["export", "dbf", CLUB_YAML, "-o", "{tmp}/r", "--header", "H_CITY"], "FIELD=VALUE"),
    (["export", "trf", CLUB_YAML, "-o", "{tmp}/c.trf", "--header", "H_CITY=X"], "only"),
    (["export", "dbf", CLUB_YAML, "-o", "{tmp}/r", "--format", "csv"], "--format"),
    (["export", "trf", CLUB_YAML, "-o", "{tmp}/c.trf", "--rules-on", "2010-01-01"], "--rules-on"),
    (["export", "crosstable", CLUB_YAML, "-o", "{tmp}/file"], "--force"),
    (["export", "crosstable", CLUB_YAML, "-o", "{tmp}/nowhere/x.txt"], "does not exist"),
])
def test_errors_exit_2(tmp_path, capsys, args, words):
    (tmp_path / "file").write_text("not a directory")
    argv = [str(a).replace("{tmp}", str(tmp_path)) for a in args]
    before = sorted(os.listdir(tmp_path))
    assert main(argv) == 2
    assert words in err_of(capsys)
    assert sorted(os.listdir(tmp_path)) == before


def test_unwritable_output_is_an_input_error(tmp_path, capsys, monkeypatch):
    def failing_fsync(fd):
        raise OSError(28, "No space left on device")
    monkeypatch.setattr(os, "fsync", failing_fsync)
    assert cli("export", "crosstable", CLUB_YAML, "-o", tmp_path / "x.txt") == 2
    assert "No space left" in err_of(capsys)
    assert cli("export", "trf", CLUB_YAML, "-o", tmp_path / "x.trf") == 2
    assert "No space left" in err_of(capsys)
    assert cli("export", "dbf", CLUB_YAML, "-o", tmp_path / "r") == 2
    assert "No space left" in err_of(capsys)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


def test_import_write_failure_is_an_input_error(tmp_path, capsys, monkeypatch):
    def failing_replace(src, dst):
        raise OSError(13, "Permission denied")
    monkeypatch.setattr(os, "replace", failing_replace)
    assert cli("import", CLUB_YAML, "-o", tmp_path / "x.yaml") == 2
    assert "Permission denied" in err_of(capsys)
    assert os.listdir(tmp_path) == []
