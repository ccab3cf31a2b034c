"""The reference pages of the docs, generated from the code at build time.

Where the code is the source, the page is made from it, never kept by hand:
every command and option from the argument parsers (``uschess.cli.build_parser``),
the event file's fields from ``engine/event.schema.json``, the rules'
timelines, conflicts and the project's readings from ``rulesets/``.
``docs/tools/docs_hooks.py`` adds them to the site when MkDocs builds it;
``python docs/tools/docs_reference.py DIR`` writes them to DIR to read them.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
NOTE = ("<!-- Generated from {what} by docs/tools/docs_reference.py when the docs are built; "
        "edit the source, not this page. -->\n\n")


def _cell(text) -> str:
    return " ".join(str(text).split()).replace("|", "\\|") if text not in (None, "") else ""


def _code(text) -> str:
    return f"`{text}`" if "`" not in str(text) else f"``{text}``"


# ---------------------------------------------------------------- commands

def _leaves(parser: argparse.ArgumentParser, words: tuple[str, ...]):
    """(words, parser) of every command, subcommands in their order."""
    yield words, parser
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                if child.prog.split()[-1] == name:
                    yield from _leaves(child, words + (name,))


def _option_row(action: argparse.Action) -> str:
    if action.help == argparse.SUPPRESS:
        return ""
    if action.option_strings:
        metavar = ""
        if action.nargs != 0:
            metavar = action.metavar or action.dest.upper()
            metavar = " " + (" ".join(metavar) if isinstance(metavar, tuple) else metavar)
        name = ", ".join(_code(o + metavar) for o in action.option_strings)
    else:
        name = _code(action.metavar or action.dest)
    text = _cell(action.help or "")
    if action.default not in (None, False, argparse.SUPPRESS, [], "") and action.option_strings \
            and "default" not in text:
        text += f" (default: {_code(action.default)})"
    if action.choices and not isinstance(action, argparse._SubParsersAction):
        text += " (one of " + ", ".join(_code(c) for c in action.choices) + ")"
    return f"| {name} | {text} |"


def commands_page() -> str:
    from uschess.cli import build_parser
    parser = build_parser()
    out = [NOTE.format(what="the command-line parsers (uschess.cli.build_parser)"), "# Commands\n",
           "Every command and option of `uschess`, as `uschess COMMAND -h` prints them. "
           "The conventions every command shares are in [Conventions](conventions.md).\n"]
    for words, p in _leaves(parser, ("uschess",)):
        title = " ".join(words)
        level = "#" * min(len(words) + 1, 4)
        out.append(f"{level} {title}\n")
        if p.description:
            out.append(_cell(p.description) + "\n")
        usage = " ".join(p.format_usage().replace("usage: ", "", 1).split())
        out.append(f"```text\n{usage}\n```\n")
        rows = [r for r in (_option_row(a) for a in p._actions
                            if not isinstance(a, (argparse._HelpAction, argparse._SubParsersAction))) if r]
        subs = [a for a in p._actions if isinstance(a, argparse._SubParsersAction)]
        for sub in subs:
            names = [ch.dest for ch in sub._choices_actions]
            out.append("| command | what it does |\n|---|---|")
            out.extend(f"| [{_code(title + ' ' + ch.dest)}](#{_anchor(title + ' ' + ch.dest)}) | "
                       f"{_cell(ch.help)} |" for ch in sub._choices_actions if ch.dest in names)
            out.append("")
        if rows:
            out.append("| option | meaning |\n|---|---|")
            out.extend(rows)
            out.append("")
        if p.epilog and words != ("uschess",):
            out.append(f"```text\n{p.epilog.strip()}\n```\n")
    return "\n".join(out)


def _anchor(title: str) -> str:
    """The id MkDocs gives a heading (the toc extension's slugify)."""
    return re.sub(r"[-\s]+", "-", re.sub(r"[^\w\s-]", "", title.lower()).strip())


# -------------------------------------------------------------- event file

def _type(node: dict) -> str:
    if "anyOf" in node:
        return " or ".join(dict.fromkeys(_type(alt) for alt in node["anyOf"]))
    t = node.get("type", "")
    kinds = t if isinstance(t, list) else [t] if t else []
    if "enum" in node:
        return "one of " + ", ".join(_code(v) for v in node["enum"])
    detail = node.get("format") or ("pattern " + _code(node["pattern"]) if "pattern" in node else "")
    return " or ".join(kinds) + (f" ({detail})" if detail else "")


def _fields(node: dict, path: str, required: bool, rows: list):
    if path:
        rows.append(f"| {_code(path)} | {_type(node)} | {'yes' if required else ''} | "
                    f"{_cell(node.get('description', ''))} |")
    props = node.get("properties", {})
    need = set(node.get("required", []))
    for name, child in props.items():
        if path.endswith(".ratings") and name != "OTBR" and child == props.get("OTBR"):
            continue
        key = f"{path}.{name}" if path else name
        if path.endswith(".ratings") and name == "OTBR":
            key = f"{path}.SYSTEM"
        _fields(child, key, name in need, rows)
    if isinstance(node.get("items"), dict):
        _fields(node["items"], f"{path}[]", False, rows) if node["items"].get("properties") else None


def event_file_page() -> str:
    schema = json.loads((ROOT / "engine" / "event.schema.json").read_text(encoding="utf-8"))
    rows: list[str] = []
    _fields(schema, "", True, rows)
    systems = [s for s in schema["properties"]["sections"]["items"]["properties"]["players"]["items"]
               ["properties"]["ratings"]["properties"]]
    return "\n".join([
        NOTE.format(what="engine/event.schema.json"), "# Event file fields\n",
        _cell(schema.get("description", "")) + " The reader refuses a key the schema does not list, "
        "naming the key and the one it may have been meant as.\n",
        f"`SYSTEM` is one of {', '.join(_code(s) for s in systems)}; a system a player has no "
        "record in is absent (unrated there). The [TD guide](../guides/td.md) shows a whole file.\n",
        "| field | type | required | meaning |\n|---|---|---|---|", *rows, ""])


# ------------------------------------------------------------------- rules

def _value(value) -> str:
    text = json.dumps(value, default=str) if isinstance(value, (dict, list)) else str(value)
    return _code(text if len(text) <= 80 else text[:77] + "...")


def _entry_notes(e: dict, defaults: dict) -> str:
    notes = []
    if e.get("conflict"):
        default = defaults.get(e["conflict"]) == e.get("reading")
        notes.append(f"[{e['conflict']}](#{e['conflict']}): {e['reading']}" + (" (default)" if default else ""))
    if e.get("decided_on"):
        notes.append(f"decided {e['decided_on']}")
    if e.get("gap"):
        notes.append("gap: " + _cell(e["gap"]))
    if e.get("note"):
        notes.append(_cell(e["note"]))
    return "; ".join(notes)


def rules_page() -> str:
    from uschess.calendar.rulebook import RuleBook
    from uschess.commands.rules import conflicts_data, selected_timelines, timeline_data
    book = RuleBook.load()
    conflicts = conflicts_data(book)
    defaults = {cid: c["default"] for cid, c in conflicts.items()}
    data = timeline_data(selected_timelines())
    out = [NOTE.format(what="rulesets/"), "# Rules, conflicts and readings\n",
           "Everything below is read from `rulesets/` when the docs are built: the changes by date "
           "under the default readings, every parameter's and plugin slot's timeline with its "
           "sources, the conflicts between the documents, and the project's readings. "
           "`uschess rules timeline`, `uschess rules conflicts` and `uschess rules show --on DATE` "
           "print the same from the installed rules.\n",
           "## Changes by date (default readings)\n",
           "Every change of a rule's value after its first, under the default reading of each "
           "conflict (a value decided after it took effect says when: `--known-on` before that "
           "date rates without it); "
           "the values in force from 2001 are in each rule's [timeline](#timelines).\n",
           "| date | rule | value | source | notes |\n|---|---|---|---|---|"]
    changes = []
    for name, t in data.items():
        followed = [e for e in t["values"]
                    if not e.get("conflict") or defaults.get(e["conflict"]) == e.get("reading")]
        changes += [(e["effective"], name, e) for before, e in zip(followed, followed[1:])
                    if e["value"] != before["value"] or e.get("decided_on")]
    for date, name, e in sorted(changes, key=lambda c: (c[0], c[1])):
        notes = "; ".join(filter(None, [f"decided {e['decided_on']}" if e.get("decided_on") else "",
                                        "gap: " + _cell(e["gap"]) if e.get("gap") else ""]))
        out.append(f"| {date} | [{name}](#{_anchor(name)}) | {_value(e['value'])} | "
                   f"{_cell(e.get('source', ''))} | {notes} |")
    out.append("\n## Conflicts between the documents\n")
    for cid, c in conflicts.items():
        out.append(f"### {cid}\n\n{_cell(c['description'])}\n")
        out.extend(f"- `{r}`{' (default)' if r == c['default'] else ''}: {_cell(text)}"
                   for r, text in c["readings"].items())
        out.append(f"\nChoose another reading with `--reading {cid}=READING`.\n")
    out.append("## The project's readings\n")
    readings = yaml.safe_load((ROOT / "rulesets" / "readings" / "project.yaml").read_text(encoding="utf-8"))
    out.append("Where the documents are silent or unclear, the engine follows these readings; "
               "the rule files cite them as *project reading N*.\n")
    for number, r in readings["readings"].items():
        out.append(f"### Reading {number}: {r['title']}\n\n{_cell(r['text'])}\n")
        if r.get("evidence"):
            out.append(f"Evidence: `{r['evidence']}`.\n")
    out.append("### Also\n")
    out.extend(f"- {_cell(text)}" for text in readings.get("also", []))
    out.append("\n## Timelines\n")
    for name, t in data.items():
        kind = "plugin slot" if t["kind"] == "plugin" else "parameter"
        out.append(f"### {name}\n\n{_cell(t['description'])} ({kind}"
                   + (f", hook `{t['hook']}`" if t.get("hook") else "") + ")\n")
        out.append("| from | value | source | notes |\n|---|---|---|---|")
        out.extend(f"| {e['effective']} | {_value(e['value'])} | {_cell(e.get('source', ''))} | "
                   f"{_entry_notes(e, defaults)} |" for e in t["values"])
        out.append("")
    return "\n".join(out)


PAGES = {"reference/commands.md": commands_page, "reference/event-file.md": event_file_page,
         "reference/rules.md": rules_page}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Write the generated reference pages to a folder.")
    ap.add_argument("folder", type=Path)
    args = ap.parse_args(argv)
    for name, make in PAGES.items():
        target = args.folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(make(), encoding="utf-8")
        print(f"wrote {target}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
