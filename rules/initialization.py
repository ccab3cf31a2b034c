"""Step 1: initial ratings for unrated players (sec. 2).

Two shapes over time: the priority lists of the 2017 and 2020-06 editions (the
first applicable source wins, with a fixed N), and the blended method of the
2020-09 and 2025 texts (a weighted average of every source).
"""

from __future__ import annotations

import math

from uschess.errors import InputError
from uschess.formulas import piecewise, round_half_up

from uschess.rules.base import Initial, RulePlugin, src
from uschess.rules.hookspecs import hookimpl

# Priority-list items: ("us", system, condition, N rule), ("fide", N rule),
# ("cfc", N rule), ("age",), ("default",).  Conditions: "min" (at least
# min_games), "established", "provisional-min" (not established, at least
# min_games), "olr-min" (at least olr_min_games), "any".  N rules: "priority"
# (the FIDE/CFC thresholds), "cap" (min(cap, games)), "ten" (cap), 0.
_TAIL = [("age",), ("default",)]
_TAIL_ONLINE = [("fide", 0), ("cfc", 0), ("age",), ("default",)]
LISTS_2017 = {
    "OTBR": [("fide", "priority"), ("cfc", "priority"), ("us", "OTBQ", "min", 0)] + _TAIL,
    "OTBQ": [("us", "OTBR", "min", "cap"), ("fide", "priority"), ("cfc", "priority")] + _TAIL,
    "OTBB": [("us", "OTBR", "established", "ten"), ("fide", "priority"), ("cfc", "priority"),
             ("us", "OTBR", "provisional-min", "cap"), ("us", "OTBQ", "min", 0)] + _TAIL,
    "OLQ": [("us", "OLB", "any", 0), ("us", "OTBQ", "any", 0), ("us", "OTBB", "any", 0),
            ("us", "OTBR", "any", 0)] + _TAIL_ONLINE,
    "OLB": [("us", "OLQ", "any", 0), ("us", "OTBB", "any", 0), ("us", "OTBQ", "any", 0),
            ("us", "OTBR", "any", 0)] + _TAIL_ONLINE,
}
LISTS_2020_06 = {
    **LISTS_2017,
    "OLR": [("us", "OTBR", "olr-min", "ten"), ("fide", "priority"), ("cfc", "priority")] + _TAIL,
    "OLQ": [("us", "OLB", "any", "cap")] + LISTS_2017["OLQ"][1:],
    "OLB": [("us", "OLQ", "any", "cap")] + LISTS_2017["OLB"][1:],
}


def fide_us(rating: float, p) -> float:
    """FIDE converted to the US Chess scale (004 sec. 2.6; 000 sec. 2.1)."""
    return above_floor(piecewise(rating, p.fide_conversion), rating, "FIDE", p)


def cfc_us(rating: float, p) -> float:
    """CFC converted to the US Chess scale (004 sec. 2.6; 000 sec. 2.2)."""
    return above_floor(piecewise(rating, p.cfc_conversion), rating, "CFC", p)


def above_floor(converted: float, rating: float, name: str, p) -> float:
    """A converted rating, refused when it falls below the absolute floor
    (sec. 5): no real foreign rating does, so the input is wrong."""
    if converted < p.absolute_floor:
        raise InputError(f"{name} rating {rating:g} converts to {converted:g} on the US Chess "
                         f"scale, below the absolute floor {p.absolute_floor:g}: no real "
                         f"{name} rating does")
    return converted


class _Converting(RulePlugin):
    """An initialization that reads FIDE and CFC ratings on the US Chess scale.
    A plugin whose conversion changes shape overrides these methods; FIDE
    updates (sec. 6) convert their opponents through the same plugin."""

    def fide_us(self, rating: float, p) -> float:
        return fide_us(rating, p)

    def cfc_us(self, rating: float, p) -> float:
        return cfc_us(rating, p)

    def fide_youth_us(self, rating: float, p) -> float:
        """FIDE converted for a youth event abroad (sec. 6 of the 2020 and
        2025 texts)."""
        return above_floor(piecewise(rating, p.fide_youth_conversion), rating, "FIDE", p)


class _PriorityLists(_Converting):
    slot = "initialize"
    lists: dict = {}

    @staticmethod
    def _us_games(rule, games: int, pg: dict) -> int:
        """N for a US Chess source: min(10, games), 10, or 0."""
        return {"cap": min(pg["cap"], games), "ten": pg["cap"]}.get(rule, 0)

    @staticmethod
    def _converted_games(rule, value: float, above: float, high: int, low: int) -> int:
        """N for a converted FIDE or CFC rating: by threshold, or 0 (online lists)."""
        return (high if value > above else low) if rule == "priority" else 0

    @hookimpl
    def uschess_initial_rating(self, player, system, end, p, hook):
        pg = p.priority_games
        items = self.lists.get(system)
        if items is None:
            return None
        for item in items:
            kind = item[0]
            if kind == "us":
                _, other, cond, rule = item
                rec = player.ratings.get(other)
                if rec is None:
                    continue
                ok = {"any": True, "min": rec.games >= pg["min_games"],
                      "established": rec.games > p.established_games,
                      "provisional-min": pg["min_games"] <= rec.games <= p.established_games,
                      "olr-min": rec.games >= pg["olr_min_games"]}[cond]
                if ok:
                    n = self._us_games(rule, rec.games, pg)
                    return Initial(rec.rating, n, f"{other} rating {rec.rating:g} ({rec.games} games)")
            elif kind == "fide" and player.fide is not None:
                f = player.fide.rating
                n = self._converted_games(item[1], f, pg["fide_above"], pg["fide_high"], pg["fide_low"])
                return Initial(self.fide_us(f, p), n, f"FIDE {f:g} converted")
            elif kind == "cfc" and player.cfc is not None:
                c = player.cfc.rating
                n = self._converted_games(item[1], c, pg["cfc_above"], pg["cfc_high"], pg["cfc_low"])
                return Initial(self.cfc_us(c, p), n, f"CFC {c:g} converted")
            elif kind == "age":
                got = hook.uschess_age_rating(player=player, on=end, p=p)
                if got is not None:
                    return Initial(got[0], 0, f"age-based: {got[1]}")
            elif kind == "default":
                return Initial(p.unrated_default, 0, "no other information: last resort")
        return None


class PriorityLists2017(_PriorityLists):
    """004 sec. 2.1-2.5: one priority list per system (five systems)."""

    name = "priority-2017"
    title = "Priority-list initialization (2017 edition)"
    source = src("004", "2.1")
    lists = LISTS_2017


class PriorityLists2020(_PriorityLists):
    """001 sec. 2.1-2.6: adds online Regular; online Quick from online Blitz and
    online Blitz from online Quick now carry N = min(10, games)."""

    name = "priority-2020-06"
    title = "Priority-list initialization (2020-06 edition)"
    source = src("001", "2.1")
    lists = LISTS_2020_06


class Blended(_Converting):
    """000 sec. 2: the weighted average of the other five US Chess ratings,
    FIDE and CFC (Canadian residents), each weighted W_k = G_k S_k; R0 rounded
    to an integer; N = ceil(min(10, sum W_k)).  No source: the age-based
    rating with N = 0 (not rounded: project reading 6); sources that all
    weigh W_k = 0 count as none (project reading 14)."""

    slot = "initialize"
    name = "blended"
    title = "Blended initialization"
    source = src("000", "2")

    @hookimpl
    def uschess_initial_rating(self, player, system, end, p, hook):
        b = p.blended
        sources = []
        for other, rec in player.ratings.items():
            if other == system:
                continue
            g = b["by_target"].get(system, {}).get(other, b["by_source"].get(other, b["default_factor"]))
            sources.append((other, rec.rating, min(g, rec.games), rec.date))
        if player.fide is not None:
            f = player.fide.rating
            g = b["fide_high"] if f > b["fide_above"] else b["fide_low"]
            sources.append(("FIDE", self.fide_us(f, p), g, player.fide.date))
        if player.cfc is not None and (player.cfc.canadian or not b["cfc_canadian_only"]):
            sources.append(("CFC", self.cfc_us(player.cfc.rating, p), b["cfc_factor"], player.cfc.date))
        if not sources:
            return self._without_sources(player, end, p, hook)
        rows = []
        ages = {}  # the player's age-based rating P_k on each source's date, asked once a date
        for name, x, g, when in sources:
            if when is None:
                raise InputError(f"the {name} rating has no date, needed for blended initialization "
                                 f"of {system} (000 sec. 2, staleness D_k)", player=player.label)
            # a source rating dated after the section (overlapping events in a
            # replay) is as fresh as can be: staleness 0
            d = max(0, (end - when).days)
            pk = ages.get(when)
            if pk is None:
                pk = ages[when] = (hook.uschess_age_rating(player=player, on=when, p=p)
                                   or (p.unrated_default,))[0]
            z = min(b["z_cap"], (x - pk) / b["z_scale"])
            s = math.exp(b["staleness_rate"] * (z - b["z_cap"]) * d / b["days_per_year"])
            rows.append({"source": name, "X": x, "date": when.isoformat(), "G": g, "D": d,
                         "P": pk, "Z": z, "S": s, "W": g * s})
        total_w = sum(r["W"] for r in rows)
        if total_w == 0:  # every source worth no games: as if none existed (project reading 14)
            return self._without_sources(player, end, p, hook, rows)
        r0 = sum(r["W"] * r["X"] for r in rows) / total_w
        n = math.ceil(min(b["n_cap"], total_w))
        return Initial(float(round_half_up(r0)), n,
                       f"blended from {', '.join(r['source'] for r in rows)}", rows)

    @staticmethod
    def _without_sources(player, end, p, hook, rows: list = ()) -> Initial:
        """No rating to average: the age-based rating with N = 0, or the last
        resort where there is none; ``rows``: sources that all weigh W_k = 0
        (named in the text, kept in the trace)."""
        weightless = f"; {', '.join(r['source'] for r in rows)} weigh nothing (W = 0)" if rows else ""
        got = hook.uschess_age_rating(player=player, on=end, p=p)
        if got is None:
            return Initial(p.unrated_default, 0, f"no other information: last resort{weightless}",
                           list(rows))
        return Initial(got[0], 0, f"age-based: {got[1]}{weightless}", list(rows))
