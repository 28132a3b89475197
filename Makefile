# The two commands of the README: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.stamp
# The Python that R's reticulate embeds for tests/from_r.R. Debian's reticulate 1.28 cannot convert
# numpy 2 arrays, does not return pandas 3 DataFrames as data frames, and warns on pandas 2.2 and 2.3.
VENV_R := .venv-r

.PHONY: run test test-slow check check-machine docs bench mutants validate validate-quick clean

$(VENV)/bin/python:
	$(PYTHON) -m venv $(VENV)

# Run install: the package and its runtime dependencies, and rpy2 when R is installed (so that
# `make run` shows R's agreement); R itself is installed by `make test`, not here.
$(STAMP)-run: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e .
	if command -v Rscript >/dev/null 2>&1; then $(PY) -m pip install -q -e '.[r]' || echo "rpy2 not installed: R agreement not shown" >&2; fi
	touch $@

# Development install: the package and the test tools (no R).
$(STAMP)-check: pyproject.toml | $(VENV)/bin/python
	$(PY) -m pip install -q -e '.[test]'
	touch $@

# Test install: R (system packages) first, since rpy2 links against it; then the environment
# that R's reticulate embeds.
$(STAMP)-test: pyproject.toml scripts/ensure_r.sh $(STAMP)-check
	PYTHON=$(PYTHON) scripts/ensure_r.sh
	$(PY) -m pip install -q -e '.[r]' || { echo "rpy2 could not be installed" >&2; [ "$${ENERGYSTATS_REQUIRE_R:-0}" != 1 ]; }
	touch $@

$(VENV_R)/bin/python:
	$(PYTHON) -m venv $(VENV_R)

$(VENV_R)/.stamp: pyproject.toml | $(VENV_R)/bin/python
	$(VENV_R)/bin/python -m pip install -q 'numpy==1.26.*' 'pandas<2.2' -e . || { echo "the environment for R's reticulate could not be built" >&2; [ "$${ENERGYSTATS_REQUIRE_R:-0}" != 1 ]; }
	touch $@

# The main job: kernel k-groups on iris, scored against the species, the valid cluster test,
# and R's numbers on the same clusters when R is present.
run: $(STAMP)-run
	$(VENV)/bin/energystats cluster --example iris --by Species -k 3 --seed 0 --cluster-test --compare-r

# The house rules first (ruff, configured in pyproject.toml: lines of at most 100 characters,
# imports sorted), then every unit test, doctest and R cross-check on all cores (pytest-xdist;
# one BLAS thread per worker, tests/conftest.py), with the 15 slowest listed. The Monte Carlo
# studies of level and power marked `slow` run in `make test-slow` (CI runs both).
test: $(STAMP)-test $(VENV_R)/.stamp
	$(PY) -m ruff check .
	PYTHON=$(PYTHON) scripts/ensure_r.sh
	$(PY) -m pytest -n auto -m "not slow" --durations=15

# The Monte Carlo studies kept as tests (level and power over hundreds of data sets, sized by
# the power arguments in their docstrings; validation/ measures the same finely).
test-slow: $(STAMP)-test $(VENV_R)/.stamp
	PYTHON=$(PYTHON) scripts/ensure_r.sh
	$(PY) -m pytest -n auto -m slow --durations=15

# The inner loop: the house rules (ruff), then the tests not marked slow, on all cores, without
# setting up R or the docs (the R cross-checks run when R and rpy2 are installed, and skip
# otherwise).
check: $(STAMP)-check
	$(PY) -m ruff check .
	$(PY) -m pytest -n auto -m "not slow" -q tests energystats

# The fast suite as another machine runs it (issue 35, the machine matrix): OpenBLAS's Prescott
# kernel (another rounding of every product than this machine's), one BLAS thread, one process
# (no xdist: energystats' own threads, one per core, and every test in one interpreter).
check-machine: $(STAMP)-check
	OPENBLAS_CORETYPE=Prescott OPENBLAS_NUM_THREADS=1 $(PY) -m pytest -p no:xdist -m "not slow" -q tests energystats

# The documentation, with Sphinx warnings as errors (notebooks and gallery examples executed),
# then opened offline in headless Chromium: no raw LaTeX, no broken image, no equation cut off, no
# page that draws without its figure; five screenshots at 1400 px (docs/_build/html/screenshots).
docs: $(STAMP)-test
	scripts/ensure_chromium.sh
	$(PY) -m pip install -q -e '.[docs]'
	$(VENV)/bin/sphinx-build -W -q -b html docs docs/_build/html
	$(PY) docs/check_browser.py docs/_build/html

bench: $(STAMP)-test
	$(PY) -m pip install -q -e '.[bench]'
	for script in benchmarks/bench_*.py; do echo "== $$script"; $(PY) $$script || exit 1; done

# Plant one-line bugs in the core formulas and run the fast suite against each: every one must
# be killed (benchmarks/mutants.py lists them; a mutant that no longer applies stops the run).
mutants: $(STAMP)-check
	$(PY) benchmarks/mutants.py

validate: $(STAMP)-test
	Rscript validation/r_reference.R tests/data/r_reference.json
	Rscript validation/r_reference_independence.R tests/data/r_reference_independence.json
	Rscript validation/r_reference_gof.R tests/data/r_reference_gof.json
	$(PY) validation/compare_r.py --out validation/results/compare_r.md
	$(PY) validation/power_kmeans_tables.py
	$(PY) validation/power_kmeans_sensitivity.py
	$(PY) validation/cluster_test_power.py
	$(PY) validation/choose_k.py
	$(PY) validation/cluster_test_starts.py
	$(PY) validation/paper_experiments.py
	$(PY) validation/approximations.py
	$(PY) validation/independence_gamma.py
	$(PY) validation/projection_directions.py
	$(PY) validation/gof_power.py

# Every validation script in its --quick mode, writing outside the committed results (CI).
validate-quick: $(STAMP)-test
	rm -rf .validate-quick
	$(PY) validation/compare_r.py --out .validate-quick/compare_r.md
	$(PY) validation/power_kmeans_tables.py --quick --out .validate-quick
	$(PY) validation/power_kmeans_sensitivity.py --quick --out .validate-quick
	$(PY) validation/cluster_test_power.py --quick --out .validate-quick
	$(PY) validation/choose_k.py --quick --out .validate-quick
	$(PY) validation/cluster_test_starts.py --quick --out .validate-quick
	$(PY) validation/paper_experiments.py --quick --out .validate-quick
	$(PY) validation/approximations.py --quick --out .validate-quick
	$(PY) validation/independence_gamma.py --quick --out .validate-quick
	$(PY) validation/projection_directions.py --quick --out .validate-quick
	$(PY) validation/gof_power.py --quick --out .validate-quick

clean:
	rm -rf $(VENV) $(VENV_R) docs/_build docs/generated docs/auto_examples docs/sg_execution_times.rst
