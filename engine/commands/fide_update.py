"""``uschess fide-update FILE``: a US Chess OTBR rating after a foreign FIDE
event (sec. 6)."""

from __future__ import annotations

from pathlib import Path

from uschess.errors import InputError
from uschess.io.fide_file import fide_update_from_trf, load_fide_update
from uschess.apps.report import format_fide_update
from uschess.rating.fide_update import fide_update
from uschess.commands.common import add_rules_options, print_json, rating_options

TRF_SUFFIXES = (".trf", ".txt")


def register(sub) -> None:
    p = sub.add_parser(
        "fide-update", help="update an OTBR rating from a foreign FIDE-rated event (sec. 6)",
        description="Update an established OTBR rating from the games of a FIDE-rated event "
                    "abroad: opponents' FIDE ratings converted (youth conversion for youth "
                    "events), the standard formula with bonus applied once.")
    p.add_argument("file", help="fide-update file (.yaml/.yml/.json), or a TRF of the event "
                                "(.trf/.txt, with --player)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--player", metavar="ID",
                   help="TRF input: the player's id (US Chess id, else FIDE id)")
    p.add_argument("--players", metavar="FILE",
                   help="TRF input: players file with the player's OTBR record")
    p.add_argument("--youth", action="store_true",
                   help="TRF input: the event is a youth event (youth conversion, sec. 6)")
    add_rules_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    path = Path(args.file)
    if path.suffix.lower() in TRF_SUFFIXES:
        if not args.player:
            raise InputError("a TRF holds every player of the event: name the one to update "
                             "with --player ID", file=path)
        update = fide_update_from_trf(path, args.player, players_file=args.players,
                                      youth=args.youth)
    else:
        for flag, given in (("--player", args.player), ("--players", args.players),
                            ("--youth", args.youth)):
            if given:
                raise InputError(f"{flag} is for TRF input; a fide-update file names its "
                                 "player, ratings and youth flag itself", file=path)
        update = load_fide_update(path)
    result = fide_update(update, rating_options(args))
    if args.json:
        print_json(result.as_dict())
    else:
        print(format_fide_update(result), end="")
    return 0
