"""``python -m sensampler``: the same command as ``sensampler``."""

import sys

from .app.cli._console import main

sys.exit(main())
