"""The former name of sensampler.app.experiments.documents, for type checkers."""

from sensampler.app.experiments.documents import *  # noqa: F403
from sensampler.app.experiments.documents import __all__ as __all__
