"""``uschess generate``: a synthetic rating history as event files."""

from __future__ import annotations

from uschess.apps.generate import write_history
from uschess.commands.common import Console, print_json


def register(sub) -> None:
    p = sub.add_parser("generate", help="write a synthetic history of events (tests, benchmarks)",
                       description="Players with careers and hidden strengths, Swiss and "
                                   "round-robin sections in all six systems, 2001-2025; "
                                   "deterministic by seed.  The files carry no ratings: "
                                   "'uschess replay' builds them.")
    p.add_argument("--players", type=int, required=True, metavar="N",
                   help="players in the population")
    p.add_argument("--events", type=int, required=True, metavar="M", help="events to write")
    p.add_argument("--seed", type=int, default=1, metavar="S",
                   help="random seed: the same seed writes the same files (default 1)")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="directory to write the event files into")
    p.add_argument("--format", choices=("json", "yaml"), default="json",
                   help="event file format (default json)")
    p.add_argument("--json", action="store_true",
                   help='print {"directory", "events", "files": [...]} as JSON')
    p.set_defaults(func=run)


def run(args) -> int:
    paths = write_history(args.output, args.seed, args.players, args.events, args.format)
    Console.of(args).wrote(f"{len(paths)} event files to {args.output}")
    if args.json:
        print_json({"directory": str(args.output), "events": len(paths),
                    "files": [str(p) for p in paths]})
    return 0
