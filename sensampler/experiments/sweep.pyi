"""The former name of sensampler.app.experiments.sweep, for type checkers."""

from sensampler.app.experiments.sweep import *  # noqa: F403
from sensampler.app.experiments.sweep import __all__ as __all__
