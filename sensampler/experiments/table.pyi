"""The former name of sensampler.table, for type checkers."""

from sensampler.table import *  # noqa: F403
from sensampler.table import __all__ as __all__
