"""Sphinx configuration: `make docs` builds HTML with warnings as errors.

The pages are read offline: MathJax 3 is copied into the build from the
``sphinx-mathjax-offline`` package (no CDN), the notebooks and the gallery examples
are executed at every build (so their outputs cannot go stale), and
``docs/check_browser.py`` then opens the pages in headless Chromium.
"""

import os

import energystats

# no progress bars in the executed notebooks and examples (their kernels inherit this)
os.environ.setdefault("ENERGYSTATS_PROGRESS", "0")

project = "energystats"
author = "energystats developers"
release = energystats.__version__
extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "matplotlib.sphinxext.plot_directive",
    "sphinx-mathjax-offline",
    "numpydoc",
    "myst_nb",
    "sphinx_gallery.gen_gallery",
]
myst_enable_extensions = ["dollarmath", "amsmath"]
exclude_patterns = [
    "_build",
    "gallery",
    "examples",
    "**.ipynb_checkpoints",
    "auto_examples/*.ipynb",
]
autosummary_generate = True
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
# docstring Examples that import matplotlib are drawn (numpydoc wraps them in the plot directive)
numpydoc_use_plots = True
autodoc_default_options = {"members": False}

# notebooks: executed in the build, any error fails it
nb_execution_mode = "force"
nb_execution_timeout = 900
nb_execution_raise_on_error = True
nb_merge_streams = True

# figures of the landing page, the user guide and the docstrings: drawn at every build, the code
# shown above its figure
plot_include_source = True
plot_html_show_source_link = False
plot_html_show_formats = False
plot_formats = [("png", 110)]
plot_rcparams = {"figure.figsize": (6.4, 3.6), "figure.autolayout": True}

sphinx_gallery_conf = {
    "examples_dirs": "gallery",
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "image_scrapers": ("matplotlib",),
    "abort_on_example_error": True,
}

html_theme = "pydata_sphinx_theme"
html_title = f"energystats {release}"
html_theme_options = {
    "navigation_with_keys": False,
    "show_toc_level": 2,
    "header_links_before_dropdown": 8,
}
# pages without sub-pages: no empty "Section Navigation" column beside them
html_sidebars = {"validation": [], "from_r": []}
html_static_path = ["_static"]
html_css_files = ["custom.css"]
root_doc = "contents"
# index.html, the page a web server or a file browser opens first, sends the reader to the
# landing page (contents.html)
templates_path = ["_templates"]
html_additional_pages = {"index": "redirect.html"}
