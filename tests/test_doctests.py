"""Every docstring example of the installed package runs and prints what it shows."""

import doctest
import importlib
import pkgutil

import pytest

import sensampler
import sensampler.distributions

# sensampler.distributions lives in its own folder (see pyproject.toml), so it is
# walked on its own.
MODULES = sorted(
    info.name
    for package in (sensampler, sensampler.distributions)
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + ".")
    if not info.name.endswith("__main__")
) + ["sensampler.distributions"]


@pytest.mark.parametrize("name", MODULES)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
