"""The former name of sensampler.app.release, for type checkers."""

from sensampler.app.release import *  # noqa: F403
from sensampler.app.release import __all__ as __all__
