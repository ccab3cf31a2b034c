"""Python's cycle collector paused while data without cycles is built.

The collector runs every few hundred new objects and, now and then, walks
every object the process holds: while an event of many sections is read or
rated, those walks grow with the objects already made, and the work with
them grows faster than the event (1.6 times the time per section for 15,000
sections as for 1,000: ``benchmarks/sections_bench.py``).  The reader and
the rating make trees of records, freed by their reference counts; what
they leave for the collector (none is expected) is found at its next run
once it is resumed.
"""

from __future__ import annotations

import gc
from contextlib import contextmanager
from typing import Iterator


@contextmanager
def paused() -> Iterator[None]:
    """The collector paused for the block (resumed after it, if it ran
    before; nested blocks leave it to the outermost)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
