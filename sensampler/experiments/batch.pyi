"""The former name of sensampler.app.experiments.batch, for type checkers."""

from sensampler.app.experiments.batch import *  # noqa: F403
from sensampler.app.experiments.batch import __all__ as __all__
