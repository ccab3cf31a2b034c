"""``uschess fide-update FILE``: a US Chess OTBR rating after a foreign FIDE
event (sec. 6)."""

from __future__ import annotations

from pathlib import Path

from uschess.errors import InputError
from uschess.io.fide_file import fide_update_from_trf, load_fide_update
from uschess.apps.report import format_fide_update
from uschess.rating.fide_update import fide_update
from uschess.commands.common import (add_examples, add_rules_options, input_path, print_json,
                                     rating_options)

TRF_SUFFIXES = (".trf", ".txt")


def register(sub) -> None:
    p = sub.add_parser(
        "fide-update", help="update an OTBR rating from a foreign FIDE-rated event (sec. 6)",
        description="Update an established OTBR rating from the games of a FIDE-rated event "
                    "abroad: opponents' FIDE ratings converted (youth conversion for youth "
                    "events), the standard formula with bonus applied once.")
    p.add_argument("file", help="fide-update file (.yaml/.yml/.json), or a TRF of the event "
                                "(.trf/.txt, with --player); - for standard input")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    p.add_argument("--player", metavar="ID",
                   help="TRF input: the player's US Chess id or FIDE id (as the TRF holds them)")
    p.add_argument("--players", metavar="FILE",
                   help="TRF input: players file with the player's OTBR record (- for "
                        "standard input)")
    p.add_argument("--youth", action="store_true",
                   help="TRF input: the event is a youth event (youth conversion, sec. 6)")
    add_rules_options(p)
    add_examples(p,
                 "uschess fide-update fixtures/fide/open-abroad.yaml",
                 "uschess fide-update fixtures/fide/reykjavik.trf --players "
                 "fixtures/fide/reykjavik.players.yaml --player 12345678")
    p.set_defaults(func=run)


def player_in_trf(path, given: str) -> str:
    """The id the TRF reader gives the player ``given`` names: a US Chess id
    as it is, or the FIDE id of a player whom a national record gives a US
    Chess id (the reader then names the player by that)."""
    from uschess.io.formats.trf import read_trf
    details: dict = {}
    event = read_trf(path, details=details)
    given = given.strip()
    ids = {p.id for s in event.sections for p in s.players}
    if given in ids:
        return given
    by_fide = {(s.name, p.pair): p.id for s in event.sections for p in s.players}
    found = sorted({by_fide[key] for key, info in details.items()
                    if info.fide_id and info.fide_id == given})
    if len(found) == 1:
        return found[0]
    return given  # not there: fide_update_from_trf says so


def run(args) -> int:
    path = Path(input_path(args.file))
    if path.suffix.lower() in TRF_SUFFIXES:
        if not args.player:
            raise InputError("a TRF holds every player of the event: name the one to update "
                             "with --player ID", file=args.file)
        update = fide_update_from_trf(path, player_in_trf(path, args.player),
                                      players_file=input_path(args.players), youth=args.youth)
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
