"""Run the shell examples of the README and the docs, and check what they print.

The convention, for every page (README.md, CONTRIBUTING.md, docs/**/*.md):

* A shell example is a fenced block of type ``console``.  A line that begins
  with ``$ `` is a command (a line ending in a backslash continues it); the
  lines below it, up to the next command, are what it prints (standard
  output and standard error, as a terminal shows them).  A command followed
  by no lines prints nothing.  A line that is exactly ``...`` stands for any
  number of lines, so a page may show the start and the end of a long output;
  ``...`` inside a line stands for any text there (a time, a rate).
* Every command must exit with status 0; an example of an error shows the
  status itself (``$ uschess rate bad.yaml; echo "exit status $?"``).
* The examples of a page run in order, in one temporary folder of their own
  (``fixtures/``, ``benchmarks/`` and ``rulesets/`` are there; the real
  pages, where present, are at ``../shared/data`` as beside the checkout).
* An HTML comment on the line just before a fence says more about it:
  ``<!-- example: file NAME -->`` writes the block that follows (any type)
  to NAME in that folder before the commands after it run;
  ``<!-- example: slow -->`` runs the block only in the full run
  (``USCHESS_HYPOTHESIS=ci``, as ``.ci/run`` runs the suite);
  ``<!-- example: shared-data -->`` runs it only where ``../shared/data`` is;
  ``<!-- example: skip REASON -->`` never runs it (a command that installs
  packages or starts a server), saying why.  Several are joined by commas.
* Shell examples in other fences (``sh``, ``bash``, ``shell``) are refused,
  so that none escapes the run.

``tests/docs/test_docs_examples.py`` runs every page.  When a change of the
program changes what an example prints on purpose, rewrite the pages'
expected output from a run::

    python docs/tools/docs_examples.py --update            # every page
    python docs/tools/docs_examples.py --update docs/guides/td.md
    python docs/tools/docs_examples.py --check             # what the test does

A ``...`` line keeps its place: the lines shown before and after it are
rewritten with as many lines of the new output.
"""

from __future__ import annotations

import argparse
import os
import re
import signal
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SHARED_DATA = ROOT.parent / "shared" / "data"
LINKED = ("fixtures", "benchmarks", "rulesets")
FLAGS = {"slow", "shared-data", "skip", "file"}
SHELL_FENCES = {"sh", "bash", "shell", "zsh", "shell-session"}
DIRECTIVE = re.compile(r"^<!--\s*example:\s*(.*?)\s*-->\s*$")
FENCE = re.compile(r"^(```+|~~~+)\s*([\w+-]*)")
WILDCARD = "..."
TIMEOUT = 900


@dataclass
class Command:
    """One ``$`` command of a console block and the lines shown below it
    (``first``/``last``: their line indexes in the page, ``last`` exclusive)."""

    text: str
    line: int
    expected: list[str]
    first: int
    last: int


@dataclass
class Block:
    """A fenced block that the run acts on: a console example or a file to write."""

    kind: str  # "console" or "file"
    line: int
    flags: dict[str, str] = field(default_factory=dict)
    commands: list[Command] = field(default_factory=list)
    content: str = ""


@dataclass
class Page:
    path: Path
    lines: list[str]
    blocks: list[Block]

    @property
    def name(self) -> str:
        return self.path.relative_to(ROOT).as_posix() if self.path.is_relative_to(ROOT) else str(self.path)


@dataclass
class Outcome:
    """What a page's run did: commands run, blocks not run (with why),
    failures (each a readable message), and each command's actual output."""

    ran: int = 0
    skipped: list[str] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)
    actual: dict[int, list[str]] = field(default_factory=dict)


class PageError(ValueError):
    """A page that breaks the convention (one line naming the page and line)."""


def pages(root: Path = ROOT) -> list[Path]:
    """Every page whose examples run: the README, CONTRIBUTING, CHANGELOG, docs/ and the fixtures' notes."""
    found = [root / name for name in ("README.md", "CONTRIBUTING.md", "CHANGELOG.md") if (root / name).exists()]
    return found + sorted((root / "docs").rglob("*.md")) + sorted((root / "fixtures").glob("*/README.md"))


def _flags(text: str, where: str) -> dict[str, str]:
    """The directives of a comment; ``skip`` and ``file`` take the rest of
    the comment as their reason or file name, so they come last."""
    out: dict[str, str] = {}
    rest = text.strip()
    while rest:
        word, _, after = rest.partition(" ")
        word = word.rstrip(",")
        if word not in FLAGS:
            raise PageError(f"{where}: unknown example directive {word!r} (one of {', '.join(sorted(FLAGS))})")
        if word in ("skip", "file"):
            if not after.strip():
                raise PageError(f"{where}: 'example: {word}' needs {'a reason' if word == 'skip' else 'a file name'}")
            out[word] = after.strip()
            break
        out[word] = ""
        rest = rest[len(word):].lstrip(" ,")
    return out


def _commands(body: list[tuple[int, str]], where: str) -> list[Command]:
    commands: list[Command] = []
    i = 0
    while i < len(body):
        index, text = body[i]
        if not text.startswith("$ "):
            raise PageError(f"{where}, line {index + 1}: output before any '$ ' command")
        cmd = text[2:]
        while cmd.endswith("\\") and i + 1 < len(body):
            i += 1
            cmd = cmd[:-1] + "\n" + body[i][1]
        i += 1
        first = i
        while i < len(body) and not body[i][1].startswith("$ "):
            i += 1
        expected = [t.rstrip() for _, t in body[first:i]]
        start = body[first][0] if first < len(body) else index + 1
        commands.append(Command(cmd, index, expected, start, start + len(expected)))
    return commands


def parse(path: Path) -> Page:
    """The blocks of a page that the run acts on, in order."""
    lines = path.read_text(encoding="utf-8").split("\n")
    blocks: list[Block] = []
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        fence, lang = m.group(1), m.group(2).lower()
        where = f"{path.name}, line {i + 1}"
        d = DIRECTIVE.match(lines[i - 1]) if i else None
        flags = _flags(d.group(1), where) if d else {}
        end = i + 1
        while end < len(lines) and not lines[end].startswith(fence):
            end += 1
        if end == len(lines):
            raise PageError(f"{where}: a fence that is never closed")
        body = list(enumerate(lines[i + 1:end], start=i + 1))
        if lang in SHELL_FENCES:
            raise PageError(f"{where}: a shell example must be a 'console' block ('$ ' before each command)")
        if "file" in flags:
            blocks.append(Block("file", i, flags, content="\n".join(t for _, t in body) + "\n"))
        elif lang == "console":
            blocks.append(Block("console", i, flags, _commands(body, where)))
        i = end + 1
    return Page(path, lines, blocks)


def _environment(project: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    env.pop("USCHESS_DB", None)
    env.update(PATH=f"{Path(sys.executable).parent}{os.pathsep}{env.get('PATH', '')}",
               COLUMNS="80", PYTHONUNBUFFERED="1", TERM="dumb", HOME=env.get("HOME", str(project)))
    return env


def _line_pattern(line: str) -> str:
    if line == WILDCARD:
        return "(?:.*\n)*?"
    return ".*?".join(re.escape(part) for part in line.split(WILDCARD)) + "\n"


def _matches(expected: list[str], actual: list[str]) -> bool:
    pattern = "".join(_line_pattern(line) for line in expected)
    return re.fullmatch(pattern, "".join(a + "\n" for a in actual)) is not None


def _kept(old: list[str], new: list[str]) -> list[str]:
    """``new``, where a line of ``old`` with a ``...`` inside it still
    matches the line that takes its place, that line of ``old``."""
    return [o if len(old) == len(new) and WILDCARD in o and o != WILDCARD and _matches([o], [n]) else n
            for o, n in zip(old + [""] * (len(new) - len(old)), new)]


def _skip_reason(flags: dict[str, str], shared: Path | None, full: bool) -> str | None:
    if "skip" in flags:
        return flags["skip"]
    if "shared-data" in flags and shared is None:
        return f"needs the real pages ({SHARED_DATA} is not beside the checkout)"
    if "slow" in flags and not full:
        return "slow: runs with USCHESS_HYPOTHESIS=ci (.ci/run)"
    return None


def _prepare(workdir: Path, shared: Path | None) -> Path:
    project = workdir / "project"
    project.mkdir(parents=True)
    for name in LINKED:
        (project / name).symlink_to(ROOT / name, target_is_directory=True)
    if shared is not None:
        (workdir / "shared").mkdir()
        (workdir / "shared" / "data").symlink_to(shared, target_is_directory=True)
    return project


def run_page(page: Page, workdir: Path, *, shared: Path | None, full: bool) -> Outcome:
    """Run a page's examples in order in ``workdir`` and compare their output."""
    groups: list[int] = []
    try:
        return _run_blocks(page, workdir, shared, full, groups)
    finally:
        _stop(groups)


def _run(text: str, project: Path, env: dict, groups: list[int]) -> subprocess.CompletedProcess:
    """One command in a process group of its own (recorded in ``groups``),
    so that what it leaves running (a server started with ``&``) is
    stopped when the page is done."""
    with subprocess.Popen(["bash", "-c", text], cwd=project, env=env, stdin=subprocess.DEVNULL,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True) as proc:
        groups.append(proc.pid)
        try:
            out, _ = proc.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            _stop([proc.pid])
            proc.communicate()
            raise
        return subprocess.CompletedProcess(proc.args, proc.returncode, out)


def _stop(groups: list[int]) -> None:
    for group in groups:
        try:
            os.killpg(group, signal.SIGTERM)
        except (ProcessLookupError, PermissionError):
            pass


def _run_blocks(page: Page, workdir: Path, shared: Path | None, full: bool, groups: list[int]) -> Outcome:
    out = Outcome()
    project = _prepare(workdir, shared)
    env = _environment(project)
    for block in page.blocks:
        reason = _skip_reason(block.flags, shared, full)
        where = f"{page.name}, line {block.line + 1}"
        if reason:
            out.skipped.append(f"{where}: {reason}")
            continue
        if block.kind == "file":
            target = project / block.flags["file"]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(block.content, encoding="utf-8")
            continue
        for cmd in block.commands:
            out.ran += 1
            try:
                proc = _run(cmd.text, project, env, groups)
            except subprocess.TimeoutExpired:
                out.failures.append(f"{page.name}, line {cmd.line + 1}: `{cmd.text}` ran over {TIMEOUT} s")
                continue
            text = proc.stdout.decode("utf-8", "replace").replace(str(workdir), "/tmp/example")
            actual = [line.rstrip() for line in text.rstrip("\n").split("\n")] if text.strip() else []
            if proc.returncode != 0:
                out.failures.append(f"{page.name}, line {cmd.line + 1}: `{cmd.text}` exited with status "
                                    f"{proc.returncode}:\n" + "\n".join(actual[-20:]))
                continue
            out.actual[cmd.line] = actual
            if not _matches(cmd.expected, actual):
                out.failures.append(_difference(page, cmd, actual))
    return out


def _difference(page: Page, cmd: Command, actual: list[str]) -> str:
    import difflib
    diff = difflib.unified_diff(cmd.expected, actual, "shown on the page", "printed", lineterm="", n=2)
    return (f"{page.name}, line {cmd.line + 1}: `{cmd.text}` prints other than the page shows "
            f"(if the change is meant: python docs/tools/docs_examples.py --update {page.name}):\n" + "\n".join(diff))


def _rewritten(expected: list[str], actual: list[str]) -> list[str]:
    if WILDCARD not in expected:
        return _kept(expected, actual) if len(expected) == len(actual) else actual
    at = expected.index(WILDCARD)
    head, tail = expected[:at], expected[at + 1:]
    if len(head) + len(tail) >= len(actual):
        return actual
    new_tail = actual[len(actual) - len(tail):] if tail else []
    return _kept(head, actual[:len(head)]) + [WILDCARD] + _kept(tail, new_tail)


def update(page: Page, outcome: Outcome) -> bool:
    """Write the output of the commands that ran into the page; True if it changed."""
    lines = list(page.lines)
    for block in reversed(page.blocks):
        for cmd in reversed(block.commands):
            if cmd.line in outcome.actual:
                lines[cmd.first:cmd.last] = _rewritten(cmd.expected, outcome.actual[cmd.line])
    if lines == page.lines:
        return False
    page.path.write_text("\n".join(lines), encoding="utf-8")
    return True


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description="Run the README's and the docs' shell examples.")
    ap.add_argument("pages", nargs="*", type=Path, help="pages to run (default: every page)")
    mode = ap.add_mutually_exclusive_group()
    mode.add_argument("--update", action="store_true", help="write what the commands print into the pages")
    mode.add_argument("--check", action="store_true", help="compare only (the default)")
    ap.add_argument("--full", action="store_true", help="run the slow examples too")
    ap.add_argument("--shared", type=Path, default=SHARED_DATA,
                    help=f"the folder of the real pages (default {SHARED_DATA})")
    args = ap.parse_args(argv)
    shared = args.shared.resolve() if args.shared.is_dir() else None
    status = 0
    for path in [p.resolve() for p in args.pages] or pages():
        try:
            page = parse(path)
        except (PageError, OSError) as err:
            print(f"docs_examples: {err}", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory(prefix="uschess-docs-") as tmp:
            outcome = run_page(page, Path(tmp), shared=shared, full=args.full)
        if args.update:
            changed = update(page, outcome)
            failures = [f for f in outcome.failures if "exited with status" in f or "ran over" in f]
        else:
            changed, failures = False, outcome.failures
        print(f"{page.name}: {outcome.ran} commands, {len(outcome.skipped)} blocks not run"
              f"{', rewritten' if changed else ''}", file=sys.stderr)
        for message in failures:
            print(message, file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
