"""The ratings store's writer lock (:meth:`WriterLock.writer`), held for a
whole replay: an exclusive ``flock`` on the file ``STORE-writer`` beside a
SQLite store, a session advisory lock on PostgreSQL (see
:mod:`uschess.io.store`)."""

from __future__ import annotations

import os
import stat
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Optional

from uschess.errors import InputError
from uschess.io.store_connection import (_NOFOLLOW, PG_WRITER_KEY, WRITER_POLL, _identity,
                                         _one_line)


class WriterLock:
    """The writer lock of a :class:`~uschess.io.store.Store` (which has the
    ``conn``, ``name`` and ``target`` it uses)."""

    @contextmanager
    def writer(self, *, wait: Optional[float] = None,
               on_wait: Optional[Callable[[str], None]] = None):
        """Hold the store's writer lock (see the module text) for the block.

        If another program holds it, ``on_wait`` is called once with a
        message and the lock is tried again every :data:`WRITER_POLL`
        seconds for ``wait`` seconds (None: until it is free; 0: not at
        all), then refused with an InputError."""
        release = self._try_writer()
        if release is None:
            message = f"another replay is writing {self.name}{self._holder()}"
            if on_wait is not None and wait != 0:
                on_wait(f"{message}; waiting for it to finish")
            deadline = None if wait is None else time.monotonic() + wait
            while release is None:
                if deadline is not None and time.monotonic() >= deadline:
                    raise InputError(f"{message}: one replay at a time may write a store "
                                     "(run this one when it has finished)")
                time.sleep(WRITER_POLL)
                release = self._try_writer()
        if self._identity is not None and _identity(self.target) != self._identity:
            if not os.path.lexists(self.target):  # a lock of no store (see above)
                try:
                    os.unlink(self._writer_path())
                except OSError:
                    pass
            release()
            raise InputError("the store was removed while this program waited for it (a "
                             "replay into it as a new file wrote nothing and removed it): "
                             "run this one again", file=self.name)
        try:
            yield self
        finally:
            release()

    def _writer_path(self) -> Path:
        return Path(self.target + "-writer")

    def _holder(self) -> str:
        """" (pid N)" of the program holding a SQLite store's writer lock."""
        if self.conn.kind != "sqlite":
            return ""
        try:
            pid = self._writer_path().read_text(encoding="ascii").strip()
        except (OSError, UnicodeDecodeError):
            return ""
        return f" (pid {pid})" if pid.isdigit() else ""

    def _try_writer(self) -> Optional[Callable[[], None]]:
        """Take the writer lock if it is free: its release, or None."""
        c = self.conn
        if c.kind == "postgresql":
            try:
                got = c.fetchall("SELECT pg_try_advisory_lock(?)", (PG_WRITER_KEY,))[0][0]
            except c.errors as err:
                raise InputError(f"cannot lock the store: {_one_line(err)}", file=self.name)
            if not got:
                return None

            def release_pg() -> None:
                try:
                    c.fetchall("SELECT pg_advisory_unlock(?)", (PG_WRITER_KEY,))
                except c.errors:
                    pass  # a closed connection has released it already
            return release_pg
        try:
            import fcntl  # noqa: PLC0415 - POSIX only
        except ImportError:  # no flock: a SQLite store elsewhere takes no writer lock
            return lambda: None

        path = self._writer_path()
        while True:
            try:  # never through a link: the pid is written into the file opened
                fd = os.open(path, os.O_RDWR | os.O_CREAT | _NOFOLLOW, 0o666)
            except OSError as err:
                if os.path.islink(path):
                    raise InputError(f"the writer lock {path} is a symbolic link, not the "
                                     "lock file this program makes: remove it", file=self.name)
                raise InputError(f"cannot create the writer lock {path}: "
                                 f"{err.strerror or err}", file=self.name)
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                os.close(fd)
                raise InputError(f"the writer lock {path} is not a regular file: remove it",
                                 file=self.name)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                return None
            except OSError as err:
                os.close(fd)
                raise InputError(f"cannot lock {path}: {err.strerror or err}", file=self.name)
            # the lock holds only while its file is still the one at the path
            # (a new store's removal removes it too): otherwise take it again
            st = os.fstat(fd)
            if _identity(str(path)) == (st.st_dev, st.st_ino):
                break
            os.close(fd)
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode("ascii"))
        except OSError:
            pass  # the pid is only for messages

        def release_file() -> None:
            # the lock file goes with the lock (no empty file left beside the
            # store); removed while still held, so that a program waiting on
            # this file finds it gone and takes the lock on a new one (above)
            try:
                if _identity(str(path)) == (st.st_dev, st.st_ino):
                    os.unlink(path)
            except OSError:
                pass
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)
        return release_file
