"""The age-based initial rating (sec. 2.3 of 000; sec. 2.6 of 004)."""

from __future__ import annotations

from uschess.formulas import age_in_years, age_rating

from uschess.rules.base import RulePlugin, src
from uschess.rules.hookspecs import hookimpl


def _formula(age: float, a: dict) -> float:
    return age_rating(age, a["young"], a["per_year"], a["old"], a["young_below"], a["old_above"])


class AgeRating2017(RulePlugin):
    """004 sec. 2.6 / 001 sec. 2.7: no birth date but an inferred adult, or an
    age under 3 (a miscoded birthday), counts as a 26-year-old (1300).  A
    player with neither gets no age-based rating (the priority lists then fall
    to 750, N = 0)."""

    slot = "age"
    name = "age-2017"
    title = "Age-based rating, 2017 fallbacks"
    source = src("004", "2.6")

    @hookimpl
    def uschess_age_rating(self, player, on, p):
        a = p.age_formula
        if player.birth_date is not None:
            age = age_in_years(player.birth_date, on, a["days_per_year"])
            if age < a["miscoded_below"]:
                return a["adult"], f"age {age:.2f} < {a['miscoded_below']:g}: miscoded, taken as 26"
            return _formula(age, a), f"age {age:.4f} on {on}"
        if player.adult:
            return a["adult"], "no birth date, adult: taken as 26"
        return None


class AgeRating2020(RulePlugin):
    """003/000 sec. 2.3: no birth date or an age under 3 gives 1300 for an
    inferred adult, otherwise a 15-year-old's 750."""

    slot = "age"
    name = "age-2020-09"
    title = "Age-based rating, 2020-09 fallbacks"
    source = src("000", "2.3")

    @hookimpl
    def uschess_age_rating(self, player, on, p):
        a = p.age_formula
        if player.birth_date is not None:
            age = age_in_years(player.birth_date, on, a["days_per_year"])
            if age >= a["miscoded_below"]:
                return _formula(age, a), f"age {age:.4f} on {on}"
            why = f"age {age:.2f} < {a['miscoded_below']:g}"
        else:
            why = "no birth date"
        if player.adult:
            return a["adult"], f"{why}, adult: taken as 26"
        return p.unrated_default, f"{why}, not known to be adult: taken as 15"
