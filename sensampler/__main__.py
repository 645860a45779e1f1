"""``python -m sensampler``: the same command as ``sensampler``."""

import sys

from .app._console import main

sys.exit(main())
