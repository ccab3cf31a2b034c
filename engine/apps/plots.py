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
#: Size of every figure, inches at DPI (960 x 576 px): the same whatever the
#: history's length; the layout is fitted inside it (constrained layout).
FIGSIZE = (8.0, 4.8)
DPI = 120
#: Most bins of the difference histogram.
MAX_BINS = 60


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
    require_matplotlib()
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
        fig.savefig(buf, format=fmt, metadata=meta, dpi=DPI)
    return buf.getvalue()


def history_figure(pid: str, systems: Mapping[str, Sequence[Mapping]], *, name: str = ""):
    """A player's rating history from a store, one line per system:
    ``systems`` is ``{system: [{"event", "end", "pre", "post"}, ...]}`` as
    ``uschess player --json`` prints it; each event is a point at its end
    date (the rating after it)."""
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(7.5, 4.2), layout="constrained")
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


def _bin_edges(values: Sequence[float]) -> list[float]:
    """Bins of one width (numpy's automatic choice, at most MAX_BINS) laid on
    multiples of the width, so that 0 is an edge and no bin holds both
    gains and losses."""
    import numpy as np

    lo, hi = min(values), max(values)
    if hi == lo:
        width = max(abs(lo) * 0.1, 0.01)
    else:
        auto = np.histogram_bin_edges(values, bins="auto")
        width = max(float(auto[1] - auto[0]), (hi - lo) / MAX_BINS)
    first = np.floor(lo / width) * width
    count = int(np.ceil((hi - first) / width)) or 1
    if first + count * width <= hi:
        count += 1
    return [float(first + i * width) for i in range(count + 1)]


def plot_differences(diffs: Sequence[float], out_dir, *, title: str = "",
                     stem: str = "differences", tolerance: float = 0.0) -> list[Path]:
    """A histogram of the differences B - A, one value per player, event
    section and system.  Only changed results (``|B - A| > tolerance``, the
    comparison's own test of a change) are drawn (the unchanged would swamp
    the bins next to 0); the title gives how many were unchanged, and 0 is a
    bin edge, so gains and losses never share a bin."""
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=FIGSIZE, layout="constrained")
    ax = fig.add_subplot()
    values = [float(d) for d in diffs]
    changed = [d for d in values if abs(d) > tolerance]
    if changed:
        ax.hist(changed, bins=_bin_edges(changed), color="#4a78b5", edgecolor="white")
        ax.axvline(0.0, color="#444444", linewidth=0.8)
    else:
        ax.text(0.5, 0.5, "no rating changed" if values else
                "no player rated under both rule versions", ha="center", va="center",
                transform=ax.transAxes)
    ax.set_xlabel("post-event rating under B minus under A (points)")
    ax.set_ylabel("changed results\n(one per player, event section and system)", fontsize=9)
    lower = sum(1 for d in changed if d < 0)
    ax.set_title(f"{title or 'Rating differences'}\n{len(values)} results compared: "
                 f"{len(changed)} changed ({lower} lower, {len(changed) - lower} higher under B; "
                 f"drawn), {len(values) - len(changed)} unchanged (not drawn)", fontsize=9)
    return _save(fig, Path(out_dir), stem)


def plot_paths(paths: Mapping[str, Mapping[str, Sequence[Mapping]]], out_dir, *,
               names: Optional[Mapping[str, str]] = None, title: str = "",
               labels: tuple[str, str] = ("A", "B"), stem: str = "paths") -> list[Path]:
    """Rating paths ``{id: {system: [{"event", "date", "a", "b", "pre"}, ...]}}``
    (see :meth:`uschess.apps.compare.Comparison.paths`): one colour per player and
    system, A solid, B dashed, each point at the date of the player's own
    event (the pre-event rating at that event's start).  The figure has one
    size however many events the history holds: the x axis is a date axis
    spanning the chosen players' events only."""
    require_matplotlib()
    from matplotlib import colormaps
    from matplotlib.dates import AutoDateLocator, ConciseDateFormatter
    from matplotlib.figure import Figure

    from matplotlib.lines import Line2D

    names = names or {}
    fig = Figure(figsize=FIGSIZE, layout="constrained")
    ax = fig.add_subplot()
    palette = [colormaps["tab20"](i) for i in range(0, 20, 2)] + \
              [colormaps["tab20"](i) for i in range(1, 20, 2)]
    handles = []
    for pid, systems in paths.items():
        for system, points in systems.items():
            colour = palette[len(handles) % len(palette)]
            for side, style, marker in (("a", "-", "o"), ("b", "--", "x")):
                xs = [_dt.date.fromisoformat(p["date"]) for p in points if p[side] is not None]
                ys = [p[side] for p in points if p[side] is not None]
                if xs:
                    ax.plot(xs, ys, linestyle=style, marker=marker, markersize=3, color=colour)
            handles.append(Line2D([], [], color=colour, marker="o", markersize=3,
                                  label=f"{names.get(pid, pid)} ({pid}) {system}"))
    if not handles:
        ax.text(0.5, 0.5, "the chosen players are rated in none of the events", ha="center",
                va="center", transform=ax.transAxes)
    else:
        locator = AutoDateLocator(minticks=3, maxticks=8)
        ax.xaxis.set_major_locator(locator)
        ax.xaxis.set_major_formatter(ConciseDateFormatter(locator))
        handles += [Line2D([], [], color="#444444", linestyle="-", marker="o", markersize=3,
                           label=f"{labels[0]} (solid)"),
                    Line2D([], [], color="#444444", linestyle="--", marker="x", markersize=3,
                           label=f"{labels[1]} (dashed)")]
        fig.legend(handles=handles, loc="outside right upper", fontsize=7)
    ax.set_xlabel("date of the player's event (pre-event rating at its start)", fontsize=8)
    ax.set_ylabel("rating")
    ax.set_title(title or "Rating paths", fontsize=10)
    return _save(fig, Path(out_dir), stem)


_MARKERS = ["o", "s", "^", "D", "v", "P", "X", "*"]
_VERSION_COLOURS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf",
                    "#8c564b", "#e377c2"]


def plot_calibration(versions: Sequence[Mapping], out_dir, *, title: str = "",
                     stem: str = "calibration") -> list[Path]:
    """Calibration curves of an evaluation (``Evaluation.as_dict()["versions"]``):
    above, the mean observed score per rating-difference bin for each version
    against the mean expected score (We of sec. 4.2, grey); below, the number
    of player-games in each bin."""
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.0, 6.4))
    top, bottom = fig.subplots(2, 1, sharex=True, gridspec_kw={"height_ratios": [3, 1]})
    width = None
    for i, v in enumerate(versions):
        cal = [c for c in v["calibration"] if c["n"]]
        if not cal:
            continue
        xs = [c["diff"] for c in cal]
        if width is None and len(xs) > 1:
            width = min(b - a for a, b in zip(xs, xs[1:]))
        colour = _VERSION_COLOURS[i % len(_VERSION_COLOURS)]
        if i == 0:
            top.plot(xs, [c["expected"] for c in cal], color="#888888", linewidth=2.5, alpha=0.6,
                     label="expected: We of the rating difference (sec. 4.2)")
        top.plot(xs, [c["observed"] for c in cal], marker=_MARKERS[i % len(_MARKERS)],
                 markersize=4.5 if i else 5.5, linewidth=1.2, color=colour,
                 fillstyle="full" if i == 0 else "none", label=f"observed: {v['spec']}")
        k = len(versions)
        w = (width or 50.0) * 0.8 / max(1, k)
        bottom.bar([x + (i - (k - 1) / 2) * w for x in xs], [c["n"] for c in cal], width=w,
                   color=colour, alpha=0.75)
    if not any(v["calibration"] for v in versions):
        top.text(0.5, 0.5, "no rated games", ha="center", va="center", transform=top.transAxes)
    else:
        top.legend(fontsize=8, loc="upper left")
    edges = sorted({c["diff"] for v in versions for c in v["calibration"] if c["n"]})
    if len(edges) > 2:
        ticks = [x for x in edges if x % 200 == 0 or x in (edges[0], edges[-1])]
        bottom.set_xticks(ticks)
        bottom.set_xticklabels([f"\u2264{x:.0f}" if x == edges[0] and x < 0 else
                                f"\u2265{x:.0f}" if x == edges[-1] and x > 0 else f"{x:+.0f}"
                                for x in ticks])
    top.set_ylim(-0.02, 1.02)
    top.axhline(0.5, color="#cccccc", linewidth=0.6)
    top.axvline(0.0, color="#cccccc", linewidth=0.6)
    top.set_ylabel("mean score of the player")
    top.grid(True, linewidth=0.3, alpha=0.5)
    bottom.set_ylabel("player-games")
    bottom.set_xlabel("rating difference R - Ri before the event (bins; the outermost hold "
                      "everything beyond)")
    bottom.grid(True, axis="y", linewidth=0.3, alpha=0.5)
    top.set_title(title or "Calibration: expected vs observed score", fontsize=10)
    return _save(fig, Path(out_dir), stem)


def plot_drift(versions: Sequence[Mapping], out_dir, *, title: str = "",
               stem: str = "drift") -> list[Path]:
    """Drift lines of an evaluation: at each year end, the mean rating of
    the fixed cohort (solid) and of the active pool (dashed) under each
    version, and, where known, the same players' mean true strength (black,
    dotted)."""
    require_matplotlib()
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8.5, 6.0))
    ax = fig.add_subplot()
    fig.subplots_adjust(bottom=0.27, top=0.88)  # room for the legend below the axis label
    drawn = 0

    def line(points, key, **style):
        xs = [_dt.date.fromisoformat(p["date"]).year for p in points if p[key] is not None]
        ys = [p[key] for p in points if p[key] is not None]
        if xs:
            ax.plot(xs, ys, **style)
        return len(xs)

    for i, v in enumerate(versions):
        colour = _VERSION_COLOURS[i % len(_VERSION_COLOURS)]
        marker = _MARKERS[i % len(_MARKERS)]
        drawn += line(v["drift"], "cohort_mean", color=colour, linewidth=1.8, marker=marker,
                      markersize=4, fillstyle="full" if i == 0 else "none",
                      label=f"cohort: {v['spec']}")
        drawn += line(v["drift"], "pool_mean", color=colour, linewidth=1.0, linestyle="--",
                      marker=marker, markersize=3, fillstyle="none", label=f"pool: {v['spec']}")
    if versions:
        first = versions[0]["drift"]
        line(first, "cohort_true", color="#000000", linewidth=1.5, linestyle=":",
             label="cohort: true strength")
        line(first, "pool_true", color="#777777", linewidth=1.0, linestyle=":",
             label="pool: true strength")
    if not drawn:
        ax.text(0.5, 0.5, "no ratings in the drift system", ha="center", va="center",
                transform=ax.transAxes)
    else:
        ax.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2,
                  frameon=False)
    cohort_n = next((p["cohort_n"] for v in versions[:1] for p in v["drift"] if p["cohort_n"]), 0)
    system = versions[0]["drift_system"] if versions else ""
    ax.set_ylabel(f"mean {system} rating at the year end")
    ax.set_xlabel("year (each point: the ratings at its end)")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.grid(True, linewidth=0.3, alpha=0.5)
    cohort = (f"cohort: the {cohort_n} players established when it was fixed" if cohort_n else
              "no cohort: too few established players")
    ax.set_title((title or f"Drift in {system}") +
                 f"\n{cohort}; pool: rated players active that year", fontsize=10)
    return _save(fig, Path(out_dir), stem)


def plot_published(score: Mapping, out_dir, *, title: str = "",
                   stem: str = "calibration") -> list[Path]:
    """The calibration of published ratings (``PublishedScore.as_dict()``):
    left, the mean observed score per rating-difference bin with its 95%
    interval, against We of sec. 4.2 and the logistic curve fitted on the
    same games; right, the share of draws by |R - Ri| with its interval."""
    require_matplotlib()
    from matplotlib.figure import Figure
    from uschess.formulas import we

    fig = Figure(figsize=(10.0, 4.8), layout="constrained")
    left, right = fig.subplots(1, 2, gridspec_kw={"width_ratios": [3, 2]})
    cal = [c for c in score["calibration"] if c["n"] and c["observed"]["mean"] is not None]
    if cal:
        xs = [c["diff"] for c in cal]
        lo, hi = xs[0], xs[-1]
        grid = [lo + (hi - lo) * k / 200.0 for k in range(201)]
        left.plot(grid, [we(x, 0.0) for x in grid], color="#888888", linewidth=2.2,
                  label="We of sec. 4.2 (scale 400)")
        fitted = score.get("models", {}).get("in_sample", {}).get("logistic")
        if fitted:
            s = fitted["scale"]
            left.plot(grid, [1.0 / (1.0 + 10.0 ** (-x / s)) for x in grid], color="#d95f02",
                      linestyle="--", linewidth=1.6, label=f"logistic fitted here (scale {s:.0f})")
        left.plot(xs, [c["expected"] for c in cal], linestyle="none", marker="_", markersize=9,
                  color="#555555", label="We, mean over the bin's games")
        obs = [c["observed"] for c in cal]
        left.errorbar(xs, [o["mean"] for o in obs],
                      yerr=[[o["mean"] - (o["low"] if o["low"] is not None else o["mean"]) for o in obs],
                            [(o["high"] if o["high"] is not None else o["mean"]) - o["mean"]
                             for o in obs]],
                      fmt="o", markersize=4, color="#1b9e77", capsize=2, linewidth=1,
                      label="observed mean score, 95% interval")
        left.legend(fontsize=8, loc="upper left")
    else:
        left.text(0.5, 0.5, "no rated games", ha="center", va="center", transform=left.transAxes)
    left.set_ylim(-0.02, 1.02)
    left.axhline(0.5, color="#cccccc", linewidth=0.6)
    left.axvline(0.0, color="#cccccc", linewidth=0.6)
    left.set_xlabel("published pre-event rating difference R - Ri (bins of 50; ends hold "
                    "everything beyond)", fontsize=8)
    left.set_ylabel("mean score of the player")
    left.grid(True, linewidth=0.3, alpha=0.5)
    draws = [(float(k), v) for k, v in score["draws"]["by_difference"].items()
             if v["draws"]["mean"] is not None]
    if draws:
        dx = [x for x, _ in draws]
        dm = [v["draws"] for _, v in draws]
        right.errorbar(dx, [o["mean"] for o in dm],
                       yerr=[[o["mean"] - (o["low"] if o["low"] is not None else o["mean"]) for o in dm],
                             [(o["high"] if o["high"] is not None else o["mean"]) - o["mean"]
                              for o in dm]],
                       fmt="s-", markersize=3.5, color="#7570b3", capsize=2, linewidth=1)
    right.set_ylim(bottom=0)
    right.set_xlabel("|R - Ri| (bins of 50)", fontsize=8)
    right.set_ylabel("share of games drawn")
    right.grid(True, linewidth=0.3, alpha=0.5)
    fig.suptitle(title or "Calibration of published ratings", fontsize=10)
    return _save(fig, Path(out_dir), stem)
