"""Rating an event: every section, in the event's order, in every system its
time control is rated in, through the one five-step pipeline of sec. 1.

Nothing here knows a date: every number comes from ``rules.p`` and every rule
whose shape changed over time from ``rules.call`` (see
:mod:`uschess.calendar.rulebook`).  The steps are in :mod:`uschess.rating.steps`,
the finish step (floors, storage, the record after the event) in
:mod:`uschess.rating.finish`; what is carried from one section to the next
(records, match changes, lowered floors) is the :class:`~uschess.rating.chain.Chain`.
"""

from __future__ import annotations

from typing import Optional

from uschess import collector
from uschess.model import Event
from uschess.rating.chain import Chain
from uschess.rating.options import RatingOptions
from uschess.rating.results import EventResult
from uschess.rating.section import rate_section, systems_for


def rate_event(event: Event, options: Optional[RatingOptions] = None,
               book=None) -> EventResult:
    """Rate every section of an event in every system its time control falls
    in, the sections one after another in the event's order: a player who
    plays in two sections rated in the same system starts the second from the
    first one's result (a fresh :class:`~uschess.rating.chain.Chain`, dropped
    after the event: it need not keep the last section's results)."""
    with collector.paused():  # records in trees: see uschess.collector
        return Chain().rate_event(event, options or RatingOptions(), book, keep_last=False)


__all__ = ["RatingOptions", "systems_for", "rate_section", "rate_event"]
