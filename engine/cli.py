"""The ``uschess`` command.  Errors in the user's input print one line and
exit with status 2; nothing is half-written."""

from __future__ import annotations

import argparse
import importlib
import sys

from uschess import __version__
from uschess.errors import InputError

COMMANDS = ["rate", "rules", "compare", "audit", "fide-update", "replay", "player", "generate", "io", "serve"]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="uschess", description="Rate US Chess events under the rules in force on their dates.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMANDS:
        importlib.import_module(f"uschess.commands.{name.replace('-', '_')}").register(sub)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if args.command is None:
        parser.print_help()
        return 0
    try:
        return args.func(args) or 0
    except InputError as err:
        print(f"uschess: error: {err}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        print("uschess: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
