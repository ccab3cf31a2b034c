"""The rule book compiled once: what ``RuleBook.load()`` reads from the rule
files, kept in the user's cache directory and used while nothing it came
from has changed.

The cache holds the checked timelines, plugin calendar, conflicts,
documents and editions (everything read from YAML) and which plugins were
registered.  A book from it makes the built-in plugins and looks up their
slots' functions directly, with no plugin manager (the rule modules are in
the key: the checks of their registration still hold); rule packs' plugins
are registered afresh.  It is used only when its key matches the present
one, which covers

* the format of this cache and the interpreter (version, bytecode tag);
* the installed version of the project (from its distribution's metadata
  directory on ``sys.path``);
* every rule file of ``rulesets/`` (name, size and checksum of its
  contents) and every module of ``uschess.rules`` and ``uschess.calendar``
  (name, size, modification time);
* every ``sys.path`` entry that holds distributions (its modification time
  and their metadata directories: installing, upgrading or removing one, a
  rule pack among them, changes them), and each rule pack's calendar file.

Where it lives: ``$USCHESS_CACHE_DIR`` if set (an empty value turns the
cache off), else ``$XDG_CACHE_HOME/uschess``, else ``~/.cache/uschess``.  A
cache that cannot be read, is corrupt or out of date is ignored and
rewritten; a cache directory that cannot be written leaves the rule book
loaded from the YAML, with no message: the cache only saves time.
"""

from __future__ import annotations

import os
import pickle
import sys
import zlib
from pathlib import Path
from typing import Any, Optional

#: The environment variable naming the cache directory (empty: no cache).
CACHE_ENV = "USCHESS_CACHE_DIR"
#: Changed whenever what the cache holds changes shape.
FORMAT = 1
_DIST = "uschess_ratings-"


def cache_dir() -> Optional[Path]:
    """The directory of the project's caches, None when turned off."""
    chosen = os.environ.get(CACHE_ENV)
    if chosen is not None:
        return Path(chosen).expanduser() if chosen.strip() else None
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg and os.path.isabs(xdg):
        return Path(xdg) / "uschess"
    home = os.path.expanduser("~")
    if not os.path.isabs(home):  # no home directory to be found: no cache
        return None
    return Path(home) / ".cache" / "uschess"


def cache_file(rulesets: Path) -> Optional[Path]:
    """The cache file of the rule book read from ``rulesets`` with this
    ``sys.path`` (one per installation and way of starting, so that two
    checkouts, or ``uschess`` and ``python -m uschess``, do not overwrite
    each other's)."""
    base = cache_dir()
    if base is None:
        return None
    where = "\n".join([str(rulesets), sys.executable, *sys.path]).encode()
    return base / f"rulebook-{zlib.crc32(where):08x}.pickle"


def _stat(path) -> Optional[tuple[int, int]]:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return st.st_mtime_ns, st.st_size


def _files(folder: Path, patterns: tuple[str, ...], contents: bool = False) -> list:
    """(path, what tells its versions apart) of every file matching
    ``patterns``: its contents' size and checksum (``contents``: the rule
    files, a few small ones, so that an edit within the file system's time
    resolution counts) or its modification time and size."""
    out = []
    for pattern in patterns:
        for path in sorted(folder.glob(pattern)):
            if contents:
                try:
                    data = path.read_bytes()
                except OSError:
                    out.append((str(path), None))
                    continue
                out.append((str(path), (len(data), zlib.crc32(data))))
            else:
                out.append((str(path), _stat(path)))
    return out


def _distributions() -> tuple[Optional[str], tuple]:
    """The project's installed version and what tells an installation
    apart: the project's version from its distribution's metadata directory
    (``uschess_ratings-VERSION.dist-info``), the first on ``sys.path`` as
    ``importlib.metadata`` would find it (None when not installed); and for
    every ``sys.path`` entry holding distributions, its modification time and
    their metadata directories (installing, upgrading or removing one, a rule
    pack among them, changes both)."""
    version, seen = None, []
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        dists = sorted(n for n in names if n.endswith((".dist-info", ".egg-info")))
        if not dists:
            continue  # a source folder (the working directory): its own changes do not count
        seen.append((entry, _stat(entry or "."), tuple(dists)))
        if version is None:
            for name in dists:
                if name.startswith(_DIST):
                    version = name[len(_DIST):].rsplit(".", 1)[0]
                    break
    return version, tuple(seen)


def installed_version() -> Optional[str]:
    """The project's installed version (see :func:`_distributions`)."""
    return _distributions()[0]


def key(rulesets: Path, sources: list[Path]) -> tuple:
    """What the compiled rule book depends on, as one comparable value:
    ``sources`` are the folders of the modules that read and check the rule
    files (``uschess.rules``, ``uschess.calendar``)."""
    files = _files(rulesets, ("*.yaml", "editions/*.yaml"), contents=True)
    for folder in sources:
        files += _files(folder, ("*.py",))
    version, dists = _distributions()
    return (FORMAT, sys.version, sys.implementation.cache_tag, version, str(rulesets),
            tuple(files), dists)


def load(path: Optional[Path], want: tuple) -> Optional[dict]:
    """The cached data at ``path`` if its key is ``want`` and the extra files
    it names are unchanged; None otherwise (missing, unreadable, corrupt or
    out of date)."""
    if path is None:
        return None
    try:
        with open(path, "rb") as fh:
            got = pickle.load(fh)
        if not isinstance(got, dict) or got.get("key") != want:
            return None
        if any(_stat(f) != st for f, st in got["files"]):
            return None
        return got["data"]
    except Exception:  # noqa: BLE001 - a damaged cache is only a missed shortcut
        return None


def store(path: Optional[Path], want: tuple, data: Any, files: list[str]) -> None:
    """Write the cache (all or nothing); any failure is ignored.  ``files``:
    further files the data was read from (a rule pack's calendar)."""
    if path is None:
        return
    from uschess.io.files import atomic_write

    try:
        blob = pickle.dumps({"key": want, "files": [(f, _stat(f)) for f in files], "data": data},
                            protocol=pickle.HIGHEST_PROTOCOL)
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write({path: blob})
    except Exception:  # noqa: BLE001 - read-only or full cache directory: load from YAML
        return
