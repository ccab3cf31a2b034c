"""Errors a user can act on.

Every problem with the user's input becomes an :class:`InputError` that names
where it was found (file, section, player, round).  The command line prints the
one-line message and exits with status 2; it never shows a traceback.
"""

from __future__ import annotations


class InputError(Exception):
    """A problem with input data, located as precisely as is known."""

    def __init__(self, message: str, *, file=None, section=None, player=None,
                 round=None, record=None, field=None):
        super().__init__(message)
        self.message = message
        self.file = str(file) if file is not None else None
        self.section = section
        self.player = player
        self.round = round
        self.record = record
        self.field = field

    def located(self, **where) -> "InputError":
        """Fill in location parts that are not yet known and return self."""
        for key, value in where.items():
            if value is not None and getattr(self, key) is None:
                setattr(self, key, str(value) if key == "file" else value)
        return self

    def __str__(self) -> str:
        parts = []
        if self.file:
            parts.append(self.file)
        if self.record is not None:
            parts.append(f"record {self.record}")
        if self.section is not None:
            parts.append(f"section {self.section!r}")
        if self.player is not None:
            parts.append(f"player {self.player}")
        if self.round is not None:
            parts.append(f"round {self.round}")
        if self.field is not None:
            parts.append(f"field {self.field}")
        where = ": ".join(parts)
        text = f"{where}: {self.message}" if where else self.message
        if not text.isprintable():  # a newline in a file name keeps the message on one line
            text = "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in text)
        return text


class RuleError(InputError):
    """No rule is known for what was asked (a date before the first rule, an
    unknown edition, a time control rated in no system of its era)."""
