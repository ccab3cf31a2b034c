"""The project installs as one package, ``uschess`` (engine/ is ``uschess``,
rules/ is ``uschess.rules``, rulesets/ is ``uschess.rulesets``)."""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import uschess

ROOT = Path(__file__).resolve().parents[2]


def _declared() -> tuple[dict, list]:
    conf = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return conf["package-dir"], conf["packages"]


def test_every_package_folder_is_declared():
    dirs, declared = _declared()
    found = set()
    for name, folder in dirs.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([name, *rel.parts]))
    assert found == set(declared), "pyproject.toml [tool.setuptools] packages is out of date"


def test_nothing_generic_is_installed_at_the_top_level():
    dirs, declared = _declared()
    assert {name.split(".")[0] for name in declared} == {"uschess"}
    assert set(dirs) >= {"uschess", "uschess.rules", "uschess.rulesets"}


def test_import_module_and_version():
    assert uschess.__version__ != "0+unknown"
    out = subprocess.run([sys.executable, "-m", "uschess", "--version"], capture_output=True,
                         text=True, cwd="/")
    from uschess.apps.audit.section_model import SOLVER_STATUS
    from uschess.rating.section import kernel_status

    assert out.returncode == 0
    assert out.stdout.strip() == (f"uschess {uschess.__version__} ({kernel_status()}; "
                                  f"solver: {SOLVER_STATUS})")
    bare = subprocess.run([sys.executable, "-m", "uschess"], capture_output=True, text=True, cwd="/")
    assert bare.returncode == 0 and "COMMAND" in bare.stdout
