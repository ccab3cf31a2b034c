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


def _compile_once(config):
    """Where ``PYTHONDONTWRITEBYTECODE`` is set, every command a test starts
    (``python -m uschess ...``: kill and resume, ``serve``, the rule packs)
    would compile the whole package from source again, and every run would
    compile the tests and rewrite their asserts again.  The bytecode goes to
    a folder of pytest's own cache instead (``PYTHONPYCACHEPREFIX``:
    ``.pytest_cache/d/uschess-pycache``, about 40 MB), so nothing is written
    beside the sources and each module is compiled once, not once per run
    (a bytecode file is checked against its source's time and size, as in
    ``__pycache__``).  Once the folder is filled, a run takes a sixth to a fifth
    less CPU time.  Without pytest's cache (``-p no:cacheprovider``) the
    folder is the run's own, removed at the end."""
    if not sys.dont_write_bytecode:
        return
    cache = getattr(config, "cache", None)
    if cache is not None:
        folder = str(cache.mkdir("uschess-pycache"))
    else:
        folder = config._uschess_pycache = tempfile.mkdtemp(prefix="uschess-pycache-")
    sys.pycache_prefix = folder
    sys.dont_write_bytecode = False
    os.environ["PYTHONPYCACHEPREFIX"] = folder
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
