"""Examples of results that a family's test module declares (``RESULT_FACTORIES``), so that a
new statistic's result is checked by the shared result and plot tests from its own test file."""

import importlib.util
from pathlib import Path


def result_factories() -> dict:
    """``{result type name: (factory, kind)}`` from every ``tests/*/test_*.py`` that declares
    ``RESULT_FACTORIES``; kind is "test", "clustering" or None."""
    found = {}
    for path in sorted(Path(__file__).parent.glob("*/test_*.py")):
        if "\nRESULT_FACTORIES = " in path.read_text(encoding="utf-8"):
            spec = importlib.util.spec_from_file_location(f"factories_{path.stem}", path)
            module = importlib.util.module_from_spec(spec)
            spec.loader.exec_module(module)
            found.update(module.RESULT_FACTORIES)
    return found
