"""A verdict per published rating (engine/apps/audit/verdict.py).

Sections are constructed with hidden inputs the tests know (birth dates,
ratings in another system), rated by the engine, published as a page prints
them and audited with the hidden inputs dropped: a post reproduced only with
inferred inputs is ``explained`` when a solve that did not see it predicts
it, ``fitted`` when only its own post pins the value that reproduces it."""

from __future__ import annotations

import json

import pytest

from test_audit_infer import _page_file, _published, _swiss

from uschess.apps.audit import audit, format_html, format_text, published_from_dict
from uschess.apps.audit.cause import within
from uschess.apps.audit.verdict import FOLDS, VERDICTS
from uschess.cli import main
from uschess.io.eventfile import event_from_dict, event_to_dict


def _audit(path):
    return audit(published_from_dict(json.loads(path.read_text()), source=str(path)))


def _blended_section() -> dict:
    """Ten established players and one unrated one whose OTBR initial
    rating is blended from an OTBQ rating (N > 0), which the page hides."""
    raw = _swiss(10, 1, 4, 5, "2021-03-06", ages=False, other="OTBQ")
    players = raw["sections"][0]["players"]
    for p in players[:10]:
        p["ratings"]["OTBR"]["date"] = "2021-03-06"
        p["ratings"]["OTBQ"] = dict(p["ratings"]["OTBR"])
    players[10]["ratings"]["OTBQ"]["rating"] = 1850
    raw["sections"][0]["time_control"] = "G/60;d5"
    return raw


def test_a_post_pinned_only_by_itself_is_fitted(tmp_path):
    """The unrated player's OTBR initial rating is blended from an OTBQ
    rating (N = 12) that the file states wrong (1400 for the 1850 rated):
    with only their own post published, the in-sample solve reproduces it
    by construction (the value moves the post it is fitted to); the solve
    without it has nothing to pin the value and keeps the rules' own, which
    misses it: ``fitted``, leave-one-out."""
    raw = _blended_section()
    published, truth = _published(raw)
    assert truth[11].games > 0 and truth[11].how.startswith("blended")
    shown = json.loads(json.dumps(raw))
    shown["sections"][0]["players"][10]["ratings"]["OTBQ"]["rating"] = 1400
    out = event_to_dict(event_from_dict(shown, source="page.yaml"))
    out["published"] = [{"id": "20000011", "system": "OTBR", "post": published[11],
                         "section": "S"}]
    path = tmp_path / "published.json"
    path.write_text(json.dumps(out))
    a = _audit(path)
    (row,) = a.rows
    assert not row.reproduced and within(row.with_inferred, row.entry.post, a.tolerance)
    assert row.verdict.verdict == "fitted"
    assert row.verdict.method == "leave-one-out"
    assert not within(row.verdict.out_of_sample, row.entry.post, a.tolerance)
    assert a.verdict_counts() == {"confirmed": 0, "explained": 0, "fitted": 1, "floor": 0,
                                  "unexplained": 0}
    assert a.summary_line().startswith("0 of 1 confirmed or explained")
    assert a.as_dict()["verdicts"]["in_sample"] == 1


@pytest.mark.slow
def test_posts_around_age_based_players_are_explained_out_of_sample(tmp_path, capsys):
    """N = 0 unrated players (age-based, birth dates hidden): their values
    are pinned by many posts around them, so a post withheld from the solve
    is predicted by the others.  Each verdict is checked against its
    definition: confirmed = reproduced as printed; explained = predicted
    without it; fitted = reproduced in sample only."""
    raw = _swiss(8, 12, 4, 3, "2015-05-02")
    published, _ = _published(raw)
    path = _page_file(tmp_path, raw, published)
    a = _audit(path)
    counts = a.verdict_counts()
    assert sum(counts.values()) == a.total == len(published)
    assert counts["confirmed"] == a.reproduced < a.total
    assert counts["explained"] > 0
    assert counts["confirmed"] + counts["explained"] + counts["fitted"] == a.reproduced_inferred
    wanted = [r for r in a.rows if not r.reproduced]
    assert {r.verdict.method for r in wanted} == {f"k-fold (k = {FOLDS})"}  # more than FOLDS
    for r in a.rows:
        v = r.verdict.verdict
        if v == "explained":
            assert within(r.verdict.out_of_sample, r.entry.post, a.tolerance)
        elif v == "fitted":
            assert not within(r.verdict.out_of_sample, r.entry.post, a.tolerance)
        else:
            assert (v == "confirmed") == r.reproduced
    # every report names the verdicts; the JSON gives them per player and counted
    text = format_text(a)
    assert f"{counts['explained']} explained (reproduced with inputs inferred without it" in text
    assert "(in sample)" in text
    assert "<th>Verdict</th>" in format_html(a)
    assert main(["audit", str(path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert {k: data["verdicts"][k] for k in VERDICTS} == counts
    assert data["verdicts"]["headline"] == counts["confirmed"] + counts["explained"]
    assert all(p["verdict"]["verdict"] in VERDICTS for p in data["players"])


def test_a_floor_the_page_cannot_show_is_its_own_verdict(tmp_path):
    """A published post on a floor level above the computed one: neither
    reproduced nor unexplained, held by a floor, the level named."""
    raw = _swiss(6, 0, 3, 2, "2019-05-04")
    published, _ = _published(raw)
    low = min(published, key=published.get)
    level = (published[low] // 100 + 1) * 100
    published[low] = level
    a = _audit(_page_file(tmp_path, raw, published))
    row = next(r for r in a.rows if r.entry.id == f"{20000000 + low}")
    assert level == 500 and row.computed < level - 1  # a prize floor level in 2019
    assert row.verdict.verdict == "floor" and row.verdict.floor == level
    assert "1 held by a floor the page cannot show" in format_text(a)
    assert all(r.verdict.verdict == "confirmed" for r in a.rows if r is not row)
