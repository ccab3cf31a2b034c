"""One calendar: every date in rulesets/, rules/ holds code only, and a rule
book that is missing a piece refuses to load, naming it."""

from __future__ import annotations

import datetime as dt
import json
import random
import re
import shutil
from pathlib import Path

import pytest
import yaml
from helpers import by_pair, event, player

import uschess.calendar.rulebook as rulebook
from uschess.calendar.reform import load_reform
from uschess.calendar.rulebook import Reform, RuleBook
from uschess.cli import main
from uschess.errors import RuleError
from uschess.rating.pipeline import RatingOptions, rate_event
from uschess.rules.base import RulePlugin, src
from uschess.rules.initialization import Blended, cfc_us
from uschess.rules.hookspecs import hookimpl

RULES_DIR = Path(rulebook.rule_plugins.__file__).resolve().parent
RULESETS = Path(rulebook._rulesets_dir())
ROOT = Path(__file__).resolve().parents[2]
DATE_LITERAL = re.compile(r"\b(1[89]|2\d)\d\d-[01]\d-[0-3]\d\b|\bdate\(\s*\d{4}\s*,")
BOOK = RuleBook.load()


def test_no_date_in_the_rule_plugins():
    """When a rule is in force is data (rulesets/slots.yaml); the plugins are code."""
    files = sorted(RULES_DIR.glob("*.py"))
    assert len(files) >= 7
    found = [f"{f.name}:{n}: {line.strip()}" for f in files
             for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
             if DATE_LITERAL.search(line)]
    assert found == []
    assert all(not hasattr(cls, "schedule") for cls in rulebook.rule_plugins.ALL)


def test_every_slot_answers_a_hook_and_every_plugin_is_in_the_calendar():
    raw = yaml.safe_load((RULESETS / "slots.yaml").read_text(encoding="utf-8"))
    assert list(raw) == list(BOOK.slots) == list(BOOK.slot_hooks)
    assert {BOOK.slot_hooks[s] for s in raw} == {n for n in dir(rulebook.hookspecs)
                                                 if n.startswith("uschess_")}
    assert {hook: slot for slot, hook in BOOK.slot_hooks.items()} == rulebook.hookspecs.HOOK_SLOTS
    named = {e.value for t in BOOK.slots.values() for e in t.entries}
    named |= {e.value for ed in BOOK.editions.values() for e in ed.plugins.values()}
    assert named == set(BOOK.registered) == {cls.name for cls in rulebook.rule_plugins.ALL}


def test_rules_call_is_the_chosen_plugins_implementation():
    rules = BOOK.rules(dt.date(2016, 5, 1))
    for slot, res in rules.plugins.items():
        fn = getattr(rules.call, BOOK.slot_hooks[slot])
        assert fn.__self__ is BOOK.registered[res.value]
        assert fn.__func__ is getattr(type(BOOK.registered[res.value]), BOOK.slot_hooks[slot])
    assert rules.call.uschess_store_rating(pre=1500.0, value=1510.4, p=rules.p) == 1510.4
    old = BOOK.rules(dt.date(2010, 5, 1))
    assert old.call.uschess_store_rating(pre=1500.0, value=1510.4, p=old.p) == 1511.0


def test_resolving_new_dates_builds_no_plugin_manager(monkeypatch):
    book = RuleBook.build()

    def refuse(*args, **kwargs):
        raise AssertionError("a plugin manager was built while resolving a date")

    monkeypatch.setattr(rulebook.pluggy, "PluginManager", refuse)
    rng = random.Random(11)
    seen = {}
    for _ in range(300):
        on = dt.date(2001, 1, 1) + dt.timedelta(days=rng.randrange(9700))
        rules = book.rules(on, readings={"revision-2020": rng.choice(["2025-list", "2020-09-proposal"])})
        combo = tuple(r.value for r in rules.plugins.values())
        assert seen.setdefault(combo, rules.call) is rules.call  # one call object per combination
    assert 4 <= len(seen) <= 20


@pytest.mark.parametrize("reform_file", [None, *sorted((ROOT / "fixtures" / "reforms").glob("*.yaml"))],
                         ids=lambda f: f.stem if f else "baseline")
def test_a_date_resolves_as_the_latest_change_point_before_it(reform_file):
    """Resolution is a lookup: the rules of the period a date falls in, resolved
    once.  On every date they equal the rules resolved entry by entry."""
    reform = load_reform(reform_file) if reform_file else None
    book = RuleBook.build()
    rng = random.Random(7)
    dates = [dt.date(2001, 1, 1) + dt.timedelta(days=rng.randrange(9800)) for _ in range(60)]
    dates += [p + dt.timedelta(days=k) for p in book._change_points(reform) for k in (-1, 0, 1)]
    for on in sorted(set(dates)):
        if on < book.earliest():
            continue
        for kw in ({}, {"readings": {"revision-2020": "2020-09-proposal"}},
                   {"known_on": dt.date(2016, 1, 1)}, {"edition": "2017-04-24"}):
            got = book.rules(on, reform=reform, **kw)
            full = book._resolve(on, kw.get("known_on"), kw.get("readings", {}), kw.get("edition"),
                                 book.editions.get(kw.get("edition")), reform)
            assert got.as_dict() == full.as_dict(), (on, kw)
            assert got.on == on and got.call is full.call


class HandsBack:
    """A reform plugin that answers for one opponent count and hands back the rest."""

    @hookimpl
    def uschess_bonus_eligible(self, m, opponent_counts, p):
        return True if len(opponent_counts) == 1 else None


def test_reform_plugins_answer_first_and_can_hand_back():
    rules = BOOK.rules(dt.date(2025, 3, 1), reform=Reform("hands back", extra_plugins=[HandsBack()]))
    call = rules.call.uschess_bonus_eligible
    assert call(m=2, opponent_counts={"a": 2}, p=rules.p) is True        # the reform's answer
    assert call(m=2, opponent_counts={"a": 1, "b": 1}, p=rules.p) is False  # handed back: 2025 rule
    assert call(m=4, opponent_counts={"a": 1, "b": 1, "c": 1, "d": 1}, p=rules.p) is True
    assert BOOK.rules(dt.date(2025, 3, 1)).call.uschess_bonus_eligible is not call


class Misspelt:
    @hookimpl
    def uschess_bonus_eligable(self, m, opponent_counts, p):
        return True


def test_a_reform_plugin_for_no_slot_is_refused():
    with pytest.raises(RuleError, match="reform plugin Misspelt implements uschess_bonus_eligable, "
                                        "the hook of no slot"):
        BOOK.rules(dt.date(2025, 3, 1), reform=Reform("typo", extra_plugins=[Misspelt()]))


# ----------------------------------------------- a missing piece fails at load
@pytest.fixture
def rulesets(tmp_path):
    """A copy of the project's rulesets/ to break one piece at a time."""
    target = tmp_path / "rulesets"
    shutil.copytree(RULESETS, target, ignore=shutil.ignore_patterns("__pycache__", "*.py"))
    return target


def edit_slots(rulesets: Path, change) -> None:
    path = rulesets / "slots.yaml"
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(raw)
    path.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")


def build(rulesets, plugins=()):
    return RuleBook.build(rulesets, plugins=plugins, entry_point_group=None)


class Orphan(RulePlugin):
    slot, name, title, source = "bonus", "bonus-orphan", "A bonus rule in no calendar row", src("000", "4.2")

    @hookimpl
    def uschess_bonus_eligible(self, m, opponent_counts, p):
        return True


class WrongHook(RulePlugin):
    slot, name, title, source = "bonus", "bonus-wrong-hook", "Implements K, not the bonus", src("000", "4.2")

    @hookimpl
    def uschess_k_factor(self, r0, n_eff, m, system, tc, half_k, otbr, p):
        return 1.0


class TwoSlots(Orphan):
    name = "bonus-and-k"

    @hookimpl
    def uschess_k_factor(self, r0, n_eff, m, system, tc, half_k, otbr, p):
        return 1.0


class NoSuchSlot(Orphan):
    slot, name = "tiebreak", "tiebreak-buchholz"


class BadArguments(RulePlugin):
    slot, name, title, source = "bonus", "bonus-bad-args", "Asks for an argument no hook gives", src("000", "4.2")

    @hookimpl
    def uschess_bonus_eligible(self, m, opponents_seen, p):
        return True


def test_the_copied_rulesets_load_as_the_project_does(rulesets):
    book = build(rulesets)
    on = dt.date(2021, 4, 2)
    assert book.rules(on).as_dict() == BOOK.rules(on).as_dict()


@pytest.mark.parametrize("plugin,message", [
    (Orphan(), r"plugin bonus-orphan \(slot bonus\) is in force on no date: give it a row in "
               r"rulesets/slots.yaml"),
    (WrongHook(), r"plugin bonus-wrong-hook \(slot bonus\) does not implement uschess_bonus_eligible"),
    (TwoSlots(), r"plugin bonus-and-k \(slot bonus\) also implements uschess_k_factor, the hook of "
                 r"another slot"),
    (NoSuchSlot(), r"plugin tiebreak-buchholz declares slot 'tiebreak', which rulesets/slots.yaml does "
                   r"not have"),
    (BadArguments(), r"rule plugin refused: .*bonus-bad-args.*opponents_seen"),
])
def test_a_plugin_the_calendar_cannot_use_is_refused(rulesets, plugin, message):
    with pytest.raises(RuleError, match=message):
        build(rulesets, [plugin])


def _rename_row(raw, slot, old, new):
    for rows in raw[slot]["values"].values():
        for row in rows if isinstance(rows, list) else [rows]:
            if row["value"] == old:
                row["value"] = new


@pytest.mark.parametrize("change,message", [
    (lambda raw: _rename_row(raw, "bonus", "bonus-2017", "bonus-2018"),
     r"slot bonus from 2002-01-01: no plugin 'bonus-2018' is registered \(registered for bonus: "
     r"bonus-002, bonus-2017, bonus-2020-09\)"),
    (lambda raw: _rename_row(raw, "bonus", "bonus-2017", "k-dual-otbr"),
     r"slot bonus from 2002-01-01: plugin k-dual-otbr fills slot k_factor"),
    (lambda raw: raw.update(tiebreak={"description": "Tie-breaks", "values": {}}),
     r"rulesets/slots.yaml: slot tiebreak answers no hook \(slots of uschess.rules.hookspecs.HOOK_SLOTS: "
     r"classify, age"),
    (lambda raw: raw.pop("storage"),
     r"rulesets/slots.yaml: no calendar for slot storage \(hook uschess_store_rating\)"),
    (lambda raw: raw["storage"]["values"].pop(dt.date(2001, 1, 1)),
     r"slot storage has no plugin in force on 2001-01-01, the earliest rule date"),
    (lambda raw: raw["storage"]["values"][dt.date(2014, 9, 1)].pop("source"),
     r"rulesets/slots.yaml: storage 2014-09-01: every value needs source"),
    (lambda raw: raw["storage"]["values"].__setitem__(
        dt.date(2014, 9, 1), [{"value": "store-float", "source": {"doc": "000", "section": "8"}},
                              {"value": "store-integer", "source": {"doc": "000", "section": "8"}}]),
     r"slot storage from 2014-09-01: two plugins \(store-float, store-integer\) for the same date"),
    (lambda raw: raw["storage"]["values"][dt.date(2014, 9, 1)]["source"].update(section="9"),
     r"slot storage from 2014-09-01: source 000 sec. 9 is not a registered document section"),
])
def test_a_calendar_row_the_plugins_cannot_honour_is_refused(rulesets, change, message):
    edit_slots(rulesets, change)
    with pytest.raises(RuleError, match=message):
        build(rulesets)


@pytest.mark.parametrize("change,message", [
    (lambda slots: slots.pop("uschess_store_rating"),
     r"uschess.rules.hookspecs: hook uschess_store_rating has no slot in HOOK_SLOTS"),
    (lambda slots: slots.update(uschess_tiebreak="tiebreak"),
     r"uschess.rules.hookspecs: HOOK_SLOTS names hook uschess_tiebreak, which has no specification"),
    (lambda slots: slots.update(uschess_store_rating="floors"),
     r"HOOK_SLOTS gives two hooks the same slot"),
])
def test_a_hook_without_a_slot_is_refused(rulesets, monkeypatch, change, message):
    slots = dict(rulebook.hookspecs.HOOK_SLOTS)
    change(slots)
    monkeypatch.setattr(rulebook.hookspecs, "HOOK_SLOTS", slots)
    with pytest.raises(RuleError, match=message):
        build(rulesets)


def test_an_edition_naming_an_unknown_plugin_is_refused(rulesets):
    path = rulesets / "editions" / "2001-02-22.yaml"
    path.write_text(path.read_text(encoding="utf-8").replace("value: k-002", "value: k-003"),
                    encoding="utf-8")
    with pytest.raises(RuleError, match=r"editions/2001-02-22.yaml: unknown plugin k_factor=k-003"):
        build(rulesets)


def test_a_missing_hook_implementation_can_no_longer_go_unnoticed(rulesets):
    """The calendar can only name plugins of the slot, and every slot's plugin
    implements the slot's hook: every hook the pipeline calls is there on
    every date."""
    book = build(rulesets)
    for year in range(2001, 2027):
        rules = book.rules(dt.date(year, 7, 1))
        assert sorted(vars(rules.call)) == sorted(book.slot_hooks.values())


# ------------------------------------------------------------------ commands
def test_rules_timeline_shows_slots_from_the_calendar(capsys):
    assert main(["rules", "timeline", "storage"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("storage (plugin slot, hook uschess_store_rating): How a rating is stored")
    assert '  2001-01-01  store-integer  [002 "Standard rating formula"]' in out
    assert "  2014-09-01  store-float  [000 sec. 8]" in out
    assert main(["rules", "timeline", "initialize", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)["initialize"]
    assert data["kind"] == "plugin" and data["hook"] == "uschess_initial_rating"
    rows = [(v["effective"], v["value"], v["source"], v.get("reading")) for v in data["values"]]
    assert rows == [("2001-01-01", "priority-2017", "004 sec. 2.1", None),
                    ("2020-06-01", "priority-2020-06", "001 sec. 2.4", "2020-09-proposal"),
                    ("2020-06-01", "blended", "000 sec. 8", "2025-list"),
                    ("2020-09-02", "blended", "003 sec. 2", "2020-09-proposal")]


def test_rules_show_lists_every_slot_with_its_source(capsys):
    assert main(["rules", "show", "--on", "2021-03-03"]) == 0
    out = capsys.readouterr().out
    lines = out.split("\nplugins:\n")[1].split("\n\n")[0].splitlines()
    plugins = [line for line in lines if not line.startswith("   ")]  # titles are indented
    assert [line.split()[0] for line in plugins] == list(BOOK.slots)
    assert any(line.split()[:5] == ["floors", "floors-sec5", "from", "2008-08-07", "000"]
               for line in plugins)


# ------------------------------------- every calendar row is rated on its date
def _round_robin(n: int, rounds: int) -> dict[int, list[str]]:
    """Circle-method pairings; the lower pair number wins, every third game drawn."""
    cells = {i: [] for i in range(1, n + 1)}
    ring = list(range(1, n + 1))
    for r in range(rounds):
        for k in range(n // 2):
            a, b = sorted((ring[k], ring[n - 1 - k]))
            if (a + b + r) % 3 == 0:
                cells[a].append(f"D{b}")
                cells[b].append(f"D{a}")
            else:
                cells[a].append(f"W{b}")
                cells[b].append(f"L{a}")
        ring = [ring[0], ring[-1], *ring[1:-1]]
    return cells


def _every_kind_of_player(on: dt.date):
    """Established, provisional and unrated players (FIDE, CFC, a birth date
    only, nothing): every slot's hook is asked at least once."""
    before = (on - dt.timedelta(days=30)).isoformat()
    cells = _round_robin(8, 4)
    recs = {1: (2300.0, 300), 2: (1900.0, 100), 3: (1700.0, 60), 4: (1500.0, 5)}
    out = []
    for pair in range(1, 9):
        extra = {}
        if pair == 5:
            extra = {"fide": {"rating": 1950, "date": before}, "adult": True}
        elif pair == 6:
            extra = {"cfc": {"rating": 1700, "date": before, "canadian": True}}
        elif pair == 7:
            # a twelve-year-old on every date (a birth after the event is refused)
            extra = {"birth_date": on.replace(year=on.year - 12, day=1).isoformat(),
                     "adult": False}
        elif pair == 8:
            extra = {"adult": True}
        if pair in recs:
            extra["record"] = {"date": before}
        rating, games = recs.get(pair, (None, None))
        out.append(player(pair, cells[pair], rating=rating, games=games, **extra))
    return out


def _match_as_rated(on: dt.date):
    """A match section read from a page (``match_as_rated``) between an
    established and a provisional player, which sec. 7 does not allow."""
    return event([player(1, ["W2", "L2"], rating=1800.0, games=100, pid="20000001"),
                  player(2, ["L1", "W1"], rating=1700.0, games=5, pid="20000002")],
                 start=on.isoformat(), tc="G/90;d30", type="match",
                 match_as_rated=True).sections[0]


def _counting(fn, name, counts):
    def call(**kwargs):
        counts[name] = counts.get(name, 0) + 1
        return fn(**kwargs)
    return call


def rate_every_calendar_row(book: RuleBook) -> None:
    """Rate a section of every kind of player on the date of every calendar
    row (under its reading) and of every edition's plugins, checking that the
    row's plugin is in force and is asked; and that every plugin was."""
    counts: dict[str, int] = {}
    for name, fn in list(book.functions.items()):
        book.functions[name] = _counting(fn, name, counts)
    cases = [(slot, e.value, e.effective, RatingOptions(readings={e.conflict: e.reading} if e.conflict else {}))
             for slot, t in book.slots.items() for e in t.entries]
    cases += [(slot, e.value, ed.date, RatingOptions(edition=key))
              for key, ed in book.editions.items() for slot, e in ed.plugins.items()]
    for slot, name, on, options in cases:
        before = counts.get(name, 0)
        ev = event(_every_kind_of_player(on), start=on.isoformat(), tc="G/45;d5")
        ev.sections.append(_match_as_rated(on))  # asks the match_unallowed slot
        result = rate_event(ev, options, book=book)
        assert result.sections[0].rules.plugins[slot].value == name, (slot, name, on)
        assert counts.get(name, 0) > before, f"{name} was not asked on {on}"
    assert set(counts) == set(book.registered)


def test_every_plugin_is_rated_on_the_dates_the_calendar_gives_it():
    """A plugin given a calendar row (or an edition) is run on that date: one
    that reads a parameter nobody defined, or fails on some player, fails here
    even before its own tests are written."""
    rate_every_calendar_row(RuleBook.build(entry_point_group=None))


# -------------------------------------------- CONTRIBUTING.md's walk-through, for real
def edit_yaml(path: Path, change) -> None:
    raw = yaml.safe_load(path.read_text(encoding="utf-8"))
    change(raw)
    path.write_text(yaml.safe_dump(raw, sort_keys=False), encoding="utf-8")


def test_contributing_b_from_a_date_is_one_yaml_value(rulesets):
    edit_yaml(rulesets / "bonus.yaml", lambda raw: raw["bonus_multiplier"]["values"].update({
        dt.date(2026, 3, 1): {"value": 8, "source": {"doc": "000", "section": "8"}}}))
    book = build(rulesets)
    assert book.rules(dt.date(2026, 2, 28)).p.bonus_multiplier == 10
    assert book.rules(dt.date(2026, 3, 1)).p.bonus_multiplier == 8
    players = [player(1, ["W2", "W3", "W4", "W5"], rating=1500, games=100)]
    for i in range(2, 6):
        rounds = ["U"] * 4
        rounds[i - 2] = "L1"
        players.append(player(i, rounds, rating=1900, games=100))
    res = by_pair(rate_event(event(players, start="2026-03-02"), RatingOptions(), book=book))[1]
    assert res.bonus == pytest.approx(res.k * (4 - res.expected) - 8 * 2)
    # a value without its source is refused when the book loads
    edit_yaml(rulesets / "bonus.yaml", lambda raw: raw["bonus_multiplier"]["values"].update({
        dt.date(2026, 3, 1): {"value": 8}}))
    with pytest.raises(RuleError, match=r"bonus_multiplier 2026-03-01: every value needs source"):
        build(rulesets)


class BlendedCFCQuadratic(Blended):
    """A conversion whose shape changes: CFC ratings converted by a quadratic
    (a made-up rule for the walk-through), the rest of blended initialization
    unchanged."""

    name = "blended-cfc-quadratic"
    title = "Blended initialization, quadratic CFC conversion"
    source = src("000", "2.2")

    def cfc_us(self, rating, p):
        q = p.cfc_quadratic
        return q["a"] + q["b"] * rating + q["c"] * rating * rating


QUADRATIC = {"a": 100.0, "b": 0.9, "c": 0.00002}


def _conversion_row(raw):
    raw["initialize"]["values"][dt.date(2027, 3, 1)] = {
        "value": "blended-cfc-quadratic", "source": {"doc": "000", "section": "2.2"}}


def _conversion_data(raw):
    raw["cfc_quadratic"] = {"description": "CFC to US Chess: a + b C + c C^2",
                            "domain": {"type": "table", "min": -10000, "max": 10000},
                            "values": {dt.date(2027, 3, 1): {"value": QUADRATIC,
                                                             "source": {"doc": "000", "section": "2.2"}}}}


def _cfc_newcomer(start):
    return [player(1, ["W2"], cfc={"rating": 1700, "date": "2027-01-01", "canadian": True}),
            player(2, ["L1"], rating=1600, games=100, record={"date": "2027-01-01"})]


def test_contributing_a_conversion_whose_shape_changes(rulesets):
    """Plugin + registration, calendar row, data, tests: all present, the new
    shape rates from its date; each one forgotten fails."""
    plugin = BlendedCFCQuadratic()
    edit_slots(rulesets, _conversion_row)
    with pytest.raises(RuleError, match=r"slot initialize from 2027-03-01: no plugin "
                                        r"'blended-cfc-quadratic' is registered"):
        build(rulesets)                            # the plugin not registered (rules/__init__.py)
    book = build(rulesets, [plugin])
    with pytest.raises(RuleError, match=r"no parameter 'cfc_quadratic' is in force"):
        rate_every_calendar_row(book)              # its data forgotten
    with pytest.raises(RuleError, match=r"no parameter 'cfc_quadratic' is in force"):
        rate_event(event(_cfc_newcomer("2027-03-05"), start="2027-03-05"), RatingOptions(), book=book)

    edit_yaml(rulesets / "initialization.yaml", _conversion_data)
    book = build(rulesets, [plugin])
    rate_every_calendar_row(book)
    after = by_pair(rate_event(event(_cfc_newcomer("2027-03-05"), start="2027-03-05"),
                               RatingOptions(), book=book))[1]
    before = by_pair(rate_event(event(_cfc_newcomer("2027-02-20"), start="2027-02-20"),
                                RatingOptions(), book=book))[1]
    quadratic = QUADRATIC["a"] + QUADRATIC["b"] * 1700 + QUADRATIC["c"] * 1700 ** 2
    assert after.initial.sources[0]["X"] == pytest.approx(quadratic)
    assert before.initial.sources[0]["X"] == cfc_us(1700, book.rules(dt.date(2027, 2, 20)).p)
    assert before.initial.sources[0]["X"] == pytest.approx(-856 + 1.41 * 1700)  # 000 sec. 2.2

    shutil.copy(RULESETS / "slots.yaml", rulesets / "slots.yaml")
    with pytest.raises(RuleError, match=r"plugin blended-cfc-quadratic \(slot initialize\) is in "
                                        r"force on no date"):
        build(rulesets, [plugin])                  # the calendar row forgotten


class BlendedFideShifted(Blended):
    """A FIDE conversion of another shape (made up: the FIDE rating plus a
    fixed 50 points), to show that FIDE updates convert through the plugin in
    force as initialization does."""

    name = "blended-fide-shifted"
    title = "Blended initialization, FIDE + 50"
    source = src("000", "2.1")

    def fide_us(self, rating, p):
        return rating + 50.0


class NoConversions(RulePlugin):
    slot, name, title, source = "initialize", "initialize-bare", "Implements the hook only", src("000", "2")

    @hookimpl
    def uschess_initial_rating(self, player, system, end, p, hook):
        return None


def test_a_fide_conversion_of_another_shape_reaches_fide_updates(rulesets):
    from uschess.io.fide_file import fide_update_from_dict
    from uschess.rating.fide_update import fide_update

    edit_slots(rulesets, lambda raw: raw["initialize"]["values"].__setitem__(
        dt.date(2027, 3, 1), {"value": "blended-fide-shifted", "source": {"doc": "000", "section": "2.1"}}))
    book = build(rulesets, [BlendedFideShifted()])

    def update(start, youth=False):
        return fide_update(fide_update_from_dict({
            "kind": "fide-update",
            "event": {"name": "Abroad", "start": start, "end": start, "youth": youth},
            "player": {"id": "12345678", "name": "Doe, Jane",
                       "ratings": {"OTBR": {"rating": 2000.0, "games": 120}}},
            "games": [{"opponent": "A", "fide": 1900, "result": "W"},
                      {"opponent": "B", "fide": 2100, "result": "L"}]}, source="u.yaml"),
            book=book)

    after, before = update("2027-03-05"), update("2027-02-20")
    assert [o.us for o in after.opponents] == [1950.0, 2150.0]
    assert [o.us for o in before.opponents] == [-1073 + 1.5667 * 1900, 20 + 1.02 * 2100]  # 000 sec. 2.1
    assert after.post != before.post
    # a youth event keeps the youth conversion of sec. 6 (the plugin does not change it)
    youth = update("2027-03-05", youth=True)
    assert [o.us for o in youth.opponents] == [-453 + 1.2667 * 1900, 80 + 2100.0]


def test_an_initialization_without_its_conversions_is_refused(rulesets):
    with pytest.raises(RuleError, match=r"plugin initialize-bare \(slot initialize\) lacks fide_us, "
                                        r"cfc_us, fide_youth_us"):
        build(rulesets, [NoConversions()])
