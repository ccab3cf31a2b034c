"""uschess-ratings: the US Chess rating algorithm, rule by dated rule.

Installed, the project is one package: ``engine/`` is ``uschess`` itself,
``rules/`` is ``uschess.rules`` and ``rulesets/`` is ``uschess.rulesets``.

The public API is the few names below; everything else may change between
versions::

    from uschess import load_event, rate_event

    result = rate_event(load_event("event.yaml"))        # the rules in force on its dates
    for section in result.sections:
        for player in section.players:
            print(player.name, section.system, player.pre, player.post)

* :func:`load_event` reads an event file (YAML or JSON, the schema in
  ``event.schema.json``) into an :class:`Event`;
* :func:`rate_event` rates it (steps 1-5 of sec. 1 and the finish step) under
  the rules in force on each section's date, or under :class:`RatingOptions`
  (another date, a reading, a reform, without a trace);
* :class:`RuleBook` is the dated rules (``RuleBook.load().rules(date)``);
* a rule pack writes a :class:`RulePlugin` subclass with a ``slot``, a
  ``name`` and a ``source`` (:func:`src`) and marks its hook with
  :data:`hookimpl`; its calendar says from when it fills the slot.

The names are imported when first used, so that ``import uschess`` stays
quick for a command that needs none of them.
"""

from __future__ import annotations

import importlib

#: Each public name and the module it lives in.
PUBLIC = {
    "load_event": "uschess.io.eventfile",
    "Event": "uschess.model",
    "rate_event": "uschess.rating.pipeline",
    "RatingOptions": "uschess.rating.options",
    "EventResult": "uschess.rating.results",
    "RuleBook": "uschess.calendar.rulebook",
    "Reform": "uschess.calendar.rulebook",
    "RulePlugin": "uschess.rules.base",
    "src": "uschess.rules.base",
    "hookimpl": "uschess.rules.hookspecs",
}

__all__ = sorted(PUBLIC)


def __getattr__(name: str):
    if name in PUBLIC:
        value = getattr(importlib.import_module(PUBLIC[name]), name)
        globals()[name] = value
        return value
    # the version is read from the installed metadata only when asked for
    # (importlib.metadata is slow to import, and most commands never need it)
    if name == "__version__":
        from importlib import metadata
        try:
            return metadata.version("uschess-ratings")
        except metadata.PackageNotFoundError:  # run from a checkout that is not installed
            return "0+unknown"
    raise AttributeError(f"module 'uschess' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(PUBLIC))
