"""Clipping bounds: constructors, clipping, worst-case sensitivities, private bounds."""

import math
import re

import numpy as np
import pytest
from scipy import stats

from sensampler import queries, sample_sensitivity
from sensampler.bounds import (
    Bounds,
    ClippedPopulation,
    private_bounds,
    private_bounds_grid,
    worst_case_sensitivity,
)
from sensampler.distributions import (
    Bernoulli,
    Categorical,
    Empirical,
    MultivariateNormal,
    Normal,
    Uniform,
)


# ------------------------------------------------------------------ the record
@pytest.mark.parametrize(
    "low, high",
    [(1.0, 1.0), (2.0, 1.0), (-1e308, 1e308), (0.0, math.inf), (math.nan, 1.0)],
)
def test_bounds_need_a_finite_positive_width(low, high):
    with pytest.raises(ValueError, match="low|high|finite"):
        Bounds(low, high)


def test_bounds_check_their_fields():
    with pytest.raises(ValueError, match="source"):
        Bounds(0.0, 1.0, "guessed")
    with pytest.raises(ValueError, match="private bounds spend an epsilon > 0"):
        Bounds(0.0, 1.0, "private")
    with pytest.raises(ValueError, match="private bounds spend an epsilon > 0"):
        Bounds(0.0, 1.0, "given", epsilon=0.5)
    with pytest.raises(TypeError, match="low must be a real number"):
        Bounds("0", 1.0)
    with pytest.raises(ValueError, match="coverage"):
        Bounds(0.0, 1.0, coverage=1.0)


def test_clip_returns_a_new_array_and_leaves_the_input():
    data = np.array([-5.0, 3.0, 12.0])
    out = Bounds.given(0.0, 10.0).clip(data)
    np.testing.assert_array_equal(out, [0.0, 3.0, 10.0])
    np.testing.assert_array_equal(data, [-5.0, 3.0, 12.0])
    assert out is not data


# ---------------------------------------------------------- from the population
@pytest.mark.parametrize(
    "population, support",
    [
        (Uniform(2.0, 5.0), (2.0, 5.0)),
        (Bernoulli(0.002), (0.0, 1.0)),
        (Categorical([0.5, 0.5], [3, 7]), (3.0, 7.0)),
    ],
)
def test_bounded_models_give_their_support(population, support):
    b = Bounds.from_population(population)
    assert (b.low, b.high) == support and b.source == "population"
    assert b.coverage is None and b.epsilon == 0.0


def test_a_public_table_gives_its_exact_quantiles():
    rows = np.arange(1001.0)  # quantiles 0.0005 and 0.9995 of 0..1000: 0.5 and 999.5
    b = Bounds.from_population(Empirical(rows))
    assert (b.low, b.high) == pytest.approx((0.5, 999.5)) and b.coverage == 0.999
    assert "quantiles of the 1001 public rows" in b.note


def test_a_model_gives_the_quantiles_of_a_public_sample():
    # Against the exact normal quantiles (scipy): the 0.0005 sample quantile of
    # 200 000 draws has standard error sqrt(p (1 - p) / N) / pdf(q) ~ 0.28 here.
    b = Bounds.from_population(Normal(170.0, 10.0))
    low, high = stats.norm.ppf([0.0005, 0.9995], 170.0, 10.0)
    se = math.sqrt(0.0005 * 0.9995 / 200_000) / stats.norm.pdf(low, 170.0, 10.0)
    assert abs(b.low - low) < 6 * se and abs(b.high - high) < 6 * se
    assert "empirical quantiles of 200000 records" in b.note
    assert Bounds.from_population(Normal(170.0, 10.0)) == b  # a fixed public seed


def test_a_one_row_table_is_refused_naming_the_fix():
    with pytest.raises(ValueError, match=re.escape("--bounds LOW:HIGH")):
        Bounds.from_population(Empirical([171.0]))


def test_vector_records_are_refused():
    with pytest.raises(ValueError, match="scalar records"):
        Bounds.from_population(MultivariateNormal([0.0, 0.0], np.eye(2)))


# ------------------------------------------------------------------- the sampler
def test_the_sampled_databases_are_clipped():
    # The maximum of clipped records moves by at most the width: every G_i too.
    b = Bounds.given(160.0, 180.0)
    est = sample_sensitivity(
        queries.quantile(1.0), Normal(170.0, 30.0), 50, m=200, bounds=b, random_state=1
    )
    assert est.samples.max() <= b.width
    assert est.bounds is b and est.worst_case == b.width
    assert est.problem.population.bounds is b
    draws = ClippedPopulation(Normal(170.0, 30.0), b).sample(1000, random_state=0)
    assert draws.min() >= 160.0 and draws.max() <= 180.0


def test_the_worst_case_needs_a_known_query_and_norm():
    b = Bounds.given(0.0, 1.0)
    pop = Uniform(0.0, 1.0)
    est = sample_sensitivity(lambda db: db.mean(), pop, 20, m=30, bounds=b, random_state=0)
    assert est.bounds is b and est.worst_case is None
    est = sample_sensitivity(
        queries.histogram(2, range=(0, 1)), pop, 20, m=30, norm="coordinate",
        bounds=b, random_state=0,
    )
    assert est.worst_case == 2.0  # per coordinate: the l1 norm over the bins
    parts = sample_sensitivity(
        lambda db: (db.mean(), db.max()), pop, 20, m=30, bounds=b, random_state=0
    )
    assert parts[0].worst_case is None


def test_the_sampler_refuses_other_bounds():
    with pytest.raises(TypeError, match="bounds must be a sensampler.bounds.Bounds"):
        sample_sensitivity(queries.mean, Normal(), 10, m=10, bounds=(0, 1))
    with pytest.raises(ValueError, match="scalar records"):
        sample_sensitivity(
            queries.mean, MultivariateNormal([0.0, 0.0], np.eye(2)), 10, m=10,
            bounds=Bounds.given(0, 1),
        )


def test_an_estimate_with_a_worst_case_needs_its_bounds():
    est = sample_sensitivity(queries.mean, Normal(), 10, m=10, random_state=0)
    with pytest.raises(ValueError, match="worst-case sensitivity holds for records"):
        type(est)(est.samples, est.run, est.plan, est.norm, est.n, worst_case=1.0)


def test_estimates_with_bounds_pickle():
    import pickle

    b = Bounds.given(0.0, 1.0)
    est = sample_sensitivity(queries.mean, Uniform(), 10, m=10, bounds=b, random_state=0)
    back = pickle.loads(pickle.dumps(est))
    assert back.bounds == b and back.worst_case == est.worst_case == 0.1
    assert est.to_dict()["bounds"] == [0.0, 1.0]


# ------------------------------------------------- worst cases, checked by brute force
A, B, N = -2.0, 3.0, 7  # width 5


def _pairs(rng, n, relation, count=400):
    """Neighbouring databases of records in [A, B], extremes included."""
    for _ in range(count):
        base = rng.choice([A, B, rng.uniform(A, B)], size=n - 1)
        x, y = rng.choice([A, B, rng.uniform(A, B)], size=2)
        if relation == "replace-one":
            yield np.append(base, x), np.append(base, y)
        else:
            yield np.append(base, x), base


WORST = {
    # (query, replace-one, add-remove), in the l1 norm, w = 5, n = 7
    "mean": (queries.mean, 5 / 7, 5 / 7),
    "sum": (queries.sum, 5.0, 3.0),
    "median": (queries.median, 5.0, 5.0),
    "quantile": (queries.quantile([0.1, 0.9]), 10.0, 10.0),
    "count": (queries.count(), 1.0, 1.0),
    "histogram": (queries.histogram(3, range=(-2, 3)), 2.0, 1.0),
    "variance": (queries.variance(), 25 / 7, 25 / 7),
    "variance1": (queries.variance(1), 25 / 6, None),
    "std": (queries.std(), math.sqrt(25 / 7), math.sqrt(25 / 7)),
}


@pytest.mark.parametrize("name", list(WORST))
@pytest.mark.parametrize("relation", ["replace-one", "add-remove"])
def test_worst_cases_bound_every_pair(name, relation):
    query, replace, add = WORST[name]
    expected = replace if relation == "replace-one" else add
    bound = worst_case_sensitivity(query, Bounds.given(A, B), N, relation, "l1")
    assert bound == pytest.approx(expected, rel=1e-12) if expected else bound is None
    if bound is None:
        return
    rng = np.random.default_rng(7)
    worst = max(
        float(np.sum(np.abs(np.asarray(query(d1)) - np.asarray(query(d2)))))
        for d1, d2 in _pairs(rng, N, relation)
    )
    assert worst <= bound * (1 + 1e-12)


@pytest.mark.parametrize(
    "query, d1, d2",
    [
        # tight: the bound is reached by these pairs
        (queries.mean, [A] * N, [A] * (N - 1) + [B]),
        (queries.sum, [A] * N, [A] * (N - 1) + [B]),
        (queries.median, [A] * 4 + [B] * 3, [A] * 3 + [B] * 4),
        (queries.histogram(3, range=(-2, 3)), [A] * N, [A] * (N - 1) + [B]),
    ],
)
def test_replace_one_worst_cases_are_tight(query, d1, d2):
    bound = worst_case_sensitivity(query, Bounds.given(A, B), N, "replace-one", "l1")
    change = np.sum(np.abs(np.asarray(query(np.array(d1))) - query(np.array(d2))))
    assert change == pytest.approx(bound)


def test_norms_of_the_worst_cases():
    b = Bounds.given(A, B)
    hist = queries.histogram(3, range=(-2, 3))
    assert worst_case_sensitivity(hist, b, N, "replace-one", "l2") == math.sqrt(2)
    assert worst_case_sensitivity(hist, b, N, "replace-one", "linf") == 1.0
    # a per-coordinate estimate carries the l1 worst case (it bounds each bin and
    # their sum: what per-coordinate noise needs)
    assert worst_case_sensitivity(hist, b, N, "replace-one", "coordinate") == 2.0
    assert worst_case_sensitivity(hist, b, N, "replace-one", "cosine") is None
    assert worst_case_sensitivity(queries.mean, b, N, "replace-one", "l2") == 5 / 7
    assert worst_case_sensitivity(lambda db: db.mean(), b, N, "replace-one", "l1") is None


# ------------------------------------------------------------------ private bounds
def test_the_rank_utility_moves_by_at_most_one():
    # The exponential mechanism's sensitivity: replacing one record moves every
    # count #{x <= c} by at most 1 (brute force over the whole grid).
    rng = np.random.default_rng(3)
    grid = private_bounds_grid()
    data = rng.normal(170, 10, 200)
    for _ in range(50):
        other = data.copy()
        other[rng.integers(200)] = rng.choice([-1e9, 0.0, 170.0, 1e9])
        below = np.searchsorted(np.sort(data), grid, side="right")
        below2 = np.searchsorted(np.sort(other), grid, side="right")
        assert np.max(np.abs(below - below2)) <= 1


def test_private_bounds_state_their_epsilon_and_hold_the_data():
    data = np.random.default_rng(0).lognormal(10, 1, 1000)
    b = private_bounds(data, 0.3, random_state=1)
    assert b.source == "private" and b.epsilon == 0.3
    assert b.statement.epsilon == 0.3 and b.statement.delta == 0.0
    assert b.statement.gamma == 0.0 and b.statement.source == "global"
    # the quantiles chosen are near the data's: the bounds hold its middle
    assert b.low < np.quantile(data, 0.1) and b.high > np.quantile(data, 0.9)
    assert b.high / b.low < 1e4


@pytest.mark.slow
def test_private_bounds_are_accurate_on_most_seeds():
    data = np.random.default_rng(0).normal(170, 10, 500)
    widths = [private_bounds(data, 0.5, random_state=s).width for s in range(100)]
    assert np.median(widths) < 60 and np.mean(np.array(widths) > 200) < 0.05


def test_private_bounds_check_their_inputs():
    with pytest.raises(ValueError, match="epsilon"):
        private_bounds([1.0, 2.0], 0.0)
    with pytest.raises(ValueError, match="finite"):
        private_bounds([1.0, np.nan], 1.0)
    with pytest.raises(ValueError, match="neighbours"):
        private_bounds([1.0, 2.0], 1.0, neighbours="swap")


def test_a_hand_made_worst_case_below_the_truth_is_refused():
    b = Bounds.given(140.0, 200.0)
    est = sample_sensitivity(queries.mean, Normal(170, 10), 50, m=30, bounds=b,
                             random_state=0)
    fields = (est.samples, est.run, est.plan, est.norm, est.n)
    with pytest.raises(ValueError, match="worst_case must bound every sampled"):
        type(est)(*fields, bounds=b, worst_case=est.samples.max() / 2)
    with pytest.raises(ValueError, match="analytic worst case"):
        type(est)(*fields, problem=est.problem, bounds=b, worst_case=1.19)
    assert type(est)(*fields, problem=est.problem, bounds=b, worst_case=1.2)


def test_a_worst_case_beyond_the_doubles_is_refused():
    from sensampler.mechanisms import LaplaceMechanism

    b = Bounds.given(-1e307, 1e307)
    est = sample_sensitivity(queries.sum, Normal(), 5, m=10, bounds=b, random_state=0)
    with pytest.raises(ValueError, match="not finite"):
        LaplaceMechanism(est, 1.0, worst_case_epsilon=1e-300)


def test_bounds_of_a_model_of_persons_are_those_of_one_rows_value():
    """A person is a padded group of rows: bounds='auto' reads its rows' values
    (the values law, or a public table's present rows), never the padding."""
    from scipy import stats

    from sensampler.distributions import LogNormal, Persons, public_persons

    values = LogNormal(2.0, 0.5)
    persons = Persons(stats.geom(0.5), values, cap=5)
    assert Bounds.from_population(persons) == Bounds.from_population(values)
    public = public_persons([1.0, 2.0, 3.0, 10.0], [0, 0, 1, 2])
    b = Bounds.from_population(public, coverage=0.5)
    assert (b.low, b.high) == tuple(np.quantile([1.0, 2.0, 3.0, 10.0], [0.25, 0.75]))
    assert b.note.startswith("quantiles of the 4 public rows")
