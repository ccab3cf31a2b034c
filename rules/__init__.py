"""Rule plugins: rules whose shape changed over time, one slot each.

``ALL`` is the registry the engine resolves from; a plugin's ``schedule`` says
when it is in force (with sources), as a parameter's ``values:`` do.
"""

from uschess.rules.age import AgeRating2017, AgeRating2020
from uschess.rules.classify import RangeClassification
from uschess.rules.floors import Floors002, FloorsSec5, StoreFloat, StoreInteger
from uschess.rules.formulas import (K002, Approximate002, Bonus002, Bonus2017, Bonus2020, KDualAnySystem,
                       KDualOTBR, KDualRegularRating, KnotWalk)
from uschess.rules.initialization import Blended, PriorityLists2017, PriorityLists2020

ALL = [RangeClassification, AgeRating2017, AgeRating2020, PriorityLists2017, PriorityLists2020,
       Blended, KnotWalk, Approximate002, K002, KDualAnySystem, KDualRegularRating, KDualOTBR,
       Bonus002, Bonus2017, Bonus2020, Floors002, FloorsSec5, StoreInteger, StoreFloat]

SLOTS = ("classify", "age", "initialize", "special", "k_factor", "bonus", "floors", "storage")
