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

from pathlib import Path

from uschess.errors import InputError
from uschess.io.eventfile import parse_date, read_data
from uschess.calendar.rulebook import Reform, RuleBook


def reform_from_dict(raw, source=None, book: RuleBook | None = None) -> Reform:
    book = book or RuleBook.load()
    if not isinstance(raw, dict):
        raise InputError("a reform file is a mapping with 'name', 'parameters' and/or 'plugins'", file=source)
    name = str(raw.get("name") or (Path(source).stem if source else "reform"))
    unknown = set(raw) - {"name", "description", "parameters", "plugins"}
    if unknown:
        raise InputError(f"unknown key(s) {sorted(unknown)}", file=source)
    reform = Reform(name)
    for key, known, target in (("parameters", book.timelines, reform.parameters),
                               ("plugins", book.slots, reform.plugins)):
        for pname, periods in (raw.get(key) or {}).items():
            where = f"{key}.{pname}"
            if pname not in known:
                raise InputError(f"{where}: no such {'parameter' if key == 'parameters' else 'plugin slot'} "
                                 f"(known: {', '.join(sorted(known))})", file=source)
            if not isinstance(periods, list) or not periods:
                raise InputError(f"{where}: a list of periods {{from, until?, value|plugin}}", file=source)
            rows = []
            for i, period in enumerate(periods, start=1):
                if not isinstance(period, dict) or "from" not in period:
                    raise InputError(f"{where} period {i}: needs 'from'", file=source)
                try:
                    start = parse_date(period["from"], "from")
                    until = parse_date(period["until"], "until") if period.get("until") else None
                except InputError as err:
                    raise err.located(file=source, field=f"{where} period {i}")
                if until is not None and until <= start:
                    raise InputError(f"{where} period {i}: 'until' {until} is not after 'from' {start}", file=source)
                if key == "parameters":
                    if "value" not in period:
                        raise InputError(f"{where} period {i}: needs 'value'", file=source)
                    value = period["value"]
                    base = known[pname].entries[-1].value
                    if type(base) in (int, float) and not (isinstance(value, (int, float)) and not isinstance(value, bool)):
                        raise InputError(f"{where} period {i}: value {value!r} must be a number", file=source)
                else:
                    value = period.get("plugin")
                    owners = book.plugins_in(pname)
                    if value not in owners:
                        raise InputError(f"{where} period {i}: plugin {value!r} is not one of "
                                         f"{', '.join(owners)}", file=source)
                rows.append((start, until, value, period.get("note")))
            target[pname] = rows
    return reform


def load_reform(path) -> Reform:
    return reform_from_dict(read_data(path), str(path))
