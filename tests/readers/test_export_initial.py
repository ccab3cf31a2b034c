"""The project's own MSA export states the initial rating and N of every
unrated player (``Initial R: 1246/05``, as the TD crosstable prints
``1300/00``), and the audit rates from it: the bundled event audits to every
post reproduced with nothing inferred (engine/io/exports.py,
engine/io/formats/msa.py, engine/io/formats/page_event.py)."""

from __future__ import annotations

import pytest

from uschess.apps.audit import audit, load_published
from uschess.cli import main
from uschess.errors import InputError
from uschess.io.exports import msa_blocks
from uschess.io.formats.msa import parse_msa
from uschess.io.eventfile import load_event

from helpers import ROOT

WFCC15 = ROOT / "fixtures" / "events" / "wfcc15.yaml"


def _export(tmp_path, capsys):
    out = tmp_path / "wfcc15.txt"
    assert main(["export", "crosstable", str(WFCC15), "--format", "msa", "-o", str(out)]) == 0
    capsys.readouterr()
    return out


def test_export_prints_each_unrated_players_initial_rating_and_n(tmp_path, capsys):
    text = _export(tmp_path, capsys).read_text(encoding="utf-8")
    lines = text.splitlines()
    haddad = next(k for k, ln in enumerate(lines) if "32510077 / R:" in ln)
    assert "Unrated->" in lines[haddad]
    # blended from his FIDE rating: 1246 on 5 games (sec. 2)
    assert lines[haddad + 1].split("|")[1].strip() == "Initial R: 1246/05"
    nguyen = next(k for k, ln in enumerate(lines) if "32599103 / R:" in ln)
    assert lines[nguyen + 1].split("|")[1].strip() == "Initial R: 508/00"  # age-based, N = 0
    rated = next(k for k, ln in enumerate(lines) if "32207444 / R:" in ln)
    assert "Initial" not in lines[rated + 1]


def test_export_audits_to_all_reproduced_from_what_it_prints(tmp_path, capsys):
    a = audit(load_published(_export(tmp_path, capsys)))
    assert (a.reproduced, a.total) == (16, 16)
    assert a.inferred == [] and all(not r.causes for r in a.rows)
    assert any("32510077 1246/05 in OTBR" in n for n in a.published.notes)


def test_export_table_reads_back_with_parse_msa(tmp_path, capsys):
    text = _export(tmp_path, capsys).read_text(encoding="utf-8")
    event = load_event(WFCC15)
    (head, table), *_ = msa_blocks(text)
    assert head.startswith("Section UNDER 1400 - OTBR")
    ct = parse_msa(table, start=event.start, time_control="G/60;d5")
    haddad = next(p for p in ct.section.players if p.id == "32510077")
    assert (haddad.initial["OTBR"].rating, haddad.initial["OTBR"].games) == (1246.0, 5)
    assert "OTBR" not in haddad.ratings
    assert ct.published[4].pre is None  # still published as unrated


def test_initial_line_under_a_rated_player_is_one_line_refusal(tmp_path, capsys):
    text = _export(tmp_path, capsys).read_text(encoding="utf-8")
    (_, table), *_ = msa_blocks(text)
    rows = table.splitlines()
    initial = next(ln for ln in rows if "Initial R: 1246/05" in ln)
    at = next(k for k, ln in enumerate(rows) if "32207444 / R:" in ln)
    rows.insert(at + 1, initial)
    bad = "\n".join(rows) + "\n"
    with pytest.raises(InputError) as err:
        parse_msa(bad, source="t.txt", start=load_event(WFCC15).start)
    assert "not printed unrated" in str(err.value) and "\n" not in str(err.value)


def test_import_keeps_the_stated_initial_ratings(tmp_path, capsys):
    import yaml

    out = tmp_path / "wfcc15.yaml"
    assert main(["-q", "import", str(_export(tmp_path, capsys)), "-o", str(out)]) == 0
    data = yaml.safe_load(out.read_text(encoding="utf-8"))
    haddad = next(p for s in data["sections"] for p in s["players"] if p["id"] == "32510077")
    assert haddad["initial"] == {"OTBR": {"rating": 1246.0, "games": 5},
                                 "OTBQ": {"rating": 1246.0, "games": 5}}
    capsys.readouterr()
    assert main(["audit", str(out)]) == 0
    assert "16 of 16 reproduced" in capsys.readouterr().out


@pytest.mark.parametrize("initial, message", [
    ({"OTBR": {"rating": 1300, "games": 0}}, "the player is rated in OTBR"),
    ({"XYZ": {"rating": 1300, "games": 0}}, "unknown rating system 'XYZ'"),
    ({"OTBB": {"rating": 1300, "games": -1}}, "'games' = -1 is impossible"),
    ({"OTBB": {"rating": 1300}}, "missing 'games'")])
def test_a_bad_initial_in_an_event_file_is_one_line(tmp_path, capsys, initial, message):
    import yaml

    raw = yaml.safe_load(WFCC15.read_text(encoding="utf-8"))
    raw["sections"][0]["players"][0]["initial"] = initial
    bad = tmp_path / "bad.yaml"
    bad.write_text(yaml.safe_dump(raw), encoding="utf-8")
    assert main(["rate", str(bad)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err
