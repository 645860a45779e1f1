"""The former name of sensampler.app.data_files, for type checkers."""

from sensampler.app.data_files import *  # noqa: F403
from sensampler.app.data_files import __all__ as __all__
