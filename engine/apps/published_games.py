"""The rated games of published crosstable pages, with the ratings the page
printed before the event: what ``uschess evaluate --published`` scores and
what the generator's calibration is fitted to.

Every page goes through the one page reader (:func:`uschess.io.formats.pages.read_page`)
and the one page-to-event step (:func:`uschess.io.formats.page_event.event_from_page`),
and the event is rated on its own under the rules in force on each
section's date (:func:`uschess.rating.pipeline.rate_event`): the rating says,
for each player, the pre-event rating the page printed (or, for an unrated
player, the step-1 initial rating the rules start them from), the games
before the event, and whether sec. 4.1's special formula or the standard
formula rated them.  Nothing is carried from one page to another: a page is
scored by what it printed.

Reading and rating the pages is the heavy part: it runs in local worker
processes (``workers``) or on a Dask cluster (``scheduler``), a chunk of
pages per task.  A page that cannot be read or rated is left out and named
with its one-line reason (:class:`PageOutcome`); the caller decides whether
that is an error.
"""

from __future__ import annotations

import datetime as _dt
import math
import os
from concurrent.futures import ProcessPoolExecutor, as_completed
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence

from uschess.errors import InputError

#: Pages per task sent to a worker.
CHUNK = 16
#: Files in a directory that are never pages (a corpus's manifest and notes).
NOT_PAGES = (".md", ".tsv")


@dataclass(frozen=True, slots=True)
class PageGame:
    """One rated game of a page, seen from player ``a`` (the lower pair
    number; the measures are the same from either side).  ``r``/``ri`` are
    the ratings the game is scored with: the printed pre-event rating, or the
    rules' step-1 initial rating for an unrated player."""

    event: str
    section: str
    on: _dt.date
    system: str
    kind: str
    r: float
    ri: float
    status: str
    status_i: str
    special: bool
    special_i: bool
    score: float


@dataclass(frozen=True, slots=True)
class SectionShape:
    """The size of one section in one system: players, rounds, how many
    players were unrated before it, how many rated games it had and the
    standard deviation of its rated players' pre-event ratings (None below
    two)."""

    event: str
    section: str
    on: _dt.date
    system: str
    kind: str
    players: int
    rounds: int
    unrated: int
    games: int
    spread: Optional[float] = None


@dataclass(frozen=True, slots=True)
class PrintedChange:
    """A player's printed ratings around one section: ``pre`` None for an
    unrated player (then ``post`` is their first published rating and
    ``games`` the rated games it rests on); ``player`` the member id and
    ``played`` the rated games of the section."""

    event: str
    section: str
    on: _dt.date
    system: str
    kind: str
    status: str
    pre: Optional[float]
    post: float
    games: int
    player: str = ""
    played: int = 0


@dataclass
class PageRecords:
    """What one page (or one event of a history) gave: its games, the
    shape of each section in each system, and each player's ratings around
    each section."""

    source: str
    event: str
    games: list[PageGame] = field(default_factory=list)
    shapes: list[SectionShape] = field(default_factory=list)
    changes: list[PrintedChange] = field(default_factory=list)


@dataclass
class PageOutcome:
    """A page read (``records``) or left out (``reason``, one line)."""

    source: str
    records: Optional[PageRecords] = None
    reason: Optional[str] = None


def status_of(pre: Optional[float], games_before: int, established: int) -> str:
    """``unrated`` (no pre-event rating), ``provisional`` (rated on at most
    ``established`` games, the page's ``P<n>``) or ``established``."""
    if pre is None:
        return "unrated"
    return "established" if games_before > established else "provisional"


def page_files(paths: Sequence[str]) -> list[str]:
    """Pages given as files, or every file under a directory (its
    subdirectories too, in name order; a manifest or notes file is no page)."""
    out: list[str] = []
    for raw in paths:
        path = Path(raw)
        if not path.is_dir():
            if not path.exists():
                raise InputError("no such file or directory", file=raw)
            out.append(raw)
            continue
        try:
            found = sorted(str(p) for p in path.rglob("*")
                           if p.is_file() and p.suffix.lower() not in NOT_PAGES)
        except OSError as err:
            raise InputError(f"cannot list the directory: {err.strerror or err}", file=raw)
        if not found:
            raise InputError("directory holds no files", file=raw)
        out.extend(found)
    return out


def page_records(path: str, book=None) -> PageRecords:
    """Read, rate and take apart one page (:class:`InputError` when it
    cannot be read or rated)."""
    from uschess.calendar.rulebook import RuleBook
    from uschess.io.formats.msa import ESTABLISHED_GAMES
    from uschess.io.formats.page_event import event_from_page
    from uschess.io.formats.pages import read_page
    from uschess.rating.pipeline import RatingOptions, rate_event

    page = read_page(path)
    event, published, _, _ = event_from_page(page)
    result = rate_event(event, RatingOptions(trace=False), book or RuleBook.load())
    key = event.id or str(path)  # no id printed: the file stands for the event
    out = PageRecords(source=str(path), event=key)
    established = {}
    for sr in result.sections:
        # the section as the page gave it: the rating of the event may carry
        # an earlier section's post into the record of a player of this one
        add_section(out, key, sr, next((s for s in event.sections if s.name == sr.section.name),
                                       sr.section))
        established[(sr.section.name, sr.system)] = sr.rules.p.established_games
    for name, player, system in published:
        printed = player.ratings.get(system)
        if printed is None or printed.post is None:
            continue
        games = printed.post_games if printed.post_games is not None else 0
        on = next((s.start for s in event.sections if s.name == name), event.start)
        kind = next((s.kind for s in event.sections if s.name == name), "swiss")
        # as the games are told apart (online pages print counts past the
        # established threshold); a system the rules did not rate the section
        # in: by the marks alone
        est = established.get((name, system))
        if est is None:
            status = ("unrated" if printed.pre is None else
                      "provisional" if printed.pre_games is not None else "established")
        else:
            status = status_of(printed.pre, ESTABLISHED_GAMES if printed.pre_games is None
                               else printed.pre_games, est)
        played = sum(1 for r in player.rounds if r.rated)
        out.changes.append(PrintedChange(key, name, on, system, kind, status, printed.pre,
                                         printed.post, games, player.id, played))
    return out


def add_section(out: PageRecords, key: str, sr, given) -> None:
    """The games and shape of one rated section (``sr``, a
    :class:`~uschess.rating.results.SectionResult`) added to ``out``: each
    player scored at the pre-event rating ``given`` (the section as its
    file states it) prints, else at the rated pre-event rating, else at the
    step-1 initial rating."""
    section, system = sr.section, sr.system
    est = sr.rules.p.established_games
    rated = {p.pair: p for p in sr.players if p.m}
    printed = {p.pair: p.ratings.get(system) for p in given.players}
    used, status = {}, {}
    for pair, pr in rated.items():
        rec = printed.get(pair)
        if rec is not None and rec.rating is not None:
            used[pair], status[pair] = rec.rating, status_of(rec.rating, rec.games, est)
        else:
            used[pair] = pr.pre if pr.pre is not None else pr.initial.rating
            status[pair] = status_of(pr.pre, pr.games_before, est)
    games = 0
    for entry in section.players:
        if entry.pair not in rated:
            continue
        for rnd in entry.rounds:
            if not rnd.rated or rnd.opponent not in rated:
                continue
            games += 1
            if entry.pair > rnd.opponent:
                continue
            a, b = rated[entry.pair], rated[rnd.opponent]
            out.games.append(PageGame(
                key, section.name, section.start, system, section.kind,
                used[a.pair], used[b.pair], status[a.pair], status[b.pair],
                a.formula == "special", b.formula == "special", rnd.points))
    rounds = max((len(p.rounds) for p in section.players), default=0)
    unrated = sum(1 for p in sr.players if p.pre is None)
    known = [used[p] for p in rated if status[p] != "unrated"]
    spread = None
    if len(known) >= 2:
        mean = sum(known) / len(known)
        spread = math.sqrt(sum((x - mean) ** 2 for x in known) / (len(known) - 1))
    out.shapes.append(SectionShape(key, section.name, section.start, system, section.kind,
                                   len(section.players), rounds, unrated, games // 2, spread))


def history_records(rated) -> list[PageRecords]:
    """The records of a replayed history (``(key, event, result)`` as
    :func:`uschess.apps.evaluate.replay_chain` gives them) as if each event
    were a page printing the ratings the replay gave: the same games,
    shapes and changes (a first rating: the post of a player unrated
    before), for the figures of a generated history beside a corpus's."""
    out = []
    for key, event, result in rated:
        rec = PageRecords(source=str(key), event=str(key))
        for sr in result.sections:
            add_section(rec, str(key), sr, sr.section)
            est = sr.rules.p.established_games
            for pr in sr.players:
                if pr.post is None or not pr.m:
                    continue
                rec.changes.append(PrintedChange(
                    str(key), sr.section.name, sr.section.start, sr.system, sr.section.kind,
                    status_of(pr.pre, pr.games_before, est), pr.pre, pr.post, pr.games_after,
                    pr.id, pr.m))
        out.append(rec)
    return out


def _read_chunk(paths: Sequence[str]) -> list[PageOutcome]:
    """A worker's task: each page read, or the reason it is left out."""
    out = []
    for path in paths:
        try:
            out.append(PageOutcome(path, records=page_records(path)))
        except InputError as err:
            out.append(PageOutcome(path, reason=str(err)))
    return out


def read_pages(paths: Sequence[str], *, workers: int = 1, scheduler: Optional[str] = None,
               progress: Optional[Callable[[int], None]] = None) -> list[PageOutcome]:
    """Every page of ``paths`` read and rated, in the order given: in this
    process (``workers`` 1), in ``workers`` local processes, or on the Dask
    cluster at ``scheduler``.  ``progress(k)`` is called as k more pages are
    done."""
    chunks = [list(paths[i:i + CHUNK]) for i in range(0, len(paths), CHUNK)]
    done: dict[int, list[PageOutcome]] = {}
    if scheduler is None and (workers <= 1 or len(chunks) <= 1):
        for i, chunk in enumerate(chunks):
            done[i] = _read_chunk(chunk)
            if progress:
                progress(len(chunk))
    elif scheduler is None:
        with ProcessPoolExecutor(max_workers=min(workers, len(chunks))) as pool:
            futures = {pool.submit(_read_chunk, chunk): i for i, chunk in enumerate(chunks)}
            for fut in as_completed(futures):
                i = futures[fut]
                done[i] = fut.result()
                if progress:
                    progress(len(chunks[i]))
    else:
        done = _on_dask(chunks, scheduler, workers, progress)
    return [o for i in range(len(chunks)) for o in done[i]]


def _on_dask(chunks, scheduler: str, workers: int, progress) -> dict:
    from uschess.apps.sweep import open_client
    client, cluster = open_client(scheduler, workers)
    try:
        from dask.distributed import as_completed as dask_completed
        futures = [client.submit(_read_chunk, chunk, pure=False) for chunk in chunks]
        index = {f.key: i for i, f in enumerate(futures)}
        done = {}
        for fut in dask_completed(futures):
            i = index[fut.key]
            done[i] = fut.result()
            if progress:
                progress(len(chunks[i]))
        return done
    finally:
        client.close()
        if cluster is not None:
            cluster.close()


def unique_sections(outcomes: Iterable[PageOutcome]) -> tuple[list[PageRecords], int]:
    """The records of the pages read, each (event, section, system) taken
    from the first page that holds it (an event's "all sections" page and
    its section pages print the same games), and how many sections were
    left out as repeats."""
    seen: set = set()
    kept, repeats = [], 0
    for o in outcomes:
        if o.records is None:
            continue
        rec = o.records
        fresh = {(s.event, s.section, s.system) for s in rec.shapes} - seen
        twice = {(s.event, s.section, s.system) for s in rec.shapes} & seen
        repeats += len(twice)
        if not fresh:
            continue
        seen |= fresh
        kept.append(PageRecords(
            rec.source, rec.event,
            [g for g in rec.games if (g.event, g.section, g.system) in fresh],
            [s for s in rec.shapes if (s.event, s.section, s.system) in fresh],
            [c for c in rec.changes if (c.event, c.section, c.system) in fresh]))
    return kept, repeats


def default_workers() -> int:
    """One worker per core this process may use."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # not on every platform
        return max(1, os.cpu_count() or 1)
