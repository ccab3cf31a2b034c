"""One generated test per dated row of the calendar in ``rulesets/``: the
day before the row's date the rules in force are those of the row before it,
and on the day they are the row's own (value and source), under the default
readings.  A row added to a YAML file is tested without writing a test.

The rows are read from the YAML files here, apart from the rule book's own
reader, and the expectation is built from them alone: the last row on or
before a date whose reading (if it has one) is the default."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import yaml

from uschess.calendar.rulebook import RuleBook

RULESETS = Path(__file__).resolve().parents[2] / "rulesets"
#: Files of the calendar that are not dated rows (conflicts, documents).
NOT_ROWS = {"conflicts.yaml", "documents.yaml"}
BOOK = RuleBook.load()


def _defaults() -> dict:
    raw = yaml.safe_load((RULESETS / "conflicts.yaml").read_text(encoding="utf-8"))
    return {name: c["default"] for name, c in raw["conflicts"].items()}


def _rows():
    """(file, name, date, the row's alternative chosen by default) for every
    dated row; the choice is None where no alternative is the default's."""
    defaults = _defaults()
    for path in sorted(RULESETS.glob("*.yaml")):
        if path.name in NOT_ROWS:
            continue
        for name, spec in (yaml.safe_load(path.read_text(encoding="utf-8")) or {}).items():
            if not isinstance(spec, dict) or "values" not in spec:
                continue
            for day, row in spec["values"].items():
                alternatives = row if isinstance(row, list) else [row]
                chosen = [a for a in alternatives
                          if "conflict" not in a or defaults[a["conflict"]] == a.get("reading")]
                yield path.name, name, day, (chosen[-1] if chosen else None)


ROWS = list(_rows())


def _expected(name: str, on: dt.date):
    """The row in force on ``on`` by the YAML alone: the latest row on or
    before it chosen by default."""
    best = None
    for _, n, day, row in ROWS:
        if n == name and row is not None and day <= on and (best is None or day >= best[0]):
            best = (day, row)
    return best


def _in_force(name: str, on: dt.date):
    rules = BOOK.rules(on)
    return rules.params[name] if name in rules.params else rules.plugins[name]


def _same_source(resolved, row) -> bool:
    src = row["source"]
    got = resolved.entry.source
    return (got.doc, got.section) == (str(src["doc"]), str(src["section"]))


@pytest.mark.parametrize("file,name,day,row", ROWS,
                         ids=[f"{f}:{n}@{d}" for f, n, d, _ in ROWS])
def test_row_takes_effect_on_its_date(file, name, day, row):
    if row is None:
        pytest.skip(f"{name} on {day}: only readings other than the defaults "
                    "(tested with those readings in test_rule_dates.py)")
    assert isinstance(day, dt.date), f"{file}: {name}: {day!r} is not a date"
    on = _in_force(name, day)
    assert on.value == row["value"] and _same_source(on, row), (name, day)
    before = _expected(name, day - dt.timedelta(days=1))
    if before is None:  # the first row: nothing is in force the day before
        assert day == BOOK.earliest() or name not in BOOK.rules(BOOK.earliest()).params
        return
    was = _in_force(name, day - dt.timedelta(days=1))
    assert was.value == before[1]["value"] and _same_source(was, before[1]), (name, day)


def test_every_file_of_the_calendar_has_rows():
    files = {f for f, *_ in ROWS}
    assert files == {p.name for p in RULESETS.glob("*.yaml")} - NOT_ROWS
    assert len(ROWS) > 50
