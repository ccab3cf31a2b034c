"""uschess-ratings: the US Chess rating algorithm, rule by dated rule.

Installed, the project is one package: ``engine/`` is ``uschess`` itself,
``rules/`` is ``uschess.rules`` and ``rulesets/`` is ``uschess.rulesets``.
"""


def __getattr__(name: str):
    # the version is read from the installed metadata only when asked for
    # (importlib.metadata is slow to import, and most commands never need it)
    if name == "__version__":
        from importlib import metadata
        try:
            return metadata.version("uschess-ratings")
        except metadata.PackageNotFoundError:  # run from a checkout that is not installed
            return "0+unknown"
    raise AttributeError(f"module 'uschess' has no attribute {name!r}")
