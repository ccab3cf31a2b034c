"""An unrated player's initial rating blended from the other system: the
page's P<n> gives its N, which may differ from the rules' though the value is
the same (:func:`uschess.apps.audit.infer.inferred_record`); and where the page
shows no other rating, its P<n> says the start came from one (N > 0)."""

from __future__ import annotations

from uschess.apps.audit import audit, load_published
from uschess.apps.audit.page_chain import rate_published
from uschess.cli import main
from uschess.rating.pipeline import RatingOptions

from helpers import event, msa_text_page


DUAL = {1: (1123, 830, 24), 2: (1582, 1476, None), 3: (None, 1548, 4), 4: (913, 879, 3),
        5: (1293, 1140, None), 6: (1084, 934, 4)}
DUAL_CELLS = {1: ["W3", "W2", "W5", "W4"], 2: ["W6", "L1", "W3", "W5"],
              3: ["L1", "W4", "L2", "W6"], 4: ["W5", "L3", "W6", "L1"],
              5: ["L4", "W6", "L1", "L2"], 6: ["L2", "L5", "L4", "L3"]}


def _dual_event():
    players = []
    for k, (r, q, n) in DUAL.items():
        ratings = {"OTBQ": {"rating": q, "games": n or 60, "date": "2021-02-06"}}
        if r is not None:
            ratings["OTBR"] = {"rating": r, "games": n or 60}
        players.append({"pair": k, "id": f"{30000000 + k}", "name": f"PLAYER {k}",
                        "rounds": DUAL_CELLS[k], "ratings": ratings})
    return event(players, start="2021-02-06", tc="G/30;d10")


def _dual_page(posts: dict) -> str:
    def rating(pre, n, post, n_after):
        before = "Unrated" if pre is None else f"{pre:>4d}" + (f"P{n}" if n else "")
        after = f"{round(post):>4d}" + (f"P{n_after}" if n_after else "")
        return f"{before:<7}->{after:<8}"
    players = []
    for k, (r, q, n) in DUAL.items():
        n_after = (n + 4) if n else None
        players.append({
            "pair": k, "name": f"PLAYER {k}", "id": f"{30000000 + k}",
            "total": f"{sum(c[0] == 'W' for c in DUAL_CELLS[k]):.1f}",
            "cells": [f"{c[0]}   {c[1:]}" for c in DUAL_CELLS[k]],
            "lines": ["R: " + rating(r, n if r is not None else None, posts[(k, "OTBR")],
                                     n_after if r is not None else 4),
                      "Q: " + rating(q, n, posts[(k, "OTBQ")], n_after)]})
    return msa_text_page(players, start="2021-02-06", rated="2021-02-07", system="D",
                         tc="G/30;d10")


def test_initial_rating_from_the_other_system_with_the_pages_n(tmp_path, capsys):
    """A player unrated in OTBR with an OTBQ rating of 4 games: the rules
    blend the OTBR initial rating from it with N = 4 (000 sec. 2); the page
    prints the OTBR post P4 after 4 games, so N = 0.  Posts computed with
    the OTBQ rating and N = 0 are reproduced with that N inferred (the value
    the rules' own), and the audit reports it with the rules' N beside it."""
    from uschess.apps.audit.inputs import _options

    ev = _dual_event()
    truth = rate_published(ev, _options(RatingOptions(), {("30000003", "OTBR"): 1548.0},
                                         {("30000003", "OTBR"): 0}))
    rules = rate_published(ev, RatingOptions(trace=False))
    posts = {(pr.pair, sr.system): pr.post for sr in truth.sections for pr in sr.players}
    moved = [pr.pair for sr in rules.sections if sr.system == "OTBR" for pr in sr.players
             if abs(pr.post - posts[(pr.pair, "OTBR")]) > 1.5]
    assert 3 in moved and len(moved) >= 3
    path = tmp_path / "dual.txt"
    path.write_text(_dual_page(posts))
    pub = load_published(path)
    a = audit(pub)
    assert a.reproduced < a.total == 12
    assert a.reproduced_inferred == 12
    rec = next(i for i in a.inferred if i.id == "30000003" and i.system == "OTBR")
    assert (round(rec.value), rec.games, round(rec.rules_value), rec.rules_games) \
        == (1548, 0, 1548, 4)
    assert main(["audit", str(path)]) == 0
    out = capsys.readouterr().out
    assert "initial OTBR rating about 1548, N = 0 for PLAYER 3" in out
    assert "the rules in force give 1548, N = 4" in out


#: A regular-only event; PLAYER 3 has no OTBR rating but an OTBQ rating the
#: page does not show (it prints only OTBR ratings).
HIDDEN = {1: 1123, 2: 1582, 3: None, 4: 913, 5: 1293, 6: 1084}
HIDDEN_QUICK = {"rating": 1548, "games": 30, "date": "2024-11-02"}


def _hidden_page(tmp_path):
    players = []
    for k, r in HIDDEN.items():
        ratings = {"OTBR": {"rating": r, "games": 60}} if r else {"OTBQ": HIDDEN_QUICK}
        players.append({"pair": k, "id": f"{30000000 + k}", "name": f"PLAYER {k}",
                        "rounds": DUAL_CELLS[k], "ratings": ratings})
    truth = rate_published(event(players, start="2025-02-08", tc="G/90;d30"),
                           RatingOptions(trace=True)).sections[0]
    rows = []
    for pr in truth.players:
        r = HIDDEN[pr.pair]
        before = "Unrated" if r is None else f"{r:>4d}"
        after = f"{round(pr.post):>4d}" + (f"P{pr.initial.games + 4}" if r is None else "")
        rows.append({"pair": pr.pair, "name": f"PLAYER {pr.pair}", "id": f"{30000000 + pr.pair}",
                     "total": f"{sum(c[0] == 'W' for c in DUAL_CELLS[pr.pair]):.1f}",
                     "cells": [f"{c[0]}   {c[1:]}" for c in DUAL_CELLS[pr.pair]],
                     "lines": [f"R: {before:<7}->{after:<8}"]})
    path = tmp_path / "regular.txt"
    path.write_text(msa_text_page(rows, start="2025-02-08", rated="2025-02-09", system="R",
                                  tc="G/90;d30"))
    return path, next(pr for pr in truth.players if pr.pair == 3).initial


def test_a_rating_in_another_system_the_page_does_not_show_is_recovered(tmp_path, capsys):
    """The rules blend PLAYER 3's OTBR start from the OTBQ 1548 (000 sec. 2):
    1548 on N = 5.  The page shows neither; its P9 after 4 games gives N = 5,
    which no age-based start has, so the audit states the fact as a rating
    in another system (not a birth year, not implausible), recovers its
    value, and calls PLAYER 3's own post fitted (his post moves with his own
    inferred start) and the others' explained."""
    path, initial = _hidden_page(tmp_path)
    assert (initial.rating, initial.games) == (1548.0, 5)
    a = audit(load_published(path))
    (rec,) = a.inferred
    assert (rec.id, rec.games, rec.story) == ("30000003", 5, "other systems")
    assert abs(rec.value - 1548) <= 1.5
    assert a.people.implausible == [] and a.people.facts == []
    verdicts = {r.entry.id: r.verdict.verdict for r in a.rows}
    assert verdicts.pop("30000003") == "fitted"
    assert set(verdicts.values()) == {"explained"}
    assert main(["audit", str(path)]) == 0
    out = capsys.readouterr().out
    assert (f"initial OTBR rating about {rec.value:.0f}, N = 5 (not an age-based start, which "
            "counts no games: ratings in other systems the page does not show, sec. 2") in out
    assert "born about" not in out and "implausible" not in out
