"""Plots of a comparison, each written as PNG and SVG from one code path.

matplotlib is an optional dependency (``pip install 'uschess-ratings[plots]'``);
it is imported only when a plot is asked for, and used without pyplot (a
``Figure`` of its own, no global state, no display needed).  SVG output is
made reproducible: no date in its metadata and a fixed id salt.
"""

from __future__ import annotations

import datetime as _dt
import io
from pathlib import Path
from typing import Mapping, Optional, Sequence

from uschess.errors import InputError
from uschess.io.files import atomic_write

FORMATS = ("png", "svg")


def require_matplotlib():
    """The matplotlib module, or an :class:`InputError` saying how to install it."""
    try:
        import matplotlib
        from matplotlib.figure import Figure  # noqa: F401
    except ImportError:
        raise InputError("plots need matplotlib: pip install 'uschess-ratings[plots]'")
    return matplotlib


def _save(fig, out_dir: Path, stem: str) -> list[Path]:
    """``stem.png`` and ``stem.svg`` in ``out_dir``, rendered in memory and
    written together all or nothing (:func:`uschess.io.files.atomic_write`)."""
    matplotlib = require_matplotlib()
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise InputError(f"cannot create the directory: {err.strerror or err}", file=out_dir)
    rendered = {out_dir / f"{stem}.{fmt}": render(fig, fmt) for fmt in FORMATS}
    atomic_write(rendered)
    return list(rendered)


def render(fig, fmt: str) -> bytes:
    """``fig`` as PNG or SVG bytes, reproducibly (no date, fixed id salt)."""
    matplotlib = require_matplotlib()
    buf = io.BytesIO()
    meta = {"Date": None} if fmt == "svg" else {"Software": None}
    with matplotlib.rc_context({"svg.hashsalt": "uschess", "svg.fonttype": "none"}):
        fig.savefig(buf, format=fmt, metadata=meta, dpi=120, bbox_inches="tight")
    return buf.getvalue()


def history_figure(pid: str, systems: Mapping[str, Sequence[Mapping]], *, name: str = ""):
    """A player's rating history from a store, one line per system:
    ``systems`` is ``{system: [{"event", "end", "pre", "post"}, ...]}`` as
    ``uschess player --json`` prints it; each event is a point at its end
    date (the rating after it)."""
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 4.2))
    ax = fig.add_subplot()
    plotted = 0
    for system, history in systems.items():
        points = [(_dt.date.fromisoformat(str(h["end"])), h["post"]) for h in history
                  if h.get("post") is not None]
        if not points:
            continue
        ax.plot([d for d, _ in points], [r for _, r in points], marker="o", markersize=3,
                label=system)
        plotted += 1
    if plotted:
        ax.legend(fontsize=8, loc="best")
        fig.autofmt_xdate()
    else:
        ax.text(0.5, 0.5, "no rated event in the store", ha="center", va="center",
                transform=ax.transAxes)
    ax.set_ylabel("rating after the event")
    ax.set_title(f"{name + ' ' if name else ''}({pid})", fontsize=10)
    return fig


def plot_differences(diffs: Sequence[float], out_dir, *, title: str = "",
                     stem: str = "differences") -> list[Path]:
    """A histogram of the differences B - A (one value per player and system)."""
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 4.5))
    ax = fig.add_subplot()
    values = [float(d) for d in diffs]
    if values:
        lo, hi = min(values), max(values)
        bins = max(5, min(40, len(values) // 2)) if hi > lo else 1
        ax.hist(values, bins=bins, color="#4a78b5", edgecolor="white")
        ax.axvline(0.0, color="#444444", linewidth=0.8)
    else:
        ax.text(0.5, 0.5, "no player rated under both rule versions", ha="center",
                va="center", transform=ax.transAxes)
    ax.set_xlabel("post-event rating under B minus under A (points)")
    ax.set_ylabel("players (per system)")
    changed = sum(1 for d in values if abs(d) > 1e-9)
    ax.set_title(f"{title or 'Rating differences'}\n{len(values)} rated, {changed} changed",
                 fontsize=10)
    return _save(fig, Path(out_dir), stem)


def plot_paths(paths: Mapping[str, Mapping[str, Sequence[Mapping]]], out_dir, *,
               events: Sequence[tuple[str, str]] = (), names: Optional[Mapping[str, str]] = None,
               title: str = "", labels: tuple[str, str] = ("A", "B"),
               stem: str = "paths") -> list[Path]:
    """Rating paths ``{id: {system: [{"event", "date", "a", "b", "pre"}, ...]}}``
    (see :meth:`uschess.apps.compare.Comparison.paths`): one colour per player and
    system, A solid, B dashed.  ``events`` lists ``(key, date)`` in chain order:
    the x axis has one tick per event, and a player's pre-event rating sits
    half a step before the first event they are rated in.  Without
    ``events`` the x axis is the dates of the points."""
    require_matplotlib()
    from matplotlib.figure import Figure

    names = names or {}
    position = {key: i for i, (key, _) in enumerate(events)}
    fig = Figure(figsize=(max(7.5, 1.2 * len(position) + 4), 4.8))
    ax = fig.add_subplot()
    colours = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b", "#e377c2"]

    def x_of(point):
        if not position:
            return _dt.date.fromisoformat(point["date"])
        return position[point["event"]] - (0.5 if point.get("pre") else 0.0)

    k = 0
    for pid, systems in paths.items():
        for system, points in systems.items():
            colour = colours[k % len(colours)]
            k += 1
            who = f"{names.get(pid, pid)} ({pid}) {system}"
            for side, style, marker in (("a", "-", "o"), ("b", "--", "x")):
                xs = [x_of(p) for p in points if p[side] is not None]
                ys = [p[side] for p in points if p[side] is not None]
                if xs:
                    ax.plot(xs, ys, linestyle=style, marker=marker, color=colour,
                            label=f"{who} {labels[0 if side == 'a' else 1]}")
    if k == 0:
        ax.text(0.5, 0.5, "the chosen players are rated in none of the events", ha="center",
                va="center", transform=ax.transAxes)
    else:
        ax.legend(fontsize=7, loc="best")
    if position:
        ax.set_xticks(range(len(events)))
        ax.set_xticklabels([f"{key}\n{date}" for key, date in events], fontsize=7)
        ax.set_xlim(-0.75, len(events) - 0.5)
        ax.set_xlabel("events in chain order (a player's pre-event rating half a step before "
                      "their first)", fontsize=8)
    elif k:
        fig.autofmt_xdate()
    ax.set_ylabel("rating")
    ax.set_title(title or "Rating paths", fontsize=10)
    return _save(fig, Path(out_dir), stem)
