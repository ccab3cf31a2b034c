"""What an audit finds: a cause, a variant of the rating that reproduces a
published rating (shared by the audit and its inference of unknown inputs)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class Cause:
    """A variant that reproduces a published rating."""

    cause: str
    detail: str
    computed: float
    published: float

    @property
    def diff(self) -> float:
        return self.computed - self.published

    def as_dict(self) -> dict:
        return {"cause": self.cause, "detail": self.detail, "computed": self.computed,
                "diff": self.diff}
