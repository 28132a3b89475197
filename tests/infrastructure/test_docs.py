"""The documentation covers the package: the validation figures, the gallery, an API page for
every public name, notebooks that show their figures, a README whose commands exist, and tests
laid out by the package's families whose docstrings name modules and names that exist.

These read the sources of the docs (no Sphinx build); ``make docs`` builds them and
``docs/check_browser.py`` checks the built pages in a browser.
"""

import ast
import doctest
import functools
import importlib
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
PACKAGE = Path(energystats.__file__).parent


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
    names = {
        name
        for name in energystats.__all__
        if not isinstance(getattr(energystats, name), types.ModuleType)
    }
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
    text = (
        ".. currentmodule:: energystats\n\n.. autosummary::\n   :toctree: generated\n\n   dcor\n   "
        "plotting.plot_w_curve\n\nPlotting\n--------\n\n.. autosummary::\n\n   KGroups\n\nText "
        "after.\n"
    )
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
    extras = set(
        re.findall(
            r"^(\w+) = \[", pyproject.split("[project.optional-dependencies]")[1], flags=re.M
        )
    )
    named = {
        extra
        for group in re.findall(r"pip install [^\n]*?\.\[([\w,]+)\]", readme)
        for extra in group.split(",")
    }
    assert named and named <= extras
    assert "pip install ." in readme


def test_validation_figures_are_titled_by_what_they_show_and_redrawn_from_their_csv(
    tmp_path, monkeypatch
):
    pytest.importorskip("matplotlib")
    spec = importlib.util.spec_from_file_location(
        "paper_experiments", ROOT / "validation" / "paper_experiments.py"
    )
    paper = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(paper)
    titles = [experiment.title for experiment in paper.EXPERIMENTS.values()]
    assert not [title for title in titles if re.search(r"\b(fig|table)\s*\d", title, flags=re.I)]
    assert len(set(titles)) == len(titles)
    shutil.copy(ROOT / "validation" / "results" / "paper_fig3e.csv", tmp_path)
    monkeypatch.setattr(
        sys, "argv", ["paper_experiments.py", "--replot", "--only", "fig3e", "--out", str(tmp_path)]
    )
    paper.main()
    assert sorted(path.name for path in tmp_path.iterdir()) == [
        "paper_fig3e.csv",
        "paper_fig3e.png",
    ]


# --- The tests' own layout and docstrings ----------------------------------------------------

TESTS = ROOT / "tests"
#: the folders of tests/: the package's families, and the infrastructure they share
TEST_FOLDERS = (
    "cluster", "gof", "homogeneity", "independence", "infrastructure", "scale",
)
#: modules whose attributes a docstring may name besides the package's and the tests' own
ELSEWHERE = (
    "builtins", "numpy", "pandas", "scipy.stats", "sklearn.base", "sklearn.pipeline",
    "sklearn.model_selection",
)
#: the folders of the repository a docstring names files in
ROOTS = ("energystats", "tests", "validation", "docs", "benchmarks", "scripts")
FILE = r"\.(py|R|json|md|rst|ipynb)$"
#: a class name: two capitals and two small letters at least (``KGroups``, not ``NaN``)
CAMEL = r"(?=(?:.*[A-Z]){2})(?=(?:.*[a-z]){2})[A-Za-z0-9]+"


def test_every_test_module_is_in_a_family_folder_under_a_name_of_its_own():
    """pytest imports a test module by its file name (rootdir-relative ``prepend`` mode, no
    ``__init__.py``): two modules of one name in different folders would clash."""
    paths = sorted(TESTS.rglob("test_*.py"))
    assert sorted({p.parent.relative_to(TESTS).as_posix() for p in paths}) == list(TEST_FOLDERS)
    names = [p.name for p in paths] + [p.name for p in TESTS.glob("_*.py")]
    assert len(names) == len(set(names)), sorted(n for n in names if names.count(n) > 1)


@functools.cache
def _identifiers() -> frozenset[str]:
    """Every name the package's and the tests' sources define or use (not their strings)."""
    names = set(TEST_FOLDERS)
    for root in (PACKAGE, TESTS):
        for path in root.rglob("*.py"):
            names.add(path.stem)
            for node in ast.walk(ast.parse(path.read_text())):
                for field in ("id", "arg", "attr", "name"):
                    if isinstance(getattr(node, field, None), str):
                        names.add(getattr(node, field))
    return frozenset(names)


def _resolves(dotted: str) -> bool:
    """``energystats.a.b`` (or ``a.b`` inside the package or one of its subpackages): the
    longest importable prefix, then attributes."""
    parts = dotted.removeprefix("energystats.").split(".")
    subpackages = [""] + [f"{p.name}." for p in PACKAGE.iterdir() if (p / "__init__.py").exists()]
    for sub in subpackages:
        for cut in range(len(parts), 0, -1):
            try:
                obj = importlib.import_module(f"energystats.{sub}{'.'.join(parts[:cut])}")
            except ImportError:
                continue
            if functools.reduce(lambda o, a: getattr(o, a, None), parts[cut:], obj) is not None:
                return True
            break
    return False


def _a_file(path: str) -> bool:
    """A path from the repository's root, or the end of a path in the package or the tests."""
    if path.split("/")[0] in ROOTS:
        return (ROOT / path).exists()
    found = (p for root in (PACKAGE, TESTS) for p in root.rglob(path.split("/")[-1]))
    return any(p.as_posix().endswith("/" + path) for p in found)


def _defined_elsewhere(name: str) -> bool:
    """A name of Python or of the libraries a test module's docstring may mention."""
    return any(hasattr(importlib.import_module(m), name) for m in ELSEWHERE)



def unknown_names(doc: str) -> list[str]:
    """The names in a docstring that name nothing: a module or attribute of the package
    (``energystats._cluster.kgroups``, ``_frontdoor.front_door``), a private name
    (``_relabel``), a file (``_gof/_limit.py``, ``tests/from_r.R``, ``test_dcov.py``), a
    class (``MvnormTestResult``), or a name in backticks (``read_r``)."""
    unknown, known = [], _identifiers()
    for token in re.findall(r"[\w.\-]*[A-Za-z_][\w\-]*(?:[./][\w\-]+)*", doc):
        token = token.strip(".")
        if re.search(FILE, token) or token.startswith(("energystats/", "tests/")):
            ok = _a_file(token)
        elif token.startswith("energystats.") or (token.startswith("_") and "." in token):
            ok = _resolves(token)
        elif token.startswith("_"):
            ok = token in known
        elif re.fullmatch(CAMEL, token):  # a class: its plural too ("DataFrames")
            ok = token in known or token.removesuffix("s") in known or _defined_elsewhere(token)
        elif re.fullmatch(r"[a-z_]\w*", token) and f"``{token}``" in doc.replace("()``", "``"):
            ok = token in known or _defined_elsewhere(token)
        else:
            continue
        if not ok:
            unknown.append(token)
    return unknown


def _test_sources():
    """Every Python file of tests/."""
    for path in sorted(TESTS.rglob("*.py")):
        yield pytest.param(path, id=path.relative_to(TESTS).as_posix())


@pytest.mark.parametrize("path", _test_sources())
def test_a_test_modules_docstring_names_what_exists(path):
    """A test module's docstring says what it tests: the modules, private names, files and
    classes it names exist today (a module renamed or merged leaves no stale name behind)."""
    assert unknown_names(ast.get_docstring(ast.parse(path.read_text())) or "") == []


@pytest.mark.parametrize(
    "planted",
    ["energystats._relabel", "energystats._homogeneity._relabel", "_relabel.py",
     "_homogeneity/_relabel.py", "_relabel", "_frontdoor.handles_missing", "NormalityTestResult",
     "``names_data``", "test_r_live.py"],
)
def test_the_docstring_check_sees_a_planted_stale_name(planted):
    """Each kind of stale name is caught, and today's names beside it pass."""
    today = "energystats._scale.streamed, _frontdoor.front_door, MvnormTestResult, ``read_r``"
    doc = f"Tests of {planted} ({today})."
    assert unknown_names(doc) == [planted.strip("`")]
