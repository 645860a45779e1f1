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


@pytest.mark.parametrize("mean", [False, True])
def test_additive_query_sums_its_record_map(mean):
    q = queries.additive(np.square, mean=mean)
    assert q.batched and q.additive == ("mean" if mean else "sum")
    assert q.name == "square"
    reduce = np.mean if mean else np.sum
    np.testing.assert_allclose(q.evaluate(STACK), reduce(STACK**2, axis=1))
    np.testing.assert_allclose(q(STACK[1]), reduce(STACK[1] ** 2))
    # vector records, vector outputs: one output per record, summed over records
    outer = queries.additive(lambda x: x[:, :, None] * x[:, None, :], name="outer")
    expected = np.einsum("bni,bnj->bij", STACK_2D, STACK_2D)
    np.testing.assert_allclose(outer.evaluate(STACK_2D), expected)


def test_additive_record_map_must_give_one_output_per_record():
    q = queries.additive(np.sum)
    with pytest.raises(ValueError, match=re.escape("record_map must return one")):
        q.evaluate(STACK)


def test_batched_declares_additive():
    assert queries.batched(np.sum).additive is None
    assert queries.batched(lambda s: s.sum(axis=1), additive="sum").additive == "sum"

    @queries.batched(additive="mean", name="share")
    def share(stack):
        return (stack > 0).mean(axis=1)

    assert (share.additive, share.name) == ("mean", "share")
    assert queries.as_query(np.median).additive is None


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
        (
            lambda: queries.batched(np.sum, additive=True),
            ValueError,
            "additive must be one of 'sum', 'mean', got additive=True.",
        ),
        (
            lambda: queries.additive(3),
            TypeError,
            "record_map must be callable, got 3.",
        ),
        (
            lambda: queries.additive(np.abs, mean=1),
            TypeError,
            "mean must be True or False, got mean=1.",
        ),
    ],
)
def test_bad_query_parameters(factory, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        factory()


# ------------------------------------------------- hostile parameters and databases
@pytest.mark.parametrize(
    "factory, exc, message",
    [
        (lambda: queries.quantile("0.5"), TypeError, "q must be array-like of numbers"),
        (lambda: queries.quantile([]), ValueError, "q must be a number or a non-empty"),
        (lambda: queries.quantile([[0.5]]), ValueError, "non-empty 1-d sequence"),
        (
            lambda: queries.histogram(2**62, range=(0, 1)),
            ValueError,
            f"bins must be <= MAX_BINS={2**20}, got bins={2**62}.",
        ),
        (
            lambda: queries.histogram(3, range=[0, 1, 2]),
            ValueError,
            "range must be increasing (low, high), got range=[0, 1, 2].",
        ),
        (
            lambda: queries.histogram(10, range=(-1e308, 1e308)),
            ValueError,
            "range=(-1e+308, 1e+308) cannot hold bins=10 distinct float64 edges",
        ),
        (
            lambda: queries.histogram(10, range=(0.0, 5e-324)),
            ValueError,
            "cannot hold bins=10 distinct float64 edges",
        ),
        (
            lambda: queries.histogram([[0.0], [1.0, 2.0]]),
            TypeError,
            "bins must be an int or a 1-d sequence of edges",
        ),
        (
            lambda: queries.batched(np.mean, name=3),
            TypeError,
            "name must be a str or None, got name=3.",
        ),
        (
            lambda: queries.BatchedQuery(np.mean, releases_gil="yes"),
            TypeError,
            "releases_gil must be True or False, got releases_gil='yes'.",
        ),
        (
            lambda: queries.estimator(Ridge(), target="y"),
            TypeError,
            "target must be an int or None, got target='y'.",
        ),
    ],
)
def test_hostile_query_parameters(factory, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        factory()


@pytest.mark.parametrize(
    "call, exc, message",
    [
        (
            lambda: queries.mean([]),
            ValueError,
            "data must have shape (n, *record_shape)",
        ),
        (lambda: queries.mean(["a", "b"]), TypeError, "data must hold real numbers"),
        (lambda: queries.sum([[1.0], [1.0, 2.0]]), TypeError, "data must be an array"),
        (
            lambda: queries.mean([np.nan, 1.0]),
            ValueError,
            "data must hold finite records, got NaN or inf.",
        ),
        (
            lambda: queries.sum([1e308, 1e308]),
            ValueError,
            "query 'sum' gives NaN or inf on these records (data of shape (2,)): "
            "its answer overflows float64.",
        ),
        (
            lambda: queries.variance(1)([1.0]),
            ValueError,
            "ddof=1 needs databases of more than 1 records, got 1.",
        ),
        (
            lambda: queries.median.evaluate(np.zeros((0, 3))),
            ValueError,
            "stack must have shape (B, n, *record_shape) with B, n >= 1",
        ),
        (
            lambda: queries.count(lambda x: 1 / 0)([1.0]),
            ValueError,
            "predicate raised ZeroDivisionError: division by zero",
        ),
        (
            lambda: queries.count(lambda x: "x")([1.0]),
            ValueError,
            "predicate must return one output per record",
        ),
        (
            lambda: queries.additive(lambda x: np.full(x.shape, np.nan))([1.0]),
            ValueError,
            "record_map returned NaN or inf.",
        ),
        (
            lambda: queries.estimator(Ridge(), target=2)([[0.0, 1.0], [1.0, 2.0]]),
            ValueError,
            "target=2 is not a column of data's 2.",
        ),
        (
            lambda: queries.estimator(Ridge(), "nope")([[0.0, 1.0], [1.0, 2.0]]),
            ValueError,
            "attribute 'nope' is not an attribute of the fitted Ridge.",
        ),
        (
            lambda: queries.estimator(Ridge(), target=None)([[0.0, 1.0], [1.0, 2.0]]),
            ValueError,
            "Ridge cannot be fitted on data of shape (2, 2) with target=None",
        ),
        (
            lambda: queries.estimator(Ridge())([["a", "b"]]),
            ValueError,
            "data must be a non-empty array of real numbers",
        ),
    ],
)
def test_hostile_databases_are_refused_by_name(call, exc, message):
    with pytest.raises(exc, match=re.escape(message)):
        call()


def test_integer_records_are_summed_as_floats():
    # 2**62 + 2**62 wraps to a negative int64; as floats it is 2**63.
    assert queries.sum(np.array([2**62, 2**62])) == 2.0**63
