"""The one thing pyproject.toml cannot say: where sensampler.distributions lives.

The population models sit in the repository's top-level ``distributions/``
folder and are installed as ``sensampler.distributions``, never as a top-level
``distributions`` package (another project on PyPI installs that name). Every
package is discovered, none is listed by hand.
"""

from setuptools import find_packages, setup

DISTRIBUTIONS = "sensampler.distributions"

setup(
    packages=find_packages(include=["sensampler", "sensampler.*"])
    + [DISTRIBUTIONS]
    + [f"{DISTRIBUTIONS}.{name}" for name in find_packages("distributions")],
    package_dir={DISTRIBUTIONS: "distributions"},
)
