"""Heavy work of the web app in processes that can be stopped.

A request's work (rating an upload, an audit, a report to download, a
store's player and plot) runs in a process of its own, forked from the
server (the estimator's, bounded by its rows, runs in a thread: see
``WebApp.run_bounded``): at the time limit the process
is killed, so the work stops and its memory goes back to the system with it
(a thread cannot be stopped: it would go on burning a core after the client
was answered).  At most ``slots`` such processes run at once; a request
beyond them waits its turn for up to the time limit, and is answered 503
(busy) past it, or at once when :data:`QUEUE_PER_SLOT` requests per slot
are already waiting.

The process answers through a pipe with a pickled ``("ok", value)``, or the
:class:`~uschess.errors.InputError` its work raised, rebuilt here so that
the answer is the one located line of the command line.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import signal
import traceback
from typing import Any, Callable

import anyio

from uschess.errors import InputError

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


def _child(conn, fn: Callable, args: tuple) -> None:
    """The worker process: run ``fn(*args)`` and send what came of it."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # Ctrl-C on the server stops it too
    # the objects inherited from the server are left out of the cycle
    # collector's walks: a walk writes to every object it visits, and each
    # page written is copied from the server's (tens of milliseconds)
    gc.freeze()
    try:
        answer: tuple = ("ok", fn(*args))
    except InputError as err:
        answer = ("input", err.message, {k: getattr(err, k) for k in _WHERE})
    except BaseException:  # noqa: BLE001 - reported to the server as an internal error
        answer = ("error", traceback.format_exc())
    try:
        conn.send(answer)
    except Exception:  # noqa: BLE001 - an answer that cannot be pickled
        conn.send(("error", traceback.format_exc()))
    finally:
        conn.close()


def _rebuilt(answer: tuple) -> Exception:
    """The exception a worker's failed answer stands for."""
    if answer[0] == "input":
        err = InputError(answer[1])
        for key, value in answer[2].items():
            setattr(err, key, value)
        return err
    return RuntimeError(f"the worker process failed:\n{answer[1]}")


class Workers:
    """The bounded pool of worker processes of one server."""

    def __init__(self, slots: int, time_limit: float):
        self.slots = slots
        self.time_limit = time_limit
        self._free = anyio.Semaphore(slots)
        self._waiting = 0
        # fork: the process starts at once with the server's modules and
        # caches (the rule book) already loaded, and nothing to pickle but
        # the answer
        self._context = multiprocessing.get_context("fork")

    async def run(self, fn: Callable, *args) -> Any:
        """``fn(*args)`` in a worker process within the time limit; raises
        :class:`Busy`, :class:`Late`, the work's InputError, or
        RuntimeError for a failure of the work (a bug)."""
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

    def _work(self, fn: Callable, args: tuple) -> tuple:
        """Start the process, wait for its answer up to the time limit, and
        kill it past that (blocking: run in a thread of the server)."""
        receiver, sender = self._context.Pipe(duplex=False)
        process = self._context.Process(target=_child, args=(sender, fn, args), daemon=True)
        try:
            process.start()
            sender.close()
            if not receiver.poll(self.time_limit):
                raise Late()
            try:
                return receiver.recv()
            except EOFError:  # the process died without answering
                process.join(1)
                return ("error", f"the worker process ended with status {process.exitcode} "
                                 "and no answer")
        finally:
            receiver.close()
            if process.is_alive():
                process.kill()
            process.join()
            process.close()
