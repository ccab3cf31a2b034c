"""``uschess rules``: what is in force, how it changed, what differs."""

from __future__ import annotations

import json

from uschess.errors import RuleError
from uschess.calendar.rulebook import RuleBook
from uschess.commands.common import (add_examples, add_rules_options, date_arg, print_json,
                                     readings_given)


def register(sub) -> None:
    p = sub.add_parser("rules", help="inspect the dated rules and their sources",
                       description="What was in force on a date, how each rule changed, what "
                                   "differs between two dates, where the documents disagree.")
    rs = p.add_subparsers(dest="rules_command", required=True, metavar="WHAT")
    show = rs.add_parser("show", help="every parameter and plugin in force on a date",
                         description="Every parameter and plugin in force on a date, with the "
                                     "document and section each comes from.")
    show.add_argument("--on", type=date_arg, default=None, metavar="DATE",
                      help="the date (default: today)")
    show.add_argument("--json", action="store_true",
                      help='print {"on", "fingerprint", "parameters", "plugins", "warnings", ...}')
    add_rules_options(show, rules_on=False)
    add_examples(show,
                 "uschess rules show --on 2017-06-01")
    show.set_defaults(func=run_show)
    tl = rs.add_parser("timeline", help="how a parameter or plugin slot changed over time",
                       description="Every dated value of a parameter or plugin slot, with its "
                                   "source, conflict, decision date and gaps.")
    tl.add_argument("name", nargs="?", help="parameter or plugin slot (all when omitted)")
    tl.add_argument("--json", action="store_true",
                    help='print {NAME: {"description", "kind", "values": [...]}}')
    add_examples(tl,
                 "uschess rules timeline bonus_multiplier")
    tl.set_defaults(func=run_timeline)
    diff = rs.add_parser("diff", help="what differs between the rules of two dates",
                         description="Every parameter and plugin whose value differs between "
                                     "the rules in force on DATE1 and on DATE2.")
    diff.add_argument("date1", type=date_arg, metavar="DATE1", help="the first date (side a)")
    diff.add_argument("date2", type=date_arg, metavar="DATE2", help="the second date (side b)")
    diff.add_argument("--json", action="store_true",
                      help='print {"a", "b", "changes": [{name, kind, a, b, source_b}]}')
    add_rules_options(diff, rules_on=False)
    add_examples(diff,
                 "uschess rules diff 2016-01-01 2017-06-01")
    diff.set_defaults(func=run_diff)
    cf = rs.add_parser("conflicts", help="the recorded conflicts between documents and their readings",
                       description="The recorded disagreements between the documents, each "
                                   "with its readings; * marks the default.")
    cf.add_argument("--json", action="store_true",
                    help='print {CONFLICT: {"description", "default", "readings"}}')
    add_examples(cf,
                 "uschess rules conflicts")
    cf.set_defaults(func=run_conflicts)


def _rules(args, on):
    from uschess.commands.common import load_reform
    return RuleBook.load().rules(on, known_on=args.known_on, readings=readings_given(args),
                                 edition=args.edition, reform=load_reform(args.reform))


def _cite(entry: dict) -> str:
    from uschess.calendar.timeline import Source
    return Source(str(entry["source"]), str(entry["section"])).cite() if entry.get("source") else "-"


def _plugin_titles() -> dict:
    """Each plugin's title (what it does, e.g. that the K exception needs a
    dual-rated section), by plugin name."""
    return {name: plugin.title for name, plugin in RuleBook.load().registered.items()}


def _fmt(value) -> str:
    return json.dumps(value, default=str) if isinstance(value, (dict, list)) else str(value)


def run_show(args) -> int:
    import datetime as _dt
    rules = _rules(args, args.on or _dt.date.today())
    data = rules.as_dict()
    if args.json:
        print_json(data)
        return 0
    print(f"rules in force on {data['on']}" + (f" as known on {data['known_on']}" if data["known_on"] else "")
          + (f", edition {data['edition']}" if data["edition"] else "") + f"  (fingerprint {data['fingerprint']})")
    print("\nplugins:")
    titles = _plugin_titles()
    for pl in data["plugins"]:
        print(f"  {pl['slot']:<11} {pl['name']:<24} from {pl['effective'] or '-':<10}  {_cite(pl)}")
        if titles.get(pl["name"]):
            print(f"  {'':<11} {titles[pl['name']]}")
    print("\nparameters:")
    for name, v in data["parameters"].items():
        print(f"  {name:<22} = {_fmt(v['value'])}")
        print(f"  {'':<22}   from {v['effective'] or '-'}  {_cite(v)} ({v['origin']})")
    if data["warnings"]:
        print("\nconflicts and gaps:")
        for w in data["warnings"]:
            print(f"  ! {w}")
    return 0


def run_timeline(args) -> int:
    book = RuleBook.load()
    timelines = selected_timelines(args.name)
    if args.json:
        print_json(timeline_data(timelines))
        return 0
    titles = _plugin_titles()
    for name, t in timelines.items():
        kind = f"plugin slot, hook {book.slot_hooks[name]}" if t.kind == "plugin" else t.kind
        print(f"{name} ({kind}): {t.description}")
        for e in t.entries:
            extra = []
            if e.conflict:
                extra.append(f"conflict {e.conflict}, reading {e.reading}")
            if e.decided_on:
                extra.append(f"decided {e.decided_on.isoformat()}" + (" (retroactive correction)" if e.retroactive else ""))
            if e.gap:
                extra.append(f"gap: {e.gap}")
            print(f"  {e.effective.isoformat()}  {_fmt(e.value)}  [{e.source.cite()}]"
                  + (f"  ({'; '.join(extra)})" if extra else ""))
            if t.kind == "plugin" and titles.get(e.value):
                print(f"  {'':<10}  {titles[e.value]}")
        print()
    return 0


def run_diff(args) -> int:
    a, b = _rules(args, args.date1), _rules(args, args.date2)
    data = diff_data(a, b, args.date1, args.date2)
    changes = data["changes"]
    if args.json:
        print_json(data)
        return 0
    if not changes:
        print(f"no difference between the rules of {args.date1} and {args.date2}")
    for c in changes:
        print(f"{c['kind']} {c['name']}: {_fmt(c['a'])} -> {_fmt(c['b'])}  [{c['source_b']}]")
    return 0


def run_conflicts(args) -> int:
    book = RuleBook.load()
    if args.json:
        print_json(conflicts_data(book))
        return 0
    for c in book.conflicts.values():
        print(f"{c.id}: {c.description}")
        for name, text in c.readings.items():
            print(f"  {'*' if name == c.default else ' '} {name}: {text}")
    return 0


# The JSON of the subcommands, built by functions that the web API shares.

def selected_timelines(name=None) -> dict:
    """Every parameter and plugin slot by name, or only ``name`` (a
    :class:`RuleError` listing the known names when there is none)."""
    book = RuleBook.load()
    timelines = {**book.timelines, **book.slots}
    if name:
        if name not in timelines:
            raise RuleError(f"no parameter or plugin slot {name!r} "
                            f"(known: {', '.join(sorted(timelines))})")
        timelines = {name: timelines[name]}
    return timelines


def timeline_data(timelines: dict) -> dict:
    """What ``rules timeline --json`` prints (a plugin slot with its hook)."""
    book = RuleBook.load()
    return {name: {"description": t.description, "kind": t.kind,
                   **({"hook": book.slot_hooks[name]} if t.kind == "plugin" else {}),
                   "values": [e.as_dict() for e in t.entries]} for name, t in timelines.items()}


def diff_data(a, b, date1, date2) -> dict:
    """What ``rules diff --json`` prints: every parameter and plugin whose
    value differs between the rules ``a`` (of ``date1``) and ``b``."""
    changes = []
    for group_a, group_b, kind in ((a.params, b.params, "parameter"), (a.plugins, b.plugins, "plugin")):
        for name in sorted(set(group_a) | set(group_b)):
            va = group_a[name].value if name in group_a else None
            vb = group_b[name].value if name in group_b else None
            if va != vb:
                src = group_b[name].entry.source.cite() if name in group_b and group_b[name].entry else None
                changes.append({"name": name, "kind": kind, "a": va, "b": vb, "source_b": src})
    return {"a": date1.isoformat(), "b": date2.isoformat(), "changes": changes}


def conflicts_data(book) -> dict:
    """What ``rules conflicts --json`` prints."""
    return {c.id: {"description": c.description, "default": c.default, "readings": c.readings}
            for c in book.conflicts.values()}
