"""The ``sensampler`` command.

Exit codes: 0 success, 1 a failure while running, 2 a usage error (bad flag or
value), reported as one line without a traceback.
"""

from __future__ import annotations

import argparse
import json
import sys

from ._version import __version__

__all__ = ["main", "build_parser"]


def _cmd_plan(args):
    from .plan import sampling_plan

    plan = sampling_plan(m=args.m, gamma=args.gamma, k=args.k, bound=args.bound)
    if args.json:
        print(json.dumps(plan.to_dict()))
    else:
        for key, value in plan.to_dict().items():
            print(f"{key:<6} {value}")
    return 0


def _cmd_demo(args):
    from .demo import run_demo

    run_demo(out=sys.stdout, random_state=args.seed, progress=not args.no_progress)
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="sensampler",
        description="Random differential privacy with sampled sensitivities.")
    parser.add_argument("--version", action="version", version=f"sensampler {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    demo = sub.add_parser("demo", help="the heights example end to end (no arguments)",
                          description="The source document's heights example: plan, "
                                      "sampled sensitivity and its mean.")
    demo.add_argument("--seed", type=int, default=2017, help="random_state (default 2017)")
    demo.add_argument("--no-progress", action="store_true", help="hide progress bars")
    demo.set_defaults(func=_cmd_demo)

    plan = sub.add_parser("plan", help="how many pairs to sample for a gamma",
                          description="Choose (m, k) for gamma, or certify a given m (and k).")
    plan.add_argument("--gamma", type=float, help="random-DP failure probability in (0, 1)")
    plan.add_argument("--m", type=int, help="number of neighbouring pairs")
    plan.add_argument("--k", type=int, help="rank of the released order statistic")
    plan.add_argument("--bound", choices=["exact", "dkw"], default="exact")
    plan.add_argument("--json", action="store_true", help="print one JSON object")
    plan.set_defaults(func=_cmd_plan)
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 0
    try:
        return args.func(args)
    except (ValueError, TypeError) as exc:
        print(f"sensampler {args.command}: error: {exc}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("sensampler: interrupted", file=sys.stderr)
        return 1
    except Exception as exc:  # noqa: BLE001 - one line for the user, not a traceback
        print(f"sensampler {args.command}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
