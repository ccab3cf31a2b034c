"""Memory the server has freed goes back to the system.

glibc keeps what a program frees for its next allocations: after large
uploads the server would hold hundreds of megabytes it no longer uses.
:func:`return_freed_memory` has large blocks mapped on their own (unmapped
when freed; glibc would otherwise raise its threshold to the largest block
freed and keep the next ones), and :func:`trim` hands back the free pages of
every heap after a large request.  Where the C library is not glibc, both do
nothing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
from typing import Optional

#: Allocations of this many bytes or more are mapped on their own.
OWN_MAPPING_BYTES = 256 * 1024
#: A request whose body was larger than this is followed by :func:`trim`.
TRIM_AFTER_BYTES = 1024 * 1024
_M_TRIM_THRESHOLD, _M_MMAP_THRESHOLD = -1, -3


def _glibc() -> Optional[ctypes.CDLL]:
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name) if name else None
        return libc if libc is not None and hasattr(libc, "malloc_trim") else None
    except OSError:
        return None


_LIBC = _glibc()


def return_freed_memory() -> None:
    """Large blocks mapped on their own; the heap's free top returned past 1 MB."""
    if _LIBC is not None:
        _LIBC.mallopt(_M_MMAP_THRESHOLD, OWN_MAPPING_BYTES)
        _LIBC.mallopt(_M_TRIM_THRESHOLD, 1024 * 1024)


def trim() -> None:
    """What no object refers to collected (a cycle may hold an upload until
    the next collection, which an idle server does not make), and the free
    pages of every heap of the process back to the system."""
    gc.collect()
    if _LIBC is not None:
        _LIBC.malloc_trim(0)
