"""Data that ships with scikit-learn, split into a public part and a private one.

A released model is trained on the private training part, scored on the private
test part, and its sensitivity sampled from a population fitted on the public
part only. Nothing is downloaded: the loaders read files installed with
scikit-learn.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ..._lib.domains import PROBABILITY
from ..._lib.validation import check_choice, check_count

__all__ = [
    "LOADERS",
    "STANDARDISE",
    "SCORES",
    "DatasetSplit",
    "Score",
    "load_split",
    "MAX_SEED",
    "score_mse",
    "score_accuracy",
]

#: Loaders of ``sklearn.datasets`` that may be named: name -> (task, fixed arguments).
#: The diabetes features are loaded raw: its ``scaled=True`` columns were scaled with
#: all 442 rows, private ones included.
LOADERS = {
    "load_diabetes": ("regression", {"scaled": False}),
    "load_breast_cancer": ("classification", {}),
    "load_iris": ("classification", {}),
    "load_wine": ("classification", {}),
}
#: ``"public"``: features standardised, and a regression target centred, with the
#: public part's statistics only; ``"none"``: the loader's values.
STANDARDISE = ("public", "none")
#: Scores of released coefficients on the private test part
#: (:meth:`DatasetSplit.score`): mean squared error, accuracy.
SCORES = ("test_mse", "test_accuracy")


@dataclass(frozen=True, eq=False)
class DatasetSplit:
    """A data set split three ways; every part holds rows ``(features..., target)``.

    The arrays are read-only.

    Parameters
    ----------
    loader : str
        The ``sklearn.datasets`` loader, a key of :data:`LOADERS`.
    task : {"regression", "classification"}
    public : ndarray of shape (n_public, d + 1)
        The part a population model is fitted on (no privacy asked).
    train : ndarray of shape (n_train, d + 1)
        The private part a released model is trained on.
    test : ndarray of shape (n_test, d + 1)
        The private part a released model is scored on.
    """

    loader: str
    task: str
    public: np.ndarray
    train: np.ndarray
    test: np.ndarray

    def score(self, name: str) -> Score:
        """The score ``name`` (a key of :data:`SCORES`) of a released coefficient
        vector on :attr:`test`.

        Parameters
        ----------
        name : str
            A key of :data:`SCORES`.

        Returns
        -------
        callable
            ``score(coef) -> float`` on :attr:`test`.
        """
        check_choice("score", name, SCORES)
        if name == "test_accuracy":
            if self.task != "classification":
                raise ValueError(
                    f"score='test_accuracy' needs a classification data set, got "
                    f"loader={self.loader!r} ({self.task})."
                )
            classes = np.unique(self.train[:, -1])
            return Score(name, score_accuracy, self.test, classes)
        return Score(name, score_mse, self.test)

    def references(self, query: Callable, score: Callable) -> dict:
        """The score of three models that spend no privacy on the released record.

        ``"non-private"``: ``query`` (an estimator query) on :attr:`train`, no
        noise (what the private release approaches at large epsilon);
        ``"public data only"``: ``query`` on :attr:`public`; ``"constant"``: all
        coefficients zero (the centred target's public mean, or the first class).

        Parameters
        ----------
        query : callable
            An estimator query: rows ``(features..., target)`` to a coefficient vector.
        score : callable
            A score of a coefficient vector, as :meth:`score` returns.

        Returns
        -------
        dict of str to float
            The score of each of the three models, by name.
        """
        coef = np.asarray(query(self.train), dtype=float)
        return {
            "non-private": float(score(coef)),
            "public data only": float(score(np.asarray(query(self.public)))),
            "constant": float(score(np.zeros_like(coef))),
        }


class Score:
    """A score of released coefficients on a test part: ``score(coef) -> float``.

    ``__name__`` is the score's name (the ``error`` column of
    :func:`~sensampler.app.experiments.sensitivity_sweep`); ``function(coef, test,
    *args)`` computes it.
    """

    def __init__(self, name: str, function: Callable, test: np.ndarray, *args):
        self.__name__ = name
        self.function = function
        self.test = test
        self.args = args

    def __call__(self, coef) -> float:
        coef = np.asarray(coef, dtype=float)
        features = self.test.shape[1] - 1
        if coef.size == 0 or coef.size % features:
            raise ValueError(
                f"coef must hold one coefficient per feature ({features}, or "
                f"{features} per class), got {coef.size} for score "
                f"{self.__name__!r}."
            )
        return self.function(coef, self.test, *self.args)

    def __repr__(self):
        return f"Score({self.__name__!r}, {len(self.test)} test rows)"


def score_mse(coef: np.ndarray, test: np.ndarray) -> float:
    """Mean squared error of the linear predictor ``features @ coef`` (no intercept)."""
    return float(np.mean((test[:, :-1] @ coef.reshape(-1) - test[:, -1]) ** 2))


def score_accuracy(coef: np.ndarray, test: np.ndarray, classes: np.ndarray) -> float:
    """Accuracy of the linear classifier ``coef`` (no intercept), scikit-learn's rule.

    One row of coefficients (two classes) predicts ``classes[1]`` where
    ``features @ coef > 0``; K rows (K classes) predict the class of the largest
    score.
    """
    rows = coef.reshape(-1, test.shape[1] - 1)
    scores = test[:, :-1] @ rows.T
    if rows.shape[0] == 1:
        predicted = classes[(scores[:, 0] > 0).astype(int)]
    else:
        predicted = classes[np.argmax(scores, axis=1)]
    return float(np.mean(predicted == test[:, -1]))


#: Largest seed of the shuffles (scikit-learn's ``random_state`` is a 32-bit seed).
MAX_SEED = 2**32 - 1


def _check_parts(loader: str, rows: int, public: float, train: float) -> None:
    """Every part of the split holds at least one row (the sizes scikit-learn's
    ``train_test_split`` gives: ``floor(fraction * rows)`` to the first part)."""
    n_public = math.floor(public * rows)
    n_train = math.floor(train * (rows - n_public))
    sizes = {"public": n_public, "private": rows - n_public}
    sizes.update(train=n_train, test=rows - n_public - n_train)
    empty = [name for name, size in sizes.items() if size < 1]
    if empty:
        raise ValueError(
            f"public={public!r} and train={train!r} leave the {empty[0]} part of "
            f"{loader!r} ({rows} rows) empty: every part needs a row."
        )


def load_split(
    loader: str,
    *,
    public: float = 0.4,
    train: float = 0.7,
    seed: int = 0,
    standardise: str = "public",
) -> DatasetSplit:
    """Load a data set shipped with scikit-learn and split it public / train / test.

    The rows are split ``public`` : ``1 - public`` into a public part and a private
    one, and the private part ``train`` : ``1 - train`` into a training part and a
    test part (``sklearn.model_selection.train_test_split``, shuffled with ``seed``
    both times).

    Parameters
    ----------
    loader : str
        A key of :data:`LOADERS`, e.g. ``"load_diabetes"``.
    public, train : float in (0, 1)
        Fractions of all rows, then of the private rows.
    seed : int >= 0
        Seed of both shuffles.
    standardise : {"public", "none"}
        ``"public"`` standardises every feature with the public part's mean and
        standard deviation (a constant public feature is only centred) and, for a
        regression, centres the target at its public mean, so that nothing about
        the private rows leaks into the preprocessing and a model needs no
        intercept.

    Returns
    -------
    DatasetSplit
    """
    check_choice("loader", loader, tuple(LOADERS))
    public = PROBABILITY.check("public", public)
    train = PROBABILITY.check("train", train)
    seed = check_count("seed", seed, minimum=0)
    if seed > MAX_SEED:
        raise ValueError(f"seed must be <= MAX_SEED={MAX_SEED}, got seed={seed!r}.")
    check_choice("standardise", standardise, STANDARDISE)
    from sklearn import datasets
    from sklearn.model_selection import train_test_split

    task, fixed = LOADERS[loader]
    X, y = getattr(datasets, loader)(return_X_y=True, **fixed)
    y = np.asarray(y, dtype=float)
    _check_parts(loader, len(y), public, train)
    X_pub, X_priv, y_pub, y_priv = train_test_split(
        X, y, train_size=public, random_state=seed
    )
    X_train, X_test, y_train, y_test = train_test_split(
        X_priv, y_priv, train_size=train, random_state=seed
    )
    centre, scale, y_centre = 0.0, 1.0, 0.0
    if standardise == "public":
        centre, scale = X_pub.mean(axis=0), X_pub.std(axis=0)
        scale = np.where(scale > 0, scale, 1.0)
        y_centre = y_pub.mean() if task == "regression" else 0.0

    def rows(features, target):
        out = np.column_stack([(features - centre) / scale, target - y_centre])
        out.setflags(write=False)
        return out

    return DatasetSplit(
        loader,
        task,
        rows(X_pub, y_pub),
        rows(X_train, y_train),
        rows(X_test, y_test),
    )
