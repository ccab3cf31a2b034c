"""Reform files: "what if" overrides of the baseline rules for periods.

```yaml
name: B stays 14
parameters:
  bonus_multiplier:
    - {from: 2023-02-01, value: 14, note: "no cut in 2023"}
plugins:
  initialize:
    - {from: 2020-06-01, until: 2026-01-01, plugin: priority-2020-06}
```
The whole file is validated before anything is applied; a reform never
changes the baseline (it is only a layer over it for one computation).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Optional

from uschess.errors import InputError
from uschess.io.eventfile import optional_date, parse_date, read_data
from uschess.io.textdata import kind_of
from uschess.calendar.rulebook import Period, Reform, RuleBook
from uschess.calendar.timeline import Timeline
from uschess.model import SYSTEMS


#: The largest reform file read (a real one is a few hundred bytes).
MAX_FILE_BYTES = 1024 * 1024
_TOP_KEYS = {"name", "description", "parameters", "plugins"}
_PERIOD_KEYS = {"from", "until", "value", "plugin", "note"}


def reform_from_dict(raw, source=None, book: RuleBook | None = None) -> Reform:
    """A validated :class:`Reform`: every parameter value is checked
    against the parameter's ``domain`` (``rulesets/*.yaml``) and every
    plugin against its slot before anything is rated."""
    book = book or RuleBook.load()
    if not isinstance(raw, dict):
        raise InputError("a reform file is a mapping with 'name', 'parameters' and/or 'plugins'", file=source)
    unknown = set(map(str, raw)) - _TOP_KEYS
    if unknown:
        raise InputError(f"unknown key(s) {sorted(unknown)}", file=source)
    name = raw.get("name")
    if name is not None and not isinstance(name, (str, int)) or isinstance(name, bool):
        raise InputError(f"'name' must be text, not {kind_of(name)}", file=source)
    name = str(name or (Path(source).stem if source else "reform"))
    reform = Reform(name)
    for key, known, target in (("parameters", book.timelines, reform.parameters),
                               ("plugins", book.slots, reform.plugins)):
        given = raw.get(key)
        if given is None:
            continue
        if not isinstance(given, dict):
            raise InputError(f"'{key}' must map {'parameter names' if key == 'parameters' else 'plugin slots'} "
                             f"to lists of periods, not {kind_of(given)}", file=source)
        for pname, periods in given.items():
            where = f"{key}.{pname}"
            if not isinstance(pname, str) or pname not in known:
                raise InputError(f"{where}: no such {'parameter' if key == 'parameters' else 'plugin slot'} "
                                 f"(known: {', '.join(sorted(known))})", file=source)
            if not isinstance(periods, list) or not periods:
                raise InputError(f"{where}: a list of periods {{from, until?, value|plugin}}", file=source)
            rows = []
            for i, period in enumerate(periods, start=1):
                at = f"{where} period {i}"
                if not isinstance(period, dict) or "from" not in period:
                    raise InputError(f"{at}: needs 'from'", file=source)
                extra = set(map(str, period)) - _PERIOD_KEYS
                if extra:
                    raise InputError(f"{at}: unknown key(s) {sorted(extra)}", file=source)
                try:
                    start = parse_date(period["from"], "from")
                    until = optional_date(period, "until", "until")
                except InputError as err:
                    raise err.located(file=source, field=at)
                if start < book.earliest():
                    raise InputError(f"{at}: 'from' {start} is before the earliest rules "
                                     f"({book.earliest()}): no rule of the documents runs "
                                     "earlier, so no period can change one", file=source)
                if until is not None and until <= start:
                    raise InputError(f"{at}: 'until' {until} is not after 'from' {start}", file=source)
                note = period.get("note")
                if note is not None and not isinstance(note, str):
                    raise InputError(f"{at}: 'note' must be text", file=source)
                if key == "parameters":
                    if "value" not in period:
                        raise InputError(f"{at}: needs 'value'", file=source)
                    value = period["value"]
                    problem = domain_problem(known[pname], value)
                    if problem:
                        raise InputError(f"{at}: value {_show(value)} {problem}", file=source)
                else:
                    value = period.get("plugin")
                    owners = book.plugins_in(pname)
                    if not isinstance(value, str) or value not in owners:
                        raise InputError(f"{at}: plugin {_show(value)} is not one of "
                                         f"{', '.join(owners)}", file=source)
                rows.append(Period(start, until, value, note))
            target[pname] = rows
    return reform


def _show(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _number(value) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _bounds(value: float, bounds) -> Optional[str]:
    lo, hi = bounds.get("min"), bounds.get("max")
    if not math.isfinite(value):
        return "is not a finite number"
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        return (f"is outside the parameter's domain {_g(lo)}..{_g(hi)}")
    return None


def _g(bound) -> str:
    return "" if bound is None else f"{bound:g}"


def domain_problem(timeline: Timeline, value: Any) -> Optional[str]:
    """Why ``value`` is not in the domain of ``timeline`` (a parameter), or
    None.  A table must be shaped like the baseline's values: the same kind
    of container, keys the baseline uses (those every baseline value has are
    required), and numbers, flags or text where the baseline has them."""
    domain = timeline.domain or {}
    kind = domain.get("type")
    if kind in ("number", "integer"):
        if not _number(value):
            return f"must be {'a whole number' if kind == 'integer' else 'a number'}"
        if kind == "integer" and isinstance(value, float) and not value.is_integer():
            return "must be a whole number"
        return _bounds(value, domain)
    if kind == "boolean":
        return None if isinstance(value, bool) else "must be true or false"
    if kind == "choice":
        return None if isinstance(value, str) and value in domain["of"] else \
            f"must be one of {', '.join(map(str, domain['of']))}"
    if kind == "systems":
        if (not isinstance(value, list)
                or not all(isinstance(v, str) and v in SYSTEMS for v in value)
                or len(set(value)) != len(value)):
            return (f"must be a list (maybe empty) of distinct rating systems from "
                    f"{', '.join(SYSTEMS)}")
        return None
    if kind == "table":
        return _like(value, [e.value for e in timeline.entries], domain, "")
    return f"cannot be checked (domain type {kind!r})"


def _like(value, examples: list, domain, path: str) -> Optional[str]:
    """``value`` against the baseline ``examples`` at one place in a table."""
    at = f" at {path}" if path else ""
    if any(isinstance(e, dict) for e in examples):
        if not isinstance(value, dict):
            return f"must be a mapping{at}, as the baseline's is"
        dicts = [e for e in examples if isinstance(e, dict)]
        keys = {k for e in dicts for k in e}
        required = set.intersection(*(set(e) for e in dicts))
        for k in value:
            if k not in keys:
                return f"has key {_show(k)}{at} that no baseline value has (known: " \
                       f"{', '.join(sorted(map(str, keys)))})"
        missing = required - set(value)
        if missing:
            return f"lacks key(s) {', '.join(sorted(map(str, missing)))}{at}"
        for k, v in value.items():
            sub = domain
            if str(k) in domain.get("fields", {}):
                sub = {**domain, **domain["fields"][str(k)]}
            problem = _like(v, [e[k] for e in dicts if k in e], sub, f"{path}.{k}" if path else str(k))
            if problem:
                return problem
        return None
    if any(isinstance(e, list) for e in examples):
        if not isinstance(value, list) or not value:
            return f"must be a non-empty list{at}, as the baseline's is"
        items = [x for e in examples if isinstance(e, list) for x in e]
        for i, v in enumerate(value):
            problem = _like(v, items, domain, f"{path}[{i}]")
            if problem:
                return problem
        return None
    if any(isinstance(e, bool) for e in examples):
        return None if isinstance(value, bool) else f"must be true or false{at}"
    if any(_number(e) for e in examples):
        if not _number(value):
            return f"must be a number{at}"
        problem = _bounds(value, domain)
        return f"{problem}{at}" if problem else None
    if any(isinstance(e, str) for e in examples):
        return None if isinstance(value, str) else f"must be text{at}"
    return f"has a value{at} the baseline never has"


def load_reform(path) -> Reform:
    return reform_from_dict(read_data(path, MAX_FILE_BYTES, "reform file"), str(path))
