"""``uschess rate EVENT``: rate every section in every system it falls in."""

from __future__ import annotations

from uschess.errors import InputError
from uschess.rating.pipeline import rate_event
from uschess.apps.report import explain_player, explain_player_data, format_event
from uschess.commands.common import (Console, add_examples, add_member_data_options,
                                     add_rules_options, load_event_input, print_json,
                                     rating_options)


def register(sub) -> None:
    p = sub.add_parser("rate", help="rate an event (YAML/JSON event file, DBF report directory, TRF)",
                       description="Rate every section of an event under the rules in force on "
                                   "each section's start date.")
    p.add_argument("event", help="event file (.yaml/.yml/.json), DBF directory or .trf; "
                                 "- for standard input")
    add_member_data_options(p)
    p.add_argument("--json", action="store_true",
                   help="print the full results as JSON (with --explain: the explanation)")
    p.add_argument("--explain", metavar="ID", help="show one player's calculation step by step")
    p.add_argument("--grant-floor-requests", action="store_true",
                   help="matches (sec. 7): grant every request to lower a floor")
    add_rules_options(p)
    add_examples(p,
                 "uschess rate fixtures/events/wfcc15.yaml --explain 32207444",
                 "uschess rate fixtures/dbf/club-championship --players "
                 "fixtures/events/club-championship.players.yaml")
    p.set_defaults(func=run)


def run(args) -> int:
    console = Console.of(args)
    options = rating_options(args)
    loaded = load_event_input(args.event, args, console)
    options.grant_floor_requests = args.grant_floor_requests
    if args.explain is not None and not any(p.id == args.explain for s in loaded.event.sections
                                            for p in s.players):  # checked before rating
        raise InputError(f"no player with id {args.explain!r} in this event", file=args.event)
    result = rate_event(loaded.event, options)
    if args.explain is not None:
        data = explain_player_data(result, args.explain)
        if data is None:  # in the event but in no section rated
            raise InputError(f"player {args.explain!r} is in no rated section of this event",
                             file=args.event)
        console.member_data(loaded.member_data)
        if args.json:
            print_json(data)
        else:
            print(explain_player(result, args.explain), end="")
        return 0
    if args.json:
        console.member_data(loaded.member_data)
        print_json(rate_data(result, loaded))
    else:
        console.birth_years(loaded.member_data)
        print(format_event(result, loaded.member_data), end="")
    return 0


def rate_data(result, loaded) -> dict:
    """What ``rate --json`` prints: the results and, for a DBF report or TRF,
    which players had no member data."""
    data = result.as_dict()
    if loaded.member_data is not None:
        data["member_data"] = loaded.member_data_dict()
    return data
