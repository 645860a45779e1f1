"""The former name of sensampler.app.demo, for type checkers."""

from sensampler.app.demo import *  # noqa: F403
from sensampler.app.demo import __all__ as __all__
