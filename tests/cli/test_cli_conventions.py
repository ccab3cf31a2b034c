"""The command line's conventions, run as a user runs them: member data that
is missing, ``-`` for standard input and output, ``--force`` and the one
``wrote`` line, ``-q``/``-v``, ``--json``, the rules options, ``USCHESS_DB``,
help everywhere, exit statuses, progress bars, plots of a fixed size."""

from __future__ import annotations

import argparse
import csv
import io
import json
import struct
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from uschess.cli import _leaf_parsers, build_parser, main
from uschess.io.eventfile import write_event

from helpers import ROOT

CLUB_YAML = ROOT / "fixtures" / "events" / "club-championship.yaml"
CLUB_PLAYERS = ROOT / "fixtures" / "events" / "club-championship.players.yaml"
CLUB_DBF = ROOT / "fixtures" / "dbf" / "club-championship"
CLUB_TRF = ROOT / "fixtures" / "trf" / "club-championship.trf"
WFCC = ROOT / "fixtures" / "events" / "wfcc15.yaml"
AUDIT_JSON = ROOT / "fixtures" / "audit" / "wfcc15-2024-b14.json"
B16 = ROOT / "fixtures" / "reforms" / "b-16.yaml"
#: The players the club's players file leaves out (unrated, deliberately).
LEFT_OUT = ["31554208", "31601177", "31601198"]


def run(*args, stdin: bytes | None = None, monkeypatch=None) -> int:
    if stdin is not None:
        monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(stdin)))
    return main([str(a) for a in args])


def commands() -> dict[str, argparse.ArgumentParser]:
    """Every parser that runs a command, by its name (``rules show``)."""
    return {leaf.prog.removeprefix("uschess "): leaf for leaf in _leaf_parsers(build_parser())}


def options_of(parser: argparse.ArgumentParser) -> set[str]:
    return {opt for action in parser._actions for opt in action.option_strings}


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    return struct.unpack(">II", data[16:24])


# ------------------------------------------------------------ member data

def test_a_report_without_any_member_data_needs_all_unrated(capsys):
    assert run("rate", CLUB_DBF) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "none of the 14 players has member data" in err
    assert "--all-unrated" in err and "--players FILE" in err
    assert run("rate", CLUB_DBF, "--all-unrated") == 0
    out = capsys.readouterr().out
    assert "member data: 14 of 14 player(s) have no member data" in out
    # named, with the rating the DBF displays (D_RATING) though it is not used
    assert "12873461 Okafor, Daniel (section 'OPEN', pair 1, report shows 2215)" in out
    assert "Okafor, Daniel" in out and "R: Unrated ->" in out


@pytest.mark.parametrize("source", [CLUB_DBF, CLUB_TRF], ids=["dbf", "trf"])
def test_players_the_players_file_misses_are_counted_and_named(source, capsys, monkeypatch):
    assert run("rate", source, "--players", CLUB_PLAYERS) == 0
    out = capsys.readouterr().out
    assert f"3 of 14 player(s) have no member data in {CLUB_PLAYERS}" in out
    assert all(pid in out.split("\n\n")[0] for pid in LEFT_OUT)
    assert run("rate", source, "--players", CLUB_PLAYERS, "--json") == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)["member_data"]
    assert data["missing_count"] == 3 and data["players"] == 14
    assert [m["id"] for m in data["missing"]] == LEFT_OUT
    assert "3 of 14 player(s)" in captured.err  # and said on stderr
    # a players file that describes none of them is refused like none at all
    assert run("rate", source, "--players", "-", stdin=b"{}\n", monkeypatch=monkeypatch) == 2
    assert "the players file <stdin> describes none of them" in capsys.readouterr().err


def test_an_event_file_holds_its_own_member_data(capsys):
    assert run("rate", CLUB_YAML, "--json") == 0
    assert "member_data" not in json.loads(capsys.readouterr().out)


def test_member_data_in_compare_and_import(tmp_path, capsys):
    assert run("compare", CLUB_TRF, "--players", CLUB_PLAYERS, "--b", f"reform:{B16}", "--json") == 0
    captured = capsys.readouterr()
    assert [m["id"] for m in json.loads(captured.out)["member_data"][0]["missing"]] == LEFT_OUT
    assert "warning: 3 of 14 player(s) have no member data" in captured.err
    assert run("compare", CLUB_TRF, "--b", "baseline") == 2
    assert "none of the 14 players" in capsys.readouterr().err
    assert run("import", CLUB_DBF, "--players", CLUB_PLAYERS, "-o", tmp_path / "c.yaml") == 0
    assert "31601198 Kim, Grace" in capsys.readouterr().err


def test_verbose_names_every_player_quiet_none(capsys):
    assert run("rate", CLUB_DBF, "--all-unrated", "--json") == 0
    err = capsys.readouterr().err
    assert "and 4 more" in err and "Kim, Grace" not in err
    assert run("rate", CLUB_DBF, "--all-unrated", "--json", "-v") == 0
    err = capsys.readouterr().err
    assert "and 4 more" not in err and "Kim, Grace" in err
    assert run("-q", "rate", CLUB_DBF, "--all-unrated", "--json") == 0
    assert capsys.readouterr().err == ""


def test_replay_names_players_rated_unrated_for_want_of_member_data(tmp_path, capsys):
    """A replay takes member data from the store; players of a report that
    the store does not know either are rated as unrated, and said to be."""
    db = tmp_path / "r.db"
    assert run("replay", CLUB_YAML, "--db", db, "--json") == 0  # an event file: its own data
    assert json.loads(capsys.readouterr().out)["member_data"] == []
    fresh = tmp_path / "fresh.db"
    assert run("replay", CLUB_DBF, "--db", fresh) == 0
    out = capsys.readouterr().out
    assert f"14 of 14 player(s) have no member data in the report and no record in {fresh}" in out
    assert "12873461 Okafor, Daniel (section 'OPEN', pair 1, report shows 2215)" in out
    assert "and 4 more" in out
    other = tmp_path / "other.db"
    assert run("replay", CLUB_TRF, "--db", other, "--json") == 0
    data = json.loads(capsys.readouterr().out)["member_data"]
    assert len(data) == 1 and data[0]["missing_count"] == 14 and data[0]["format"] == "trf"


# ------------------------------------------------------------ --explain --json

def test_explain_as_json(capsys):
    assert run("rate", WFCC, "--json") == 0
    rated = json.loads(capsys.readouterr().out)
    assert run("rate", WFCC, "--json", "--explain", "32207444") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["id"] == "32207444" and data["name"] == "Pabon, Matthew"
    systems = [e["system"] for e in data["explanations"]]
    assert systems == ["OTBR", "OTBQ"]
    first = data["explanations"][0]
    steps = [s["step"] for s in first["steps"]]
    assert steps[:2] == ["player", "rules"] and {"step1", "step2", "step4", "step5", "floor",
                                                  "stored"} <= set(steps)
    section = next(s for s in rated["sections"] if s["system"] == "OTBR")
    player = next(p for p in section["players"] if p["id"] == "32207444")
    assert first["result"]["post"] == player["post"]  # the same float
    assert run("rate", WFCC, "--json", "--explain", "99") == 2


# ------------------------------------------------------------ "-" and --force

def test_rate_reads_standard_input(capsys, monkeypatch):
    assert run("rate", WFCC, "--json") == 0
    from_file = json.loads(capsys.readouterr().out)
    assert run("rate", "-", "--json", stdin=WFCC.read_bytes(), monkeypatch=monkeypatch) == 0
    from_stdin = json.loads(capsys.readouterr().out)
    assert from_stdin["event"].pop("source") == "<stdin>"
    from_file["event"].pop("source")
    assert from_stdin == from_file
    # a TRF is recognised by its first bytes; an error names <stdin>
    assert run("rate", "-", "--players", CLUB_PLAYERS, stdin=CLUB_TRF.read_bytes(),
               monkeypatch=monkeypatch) == 0
    assert "Okafor, Daniel" in capsys.readouterr().out
    assert run("rate", "-", stdin=b"event: {name: x}\n", monkeypatch=monkeypatch) == 2
    err = capsys.readouterr().err
    assert err.startswith("uschess: error: <stdin>") and "uschess-stdin" not in err
    assert run("rate", "-", "--players", "-", stdin=CLUB_TRF.read_bytes(),
               monkeypatch=monkeypatch) == 2
    assert "already read" in capsys.readouterr().err


def test_outputs_to_standard_output(tmp_path, capsys, monkeypatch):
    assert run("export", "crosstable", CLUB_YAML, "--format", "csv", "-o", "-") == 0
    captured = capsys.readouterr()
    assert list(csv.DictReader(io.StringIO(captured.out)))[0]["id"] and captured.err == ""
    assert run("export", "trf", CLUB_YAML, "-o", "-") == 0
    assert capsys.readouterr().out.startswith("012 ")
    assert run("import", CLUB_TRF, "--players", CLUB_PLAYERS, "-o", "-", "--format", "json") == 0
    assert json.loads(capsys.readouterr().out)["event"]["name"]
    assert run("compare", WFCC, "--b", f"reform:{B16}", "--csv", "-") == 0
    rows = list(csv.DictReader(io.StringIO(capsys.readouterr().out)))
    assert rows and not (tmp_path / "-").exists() and not Path("-").exists()
    assert run("compare", WFCC, "--b", f"reform:{B16}", "--csv", "-", "--json") == 2
    assert "both write to standard output" in capsys.readouterr().err
    assert run("audit", "-", "--json", stdin=AUDIT_JSON.read_bytes(), monkeypatch=monkeypatch) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 16
    assert run("replay", "-", "--db", tmp_path / "r.db", "--json", stdin=WFCC.read_bytes(),
               monkeypatch=monkeypatch) == 0
    assert json.loads(capsys.readouterr().out)["events_applied"] == 1


@pytest.mark.slow
def test_one_overwrite_rule_and_one_wrote_line(tmp_path, capsys):
    out = tmp_path / "club.yaml"
    csv_out = tmp_path / "diff.csv"
    table = tmp_path / "club.csv"
    runs = [("import", CLUB_YAML, "-o", out),
            ("compare", WFCC, "--b", f"reform:{B16}", "--csv", csv_out),
            ("export", "crosstable", CLUB_YAML, "-o", table),
            ("audit", AUDIT_JSON, "--html", tmp_path / "a.html")]
    for argv in runs:
        assert run(*argv) == 0, argv
        target = argv[-1]
        assert f"wrote {target}" in capsys.readouterr().err
        before = target.read_bytes()
        assert run(*argv) == 2, argv  # exists: never replaced without --force
        assert f"{target}: exists; use --force to replace it" in capsys.readouterr().err
        assert target.read_bytes() == before
        assert run(*argv, "--force") == 0, argv
        err = capsys.readouterr().err
        assert err.count(f"wrote {target}") == 1
        assert run(*argv, "--force", "--quiet") == 0
        assert "wrote" not in capsys.readouterr().err
    plots = tmp_path / "plots"
    pytest.importorskip("matplotlib")
    assert run("compare", WFCC, "--b", f"reform:{B16}", "--plot-dir", plots) == 0
    assert capsys.readouterr().err.count("wrote") == 2
    assert run("compare", WFCC, "--b", f"reform:{B16}", "--plot-dir", plots) == 2
    assert "already holds differences.png, differences.svg" in capsys.readouterr().err


def test_json_summaries_of_import_export_and_generate(tmp_path, capsys):
    assert run("generate", "--players", 30, "--events", 3, "-o", tmp_path / "g", "--json") == 0
    captured = capsys.readouterr()
    data = json.loads(captured.out)
    assert data["events"] == len(data["files"]) and all(Path(f).is_file() for f in data["files"])
    assert captured.err.startswith("wrote ")
    assert run("import", CLUB_TRF, "--players", CLUB_PLAYERS, "-o", tmp_path / "c.json",
               "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["wrote"] == [str(tmp_path / "c.json")] and data["players"] == 14
    assert data["member_data"]["missing_count"] == 3
    assert run("export", "dbf", CLUB_YAML, "-o", tmp_path / "r", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert sorted(Path(p).name for p in data["wrote"]) == ["TDEXPORT.DBF", "THEXPORT.DBF",
                                                           "TSEXPORT.DBF"]


# ------------------------------------------------------------ options everywhere

def test_every_command_and_option_has_help():
    parser = build_parser()
    subs = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    assert {c.dest for c in subs._choices_actions} >= {"rate", "rules", "generate", "replay"}
    assert all(c.help for c in subs._choices_actions)
    for name, leaf in commands().items():
        assert leaf.description, name
        for action in leaf._actions:
            if action.option_strings == ["-h", "--help"]:
                continue
            assert action.help, f"{name} {action.option_strings or action.dest}"
    rules = build_parser()._subparsers._group_actions[0].choices["rules"]
    inner = next(a for a in rules._actions if isinstance(a, argparse._SubParsersAction))
    assert {c.dest for c in inner._choices_actions} == {"show", "timeline", "diff", "conflicts"}
    assert all(c.help for c in inner._choices_actions)


def test_quiet_verbose_everywhere_and_json_on_every_command_with_a_result():
    for name, leaf in commands().items():
        assert {"-q", "--quiet", "-v", "--verbose"} <= options_of(leaf), name
        assert "--json" in options_of(leaf), name


RULES_OPTIONS = {"--rules-on", "--known-on", "--edition", "--reading", "--reform"}


def test_the_rules_options_are_one_group_on_every_command_that_rates():
    found = commands()
    for name in ("rate", "audit", "replay", "fide-update", "export"):
        leaf = found[name]
        assert RULES_OPTIONS <= options_of(leaf), name
        group = next(g for g in leaf._action_groups if g.title == "which rules")
        assert {o for a in group._group_actions for o in a.option_strings} == RULES_OPTIONS


@pytest.mark.slow
def test_audit_takes_rules_on_and_edition(capsys):
    assert run("audit", AUDIT_JSON, "--json") == 0
    base = json.loads(capsys.readouterr().out)
    assert run("audit", AUDIT_JSON, "--json", "--rules-on", "2016-01-01") == 0
    other = json.loads(capsys.readouterr().out)
    assert other["reproduced"] != base["reproduced"]
    assert run("audit", AUDIT_JSON, "--rules-on", "2016-01-01") == 0
    assert "rules in force on 2016-01-01" in capsys.readouterr().out
    assert run("audit", AUDIT_JSON, "--edition", "2017-04-24") == 0
    assert "edition 2017-04-24" in capsys.readouterr().out
    assert run("audit", AUDIT_JSON, "--edition", "1999") == 2


def test_exit_statuses_are_documented_and_strict_compare_finds_differences(capsys):
    assert run() == 0
    text = capsys.readouterr().out
    assert "exit status:" in text and "  1    --strict" in text and "  2    bad input" in text
    assert run("compare", WFCC, "--b", f"reform:{B16}", "--strict") == 1
    assert run("compare", WFCC, "--b", "baseline", "--strict") == 0
    assert run("compare", WFCC, "--b", "nonsense") == 2


def test_rules_show_defaults_to_today(capsys):
    import datetime as dt
    assert run("rules", "show", "--json") == 0
    data = json.loads(capsys.readouterr().out)
    assert data["on"] == dt.date.today().isoformat()


# ------------------------------------------------------------ USCHESS_DB

def test_the_store_from_uschess_db(tmp_path, capsys, monkeypatch):
    assert run("replay", WFCC) == 2
    assert "give --db FILE or set USCHESS_DB" in capsys.readouterr().err
    db = tmp_path / "daily.db"
    monkeypatch.setenv("USCHESS_DB", str(db))
    assert run("replay", WFCC) == 0
    assert db.exists() and "1 event(s) applied" in capsys.readouterr().out
    assert run("player", "32207444", "--json") == 0
    assert json.loads(capsys.readouterr().out)["id"] == "32207444"
    assert run("player", "32207444", "--db", tmp_path / "missing.db") == 2  # --db wins
    capsys.readouterr()
    # an audit of a published file ignores the variable; without one it audits the store
    assert run("audit", AUDIT_JSON, "--json") == 0
    assert json.loads(capsys.readouterr().out)["total"] == 16
    assert run("audit") == 2
    assert "no published ratings" in capsys.readouterr().err


# ------------------------------------------------------------ progress

def test_compare_progress_only_when_asked_and_never_quiet(capsys):
    assert run("compare", WFCC, "--b", "baseline") == 0
    assert capsys.readouterr().err == ""  # not a terminal
    assert run("compare", WFCC, "--b", "baseline", "--progress") == 0
    err = capsys.readouterr().err
    assert "reading:" in err and "rating A and B:" in err and "event/s" in err
    assert run("compare", WFCC, "--b", "baseline", "--progress", "-q") == 0
    assert capsys.readouterr().err == ""


def test_generate_progress_only_when_asked_and_never_quiet(tmp_path, capsys):
    assert run("generate", "--players", "12", "--events", "6", "-o", tmp_path / "a") == 0
    assert "generate:" not in capsys.readouterr().err  # not a terminal
    assert run("generate", "--players", "12", "--events", "6", "-o", tmp_path / "b",
               "--progress") == 0
    err = capsys.readouterr().err
    assert "generate:" in err and "/6 [" in err and "event/s" in err
    assert run("generate", "--players", "12", "--events", "6", "-o", tmp_path / "c",
               "--progress", "-q") == 0
    assert capsys.readouterr().err == ""


def test_a_bar_not_shown_counts_without_tqdm():
    """A bar that is not shown (not a terminal, or quiet) is a HiddenBar:
    it counts as tqdm does and never imports it; one forced is tqdm's."""
    import subprocess
    import sys

    code = ("import sys; from uschess.commands.common import Console\n"
            "with Console().progress(total=3) as bar:\n"
            "    bar.update(2); bar.update(); bar.set_postfix(x=1, refresh=False)\n"
            "    bar.total = 4\n"
            "print(bar.n, 'tqdm' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out == ["3", "False"]
    from uschess.commands.common import Console, HiddenBar

    assert isinstance(Console(quiet=True).progress(force=True), HiddenBar)
    shown = Console().progress(total=1, force=True)
    try:
        assert not isinstance(shown, HiddenBar) and shown.disable is False
    finally:
        shown.close()


# ------------------------------------------------------------ plots

def _history(folder: Path, events: int) -> list[Path]:
    from uschess.apps.generate import generate_history
    paths = []
    for event in generate_history(7, 40, events):
        path = folder / f"{event.id}.json"
        write_event(event, path)
        paths.append(path)
    return paths


@pytest.mark.slow
def test_path_plot_has_one_size_and_a_date_axis(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    sizes = {}
    for n in (3, 20):
        folder = tmp_path / f"h{n}"
        folder.mkdir()
        files = _history(folder, n)
        assert run("compare", *files, "--b", f"reform:{B16}", "--json") == 0
        rows = json.loads(capsys.readouterr().out)["players"]
        busiest = max({r["id"] for r in rows}, key=lambda pid: sum(r["id"] == pid for r in rows))
        plots = tmp_path / f"plots{n}"
        assert run("compare", *files, "--b", f"reform:{B16}", "--plot-dir", plots,
                   "--player", busiest, "-q") == 0
        capsys.readouterr()
        sizes[n] = (png_size(plots / "paths.png"), png_size(plots / "differences.png"))
        svg = (plots / "paths.svg").read_text(encoding="utf-8")
        assert "date of the player's event" in svg
        assert not any(f"{e.stem}\n" in svg for e in files)  # no tick per event
    assert sizes[3] == sizes[20] == ((960, 576), (960, 576))


def test_histogram_leaves_unchanged_results_out_and_says_so(tmp_path):
    pytest.importorskip("matplotlib")
    from uschess.apps.plots import _bin_edges, plot_differences
    diffs = [0.0] * 50 + [-0.2, -0.1, 0.05, 0.3, 4.0]
    plot_differences(diffs, tmp_path, title="t")
    texts = "".join(ET.parse(tmp_path / "differences.svg").getroot().itertext())
    assert "55 results compared: 5 changed (2 lower, 3 higher under B; drawn), 50 unchanged" in texts
    assert "changed results" in texts and "players (per system)" not in texts
    edges = _bin_edges([d for d in diffs if d])
    assert 0.0 in [round(e, 12) for e in edges]  # gains and losses never share a bin
    assert edges[0] <= -0.2 and edges[-1] >= 4.0


# ------------------------------------------------------------ hypothesis budget

def test_the_default_run_uses_a_small_example_budget(monkeypatch):
    import os

    from hypothesis import settings

    from helpers import examples
    profile = os.environ.get("USCHESS_HYPOTHESIS", "dev")
    assert settings.default.max_examples == {"dev": 10, "ci": 100}[profile]
    assert examples(2000) == {"dev": 200, "ci": 2000}[profile]
    ci_run = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "USCHESS_HYPOTHESIS=ci python -m pytest" in ci_run


def test_histogram_counts_a_change_as_the_comparison_does(tmp_path):
    """A difference within the comparison's tolerance is unchanged in the plot
    too, so the plot's counts agree with the printed summary."""
    pytest.importorskip("matplotlib")
    from uschess.apps.compare import EPSILON
    from uschess.apps.plots import plot_differences
    plot_differences([0.0, 1e-12, -3e-10, -2.0, 1.5], tmp_path, title="t", tolerance=EPSILON)
    texts = "".join(ET.parse(tmp_path / "differences.svg").getroot().itertext())
    assert "5 results compared: 2 changed (1 lower, 1 higher under B; drawn), 3 unchanged" in texts


def test_a_fifo_or_a_device_is_refused_at_once_never_waited_on(tmp_path):
    """A named pipe with no writer would block a plain ``open`` for ever:
    every command that reads an input refuses it (and a device, and a
    directory where a file is meant) in one line with status 2, at once.
    The commands run in a child process with a deadline, so that a
    regression fails the test instead of hanging the run."""
    import os
    import subprocess
    import sys

    fifos = []
    for name in ("event.yaml", "page.html", "report.trf"):
        path = tmp_path / name
        os.mkfifo(path)
        fifos.append(str(path))
    script = (
        "import sys\n"
        "from uschess.cli import main\n"
        "cases = [['rate', sys.argv[1]], ['audit', sys.argv[1]], ['audit', sys.argv[2]],\n"
        "         ['import', sys.argv[2], '-o', sys.argv[4]], ['rate', sys.argv[3]],\n"
        "         ['replay', sys.argv[1], '--db', sys.argv[5]], ['rate', '/dev/zero']]\n"
        "for argv in cases:\n"
        "    print(main(argv), flush=True)\n")
    done = subprocess.run([sys.executable, "-c", script, *fifos, str(tmp_path / "out.yaml"),
                           str(tmp_path / "store.db")],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["2"] * 7, done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) == 7 and "Traceback" not in done.stderr
    for line, path in zip(lines, [fifos[0], fifos[0], fifos[1], fifos[1], fifos[2],
                                  fifos[0]]):
        assert line == (f"uschess: error: {path}: is a FIFO (named pipe), not a regular "
                        "file: pass the file itself (or - to read standard input)"), line
    assert lines[6].startswith("uschess: error: /dev/zero: ")
    assert not (tmp_path / "out.yaml").exists()


def test_rating_an_event_file_loads_no_other_reader():
    """``uschess rate`` of an event file imports neither the DBF, TRF and
    member-data readers nor the FIDE update's modules (each loads when a
    file or an update of its kind comes); a TRF read in the same process
    loads its reader then."""
    import subprocess
    import sys

    lazy = ["uschess.io.formats.uscf_dbf", "uschess.io.formats.trf", "uschess.io.formats.players",
            "uschess.io.formats.dbase", "uschess.io.fide_file", "uschess.rating.fide_update"]
    event = Path(__file__).resolve().parents[2] / "fixtures" / "events" / "wfcc15.yaml"
    code = ("import sys, contextlib, io\nfrom uschess.cli import main\n"
            "with contextlib.redirect_stdout(io.StringIO()):\n"
            f"    assert main(['rate', {str(event)!r}]) == 0\n"
            f"print(*[m for m in {lazy!r} if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == []
    trf = Path(__file__).resolve().parents[2] / "fixtures" / "trf" / "trf16-budapest.trf"
    code = ("import sys\nfrom uschess.io.formats.detect import load_event_any\n"
            f"load_event_any({str(trf)!r})\nprint('uschess.io.formats.trf' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["True"]


def test_output_that_cannot_be_written_and_closed_streams_are_one_line(tmp_path):
    """Standard output full (/dev/full) or closed, standard input closed:
    one line and exit 2, never a traceback or a silent success; with
    standard error closed the command still runs (only its messages go)."""
    import os
    import shlex
    import subprocess
    import sys

    event = Path(__file__).resolve().parents[2] / "fixtures" / "events" / "wfcc15.yaml"
    cmd = f"{shlex.quote(sys.executable)} -m uschess"

    def sh(line: str):
        return subprocess.run(["sh", "-c", line], capture_output=True, text=True, timeout=60,
                              cwd=tmp_path)

    if os.path.exists("/dev/full"):
        out = sh(f"{cmd} rate {shlex.quote(str(event))} > /dev/full")
        assert out.returncode == 2 and out.stderr.splitlines() == [
            "uschess: error: cannot write the output: No space left on device"]
    out = sh(f"{cmd} rate {shlex.quote(str(event))} >&-")
    assert out.returncode == 2 and out.stderr.splitlines() == [
        "uschess: error: standard output is closed: run the command with it open (to a file "
        "or /dev/null)"]
    out = sh(f"{cmd} rate - <&-")
    assert out.returncode == 2 and "standard input is closed" in out.stderr
    out = sh(f"{cmd} rate {shlex.quote(str(event))} 2>&-")
    assert out.returncode == 0 and "UNDER 1400" in out.stdout
