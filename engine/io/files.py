"""Writing files all or nothing.

Every output of the project (event files, rating reports, TRF, crosstables,
CSV, HTML reports, plots) goes through :func:`atomic_write`: a temporary file
beside the target, flushed to disk, then renamed over it, so that a failure
leaves the old file (or none), never half a file; and a failure is an
:class:`~uschess.errors.InputError` naming the file.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Mapping

from uschess.errors import InputError


def atomic_write(files: Mapping[Path, bytes]) -> None:
    """Write every file to a temporary sibling first, then rename them all
    into place; if any write fails, no target is touched."""
    import tempfile  # (only a command that writes files needs it)

    staged: list[tuple[str, Path]] = []
    current = None
    mask = os.umask(0)
    os.umask(mask)
    try:
        for target, data in files.items():
            target = current = Path(target)
            fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp",
                                       dir=target.parent)
            staged.append((tmp, target))
            os.fchmod(fd, 0o666 & ~mask)
            with os.fdopen(fd, "wb") as fh:
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        for tmp, target in staged:
            current = target
            os.replace(tmp, target)
        staged = []
    except OSError as err:
        raise InputError(f"cannot write: {err.strerror or err}", file=current)
    finally:
        for tmp, _ in staged:
            try:
                os.unlink(tmp)
            except OSError:
                pass


def write_text_atomic(path, text: str) -> None:
    """Write UTF-8 text to ``path`` all or nothing."""
    atomic_write({Path(path): text.encode("utf-8")})
