"""``uschess player ID --db FILE``: a player's ratings and history in a store."""

from __future__ import annotations

import datetime as _dt

from uschess.errors import InputError
from uschess.rating.finish import lowered_floor_for
from uschess.calendar.rulebook import RuleBook
from uschess.io.store import Store
from uschess.commands.common import add_db_option, add_examples, db_target, print_json


def register(sub) -> None:
    p = sub.add_parser("player", help="a player's ratings and history in a ratings store",
                       description="A player's rating in every system, the floor in force today "
                                   "and every rating change, from a ratings store.")
    p.add_argument("id", help="the player's US Chess id")
    add_db_option(p)
    p.add_argument("--json", action="store_true",
                   help='print {"id", "systems": {SYSTEM: {rating, games, ..., history}}}')
    add_examples(p,
                 "uschess player A --db ratings.db")
    p.set_defaults(func=run)


def player_data(store: Store, pid: str, today: _dt.date | None = None) -> dict:
    """The documented JSON: ratings, the floor in force today, the history."""
    records = store.ratings_of(pid)
    if not records:
        raise InputError(f"no player with id {pid} in the store", file=store.name)
    rules = RuleBook.load().rules(today or _dt.date.today())
    history = store.history(pid)
    systems = {}
    for system, rec in records.items():
        fl = rules.call.uschess_personal_floor(system=system, after=rec, event=None, p=rules.p)
        floor = lowered_floor_for(rec, fl.value, fl.reason)[0]  # a floor lowered after a match
        systems[system] = {
            "rating": rec.rating, "games": rec.games, "wins": rec.wins, "draws": rec.draws,
            "losses": rec.losses, "events3": rec.events3, "peak": rec.peak, "floor": floor,
            "history": [{"event": h["event"], "end": h["end"], "pre": h["pre"], "post": h["post"]}
                        for h in history if h["system"] == system],
        }
    return {"id": pid, "systems": systems}


def _fmt(x) -> str:
    return "-" if x is None else f"{x:.2f}"


def run(args) -> int:
    with Store.open(db_target(args), create=False) as store:
        data = player_data(store, args.id)
        info = store.player(args.id)
    if args.json:
        print_json(data)
        return 0
    head = f"{args.id}"
    if info and info.name:
        head += f"  {info.name}"
    if info and info.birth_date:
        head += f"  born {info.birth_date.isoformat()}"
    print(head)
    for system, s in data["systems"].items():
        counts = ("" if s["wins"] is None or s["draws"] is None or s["losses"] is None
                  else f"+{s['wins']} ={s['draws']} -{s['losses']}; ")
        events3 = ("events with 3+ games not known" if s["events3"] is None
                   else f"{s['events3']} events with 3+ games")
        print(f"\n{system}: {s['rating']:.2f} after {s['games']} games "
              f"({counts}{events3}); peak {_fmt(s['peak'])}, floor {s['floor']:g}")
        for h in s["history"]:
            print(f"  {h['end']}  {h['event']:<24} {_fmt(h['pre']):>8} -> {_fmt(h['post']):>8}")
    return 0
