"""Text output: crosstables a US Chess reader recognises, and ``--explain``."""

from __future__ import annotations

import datetime as _dt
from typing import TYPE_CHECKING, Optional

from uschess.formulas import round_half_up
from uschess.model import SYSTEM_LABELS
from uschess.rating.finish import below_floor_warnings
from uschess.rating.results import EventResult, PlayerResult, SectionResult

if TYPE_CHECKING:  # only annotated here: the FIDE update's modules load when one is rated
    from uschess.rating.fide_update import FideUpdateResult


def rating_label(value: Optional[float], games: int, established_games: int) -> str:
    """``1206P6`` for a provisional rating on 6 games, ``1847`` when established,
    ``Unrated`` when there is none."""
    if value is None or games == 0 or value != value:
        return "Unrated"
    text = str(round_half_up(value))
    return text + (f"P{games}" if games <= established_games else "")


def _points(x: float) -> str:
    return f"{x:.1f}"


# Numbers shown to people as the documents' worked examples show them
# (002 "Standard rating formula": N_e = 16.57, K = 38.89, E = 1.363): ratings,
# rating points and effective games to 2 decimals, E to 3; the values
# themselves, unrounded, are in --json.
def rating_text(x: float) -> str:
    """A rating or a number of rating points: ``1282.28``."""
    return f"{x:.2f}"


def k_text(k: float) -> str:
    """A K factor (or an effective number of games): ``57.14``."""
    return f"{k:.2f}"


def expectancy_text(e: float) -> str:
    """A winning expectancy, or a sum of them: ``2.369``."""
    return f"{e:.3f}"


def format_section(res: SectionResult) -> str:
    sec = res.section
    est = res.rules.p.established_games
    letter = SYSTEM_LABELS[res.system]
    rounds = max((len(p.rounds) for p in sec.players), default=0)
    by_pair = {p.pair: p for p in sec.players}
    name_w = max([len(p.name) for p in sec.players] + [20])
    lines = [
        f"{sec.name} - {res.system} ({res.time_control.text}, mm+ss {res.time_control.total:g}) "
        f"{sec.start.isoformat()}..{sec.end.isoformat()}",
        f"rules in force on {res.rules.on.isoformat()}"
        + (f", as known on {res.rules.known_on.isoformat()}" if res.rules.known_on else "")
        + (f", edition {res.rules.edition}" if res.rules.edition else "")
        + (f", reform {res.rules.reform}" if res.rules.reform else "")
        + f": B = {res.rules.p.bonus_multiplier:g}, fingerprint {res.rules.fingerprint}",
    ]
    header = (f"{'Pair':>4}  {'Player':<{name_w}}  {'ID':<9} {'Total':>5}  "
              + " ".join(f"{'Rd' + str(i + 1):<5}" for i in range(rounds)) + f"  {letter}: pre -> post")
    lines.append("-" * len(header))
    lines.append(header)
    lines.append("-" * len(header))
    requests: list[str] = []
    below: list[str] = []  # results held at a floor their pre-event rating was under
    for pr in res.players:
        pl = by_pair[pr.pair]
        cells = " ".join(f"{(r.code + (str(r.opponent) if r.opponent is not None else '')):<5}"
                         for r in pl.rounds)
        post = rating_label(pr.post, pr.games_after, est) if pr.m else rating_label(pr.pre, pr.games_before, est)
        flag = " (floor)" if pr.floor_applied else ""
        if pr.floor_applied and pr.pre is not None and pr.pre < pr.floor:
            flag = " (floor, above the pre-event rating: see the notes)"
            below.extend(f"  ! pair {pr.pair} {pl.name}: {w}"
                         for w in below_floor_warnings(pr.pre, pr.floor, pr.floor_reason))
        request = getattr(pr, "floor_request", None)  # matches, sec. 7
        if request:
            flag = (f" (floor lowered to {request['requested_floor']:g} on request)"
                    if request["granted"] else
                    f" (floor; request to lower it to {request['requested_floor']:g})")
            requests.append(_floor_request_note(pl, request))
        lines.append(f"{pr.pair:>4}  {pl.name:<{name_w}}  {pl.id:<9} {_points(pl.total):>5}  {cells}  "
                     f"{letter}: {rating_label(pr.pre, pr.games_before, est)} -> {post}{flag}")
    if requests:
        lines.append("requests to lower a floor (matches, sec. 7):")
        lines.extend(requests)
    if below:
        lines.append("notes on players:")
        lines.extend(below)
    if res.warnings:
        lines.append("notes on the section:")
        lines.extend(f"  ! {w}" for w in res.warnings)
    warnings = res.rules.warnings()
    if warnings:
        lines.append("notes on the rules in force:")
        lines.extend(f"  ! {w}" for w in warnings)
    return "\n".join(lines)


def _floor_request_note(pl, request: dict) -> str:
    """One line on a match player's request to lower a floor."""
    head = (f"  {pl.name} ({pl.id}): result below the floor {request['floor']:g} "
            f"({request['reason']}): request to lower it to {request['requested_floor']:g}")
    if request["granted"]:
        return f"{head} GRANTED; rated {request['rating_if_granted']:.2f}"
    return (f"{head} not granted here: rating held at the floor; granted it would be "
            f"{request['rating_if_granted']:.2f} (--grant-floor-requests)")


def format_event(result: EventResult, member_data=None) -> str:
    e = result.event
    head = f"{e.name}  {e.start.isoformat()}" + (f"..{e.end.isoformat()}" if e.end != e.start else "")
    if member_data is not None and member_data.missing:
        head += "\nmember data: " + "\n".join(member_data.lines())
    return "\n\n".join([head] + [format_section(s) for s in result.sections]) + "\n"


def _cite(rules, name: str) -> str:
    res = rules.params.get(name) or rules.plugins.get(name)
    if res is None or res.entry is None:
        return "?"
    tag = res.entry.source.cite()
    if res.origin != "history":
        tag += f", {res.origin}"
    else:
        tag += f", in force from {res.entry.effective.isoformat()}"
    return tag


def _rated_before(date_text: str, end: _dt.date) -> str:
    """How long before the section's end a source rating was dated, as a
    person says it (``rated 2 years 5 months before``)."""
    from uschess.calendar.spans import duration_text
    dated = _dt.date.fromisoformat(date_text)
    if dated >= end:
        return "as fresh as the event"
    return f"rated {duration_text(dated, end)} before the event"


def explain_player(result: EventResult, pid: str) -> str:
    """The text of ``--explain ID``: every section and system the player was
    rated in, step by step with sources; empty when the id is not there."""
    found = [(s, p) for s in result.sections for p in s.players if p.id == pid]
    if not found:
        return ""
    out = []
    for sec, pr in found:
        out.append("\n".join(line for _, line in _explain_parts(sec, pr)))
    return "\n\n".join(out) + "\n"


def explain_player_data(result: EventResult, pid: str) -> Optional[dict]:
    """``--explain ID --json``: per section and system the rules used, the
    same lines as the text grouped by step (``step1`` .. ``step5``,
    ``floor``, ``stored``, ``warnings``) and the player's full result (the
    entry of ``rate --json``); None when the id is not there."""
    found = [(s, p) for s in result.sections for p in s.players if p.id == pid]
    if not found:
        return None
    explanations = []
    for sec, pr in found:
        steps: dict[str, list[str]] = {}
        for key, line in _explain_parts(sec, pr):
            steps.setdefault(key, []).append(line.strip())
        r = sec.rules
        explanations.append({
            "section": sec.section.name, "system": sec.system, "pair": pr.pair,
            "rules": {"on": r.on.isoformat(), "known_on": r.known_on.isoformat() if r.known_on else None,
                      "edition": r.edition, "reform": r.reform, "fingerprint": r.fingerprint},
            "time_control": sec.time_control.text,
            "steps": [{"step": key, "lines": lines} for key, lines in steps.items()],
            "result": pr.as_dict()})
    return {"id": pid, "name": found[0][1].name, "explanations": explanations}


def _explain_parts(sec: SectionResult, pr: PlayerResult) -> list[tuple[str, str]]:
    """The explanation's lines, each with the part it belongs to."""
    L: list[tuple[str, str]] = []
    part = "rules"

    def add(line: str) -> None:
        L.append((part, line))

    r = sec.rules
    part = "player"
    add(f"{pr.name} ({pr.id}), pair {pr.pair}, section {sec.section.name}, system {sec.system}")
    part = "rules"
    add(f"  rules in force on {r.on.isoformat()} (fingerprint {r.fingerprint}); "
        f"time control {sec.time_control.text}: mm + ss = {sec.time_control.total:g} "
        f"[{_cite(r, 'time_control_ranges')}; classification {_cite(r, 'classify')}]")
    for w in sec.warnings:
        add(f"  ! {w}")
    if pr.m == 0:
        part = "result"
        add("  no rated games in this section: rating unchanged")
        return L
    part = "step1"
    if pr.pre is None:
        init = pr.initial
        add(f"  step 1: unrated in {sec.system}; initial rating R0 = {rating_text(init.rating)}, N = {init.games} "
            f"({init.how}) [{_cite(r, 'initialize')}]")
        for row in init.sources:
            add("          source {source}: X = {X:.2f}, dated {date} ({old}), G = {G}, D = {D}, "
                "P = {P:.2f}, Z = {Z:.4f}, S = {S:.4f}, W = {W:.4f}".format(
                    old=_rated_before(row["date"], sec.section.end), **row))
    else:
        came = f" (the record after {pr.pre_from})" if pr.pre_from else ""
        add(f"  step 1: rated, R0 = {rating_text(pr.pre)} on N = {pr.games_before} games{came}")
    part = "step2"
    nstar = r.p.nstar
    add(f"  step 2: N' = min(N, N*) = {k_text(pr.n_eff)} [N* {_cite(r, 'nstar')}: "
        f"{nstar['cap']:g}/sqrt({nstar['a']:g} + {nstar['b']:g}(({nstar['center']:g} - R0)^2)) "
        f"for R0 <= {nstar['flat_above']:g}]")
    if pr.step3 is not None:
        part = "step3"
        add(f"  step 3: first estimate with N' = {r.p.step3_n_eff:g}: {rating_text(pr.step3)} [{_cite(r, 'step3_n_eff')}]")
    for step, value in (("step4", pr.step4), ("step5", pr.step5)):
        part = step
        info = pr.trace.get(step, {})
        if value is None and step == "step5":
            continue  # a unit that stops at step 4 (a FIDE update, sec. 6)
        opps = ", ".join(f"{x:.2f}" for x in info.get("opponents", []))
        add(f"  {step[:4]} {step[4]}: opponents at [{opps}], score S = {info.get('score')} of m = {info.get('m')}")
        if info.get("formula") == "special":
            why = ("all earlier games won" if info.get("all_wins") else
                   "all earlier games lost" if info.get("all_losses") else
                   f"N <= {r.p.special_max_games}")
            add(f"          special formula ({why}) [{_cite(r, 'special')}; "
                f"eps {_cite(r, 'special_eps')}; cap {r.p.special_cap:g}]")
            sp = info.get("special")
            if sp:
                r0a, sa = sp["R0'"], sp["S'"]
                walk = ", ".join(rating_text(x) for x in sp["moves"])
                add(f"          R0' = {rating_text(r0a)}, S' = {sa:g}, "
                    f"start M = {rating_text(sp['start'])}, walk [{walk}], "
                    f"p = {sp['p']}{', clamped to R0' if sp['clamped'] else ''}"
                    f"{', capped' if sp['capped'] else ''}")
        elif info.get("formula") == "held":
            add(f"          held at the pre-event rating [{_cite(r, 'match_unallowed')}]")
        elif info.get("formula") == "standard":
            add(f"          standard formula: K = {k_text(info['k'])} [{_cite(r, 'k_factor')}; "
                f"numerator {_cite(r, 'k_numerator')}], E = {expectancy_text(info['expected'])}")
            elig = "eligible" if info["bonus_eligible"] else "not eligible"
            add(f"          bonus {elig} [{_cite(r, 'bonus')}]: B = {r.p.bonus_multiplier:g} "
                f"[{_cite(r, 'bonus_multiplier')}], bonus = {rating_text(info['bonus'])}")
        if value is not None:
            add(f"          result {rating_text(value)} (at least {r.p.absolute_floor:g} "
                f"[{_cite(r, 'absolute_floor')}])")
    part = "floor"
    add(f"  floor: {pr.floor:g} ({pr.floor_reason}) [{_cite(r, 'floors')}]"
        + ("; APPLIED" if pr.floor_applied else "; not binding"))
    part = "stored"
    add(f"  stored [{_cite(r, 'storage')}]: post = {rating_text(pr.post)} (shown {pr.post_rounded}), "
        f"N {pr.games_before} -> {pr.games_after}")
    part = "warnings"
    for w in pr.warnings:
        add(f"  ! {w}")
    return L


def format_fide_update(res: FideUpdateResult) -> str:
    """The text ``uschess fide-update`` prints."""
    u = res.update
    lines = [f"{res.name or res.id} ({res.id}): {u.event_name} {u.start.isoformat()}"
             f"{'..' + u.end.isoformat() if u.end != u.start else ''}"
             f"{' (youth event)' if u.youth else ''}",
             f"  rules in force on {res.rules.on.isoformat()} (fingerprint {res.rules.fingerprint})"]
    for o in res.opponents:
        shown = "no FIDE rating: ignored" if o.ignored else f"FIDE {o.fide:g} -> US {o.us:.2f}"
        lines.append(f"  {o.result}  {o.name or '(unnamed)':<28} {shown}")
    if res.m:
        lines.append(f"  N' = {k_text(res.n_eff)}, m = {res.m}, K = {k_text(res.k)}, "
                     f"S = {res.score:g}, E = {expectancy_text(res.expected)}, "
                     f"bonus = {rating_text(res.bonus)} "
                     f"({'eligible' if res.bonus_eligible else 'not eligible'})")
        if res.floor_applied:
            lines.append(f"  floor {res.floor:g} ({res.floor_reason}) applied")
    lines.append(f"  {res.system}: {res.pre:.2f} -> {res.post:.2f} (shown {round_half_up(res.pre)} -> "
                 f"{res.post_rounded}), N {res.games_before} -> {res.games_after}")
    for n in res.notes:
        lines.append(f"  - {n}")
    for w in res.warnings:
        lines.append(f"  ! {w}")
    return "\n".join(lines) + "\n"
