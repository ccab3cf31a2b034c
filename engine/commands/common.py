"""Options shared by the commands that rate: which rules, and event loading."""

from __future__ import annotations

import argparse
import datetime as _dt
import json
import sys

from uschess.errors import InputError
from uschess.io.eventfile import parse_date
from uschess.rating.pipeline import RatingOptions


def date_arg(text: str) -> _dt.date:
    try:
        return parse_date(text, "date")
    except InputError as err:
        raise argparse.ArgumentTypeError(str(err))


def reading_arg(text: str) -> tuple[str, str]:
    if "=" not in text:
        raise argparse.ArgumentTypeError(f"{text!r}: write CONFLICT=READING")
    cid, reading = text.split("=", 1)
    return cid.strip(), reading.strip()


def add_rules_options(p: argparse.ArgumentParser, *, rules_on=True) -> None:
    g = p.add_argument_group("which rules")
    if rules_on:
        g.add_argument("--rules-on", type=date_arg, metavar="DATE",
                       help="rate under the rules in force on DATE instead of each section's start")
    g.add_argument("--known-on", type=date_arg, metavar="DATE",
                   help="use only what was known on DATE (decided_on dates)")
    g.add_argument("--edition", metavar="DATE",
                   help="rate with one document's text as written (2001-02-22, 2017-04-24, "
                        "2020-06-11, 2020-09-02, 2025-07-26)")
    g.add_argument("--reading", type=reading_arg, action="append", default=[], metavar="CONFLICT=READING",
                   help="follow another reading of a recorded conflict (see 'uschess rules conflicts')")
    g.add_argument("--reform", metavar="FILE", help="a reform file (YAML) applied over the baseline")


def load_reform(path):
    if not path:
        return None
    from uschess.calendar.reform import load_reform as _load
    return _load(path)


def rating_options(args, trace=True) -> RatingOptions:
    """The rules options of the command line, checked before any file is read."""
    from uschess.calendar.rulebook import RuleBook
    book = RuleBook.load()
    book.check_readings(dict(args.reading))
    if args.edition is not None and args.edition not in book.editions:
        raise InputError(f"--edition: unknown edition {args.edition!r} "
                         f"(known: {', '.join(sorted(book.editions))})")
    return RatingOptions(rules_on=getattr(args, "rules_on", None), known_on=args.known_on,
                         readings=dict(args.reading), edition=args.edition,
                         reform=load_reform(getattr(args, "reform", None)), trace=trace)


def load_event_arg(path: str, players: str | None = None):
    """An event from any supported format (detected from the path)."""
    try:
        from uschess.io.formats.detect import load_event_any
    except ImportError:  # readers for other formats not installed
        from uschess.io.eventfile import load_event
        if players:
            raise InputError("--players needs the DBF/TRF readers", file=path)
        return load_event(path)
    return load_event_any(path, players_file=players)


def print_json(data) -> None:
    json.dump(data, sys.stdout, indent=2, allow_nan=False, default=str)
    sys.stdout.write("\n")
