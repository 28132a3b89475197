"""Plant one-line bugs in the core formulas and report which survive the fast suite (none may).

Run: .venv/bin/python benchmarks/mutants.py [--only NAME ...] [--jobs N]  (``make mutants``)

Each mutant replaces one exact piece of a line of ``energystats/`` in a copy of the repository
(the working tree as it is, uncommitted changes included) and runs the fast suite there
(``pytest -x -m "not slow"``, doctests included) until its first failure. A mutant whose text
is not found stops the script: a mutant that no longer applies is a broken mutant, not a
killed one. The report is a table: mutant, where, killed or SURVIVED, by which test, seconds.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: (name, file, the exact text, its mutation, what it breaks)
MUTANTS = [
    ("pvalue +1", "energystats/_resample.py",
     "hits = np.count_nonzero(null >= t - gamma, axis=0) + (0 if exact else 1)",
     "hits = np.count_nonzero(null >= t - gamma, axis=0) + 0",
     "the observed statistic counted as a resample (Davison & Hinkley eq. 4.11)"),
    ("pvalue denominator", "energystats/_resample.py",
     "p = hits / (null.shape[0] + (0 if exact else 1))",
     "p = hits / (null.shape[0] + 1)",
     "the exact p-value over all M resamples"),
    ("tie tolerance", "energystats/_resample.py",
     "gamma = TIE_RTOL * np.maximum(np.abs(t), np.abs(scale))",
     "gamma = TIE_RTOL * np.abs(t)",
     "ties to rounding relative to the sums, not to the statistic"),
    ("double centring", "energystats/_independence/dcov.py",
     "return D - mean[:, None] - mean[None, :] + mean.mean()",
     "return D - mean[:, None] - mean[None, :] + 2.0 * mean.mean()",
     "eq. 2.7's grand mean"),
    ("U-centring", "energystats/_independence/dcov.py",
     "C = D - (rows[:, None] + rows[None, :]) / (n - 2) + rows.sum() / ((n - 1) * (n - 2))",
     "C = D - (rows[:, None] + rows[None, :]) / (n - 1) + rows.sum() / ((n - 1) * (n - 2))",
     "Szekely & Rizzo (2014) eq. 3.1's n - 2"),
    ("U-statistic bias correction", "energystats/_independence/dcov.py",
     'return G / (n * (n - 3.0))',
     'return G / (n * (n - 2.0))',
     "the unbiased estimator's n(n - 3)"),
    ("line row sums", "energystats/_scale/concordance.py",
     "rows[order] = (2.0 * np.arange(n) - n) * s + s.sum() - 2.0 * below",
     "rows[order] = (2.0 * np.arange(n) - n + 1) * s + s.sum() - 2.0 * below",
     "the prefix-sum formula of the row sums on the line"),
    ("energy statistic weight", "energystats/_homogeneity/_disco.py",
     "E += sizes[i] * sizes[j] / (sizes[i] + sizes[j]) * (",
     "E += sizes[i] * sizes[j] / (sizes[i] * sizes[j]) * (",
     "the k-sample E's n_i n_j / (n_i + n_j) (Szekely & Rizzo 2004, eq. 5)"),
    ("within dispersion", "energystats/_homogeneity/_disco.py",
     "W = diag @ (0.5 / sizes)  # eq. (15)",
     "W = diag @ (1.0 / sizes)  # eq. (15)",
     "W's s_j / 2 (Rizzo & Szekely 2010, eq. 15)"),
    ("tie scale of S", "energystats/_homogeneity/_disco.py",
     "return k * k * abs(T)",
     "return abs(observed)",
     "ties relative to the sums, k^2 T, not to the statistic"),
    ("gof pair sum", "energystats/_gof/_standard.py",
     "weights = 2.0 * np.arange(1, n + 1) - (n + 1.0)",
     "weights = np.arange(1, n + 1) - (n + 1.0)",
     "the sorted pair sum 2 sum (2t - n - 1) z_(t) (Szekely & Rizzo 2005, eq. 3.1); a shift of "
     "the weights is no mutant (the values are centred)"),
    ("gof statistic", "energystats/_gof/_standard.py",
     "return n * (twice - between - pairs), n * (twice + between + pairs)",
     "return n * (twice - between + pairs), n * (twice + between + pairs)",
     "n E_n = n (2/n sum E|z - Y| - E|Y - Y'| - 1/n^2 sum |z_i - z_j|)"),
    ("Hartigan gain", "energystats/_cluster/_partition.py",
     "            gain = wi * (own - c[l] / (s[l] + wi))",
     "            gain = wi * (own - c[l] / (s[l] - wi))",
     "the gain of moving a point, eq. (50) (Franca, Rizzo & Vogelstein 2020)"),
    ("Hartigan gains (vectorised)", "energystats/_cluster/_partition.py",
     "    gains = w * (own - c / (s[:, None] + w))",
     "    gains = w * (own - c / s[:, None])",
     "eq. (50) for every point at once"),
    ("split_1d carry", "energystats/_cluster/split1d.py",
     "        p1 += p1_carry",
     "        p1 += 0.0",
     "the prefix sums across blocks (matters past 32,768 points)"),
    ("split_1d prefix sums", "energystats/_cluster/split1d.py",
     "        p0 = np.cumsum(wx)",
     "        p0 = np.cumsum(wx) - wx",
     "the inclusive prefix sums of the sorted split's W"),
]


def _copy(destination: Path) -> None:
    ignore = shutil.ignore_patterns(".git", ".venv", ".venv-r", "docs/_build", "__pycache__",
                                    ".pytest_cache", ".validate-quick", "*.egg-info")
    shutil.copytree(ROOT, destination, ignore=ignore)


def _run(copy: Path, jobs: str) -> tuple[bool, str, float]:
    env = dict(os.environ, PYTHONPATH=str(copy), ENERGYSTATS_PROGRESS="0")
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow",
         "-n", jobs, "tests", "energystats"],
        cwd=copy, env=env, capture_output=True, text=True)
    seconds = time.perf_counter() - start
    failed = re.findall(r"^(?:FAILED|ERROR) (\S+)", proc.stdout, flags=re.M)
    return proc.returncode != 0, (failed[0] if failed else proc.stdout.strip()[-120:]), seconds


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", help="mutants whose name contains one of these")
    parser.add_argument("--jobs", default="auto", help="pytest-xdist workers (default: auto)")
    args = parser.parse_args(argv)
    chosen = [m for m in MUTANTS if not args.only or any(o in m[0] for o in args.only)]
    rows, survivors = [], 0
    with tempfile.TemporaryDirectory() as tmp:
        copy = Path(tmp) / "repo"
        _copy(copy)
        for name, path, old, new, _ in chosen:
            target = copy / path
            text = target.read_text()
            if text.count(old) != 1:
                raise SystemExit(f"mutant {name!r}: {old!r} found {text.count(old)} times in "
                                 f"{path}; update the mutant with the code.")
            target.write_text(text.replace(old, new))
            try:
                killed, by, seconds = _run(copy, args.jobs)
            finally:
                target.write_text(text)
            survivors += not killed
            rows.append((name, path, "killed" if killed else "SURVIVED", by, seconds))
            print(f"{name:30s} {'killed' if killed else 'SURVIVED':9s} {seconds:6.1f} s  {by}",
                  flush=True)
    print(f"\n{len(rows) - survivors} of {len(rows)} mutants killed by the fast suite.")
    return 1 if survivors else 0


if __name__ == "__main__":
    raise SystemExit(main())
