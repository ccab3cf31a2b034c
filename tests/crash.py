"""Run a ``uschess`` command and kill the process (SIGKILL) at a chosen
write, from outside the product code: crash tests of replays.

    python tests/crash.py after:N  replay ...   # right after the N-th event commits
    python tests/crash.py during:N replay ...   # inside the N-th event's transaction
"""

from __future__ import annotations

import os
import signal
import sys

from uschess.cli import main
from uschess.io.store import Store


def _die() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def arm(when: str, n: int) -> None:
    original = Store.apply_event
    count = 0

    def apply_event(self, write, **kw):
        nonlocal count
        count += 1
        if when == "during" and count == n:
            return original(self, write, during=_die)
        seq = original(self, write, **kw)
        if when == "after" and count == n:
            _die()
        return seq

    Store.apply_event = apply_event


if __name__ == "__main__":
    when, _, n = sys.argv[1].partition(":")
    if when not in ("after", "during") or not n.isdigit():
        sys.exit("crash.py: the first argument is after:N or during:N")
    arm(when, int(n))
    sys.exit(main(sys.argv[2:]))
