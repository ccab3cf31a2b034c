"""Where CI requires the compiled kernel (``USCHESS_REQUIRE_KERNEL=1``, set
by ``.ci/run``), it is built and current, so that its checks against the
Python body (tests/engine/test_formulas_kernel.py, test_section_kernel.py,
test_reader_kernel.py, tests/audit/test_solve_kernel.py) run instead of
skipping."""

from __future__ import annotations

import os
import sys

import pytest

REQUIRED = os.environ.get("USCHESS_REQUIRE_KERNEL") == "1"


@pytest.mark.skipif(not REQUIRED, reason="the compiled kernel is optional outside CI "
                    "(USCHESS_REQUIRE_KERNEL=1 requires it)")
def test_every_kernel_is_built_and_current():
    import uschess.formulas as F
    from uschess.io.eventfile import READER_STATUS
    from uschess.rating.section import LEAN, LEAN_STATUS

    assert F.ACTIVE is not F.PURE, F.KERNEL_STATUS
    assert LEAN is not None, LEAN_STATUS
    assert READER_STATUS == "compiled kernel", READER_STATUS
    if sys.version_info < (3, 12):  # from 3.12 the solvers' reference sums as no kernel does
        from uschess.apps.audit.section_model import SOLVER, SOLVER_STATUS

        assert SOLVER is not None, SOLVER_STATUS
    for name in ("formulas_kernel", "section_kernel", "reader_kernel", "solve_kernel"):
        __import__(f"uschess.{name}")


def test_verbose_says_which_body_rated(tmp_path):
    """``-v`` ends with which body rated the sections: traced ratings (``rate``)
    by the Python body; a replay by the kernel where it is built."""
    import subprocess
    import sys

    from helpers import ROOT
    from uschess.rating.section import LEAN

    run = [sys.executable, "-m", "uschess", "-v"]
    rate = subprocess.run([*run, "rate", str(ROOT / "fixtures/events/wfcc15.yaml")],
                          capture_output=True, text=True, check=True)
    assert "uschess: sections rated: " in rate.stderr
    assert "3 by the Python body (3 traced)" in rate.stderr
    replay = subprocess.run([*run, "replay", str(ROOT / "fixtures/replay-mixed"),
                             "--db", str(tmp_path / "r.db")], capture_output=True, text=True)
    assert replay.returncode in (0, 1), replay.stderr
    line = replay.stderr.strip().splitlines()[-1]
    if LEAN is not None:
        assert line == "uschess: sections rated: 2 by the compiled kernel"
    else:
        assert line == "uschess: sections rated: 2 by the Python body (2 untraced, no kernel)"
    quiet = subprocess.run([*run[:-1], "-q", "rate", str(ROOT / "fixtures/events/wfcc15.yaml")],
                           capture_output=True, text=True, check=True)
    assert "sections rated" not in quiet.stderr
