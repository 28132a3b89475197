"""The documentation covers the package: the validation figures, the gallery, an API page for
every public name, notebooks that show their figures, and a README whose commands exist.

These read the sources of the docs (no Sphinx build); ``make docs`` builds them and
``docs/check_browser.py`` checks the built pages in a browser.
"""

import doctest
import importlib.util
import json
import re
import shutil
import sys
import types
from pathlib import Path

import pytest

import energystats
from energystats import datasets, plotting

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"


def autosummary_names(text):
    """Names listed under the ``autosummary`` directives of an rst file, as written."""
    names, inside = [], False
    for line in text.splitlines():
        if line.startswith(".. autosummary::"):
            inside = True
        elif inside and line.strip() and not line.startswith(" "):
            inside = False
        elif inside and line.strip() and not line.strip().startswith(":"):
            names.append(line.strip())
    return names


def public_names():
    """Every name a user reaches: ``energystats.__all__`` (its modules by their own names),
    and the public names of ``energystats.datasets`` and ``energystats.plotting``."""
    names = {name for name in energystats.__all__ if not isinstance(getattr(energystats, name), types.ModuleType)}
    names |= {f"datasets.{name}" for name in datasets.__all__}
    names |= {f"plotting.{name}" for name in plotting.__all__}
    return names


def test_every_validation_figure_is_shown_in_the_docs():
    pages = "\n".join(path.read_text() for path in DOCS.glob("*.md"))
    figures = sorted((ROOT / "validation" / "results").glob("*.png"))
    assert len(figures) >= 10
    missing = [path.name for path in figures if f"../validation/results/{path.name}" not in pages]
    assert missing == [], f"validation figures not shown in docs/*.md: {missing}"


def test_gallery_examples_are_executed_scripts_with_a_title():
    examples = sorted((DOCS / "gallery").glob("plot_*.py"))
    assert len(examples) >= 7
    for path in examples:
        text = path.read_text()
        assert text.startswith('"""\n') and "\n===" in text.split('"""')[1], path.name


def test_autosummary_names_reads_every_block_and_skips_options():
    text = (".. currentmodule:: energystats\n\n.. autosummary::\n   :toctree: generated\n\n   dcor\n"
            "   plotting.plot_w_curve\n\nPlotting\n--------\n\n.. autosummary::\n\n   KGroups\n\nText after.\n")
    assert autosummary_names(text) == ["dcor", "plotting.plot_w_curve", "KGroups"]


def test_every_public_name_has_an_api_page():
    documented = autosummary_names((DOCS / "api.rst").read_text())
    assert "currentmodule:: energystats\n" in (DOCS / "api.rst").read_text()
    missing = sorted(public_names() - set(documented))
    assert not missing, f"public names without a page in docs/api.rst: {missing}"


def test_every_api_page_is_of_a_public_name_listed_once():
    documented = autosummary_names((DOCS / "api.rst").read_text())
    stale = sorted(set(documented) - public_names())
    assert not stale, f"docs/api.rst lists names that are not public (renamed or removed?): {stale}"
    assert len(documented) == len(set(documented)), "docs/api.rst lists a name twice"


def test_landing_page_tour_runs_as_printed():
    # the tour on the docs' home page (contents.rst, not collected by --doctest-glob=*.md)
    plt = pytest.importorskip("matplotlib.pyplot")
    try:
        result = doctest.testfile(str(DOCS / "contents.rst"), module_relative=False)
    finally:
        plt.close("all")
    assert result.attempted >= 20 and result.failed == 0


NOTEBOOKS = sorted((DOCS / "notebooks").glob("*.ipynb"))


@pytest.mark.parametrize("notebook", NOTEBOOKS, ids=lambda path: path.name)
def test_notebooks_keep_the_inline_backend(notebook):
    # the docs show a notebook's figures only when the kernel's inline backend draws them
    # (the built page of a notebook that set Agg had no image)
    code = "\n".join("".join(cell["source"]) for cell in json.loads(notebook.read_text())["cells"]
                     if cell["cell_type"] == "code")
    assert not re.search(r"matplotlib\.use\(|plt\.switch_backend\(|%matplotlib (?!inline)", code)


def test_readme_commands_are_make_targets_and_install_extras_exist():
    readme = (ROOT / "README.md").read_text()
    targets = set(re.findall(r"^([a-z-]+):", (ROOT / "Makefile").read_text(), flags=re.M))
    commands = re.findall(r"^make (\S+)", readme, flags=re.M)
    assert {"run", "test"} <= set(commands) <= targets
    pyproject = (ROOT / "pyproject.toml").read_text()
    extras = set(re.findall(r"^(\w+) = \[", pyproject.split("[project.optional-dependencies]")[1], flags=re.M))
    named = {extra for group in re.findall(r"pip install [^\n]*?\.\[([\w,]+)\]", readme) for extra in group.split(",")}
    assert named and named <= extras
    assert "pip install ." in readme


def test_validation_figures_are_titled_by_what_they_show_and_redrawn_from_their_csv(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib")
    spec = importlib.util.spec_from_file_location("paper_experiments", ROOT / "validation" / "paper_experiments.py")
    paper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(paper)
    titles = [experiment.title for experiment in paper.EXPERIMENTS.values()]
    assert not [title for title in titles if re.search(r"\b(fig|table)\s*\d", title, flags=re.I)]
    assert len(set(titles)) == len(titles)
    shutil.copy(ROOT / "validation" / "results" / "paper_fig3e.csv", tmp_path)
    monkeypatch.setattr(sys, "argv", ["paper_experiments.py", "--replot", "--only", "fig3e", "--out", str(tmp_path)])
    paper.main()
    assert sorted(path.name for path in tmp_path.iterdir()) == ["paper_fig3e.csv", "paper_fig3e.png"]
