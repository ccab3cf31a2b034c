"""Every command's ``-h`` ends with one or two examples, and every example
runs as written (from a folder holding the repository's ``fixtures``), so
that an example cannot go stale."""

from __future__ import annotations

import shlex
from pathlib import Path

import pytest

from uschess.cli import _leaf_parsers, build_parser, main

ROOT = Path(__file__).resolve().parents[2]
#: Examples that need what another command's example makes, after it.
FIRST = ("uschess generate", "uschess replay")
#: Examples that would not end on their own (a server): parsed, not run.
NOT_RUN = ("uschess serve",)
#: Examples that start a cluster (seconds): run in CI only (slow).
SLOW = ("uschess sweep",)


def examples_of(parser) -> list[str]:
    """The example command lines that end the parser's help."""
    text = parser.format_help()
    head, _, block = text.rpartition("\nexamples:\n")
    assert head, f"{parser.prog}: -h has no examples"
    lines = block.rstrip("\n").split("\n")
    assert all(line.startswith("  uschess ") for line in lines), f"{parser.prog}: {block!r}"
    return [line.strip() for line in lines]


def all_examples() -> dict:
    return {leaf.prog: examples_of(leaf) for leaf in _leaf_parsers(build_parser())}


def test_every_command_help_ends_with_one_or_two_of_its_own_examples():
    found = all_examples()
    assert len(found) >= 16  # every command and each 'rules' subcommand
    for prog, lines in found.items():
        assert 1 <= len(lines) <= 2, prog
        assert all(line == prog or line.startswith(prog + " ") for line in lines), (prog, lines)


def run_examples(lines, tmp_path, monkeypatch, capsys) -> None:
    (tmp_path / "fixtures").symlink_to(ROOT / "fixtures")
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("USCHESS_DB", raising=False)
    for line in sorted(lines, key=lambda line: not line.startswith(FIRST)):
        argv = shlex.split(line)[1:]
        if line.startswith(NOT_RUN):
            assert build_parser().parse_args(argv).func is not None
            continue
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 0, f"{line}: exit status {code}: {err}"


@pytest.mark.slow
def test_every_example_runs_as_written(tmp_path, monkeypatch, capsys):
    lines = [line for prog_lines in all_examples().values() for line in prog_lines]
    run_examples([line for line in lines if not line.startswith(SLOW)], tmp_path, monkeypatch,
                 capsys)


@pytest.mark.slow
def test_every_cluster_example_runs_as_written(tmp_path, monkeypatch, capsys):
    lines = [line for prog_lines in all_examples().values() for line in prog_lines]
    run_examples([line for line in lines if line.startswith(SLOW + FIRST)], tmp_path,
                 monkeypatch, capsys)
