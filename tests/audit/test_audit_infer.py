"""Initial ratings the page cannot show, solved from the published posts
(engine/apps/audit/solve.py, engine/apps/audit/infer.py).

Each test rates a constructed section through the engine with initial
ratings it knows (unrated players with birth dates: age-based, N = 0; or
with a rating in another system: blended, N > 0), publishes the posts
rounded as a page prints them, drops what a page cannot show, and infers it
back."""

from __future__ import annotations

import dataclasses
import datetime as dt
import json
import math
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from uschess.apps.audit import audit, published_from_dict
from uschess.apps.audit import joint as J
from uschess.apps.audit import section_model as M
from uschess.apps.audit import solve as S
from uschess.apps.audit.solve import SectionModel, Unknown, solve_section
from uschess.cli import main
from uschess.formulas import round_half_up
from uschess.io.eventfile import event_from_dict, event_to_dict
from uschess.rating.pipeline import RatingOptions, rate_event
from uschess.rating.section import rate_section

from helpers import SHARED_DATA, count_calls, examples


def _swiss(n_rated: int, n_new: int, rounds: int, seed: int, start: str, *, ages=True,
           other: str = None) -> dict:
    """A section as an event file's structure: ``n_rated`` established
    players and ``n_new`` unrated ones (a birth date each when ``ages``,
    else a rating in ``other`` with 12 games), paired at random without
    repeats, results drawn from the players' strengths."""
    rng = random.Random(seed)
    day = dt.date.fromisoformat(start)
    players, strength = [], {}
    for pair in range(1, n_rated + n_new + 1):
        p = {"pair": pair, "id": f"{20000000 + pair}", "name": f"Player {pair}", "rounds": []}
        if pair <= n_rated:
            r = rng.randrange(400, 1900)
            p["ratings"] = {"OTBR": {"rating": r, "games": 40 + pair}}
        else:
            age = rng.randrange(7, 24)
            r = 50 * age
            if ages:
                p["birth_date"] = (day - dt.timedelta(days=int(365.25 * age) + 100)).isoformat()
            else:
                r = rng.randrange(600, 1600)
                p["ratings"] = {other: {"rating": r, "games": 12, "date": start}}
        strength[pair] = r
        players.append(p)
    met = set()
    for _ in range(rounds):
        order = list(strength)
        rng.shuffle(order)
        paired = set()
        for a in order:
            if a in paired:
                continue
            b = next((b for b in order if b != a and b not in paired
                      and (min(a, b), max(a, b)) not in met), None)
            if b is None:
                players[a - 1]["rounds"].append("B")
                paired.add(a)
                continue
            paired |= {a, b}
            met.add((min(a, b), max(a, b)))
            e = 1 / (1 + 10 ** ((strength[b] - strength[a]) / 400))
            x = rng.random()
            ra, rb = ("W", "L") if x < e - 0.05 else ("L", "W") if x > e + 0.05 else ("D", "D")
            players[a - 1]["rounds"].append(f"{ra}{b}")
            players[b - 1]["rounds"].append(f"{rb}{a}")
    return {"event": {"name": "Constructed", "start": start, "end": start},
            "sections": [{"name": "S", "time_control": "G/90;d30", "players": players}]}


def _published(raw: dict, system="OTBR") -> tuple[dict, dict]:
    """The section rated with what ``raw`` knows, and the page's published
    posts by pair (rounded: a page prints whole points)."""
    res = rate_event(event_from_dict(raw, source="truth.yaml"), RatingOptions())
    sr = next(s for s in res.sections if s.system == system)
    return ({pr.pair: float(round_half_up(pr.post if pr.m else pr.pre)) for pr in sr.players},
            {pr.pair: pr.initial for pr in sr.players if pr.initial is not None})


def _hidden(raw: dict, keep_other=False) -> dict:
    """``raw`` as a page shows it: no birth dates, no other systems."""
    raw = json.loads(json.dumps(raw))
    for p in raw["sections"][0]["players"]:
        p.pop("birth_date", None)
        if not keep_other:
            p.get("ratings", {}).pop("OTBQ", None)
            if not p.get("ratings"):
                p.pop("ratings", None)
    return raw


def _solve(raw_hidden: dict, published: dict, games: dict):
    res = rate_event(event_from_dict(raw_hidden, source="page.yaml"), RatingOptions(trace=False))
    sr = next(s for s in res.sections if s.system == "OTBR")
    unknowns = [Unknown(pr.pair, pr.id, pr.initial.rating, games.get(pr.pair, 0))
                for pr in sr.players if pr.initial is not None]
    model = SectionModel(sr, {u.pair: u.games for u in unknowns})
    before = sum(abs((pr.post if pr.m else pr.pre) - published[pr.pair]) <= 1 + 1e-9
                 for pr in sr.players)
    p = sr.rules.p
    sol = solve_section(model, unknowns, published, 1.0, p.absolute_floor, p.special_cap)
    return before, sol, unknowns


@pytest.mark.parametrize("start,seed", [("2015-05-02", 3), ("2021-03-06", 11)])
def test_age_based_initial_ratings_solved_back(start, seed):
    """N = 0 players (age-based): the own post barely depends on the value,
    the opponents' posts pin it; every post reproduced with the values found."""
    raw = _swiss(8, 12, 4, seed, start)
    published, truth = _published(raw)
    assert all(i.games == 0 and i.how.startswith("age-based") for i in truth.values())
    before, sol, unknowns = _solve(_hidden(raw), published, {})
    assert before < len(published)  # the rules' default does not reproduce the page
    assert sol.reproduced == len(published)
    assert all(100 <= u.value <= 2700 for u in unknowns)
    # what pins an N = 0 value: other players' posts, not (only) its own
    assert all(any(j != u.pair for j in sol.pinned_by[u.pair]) for u in unknowns)
    # the model rates the section as the pipeline does: with the true values,
    # the published posts exactly (before rounding)
    model = SectionModel(rate_event(event_from_dict(_hidden(raw), source="p"),
                                    RatingOptions(trace=False)).sections[0], {})
    posts = model.posts({pair: i.rating for pair, i in truth.items()})
    assert all(abs(posts[j] - published[j]) <= 0.5 + 1e-9 for j in published)


def test_blended_initial_ratings_solved_from_own_posts():
    """N > 0 (2020 blended from an OTBQ rating the page does not show): the
    player's own post pins the value, to within a few points of the truth."""
    raw = _swiss(10, 6, 4, 5, "2021-03-06", ages=False, other="OTBQ")
    for p in raw["sections"][0]["players"][:10]:
        p["ratings"]["OTBQ"] = dict(p["ratings"]["OTBR"], date="2021-03-06")
    raw["sections"][0]["time_control"] = "G/60;d5"  # dual-rated: OTBR and OTBQ
    published, truth = _published(raw)
    games = {pair: i.games for pair, i in truth.items()}
    assert all(i.games > 0 and i.how.startswith("blended") for i in truth.values())
    hidden = _hidden(raw)
    for p in hidden["sections"][0]["players"][:10]:
        p["ratings"]["OTBQ"] = dict(p["ratings"]["OTBR"], date="2021-03-06")
    before, sol, unknowns = _solve(hidden, published, games)
    assert before < len(published)
    assert sol.reproduced == len(published)
    for u in unknowns:
        assert u.pair in sol.pinned_by[u.pair]  # its own post depends on it
        assert abs(u.value - truth[u.pair].rating) <= 15


def test_solver_never_leaves_the_rules_range_and_stops():
    """Posts no initial rating can give (a page's typo): the values stay in
    the rules' range, the solver stops within its bounds, and nothing is
    made worse than the start."""
    raw = _swiss(6, 6, 3, 7, "2019-05-04")
    published, _ = _published(raw)
    published = {j: v + 900 for j, v in published.items()}
    before, sol, unknowns = _solve(_hidden(raw), published, {})
    assert sol.reproduced >= before
    assert all(100 <= u.value <= 2700 for u in unknowns)
    # bounded: the joint solve's budget, every start's rounds (a measurement
    # and its solves each), the coarse starts and the one-dimensional
    # searches' budget
    starts = 3 + S.HOPS
    bound = (1 + 14 + S.JOINT_WORK * (len(unknowns) + 1)
             + starts * (1 + S.ROUNDS * (len(unknowns) + S.CHORDS)) + S.POLISH_EVALS + 60)
    assert sol.evaluations <= bound


def _page_file(tmp_path, raw, published):
    """A published-results file for ``raw`` (hidden) with ``published``."""
    out = event_to_dict(event_from_dict(_hidden(raw), source="page.yaml"))
    out["published"] = [{"id": f"{20000000 + pair}", "system": "OTBR", "post": post,
                         "section": "S"} for pair, post in sorted(published.items())]
    path = tmp_path / "published.json"
    path.write_text(json.dumps(out))
    return path


@pytest.mark.slow
def test_audit_reports_values_as_inferred_and_re_checks_everyone(tmp_path, capsys):
    """``uschess audit`` end to end: the plain figure beside the one with the
    inferred values, each value reported as inferred with what pinned it."""
    raw = _swiss(8, 12, 4, 3, "2015-05-02")
    published, truth = _published(raw)
    path = _page_file(tmp_path, raw, published)
    a = audit(published_from_dict(json.loads(path.read_text()), source=str(path)))
    assert a.reproduced < a.total == len(published)
    assert a.reproduced_inferred == a.total
    assert {i.id for i in a.inferred} <= {f"{20000000 + p}" for p in truth}
    assert all(r.with_inferred is not None for r in a.rows)
    for r in a.mismatches:
        assert r.causes and r.causes[0].cause == "initialization"
    code = main(["audit", str(path)])
    out = capsys.readouterr().out
    assert code == 0
    assert f"{a.reproduced} of {a.total} reproduced" in out
    assert f"{a.total} of {a.total} reproduced" in out  # with the inferred values
    assert "inferred from the page" in out and "which does not show it" in out
    code = main(["audit", str(path), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert data["reproduced_inferred"] == a.total
    assert all(i["value"] != i["rules_value"] for i in data["inferred"])


def test_initial_games_from_what_the_page_prints():
    """N of an unrated player's initial rating: P<n> after m games gives
    n - m; a post a page prints established after m games gives at least
    established_games + 1 - m (a published-results file prints no counts:
    the rules' N)."""
    from types import SimpleNamespace as NS

    from uschess.apps.audit.infer import _initial_games
    from uschess.calendar.rulebook import RuleBook

    rules = RuleBook.load().rules(dt.date(2020, 7, 11))
    est = rules.p.established_games

    def row(m, post_games, own=0):
        return NS(result=NS(m=m, initial=NS(games=own)), entry=NS(post_games=post_games),
                  section=NS(rules=rules))

    assert _initial_games(row(6, 16), page=True) == 10
    assert _initial_games(row(19, None), page=True) == est + 1 - 19
    assert _initial_games(row(19, None, own=10), page=True) == 10
    assert _initial_games(row(est + 5, None), page=True) == 0
    assert _initial_games(row(19, None), page=False) == 0


def _large(seed: int, blended_every: int = 0) -> dict:
    """A large scholastic-like section: 8 established players and 52 new
    ones over 5 rounds; with ``blended_every`` = k, every k-th new player has
    no birth date but an OTBQ rating of 12 games (blended, N > 0, from a
    rating the page does not show) instead."""
    raw = _swiss(8, 52, 5, seed, "2021-03-06")
    if blended_every:
        rng = random.Random(seed)
        for p in raw["sections"][0]["players"][8::blended_every]:
            p.pop("birth_date")
            p["ratings"] = {"OTBQ": {"rating": rng.randrange(500, 1500), "games": 12,
                                     "date": "2021-03-06"}}
    return raw


@pytest.mark.slow  # a 100-player section solved twice: seconds
def test_joint_solve_recovers_a_large_section_the_descent_does_not():
    """60 players, 52 of them new (every third blended from a rating the
    page does not show, N > 0; the others age-based, N = 0): solving all
    the initial ratings at once (Levenberg-Marquardt) reproduces every post
    and recovers each blended value to within a few points, where the
    player-by-player descent from the same start, given as many ratings of
    the section, stops with posts missed."""
    raw = _large(9, blended_every=3)
    published, truth = _published(raw)
    games = {pair: i.games for pair, i in truth.items()}
    assert sum(g > 0 for g in games.values()) == 18
    hidden = _hidden(raw)
    res = rate_event(event_from_dict(hidden, source="page.yaml"), RatingOptions(trace=False))
    sr = next(s for s in res.sections if s.system == "OTBR")
    p = sr.rules.p
    unknowns = [Unknown(pr.pair, pr.id, pr.initial.rating, games[pr.pair])
                for pr in sr.players if pr.initial is not None]
    start = {u.pair: u.value for u in unknowns}
    model = SectionModel(sr, games)
    before = S._score(model.posts(start), published, 1.0)[0]
    assert before < 30

    joint = S._Best((-1, float("-inf")), start, None)
    model.evaluations = 0
    pinned = S.joint_solve(model, unknowns, start, published, 1.0, p.absolute_floor,
                           p.special_cap, joint)
    work = model.evaluations
    assert joint.score[0] == len(published) == 60
    assert work < 40 * (len(unknowns) + 1)
    for u in unknowns:
        value = joint.values[u.pair]
        assert p.absolute_floor <= value <= p.special_cap
        if games[u.pair]:  # N > 0: its own post pins it
            assert u.pair in pinned[u.pair]
            assert abs(value - truth[u.pair].rating) <= 5
    # the section rated with the values found gives every published post
    posts = model.posts(joint.values)
    assert all(abs(posts[j] - published[j]) <= 1 + 1e-9 for j in published)

    descent = S._Best((-1, float("-inf")), start, None)
    model.evaluations = 0
    S._descend(model, [dataclasses.replace(u) for u in unknowns], start, published, 1.0,
               p.absolute_floor, p.special_cap, descent, work)
    assert model.evaluations <= work
    assert descent.score[0] <= len(published) - 5

    # and the same through solve_section: deterministic, the same values again
    again = [dataclasses.replace(u, value=0.0) for u in unknowns]
    sol = solve_section(SectionModel(sr, games), again, published, 1.0, p.absolute_floor,
                        p.special_cap)
    assert sol.reproduced == 60
    sol2 = solve_section(SectionModel(sr, games), [dataclasses.replace(u, value=0.0)
                                                   for u in unknowns],
                         published, 1.0, p.absolute_floor, p.special_cap)
    assert sol2.values == sol.values


@pytest.mark.slow  # 60 players' verdicts solved out of sample: 5 s with the kernel, 16 without
def test_audit_solves_a_large_age_based_section_end_to_end(tmp_path, capsys):
    """``uschess audit FILE --json`` on a published-results file of a large
    section whose 52 new players' ages the file does not show: every
    published rating reproduced with the inferred values."""
    raw = _large(5)
    published, _ = _published(raw)
    path = _page_file(tmp_path, raw, published)
    code = main(["audit", str(path), "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert data["total"] == 60 and data["reproduced"] < 20
    assert data["reproduced_inferred"] == 60
    assert len(data["inferred"]) >= 40


#: A large real K-3 section (108 players, dual-rated, 2016; 26 unrated in
#: each system): 7 of its 216 published ratings reproduced with the rules'
#: initialization, 167 with the values the player-by-player descent found,
#: 181 with the unknowns also solved jointly (the others: players at floors
#: and provisional players whose earlier games the page does not show).
LARGE_PAGE = SHARED_DATA / "real" / "pacl-2001-2021" / "sections" / "XtblMain_201603120142_1.html"


@pytest.mark.slow
@pytest.mark.shared_data
def test_large_real_section_reproduced_with_the_joint_solve(capsys):
    """``uschess audit PAGE --as-rated --json`` on a large real scholastic
    section: the count reproduced with the inferred values stays at least
    what the joint solve reaches, every value reported as inferred."""
    code = main(["audit", str(LARGE_PAGE), "--as-rated", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0
    assert (data["reproduced"], data["total"]) == (7, 216)
    assert data["reproduced_inferred"] >= 181
    initial = [i for i in data["inferred"] if i["inferred"] == "initial rating"]
    assert initial and all(100 <= i["value"] <= 2700 for i in initial)


def test_inferred_values_are_never_merged_by_the_rule_books_cache():
    """The rules resolved for inferred initial ratings are cached by the
    values themselves: two values 0.0002 apart are two reforms (a key rounded
    to 0.001 handed one the other's rules, so an audit's result could depend
    on what the process had rated before); ``forget_reforms`` drops them and
    keeps the book's own rules."""
    import datetime as dt

    from uschess.apps.audit.inputs import _options
    from uschess.calendar.rulebook import RuleBook

    book = RuleBook.load()
    on = dt.date(2021, 5, 29)
    plain = book.rules(on)
    a = _options(RatingOptions(), {("30160008", "OLR"): 812.3456}, {("30160008", "OLR"): 0})
    b = _options(RatingOptions(), {("30160008", "OLR"): 812.3458}, {("30160008", "OLR"): 0})
    assert a.reform.key() != b.reform.key()
    ra, rb = book.rules(on, reform=a.reform), book.rules(on, reform=b.reform)
    assert ra is not rb
    assert book.rules(on, reform=a.reform) is ra  # cached while it is in use
    book.forget_reforms()
    assert book.rules(on, reform=a.reform) is not ra
    assert book.rules(on) is plain


@pytest.mark.parametrize("ages,other,start", [(True, None, "2015-05-02"), (False, "OTBQ", "2021-03-06")])
def test_the_models_remembered_special_ratings_change_no_post(monkeypatch, ages, other, start):
    """Where the Python body rates the section (no compiled kernel), a
    section model remembers the special formula's answers by their inputs
    (a search rates one section again and again with a few values moved):
    every post it gives is, float for float, the pipeline's with those
    initial ratings, also after the memory is full and starts again.  (The
    kernel keeps them in its own memo: ``tests/engine/test_section_kernel.py``.)"""
    raw = _swiss(8, 12, 5, 7, start, ages=ages, other=other)
    sr = rate_event(event_from_dict(_hidden(raw), source="p"), RatingOptions(trace=False)).sections[0]
    games = {pr.pair: 0 if ages else 4 for pr in sr.players if pr.initial is not None}
    monkeypatch.setattr(M, "SPECIAL_MEMO", 40)  # starts again many times below
    monkeypatch.setattr(M.rating_section, "POSTS", None)
    model = SectionModel(sr, games)
    rng = random.Random(5)
    base = {pair: float(rng.randrange(300, 1800)) for pair in games}
    for _ in range(25):
        values = dict(base)
        for pair in rng.sample(sorted(games), 2):
            values[pair] += rng.choice((-50.0, 1.0, 25.0))
        got = model.posts(values)
        plain = dataclasses.replace(sr.rules, call=M._Call(sr.rules.call, sr.system, values, games))
        want = rate_section(sr.section, sr.system, plain, sr.time_control, trace=False)
        assert got == {pr.pair: (pr.post if pr.m else pr.pre) for pr in want.players}
    assert 0 < len(model._special._seen) <= 40


# --- the sensitivities measured in groups (solve.forward_slopes) ------------

def _sparse_model(start: str, seed: int):
    """A section of 20 rated and 30 unrated players over two rounds (few
    opponents each: unknowns far apart in the game graph), as a page shows
    it, with its model, the unknowns' values and the posts at them."""
    raw = _hidden(_swiss(20, 30, 2, seed, start))
    sr = rate_event(event_from_dict(raw, source="page.yaml"), RatingOptions(trace=False)).sections[0]
    values = {pr.pair: pr.initial.rating for pr in sr.players
              if pr.initial is not None and pr.m}
    model = SectionModel(sr, {pair: 0 for pair in values})
    return model, values, model.posts(values)


def _alone(model, values: dict, base: dict, step: float, high: float) -> dict:
    """The sensitivities by definition: each unknown moved alone."""
    out = {}
    for u in sorted(values):
        x = values[u]
        h = step if x + step <= high else -step
        moved = model.posts({**values, u: x + h}, count=False)
        out[u] = {} if moved is None else {
            j: (v - base[j]) / h for j, v in moved.items()
            if v is not None and base.get(j) is not None and abs((v - base[j]) / h) >= M.MIN_SLOPE}
    return out


@settings(max_examples=examples(40), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(day=st.dates(min_value=dt.date(2001, 1, 1), max_value=dt.date(2025, 12, 31)),
       seed=st.integers(0, 10_000), step=st.sampled_from([S.PROBE, J.DIFF, J.DIFF_WHOLE]))
def test_sensitivities_measured_in_groups_are_those_of_each_unknown_alone(monkeypatch, day,
                                                                         seed, step):
    """Unknowns more than 2 x HOPS games apart moved together in one rating
    give, post by post, the slopes each gives moved alone, bit for bit, in
    every era's rules; each still counts as one rating of the budget, and
    fewer ratings are made."""
    model, values, base = _sparse_model(day.isoformat(), seed)
    high = model.rated.rules.p.special_cap
    want = _alone(model, values, base, step, high)
    calls = count_calls(monkeypatch, M, "section_posts")
    before = model.evaluations
    got = S.forward_slopes(model, values, sorted(values), base, step, -math.inf, high)
    assert got == want
    assert list(got) == sorted(values)
    assert model.evaluations - before == len(values)
    assert model.separable
    assert len(calls) < len(values)


def test_a_budget_stops_grouped_measurement_where_it_stopped_alone():
    """``stop`` is asked before each unknown as each was measured alone:
    the same unknowns are measured, the same ratings charged."""
    model, values, base = _sparse_model("2019-06-01", 7)
    high = model.rated.rules.p.special_cap
    want = _alone(model, values, base, S.PROBE, high)
    limit = model.evaluations + 9
    got = S.forward_slopes(model, values, sorted(values), base, S.PROBE, -math.inf, high,
                           stop=lambda: model.evaluations >= limit)
    assert got == {u: want[u] for u in sorted(values)[:9]}
    assert model.evaluations == limit


@pytest.mark.parametrize("hops", [1, 2])
def test_a_post_moving_beyond_the_reach_sends_the_model_back_to_one_unknown_at_a_time(
        monkeypatch, hops):
    """Were the rules to carry an initial rating further than HOPS games
    (here the reach is cut to one or two games, which steps 4 and 5
    exceed: three is needed), a grouped rating moves posts outside its
    members' reaches: seen, each member is measured alone, and so is every
    later measurement."""
    monkeypatch.setattr(M, "HOPS", hops)
    model, values, base = _sparse_model("2021-03-06", 11)
    high = model.rated.rules.p.special_cap
    want = _alone(model, values, base, S.PROBE, high)
    got = S.forward_slopes(model, values, sorted(values), base, S.PROBE, -math.inf, high)
    assert got == want
    assert not model.separable
    calls = count_calls(monkeypatch, M, "section_posts")
    assert S.forward_slopes(model, values, sorted(values), base, S.PROBE, -math.inf,
                            high) == want
    assert len(calls) == len(values)
