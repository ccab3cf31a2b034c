"""Shared test configuration.

Real published crosstables are read in place from ``../shared/data`` beside
the checkout (never copied into the project).  Tests that need them carry the
``shared_data`` mark and are skipped, with the reason, where it is absent.
"""

from __future__ import annotations

import pytest

from helpers import SHARED_DATA


def pytest_configure(config):
    config.addinivalue_line("markers", "shared_data: reads the real pages in ../shared/data")


def pytest_collection_modifyitems(config, items):
    if SHARED_DATA.is_dir():
        return
    skip = pytest.mark.skip(reason=f"{SHARED_DATA} is not beside the checkout")
    for item in items:
        if "shared_data" in item.keywords:
            item.add_marker(skip)
