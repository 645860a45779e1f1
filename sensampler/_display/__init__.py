"""Private helpers: see the package docstring of sensampler."""
