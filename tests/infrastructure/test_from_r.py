"""R users calling energystats: ``tests/from_r.R`` run by Rscript through reticulate, checked
against R's ``energy`` on the same data, and the documentation page that shows the script.

Debian's reticulate (1.28) cannot convert numpy 2 arrays, nor turn pandas 3 DataFrames back into
data frames, so the script embeds a second Python environment, ``.venv-r`` (numpy 1.26,
pandas 2.1: ``make .venv-r/.stamp``, which ``make test`` runs), or the Python named by
RETICULATE_PYTHON. It imports this checkout's energystats (PYTHONPATH).
"""

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest
from conftest import r_missing

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "tests" / "from_r.R"
PAGE = ROOT / "docs" / "from_r.md"
BUILD = (
    "build it with `make .venv-r/.stamp` (`make test` does), or set RETICULATE_PYTHON "
    "to a Python with numpy<2 and energystats' dependencies"
)


def r_session_environment() -> tuple[str, dict]:
    """Rscript and the environment it runs in; skips the test, or fails it under
    ENERGYSTATS_REQUIRE_R=1, when R, its packages or the Python environment are missing."""
    python = os.environ.get("RETICULATE_PYTHON") or str(ROOT / ".venv-r" / "bin" / "python")
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    env = dict(os.environ, RETICULATE_PYTHON=python, PYTHONPATH=path)
    if not Path(python).exists():
        r_missing(f"no Python environment for reticulate at {python}: {BUILD}.")
    check = subprocess.run(
        [python, "-c", "import energystats"], env=env, capture_output=True, text=True
    )
    if check.returncode != 0:
        error = check.stderr.strip().splitlines()[-1:] or [f"exit status {check.returncode}"]
        r_missing(f"{python} cannot import energystats ({error[0]}): {BUILD}.")
    rscript = shutil.which("Rscript")
    if rscript is None:
        r_missing("Rscript is not on PATH: scripts/ensure_r.sh installs R (as root) or says how.")
    packages = (
        'quit(status = !all(sapply(c("energy", "reticulate"), requireNamespace, quietly = TRUE)))'
    )
    if subprocess.run([rscript, "-e", packages], capture_output=True).returncode != 0:
        r_missing(
            "R packages energy and reticulate are needed: apt-get install r-cran-energy "
            "r-cran-reticulate, "
            'or in R install.packages(c("energy", "reticulate")).'
        )
    return rscript, env


@pytest.mark.r
@pytest.mark.slow
def test_r_session_gets_energys_numbers_from_energystats():
    """Every check of the script passes: energystats called from R equals energy's numbers to
    1e-12 relative (the permutation p-values within Monte Carlo error), KGroups in R's mode
    gives kgroups' clusters, and the R-side conversions (integers, lists, data frames) hold."""
    rscript, env = r_session_environment()
    run = subprocess.run(
        [rscript, str(SCRIPT)], env=env, capture_output=True, text=True, timeout=600
    )
    assert run.returncode == 0, (
        f"Rscript {SCRIPT.name} exited with status {run.returncode}:\n{run.stdout}\n{run.stderr}"
    )
    assert "\nok " in run.stdout and "\nFAIL " not in run.stdout, run.stdout


def test_the_page_shows_the_scripts_code():
    """docs/from_r.md takes its R code from the script: the sections it includes exist, and
    every call in its table of R and energystats calls is one the script makes."""
    page, script = PAGE.read_text(), SCRIPT.read_text()
    sections = re.findall(r'^:start-after: "# \[(.+)\]"\n:end-before: "# \[/\1\]"$', page, re.M)
    assert page.count("```{literalinclude} ../tests/from_r.R") == len(sections) >= 6
    for name in sections:
        assert script.count(f"\n# [{name}]\n") == script.count(f"\n# [/{name}]\n") == 1, name
    table = "\n".join(line for line in page.splitlines() if line.startswith("| `"))
    calls = re.findall(r"`([^`]+)`", table)
    assert len(calls) >= 20
    assert [call for call in calls if call not in script] == []
