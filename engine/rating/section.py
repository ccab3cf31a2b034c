"""One section rated in one system: steps 1-5 of sec. 1
(:mod:`uschess.rating.steps`), then the finish step (:mod:`uschess.rating.finish`)."""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Optional

from uschess import formulas
from uschess.errors import RuleError
from uschess.model import Section
from uschess.rating.finish import FinishStep, unrated
from uschess.rating.results import SectionResult
from uschess.rating.steps import declared_or_classified, five_steps
from uschess.timecontrol import TimeControl


def systems_for(section: Section, rules, tc: TimeControl) -> list[str]:
    """The systems a section is rated in: its declared ``systems``, else those
    its time control falls in on the rules' date."""
    systems = declared_or_classified(section, rules, tc)
    if not systems:
        where = "online" if section.online else "over-the-board"
        raise RuleError(f"time control {tc.text!r} (mm + ss = {tc.total:g}) is rated in no "
                        f"{where} system in force on {rules.on.isoformat()}", section=section.name)
    return systems


def declared_systems_warnings(section: Section, rules, tc: TimeControl) -> list[str]:
    """A warning when the systems a section declares (an event file's
    ``systems``, a rating report's S_R_SYSTEM) are not those its time control
    is rated in on the rules' date: the declaration is honoured, and the
    warning names both."""
    if not section.systems:
        return []
    classified = rules.call.uschess_classify(tc=tc, online=section.online, p=rules.p) or []
    if set(classified) == set(section.systems):
        return []
    where = "online" if section.online else "over the board"
    rated = f"in {' + '.join(classified)}" if classified else "in no system"
    ranges = rules.params.get("time_control_ranges")
    cite = (ranges.entry.source.cite() if ranges is not None and ranges.entry is not None
            else "000 footnote 1")
    return [f"section declared as rated in {' + '.join(section.systems)}, but {tc.text} "
            f"(mm + ss = {tc.total:g}) is rated {rated} {where} on {rules.on.isoformat()} "
            f"[{cite}]; rated as declared"]


def rate_section(section: Section, system: str, rules, tc: TimeControl, trace: bool = True,
                 pre_from: Optional[dict] = None, played: Optional[dict] = None) -> SectionResult:
    """Steps 1-5 of sec. 1 for one section in one system, then the finish
    step.  ``pre_from``: where a pair's pre-event record came from, if not
    the event file; ``played``: the players' games read once
    (:func:`uschess.rating.steps.played_games`) for a section rated again
    and again."""
    if not trace and LEAN is not None:  # it reads the games itself (``played`` or not)
        result = LEAN(section, system, rules, tc, pre_from)
        if result is not None:  # None: a value it declines to compute on
            RATED_BY["kernel"] += 1
            return result
        RATED_BY["declined"] += 1
    else:
        RATED_BY["traced" if trace else "python"] += 1
    return _python_body(section, system, rules, tc, trace, pre_from, played)


def section_posts(section: Section, system: str, rules, tc: TimeControl, memo: dict,
                  played: Optional[dict] = None, given: Optional[tuple] = None) -> dict:
    """pair -> the rating a crosstable prints after the event (the post; the
    pre-event rating of a player without a rated game) of the section rated
    without a trace, as :func:`rate_section` gives it.  For a section rated
    again and again with only step 1's answers changed (an audit's solves):
    ``memo``, a dict the caller keeps for one section, system, time control
    and rules, lets the compiled kernel reuse what each player's K, bonus
    eligibility and finish step gave for the values they depend on (the
    same posts, bit for bit: ``tests/engine/test_section_kernel.py``); the
    Python body rates the whole section.  ``given``: (pair -> initial
    rating, pair -> N), step 1's answers in ``system`` that the rules' hook
    gives for the pairs listed (N 0 where not listed), as an audit's model
    of the section answers it: the kernel takes them without asking the
    hook, the Python body asks it."""
    if POSTS is not None:
        got = POSTS(section, system, rules, tc, memo, given)
        if got is not None:
            RATED_BY["kernel"] += 1
            return got
        RATED_BY["declined"] += 1
    else:
        RATED_BY["python"] += 1
    res = _python_body(section, system, rules, tc, False, None, played)
    return {pr.pair: (pr.post if pr.m else pr.pre) for pr in res.players}


def _python_body(section: Section, system: str, rules, tc: TimeControl, trace: bool,
                 pre_from: Optional[dict], played: Optional[dict]) -> SectionResult:
    """Steps 1-5 and the finish step in Python (the reference)."""
    st = five_steps(section, system, rules, tc, trace=trace, played=played)
    pre_from = pre_from or {}
    step = FinishStep(system, st, rules, section.end)
    out = []
    for pl in section.players:
        e = st.entrants[pl.pair]
        if e.m:
            res = step(e)
            if pre_from:
                res.pre_from = pre_from.get(pl.pair)
        else:
            res = unrated(pl, system, e.rec, pre_from.get(pl.pair))
        out.append(res)
    return SectionResult(section, system, rules, tc, out)


def _lean() -> tuple:
    """The compiled kernel of a section rated without a trace (``section_kernel.pyx``, built with the formulas' kernel)
    and a word on it, or None and why (:func:`formulas.companion_kernel`;
    ``USCHESS_PURE=sections`` sets it aside; the reference modules it
    mirrors count among its sources: the steps, the finish step, and the
    plugins of storage, floors and K whose hooks it does without)."""
    from uschess.rules import floors, formulas as rule_formulas  # noqa: PLC0415

    here = Path(__file__).resolve().parent
    kernel, status = formulas.companion_kernel(
        "section_kernel", "sections", [here / "section.py", here / "steps.py", here / "finish.py",
                                       Path(floors.__file__), Path(rule_formulas.__file__)])
    return kernel, status


#: The compiled kernel's rating of a section without a trace, where it is
#: built and current (the same results, field by field and bit for bit:
#: ``tests/engine/test_section_kernel.py``), else None: the reference below rates.
#: ``LEAN_STATUS`` says which, and why.
_KERNEL, LEAN_STATUS = _lean()
LEAN = _KERNEL.rate_section if _KERNEL is not None else None
#: The kernel's :func:`section_posts`, where it is built and current.
POSTS = _KERNEL.section_posts if _KERNEL is not None else None


#: The sections rated in this process by the compiled kernel ("kernel"), and
#: by the Python body: traced ("traced"), untraced without a kernel
#: ("python"), or untraced where the kernel declined a value ("declined").
#: ``-v`` prints them at the end of a command (:func:`rated_by_line`).
RATED_BY: Counter = Counter()


def rated_by_line() -> str:
    """Which body rated this process's sections, in a line ("" for none)."""
    if not RATED_BY:
        return ""
    parts = [f"{RATED_BY['kernel']:,} by the compiled kernel"] if RATED_BY["kernel"] else []
    why = [f"{RATED_BY[k]:,} {what}" for k, what in
           (("traced", "traced"), ("declined", "declined by the kernel: a value not a plain "
                                               "number"),
            ("python", "untraced, no kernel")) if RATED_BY[k]]
    body = RATED_BY["traced"] + RATED_BY["python"] + RATED_BY["declined"]
    if body:
        parts.append(f"{body:,} by the Python body ({', '.join(why)})")
    return "sections rated: " + "; ".join(parts)


def kernel_status() -> str:
    """Which code runs, in a line (``uschess --version``, the benchmarks):
    the formulas', the sections' and the reader's kernel or the pure-Python
    reference."""
    from uschess.io.eventfile import READER_STATUS  # noqa: PLC0415

    sections = LEAN_STATUS
    if LEAN is not None:
        sections += (" for untraced sections of the standard kind, any plugins (traced ratings, "
                     "matches, FIDE updates and values that are not plain numbers: the Python "
                     "body)")
    return f"formulas: {formulas.KERNEL_STATUS}; sections: {sections}; reader: {READER_STATUS}"
