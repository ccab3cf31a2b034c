"""Updates from foreign FIDE events (sec. 6): conversions either side of
2024-03-01, youth events, ignored opponents, the bonus applied once, refusals,
malformed files, TRF input, and a store mixing events, matches and updates."""

from __future__ import annotations

import copy
import json
import math
import re
from pathlib import Path

import importlib

import pytest
import yaml

from uschess.cli import main
from uschess.errors import InputError
from uschess.io.fide_file import fide_update_from_dict, load_fide_update
from uschess.rating.fide_update import FideUpdateResult, fide_update
from uschess.formulas import effective_games, we
from uschess.rating.pipeline import RatingOptions
from uschess.calendar.rulebook import RuleBook

BOOK = RuleBook.load()

BASE = {
    "kind": "fide-update",
    "event": {"name": "Open abroad", "start": "2024-03-10", "end": "2024-03-15", "youth": False},
    "player": {"id": "12345678", "name": "Doe, Jane",
               "ratings": {"OTBR": {"rating": 2100.0, "games": 120}}},
    "games": [{"opponent": "Smith", "fide": 1900, "result": "W"},
              {"opponent": "Jones", "fide": 2050, "result": "D"},
              {"opponent": "Brown", "result": "L"}],
}


def upd(**changes):
    raw = copy.deepcopy(BASE)
    for key, value in changes.items():
        if key in ("start", "end", "youth"):
            raw["event"][key] = value
        elif key == "rating":
            raw["player"]["ratings"]["OTBR"] = value
        else:
            raw[key] = value
    return raw


def run(raw, options=None) -> FideUpdateResult:
    return fide_update(fide_update_from_dict(raw, source="u.yaml"), options)


def write(tmp_path, raw, name="update.yaml"):
    path = tmp_path / name
    path.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")
    return path


# -------------------------------------------------------------- conversions
# (start, youth, FIDE 1900 -> US, FIDE 2100 -> US)
CONVERSIONS = [
    ("2024-02-29", False, 180 + 0.94 * 1900, 20 + 1.02 * 2100),
    ("2024-03-01", False, -1073 + 1.5667 * 1900, 20 + 1.02 * 2100),
    ("2024-02-29", True, 560 + 0.76 * 1900, 80 + 2100.0),
    ("2024-03-01", True, -453 + 1.2667 * 1900, 80 + 2100.0),
]


@pytest.mark.parametrize("start,youth,low,high", CONVERSIONS,
                         ids=[f"{c[0]}-{'youth' if c[1] else 'open'}" for c in CONVERSIONS])
def test_conversions_either_side_of_2024_03_01(start, youth, low, high):
    res = run(upd(start=start, end=start, youth=youth,
                  games=[{"fide": 1900, "result": "W"}, {"fide": 2100, "result": "L"},
                         {"fide": 2000, "result": "D"}]))
    us = [o.us for o in res.opponents]
    assert us[0] == pytest.approx(low) and us[1] == pytest.approx(high)
    assert res.conversion == ("fide_youth_conversion" if youth else "fide_conversion")
    # FIDE exactly 2000 takes the lower piece
    p = BOOK.rules(res.rules.on).p
    piece = (p.fide_youth_conversion if youth else p.fide_conversion)[0]
    assert us[2] == pytest.approx(piece["intercept"] + piece["slope"] * 2000)
    assert res.rules.on.isoformat() == start


def test_rules_follow_the_start_date_not_the_end():
    res = run(upd(start="2024-02-26", end="2024-03-05"))
    assert res.opponents[0].us == pytest.approx(180 + 0.94 * 1900)


# ------------------------------------------------------------------ formula
def test_standard_formula_applied_once_with_ignored_opponents():
    res = run(upd())
    p = BOOK.rules(res.rules.on).p
    assert [o.ignored for o in res.opponents] == [False, False, True]
    assert res.opponents[2].us is None and res.m == 2 and res.score == 1.5
    n_eff = effective_games(120, 2100.0, **p.nstar)
    k = 800.0 / (n_eff + 2)
    opps = [-1073 + 1.5667 * 1900, 20 + 1.02 * 2050]
    e = sum(we(2100.0, r) for r in opps)
    assert res.k == pytest.approx(k)
    assert res.expected == pytest.approx(e)
    assert res.bonus_eligible is False  # m = 2
    assert res.post == pytest.approx(2100.0 + k * (1.5 - e))
    assert res.games_after == 122  # the ignored game is not counted


def test_bonus_applies_to_a_fide_update():
    games = [{"opponent": f"O{i}", "fide": 1850 + 50 * i, "result": "W"} for i in range(5)]
    res = run(upd(games=games, rating={"rating": 1800.0, "games": 60}))
    p = BOOK.rules(res.rules.on).p
    assert res.bonus_eligible is True and res.bonus > 0
    gain = res.k * (res.score - res.expected)
    assert res.bonus == pytest.approx(gain - p.bonus_multiplier * math.sqrt(5))
    assert res.post == pytest.approx(1800.0 + gain + res.bonus)


def test_bonus_follows_the_plugin_in_force():
    """Three games against one named opponent: no bonus (more than twice);
    unnamed opponents count as distinct ones."""
    named = [{"opponent": "Same", "fide": 2000, "result": "W"}] * 3
    assert run(upd(games=named, rating={"rating": 1700.0, "games": 60})).bonus_eligible is False
    unnamed = [{"fide": 2000, "result": "W"}] * 3
    res = run(upd(games=unnamed, rating={"rating": 1700.0, "games": 60}))
    assert res.bonus_eligible is True and res.bonus > 0


def test_k_has_no_dual_exception():
    res = run(upd(rating={"rating": 2400.0, "games": 500},
                  games=[{"fide": 2300, "result": "W"}] * 2))
    p = BOOK.rules(res.rules.on).p
    assert res.k == pytest.approx(800.0 / (effective_games(500, 2400.0, **p.nstar) + 2))


def test_no_fide_rated_opponent_leaves_the_rating():
    res = run(upd(games=[{"opponent": "A", "result": "W"}, {"result": "D"}]))
    assert res.m == 0 and res.post == res.pre == 2100.0 and res.k is None
    assert all(o.ignored for o in res.opponents)
    assert "unchanged" in " ".join(res.notes)


def test_floors_bind_a_fide_update():
    res = run(upd(rating={"rating": 1805.0, "games": 100, "peak": 2000.0},
                  games=[{"fide": 1500, "result": "L"}] * 4))
    assert res.floor == 1800.0 and res.floor_applied and res.post == 1800.0


def test_record_after_counts_the_games():
    res = run(upd(rating={"rating": 2100.0, "games": 120, "wins": 50, "draws": 30,
                          "losses": 40, "events3": 20}))
    rec = res.record_after
    assert (rec.games, rec.wins, rec.draws, rec.losses, rec.events3) == (122, 51, 31, 40, 20)
    assert rec.date.isoformat() == "2024-03-15"


# ------------------------------------------------------------------ refusals
@pytest.mark.parametrize("rating,needle", [
    (None, "has none"),
    ({"rating": 1900.0, "games": 25}, "provisional (25 games"),
])
def test_established_otbr_required(tmp_path, capsys, rating, needle):
    raw = upd()
    if rating is None:
        raw["player"]["ratings"] = {}
    else:
        raw["player"]["ratings"]["OTBR"] = rating
    with pytest.raises(InputError, match=re.escape(needle)):
        run(raw)
    assert main(["fide-update", str(write(tmp_path, raw))]) == 2
    err = capsys.readouterr().err
    assert needle in err and "player 12345678" in err


@pytest.mark.parametrize("mutate,needle", [
    (lambda r: r.pop("kind"), "'kind' must be fide-update"),
    (lambda r: r.update(kind="event"), "'kind' must be fide-update"),
    (lambda r: r["event"].pop("start"), "missing 'start'"),
    (lambda r: r["event"].update(start="2024-02-30"), "not a date"),
    (lambda r: r["event"].update(end="2024-03-01"), "before start"),
    (lambda r: r["event"].update(youth="yes"), "'youth' must be true or false"),
    (lambda r: r.update(games=[]), "non-empty list"),
    (lambda r: r["games"][0].update(result="1-0"), "must be W, D or L"),
    (lambda r: r["games"][0].update(fide=-5), "impossible"),
    (lambda r: r["games"][0].update(fide="1900"), "must be a number"),
    (lambda r: r["games"][0].update(colour="w"), "unknown field"),
    (lambda r: r.update(extra=1), "unknown field"),
    (lambda r: r["player"].pop("id"), "missing 'id'"),
    (lambda r: r["player"]["ratings"].update(OTBQ={"rating": 1, "games": 1}), "only the OTBR"),
    (lambda r: r["player"]["ratings"]["OTBR"].update(games=-1), "impossible"),
])
def test_malformed_files_exit_2(tmp_path, capsys, mutate, needle):
    raw = upd()
    mutate(raw)
    assert main(["fide-update", str(write(tmp_path, raw))]) == 2
    err = capsys.readouterr().err
    assert err.startswith("uschess: error: ") and err.count("\n") == 1
    assert needle in err


def test_unreadable_inputs_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.yaml"
    bad.write_text("kind: fide-update\nevent: [unclosed\n", encoding="utf-8")
    assert main(["fide-update", str(bad)]) == 2
    assert "malformed YAML" in capsys.readouterr().err
    badj = tmp_path / "bad.json"
    badj.write_text("{", encoding="utf-8")
    assert main(["fide-update", str(badj)]) == 2
    assert "malformed JSON" in capsys.readouterr().err
    assert main(["fide-update", str(tmp_path / "missing.yaml")]) == 2
    assert "no such file" in capsys.readouterr().err
    assert main(["fide-update", str(write(tmp_path, upd())), "--player", "1"]) == 2
    assert "--player is for TRF input" in capsys.readouterr().err


# ---------------------------------------------------------------- the command
def test_json_output(capsys):
    assert main(["fide-update", "fixtures/fide/open-abroad.yaml", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    for key in ("id", "system", "pre", "post", "k", "bonus", "opponents"):
        assert key in data
    assert data["system"] == "OTBR" and data["id"] == "12345678"
    assert data["opponents"][2] == {"name": "Unrated, Carl", "fide": None, "us": None,
                                    "result": "L", "ignored": True}
    assert data["opponents"][0]["us"] == pytest.approx(-1073 + 1.5667 * 1900)
    assert data["bonus_eligible"] is True


def test_text_output_and_rules_options(capsys):
    assert main(["fide-update", "fixtures/fide/world-youth.yaml"]) == 0
    out = capsys.readouterr().out
    assert "youth event" in out and "fide_youth_conversion" in out and "ignored" in out
    # the same event under the rules of the day before the 2024 change
    assert main(["fide-update", "fixtures/fide/world-youth.yaml", "--json",
                 "--rules-on", "2024-02-29"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["opponents"][0]["us"] == pytest.approx(560 + 0.76 * 1650)


def test_load_from_json(tmp_path):
    path = tmp_path / "u.json"
    path.write_text(json.dumps(upd()), encoding="utf-8")
    assert load_fide_update(path).games[0].fide == 1900.0


def test_trf_input(capsys):
    importlib.import_module("uschess.io.formats.trf")
    importlib.import_module("uschess.io.formats.detect")
    args = ["fide-update", "fixtures/fide/reykjavik.trf", "--player", "12345678",
            "--players", "fixtures/fide/reykjavik.players.yaml", "--json"]
    assert main(args) == 0
    data = json.loads(capsys.readouterr().out)
    assert [o["name"] for o in data["opponents"]] == ["Gunnarsson, Jon", "Petersen, Ola",
                                                     "Sigurdsson, Sven", "Larsen, Kari"]
    assert [o["ignored"] for o in data["opponents"]] == [False, False, True, False]
    # started 2024-02-26: the conversion before 2024-03-01; the forfeit is no game
    assert data["opponents"][0]["us"] == pytest.approx(180 + 0.94 * 1900)
    assert data["m"] == 3 and data["pre"] == 2080.0
    assert main(args[:2] + ["--player", "99"]) == 2
    assert "no player with id 99" in capsys.readouterr().err
    assert main(args[:4]) == 2  # no players file: no OTBR record
    assert "has none" in capsys.readouterr().err
    assert main(args[:2]) == 2
    assert "--player ID" in capsys.readouterr().err


def test_trf_input_takes_the_fide_id_the_trf_holds(capsys):
    """Jane Doe's 001 record holds FIDE id 2012345 and her USA record US Chess
    id 12345678: either names her."""
    by_us = ["fide-update", "fixtures/fide/reykjavik.trf", "--player", "12345678",
             "--players", "fixtures/fide/reykjavik.players.yaml", "--json"]
    assert main(by_us) == 0
    expected = json.loads(capsys.readouterr().out)
    by_fide = by_us[:3] + ["2012345"] + by_us[4:]
    assert main(by_fide) == 0
    assert json.loads(capsys.readouterr().out) == expected
    assert main(by_us[:3] + ["2300011"] + by_us[4:]) == 2  # Gunnarsson: FIDE id, no US record
    assert "has none" in capsys.readouterr().err  # found; no OTBR record in the players file


def test_fide_update_file_from_standard_input(capsys, monkeypatch):
    import io
    text = Path("fixtures/fide/open-abroad.yaml").read_bytes()
    assert main(["fide-update", "fixtures/fide/open-abroad.yaml", "--json"]) == 0
    expected = json.loads(capsys.readouterr().out)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(text)))
    assert main(["fide-update", "-", "--json"]) == 0
    got = json.loads(capsys.readouterr().out)
    assert got["event"].pop("source") == "<stdin>"
    expected["event"].pop("source")
    assert got == expected


# ------------------------------------------------ a store mixing everything
def test_replay_mixing_events_matches_and_fide_updates(tmp_path):
    store_mod = importlib.import_module("uschess.io.store")
    replay_mod = importlib.import_module("uschess.apps.replay")
    from uschess.io.eventfile import event_from_dict
    from uschess.apps.replay import apply_fide_update

    def ev(eid, start, players, kind="swiss"):
        return event_from_dict({
            "event": {"name": eid, "id": eid, "start": start, "end": start},
            "sections": [{"name": "S", "type": kind, "time_control": "G/90;d30",
                          "players": players}]}, source=f"{eid}.yaml")

    def pl(pair, pid, rounds, rating=None, games=None):
        out = {"pair": pair, "id": pid, "name": f"P{pid}", "rounds": rounds}
        if rating is not None:
            out["ratings"] = {"OTBR": {"rating": rating, "games": games}}
        return out

    store = store_mod.Store.open(tmp_path / "ratings.sqlite")
    opts = RatingOptions(trace=False, match_history=store)
    # 1. a swiss event
    replay_mod.replay([ev("E1", "2024-01-06", [
        pl(1, "A", ["W2", "W3"], 1800.0, 100), pl(2, "B", ["L1", "B"], 2050.0, 200),
        pl(3, "C", ["B", "L1"], 1700.0, 40)])], store, opts)
    after_e1 = store.states(["A"])[("A", "OTBR")]
    # 2. a FIDE update for A, rated from the store's state, not the file's
    update = fide_update_from_dict(upd(start="2024-02-10", end="2024-02-15",
                                       games=[{"fide": 1900, "result": "W"},
                                              {"fide": 2000, "result": "W"}]), source="f.yaml")
    update.player_id = "A"
    res = apply_fide_update(update, store, opts)
    assert res.pre == after_e1.rating and res.games_before == after_e1.games
    after_f = store.states(["A"])[("A", "OTBR")]
    assert after_f.rating == res.post and after_f.games == after_e1.games + 2
    # 3. two matches A-B: the second is held by the 180-day net cap
    replay_mod.replay([ev("M1", "2024-03-02", [pl(1, "A", ["W2"] * 4), pl(2, "B", ["L1"] * 4)],
                          kind="match")], store, opts)
    m1 = store.history("A", "OTBR")[-1]
    assert m1["formula"].startswith("match") and m1["post"] - m1["pre"] == pytest.approx(50.0)
    replay_mod.replay([ev("M2", "2024-05-04", [pl(1, "A", ["W2"] * 4), pl(2, "B", ["L1"] * 4)],
                          kind="match")], store, opts)
    m2 = store.history("A", "OTBR")[-1]
    assert m2["post"] - m2["pre"] == pytest.approx(50.0)  # net 100 in 180 days
    replay_mod.replay([ev("M3", "2024-06-01", [pl(1, "A", ["W2"] * 4), pl(2, "B", ["L1"] * 4)],
                          kind="match")], store, opts)
    m3 = store.history("A", "OTBR")[-1]
    assert m3["post"] == pytest.approx(m3["pre"])  # the cap allows nothing more
    b = [r["post"] - r["pre"] for r in store.history("B", "OTBR")
         if r["formula"].startswith("match")]
    assert b[0] == pytest.approx(-50.0) and -50.0 < b[1] < 0  # closer ratings: under the cap
    assert sum(b) == pytest.approx(-100.0)  # the third loss is held to the 180-day net
    # 4. a later event starts from everything before
    replay_mod.replay([ev("E2", "2024-07-06", [pl(1, "A", ["D2"]), pl(2, "C", ["D1"])])],
                      store, opts)
    hist = [r["event"] for r in store.history("A", "OTBR")]
    assert hist == ["E1", "fide-update:A:2024-02-10", "M1", "M2", "M3", "E2"]
    store.close()
