"""The dual-rating K exception (sec. 4.2) not applied, an audit cause
(engine/apps/audit/k_exception.py), where the rules apply it (from
2013-05-08: the PACL pages before then show the plain K, which the rules
now follow, rulesets/slots.yaml)."""

from __future__ import annotations

import pytest

from uschess.apps.audit import audit, load_published
from uschess.apps.audit.cause import post_of, within

from helpers import SHARED_DATA, event, msa_text_page

PACL = SHARED_DATA / "real" / "pacl-2001-2021" / "sections"

IDS = {k: f"{11000000 + k}" for k in range(1, 5)}
GAMES = {1: ["W4", "W2", "W3"], 2: ["W3", "L1", "D4"], 3: ["L2", "W4", "L1"],
         4: ["L1", "L3", "D2"]}
#: (OTBR, OTBQ) pre-event ratings: player 1 above 2200 in OTBR
RATINGS = {1: (2432, 2385), 2: (2044, 2100), 3: (2224, 2150), 4: (2033, 1990)}
START, TC = "2013-12-14", "G/60;d5"


def _no_exception():
    """The rules with the exception out of reach (a reform written here, not
    the audit's)."""
    from uschess.calendar.reform import reform_from_dict
    from uschess.calendar.rulebook import RuleBook

    value = {"above": 10000.0, "top": 10000.0, "slope_a": 6.5, "slope_b": 0.0025,
             "top_numerator": 200.0, "time_from": 30, "time_to": 65}
    return reform_from_dict({"name": "plain K", "parameters": {"k_dual": [
        {"from": "2001-01-01", "value": value}]}}, source="test", book=RuleBook.load())


def _posts(reform=None) -> dict:
    from uschess.apps.audit.page_chain import rate_published
    from uschess.rating.pipeline import RatingOptions

    players = [{"pair": k, "id": IDS[k], "name": f"Player {k}", "rounds": GAMES[k],
                "ratings": {"OTBR": {"rating": r, "games": 60},
                            "OTBQ": {"rating": q, "games": 60}}}
               for k, (r, q) in RATINGS.items()]
    res = rate_published(event(players, start=START, tc=TC, systems=["OTBR", "OTBQ"]),
                         RatingOptions(trace=False, reform=reform))
    return {(sr.system, pr.id): pr.post for sr in res.sections for pr in sr.players}


def _page(tmp_path, posts):
    rows = []
    for k, (r, q) in RATINGS.items():
        rows.append({"pair": k, "name": f"PLAYER {k}", "id": IDS[k],
                     "total": f"{sum({'W': 1.0, 'D': 0.5}.get(c[0], 0) for c in GAMES[k]):.1f}",
                     "cells": [f"{c[0]}   {c[1:]}" for c in GAMES[k]],
                     "lines": [f"R: {r:<4d}   ->{round(posts[('OTBR', IDS[k])]):<4d}",
                               f"Q: {q:<4d}   ->{round(posts[('OTBQ', IDS[k])]):<4d}"]})
    path = tmp_path / "page.txt"
    path.write_text(msa_text_page(rows, start=START, system="D", tc=TC))
    return path


def test_posts_with_the_plain_k_get_the_cause(tmp_path, capsys):
    """Posts computed with K = 800/(N' + m) for player 1 (2432, OTBR, a
    dual-rated G/60;d5 section): the rules in force miss his OTBR post (the
    exception's smaller K); the cause names the variant, which reproduces
    it and loses nothing, as the engine re-rates it."""
    plain = _posts(_no_exception())
    rules = _posts()
    assert abs(plain[("OTBR", IDS[1])] - rules[("OTBR", IDS[1])]) > 2
    path = _page(tmp_path, plain)
    a = audit(load_published(path))
    missed = [r for r in a.rows if not r.reproduced]
    assert [(r.entry.id, r.entry.system) for r in missed] == [(IDS[1], "OTBR")]
    cause = missed[0].causes[0]
    assert cause.cause == "k_exception" and cause.variant == {"k_dual": "not applied"}
    assert within(cause.computed, missed[0].entry.post, a.tolerance)

    from uschess.cli import main
    import json
    assert main(["audit", str(path), "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    row = next(p for p in out["players"] if p["id"] == IDS[1] and p["system"] == "OTBR")
    assert row["causes"][0]["cause"] == "k_exception"


def test_not_tried_where_the_exception_gave_no_k(tmp_path):
    """Posts computed under the rules in force are all reproduced; a page
    where player 1's OTBR post is printed 4 points off, with the exception
    in force for him, gets no ``k_exception`` cause unless the variant
    reproduces it."""
    rules = _posts()
    a = audit(load_published(_page(tmp_path, rules)))
    assert a.reproduced == a.total
    off = dict(rules)
    off[("OTBR", IDS[2])] += 4  # player 2 is below 2200: the exception never was his
    a = audit(load_published(_page(tmp_path, off)))
    row = next(r for r in a.rows if r.entry.id == IDS[2] and r.entry.system == "OTBR")
    assert not row.reproduced and not any(c.cause == "k_exception" for c in row.causes)


@pytest.mark.skipif(not PACL.is_dir(), reason="the PACL corpus is not beside the checkout")
@pytest.mark.parametrize("page,pid,post", [("XtblMain_200810114111_1", "13991143", 2489),
                                           ("XtblMain_201212159262_1", "11045685", 2425),
                                           ("XtblMain_201302235332_1", "12910347", 2443)])
def test_real_pages_before_2013(page, pid, post):
    """The three PACL OTBR posts of 2008-2013 that the exception missed
    (the cause named them while the rules applied it from 2001): the rules
    in force, the plain K before 2013-05-08, reproduce them as computed,
    and the variant with the exception does not."""
    pub = load_published(PACL / f"{page}.html", section="1")
    a = audit(pub, known_on=pub.rated_on)
    row = next(r for r in a.rows if r.entry.id == pid and r.entry.system == "OTBR")
    assert row.reproduced and row.entry.post == post
    assert within(post_of(a.result, row.entry.section, "OTBR", pid), post, a.tolerance)
    assert not any(c.cause == "k_exception" for c in row.causes)


@pytest.mark.skipif(not PACL.is_dir(), reason="the PACL corpus is not beside the checkout")
def test_the_dating_script_on_two_pages(tmp_path, capsys):
    """``benchmarks/pacl_dual_k.py --pages``: Brooks (2012, plain K's integer)
    and a 2013-11 page whose posts are the exception's, counted on each side
    of 2013-05-08."""
    from helpers import benchmark_script
    mod = benchmark_script("pacl_dual_k")
    listing = tmp_path / "pages.txt"
    listing.write_text("XtblMain_201212159262_1\nXtblMain_201311243662_1\n")
    assert mod.main(["--pages", str(listing)]) == 0
    out = capsys.readouterr().out
    assert "XtblMain_201212159262_1" in out and "11045685" in out
    before = out.split("sections held before 2013-05-08:")[1].split("sections held after")[0]
    after = out.split("sections held after 2013-05-08:")[1]
    count = lambda text, what: int(next(line for line in text.splitlines()  # noqa: E731
                                        if line.strip().startswith(what)).split()[-1])
    assert count(before, "integer equal to the plain K's only") == 1
    assert count(before, "integer equal to the exception's only") == 0
    assert count(after, "integer equal to the exception's only") >= 3
    assert count(after, "integer equal to the plain K's only") == 0
