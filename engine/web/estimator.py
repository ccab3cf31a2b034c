"""The rating estimator: one player's games against a list of opponents.

The form becomes an ordinary event file with one section: the player is
pair 1 and plays opponent ``i`` (pair ``i + 1``) in round ``i``; each
opponent plays only that game (the other rounds are unplayed, ``U``).  That event is rated by the one pipeline,
so the estimate is exactly what ``uschess rate`` prints for the event file
:func:`event_dict` builds (the page offers it as a download).  The games the
opponents played elsewhere in the event are not known, so their step-4
ratings (used in step 5) come from this one game each.

An opponent's rating without a game count is taken as based on
:data:`uschess.io.formats.msa.ESTABLISHED_GAMES` games, as for a crosstable
that does not print established players' counts.  Ratings entered are
taken as current: dated on the event date (the date blended initialization
of another system reads).
"""

from __future__ import annotations

import datetime as _dt
import re
from dataclasses import dataclass, field
from typing import Mapping, Optional

from uschess.apps.compare import RuleSide, parse_rules_spec
from uschess.errors import InputError
from uschess.io.eventfile import event_from_dict, parse_date
from uschess.io.formats.msa import ESTABLISHED_GAMES
from uschess.model import GAME_CODES, SYSTEMS
from uschess.rating.pipeline import rate_event
from uschess.rating.results import EventResult, PlayerResult

#: Opponent rows the form shows unless the query asks for more (``rows=``).
DEFAULT_ROWS = 8
#: The most opponent rows one estimate takes.
MAX_ROWS = 60
#: The name errors in the form's fields are given.
SOURCE = "estimator"
#: The name of the event file the estimate rates (the page's download, and
#: the event's source in the JSON, as ``uschess rate estimate.yaml --json``).
EVENT_FILE = "estimate.yaml"
PLAYER_ID = "1"


@dataclass
class Opponent:
    """One game: the opponent's pre-event rating (None: unrated) and game
    count, and the player's result (W, D or L)."""

    rating: Optional[float]
    games: Optional[int]
    result: str
    row: int = 0  # the form's row

    @property
    def games_assumed(self) -> bool:
        return self.rating is not None and self.games is None


@dataclass
class EstimateRequest:
    """The estimator form, checked field by field."""

    date: _dt.date
    time_control: str
    online: bool
    system: str
    rating: Optional[float]
    games: Optional[int]
    wins: Optional[int]
    draws: Optional[int]
    losses: Optional[int]
    birth_date: Optional[_dt.date]
    adult: bool
    fide: Optional[float]
    cfc: Optional[float]
    canadian: bool
    opponents: list[Opponent]
    rules: str = "baseline"
    compare: Optional[str] = None
    notes: list[str] = field(default_factory=list)


_INTEGER = re.compile(r"[+-]?[0-9]+", re.ASCII)
_DECIMAL = re.compile(r"[+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?", re.ASCII)


def _text(form: Mapping[str, str], key: str) -> str:
    value = form.get(key)
    return value.strip() if isinstance(value, str) else ""


def _number(form, key: str, what: str, *, integer=False) -> Optional[float]:
    text = _text(form, key)
    if not text:
        return None
    try:  # digits as written on a form: no 1_000, no other scripts' digits
        if not (_INTEGER if integer else _DECIMAL).fullmatch(text):
            raise ValueError(text)
        value = int(text) if integer else float(text)
    except ValueError:
        raise InputError(f"{what}: {text!r} is not {'a whole number' if integer else 'a number'}",
                         file=SOURCE, field=key)
    if value != value or value in (float("inf"), float("-inf")):
        raise InputError(f"{what}: {text!r} is not a number", file=SOURCE, field=key)
    return value


#: A rating as US Chess prints it: ``1500``, ``1500P5`` (provisional, on 5
#: games) or ``Unrated`` (also ``unr``, ``unr.``), in any case.
_SHOWN_RATING = re.compile(r"(?P<rating>[0-9]+(?:\.[0-9]*)?)(?:\s*[Pp]\s*(?P<games>[0-9]+))?",
                           re.ASCII)
_UNRATED = {"unrated", "unr", "unr.", "(unrated)", "none"}


def _rating(form, key: str, games_key: str, what: str) -> tuple[Optional[float], Optional[int]]:
    """A rating field: the rating (None: unrated) and the game count its
    ``P`` suffix gives (None when it has none).  The number of games field
    ``games_key``, when filled, must agree with the suffix."""
    text = _text(form, key)
    if text.lower() in _UNRATED:
        return None, None
    m = _SHOWN_RATING.fullmatch(text)
    if m is None or not m.group("games"):
        return _number(form, key, f"{what}"), None
    rating, games = float(m.group("rating")), int(m.group("games"))
    given = _text(form, games_key)
    if given and given != str(games):
        raise InputError(f"{what} {text!r} is provisional on {games} games, but the games field "
                         f"says {given}: leave one of them empty", file=SOURCE, field=games_key)
    return rating, games


def _date(form, key: str, what: str) -> Optional[_dt.date]:
    text = _text(form, key)
    if not text:
        return None
    try:  # the event files' reader: YYYY-MM-DD only (fromisoformat takes 2025-W12-5 too)
        return parse_date(text, what)
    except InputError:
        raise InputError(f"{what}: {text!r} is not a date (YYYY-MM-DD)", file=SOURCE, field=key)


def rules_side(text: str, what: str, source: Optional[str] = SOURCE) -> RuleSide:
    """A rules choice as ``uschess compare`` writes it (``baseline``,
    ``rules-on:DATE``, ``known-on:DATE``, ``edition:DATE``,
    ``reading:C=R``, joined with ``+``); reform files are refused here (a
    web form never names a file on the server)."""
    if any(part.strip().lower().startswith("reform") for part in text.split("+")):
        raise InputError(f"{what} {text!r}: reform files cannot be named in the web page "
                         "(use 'uschess rate --reform FILE')", file=source)
    try:
        return parse_rules_spec(text, what=what)
    except InputError as err:
        raise err.located(file=source)


def parse_form(form: Mapping[str, str]) -> EstimateRequest:
    """The request of a submitted form; an :class:`InputError` names the
    first bad field."""
    date = _date(form, "date", "event date")
    if date is None:
        raise InputError("give the event date", file=SOURCE, field="date")
    tc = _text(form, "tc")
    if not tc:
        raise InputError("give the time control (e.g. G/90;d5)", file=SOURCE, field="tc")
    system = _text(form, "system") or "OTBR"
    if system not in SYSTEMS:
        raise InputError(f"system {system!r} is not one of {', '.join(SYSTEMS)}", file=SOURCE,
                         field="system")
    opponents = []
    rows = 0
    for key in form:
        if key.startswith("opp_result_") and key[len("opp_result_"):].isdigit():
            rows = max(rows, int(key[len("opp_result_"):]))
    if rows > MAX_ROWS:
        raise InputError(f"at most {MAX_ROWS} opponents", file=SOURCE)
    for i in range(1, rows + 1):
        result = _text(form, f"opp_result_{i}").upper()
        rating, shown_games = _rating(form, f"opp_rating_{i}", f"opp_games_{i}",
                                      f"opponent {i}: rating")
        games = _number(form, f"opp_games_{i}", f"opponent {i}: games", integer=True)
        games = shown_games if shown_games is not None else games
        if not result:
            if rating is not None or games is not None:
                raise InputError(f"opponent {i}: choose the result (W, D or L)", file=SOURCE,
                                 field=f"opp_result_{i}")
            continue
        if result not in GAME_CODES:
            raise InputError(f"opponent {i}: result {result!r} is not W, D or L", file=SOURCE,
                             field=f"opp_result_{i}")
        if rating is None and games is not None:
            raise InputError(f"opponent {i}: a game count needs a rating (leave both empty for "
                             "an unrated opponent)", file=SOURCE, field=f"opp_games_{i}")
        opponents.append(Opponent(rating, games, result, i))
    if not opponents:
        raise InputError("enter at least one opponent with a result", file=SOURCE)
    rating, shown_games = _rating(form, "rating", "games", "your rating")
    games = _number(form, "games", "your games", integer=True)
    req = EstimateRequest(
        date=date, time_control=tc, online=bool(_text(form, "online")), system=system,
        rating=rating, games=shown_games if shown_games is not None else games,
        wins=_number(form, "wins", "your wins", integer=True),
        draws=_number(form, "draws", "your draws", integer=True),
        losses=_number(form, "losses", "your losses", integer=True),
        birth_date=_date(form, "birth", "birth date"), adult=bool(_text(form, "adult")),
        fide=_number(form, "fide", "FIDE rating"), cfc=_number(form, "cfc", "CFC rating"),
        canadian=bool(_text(form, "canadian")), opponents=opponents, rules=_text(form, "rules") or "baseline",
        compare=_text(form, "compare") or None)
    if req.rating is not None and req.games is None:
        raise InputError("your rating needs the number of games it is based on: fill in "
                         "Games, or write the rating as US Chess prints a provisional one "
                         "(1500P12: on 12 games)", file=SOURCE, field="games")
    if req.rating is None and any(x is not None for x in (req.games, req.wins, req.draws, req.losses)):
        raise InputError("games and wins/draws/losses need your rating (leave them empty if "
                         "you are unrated)", file=SOURCE, field="rating")
    if any(o.games_assumed for o in opponents):
        req.notes.append(f"opponents' ratings without a game count are taken as based on "
                         f"{ESTABLISHED_GAMES} games")
    return req


def event_dict(req: EstimateRequest) -> dict:
    """The event file (as a mapping) of the estimate: ``uschess rate`` of it
    gives the same numbers as the page."""
    player: dict = {"pair": 1, "id": PLAYER_ID, "name": "You",
                    "rounds": [f"{o.result}{i + 2}" for i, o in enumerate(req.opponents)]}
    if req.rating is not None:
        rec = {"rating": req.rating, "games": req.games, "date": req.date.isoformat()}
        for key in ("wins", "draws", "losses"):
            if getattr(req, key) is not None:
                rec[key] = getattr(req, key)
        player["ratings"] = {req.system: rec}
    if req.birth_date is not None:
        player["birth_date"] = req.birth_date.isoformat()
    if req.adult:
        player["adult"] = True
    if req.fide is not None:
        player["fide"] = {"rating": req.fide, "date": req.date.isoformat()}
    if req.cfc is not None:
        player["cfc"] = {"rating": req.cfc, "date": req.date.isoformat(), "canadian": req.canadian}
    players = [player]
    flip = {"W": "L", "L": "W", "D": "D"}
    for i, o in enumerate(req.opponents):
        opp: dict = {"pair": i + 2, "id": str(i + 2), "name": f"Opponent {i + 1}",
                     "rounds": ["U"] * i + [f"{flip[o.result]}1"] + ["U"] * (len(req.opponents) - i - 1)}
        if o.rating is not None:
            opp["ratings"] = {req.system: {
                "rating": o.rating, "games": o.games if o.games is not None else ESTABLISHED_GAMES,
                "date": req.date.isoformat()}}
        players.append(opp)
    return {"event": {"name": "Estimate", "start": req.date.isoformat(), "end": req.date.isoformat(),
                      "online": req.online},
            "sections": [{"name": "Estimate", "time_control": req.time_control, "players": players}]}


@dataclass
class Estimate:
    """The rated estimate under the chosen rules and, when asked, another version."""

    request: EstimateRequest
    side: RuleSide
    result: EventResult
    other_side: Optional[RuleSide] = None
    other: Optional[EventResult] = None

    def mine(self, result: Optional[EventResult] = None) -> list[tuple[str, PlayerResult]]:
        """(system, the player's result) for every system the section is rated in."""
        result = result or self.result
        return [(s.system, p) for s in result.sections for p in s.players if p.id == PLAYER_ID]


@dataclass
class UnratedOpponent:
    """An unrated opponent of the estimate, in the player's system: the
    rating step 1 gave them and why, and the rating step 4 gave them from
    their one game (the one the player's step 5 uses)."""

    row: int
    initial: float
    how: str
    step4: Optional[float]

    def text(self) -> str:
        from uschess.apps.report import rating_text
        out = (f"Opponent {self.row} is unrated: step 1 gives them {rating_text(self.initial)} "
               f"({self.how})")
        if self.step4 is not None:
            out += (f"; step 4 rates them {rating_text(self.step4)} from their game with you, "
                    "the rating your step 5 uses")
        return out + "."


def unrated_opponents(est: Estimate, result: Optional[EventResult] = None) -> list[UnratedOpponent]:
    """The unrated opponents of ``result`` (default: the estimate's), in the
    system the player's rating was entered in (else the first rated)."""
    result = result or est.result
    sections = [s for s in result.sections if s.system == est.request.system] or result.sections[:1]
    out = []
    for sec in sections:
        for p in sec.players:
            if p.id != PLAYER_ID and p.pre is None and p.initial is not None:
                row = est.request.opponents[p.pair - 2].row
                out.append(UnratedOpponent(row, p.initial.rating, p.initial.how, p.step4))
    return out


def estimate(req: EstimateRequest) -> Estimate:
    """Rate the estimate's event (see the module docstring)."""
    side = rules_side(req.rules, "rules")
    other_side = rules_side(req.compare, "compare") if req.compare else None
    event = event_from_dict(event_dict(req), source=EVENT_FILE)
    result = rate_event(event, side.options)
    other = rate_event(event, other_side.options) if other_side else None
    return Estimate(req, side, result, other_side, other)
