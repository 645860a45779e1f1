"""The former name of sensampler.app.report, for type checkers."""

from sensampler.app.report import *  # noqa: F403
from sensampler.app.report import __all__ as __all__
