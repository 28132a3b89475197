#!/usr/bin/env bash
# Make sure R with the `energy`, `jsonlite`, `reticulate` and `cluster` packages is present
# (R 4.2 + energy 1.7 + reticulate 1.28 on Debian bookworm; cluster for validation/choose_k.py),
# and that reticulate can embed $PYTHON (default python3; it
# needs Python's shared library), the Python the environment of tests/from_r.R is made from.
# As root on Debian it installs them with apt-get; otherwise it says what to install.
# Exits non-zero when something is missing and ENERGYSTATS_REQUIRE_R=1.
set -u
PYTHON=${PYTHON:-python3}
have_r() {
    local python
    python=$("$PYTHON" -c 'import sys; print(sys.executable)' 2>/dev/null) &&
        command -v Rscript >/dev/null 2>&1 &&
        RETICULATE_PYTHON="$python" Rscript -e 'suppressMessages({library(energy); library(jsonlite)
            library(reticulate); library(cluster)})
            quit(status = !py_available(initialize = TRUE))' >/dev/null 2>&1
}
if have_r; then
    exit 0
fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "ensure_r: installing R, the energy and reticulate packages and libpython3 with apt-get" >&2
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq r-base-core r-cran-energy r-cran-jsonlite \
        r-cran-reticulate r-cran-cluster libpython3-dev >/dev/null
fi
if have_r; then
    exit 0
fi
cat >&2 <<MSG
ensure_r: R with the energy, jsonlite, reticulate and cluster packages, and reticulate able to start
$PYTHON, are not all available, so the R cross-checks that need them cannot run.
  Debian/Ubuntu (as root): apt-get install -y r-base-core r-cran-energy r-cran-jsonlite
      r-cran-reticulate r-cran-cluster libpython3-dev
  elsewhere: install R >= 4.2, then in R:
      install.packages(c("energy", "jsonlite", "reticulate", "cluster")),
  and use a Python built with its shared library (libpython).
MSG
if [ "${ENERGYSTATS_REQUIRE_R:-0}" = 1 ]; then
    echo "ensure_r: ENERGYSTATS_REQUIRE_R=1, failing." >&2
    exit 1
fi
echo "ensure_r: continuing; the tests marked 'r' that need what is missing will be skipped." >&2
exit 0
