"""Sweep reform values: evaluate every combination on a Dask cluster.

``--vary bonus_multiplier=6,8,10`` (repeatable) makes one reform per
combination of values, each setting its parameters from ``--from`` onwards
over the baseline (:mod:`uschess.calendar.reform` builds and validates every
one before anything runs).  The baseline and each combination are evaluated
(:func:`uschess.apps.evaluate.evaluate_side`) as independent tasks on Dask
distributed: a local cluster of worker processes by default, or the
cluster whose scheduler address is given.  The history is loaded once, here,
and sent to every worker with the tasks, so workers need the ``uschess``
package but not the files.

Every finished task is written at once to the results file (all or
nothing), keyed by its combination; a rerun with the same results file and
history skips what is there.  The ranked table is the one ``evaluate``
prints for the same versions in the same order (baseline first, then the
combinations in the order of the values given): the numbers are the same,
bit for bit.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import itertools
import json
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional, Sequence

import yaml

from uschess.apps.compare import RuleSide, parse_rules_spec
from uschess.apps.evaluate import Evaluation, VersionScores, evaluate_side
from uschess.calendar.reform import reform_from_dict
from uschess.calendar.rulebook import RuleBook
from uschess.errors import InputError
from uschess.io.eventfile import number_field, event_to_dict, mapping, parse_date
from uschess.io.files import write_text_atomic
from uschess.io.textdata import parse_data, read_limited_text, refuse_unknown
from uschess.model import Event
from uschess.rating.pipeline import RatingOptions

RESULTS_FORMAT = "uschess-sweep-1"
BASELINE = "baseline"
#: The largest results file read: a version of a 4,000-event history keeps
#: about 0.5 MB (a tally per event), so a thousand versions fit.
MAX_RESULTS_BYTES = 1024 * 1024 * 1024
#: What a results file holds at the top, and for each finished version.
RESULTS_KEYS = {"format", "history", "settings", "results"}
RESULT_KEYS = {"state", "cpu_seconds", "seconds"}


@dataclass(frozen=True)
class Vary:
    """One ``--vary PARAM=V1,V2,...``."""

    param: str
    values: tuple


def parse_vary(text: str) -> Vary:
    """``PARAM=V1,V2,...``; values read as YAML scalars (numbers stay numbers)."""
    param, eq, raw = text.partition("=")
    param = param.strip()
    if not eq or not param or not raw.strip():
        raise InputError(f"--vary {text!r}: write PARAM=V1,V2,...")
    values = []
    for item in raw.split(","):
        item = item.strip()
        if not item:
            raise InputError(f"--vary {text!r}: an empty value")
        try:
            values.append(yaml.safe_load(item))
        except yaml.YAMLError:
            raise InputError(f"--vary {text!r}: {item!r} is not a value")
    if len(set(map(repr, values))) < len(values):
        raise InputError(f"--vary {text!r}: a value is given twice")
    return Vary(param, tuple(values))


@dataclass
class Combination:
    """One combination of values, as a reform over the baseline."""

    key: str            # "bonus_multiplier=10,other=..." (or "baseline")
    values: dict
    side: RuleSide


def combinations(varies: Sequence[Vary], start: Optional[_dt.date] = None, *,
                 book: Optional[RuleBook] = None) -> list[Combination]:
    """The baseline, then every combination of the values (the first
    ``--vary`` changing slowest), each a reform validated as a reform file
    would be.  ``start``: the reform's ``from`` (default: each parameter's
    first dated value, so the whole history)."""
    book = book or RuleBook.load()
    if not varies:
        raise InputError("give at least one --vary PARAM=V1,V2,...")
    params = [v.param for v in varies]
    if len(set(params)) < len(params):
        raise InputError("--vary: a parameter is varied twice")
    out = [Combination(BASELINE, {}, parse_rules_spec(BASELINE, book=book))]
    for values in itertools.product(*(v.values for v in varies)):
        chosen = dict(zip(params, values))
        key = ",".join(f"{p}={json.dumps(x) if not isinstance(x, str) else x}"
                       for p, x in chosen.items())
        raw = {"name": key, "parameters": {}}
        for p, x in chosen.items():
            if p not in book.timelines:
                raise InputError(f"--vary {p}: no such parameter (known: "
                                 f"{', '.join(sorted(book.timelines))})")
            since = start or book.timelines[p].entries[0].effective
            raw["parameters"][p] = [{"from": since.isoformat(), "value": x}]
        reform = reform_from_dict(raw, source=f"--vary {key}", book=book)
        since = start.isoformat() if start else "each parameter's first date"
        out.append(Combination(key, chosen, RuleSide(
            key, f"reform {key} from {since}", RatingOptions(reform=reform))))
    return out


def history_fingerprint(events, truth: Optional[dict]) -> str:
    """A digest of the events (as written to an event file) and the truth."""
    h = hashlib.sha256()
    for e in events:
        data = event_to_dict(e) if isinstance(e, Event) else dataclasses.asdict(e)
        h.update(json.dumps(data, sort_keys=True, default=str).encode())
    if truth:
        for k in sorted(truth):
            h.update(repr((k, sorted(truth[k].items()))).encode())
    return h.hexdigest()


#: Histories a worker process has read, by what read them (see ``run_task``):
#: the last :data:`READ_KEPT`, so that a sweep over several histories (whose
#: tasks are submitted history by history) reads each about once a worker.
_READ: dict = {}
READ_KEPT = 2


def _history_on_worker(history):
    """``history`` as (events, truth): given, or read once per worker process
    by ``history`` itself, a picklable function of no arguments (a
    ``functools.partial``) that reads it from files the workers share."""
    if not callable(history):
        return history
    key = (getattr(history, "func", history).__qualname__,
           repr(getattr(history, "args", ())), repr(getattr(history, "keywords", {})))
    if key in _READ:
        _READ[key] = _READ.pop(key)  # the most recently used last
    else:
        while len(_READ) >= READ_KEPT:
            del _READ[next(iter(_READ))]
        _READ[key] = history()
    return _READ[key]


def run_task(history, side: RuleSide, drift_system: str) -> dict:
    """One combination, on a worker: its scores (as a results-file state),
    the worker's CPU time and the wall time of the task."""
    events, truth = _history_on_worker(history)
    wall, cpu = time.perf_counter(), time.process_time()
    vs, _ = evaluate_side(side, events, truth=truth, drift_system=drift_system)
    return {"state": vs.to_state(), "cpu_seconds": time.process_time() - cpu,
            "seconds": time.perf_counter() - wall}


class ResultsFile:
    """Finished combinations of a sweep, kept on disk (JSON, rewritten all
    or nothing after every task)."""

    def __init__(self, path, fingerprint: str, settings: dict):
        self.path = Path(path) if path else None
        self.fingerprint = fingerprint
        self.settings = settings
        self.done: dict = {}
        if self.path and self.path.exists():
            self.done = self._read()
        elif self.path and not self.path.parent.is_dir():
            raise InputError("the directory to write into does not exist", file=self.path)

    def _read(self) -> dict:
        """The finished versions of the file, every one checked before
        anything runs (the file is JSON read as every input is: a regular
        file, no key twice, finite numbers)."""
        text = read_limited_text(self.path, MAX_RESULTS_BYTES, "sweep results file")
        data = parse_data(text, json_format=True, source=self.path)
        if not isinstance(data, dict) or data.get("format") != RESULTS_FORMAT:
            raise InputError(f"not a sweep results file ({RESULTS_FORMAT})", file=self.path)
        try:
            refuse_unknown(data, RESULTS_KEYS, "the file")
        except InputError as err:
            raise err.located(file=self.path)
        if data.get("history") != self.fingerprint:
            raise InputError("holds results of another history: give another --results "
                             "file or remove it", file=self.path)
        if data.get("settings") != self.settings:
            raise InputError(f"holds results of other settings ({data.get('settings')}): "
                             "give another --results file or remove it", file=self.path)
        try:
            results = mapping(data.get("results"), "results")
            for key, result in results.items():
                check_result(result, f"results[{key!r}]")
        except InputError as err:
            raise err.located(file=self.path)
        return results

    def add(self, key: str, result: dict) -> None:
        self.done[key] = result
        if self.path:
            write_text_atomic(self.path, json.dumps(
                {"format": RESULTS_FORMAT, "history": self.fingerprint, "settings": self.settings,
                 "results": self.done}, indent=1, allow_nan=False) + "\n")


def check_result(result, what: str) -> None:
    """Refuse a finished version that is not what :func:`run_task` made:
    its scores (:meth:`VersionScores.from_state` checks every part) and
    its times."""
    result = mapping(result, what)
    refuse_unknown(result, RESULT_KEYS, what)
    if "state" not in result:
        raise InputError(f"{what}: missing 'state'")
    VersionScores.from_state(result["state"], f"{what}.state")
    for key in ("cpu_seconds", "seconds"):
        number_field(result, key, what, required=True, lo=0)


@dataclass
class SweepResult:
    combinations: list[Combination]
    evaluation: Evaluation
    cpu_seconds: dict
    skipped: list

    def as_dict(self) -> dict:
        data = self.evaluation.as_dict()
        data["combinations"] = [{"key": c.key, "values": c.values,
                                 "cpu_seconds": self.cpu_seconds.get(c.key)}
                                for c in self.combinations]
        data["resumed"] = list(self.skipped)
        return data


def open_client(scheduler: Optional[str], workers: int, timeout: float = 20.0):
    """A Dask client: of the cluster at ``scheduler``, or of a new local
    cluster of ``workers`` single-threaded worker processes (returned too,
    to be closed)."""
    try:
        from dask.distributed import Client, LocalCluster
    except ImportError:
        raise InputError("sweep needs Dask distributed: pip install 'uschess-ratings[cluster]'")
    import asyncio
    import logging
    if scheduler:
        class BoundedClient(Client):
            """A client whose whole start, the scheduler's answer to the
            handshake included, takes at most its ``timeout``: Dask bounds
            the connection and each later step by it, not the handshake (a
            peer that accepts the connection and never answers would be
            waited on for ever)."""

            def start(self, **kwargs):
                super().start(callback_timeout=kwargs.get("timeout"), **kwargs)

        try:
            return BoundedClient(scheduler, timeout=timeout), None
        except (TimeoutError, asyncio.TimeoutError):  # (one class from Python 3.11 on)
            raise InputError(f"--scheduler {scheduler}: no answer within {timeout:g} s "
                             "(--timeout)")
        except (OSError, ValueError, TypeError) as err:
            # TypeError: a scheme Dask knows but cannot use here (ucx://
            # without UCX, tls:// without certificates)
            raise InputError(f"--scheduler {scheduler}: cannot connect ({err})")
    cluster = LocalCluster(n_workers=workers, threads_per_worker=1, processes=True,
                           dashboard_address=":0", silence_logs=logging.ERROR)
    return Client(cluster), cluster


@dataclass
class SweepHistory:
    """One history a sweep evaluates: its name (as given), events and true
    strengths, and ``reader``, a picklable function of no arguments giving
    (events, truth) from files every worker can read at the same paths (each
    worker process then reads the history itself instead of receiving it:
    sending a large history to every worker takes longer than reading it),
    or None (the history is sent)."""

    name: str
    events: list
    truth: Optional[dict]
    reader: Optional[Callable[[], tuple]] = None


def histories_fingerprint(histories: Sequence[SweepHistory]) -> str:
    """What a results file of a sweep over ``histories`` is keyed by: the
    one history's fingerprint, or a digest of every history's in order."""
    prints = [history_fingerprint(h.events, h.truth) for h in histories]
    if len(prints) == 1:
        return prints[0]
    return hashlib.sha256("\n".join(prints).encode()).hexdigest()


def _result_key(k: int, many: bool, combo: Combination) -> str:
    """A task's key in the results file: the combination's, prefixed with
    the history's place where there are several."""
    return f"{k + 1}/{combo.key}" if many else combo.key


def sweep(events, truth, combos: Sequence[Combination], *, results: ResultsFile,
          reader: Optional[Callable[[], tuple]] = None, **kwargs) -> SweepResult:
    """:func:`sweep_histories` of one history."""
    return sweep_histories([SweepHistory("history", events, truth, reader)], combos,
                           results=results, **kwargs)[0]


def sweep_histories(histories: Sequence[SweepHistory], combos: Sequence[Combination], *,
                    results: ResultsFile, drift_system: str = "OTBR",
                    scheduler: Optional[str] = None, workers: int = 2, timeout: float = 20.0,
                    started: Optional[Callable[[list, list], None]] = None,
                    progress: Optional[Callable[[int, int, str, dict], None]] = None
                    ) -> list[SweepResult]:
    """Evaluate every combination on every history, one task each (those
    not yet in ``results``), on the cluster; per history, the evaluation of
    all, in the order of ``combos``.  ``started(todo, skipped)`` is called
    once the cluster is reached, ``progress(done, total, key, result)`` as
    each task finishes (keys name the history's place where there are
    several)."""
    many = len(histories) > 1
    tasks = [(_result_key(k, many, c), k, c) for k, _ in enumerate(histories) for c in combos]
    todo = [t for t in tasks if t[0] not in results.done]
    skipped = [key for key, _, _ in tasks if key in results.done]
    if todo:
        _run_tasks(histories, todo, skipped, len(tasks), results, drift_system, scheduler,
                   workers, timeout, started, progress)
    out = []
    for k, h in enumerate(histories):
        versions = []
        for c in combos:
            vs = VersionScores.from_state(results.done[_result_key(k, many, c)]["state"])
            vs.spec, vs.label = c.key, c.side.label
            versions.append(vs)
        cpu = {c.key: results.done[_result_key(k, many, c)].get("cpu_seconds") for c in combos}
        out.append(SweepResult(list(combos), Evaluation(versions, len(h.events), h.truth is not None),
                               cpu, [c.key for c in combos if _result_key(k, many, c) in skipped]))
    return out


def _run_tasks(histories, todo, skipped, total, results, drift_system, scheduler, workers,
               timeout, started, progress) -> None:
    """The tasks ``todo`` (key, history's place, combination) on the
    cluster, each result kept in ``results`` as it finishes; submitted
    history by history."""
    from dask.distributed import as_completed
    client, cluster = open_client(scheduler, workers, timeout)
    try:
        if started:
            started([key for key, _, _ in todo], skipped)
        sent: dict = {}
        futures = {}
        for key, k, combo in todo:
            h = histories[k]
            if k not in sent:
                sent[k] = h.reader if h.reader is not None else \
                    client.scatter((h.events, h.truth), broadcast=True)
            futures[client.submit(run_task, sent[k], combo.side, drift_system, pure=False)] = key
        done = len(skipped)
        for fut in as_completed(futures):
            key = futures[fut]
            out = fut.result()
            results.add(key, out)
            done += 1
            if progress:
                progress(done, total, key, out)
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def parse_from(text: Optional[str]) -> Optional[_dt.date]:
    return parse_date(text, "--from") if text else None
