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


#: Modules whose examples take seconds (two PrivateEstimator fits): left to the
#: full run (``make test-all``, CI).
SLOW = {"sensampler.models._estimator"}


@pytest.mark.parametrize(
    "name",
    [pytest.param(name, marks=pytest.mark.slow) if name in SLOW else name for name in MODULES],
)
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(
        module, optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    )
    assert result.failed == 0, f"{result.failed} doctest(s) failed in {name}"
