"""``python -m energystats``: the command line, as the ``energystats`` script."""

import sys

from ._cli import main

sys.exit(main())
