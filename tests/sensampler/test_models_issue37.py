"""PrivateEstimator: the size a statement holds given, private values kept out of
messages, row bounds that overflow, near copies of the private data (issue 37)."""

import re
import time

import numpy as np
import pytest
from sklearn.linear_model import LogisticRegression, Ridge

from sensampler.accounting import PrivacyFilter, default_filter
from sensampler.models import PrivateEstimator

# The flip: with this seed, 134 private rows release the public model and 135
# (an add/remove neighbour: the same rows and one more) a private fit.
FLIP = 134


def _flip_data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(2000, 2))
    return X, X @ [1.0, -2.0] + rng.normal(size=2000)


def _flip_model(**kwargs):
    X, y = _flip_data()
    params = dict(
        epsilon=1.0, delta=1e-5, public=(X[:100], y[:100]), m=19,
        bound="exchangeable", random_state=0, neighbours="add-remove",
    )
    params.update(kwargs)
    return PrivateEstimator(Ridge(alpha=1.0), **params)


def _private(n):
    X, y = _flip_data()
    return X[100 : 100 + n], y[100 : 100 + n]


def test_add_remove_statements_say_the_size_they_hold_given():
    """Before: 134 rows stated the public model as 0-DP and 135 rows (an
    add/remove neighbour) a noisy fit as (1, 1e-5)-DP; the two laws are
    mutually singular, so no epsilon holds for that pair, and nothing said the
    choice read n. Now every statement, its text, its HTML and the ledger of a
    default filter say n is published and the guarantee holds given it."""
    fits = {}
    for n in (FLIP, FLIP + 1):
        budget = PrivacyFilter(10.0, 1e-3)
        with default_filter(budget):
            fits[n] = (_flip_model().fit(*_private(n)), budget)
    public, private = fits[FLIP][0], fits[FLIP + 1][0]
    assert public.selected_["candidate"] == "public model"
    assert private.selected_["candidate"] != "public model"
    for n, (model, budget) in fits.items():
        words = f"n={n} records, published: the statement holds given this size"
        statement = model.privacy_
        assert statement.neighbours == "add-remove"
        assert words in str(statement) and words in statement._repr_html_()
        (entry,) = budget.ledger
        assert words in entry.mechanism and entry.neighbours == "add-remove"
        assert (entry.epsilon, entry.delta) == (statement.epsilon, statement.delta)
    # epsilon 0 is stated only given the published n
    assert public.privacy_.epsilon == 0.0
    assert "given n" in public.selected_["worst case"]
    assert private.privacy_.epsilon == 1.0


def test_an_accountant_records_the_size_before_the_fit():
    """The accountant passed to fit is charged before the choice: its entry
    names the published n too (before, the plain mechanism's name)."""
    budget = PrivacyFilter(10.0, 1e-3)
    _flip_model().fit(*_private(FLIP), accountant=budget)
    (entry,) = budget.ledger
    assert f"n={FLIP} records, published" in entry.mechanism
    assert entry.epsilon == 1.0 and entry.neighbours == "add-remove"


def test_replace_one_statements_keep_their_names():
    """n is the same in every replace-one neighbour: nothing more to say."""
    budget = PrivacyFilter(10.0, 1e-3)
    with default_filter(budget):
        model = _flip_model(neighbours="replace-one").fit(*_private(FLIP))
    assert "published" not in str(model.privacy_)
    assert all("published" not in e.mechanism for e in budget.ledger)


# ------------------------------------------------- private values in messages
def _secret_frames():
    pd = pytest.importorskip("pandas")
    X, _ = _private(60)
    strings = pd.DataFrame({
        "a": pd.array([f"{v}" for v in X[:-1, 0]] + ["SECRETVAL"], dtype="string"),
        "b": X[:, 1],
    })
    objects = X.astype(object)
    objects[7, 1] = "SECRETVAL"
    return [strings, objects]


@pytest.mark.parametrize("which", [0, 1], ids=["pandas string", "numpy object"])
def test_a_private_string_cell_is_not_quoted(which):
    """Before: 'could not convert string to float: 'SECRETVAL'' quoted the
    private cell (scrub kept the first sentence, quotes and all)."""
    X = _secret_frames()[which]
    _, y = _private(60)
    with pytest.raises(ValueError, match="refused by scikit-learn") as info:
        _flip_model(neighbours="replace-one").fit(X, y)
    assert "SECRETVAL" not in str(info.value)
    assert "could not convert string to float: '…'" in str(info.value)


# ----------------------------------------------------------- row bounds
def test_a_row_bound_whose_fit_overflows_is_refused_before_any_fit(monkeypatch):
    """Before: bounds=1e308 ended in a bare OverflowError (sqrt(R**2 + 1) of
    the worst case) after the whole sampling (18 s at the default m)."""
    import sensampler.models as models

    def no_sampling(*args, **kwargs):
        raise AssertionError("sampled before refusing the bound")

    monkeypatch.setattr(models, "sample_sensitivity", no_sampling)
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(float)
    model = PrivateEstimator(
        LogisticRegression(), epsilon=1.0, delta=1e-5, public=(X[:100], y[:100]),
        bounds=1e308, select="shrunk", random_state=0,
    )
    start = time.perf_counter()
    with pytest.raises(ValueError, match=re.escape("bounds=1e+308 is too large")):
        model.fit(X[100:], y[100:])
    assert time.perf_counter() - start < 5.0


def test_a_large_row_bound_below_the_limit_still_fits():
    """The refusal stops at the overflow: a large bound below it still fits,
    its worst case finite (math.hypot, where R**2 overflowed before)."""
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 3))
    y = (X[:, 0] > 0).astype(float)
    model = PrivateEstimator(
        LogisticRegression(), epsilon=1.0, delta=1e-5, public=(X[:100], y[:100]),
        bounds=1e150, select="shrunk", random_state=0, m=19, bound="exchangeable",
    ).fit(X[100:], y[100:])
    assert np.isfinite(model.privacy_.worst_case.epsilon)


# ---------------------------------------------------------------- near copies
@pytest.mark.parametrize(
    "copy, words",
    [
        (lambda rows: rows + 1e-9, "shifted or rescaled"),
        (lambda rows: np.round(rows, 1), "rounded"),
    ],
    ids=["+1e-9", "rounded"],
)
def test_public_rows_near_the_private_ones_are_refused_before_any_spend(copy, words):
    """Before: only the exact private rows were refused as the public data."""
    X, y = _private(200)
    budget = PrivacyFilter(10.0, 1e-3)
    rows = copy(np.column_stack([X, y]))
    with pytest.raises(ValueError, match=words):
        _flip_model(public=(rows[:, :-1], rows[:, -1])).fit(X, y, accountant=budget)
    assert len(budget.ledger) == 0
