"""The former name of sensampler.app.plotting, for type checkers."""

from sensampler.app.plotting import *  # noqa: F403
from sensampler.app.plotting import __all__ as __all__
