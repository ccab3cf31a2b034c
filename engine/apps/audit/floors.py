"""The floor cause: a published post on a floor level the page cannot show
(an established floor, a prize floor, the OLM floor, a personal absolute
floor), above the computed one (floors bind only the final rating)."""

from __future__ import annotations

from typing import Optional

from uschess.apps.audit.cause import Cause
from uschess.calendar.rulebook import RuleBook


def _personal_floors(rules) -> bool:
    """Whether the floors plugin in force has the personal absolute floor
    (asked of the plugin, not of its name)."""
    plugin = RuleBook.load().registered.get(rules.plugins["floors"].value)
    return bool(getattr(plugin, "personal", False))


def floor_kinds(level: float, system: str, params, personal_floors: bool,
                af: Optional[float] = None) -> list[str]:
    """The kinds of floor that can hold a rating at ``level`` in ``system``
    under resolved parameters ``params`` (a mapping name -> value):
    established floor levels, a prize floor, the OLM floor (100-point levels)
    and the personal absolute floor (base < level <= cap, when
    ``personal_floors`` are in force).  ``af`` is the player's own AF when
    their record gives it (then only that value counts as an AF)."""
    kinds = []
    if level != int(level):
        return kinds
    if level % 100 == 0:
        drop = params.get("floor_drop", 200)
        if level in (params.get("floor_levels") or []):
            kinds.append(f"an established floor (a highest established rating of at least "
                         f"{level + drop:g})")
        if level <= (params.get("prize_floor_top") or 0):
            kinds.append("a prize floor")
        olm = params.get("olm")
        if olm and level == olm["floor"] and system in (params.get("olm_systems") or []):
            kinds.append("the Original Life Master floor")
        if not kinds:
            kinds.append("a 100-point floor level")
    pf = params.get("personal_floor")
    if (personal_floors and pf and system in (params.get("personal_floor_systems") or [])
            and pf["base"] < level <= pf["cap"] and (af is None or af == level)):
        kinds.append(f"the personal absolute floor (AF = {level:g})" if af == level else
                     f"a personal absolute floor of {level:g} ({_af_counts(level, pf)}, a record "
                     "the file does not give)")
    return kinds


def _af_counts(level: float, pf: dict) -> str:
    """The rated-game counts that give a personal absolute floor of ``level``
    (000 sec. 5: AF = base + win N_W + draw N_D + event N_R, at most cap)."""
    need = int(level - pf["base"])
    w, d, e = pf["win"], pf["draw"], pf["event"]
    wins = need // w
    rest = need - wins * w
    draws = rest // d
    events = rest - draws * d
    example = f"for example {wins} wins, {draws} draws and {events // e} events"
    return (f"AF = {pf['base']:g} + {w:g} x wins + {d:g} x draws + {e:g} x events with 3+ rated "
            f"games, so {w:g}N_W + {d:g}N_D + {e:g}N_R = {need} ({example}, or any other "
            "counts that add up so)")


def _floor_detail(level: float, computed: float, kinds: list[str]) -> str:
    return (f"published {level:g} is a floor level and the computed {computed:.2f} is below it: "
            f"held by {' or '.join(kinds)}, which the file cannot show (floors bind only the "
            "final rating)")


def _floor_cause(row, tol: float) -> Optional[Cause]:
    e, pr, sr = row.entry, row.result, row.section
    level = e.post
    if row.computed is None or not row.computed < level - tol:
        return None
    rec = pr.record_after
    af = None
    pf_res = sr.rules.params.get("personal_floor")  # not in force before 2008
    pf = pf_res.value if pf_res is not None else None
    if (pf and rec is not None and rec.wins is not None and rec.draws is not None
            and rec.events3 is not None):
        af = min(pf["base"] + pf["win"] * rec.wins + pf["draw"] * rec.draws
                 + pf["event"] * rec.events3, pf["cap"])
    params = {name: res.value for name, res in sr.rules.params.items()}
    kinds = floor_kinds(level, e.system, params, _personal_floors(sr.rules), af)
    if not kinds:
        return None
    return Cause("floor", _floor_detail(level, row.computed, kinds), level, level)
