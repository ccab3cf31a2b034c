"""What the benchmarks share: CPU time of child processes, interleaved
medians, the generated inputs and the checks that the engine and the minimal
implementation (``benchmarks/minimal.py``) agree.

CPU time, not wall time: the machine is shared.  A child's CPU seconds and
peak RSS come from ``os.wait4`` (its own resource usage, not the sum over
all children), an in-process measurement from ``time.process_time``.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

ROOT = Path(__file__).resolve().parent.parent
BENCH = Path(__file__).resolve().parent
MINIMAL = BENCH / "minimal.py"
#: The date of the generated sections and histories: one set of rules.
DAY = _dt.date(2025, 3, 21)
YEAR = (_dt.date(2025, 1, 1), _dt.date(2025, 12, 20))


@dataclass
class ChildRun:
    """One child process: CPU seconds (user + system), peak RSS in MB, wall
    seconds, its standard output and the bytes it read and wrote (the
    kernel's count of its read and write calls, ``rchar`` and ``wchar`` of
    ``/proc/PID/io``; None where the system does not keep it)."""

    cpu: float
    rss_mb: float
    wall: float
    out: str
    read: Optional[int] = None
    written: Optional[int] = None


#: A small launcher between this process and the measured one.  Linux counts
#: in a child's peak RSS the memory of the process it was forked from (up to
#: its exec), so the measured command is forked from this small interpreter,
#: not from the benchmark, and its own usage is read with ``os.wait4``; before
#: that, while the ended child is still there to be asked (``WNOWAIT``), its
#: I/O counts are read from ``/proc``.
_LAUNCH = """
import json, os, sys
pid = os.fork()
if pid == 0:
    os.execvp(sys.argv[2], sys.argv[2:])
io = {}
try:
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)
    with open(f"/proc/{pid}/io") as f:
        io = dict(line.split(": ") for line in f.read().split("\\n") if ": " in line)
except (OSError, AttributeError, ValueError):
    pass
_, status, ru = os.wait4(pid, 0)
with open(sys.argv[1], "w") as f:
    json.dump([ru.ru_utime + ru.ru_stime, ru.ru_maxrss, os.waitstatus_to_exitcode(status),
               io.get("rchar"), io.get("wchar")], f)
"""


def _shown(cmd: list) -> str:
    """A command for a message: long argument lists cut short."""
    words = [str(c) for c in cmd]
    return " ".join(words if len(words) <= 8 else words[:5] + [f"... ({len(words) - 7} more)"]
                    + words[-2:])


def run_child(cmd: list, **kw) -> ChildRun:
    """Run ``cmd`` to the end and measure it; a failure stops the benchmark."""
    with tempfile.TemporaryDirectory() as tmp:
        usage = os.path.join(tmp, "usage.json")
        t0 = time.perf_counter()
        proc = subprocess.run([sys.executable, "-I", "-S", "-c", _LAUNCH, usage, *map(str, cmd)],
                              capture_output=True, text=True, **kw)
        wall = time.perf_counter() - t0
        if not os.path.exists(usage):
            raise SystemExit(f"{_shown(cmd)} could not be run:\n{proc.stderr.strip()}")
        with open(usage) as f:
            cpu, maxrss_kb, code, read, written = json.load(f)
    if code != 0:
        raise SystemExit(f"{_shown(cmd)} failed ({code}):\n{proc.stderr.strip()}")
    return ChildRun(cpu, maxrss_kb / 1024.0, wall, proc.stdout,
                    None if read is None else int(read), None if written is None else int(written))


def child_env(folder: Path, compile_each_run: bool = False) -> dict:
    """The environment of measured children, as an installed package starts:
    the compiled rule book cached in a private folder (``USCHESS_CACHE_DIR``,
    written by the first run) and, unless ``compile_each_run``, the modules'
    bytecode too (a private ``PYTHONPYCACHEPREFIX``; pip compiles a package's
    modules when it installs it).  Without it, where ``PYTHONDONTWRITEBYTECODE``
    is set (as on this machine), a child compiles every module it imports
    from source at every start, a cost a user's installed command does not
    have (0.56 G instructions of ``uschess replay``, 4% of a replay of
    193,816 player-games; the yardstick is one module).  Run each command
    once before timing it, so that both caches are filled."""
    env = dict(os.environ, USCHESS_CACHE_DIR=str(Path(folder) / "uschess-cache"))
    if not compile_each_run:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(Path(folder) / "pycache")
    return env


def add_compile_each_run(ap) -> None:
    """The ``--compile-each-run`` option of the benchmarks that start
    children (see :func:`child_env`)."""
    ap.add_argument("--compile-each-run", action="store_true",
                    help="no cached bytecode for the children (every module compiled at every "
                         "start, as with PYTHONDONTWRITEBYTECODE); default: cached as after "
                         "pip install")


def instructions(cmd: list, **kw) -> int:
    """The instructions ``cmd`` executes, counted by valgrind's cachegrind
    (``--cache-sim=no``: the count alone).  Unlike CPU time it does not move
    with the machine's load: on a shared machine whose CPU time per second
    of work moves by a tenth or more from run to run, the count is the same
    every time, given the same state (a run that compiles modules and writes
    their bytecode counts the compiling, the next one does not).  The child
    runs with a fixed hash seed (``PYTHONHASHSEED=0`` unless its environment
    sets one): with a random one, the count of ``python -S -c pass`` moved
    by up to 0.3% between runs; with the seed fixed it is the same to the
    instruction.  The child runs some 30 to 50 times slower under valgrind."""
    import shutil

    if shutil.which("valgrind") is None:
        raise SystemExit("--instructions needs valgrind (Debian: apt-get install valgrind)")
    env = dict(kw.pop("env", None) or os.environ)
    env.setdefault("PYTHONHASHSEED", "0")
    with tempfile.TemporaryDirectory() as tmp:
        proc = subprocess.run(["valgrind", "--tool=cachegrind", "--cache-sim=no",
                               f"--cachegrind-out-file={os.path.join(tmp, 'out')}",
                               *map(str, cmd)], capture_output=True, text=True, env=env, **kw)
    if proc.returncode != 0:
        raise SystemExit(f"{_shown(cmd)} failed under valgrind ({proc.returncode}):\n"
                         f"{proc.stderr.strip()[-2000:]}")
    for line in proc.stderr.splitlines():
        if "I" in line and "refs:" in line:  # "==123== I   refs:      4,602,880,721"
            return int(line.rsplit(":", 1)[1].strip().replace(",", ""))
    raise SystemExit(f"valgrind gave no instruction count for {_shown(cmd)}")


def interleaved(runs: dict[str, Callable[[], float]], repeat: int) -> dict[str, list[float]]:
    """Call each measurement in turn, ``repeat`` rounds (A B A B ...), so
    that a change in the machine's load touches every side alike."""
    got: dict[str, list[float]] = {name: [] for name in runs}
    for _ in range(repeat):
        for name, fn in runs.items():
            got[name].append(fn())
    return got


def median(xs) -> float:
    return statistics.median(xs)


def spread(xs) -> str:
    """min..max of a list of seconds, for the report."""
    return f"{min(xs):.3f}..{max(xs):.3f}"


def python() -> str:
    return sys.executable


def formulas_line() -> str:
    """Which code the engine's runs rate with (``uschess --version`` says the
    same): the compiled kernel (the formulas', the sections'), where built and
    not turned off, or pure Python."""
    from uschess.rating.section import kernel_status

    return f"engine's {kernel_status()}"


def uschess() -> list:
    """The installed ``uschess`` command beside this interpreter (else
    ``python -m uschess``)."""
    script = Path(sys.executable).parent / "uschess"
    return [str(script)] if script.exists() else [python(), "-m", "uschess"]


# ----------------------------------------------------------------- inputs
def swiss_section(rng: random.Random, idx: int, n: int, rounds: int, day: _dt.date = DAY):
    """A Swiss section at G/90;d30 (OTBR only) on ``day``: 75% established or
    provisional players with an OTBR record, the rest new (birth date, adult
    flag); pairings by score group, results drawn from hidden strengths."""
    from uschess.model import Player, Round, Section, SystemRecord

    strengths = [rng.gauss(1500, 350) for _ in range(n)]
    players = []
    for i in range(n):
        ratings = {}
        kind = rng.random()
        if kind < 0.75:
            ratings["OTBR"] = SystemRecord(strengths[i] + rng.gauss(0, 60), rng.randint(26, 900))
        elif kind < 0.92:
            ratings["OTBR"] = SystemRecord(strengths[i] + rng.gauss(0, 120), rng.randint(1, 25))
        players.append(Player(pair=i + 1, id=f"{idx:05d}{i:03d}", name=f"P{idx}-{i}", rounds=[],
                              ratings=ratings, adult=rng.random() < 0.6,
                              birth_date=_dt.date(rng.randint(1950, 2015), 6, 1)))
    score = [0.0] * n
    for _ in range(rounds):
        order = sorted(range(n), key=lambda k: (-score[k], rng.random()))
        if n % 2:
            bye = order.pop()
            players[bye].rounds.append(Round("B"))
            score[bye] += 1
        for a, b in zip(order[::2], order[1::2]):
            e = 1 / (1 + 10 ** ((strengths[b] - strengths[a]) / 400))
            x = rng.random()
            ra, rb = ("W", "L") if x < e - 0.1 else (("D", "D") if x < e + 0.1 else ("L", "W"))
            players[a].rounds.append(Round(ra, b + 1))
            players[b].rounds.append(Round(rb, a + 1))
            score[a] += {"W": 1, "D": 0.5, "L": 0}[ra]
            score[b] += {"W": 1, "D": 0.5, "L": 0}[rb]
    return Section(f"S{idx}", "G/90;d30", players, day, day)


def swiss_event(sections: int, players: int, rounds: int, seed: int = 1):
    """An event of ``sections`` generated Swiss sections (distinct players)."""
    from uschess.model import Event

    rng = random.Random(seed)
    secs = [swiss_section(rng, i, players, rounds) for i in range(sections)]
    return Event("bench", secs[0].start, secs[0].end, secs, id="bench")


def write_year(directory: Path, seed: int, players: int, events: int) -> tuple[list, int]:
    """A generated history of one year (2025: one set of rules) written as
    JSON files named in replay order; returns (paths, player-games)."""
    from uschess.apps.generate import generate_history, player_games
    from uschess.io.eventfile import write_event

    directory.mkdir(parents=True, exist_ok=True)
    paths, games = [], 0
    for i, ev in enumerate(generate_history(seed, players, events, first=YEAR[0], last=YEAR[1])):
        path = directory / f"e{i:07d}.json"
        write_event(ev, path)
        paths.append(path)
        games += player_games(ev)
    return paths, games


def history_size(player_games: int, seed: int) -> tuple[int, int]:
    """(players, events) for about ``player_games`` player-games in a year:
    2.2 players per event, the player-games per event measured on a sample
    of the generator's events (their size grows with the pool)."""
    from uschess.apps.generate import MAX_EVENT_PLAYERS, generate_history, player_games as games_of

    per_event = 100.0
    for _ in range(6):  # a fixed point, damped: the event size grows with the pool
        events = max(10, round(player_games / per_event))
        players = max(200, int(events * 2.2))
        # a sample of the events (enough of them for every player to play in one)
        size = min(events, max(150, 2 * -(-players // MAX_EVENT_PLAYERS)))
        sample = list(generate_history(seed, players, size, first=YEAR[0], last=YEAR[1]))
        per_event = math.sqrt(per_event * sum(games_of(e) for e in sample) / len(sample))
    events = max(10, round(player_games / per_event))
    return max(200, int(events * 2.2)), events


def write_params(path: Path, on: _dt.date = DAY) -> None:
    """The parameters in force on ``on``, for ``minimal.py --params``."""
    run_child([python(), str(MINIMAL), "--write-params", str(path), "--on", on.isoformat()])


def one_rule_set(dates) -> str:
    """The rules' fingerprint, the same on every date given (else stop: the
    minimal implementation follows one date's rules)."""
    from uschess.calendar.rulebook import RuleBook

    book = RuleBook.load()
    prints = {book.rules(d).fingerprint for d in set(dates)}
    if len(prints) != 1:
        raise SystemExit(f"the dates span {len(prints)} rule sets; the yardstick follows one")
    return prints.pop()


# ----------------------------------------------------------------- checks
def check_posts(engine: dict, minimal: dict, tol: float = 1e-12) -> int:
    """Both map (section, system, id) to a post; stop unless they hold the
    same keys and posts within ``tol``.  Returns how many were compared."""
    if engine.keys() != minimal.keys():
        raise SystemExit(f"the engine rated {len(engine)} player-systems, the minimal "
                         f"implementation {len(minimal)}")
    worst = max((abs(engine[k] - minimal[k]), k) for k in engine) if engine else (0.0, None)
    if worst[0] > tol:
        raise SystemExit(f"posts differ by {worst[0]:.3g} at {worst[1]}: the yardstick is wrong")
    return len(engine)


def engine_posts(result) -> dict:
    """(section, system, id) -> post of an engine EventResult, rated players only."""
    return {(sr.section.name, sr.system, pr.id): pr.post
            for sr in result.sections for pr in sr.players if pr.m}


def minimal_posts(posts) -> dict:
    return {(p.section, p.system, p.id): p.post for p in posts}


def _rows(db: str, query: str) -> list:
    import sqlite3

    con = sqlite3.connect(db)
    try:
        return con.execute(query).fetchall()
    finally:
        con.close()


def store_ratings(db: str) -> dict:
    """(player, system) -> (rating, games, wins, draws, losses, events3, peak)
    of a SQLite store, the engine's or the minimal replay's."""
    rows = _rows(db, "SELECT player_id, system, rating, games, wins, draws, losses, "
                     "events3, peak FROM ratings")
    return {(r[0], r[1]): r[2:] for r in rows}


def store_changes(db: str) -> dict:
    """(event, section, system, player) -> (pre, post) of a SQLite store."""
    rows = _rows(db, "SELECT event_id, section, system, player_id, pre, post FROM changes")
    return {r[:4]: r[4:] for r in rows}


def store_events(db: str) -> dict:
    """event id -> (start, end) of a SQLite store."""
    return {r[0]: r[1:] for r in _rows(db, "SELECT id, start_date, end_date FROM events")}


def check_stores(engine_db: str, minimal_db: str) -> tuple[int, int, int]:
    """Stop unless both stores hold the same events, the same ratings rows
    and the same changes (pre and post, bit for bit).  Returns (ratings,
    changes, events)."""
    counts = []
    for what, read in (("ratings rows", store_ratings), ("changes", store_changes),
                       ("events", store_events)):
        a, b = read(engine_db), read(minimal_db)
        if a != b:
            diff = sorted(k for k in a.keys() | b.keys() if a.get(k) != b.get(k))
            k = diff[0]
            raise SystemExit(f"the stores differ in {len(diff)} {what}, e.g. {k}: "
                             f"engine {a.get(k)}, minimal {b.get(k)}")
        counts.append(len(a))
    return counts[0], counts[1], counts[2]


# ----------------------------------------------------------------- results
RESULTS = BENCH / "results"


def machine() -> str:
    """The machine a run was measured on: processor model, cores, system."""
    import platform

    model = None
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    model = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return (f"{model or platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
            f"{platform.system()} {platform.release()}, Python {platform.python_version()}")


def _commit() -> Optional[str]:
    try:
        proc = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"],
                              capture_output=True, text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return None
    return proc.stdout.strip() or None


def command_line(script: str, argv) -> str:
    """The command that ran a benchmark, as a reader would type it."""
    args = list(sys.argv[1:] if argv is None else argv)
    return " ".join(["python", f"benchmarks/{script}", *args])


def print_table(header: list, rows: list) -> None:
    """A table on standard output, its columns aligned (the first to the
    left, the figures to the right)."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    for row in [header, *rows]:
        print("  " + "  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                               for i, (c, w) in enumerate(zip(row, widths))))


def markdown_table(header: list, rows: list) -> str:
    out = ["| " + " | ".join(header) + " |",
           "|" + "|".join("---" if i == 0 else "---:" for i in range(len(header))) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


def write_results(name: str, title: str, command: str, header: list, rows: list,
                  notes: list, data: dict, extra: Optional[dict] = None) -> Path:
    """The run's table as ``benchmarks/results/NAME.md`` (for the docs: the
    date, machine and command above the table, ``notes`` below it, then
    each of ``extra``, a caption and a preformatted text) and ``NAME.json``
    (the same with ``data``, full precision); returns the Markdown file's
    path."""
    extra = extra or {}
    when = _dt.datetime.now(_dt.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    meta = {"date": when, "machine": machine(), "command": command, "commit": _commit()}
    RESULTS.mkdir(exist_ok=True)
    md = [f"**{title}**", "",
          f"Measured {when} on {meta['machine']}" +
          (f", at commit {meta['commit']}" if meta["commit"] else "") + ", with", "",
          f"    {command}", "", markdown_table(header, rows), ""]
    md += [f"- {note}" for note in notes]
    for caption, text in extra.items():
        md += ["", caption, "", "```text", text.rstrip(), "```"]
    (RESULTS / f"{name}.md").write_text("\n".join(md).rstrip() + "\n", encoding="utf-8")
    blob = dict(meta, title=title, header=header, rows=rows, notes=notes, data=data,
                extra=extra)
    (RESULTS / f"{name}.json").write_text(json.dumps(blob, indent=2, default=str) + "\n",
                                          encoding="utf-8")
    return RESULTS / f"{name}.md"
