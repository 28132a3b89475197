"""The doctests of the documentation's pages draw figures (the plot directive shows them in
the built pages); each is closed after its page's doctest, so that the figures of many pages
never accumulate in one test process."""

import sys

import pytest


@pytest.fixture(autouse=True)
def close_figures():
    yield
    if "matplotlib.pyplot" in sys.modules:
        sys.modules["matplotlib.pyplot"].close("all")
