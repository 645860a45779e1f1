"""The former name of sensampler.app.budget_file, for type checkers."""

from sensampler.app.budget_file import *  # noqa: F403
from sensampler.app.budget_file import __all__ as __all__
