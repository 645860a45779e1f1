"""Person-level queries: answers, refusals, worst cases brute-forced, and the
coverage of a person-level sampled sensitivity on a heavy-tailed model."""

import itertools

import numpy as np
import pytest
from scipy import stats

from sensampler import sample_sensitivity, units
from sensampler.bounds import Bounds, worst_case_sensitivity
from sensampler.distributions import Distribution, LogNormal, Persons

FACTORIES = [units.rows, units.persons, units.sum, units.mean, units.mean_of_totals]


def _all_persons(cap, grid):
    """Every person of 1..cap rows over ``grid`` (a multiset: order is irrelevant)."""
    people = []
    for k in range(1, cap + 1):
        for values in itertools.combinations_with_replacement(grid, k):
            people.append(list(values) + [np.nan] * (cap - k))
    return np.array(people)


def _brute_force(factory, cap, low, high, n, neighbours):
    """Largest |f(D) - f(D')| over every pair of neighbouring databases of persons
    of 1..cap rows with values on {low, mid, high}: replace person 0 (the queries
    are symmetric in persons), or remove it (add-remove: D has n persons)."""
    people = _all_persons(cap, [low, (low + high) / 2, high])
    query = factory(cap)
    p = len(people)
    index = np.array(list(itertools.product(range(p), repeat=n)))
    answers = query.evaluate(people[index]).reshape((p,) * n)
    if neighbours == "replace-one":
        return float((answers.max(axis=0) - answers.min(axis=0)).max())
    smaller = np.array(list(itertools.product(range(p), repeat=n - 1)))
    rest = query.evaluate(people[smaller]).reshape((p,) * (n - 1))
    return float(np.abs(answers - rest[None]).max())


CASES = [
    (cap, low, high, n, relation)
    for cap in (1, 2, 3)
    for low, high in ((1.0, 3.0), (-1.0, 2.0), (-4.0, -0.5))
    for n, relation in ((1, "replace-one"), (2, "replace-one"), (3, "replace-one"),
                        (2, "add-remove"), (3, "add-remove"))
]


@pytest.mark.parametrize("factory", FACTORIES, ids=lambda f: f.__name__)
@pytest.mark.parametrize("cap, low, high, n, relation", CASES)
def test_each_worst_case_is_the_brute_forced_one(factory, cap, low, high, n, relation):
    """The derived worst case equals the largest change over every pair of
    neighbouring databases of persons (1..L rows, values at the bounds and
    between): a bound (never below) and tight (never above)."""
    query = factory(cap)
    derived = worst_case_sensitivity(query, Bounds.given(low, high), n, relation, "l1")
    assert derived == pytest.approx(
        _brute_force(factory, cap, low, high, n, relation), rel=1e-12, abs=1e-12
    )


def test_answers_of_a_small_table():
    people = np.array([[1.0, 2.0, np.nan], [4.0, np.nan, np.nan], [3.0, 3.0, 3.0]])
    assert units.rows(3)(people) == 6.0
    assert units.persons(3)(people) == 3.0
    assert units.sum(3)(people) == 16.0
    assert units.mean(3)(people) == pytest.approx(16.0 / 6.0)
    assert units.mean_of_totals(3)(people) == pytest.approx(16.0 / 3.0)
    stack = np.stack([people, people[::-1]])
    np.testing.assert_allclose(units.mean(3).evaluate(stack), [16.0 / 6.0] * 2)


@pytest.mark.parametrize("factory", [units.rows, units.sum, units.mean_of_totals])
def test_additive_queries_are_sums_over_persons(factory):
    """The declaration the sampler's fast path rests on (they are trusted)."""
    rng = np.random.default_rng(0)
    people = Persons(stats.geom(0.4), LogNormal(0.0, 1.0), cap=5).sample(40, rng)
    query = factory(5)
    each = np.array([query(person[None]) for person in people])
    whole = query(people)
    expected = each.mean() if query.additive == "mean" else each.sum()
    assert whole == pytest.approx(expected)


@pytest.mark.parametrize(
    "data, match",
    [
        (np.ones((2, 4)), "L <= cap=3"),
        (np.array([[1.0, np.nan, np.nan], [np.nan] * 3]), "without a row"),
        (np.array([[1.0, np.inf, np.nan]]), "infinity"),
        (np.array([["a", "b", "c"]]), "real numbers"),
        (np.ones(3), r"shape \(n, L\)"),
    ],
)
def test_bad_databases_are_refused_naming_data(data, match):
    with pytest.raises((ValueError, TypeError), match=f"data.*{match}|{match}"):
        units.sum(3)(data)


def test_a_cap_below_one_is_refused():
    with pytest.raises(ValueError, match="cap"):
        units.mean(0)


class _LogNormalCounts(Distribution):
    """Rows per person: 1 + floor(LogNormal(mu, sigma)), mean about 5, a tail to hundreds."""

    releases_gil = True

    def __init__(self, mu=1.0, sigma=1.1):
        self.mu, self.sigma = mu, sigma

    def _draw(self, shape, rng):
        return 1 + np.floor(rng.lognormal(self.mu, self.sigma, size=shape)).astype(int)


HEAVY = Persons(_LogNormalCounts(), LogNormal(3.0, 1.0))


@pytest.mark.slow
@pytest.mark.parametrize("query", ["sum", "mean"])
def test_person_level_sampled_sensitivity_covers_fresh_pairs(query):
    """Coverage on fresh pairs of neighbours of a heavy-tailed model (n = 1000
    persons, rows per person log-normal with mean about 5): the share of fresh
    pairs whose change exceeds the sampled sensitivity is at most gamma, within
    6 standard errors."""
    cap, n, gamma = HEAVY.cap, 1000, 0.05
    bounds = Bounds.from_population(HEAVY)
    q = units.PERSON_QUERIES[query](cap)
    estimate = sample_sensitivity(q, HEAVY, n, gamma=gamma, bounds=bounds, random_state=3)
    rng = np.random.default_rng(11)
    if query == "sum":  # additive: a pair's change is that of its two persons
        pairs = 200_000
        one, other = (bounds.clip(HEAVY.sample(pairs, random_state=rng)) for _ in "ab")
        changes = np.abs(q.evaluate(one[:, None]) - q.evaluate(other[:, None]))
    else:  # databases drawn whole, 20 pairs at a time
        pairs, changes = 600, []
        for _ in range(pairs // 20):
            stack = bounds.clip(HEAVY.sample_batch(20, n, random_state=rng))
            moved = stack.copy()
            moved[:, 0] = bounds.clip(HEAVY.sample(20, random_state=rng))
            changes.append(np.abs(q.evaluate(stack) - q.evaluate(moved)))
        changes = np.concatenate(changes)
    share = np.mean(changes > estimate.sensitivity.value)
    assert share <= gamma + 6 * np.sqrt(gamma * (1 - gamma) / pairs)


def _histogram_brute_force(query, cap, n, neighbours, norm):
    """Largest norm of the change of the person-level histogram over every pair
    of neighbouring databases of persons with rows on {0.5, 1.5, 2.5} (the last
    outside the range (0, 2), so not counted)."""
    people = _all_persons(cap, [0.5, 1.5, 2.5])
    p = len(people)
    index = np.array(list(itertools.product(range(p), repeat=n)))
    answers = query.evaluate(people[index])
    if neighbours == "replace-one":
        grid = answers.reshape((p,) * n + (-1,))
        diffs = (grid[:, None] - grid[None, :]).reshape(-1, grid.shape[-1])
    else:
        smaller = np.array(list(itertools.product(range(p), repeat=n - 1)))
        rest = query.evaluate(people[smaller]).reshape((p,) * (n - 1) + (-1,))
        diffs = (answers.reshape((p,) * n + (-1,)) - rest[None]).reshape(
            -1, answers.shape[-1])
    order = {"l1": 1, "l2": 2, "linf": np.inf}[norm]
    return float(np.linalg.norm(diffs, ord=order, axis=1).max())


@pytest.mark.parametrize("bins", [1, 2])
@pytest.mark.parametrize("cap", [1, 2, 3])
@pytest.mark.parametrize("n, relation", [(1, "replace-one"), (2, "replace-one"),
                                         (2, "add-remove")])
@pytest.mark.parametrize("norm", ["l1", "l2", "linf"])
def test_the_histograms_worst_case_is_the_brute_forced_one(bins, cap, n, relation, norm):
    """Counts of rows per bin under the cap L: L (add-remove, one bin, linf),
    2L (l1) and sqrt(2) L (l2) for replace-one over two bins; a bound and
    tight, brute-forced over every pair of small databases of persons."""
    query = units.histogram(cap, bins, range=(0.0, 2.0))
    derived = worst_case_sensitivity(query, Bounds.given(0.0, 3.0), n, relation, norm)
    assert derived == pytest.approx(_histogram_brute_force(query, cap, n, relation, norm))


def test_the_histogram_counts_each_persons_rows_in_range():
    people = np.array([[0.5, 1.5, np.nan], [2.5, 1.9, 0.1]])
    assert units.histogram(3, 2, range=(0.0, 2.0))(people).tolist() == [2.0, 2.0]
    with pytest.raises(ValueError, match="range"):
        units.histogram(3, 2)
