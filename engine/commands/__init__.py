"""Subcommands of ``uschess``.  Each module has ``register(subparsers)``; the
parser it adds sets ``func`` to a function taking the parsed arguments and
returning the exit status."""
