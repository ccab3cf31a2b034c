"""``uschess rate EVENT``: rate every section in every system it falls in."""

from __future__ import annotations

from uschess.errors import InputError
from uschess.rating.pipeline import rate_event
from uschess.apps.report import explain_player, format_event
from uschess.commands.common import add_rules_options, load_event_arg, print_json, rating_options


def register(sub) -> None:
    p = sub.add_parser("rate", help="rate an event (YAML/JSON event file, DBF report directory, TRF)",
                       description="Rate every section of an event under the rules in force on "
                                   "each section's start date.")
    p.add_argument("event", help="event file (.yaml/.yml/.json), DBF directory or .trf")
    p.add_argument("--players", metavar="FILE", help="players file with member data (DBF/TRF input)")
    p.add_argument("--json", action="store_true", help="print the full results as JSON")
    p.add_argument("--explain", metavar="ID", help="show one player's calculation step by step")
    p.add_argument("--grant-floor-requests", action="store_true",
                   help="matches (sec. 7): grant every request to lower a floor by 100")
    add_rules_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    options = rating_options(args)
    event = load_event_arg(args.event, args.players)
    options.grant_floor_requests = args.grant_floor_requests
    result = rate_event(event, options)
    if args.explain:
        text = explain_player(result, args.explain)
        if not text:
            raise InputError(f"no player with id {args.explain} in this event", file=args.event)
        print(text, end="")
        return 0
    if args.json:
        print_json(result.as_dict())
    else:
        print(format_event(result), end="")
        for section in event.sections:
            for note in section.notes:
                print(f"note: {note}")
    return 0
