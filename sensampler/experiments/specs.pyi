"""The former name of sensampler.app.experiments.specs, for type checkers."""

from sensampler.app.experiments.specs import *  # noqa: F403
from sensampler.app.experiments.specs import __all__ as __all__
