"""Shared by the tests that check a committed R reference file is what its R script writes."""

import json
import shutil
import subprocess
from pathlib import Path

import numpy as np


def numbers(obj) -> list:
    """Every leaf of a JSON document in a fixed order, without the version strings."""
    if isinstance(obj, dict):
        return [
            v
            for key in sorted(obj)
            if key not in ("R", "energy", "jsonlite")
            for v in numbers(obj[key])
        ]
    if isinstance(obj, list):
        return [v for item in obj for v in numbers(item)]
    return [obj]


def assert_script_writes(script: Path, committed: dict, tmp_path: Path) -> None:
    """Run the R script and compare its output with the committed document: the same
    strings and structure, numbers to 1e-12 (another BLAS may round the last digit)."""
    rscript = shutil.which("Rscript")
    assert rscript is not None
    out = tmp_path / "reference.json"
    subprocess.run([rscript, str(script), str(out)], check=True, capture_output=True)
    got, want = numbers(json.loads(out.read_text())), numbers(committed)
    assert [type(v) for v in got] == [type(v) for v in want]
    assert all(a == b for a, b in zip(got, want) if isinstance(a, str))
    values = [(a, b) for a, b in zip(got, want) if not isinstance(a, str)]
    np.testing.assert_allclose(*zip(*values), rtol=1e-12)
