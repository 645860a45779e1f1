"""``python -m sensampler``: the same command as ``sensampler``."""

import sys

from ._console import main

sys.exit(main())
