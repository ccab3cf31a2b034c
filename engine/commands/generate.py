"""``uschess generate``: a synthetic rating history as event files, with the
players' true strengths beside them."""

from __future__ import annotations

from uschess.apps.generate import TRUTH_FILE, player_games, write_history
from uschess.commands.common import Console, add_examples, add_progress_option, print_json


def register(sub) -> None:
    p = sub.add_parser("generate", help="write a synthetic history of events (tests, benchmarks)",
                       description="Players with careers and hidden true strengths that move "
                                   "over time, Swiss and round-robin sections in all six "
                                   "systems, 2001-2025, drawn from the record's calibration "
                                   "(unless --uncalibrated); deterministic by seed.  The files "
                                   "carry no ratings but the OTBR record a player first seen "
                                   "rated brings: 'uschess replay' builds them.  The true "
                                   f"strengths go to {TRUTH_FILE} beside the events "
                                   "('uschess evaluate' scores ratings against them).")
    p.add_argument("--players", type=int, required=True, metavar="N",
                   help="exactly N players, every one playing at least once")
    p.add_argument("--events", type=int, required=True, metavar="M", help="exactly M events")
    p.add_argument("--seed", type=int, default=1, metavar="S",
                   help="random seed: the same seed and sizes write the same files (default 1)")
    p.add_argument("-o", "--output", required=True, metavar="DIR",
                   help="a new or empty folder to write the history into")
    p.add_argument("--format", choices=("json", "yaml"), default="json",
                   help="event file format (default json)")
    p.add_argument("--force", action="store_true",
                   help="write into a non-empty folder, replacing a generated history there")
    model = p.add_mutually_exclusive_group()
    model.add_argument("--calibrated", nargs="?", const="", default=None, metavar="FILE",
                       help="draw formats, section sizes and rounds, newcomers' strengths, "
                            "juniors' improvement and draws from the record: the default, from "
                            "the calibration the package carries, or from FILE as 'uschess "
                            "evaluate --published --fit-generator' writes it")
    model.add_argument("--uncalibrated", action="store_true",
                       help="the generator's own model instead (wider sections, stronger "
                            "newcomers, results less predictable than the record's: the "
                            "histories of earlier versions, seed for seed)")
    p.add_argument("--json", action="store_true",
                   help='print {"directory", "events", "players", "player_games", "truth", '
                        '"files": [...]} as JSON')
    add_progress_option(p)
    add_examples(p,
                 "uschess generate --players 200 --events 60 -o hist",
                 "uschess generate --uncalibrated --players 200 --events 60 -o uncalibrated")
    p.set_defaults(func=run)


def run(args) -> int:
    console = Console.of(args)
    model = None
    if not args.uncalibrated:
        from uschess.apps.generator_fit import calibrated_model
        from uschess.commands.common import input_path
        model = calibrated_model(input_path(args.calibrated, what="--calibrated")
                                 if args.calibrated else None)
    with console.progress(total=args.events, unit="event", desc="generate",
                          force=args.progress) as bar:
        paths = write_history(args.output, args.seed, args.players, args.events, args.format,
                              force=args.force, progress=bar.update, model=model)
    console.wrote(f"{len(paths)} event files ({args.players} players) and "
                           f"{TRUTH_FILE} to {args.output}")
    if args.json:
        from uschess.io.eventfile import load_event
        events = [load_event(p) for p in paths]
        print_json({"directory": str(args.output), "events": len(paths),
                    "players": len({pl.id for e in events for s in e.sections
                                    for pl in s.players}),
                    "player_games": sum(player_games(e) for e in events),
                    "truth": str(paths[0].parent / TRUTH_FILE),
                    "files": [str(p) for p in paths]})
    return 0
