"""What choosing the contribution bound L adds to a person-level sweep.

A person-level ``error_vs_epsilon`` over a model of a person with no cap given
releases each epsilon's row at the cap L a release at that epsilon chooses
(``least_error_cap``, once per epsilon; one calibration per distinct L). Prints,
for ``sum`` and ``mean`` of 300 persons (rows geometric(0.3), values
LogNormal(2, 0.8)) at epsilon in {0.1, 0.3, 1, 3}: the L of each epsilon, the
CPU time (``time.process_time``) of the choices alone, of the whole sweep, and
of the same sweep at the model's own cap given (no choice, one calibration),
with the ratio.

Not a test; always exits 0.

    python benchmarks/sweep_cap_choice.py --repetitions 100
"""

from __future__ import annotations

import argparse
import time

from scipy import stats

from sensampler.app.experiments import error_vs_epsilon
from sensampler.app.release._units import least_error_cap
from sensampler.distributions import LogNormal, Persons
from sensampler.settings import ReleaseSettings

EPSILONS = (0.1, 0.3, 1.0, 3.0)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repetitions", type=int, default=100)
    parser.add_argument("--n", type=int, default=300)
    args = parser.parse_args()
    model = Persons(stats.geom(0.3), LogNormal(2.0, 0.8))  # no cap given
    given = model.with_cap(model.record_shape[0])
    for query in ("sum", "mean"):
        start = time.process_time()
        caps = [least_error_cap(model, [query], args.n, ReleaseSettings.build(
            epsilon=e, privacy_unit="person")).record_shape[0] for e in EPSILONS]
        choice = time.process_time() - start
        times = []
        for persons in (model, given):
            start = time.process_time()
            error_vs_epsilon(query, persons, args.n, list(EPSILONS), privacy_unit="person",
                             repetitions=args.repetitions, random_state=0)
            times.append(time.process_time() - start)
        print(f"{query}: L by epsilon {dict(zip(EPSILONS, caps))} (own cap "
              f"{model.record_shape[0]})")
        print(f"  choices {choice:.2f} s CPU; sweep {times[0]:.2f} s; at the own cap "
              f"{times[1]:.2f} s; ratio {times[0] / times[1]:.2f}")


if __name__ == "__main__":
    main()
