"""The former name of sensampler.app.experiments, for type checkers."""

from sensampler.app.experiments import *  # noqa: F403
from sensampler.app.experiments import __all__ as __all__
