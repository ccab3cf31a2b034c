"""Rule plugins: rules whose shape changed over time, one slot each.

``ALL`` lists the built-in plugins; the rule book registers them (and any
installed rule pack) with its one plugin manager.  When each plugin is in
force is data: ``rulesets/slots.yaml``.  This package holds code only.
"""

from uschess.rules.age import AgeRating2017, AgeRating2020
from uschess.rules.classify import RangeClassification
from uschess.rules.floors import Floors002, FloorsSec5, StoreFloat, StoreInteger
from uschess.rules.formulas import (K002, Approximate002, Bonus002, Bonus2017, Bonus2020, KDualAnySystem,
                       KDualOTBR, KDualRegularRating, KnotWalk)
from uschess.rules.initialization import Blended, PriorityLists2017, PriorityLists2020
from uschess.rules.matches import MatchHoldProvisional, MatchRatedAnyway

ALL = [RangeClassification, AgeRating2017, AgeRating2020, PriorityLists2017, PriorityLists2020,
       Blended, KnotWalk, Approximate002, K002, KDualAnySystem, KDualRegularRating, KDualOTBR,
       Bonus002, Bonus2017, Bonus2020, Floors002, FloorsSec5, StoreInteger, StoreFloat,
       MatchRatedAnyway, MatchHoldProvisional]
