"""What the reader of YAML and JSON input (:mod:`uschess.io.textdata`)
refuses, shared by its JSON half and its YAML half
(:mod:`uschess.io.yamlload`): the limits, the refusal of a value at a
position in the text, and a parser's failure put in the file's words."""

from __future__ import annotations

#: Aliases may stand for this many YAML nodes in all, counted as expanded.
ALIAS_BUDGET = 10_000
#: The most digits an integer may have (ids are 8 digits, ratings 4).
MAX_INTEGER_DIGITS = 15


class Refused(Exception):
    """A value refused at ``mark`` (the parser's position in the text)."""

    def __init__(self, message: str, mark):
        super().__init__(message)
        self.message = message
        self.mark = mark


def reason(err: Exception, tag: str = "") -> str:
    """A parser's failure on bad text in the file's words: PyYAML's
    constructors raise ValueError (a date's, 2024-02-30, says why; an
    integer's speaks of Python's int()) and AttributeError, KeyError,
    TypeError (a value its tag cannot make, in Python's terms): but for a
    date's, the value is named by its tag."""
    kind = tag.rsplit(":", 1)[-1] if tag else ""
    if isinstance(err, (ValueError, OverflowError)) and kind in ("", "timestamp"):
        text = " ".join(str(err).split())[:120]
        if text:
            return text  # a date's: "day is out of range for month"
    return f"not a valid {kind}" if kind else "not a value these files hold"
