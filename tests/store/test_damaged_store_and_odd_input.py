"""A ratings store changed outside the program, and odd input found by
fuzzing the command line: each gets one located line and exit status 2 (or,
for a store value the program can show, a plain output), never a traceback."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from uschess.cli import main

from helpers import ROOT, SHARED_DATA

HISTORY = ROOT / "fixtures" / "replay-mixed"
EVENT = ROOT / "fixtures" / "events" / "wfcc15.yaml"
DAMAGED = "the store was changed outside this program"


def run(capsys, *args) -> tuple[int, str, str]:
    code = main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture(scope="module")
def store_file(tmp_path_factory) -> Path:
    """A store of the mixed history but its event e2 (so that a replay of
    e2 reads the players' records back from the store)."""
    path = tmp_path_factory.mktemp("store") / "base.db"
    files = [p for p in sorted(HISTORY.glob("*.yaml")) if not p.name.startswith("e2")]
    assert main(["-q", "replay", *map(str, files), "--db", str(path)]) == 0
    return path


@pytest.fixture
def store(store_file, tmp_path) -> Path:
    copy = tmp_path / "s.db"
    copy.write_bytes(store_file.read_bytes())
    return copy


def sql(path: Path, *statements: str) -> None:
    conn = sqlite3.connect(path)
    for s in statements:
        conn.execute(s)
    conn.commit()
    conn.close()


def one_line_error(code: int, err: str, *parts: str) -> None:
    lines = [line for line in err.splitlines() if line.strip()]
    assert code == 2 and len(lines) == 1, err
    assert "Traceback" not in err
    for part in parts:
        assert part in lines[0], lines[0]


def a_rated_player(path: Path) -> tuple[str, str]:
    conn = sqlite3.connect(path)
    pid, system = conn.execute("SELECT player_id, system FROM changes ORDER BY player_id "
                               "LIMIT 1").fetchone()
    conn.close()
    return pid, system


E2 = HISTORY / "e2-summer-swiss.yaml"


@pytest.mark.parametrize("column, value, says", [
    ("rating", "'abc'", "rating is 'abc', not a number"),
    ("wins", "''", "wins is '', not a whole number"),
    ("peak", "'x'", "peak is 'x', not a number"),
    ("rated_on", "'-1'", "date '-1' is not YYYY-MM-DD"),
    ("games", "-5000.0", "games is -5000, below 0"),
    # of the right type but outside what the program writes
    ("rating", "-5000.0", "rating is -5000.0, outside 0..4000"),
    ("rating", "1e308", "rating is 1e+308, outside 0..4000"),
    ("peak", "1e300", "peak is 1e+300, outside 0..4000"),
    ("games_above_2200", "-7", "games_above_2200 is -7, below 0"),
    ("prize_floor", "99999", "prize_floor is 99999, outside 100..3000"),
    ("prize_floor", "1950", "prize_floor is 1950, not a 100-point level"),
    ("system", "'XYZ'", "system 'XYZ' is none of OTBR"),
])
def test_a_damaged_ratings_row_is_named_by_player_and_system(capsys, store, column, value, says):
    pid, system = a_rated_player(store)
    sql(store, f"UPDATE ratings SET {column} = {value}")  # every row: whichever is read first
    code, _, err = run(capsys, "player", pid, "--db", store)
    one_line_error(code, err, str(store), "the ratings row of player", says, DAMAGED)
    code, _, err = run(capsys, "replay", E2, "--db", store)
    one_line_error(code, err, "the ratings row of player", says, DAMAGED)


def test_changes_of_an_event_whose_row_is_gone(capsys, store):
    conn = sqlite3.connect(store)
    eid = conn.execute("SELECT event_id FROM changes LIMIT 1").fetchone()[0]
    conn.close()
    sql(store, f"DELETE FROM events WHERE id = '{eid}'")
    code, _, err = run(capsys, "replay", HISTORY, "--skip-applied", "--db", store)
    one_line_error(code, err, f"event {eid}", "no events row", DAMAGED)


def test_damaged_events_rows(capsys, store):
    sql(store, "UPDATE events SET start_date = 'OTBX' WHERE seq = (SELECT MAX(seq) FROM events)")
    code, _, err = run(capsys, "replay", E2, "--db", store)
    one_line_error(code, err, "the last event applied", "date 'OTBX' is not YYYY-MM-DD")
    sql(store, "UPDATE events SET start_date = end_date, seq = 'x' "
               "WHERE seq = (SELECT MAX(seq) FROM events)")
    code, _, err = run(capsys, "replay", E2, "--db", store)
    one_line_error(code, err, "sequence numbers", "'x', not a whole number", DAMAGED)


def test_damaged_changes_rows(capsys, store):
    pid, _ = a_rated_player(store)
    sql(store, f"UPDATE changes SET post = 'high' WHERE player_id = '{pid}'")
    code, _, err = run(capsys, "player", pid, "--db", store)
    one_line_error(code, err, f"the change of player '{pid}'", "post is 'high'", DAMAGED)


@pytest.mark.parametrize("rules", ["''", "'1.5'", "'[1, 2]'"])
def test_damaged_rules_and_published_rows(capsys, store, rules):
    conn = sqlite3.connect(store)
    eid, pid, system, fp = conn.execute(
        "SELECT event_id, player_id, system, fingerprint FROM changes LIMIT 1").fetchone()
    conn.close()
    sql(store, f"INSERT INTO published VALUES ('{eid}', '{pid}', '{system}', 1500.0)")
    sql(store, f"UPDATE rulesets SET rules = {rules} WHERE fingerprint = '{fp}'")
    code, _, err = run(capsys, "audit", "--db", store)
    one_line_error(code, err, f"the rules '{fp}'", "is not a JSON object", DAMAGED)
    sql(store, f"UPDATE published SET post = 'nan' WHERE player_id = '{pid}'")
    code, _, err = run(capsys, "audit", "--db", store)
    one_line_error(code, err, f"player '{pid}'", "the published post is 'nan'", DAMAGED)
    sql(store, f"UPDATE published SET post = 1500.0, system = 'nan' WHERE player_id = '{pid}'")
    code, _, err = run(capsys, "audit", "--db", store)
    one_line_error(code, err, "system 'nan' is none of OTBR", DAMAGED)


def test_player_without_counts_prints_no_none(capsys, store):
    pid, system = a_rated_player(store)
    sql(store, "UPDATE ratings SET wins = NULL, draws = NULL, losses = NULL, events3 = NULL")
    code, out, err = run(capsys, "player", pid, "--db", store)
    assert code == 0, err
    assert "None" not in out and "events with 3+ games not known" in out


def test_a_foreign_sqlite_file_is_not_made_a_store(capsys, tmp_path):
    other = tmp_path / "invoices.db"
    sql(other, "CREATE TABLE invoices (n INTEGER)", "INSERT INTO invoices VALUES (1)")
    before = other.read_bytes()
    code, _, err = run(capsys, "replay", EVENT, "--db", other)
    one_line_error(code, err, str(other), "not a ratings store", "('invoices'...)")
    assert other.read_bytes() == before


def test_generate_refuses_a_size_it_will_not_make_before_creating_anything(capsys, tmp_path):
    out = tmp_path / "history"
    code, _, err = run(capsys, "generate", "--players", 10, "--events", 10**9, "-o", out)
    one_line_error(code, err, "1,000,000,000 events", "at most 250,000 events")
    assert not out.exists()


def test_a_newline_in_a_file_name_stays_on_one_line(capsys, tmp_path):
    bad = tmp_path / "ok\nname.yaml"
    bad.write_text("event: {name: x}\n", encoding="utf-8")
    code, _, err = run(capsys, "rate", bad)
    one_line_error(code, err, "ok\\nname.yaml")


def _event(tmp_path, rounds_a: list[str], rounds_b: list[str], id_b: str = "2") -> Path:
    path = tmp_path / "e.yaml"
    path.write_text(
        "event: {name: T, start: 2024-05-04}\n"
        "sections:\n- name: OPEN\n  time_control: G/60;d5\n  players:\n"
        f"  - {{pair: 1, id: '1', name: A, rounds: {rounds_a}}}\n"
        f"  - {{pair: 2, id: '{id_b}', name: B, rounds: {rounds_b}}}\n"
        f"  - {{pair: 3, id: '3', name: C, rounds: ['L1', 'B']}}\n", encoding="utf-8")
    return path


def test_round_cells_take_ascii_digits_only(capsys, tmp_path):
    code, _, err = run(capsys, "rate", _event(tmp_path, ["W３", "D2"], ["B", "D1"]))
    one_line_error(code, err, "player 1 (A)", "round 1", "'W３' is not W/L/D")


def test_entries_of_one_member_paired_together_are_named_by_the_files_round(capsys, tmp_path):
    path = _event(tmp_path, ["W3", "D2"], ["B", "D1"], id_b="1")
    code, _, err = run(capsys, "rate", path)
    one_line_error(code, err, "player 1 (A)", "round 2", "another entry of the same member")


def test_explain_an_empty_id_is_refused(capsys):
    code, _, err = run(capsys, "rate", EVENT, "--explain", "")
    one_line_error(code, err, "no player with id ''")


def test_a_dbf_header_value_longer_than_its_field_is_refused(capsys, tmp_path):
    out = tmp_path / "out"
    code, _, err = run(capsys, "export", "dbf", ROOT / "fixtures" / "events" /
                       "club-championship.yaml", "-o", out, "--header", "H_AFF_ID=" + "A" * 29)
    one_line_error(code, err, "H_AFF_ID: 29 characters", "holds 8")
    assert not out.exists() or not any(out.iterdir())


@pytest.mark.parametrize("argv, says", [
    (["audit", "x.html", "--rules-on", "2024-13-01"], "uschess audit: error: argument --rules-on"),
    (["rate"], "uschess rate: error: the following arguments are required: event"),
    (["bogus"], "uschess: error: argument COMMAND: invalid choice: 'bogus'"),
])
def test_usage_errors_are_one_line(capsys, argv, says):
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2
    one_line_error(2, err, says, "--help')")


def test_standard_input_for_both_the_event_and_the_reform_is_refused(capsys, monkeypatch):
    import io
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(EVENT.read_bytes())))
    code, _, err = run(capsys, "rate", "-", "--reform", "-")
    one_line_error(code, err, "standard input (-) is given for both --reform and the event")


# ----------------------------------------------- found by fuzzing the web app and evaluate
WAUKESHA = SHARED_DATA / "real" / "waukesha-2022-late-spring" / "LateSpring-USCF.txt"


@pytest.mark.slow
@pytest.mark.shared_data
def test_audit_with_a_tolerance_below_half_a_point(capsys):
    # the search again re-rated a player from a history in place, who then
    # had no initialization to report (AttributeError before)
    code, out, err = run(capsys, "audit", WAUKESHA, "--tolerance", "0")
    assert code == 0 and "Traceback" not in err and "tolerance 0" in out


def test_a_store_missing_a_table_is_named(capsys, store):
    sql(store, "DROP TABLE ratings")
    code, _, err = run(capsys, "player", "A", "--db", store)
    one_line_error(code, err, "table(s) ratings: missing from the store", DAMAGED)


def test_a_damaged_zip_upload_is_a_400(tmp_path):
    import io
    import zipfile
    from starlette.testclient import TestClient
    from uschess.web.app import create_app
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as archive:
        for f in sorted((ROOT / "fixtures" / "dbf" / "club-championship").iterdir()):
            archive.write(f, arcname=f.name)
    data = bytearray(buf.getvalue())
    first = zipfile.ZipFile(io.BytesIO(bytes(data))).infolist()[0]
    data[first.header_offset + 30 + len(first.filename)] ^= 0xFF  # the deflate stream's first byte
    client = TestClient(create_app(), raise_server_exceptions=False)
    for cut in (bytes(data), buf.getvalue()[:200] + buf.getvalue()[400:]):
        got = client.post("/api/rate", files={"event": ("report.zip", cut)})
        assert got.status_code == 400, got.text
        assert "report.zip" in got.json()["error"]


def test_evaluate_refuses_odd_truth_and_an_event_given_twice(capsys, tmp_path):
    hist = tmp_path / "hist"
    assert main(["-q", "generate", "--players", "20", "--events", "8", "-o", str(hist)]) == 0
    code, _, err = run(capsys, "evaluate", hist, hist / next(
        p.name for p in sorted(hist.glob("*.json"))), "--rules", "baseline")
    one_line_error(code, err, "is given twice")
    truth = hist / "truth.csv"
    lines = truth.read_text(encoding="utf-8").splitlines()
    cells = lines[1].split(",")
    cells[3] = "inf"
    truth.write_text("\n".join([lines[0], ",".join(cells), *lines[2:]]) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "evaluate", hist, "--rules", "baseline")
    one_line_error(code, err, "truth.csv", "record 2", "OTBR strength 'inf' is not a finite")
    cells[3], cells[1] = "1500", "2001-02-30"
    truth.write_text("\n".join([lines[0], ",".join(cells), *lines[2:]]) + "\n", encoding="utf-8")
    code, _, err = run(capsys, "evaluate", hist, "--rules", "baseline")
    one_line_error(code, err, "truth.csv", "record 2")
    code, _, err = run(capsys, "evaluate", hist, "--rules", "baseline", "--plot-dir", truth)
    one_line_error(code, err, f"{truth}: exists and is not a directory")


@pytest.mark.parametrize("option, value, says", [
    ("--timeout", "inf", "--timeout: a number of seconds above 0, at most 86400"),
    ("--workers", "100000", "--workers: 1 to"),
    ("--scheduler", "", "--scheduler: give the scheduler's address"),
])
def test_sweep_bounds(capsys, tmp_path, option, value, says):
    code, _, err = run(capsys, "sweep", ROOT / "fixtures" / "replay-mixed", "--vary",
                       "bonus_multiplier=12,14", option, value)
    one_line_error(code, err, says)


def test_one_conflict_given_two_readings_is_refused(capsys):
    code, _, err = run(capsys, "rules", "show", "--on", "2017-05-15", "--reading",
                       "bonus-14-start=2017-text", "--reading", "bonus-14-start=2025-list")
    one_line_error(code, err, "--reading bonus-14-start: given twice")


def test_a_foreign_or_empty_file_is_left_as_it_was_by_a_reading_command(capsys, tmp_path):
    """``player`` opens a store to read it: a file that is not one (another
    program's SQLite database, an empty file) is refused and left byte for
    byte as it was (no journal mode switched, no database made of it, no
    -wal or -shm file beside it)."""
    other, empty = tmp_path / "invoices.db", tmp_path / "empty.db"
    sql(other, "CREATE TABLE invoices (n INTEGER)")
    empty.write_bytes(b"")
    for path, says in ((other, "('invoices'...)"), (empty, "an empty file")):
        before = path.read_bytes()
        code, _, err = run(capsys, "player", "A", "--db", path)
        one_line_error(code, err, str(path), "not a ratings store", says)
        assert path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["empty.db", "invoices.db"]


@pytest.mark.parametrize("name", [":memory:", "-", " ", "file:x.db?mode=memory"])
def test_a_store_name_sqlite_would_not_keep_is_refused(capsys, tmp_path, monkeypatch, name):
    """':memory:' (a database that vanishes with the process), '-' and a
    blank name: a replay must not report events written to nothing."""
    monkeypatch.chdir(tmp_path)
    code, _, err = run(capsys, "replay", EVENT, "--db", name)
    one_line_error(code, err, f"{name!r} is not a ratings store's file name")
    assert list(tmp_path.iterdir()) == []


def test_the_writer_lock_is_never_opened_through_a_link(capsys, tmp_path):
    """A ``STORE-writer`` that is a symbolic link (to a file of the user's)
    is refused: the lock file gets the writer's pid, which would overwrite
    the file it points to."""
    precious = tmp_path / "precious.txt"
    precious.write_text("keep me\n")
    (tmp_path / "s.db-writer").symlink_to(precious)
    code, _, err = run(capsys, "replay", EVENT, "--db", tmp_path / "s.db")
    one_line_error(code, err, "s.db-writer is a symbolic link")
    assert precious.read_text() == "keep me\n"


def test_a_damaged_page_or_a_dropped_column_is_one_line(capsys, store):
    """Errors the driver finds while the program reads (a page of the file
    overwritten, a column dropped by hand) end as one line naming the
    store, for reading and replaying alike."""
    dropped = store.with_name("dropped.db")
    dropped.write_bytes(store.read_bytes())
    sql(dropped, "ALTER TABLE ratings DROP COLUMN peak")
    pid, _ = a_rated_player(store)
    code, _, err = run(capsys, "player", pid, "--db", dropped)
    one_line_error(code, err, str(dropped), "cannot use the store: no such column: peak")
    code, _, err = run(capsys, "replay", E2, "--db", dropped)
    one_line_error(code, err, str(dropped), "no such column: peak")
    data = bytearray(store.read_bytes())
    page = 4096
    assert len(data) > 6 * page
    data[4 * page:5 * page] = bytes(page)  # a page of the tables zeroed
    store.write_bytes(bytes(data))
    code, _, err = run(capsys, "player", pid, "--db", store)
    one_line_error(code, err, str(store), "cannot use the store")


def test_a_link_in_a_loop_in_a_history_is_named_not_its_directory(capsys, tmp_path):
    history = tmp_path / "history"
    history.mkdir()
    (history / "e1.yaml").write_bytes(EVENT.read_bytes())
    (history / "loop.json").symlink_to("loop.json")
    code, _, err = run(capsys, "replay", history, "--db", tmp_path / "s.db")
    one_line_error(code, err, str(history / "loop.json"), "cannot read: Too many levels")
