import math
import pickle
import re

import numpy as np
import pytest
from joblib import parallel_config
from scipy import integrate, special, stats

from sensampler import queries, sample_sensitivity
from sensampler.audit import MAX_AUDIT_PAIRS, audit_estimate
from sensampler.distributions import (
    Bernoulli,
    Distribution,
    MultivariateNormal,
    Normal,
    ScipyDistribution,
)
from sensampler.estimate import SamplingProblem, SensitivityEstimate
from tests.conftest import assert_close_in_se

N, GAMMA = 200, 0.05


def _normal_rate(threshold, n, scale=1.0):
    # G = |x - x'| / n with x - x' ~ N(0, 2 scale^2): P[G > s] = erfc(s n / (2 scale)).
    return float(special.erfc(threshold * n / (2.0 * scale)))


def _t3_rate(threshold, n):
    # x, x' ~ t_3 scaled to variance 1 (scale 1/sqrt(3)); P[|x - x'| > c] by quadrature
    # of P[x' < x - c] + P[x' > x + c] against the density of x.
    t3 = stats.t(df=3, scale=1.0 / math.sqrt(3.0))
    c = threshold * n

    def integrand(x):
        return t3.pdf(x) * (t3.cdf(x - c) + t3.sf(x + c))

    return integrate.quad(integrand, -np.inf, np.inf, epsabs=1e-12, limit=200)[0]


T3 = ScipyDistribution(stats.t(df=3, scale=1.0 / math.sqrt(3.0)))


# ----------------------------------------------------------------- the problem
def test_estimates_carry_their_sampling_problem():
    est = sample_sensitivity(queries.mean, Normal(), 30, m=50, random_state=0)
    problem = est.problem
    assert isinstance(problem, SamplingProblem)
    assert problem.n == 30 and problem.norm.name == "l1"
    assert problem.query.additive == "mean" and problem.options == ()
    result = sample_sensitivity(
        lambda db: (db.mean(), db.max()), Normal(), 30, m=50, random_state=0
    )
    assert result[0].problem is result[1].problem is not None


def test_a_pickled_estimate_comes_back_without_its_problem():
    # Built-in queries hold lambdas, which the standard pickle cannot send.
    est = sample_sensitivity(queries.mean, Normal(), 30, m=50, random_state=0)
    clone = pickle.loads(pickle.dumps(est))
    assert clone.problem is None and clone.run == est.run
    with pytest.raises(ValueError, match="carries no sampling problem"):
        audit_estimate(clone, pairs=10)


# ------------------------------------------------------------ misspecification
@pytest.mark.slow
def test_the_audit_separates_the_population_from_a_heavier_tailed_one():
    # The mean at n = 200, gamma = 0.05 (exact plan: m = k = 113) under
    # Normal(0, 1), the run of random_state=0: fresh pairs of its own population
    # exceed it 0.28% of the time, pairs from a Student t_3 of the same variance
    # 1.27%; 10^5 audited pairs tell them apart. (Averaged over runs the own
    # rate is 1/(m + 1) = 0.88% by the rank law, the t_3 rate about 1.7%.)
    est = sample_sensitivity(queries.mean, Normal(), N, gamma=GAMMA, random_state=0)
    own = audit_estimate(est, pairs=100_000, random_state=4)
    heavy = audit_estimate(est, T3, pairs=100_000, random_state=4)
    s = est.sensitivity.value
    assert own.lower <= _normal_rate(s, N) <= own.upper
    assert heavy.lower <= _t3_rate(s, N) <= heavy.upper
    assert own.upper < heavy.lower  # the intervals say so
    for audit, exact in ((own, _normal_rate(s, N)), (heavy, _t3_rate(s, N))):
        assert_close_in_se(audit.rate, exact, math.sqrt(exact * (1 - exact) / 100_000))
    assert own.beta == est.plan.beta and own.gamma == est.gamma
    assert own.verdict == "within beta" and heavy.verdict == "within beta"


def test_a_population_far_from_the_sampled_one_exceeds_beta():
    est = sample_sensitivity(queries.mean, Normal(), N, gamma=GAMMA, random_state=3)
    wide = audit_estimate(est, Normal(0.0, 3.0), pairs=10_000, random_state=1)
    s = est.sensitivity.value
    assert wide.lower <= _normal_rate(s, N, 3.0) <= wide.upper
    assert wide.exceeds and wide.verdict == "exceeds beta"
    assert "exceeds beta" in str(wide)


# ------------------------------------------------------------------- coverage
def _misses(make_estimate, true_rate, seeds, pairs, confidence):
    misses = 0
    for seed in seeds:
        est = make_estimate(seed)
        audit = audit_estimate(est, pairs=pairs, confidence=confidence,
                               random_state=seed)
        p = true_rate(est.sensitivity.value)
        misses += not audit.lower <= p <= audit.upper
    return misses


def _bound(seeds, confidence):
    q = 1.0 - confidence
    return len(seeds) * q + 6.0 * math.sqrt(len(seeds) * q * (1.0 - q))


@pytest.mark.slow
@pytest.mark.parametrize("confidence", [0.8, 0.99])
def test_the_interval_covers_a_continuous_exceedance_rate(confidence):
    # The mean of 20 Normal(0, 1) records from m = 30 pairs (exact plan): the
    # rate P[G > G_(k)] = erfc(G_(k) n / 2) varies from seed to seed.
    n, seeds = 20, range(200)

    def make(seed):
        return sample_sensitivity(queries.mean, Normal(), n, m=30, random_state=seed)

    misses = _misses(make, lambda s: _normal_rate(s, n), seeds, 2_000, confidence)
    assert misses <= _bound(seeds, confidence)


@pytest.mark.slow
@pytest.mark.parametrize("confidence", [0.8, 0.99])
def test_the_interval_covers_an_atom_heavy_exceedance_rate(confidence):
    # The sum of Bernoulli(0.02) records: G = |x - x'| is 0 or 1, P[G = 1] =
    # 2 p (1 - p). With m = 20 pairs G_(k) = 0 in about 45% of seeds (rate
    # 0.0392, a strict exceedance of an atom) and 1 otherwise (rate 0).
    p, seeds = 0.02, range(200)

    def make(seed):
        return sample_sensitivity(
            queries.sum, Bernoulli(p), 50, m=20, inequality="exchangeable", random_state=seed
        )

    def rate(s):
        return 2 * p * (1 - p) if s < 1 else 0.0

    misses = _misses(make, rate, seeds, 2_000, confidence)
    assert misses <= _bound(seeds, confidence)
    zero = sum(make(seed).sensitivity.value == 0 for seed in seeds[:40])
    assert 5 < zero < 35  # both cases occur


# ------------------------------------------------------------------ the engine
def test_results_are_identical_for_any_n_jobs_and_backend():
    est = sample_sensitivity(queries.median, Normal(), 15, m=40, random_state=0)
    runs = [audit_estimate(est, pairs=3_000, random_state=5, n_jobs=1)]
    runs.append(audit_estimate(est, pairs=3_000, random_state=5, n_jobs=2))
    with parallel_config(backend="threading"):
        runs.append(audit_estimate(est, pairs=3_000, random_state=5, n_jobs=2))
    assert runs[0] == runs[1] == runs[2]
    assert runs[0].pairs == 3_000 and 0 < runs[0].exceedances


def test_the_default_population_is_the_estimates_own():
    est = sample_sensitivity(queries.mean, Normal(), 20, m=30, random_state=0)
    assert audit_estimate(est, pairs=500, random_state=1) == audit_estimate(
        est, Normal(), pairs=500, random_state=1
    )


def test_the_run_s_own_seed_still_draws_fresh_pairs():
    # k = 500 of m = 1000: the run's own pairs exceed G_(k) exactly 500 times.
    est = sample_sensitivity(queries.mean, Normal(), 20, m=1000, k=500, random_state=0)
    assert np.count_nonzero(est.samples > est.sensitivity.value) == 500
    audit = audit_estimate(est, pairs=1000, random_state=0)
    assert audit.exceedances != 500


def test_a_per_coordinate_estimate_counts_any_coordinate():
    population = MultivariateNormal([0.0, 0.0], [[1.0, 0.0], [0.0, 4.0]])
    est = sample_sensitivity(
        queries.mean, population, 20, m=100, norm="coordinate", random_state=0
    )
    audit = audit_estimate(est, pairs=20_000, random_state=2)
    # G_j = |x_j - x'_j| / n with x_j - x'_j ~ N(0, 2 sd_j^2), independent.
    s = est.sensitivity.value
    p = 1 - (1 - _normal_rate(s[0], 20)) * (1 - _normal_rate(s[1], 20, 2.0))
    assert audit.lower <= p <= audit.upper
    assert audit.gamma == pytest.approx(est.gamma)
    assert audit.beta == pytest.approx(2 * est.plan.beta)
    assert audit.sensitivity == tuple(s)
    with pytest.raises(ValueError, match=re.escape(
        "pairs must be >= the 2 parts or coordinates the run released jointly, "
        "got pairs=1."
    )):
        audit_estimate(est, pairs=1)


# ------------------------------------------------------------------- validation
class _Untouchable(Distribution):
    """A population that fails the test if anything is drawn from it."""

    def _draw(self, shape, rng):
        raise AssertionError("drawn")


@pytest.mark.parametrize(
    "kwargs, error, message",
    [
        ({"pairs": 0}, ValueError, "pairs must be an integer >= 1, got pairs=0."),
        ({"pairs": 1.5}, TypeError, "pairs must be an integer, got 1.5."),
        (
            {"pairs": MAX_AUDIT_PAIRS + 1},
            ValueError,
            f"pairs must be <= MAX_AUDIT_PAIRS={MAX_AUDIT_PAIRS}",
        ),
        ({"confidence": 0.0}, ValueError, "confidence must be > 0.0 and < 1.0"),
        ({"n_jobs": 0}, ValueError, "n_jobs must be None or a non-zero integer"),
        ({"random_state": "x"}, TypeError, "random_state must be None, an int"),
        ({"population": 3.0}, TypeError, "population must be"),
    ],
)
def test_bad_input_is_refused_by_name_before_any_pair(kwargs, error, message):
    est = sample_sensitivity(queries.mean, Normal(), 20, m=30, random_state=0)
    est = SensitivityEstimate(
        est.samples, est.run, est.plan, est.norm, est.n,
        problem=SamplingProblem(est.problem.query, _Untouchable(), 20,
                                est.problem.norm),
    )
    arguments = {"pairs": 10, **kwargs}
    population = arguments.pop("population", None)
    with pytest.raises(error, match=re.escape(message)):
        audit_estimate(est, population, **arguments)


def test_several_parts_and_other_objects_are_refused():
    result = sample_sensitivity(
        lambda db: (db.mean(), db.max()), Normal(), 10, m=30, random_state=0
    )
    with pytest.raises(TypeError, match="index a part"):
        audit_estimate(result, pairs=10)
    with pytest.raises(TypeError, match="estimate must be a SensitivityEstimate"):
        audit_estimate(1.0, pairs=10)
    # A part of a multi-part result audits that part.
    audit = audit_estimate(result[1], pairs=200, random_state=0)
    assert audit.sensitivity == result[1].sensitivity.value


@pytest.mark.dask
@pytest.mark.slow
def test_a_dask_cluster_gives_the_serial_audit_bit_for_bit():
    distributed = pytest.importorskip("distributed")
    est = sample_sensitivity(queries.median, Normal(), 15, m=40, random_state=0)
    serial = audit_estimate(est, pairs=3_000, random_state=5, n_jobs=1)
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster),
        parallel_config(backend="dask"),
    ):
        on_cluster = audit_estimate(est, pairs=3_000, random_state=5, n_jobs=-1)
    assert on_cluster == serial


def test_a_population_of_other_records_is_refused_before_any_pair():
    est = sample_sensitivity(queries.mean, Normal(), 20, m=30, random_state=0)
    other = MultivariateNormal([0.0, 0.0], [[1.0, 0.0], [0.0, 1.0]])
    with pytest.raises(ValueError, match=re.escape("records of shape (2,)")):
        audit_estimate(est, other, pairs=10)


def test_the_fresh_pairs_follow_the_estimate_s_relation_or_the_one_given():
    # A sum over N(0, 1) records: the add/remove change is x itself, the
    # replace-one change x - x' ~ N(0, 2). P[|x| > s] = erfc(s / sqrt 2) and
    # P[|x - x'| > s] = erfc(s / 2) (independent of the estimate's code).
    est = sample_sensitivity(
        queries.sum, Normal(), 50, gamma=0.05, neighbours="add-remove", random_state=4
    )
    s, pairs = float(est.sensitivity.value), 200_000
    own = audit_estimate(est, pairs=pairs, random_state=5)
    assert own.neighbours == "add-remove"
    assert str(own).startswith(f"{own.exceedances} of {pairs} fresh add-remove pairs")
    other = audit_estimate(est, pairs=pairs, random_state=5, neighbours="replace-one")
    assert other.neighbours == "replace-one" and other.to_dict()["neighbours"] == (
        "replace-one"
    )
    for audit, expected in (
        (own, special.erfc(s / math.sqrt(2.0))),
        (other, special.erfc(s / 2.0)),
    ):
        assert_close_in_se(audit.rate, expected, math.sqrt(expected * (1 - expected) / pairs))


def test_add_remove_pairs_need_two_records_before_any_pair():
    est = sample_sensitivity(queries.mean, Normal(), 1, m=30, random_state=0)
    est = SensitivityEstimate(
        est.samples, est.run, est.plan, est.norm, est.n,
        problem=SamplingProblem(est.problem.query, _Untouchable(), 1, est.problem.norm),
    )
    with pytest.raises(ValueError, match=re.escape("needs n >= 2")):
        audit_estimate(est, pairs=10, neighbours="add-remove")
    with pytest.raises(ValueError, match="neighbours must be one of"):
        audit_estimate(est, pairs=10, neighbours="swap")
