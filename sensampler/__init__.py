"""sensampler: random differential privacy with sampled sensitivities."""

from ._version import __version__

__all__ = ["__version__"]
