"""The ``uschess`` command.

Exit status: 0 when the command did its work; 1 when ``--strict`` finds a
difference (an audit's unreproduced rating, a comparison's changed rating);
2 for bad input or usage (one line naming the file, section, player and
round; nothing half-written); 130 when interrupted."""

from __future__ import annotations

import argparse
import gc
import importlib
import os
import sys

import uschess
from uschess.errors import InputError

#: Each subcommand and the module of uschess.commands that registers it.
COMMANDS = {"rate": "rate", "rules": "rules", "compare": "compare", "audit": "audit",
            "fide-update": "fide_update", "replay": "replay", "player": "player",
            "generate": "generate", "import": "io", "export": "io", "evaluate": "evaluate",
            "sweep": "sweep", "serve": "serve"}

EPILOG = """\
conventions of every command:
  -            as an input file: standard input; as an output file: standard output
  --force      replace an output file that exists (never replaced otherwise)
  -q, -v       quiet (results and errors only) or verbose, before or after COMMAND
  --json       print the result as JSON on standard output
  USCHESS_DB   the ratings store used when --db is not given
  USCHESS_CACHE_DIR  where the compiled rule book is kept (default
               $XDG_CACHE_HOME/uschess or ~/.cache/uschess; empty: none)

exit status:
  0    done
  1    --strict found a difference (audit: a rating not reproduced; compare: a
       rating changed)
  2    bad input or usage: one line names the file, section, player and round
  130  interrupted (Ctrl-C); a replay says how to resume
"""


def _leaf_parsers(parser: argparse.ArgumentParser):
    """Every parser below ``parser`` that runs a command."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in dict.fromkeys(action.choices.values()):
                if any(isinstance(a, argparse._SubParsersAction) for a in child._actions):
                    yield from _leaf_parsers(child)
                else:
                    yield child


class _Version(argparse.Action):
    """--version, reading the installed version only when asked, with the
    code that rates and the code of the audit's solvers (the compiled kernel
    or the pure-Python reference)."""

    def __call__(self, parser, namespace, values, option_string=None):
        from uschess.apps.audit.section_model import SOLVER_STATUS
        from uschess.rating.section import kernel_status

        print(f"{parser.prog} {uschess.__version__} ({kernel_status()}; solver: {SOLVER_STATUS})")
        parser.exit()


def _command_in(argv) -> str | None:
    """The subcommand ``argv`` asks for (the first word that names one)."""
    for word in argv:
        if word in COMMANDS:
            return word
        if not word.startswith("-"):
            return None
    return None


class _Parser(argparse.ArgumentParser):
    """A parser whose usage errors are one line, as every other error is
    (the full usage is one ``--help`` away); subcommands' parsers are of
    the same class."""

    def error(self, message: str):
        self.exit(2, f"{self.prog}: error: {' '.join(message.split())} "
                     f"(see '{self.prog} --help')\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or of ``only`` (then only its module
    is imported: a command starts without loading the others)."""
    from uschess.commands.common import add_console_options
    parser = _Parser(
        prog="uschess", description="Rate US Chess events under the rules in force on their dates.",
        epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action=_Version, nargs=0, help="print the version and exit")
    add_console_options(parser, top=True)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    modules = [COMMANDS[only]] if only else list(dict.fromkeys(COMMANDS.values()))
    for module in modules:
        importlib.import_module(f"uschess.commands.{module}").register(sub)
    for leaf in _leaf_parsers(parser):
        add_console_options(leaf)
    return parser


def _say_rated_by(args) -> None:
    """With ``-v``: which body rated the command's sections (the compiled
    kernel or the Python body, and why it fell back)."""
    section = sys.modules.get("uschess.rating.section")
    if section is None or not getattr(args, "verbose", False) or getattr(args, "quiet", False):
        return
    line = section.rated_by_line()
    if line:
        print(f"uschess: {line}", file=sys.stderr)


def main(argv=None) -> int:
    """Run the command ``argv`` (default: this process's command line).

    Run as the process's own command (``argv`` None: the ``uschess`` script,
    ``python -m uschess``), the garbage collector is kept out of the way of
    a short process: off while the command's modules load (they allocate
    thousands of objects that live to the end, and would trigger collections
    that free none of them), then those objects are frozen (no later
    collection walks them again), and at the end every object left is
    frozen, so the collection at the interpreter's exit has nothing to walk.
    Everything is still freed and flushed at exit as before."""
    from uschess.commands.common import release_stdin, stdin_named
    closed = _closed_streams()
    if closed:
        print(f"uschess: error: {closed} is closed: run the command with it open "
              "(to a file or /dev/null)", file=sys.stderr)
        return 2
    whole = argv is None
    if whole:
        gc.disable()
    argv = sys.argv[1:] if argv is None else list(argv)
    try:
        parser = build_parser(_command_in(argv))
        args = parser.parse_args(argv)
    finally:
        if whole:
            gc.freeze()
            gc.enable()
    if args.command is None:
        parser.print_help()
        return 0
    try:
        code = args.func(args) or 0
        sys.stdout.flush()  # (what is still buffered fails here, not at exit)
        _say_rated_by(args)
        return code
    except InputError as err:
        print(f"uschess: error: {stdin_named(str(err))}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except OSError as err:  # every input's OSError is an InputError by now: the output's
        print(f"uschess: error: cannot write the output: {err.strerror or err}",
              file=sys.stderr)
        return 2
    except KeyboardInterrupt as err:
        print(f"uschess: interrupted{(': ' + str(err)) if str(err) else ''}", file=sys.stderr)
        return 130
    finally:
        release_stdin()
        if whole:
            gc.freeze()


def _closed_streams() -> str | None:
    """The standard stream the process was started without (its descriptor
    closed, ``>&-``), if any: standard error gets /dev/null (nothing can be
    said then but the exit status); standard output or input closed is
    named, since a command's results or input would be lost silently."""
    if sys.stderr is None:
        sys.stderr = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - for the process
    if sys.stdout is None:
        return "standard output"
    if sys.stdin is None:
        return "standard input"
    return None


if __name__ == "__main__":
    sys.exit(main())
