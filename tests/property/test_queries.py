"""Every query: built from any parameters it refuses them by name, and evaluated on
any database it refuses it by name or answers with finite numbers; the sampler
refuses, by name, a user query whose outputs are hostile."""

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from sensampler import queries, sample_sensitivity
from sensampler.distributions import Normal
from tests.property._contract import (
    anything,
    assert_finite,
    junk,
    reals,
    refused_or_result,
)

#: Database entries, from the reasonable to the hostile.
entries = st.one_of(
    st.floats(-1e3, 1e3),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from([1e308, -1e308, 5e-324]),
)
databases = st.one_of(
    hnp.arrays(
        np.float64,
        hnp.array_shapes(min_dims=0, max_dims=3, min_side=0),
        elements=entries,
    ),
    st.lists(st.one_of(entries, st.lists(entries, max_size=2)), max_size=4),
    st.lists(st.one_of(entries, junk), max_size=3),
    junk,
)
#: Every built-in query and constructor, with a sensible argument.
BUILT_IN = {
    "identity": queries.identity,
    "mean": queries.mean,
    "sum": queries.sum,
    "median": queries.median,
    "quantile": queries.quantile([0.1, 0.9]),
    "variance": queries.variance(1),
    "std": queries.std(),
    "count": queries.count(),
    "count_predicate": queries.count(lambda x: x > 0),
    "histogram": queries.histogram(4, range=(-1.0, 1.0)),
    "histogram_edges": queries.histogram([0.0, 1.0, 10.0]),
    "additive": queries.additive(np.square, mean=True),
}


def _check_output(out):
    for leaf in out if isinstance(out, tuple) else (out,):
        arr = np.asarray(leaf)
        assert arr.dtype.kind in "biuf", arr
        assert_finite(arr.astype(float))


@pytest.mark.slow
@example("mean", np.array([]))
@example("median", np.array(["a", "b"]))
@example("sum", [[1.0], [1.0, 2.0]])
@example("mean", np.array([np.nan, 1.0]))
@example("sum", np.array([1e308, 1e308]))
@example("histogram", np.zeros((2, 0)))
@example("variance", np.array([1.0]))
@example("count_predicate", "x")
@given(st.sampled_from(sorted(BUILT_IN)), databases)
def test_built_in_queries_on_any_database(name, data):
    query = BUILT_IN[name]
    # A user's map (predicate, record_map) may refuse the records itself, and
    # variance(ddof) too few records.
    also = ("predicate", "record_map", "ddof")
    out = refused_or_result(lambda: query(data), "data", *also)
    if out is not None:
        _check_output(out)
    stack = refused_or_result(lambda: query.evaluate(data), "stack", *also)
    if stack is not None:
        _check_output(stack)


levels = st.one_of(
    anything,
    st.lists(anything, max_size=3),
    st.lists(st.lists(st.floats(0, 1), max_size=2), max_size=2),
)


@pytest.mark.slow
@example([])
@example([[0.5]])
@example("0.5")
@given(levels)
def test_quantile(q):
    query = refused_or_result(lambda: queries.quantile(q), "q")
    if query is not None:
        out = query(np.array([1.0, 2.0, 3.0]))
        _check_output(out)
        assert np.shape(out) == np.shape(q)


@pytest.mark.slow
@given(st.sampled_from([queries.variance, queries.std]), anything)
def test_variance_and_std(build, ddof):
    query = refused_or_result(lambda: build(ddof), "ddof")
    if query is not None:
        refused_or_result(lambda: _check_output(query(np.arange(3.0))), "ddof")


bins = st.one_of(
    anything,
    st.integers(-3, 20),
    st.sampled_from([2**62, 10**9]),
    st.lists(reals, max_size=4),
    st.lists(st.lists(st.floats(), max_size=2), max_size=2),
)
ranges = st.one_of(
    anything,
    st.tuples(reals, reals),
    st.lists(reals, max_size=3),
    st.sampled_from([(-1e308, 1e308), (0.0, 5e-324), (1.0, 1.0)]),
)


@pytest.mark.slow
@example(2**62, (0.0, 1.0))
@example(10, (-1e308, 1e308))
@example(10, (0.0, 5e-324))
@example(3, [0.0, 1.0, 2.0])
@example([[0.0, 1.0]], None)
@given(bins, ranges)
def test_histogram(b, r):
    query = refused_or_result(lambda: queries.histogram(b, range=r), "bins", "range")
    if query is not None:
        out = query(np.array([0.0, 0.5, 1.0, 1e300]))
        _check_output(out)
        assert out.sum() <= 4


@pytest.mark.slow
@given(anything, anything, anything)
def test_batched_query_parameters(name, releases_gil, kind):
    query = refused_or_result(
        lambda: queries.BatchedQuery(
            np.mean, name=name, releases_gil=releases_gil, additive=kind
        ),
        "name",
        "releases_gil",
        "additive",
    )
    if query is not None:
        assert isinstance(query.name, str) and isinstance(query.releases_gil, bool)


@pytest.mark.slow
@given(anything, anything, anything)
def test_additive_and_batched_markers(func, mean, name):
    refused_or_result(
        lambda: queries.additive(func, mean=mean, name=name),
        "record_map",
        "mean",
        "name",
    )
    refused_or_result(lambda: queries.batched(func, name=name), "query", "name")
    refused_or_result(lambda: queries.as_query(func), "query")
    refused_or_result(lambda: queries.FunctionQuery(func, name=name), "query", "name")


@given(anything)
def test_count_predicate(predicate):
    refused_or_result(lambda: queries.count(predicate), "predicate")


def _raises(data):
    raise ZeroDivisionError("division by zero")


#: What a user's predicate or record map may return.
hostile_maps = st.sampled_from(
    [
        _raises,
        lambda x: "x",
        lambda x: np.ones(3),
        lambda x: np.full(np.shape(x), np.nan),
        lambda x: None,
        lambda x: x > 0,
    ]
)


@given(hostile_maps, st.sampled_from([queries.count, queries.additive]))
def test_user_maps_on_a_database(func, build):
    query = build(func)
    out = refused_or_result(
        lambda: query(np.array([1.0, -2.0, 3.0])), "predicate", "record_map"
    )
    if out is not None:
        _check_output(out)


@pytest.mark.slow
@given(anything, anything)
def test_estimator_query_parameters(attribute, target):
    from sklearn.linear_model import LinearRegression

    query = refused_or_result(
        lambda: queries.estimator(LinearRegression(), attribute, target),
        "attribute",
        "target",
    )
    if query is not None:
        data = np.array([[0.0, 1.0], [1.0, 3.0], [2.0, 5.0]])
        out = refused_or_result(lambda: query(data), "attribute", "target", "data")
        if out is not None:
            _check_output(out)


def _overflowing(db):
    return 1e308 * np.sign(db[0])  # finite outputs whose differences overflow


#: What a user's query may return on a database.
hostile_outputs = st.sampled_from(
    [
        lambda db: np.nan,
        lambda db: np.inf,
        lambda db: "1.5",
        lambda db: [db[0], [1.0, 2.0]],
        lambda db: np.ones(int(db[0] > 0) + 1),  # changes shape
        lambda db: 1.0 if db[0] > 0 else (1.0,),  # changes structure
        lambda db: (),
        lambda db: {},
        lambda db: None,
        _overflowing,
        lambda db: 1j,
        lambda db: {"a": db[0], "b": "x"},
        _raises,
        lambda db: db.mean(),
    ]
)


@pytest.mark.slow
@example(_overflowing, "l1")
@example(_overflowing, "l2")
@given(hostile_outputs, st.sampled_from(["l1", "l2", "linf", "coordinate"]))
def test_sample_sensitivity_with_user_queries(func, norm):
    estimate = refused_or_result(
        lambda: sample_sensitivity(
            func, Normal(), 3, m=20, gamma=0.5, norm=norm, random_state=0
        ),
        "query",
        "norm",
    )
    if estimate is not None:
        assert_finite(estimate.sensitivity.value)
