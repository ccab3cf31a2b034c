"""MkDocs hooks (``hooks:`` in mkdocs.yml): the pages made at build time.

The reference pages come from the code (``docs/tools/docs_reference.py``), and
CHANGELOG.md and CONTRIBUTING.md, which live at the top of the repository
where people look for them, are added to the site as they are, their links
into ``docs/`` made relative to the site."""

from __future__ import annotations

import sys
from pathlib import Path

from mkdocs.structure.files import File

sys.path.insert(0, str(Path(__file__).resolve().parent))
import docs_reference  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]
TOP_PAGES = {"changelog.md": "CHANGELOG.md", "contributing.md": "CONTRIBUTING.md"}
#: Images kept elsewhere in the repository (the browser tests take the screenshots).
ASSETS = {"assets/estimator.png": "fixtures/screenshots/estimator.png",
          "assets/crosstable.png": "fixtures/screenshots/crosstable.png"}


def _top_page(name: str) -> str:
    text = (ROOT / name).read_text(encoding="utf-8")
    return text.replace("](docs/", "](")


def on_files(files, config):
    for uri, make in docs_reference.PAGES.items():
        files.append(File.generated(config, uri, content=make()))
    for uri, name in TOP_PAGES.items():
        files.append(File.generated(config, uri, content=_top_page(name)))
    for uri, name in ASSETS.items():
        files.append(File.generated(config, uri, abs_src_path=str(ROOT / name)))
    return files
