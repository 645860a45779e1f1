"""The former name of sensampler.app.planning, for type checkers."""

from sensampler.app.planning import *  # noqa: F403
from sensampler.app.planning import __all__ as __all__
