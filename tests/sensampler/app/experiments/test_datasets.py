import re

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.linear_model import LogisticRegression, Ridge
from sklearn.metrics import accuracy_score, mean_squared_error
from sklearn.model_selection import train_test_split

from sensampler import queries
from sensampler.app.experiments.datasets import (
    LOADERS,
    DatasetSplit,
    load_split,
    score_accuracy,
    score_mse,
)


def test_diabetes_split_is_the_public_only_preprocessing_written_out():
    # The preprocessing of the real-models example, written out independently.
    X, y = load_diabetes(return_X_y=True, scaled=False)
    X_pub, X_priv, y_pub, y_priv = train_test_split(
        X, y, train_size=0.3, random_state=7
    )
    X_train, X_test, y_train, y_test = train_test_split(
        X_priv, y_priv, train_size=0.6, random_state=7
    )
    centre, scale = X_pub.mean(axis=0), X_pub.std(axis=0)
    split = load_split("load_diabetes", public=0.3, train=0.6, seed=7)
    assert isinstance(split, DatasetSplit) and split.task == "regression"
    for part, (features, target) in zip(
        (split.public, split.train, split.test),
        ((X_pub, y_pub), (X_train, y_train), (X_test, y_test)),
    ):
        np.testing.assert_allclose(part[:, :-1], (features - centre) / scale)
        np.testing.assert_allclose(part[:, -1], target - y_pub.mean())
        assert not part.flags.writeable
    # 442 rows: 132 public (0.3, rounded down by train_test_split), 186 + 124 private.
    assert (len(split.public), len(split.train), len(split.test)) == (132, 186, 124)


def test_classification_labels_are_kept_and_none_leaves_the_values():
    X, y = load_breast_cancer(return_X_y=True)
    split = load_split("load_breast_cancer", seed=1, standardise="none")
    assert split.task == "classification"
    rows = np.concatenate([split.public, split.train, split.test])
    assert sorted(map(tuple, rows)) == sorted(map(tuple, np.column_stack([X, y])))
    standardised = load_split("load_breast_cancer", seed=1)
    assert set(np.unique(standardised.train[:, -1])) == {0.0, 1.0}


def test_scores_agree_with_scikit_learn():
    split = load_split("load_diabetes", seed=3)
    model = Ridge(alpha=1.0, fit_intercept=False).fit(
        split.train[:, :-1], split.train[:, -1]
    )
    expected = mean_squared_error(split.test[:, -1], model.predict(split.test[:, :-1]))
    assert split.score("test_mse")(model.coef_) == pytest.approx(expected, rel=1e-12)
    assert score_mse(model.coef_, split.test) == pytest.approx(expected, rel=1e-12)
    for loader in ("load_breast_cancer", "load_iris"):  # two classes, three
        split = load_split(loader, seed=3)
        model = LogisticRegression(fit_intercept=False, max_iter=1000).fit(
            split.train[:, :-1], split.train[:, -1]
        )
        expected = accuracy_score(split.test[:, -1], model.predict(split.test[:, :-1]))
        score = split.score("test_accuracy")
        assert score.__name__ == "test_accuracy"
        assert score(model.coef_) == expected
        classes = np.unique(split.train[:, -1])
        assert score_accuracy(model.coef_, split.test, classes) == expected


def test_references_are_the_three_models_without_noise():
    split = load_split("load_diabetes", seed=3)
    query = queries.estimator(Ridge(alpha=10.0, fit_intercept=False))
    score = split.score("test_mse")
    public_model = Ridge(alpha=10.0, fit_intercept=False).fit(
        split.public[:, :-1], split.public[:, -1]
    )
    refs = split.references(query, score)
    assert refs == {
        "non-private": score(query(split.train)),
        "public data only": pytest.approx(score(public_model.coef_), rel=1e-12),
        # The centred target's mean squared value: predicting the public mean.
        "constant": pytest.approx(np.mean(split.test[:, -1] ** 2), rel=1e-12),
    }


def test_iris_is_loaded_as_three_classes():
    X, y = load_iris(return_X_y=True)
    split = load_split("load_iris")
    assert split.public.shape[1] == X.shape[1] + 1
    assert set(np.unique(split.public[:, -1])) <= set(np.unique(y))


@pytest.mark.parametrize(
    "kwargs, exc, message",
    [
        (
            {"loader": "fetch_openml"},
            ValueError,
            "loader must be one of "
            + ", ".join(map(repr, LOADERS))
            + ", got loader='fetch_openml'.",
        ),
        ({"public": 1.0}, ValueError, "public must be"),
        ({"train": 0}, ValueError, "train must be"),
        ({"seed": -1}, ValueError, "seed must be an integer >= 0, got seed=-1."),
        ({"seed": 1.5}, TypeError, "seed must be an integer, got 1.5."),
        (
            {"standardise": "all"},
            ValueError,
            "standardise must be one of 'public', 'none', got standardise='all'.",
        ),
    ],
)
def test_bad_arguments_are_named(kwargs, exc, message):
    kwargs = {"loader": "load_diabetes", **kwargs}
    with pytest.raises(exc, match=re.escape(message)):
        load_split(kwargs.pop("loader"), **kwargs)


def test_accuracy_needs_a_classification_data_set():
    split = load_split("load_diabetes")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "score='test_accuracy' needs a classification data set, got "
            "loader='load_diabetes' (regression)."
        ),
    ):
        split.score("test_accuracy")
    with pytest.raises(ValueError, match=re.escape("score must be one of")):
        split.score("r2")


# --------------------------------------------------------------- reliability
@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"seed": 2**32}, "seed must be <= MAX_SEED=4294967295, got seed=4294967296."),
        (
            {"public": 0.001},
            "public=0.001 and train=0.7 leave the public part of 'load_diabetes' "
            "(442 rows) empty: every part needs a row.",
        ),
        (
            {"public": 0.999},
            "public=0.999 and train=0.7 leave the train part of 'load_diabetes' "
            "(442 rows) empty",
        ),
    ],
)
def test_load_split_names_its_own_parameters(kwargs, message):
    # Failed before: scikit-learn's own messages (random_state, train_size).
    with pytest.raises(ValueError, match=re.escape(message)):
        load_split("load_diabetes", **kwargs)


def test_a_score_refuses_coefficients_of_the_wrong_size():
    # Failed before: numpy's "matmul: Input operand 1 has a mismatch ...".
    split = load_split("load_iris")
    message = "coef must hold one coefficient per feature (4, or 4 per class), got 3"
    with pytest.raises(ValueError, match=re.escape(message)):
        split.score("test_accuracy")(np.zeros(3))
    with pytest.raises(ValueError, match="got 0"):
        split.score("test_mse")(np.zeros(0))
    assert 0.0 <= split.score("test_accuracy")(np.zeros(12)) <= 1.0
