"""``python -m energystats``: the command line, as the ``energystats`` script."""

import sys

from ._cli import main

if __name__ == "__main__":
    sys.exit(main())
