"""Shared test configuration.

Real published crosstables are read in place from ``../shared/data`` beside
the checkout (never copied into the project).  Tests that need them carry the
``shared_data`` mark and are skipped, with the reason, where it is absent.

Property tests run under a hypothesis profile chosen by the environment
variable ``USCHESS_HYPOTHESIS``: ``dev`` (the default: a tenth of each
property's example budget, for a quick run while working) or ``ci`` (the
full budget; ``.ci/run`` selects it).  A property with a budget of its own
asks :func:`helpers.examples` for its share.  Tests marked ``slow`` run only
under the ``ci`` profile, so that the default run stays under a minute: a
real page whose audit takes tens of seconds, and the end-to-end runs that
take about half a second of CPU or more (audits of generated pages, whole
histories compared or calibrated, the benchmark scripts run on samples, the
docs pages whose examples take seconds, the fuzzers with the largest
budgets, the further variants of a parametrized check) where a quicker test
of the same code stays in the default run.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile

import pytest
from hypothesis import settings

from helpers import SHARED_DATA
from uschess.calendar.cache import CACHE_ENV

PROFILE_ENV = "USCHESS_HYPOTHESIS"
#: max_examples of each profile; hypothesis's own default (100) is the full budget.
PROFILES = {"dev": 10, "ci": 100}

for _name, _examples in PROFILES.items():
    settings.register_profile(_name, max_examples=_examples)
_profile = os.environ.get(PROFILE_ENV, "dev")
if _profile not in PROFILES:
    raise pytest.UsageError(f"{PROFILE_ENV}={_profile!r}: one of {', '.join(PROFILES)}")
settings.load_profile(_profile)


def _compile_once(config):
    """Where ``PYTHONDONTWRITEBYTECODE`` is set, every command a test starts (``python -m
    uschess ...``: kill and resume, ``serve``, the rule packs) would compile
    the whole package from source again, and every run would compile the
    tests and rewrite their asserts again.  The run writes bytecode where
    Python writes it by default instead, for itself and for the commands it
    starts: the project's modules and the tests in ``__pycache__`` folders
    beside them (ignored by git), each compiled once, not once per run; the
    standard library and the installed packages keep the bytecode they were
    installed with.  (A bytecode folder of its own, ``PYTHONPYCACHEPREFIX``,
    would hold every module the run imports, the standard library's and the
    installed packages' too, all compiled again into it on a first run:
    about 12 s of CPU.)"""
    if not sys.dont_write_bytecode:
        return
    sys.dont_write_bytecode = False
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_configure(config):
    config.addinivalue_line("markers", "shared_data: reads the real pages in ../shared/data")
    config.addinivalue_line("markers", f"slow: runs only with {PROFILE_ENV}=ci (.ci/run)")
    # the compiled rule book of this run is cached in a folder of its own,
    # never in the user's cache (the commands the tests run inherit it)
    config._uschess_cache = tempfile.mkdtemp(prefix="uschess-cache-")
    os.environ[CACHE_ENV] = config._uschess_cache
    _compile_once(config)


def pytest_unconfigure(config):
    for name in ("_uschess_cache",):
        folder = getattr(config, name, None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)


def pytest_report_header(config):
    return f"hypothesis profile: {settings._current_profile} ({PROFILE_ENV})"


def pytest_collection_modifyitems(config, items):
    slow = pytest.mark.skip(reason=f"slow: runs with {PROFILE_ENV}=ci (.ci/run)")
    missing = pytest.mark.skip(reason=f"{SHARED_DATA} is not beside the checkout")
    for item in items:
        if "slow" in item.keywords and _profile != "ci":
            item.add_marker(slow)
        if "shared_data" in item.keywords and not SHARED_DATA.is_dir():
            item.add_marker(missing)


@pytest.fixture(autouse=True)
def _no_store_from_the_environment(monkeypatch):
    """A user's USCHESS_DB never reaches the commands the tests run."""
    monkeypatch.delenv("USCHESS_DB", raising=False)
