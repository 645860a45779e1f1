"""The ``sensampler`` console script and ``python -m sensampler``.

The command line's modules are imported here, at module level, inside a
``try`` (this module sits outside the :mod:`sensampler.app.cli` package, so
importing it loads none of them first): a Ctrl-C while they load (numpy,
scipy, joblib take a moment) ends the command with one line and exit code 130,
as a Ctrl-C during the work does, instead of a traceback through the import
machinery.
"""

from __future__ import annotations

import sys

try:
    from .cli import EXIT_INTERRUPTED
    from .cli import main as cli_main
except KeyboardInterrupt:
    cli_main = None
    EXIT_INTERRUPTED = 130

__all__ = ["main"]


def main(argv=None) -> int:
    """Run :func:`sensampler.app.cli.main`; a Ctrl-C before it runs is one line, 130."""
    try:
        if cli_main is None:
            raise KeyboardInterrupt
        return cli_main(argv)
    except KeyboardInterrupt:
        print("sensampler: interrupted", file=sys.stderr, flush=True)
        return EXIT_INTERRUPTED
