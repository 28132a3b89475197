"""Sphinx configuration: `make docs` builds HTML with warnings as errors."""

import energystats

project = "energystats"
author = "energystats developers"
release = energystats.__version__
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "notebooks", "**.ipynb_checkpoints"]
autosummary_generate = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
autodoc_default_options = {"members": False}
html_theme = "alabaster"
root_doc = "contents"
