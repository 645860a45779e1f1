import re

import numpy as np
import pytest
from sklearn.linear_model import Ridge

from sensampler import queries

RNG = np.random.default_rng(3)
STACK = RNG.normal(size=(6, 25))
STACK_2D = RNG.normal(size=(6, 25, 3))


@pytest.mark.parametrize(
    "query, reference",
    [
        (queries.identity, lambda d: d),
        (queries.mean, np.mean),
        (queries.sum, np.sum),
        (queries.median, np.median),
        (queries.quantile(0.9), lambda d: np.quantile(d, 0.9)),
        (queries.quantile([0.1, 0.5]), lambda d: np.quantile(d, [0.1, 0.5])),
        (queries.variance(), np.var),
        (queries.variance(ddof=1), lambda d: np.var(d, ddof=1)),
        (queries.std(), np.std),
        (queries.std(ddof=1), lambda d: np.std(d, ddof=1)),
        (queries.count(lambda x: x > 0.5), lambda d: np.sum(d > 0.5)),
        (queries.count(), np.count_nonzero),
        (
            queries.histogram(7, range=(-2, 2)),
            lambda d: np.histogram(d, 7, range=(-2, 2))[0],
        ),
        (
            queries.histogram([-3, -1, 0, 0.5, 3]),
            lambda d: np.histogram(d, [-3, -1, 0, 0.5, 3])[0],
        ),
    ],
    ids=lambda q: getattr(q, "name", ""),
)
def test_builtin_queries_match_a_loop_over_databases(query, reference):
    expected = np.stack([np.asarray(reference(db)) for db in STACK])
    np.testing.assert_allclose(query.evaluate(STACK), expected)
    np.testing.assert_allclose(query(STACK[0]), expected[0])


@pytest.mark.parametrize(
    "query, reference",
    [
        (queries.identity, lambda d: d),
        (queries.mean, lambda d: d.mean(axis=0)),
        (queries.sum, lambda d: d.sum(axis=0)),
        (queries.median, lambda d: np.median(d, axis=0)),
        (queries.variance(), lambda d: d.var(axis=0)),
    ],
)
def test_vector_records(query, reference):
    expected = np.stack([reference(db) for db in STACK_2D])
    np.testing.assert_allclose(query.evaluate(STACK_2D), expected)


def test_histogram_counts_the_right_edge_like_numpy():
    db = np.array([0.0, 1.0, 1.0, 2.0, 5.0])
    np.testing.assert_array_equal(
        queries.histogram(2, range=(0, 1))(db), np.histogram(db, 2, range=(0, 1))[0]
    )


def test_batched_decorator_and_as_query():
    @queries.batched
    def spread(stack):
        return stack.max(axis=1) - stack.min(axis=1)

    assert spread.batched and spread.name == "spread"
    np.testing.assert_allclose(spread.evaluate(STACK), np.ptp(STACK, axis=1))
    named = queries.batched(name="first")(lambda s: s[:, 0])
    assert named.name == "first"
    plain = queries.as_query(np.max)
    assert not plain.batched
    np.testing.assert_allclose(plain.evaluate(STACK), STACK.max(axis=1))


@pytest.mark.parametrize("wrap", [tuple, dict, None], ids=["tuple", "dict", "array"])
def test_structured_outputs_agree_batched_and_per_database(wrap):
    def shape_output(lo, hi):
        if wrap is None:
            return np.stack([lo, hi], axis=-1)
        return (lo, hi) if wrap is tuple else {"lo": lo, "hi": hi}

    batched = queries.batched(lambda s: shape_output(s.min(axis=1), s.max(axis=1)))
    plain = queries.as_query(lambda db: shape_output(db.min(), db.max()))
    stacked, looped = batched.evaluate(STACK), plain.evaluate(STACK)
    one, reference = batched(STACK[2]), plain(STACK[2])
    if wrap is dict:
        assert list(stacked) == list(looped) == list(one) == ["lo", "hi"]
        stacked, looped = list(stacked.values()), list(looped.values())
        one, reference = list(one.values()), list(reference.values())
    np.testing.assert_array_equal(stacked, looped)
    np.testing.assert_array_equal(one, reference)
    if wrap is not None:  # scalars of one database come back as Python floats
        assert all(isinstance(v, float) for v in one)


def test_estimator_query_fits_each_database():
    data = np.c_[RNG.normal(size=(40, 2)), RNG.normal(size=40)]
    q = queries.estimator(Ridge(alpha=1.0))
    expected = Ridge(alpha=1.0).fit(data[:, :2], data[:, 2]).coef_
    np.testing.assert_allclose(q(data), expected)
    both = queries.estimator(Ridge(), attribute=("coef_", "intercept_"))
    coef, intercept = both(data)
    assert coef.shape == (2,) and intercept.shape == ()
    stacked = both.evaluate(np.stack([data, data]))
    assert stacked[0].shape == (2, 2)


@pytest.mark.parametrize(
    "factory, exc, message",
    [
        (lambda: queries.quantile(1.5), ValueError, "q must be in [0, 1], got q=1.5."),
        (lambda: queries.quantile(np.nan), ValueError, "q must be finite"),
        (lambda: queries.variance(ddof=-1), ValueError, "ddof must be an integer >= 0"),
        (
            lambda: queries.histogram(5),
            ValueError,
            "range must be given with an integer bins",
        ),
        (
            lambda: queries.histogram(0, range=(0, 1)),
            ValueError,
            "bins must be an integer >= 1",
        ),
        (
            lambda: queries.histogram(3, range=(1, 0)),
            ValueError,
            "range must be increasing",
        ),
        (
            lambda: queries.histogram([0, 2, 1]),
            ValueError,
            "bins must be increasing edges",
        ),
        (lambda: queries.count(3), TypeError, "predicate must be callable, got 3."),
        (
            lambda: queries.estimator(object()),
            TypeError,
            "estimator must have a fit method",
        ),
        (
            lambda: queries.estimator(Ridge(), attribute=3),
            TypeError,
            "attribute must be a str",
        ),
        (lambda: queries.as_query(3), TypeError, "query must be callable, got 3."),
    ],
)
def test_bad_query_parameters(factory, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        factory()
