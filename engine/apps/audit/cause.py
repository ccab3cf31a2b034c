"""What an audit finds: a cause, a variant of the rating that reproduces a
published rating (shared by the audit and its inference of unknown inputs)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field
from typing import Optional

#: Published values are compared with a float's own slack on top of the
#: tolerance.
EPS = 1e-9


def printed_value(pr) -> Optional[float]:
    """The rating a crosstable would print after the event for a
    PlayerResult: the post when the player played a rated game, else the
    unchanged pre-event rating (None when there is none)."""
    value = pr.post if pr.m else pr.pre
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


class PrintedPosts(dict):
    """(section, system, id) -> :func:`printed_value` of one rating of the
    event: what is kept of a rating whose printed posts alone are read later
    (the audit's variants, :class:`uschess.apps.audit.variants._Variants`).
    A whole EventResult holds every player's records, rules and steps, a
    large page's hundreds of variants far more than their posts.
    :func:`post_of`, :func:`printed_posts` and :func:`count_reproduced`
    take either."""

    @classmethod
    def of(cls, result) -> Optional["PrintedPosts"]:
        """The printed posts of an EventResult (None stays None)."""
        return None if result is None else cls(printed_posts(result))


def post_of(result, section: str, system: str, pid: str) -> Optional[float]:
    """:func:`printed_value` of player ``pid`` in ``section`` and ``system``
    of an EventResult or :class:`PrintedPosts` (None where the result, or
    the player, is missing)."""
    if result is None:
        return None
    if isinstance(result, PrintedPosts):
        return result.get((section, system, pid))
    for sr in result.sections:
        if sr.section.name == section and sr.system == system:
            for pr in sr.players:
                if pr.id == pid:
                    return printed_value(pr)
    return None


def within(value: Optional[float], published: float, tol: float) -> bool:
    """Whether a computed ``value`` reproduces ``published`` within ``tol``."""
    return value is not None and abs(value - published) <= tol + EPS


def printed_posts(result) -> dict:
    """(section, system, id) -> :func:`printed_value` of every player of an
    EventResult (empty for None): :func:`post_of` for many players at once."""
    if isinstance(result, PrintedPosts):
        return result
    out: dict = {}
    if result is not None:
        for sr in result.sections:
            for pr in sr.players:
                out.setdefault((sr.section.name, sr.system, pr.id), printed_value(pr))
    return out


def count_reproduced(result, entries, tol: float) -> int:
    """How many published ratings ``entries`` (each with ``section``,
    ``system``, ``id`` and ``post``) an EventResult reproduces within
    ``tol`` (0 for None: the variant could not be rated)."""
    posts = printed_posts(result)
    return sum(1 for e in entries if within(posts.get((e.section, e.system, e.id)), e.post, tol))


def loses(rows: list) -> list:
    """Audit rows as a variant's ``loses`` list: the published posts a
    variant loses, each by id, system and section."""
    return [{"id": r.entry.id, "system": r.entry.system, "section": r.entry.section}
            for r in rows]


def _fmt(x: Optional[float]) -> str:
    return "-" if x is None else f"{x:.2f}"


class CauseCheck:
    """One kind of cause the audit tries for a published rating the rules
    in force miss: what it is called (``name``, the ``cause`` of what it
    finds), the variant of the event it rates (``rates``), the values it is
    free to choose (``free_values``) and what it reports (``evidence``).
    ``weak``: it chooses a value of a rule to fit the post (another B, N*
    or K), which shows that a setting fits, not that the rules were
    otherwise: reported, never counted as evidence."""

    name: str = ""
    rates: str = ""
    free_values: str = ""
    evidence: str = ""
    weak: bool = False

    def causes(self, row, variants, book, tol: float) -> list["Cause"]:
        """The causes that reproduce audit row ``row``'s published post
        within ``tol`` (:class:`uschess.apps.audit.variants._Variants`
        rates the event's variants once, whoever asks)."""
        raise NotImplementedError


@dataclass
class Cause:
    """A variant that reproduces a published rating."""

    cause: str
    detail: str
    computed: float
    published: float
    #: the inputs of the variant where the detail alone would round them
    #: (a trade-off: the player whose initial rating moved, the system, the
    #: value, the other unrated players' values solved again around it if
    #: any, and the published posts it loses)
    variant: Optional[dict] = None
    #: the printed posts of the whole event under the variant, where one
    #: event was rated for it (what :attr:`evidence` is counted from; not
    #: reported)
    posts: Optional[PrintedPosts] = field(default=None, repr=False, compare=False)
    #: the key the variant was rated under (:class:`uschess.apps.audit.variants._Variants`)
    key: Optional[tuple] = field(default=None, repr=False, compare=False)
    #: the values the cause was free to choose (its check's ``free_values``)
    free_values: Optional[str] = None
    #: it fits a value of a rule, not an input the page cannot show
    weak: bool = False
    #: the other published posts under the variant (:class:`Evidence`)
    evidence: Optional["Evidence"] = None

    @property
    def diff(self) -> float:
        return self.computed - self.published

    def as_dict(self) -> dict:
        out = {"cause": self.cause, "detail": self.detail, "computed": self.computed,
               "diff": self.diff}
        if self.variant is not None:
            out["variant"] = dict(self.variant)
        if self.free_values is not None:
            out["free_values"] = self.free_values
            out["weak"] = self.weak
        if self.evidence is not None:
            out["evidence"] = dataclasses.asdict(self.evidence)
        return out

    def evidence_text(self) -> str:
        """The free values and the evidence, as the text report words them."""
        parts = []
        if self.free_values is not None:
            parts.append(f"free: {self.free_values}")
        if self.evidence is not None:
            parts.append(self.evidence.describe())
        if self.weak:
            parts.append("a rule value fitted, not evidence")
        return f" [{'; '.join(parts)}]" if parts else ""


@dataclass
class Evidence:
    """What a cause's variant does to the page's other published posts:
    how many of those the rules in force reproduce it keeps and loses, and
    how many of those they miss it reproduces too."""

    keeps: int
    loses: int
    gains: int

    def describe(self) -> str:
        return (f"keeps {self.keeps} of the {self.keeps + self.loses} other posts reproduced, "
                f"loses {self.loses}, reproduces {self.gains} other missed")


#: How the cause naming the inferred initial ratings begins (the player's
#: own, or those around the player).
OWN, AROUND = ("the initial rating the page cannot show: ",
               "the initial ratings of unrated players the page cannot show: ")


HISTORIES = "the earlier histories the page cannot show: "


def named_alone(c: Cause) -> bool:
    """Whether ``c`` is the cause of a named initialization tried alone (an
    adult's 1300, the rules' default, with every other unrated player at the
    rules' value): it does not say what reproduces a post with the inputs
    inferred."""
    return c.cause == "initialization" and c.variant is not None \
        and "initial_rating" in c.variant


def names_inferred(c: Cause) -> bool:
    """Whether ``c`` is the ``initialization`` cause naming the initial
    ratings inferred (:func:`inferred_cause`), which states the values as
    they were when it was made."""
    return c.cause == "initialization" and c.variant is None \
        and c.detail.startswith((OWN, AROUND))
