"""The former name of sensampler.app.experiments.datasets, for type checkers."""

from sensampler.app.experiments.datasets import *  # noqa: F403
from sensampler.app.experiments.datasets import __all__ as __all__
