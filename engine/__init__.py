"""uschess-ratings: the US Chess rating algorithm, rule by dated rule.

Installed, the project is one package: ``engine/`` is ``uschess`` itself,
``rules/`` is ``uschess.rules`` and ``rulesets/`` is ``uschess.rulesets``.
"""

from importlib import metadata as _metadata

try:
    __version__ = _metadata.version("uschess-ratings")
except _metadata.PackageNotFoundError:  # run from a checkout that is not installed
    __version__ = "0+unknown"
