"""The former name of sensampler.app.cli, for type checkers."""

from sensampler.app.cli import *  # noqa: F403
from sensampler.app.cli import __all__ as __all__
