"""``python -m uschess``: the same as the ``uschess`` command."""

import sys

from uschess.cli import main

sys.exit(main())
