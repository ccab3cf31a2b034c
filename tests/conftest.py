"""Shared test configuration.

Real published crosstables are read in place from ``../shared/data`` beside
the checkout (never copied into the project).  Tests that need them carry the
``shared_data`` mark and are skipped, with the reason, where it is absent.

Property tests run under a hypothesis profile chosen by the environment
variable ``USCHESS_HYPOTHESIS``: ``dev`` (the default: a tenth of each
property's example budget, for a quick run while working) or ``ci`` (the
full budget; ``.ci/run`` selects it).  A property with a budget of its own
asks :func:`helpers.examples` for its share.  Tests marked ``slow`` (a real
page whose audit takes tens of seconds) run only under the ``ci`` profile,
so that the default run stays quick.
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


def _compile_once_per_run(config):
    """Where ``PYTHONDONTWRITEBYTECODE`` is set, every command a test starts
    (``python -m uschess ...``: kill and resume, ``serve``, the rule packs)
    would compile the whole package from source again.  The run keeps its
    bytecode in a folder of its own instead (``PYTHONPYCACHEPREFIX``), removed
    at the end, so nothing is written beside the sources and each module is
    compiled once per run."""
    if not sys.dont_write_bytecode:
        return
    config._uschess_pycache = tempfile.mkdtemp(prefix="uschess-pycache-")
    sys.pycache_prefix = config._uschess_pycache
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = config._uschess_pycache
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)


def pytest_configure(config):
    config.addinivalue_line("markers", "shared_data: reads the real pages in ../shared/data")
    config.addinivalue_line("markers", f"slow: runs only with {PROFILE_ENV}=ci (.ci/run)")
    # the compiled rule book of this run is cached in a folder of its own,
    # never in the user's cache (the commands the tests run inherit it)
    config._uschess_cache = tempfile.mkdtemp(prefix="uschess-cache-")
    os.environ[CACHE_ENV] = config._uschess_cache
    _compile_once_per_run(config)


def pytest_unconfigure(config):
    for name in ("_uschess_cache", "_uschess_pycache"):
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
