"""test_docs.py: the examples in docs/PYTHON.md and in the package's docstrings
run as doctests, so the tour and help() show what the code does."""
import doctest
import os

import numpy as np

import bitonic

DOCS = os.path.join(os.path.dirname(__file__), "..", "..", "docs", "PYTHON.md")


def test_docstrings():
    results = doctest.testmod(bitonic, extraglobs={"bitonic": bitonic, "np": np}, optionflags=doctest.ELLIPSIS)
    assert results.attempted >= 10 and results.failed == 0


def test_python_md_tour():
    results = doctest.testfile(os.path.abspath(DOCS), module_relative=False, optionflags=doctest.ELLIPSIS)
    assert results.attempted >= 10 and results.failed == 0


def test_help_shows_the_docstrings():
    for function in (bitonic.sort, bitonic.argsort, bitonic.sort_pairs, bitonic.searchsorted, bitonic.empty,
                     bitonic.devices, bitonic.Context):
        assert function.__doc__ and len(function.__doc__) > 80, function
