"""``python -m sensampler``: the same command as ``sensampler``."""

import sys

from .cli import main

sys.exit(main())
