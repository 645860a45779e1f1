"""The ``sensampler`` command (placeholder until the sampler lands)."""

import sys


def main(argv=None):
    from . import __version__
    print(f"sensampler {__version__}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
