"""Run energystats and R's energy side by side and print one agreement table.

Usage: python validation/compare_r.py [--out validation/results/compare_r.md]

The same as ``energystats compare-r`` (see energystats/_cli/compare_r.py): on iris by species and
normal data with unequal groups (k = 2..5), exponents 1 and 0.5, it compares edist, disco,
eqdist.e, the eqdist.etest statistic and p-value, and kgroups ("r-kgroups" mode must give R's
labels from the same start; "hartigan" mode, started from R's result, a W no larger), with
R's time over ours. Exits 1 if any comparison disagrees.
"""

import sys

from energystats._cli import main

if __name__ == "__main__":
    sys.exit(main(["compare-r", "--no-progress", *sys.argv[1:]]))
