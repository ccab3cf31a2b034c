"""Heavy work of the web app in processes that can be stopped.

A request's work (rating an upload, an audit, a report to download, a
store's player and plot) runs in a worker process forked from the server
(the estimator's, bounded by its rows, runs in a thread: see
``WebApp.run_bounded``).  At the time limit the worker is killed, so the
work stops and its memory goes back to the system with it (a thread cannot
be stopped: it would go on burning a core after the client was answered).
At most ``slots`` workers work at once; a request beyond them waits its
turn for up to the time limit, and is answered 503 (busy) past it, or at
once when :data:`QUEUE_PER_SLOT` requests per slot are already waiting.

A worker serves one request after another (forking one per request cost
more than most uploads' work), and exits when it has been idle
:data:`IDLE_SECONDS`, or after a request that left it holding
:data:`RETIRE_GROWTH` more memory than it started with: what a large
upload took goes back to the system when its answer is sent.  The work is a
module-level function and its arguments, pickled to the worker; the worker
answers with a pickled ``("ok", value)``, or the
:class:`~uschess.errors.InputError` the work raised, rebuilt here so that
the answer is the one located line of the command line.

Each worker writes its temporary files (an upload staged to be read, a
report zipped) under a directory of its own, made by the server when it
starts the worker and removed with it: by the worker when it leaves, by the
server when it kills it at the time limit, where the worker's own clean-up
never runs.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import shutil
import signal
import tempfile
import threading
import traceback
from dataclasses import dataclass
from typing import Any, Callable

import anyio

from uschess.errors import InputError
from uschess.web.memory import trim

#: Requests waiting for a slot, per slot, before a new one is answered 503.
QUEUE_PER_SLOT = 4
#: The parts of an InputError sent back from a worker process.
_WHERE = ("file", "section", "player", "round", "record", "field")


class Busy(Exception):
    """Every slot is taken and the queue is full, or the wait outlasted the
    time limit: the request is answered 503 with this text."""


class Late(Exception):
    """The work outlasted the time limit and was stopped."""


def default_slots() -> int:
    """One slot per core this process may run on."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # a system without affinity
        return max(1, os.cpu_count() or 1)


#: A worker idle this long exits (the next request starts another): the
#: requests of a burst share the workers, and a second after it the server
#: holds none (a worker forked while the server held an upload keeps a copy
#: of it for as long as it lives).
IDLE_SECONDS = 1.0
#: A worker whose resident memory grew this much over its start retires
#: once it has answered.
RETIRE_GROWTH = 64 * 1024 * 1024


def _resident() -> int:
    """This process's resident bytes (0 where /proc is not there)."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _answer(fn: Callable, args: tuple) -> tuple:
    try:
        return ("ok", fn(*args))
    except InputError as err:
        return ("input", err.message, {k: getattr(err, k) for k in _WHERE})
    except Exception:  # noqa: BLE001 - reported to the server as an internal error
        return ("error", traceback.format_exc())


def _leave(signum, frame) -> None:
    raise SystemExit(0)


def _serve(conn, root: str) -> None:
    """A worker process: run the tasks sent, one at a time, until idle too
    long, grown too large, or the server is gone; its temporary files under
    ``root``, removed when it leaves."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C on the server stops it too
    # the server's exit terminates its workers: leave through the clean-up below
    signal.signal(signal.SIGTERM, _leave)
    tempfile.tempdir = root
    # the objects inherited from the server are left out of the cycle
    # collector's walks: a walk writes to every object it visits, and each
    # page written is copied from the server's
    gc.freeze()
    started = _resident()
    try:
        while conn.poll(IDLE_SECONDS):
            try:
                fn, args = conn.recv()
            except (EOFError, OSError):  # the server is gone
                return
            answer = _answer(fn, args)
            del fn, args
            trim()  # what the task freed goes back to the system
            retire = _resident() - started > RETIRE_GROWTH
            try:
                conn.send((retire, answer))
            except Exception:  # noqa: BLE001 - an answer that cannot be pickled
                conn.send((retire, ("error", traceback.format_exc())))
            del answer
            if retire:
                return
    finally:
        conn.close()
        shutil.rmtree(root, ignore_errors=True)


def _rebuilt(answer: tuple) -> Exception:
    """The exception a worker's failed answer stands for."""
    if answer[0] == "input":
        err = InputError(answer[1])
        for key, value in answer[2].items():
            setattr(err, key, value)
        return err
    return RuntimeError(f"the worker process failed:\n{answer[1]}")


@dataclass
class _Worker:
    process: Any
    conn: Any
    #: the directory of the worker's temporary files
    root: str

    def stop(self) -> None:
        """Kill the process (if it still runs), wait for it, and remove what
        it left in its directory."""
        if self.process.is_alive():
            self.process.kill()
        self.process.join()
        self.process.close()
        self.conn.close()
        shutil.rmtree(self.root, ignore_errors=True)


class Workers:
    """The bounded pool of worker processes of one server."""

    def __init__(self, slots: int, time_limit: float):
        self.slots = slots
        self.time_limit = time_limit
        self._free = anyio.Semaphore(slots)
        self._waiting = 0
        self._idle: list[_Worker] = []
        self._lock = threading.Lock()
        # fork: a worker starts at once with the server's modules and caches
        # (the rule book) already loaded
        self._context = multiprocessing.get_context("fork")

    async def run(self, fn: Callable, *args) -> Any:
        """``fn(*args)`` (a module-level function) in a worker process within
        the time limit; raises :class:`Busy`, :class:`Late`, the work's
        InputError, or RuntimeError for a failure of the work (a bug)."""
        if self._waiting >= self.slots * QUEUE_PER_SLOT:
            raise Busy(f"busy: {self.slots} requests are being worked on and "
                       f"{self._waiting} are waiting; try again shortly")
        try:
            self._free.acquire_nowait()
        except anyio.WouldBlock:
            await self._wait_for_a_slot()
        try:
            answer = await anyio.to_thread.run_sync(self._work, fn, args)
        finally:
            self._free.release()
        if answer[0] == "ok":
            return answer[1]
        # (no local names the error: a frame holding it would make a cycle
        # with its traceback, and keep the request's upload until the next
        # garbage collection)
        raise _rebuilt(answer)

    async def _wait_for_a_slot(self) -> None:
        self._waiting += 1
        try:
            with anyio.fail_after(self.time_limit):
                await self._free.acquire()
        except TimeoutError:
            raise Busy(f"busy: no worker came free within {self.time_limit:g} s; try again "
                       "shortly") from None
        finally:
            self._waiting -= 1

    def _start(self) -> _Worker:
        conn, child = self._context.Pipe()
        root = tempfile.mkdtemp(prefix="uschess-web-worker-")
        process = self._context.Process(target=_serve, args=(child, root), daemon=True)
        process.start()
        child.close()
        return _Worker(process, conn, root)

    def _take(self) -> tuple[_Worker, bool]:
        """An idle worker (and True), or a new one (and False)."""
        with self._lock:
            while self._idle:
                worker = self._idle.pop()
                if worker.process.is_alive():
                    return worker, True
                worker.stop()
        return self._start(), False

    def _work(self, fn: Callable, args: tuple) -> tuple:
        """Send the task to a worker and wait for its answer up to the time
        limit, killing the worker past that (blocking: run in a thread of the
        server).  A worker that left while idle is replaced once."""
        for _ in range(2):
            worker, was_idle = self._take()
            try:
                worker.conn.send((fn, args))
                if not worker.conn.poll(self.time_limit):
                    worker.stop()
                    raise Late()
                retire, answer = worker.conn.recv()
            except (EOFError, BrokenPipeError, ConnectionResetError):
                worker.stop()
                if was_idle:
                    continue  # it had just timed out of its idleness: another
                return ("error", "the worker process ended without an answer")
            if retire:
                worker.process.join(5)
                worker.stop()
            else:
                with self._lock:
                    self._idle.append(worker)
            return answer
        return ("error", "no worker process could be started")
