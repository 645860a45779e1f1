"""The search of ``tune``: the estimator's parameters chosen on the *public* data,
at no privacy cost. Each candidate's sensitivity is sampled, its model fitted
on 70 % of the public rows (with ``augment``, and on n rows drawn from the
population standing in for the private ones), released :data:`TUNING_RELEASES`
times with that sensitivity and scored on the other 30 %; the best mean score
wins. Nothing of it is spent from a default filter."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
from sklearn.base import clone

from .._lib.default_budget import exempt
from ._sampling import Concatenated, Setting, flat, sample, write
from ._select import private_model

__all__ = ["TUNING_HOLDOUT", "TUNING_RELEASES", "grid", "tune"]

#: Releases averaged per candidate when ``tune`` scores the released model.
TUNING_RELEASES = 20
#: Share of the public rows held out to score the candidates of ``tune``.
TUNING_HOLDOUT = 0.3


def grid(estimator: Any, tune: dict | None) -> list[dict]:
    """The candidates of ``tune``, checked to name ``estimator``'s parameters.

    Parameters
    ----------
    estimator : scikit-learn estimator
        The estimator tuned.
    tune : dict of str to list, or None
        The grid (:class:`sklearn.model_selection.ParameterGrid`).

    Returns
    -------
    list of dict
        Empty without ``tune``.
    """
    if tune is None:
        return []
    from sklearn.model_selection import ParameterGrid

    try:
        candidates = list(ParameterGrid(tune))
        valid = estimator.get_params()
    except (TypeError, ValueError) as exc:
        raise type(exc)(
            f"tune must map the estimator's parameters to lists of values, got "
            f"tune={tune!r}: {exc}"
        ) from exc
    unknown = sorted(set(tune) - set(valid))
    if unknown or not candidates:
        raise ValueError(
            f"tune must name parameters of {type(estimator).__name__} with "
            f"non-empty lists of values, got tune={tune!r}."
        )
    return candidates


def _seed(child: np.random.SeedSequence) -> int:
    return int(child.generate_state(1)[0])


def tune(estimator: Any, candidates: list[dict], setting: Setting, seed) -> tuple:
    """The candidate of ``candidates`` whose released model scores best on
    held-out public rows (no private data read).

    Without ``augment``, a candidate is fitted on the other public rows; with
    it, on those and n rows drawn from the population (standing in for the
    private ones).

    Parameters
    ----------
    estimator : scikit-learn estimator
        The estimator tuned (cloned).
    candidates : list of dict
        Its parameters to try (:func:`grid`).
    setting : Setting
        The fit's shared pieces (its population, n, plan, mechanism).
    seed : numpy.random.SeedSequence
        Seeds the split, the stand-in rows, the sampling runs and the noise.

    Returns
    -------
    best_params : dict
    results : list of dict
        Every candidate's ``"params"``, ``"sensitivity"`` and ``"mean_score"``.
    """
    from sklearn.model_selection import train_test_split

    X_fit, X_held, y_fit, y_held = train_test_split(
        *setting.public, test_size=TUNING_HOLDOUT, random_state=_seed(seed)
    )
    if setting.augment:
        stand_in = setting.population.sample(setting.n, random_state=seed.spawn(1)[0])
        X_fit = np.concatenate([X_fit, stand_in[:, :-1]])
        y_fit = np.concatenate([y_fit, stand_in[:, -1]])
    names = setting.names
    results = []
    for params, child in zip(candidates, seed.spawn(len(candidates))):
        model = clone(estimator).set_params(**params)
        sample_seed, noise_seed = child.spawn(2)
        fitted = clone(model).fit(X_fit, y_fit)
        # sampled, fitted and scored: the model the release fits for this
        # candidate (an L2 logistic regression's exact minimiser, fitted a
        # stack of databases at a time, rather than scikit-learn's solver)
        private = private_model(replace(setting, model=model, template=fitted))
        if private is not model:
            fitted = private.fit(X_fit, y_fit)
        estimate = sample(Concatenated(private, names, setting.fixed), setting, sample_seed)
        coef = flat(fitted, names)
        mechanism = setting.mechanism(estimate)
        rng = np.random.default_rng(noise_seed)
        scores = []
        for _ in range(TUNING_RELEASES):
            with exempt():  # public rows only: nothing to spend
                write(fitted, names, mechanism.release(coef, random_state=rng))
            scores.append(fitted.score(X_held, y_held))
        results.append(
            {
                "params": params,
                "sensitivity": estimate.sensitivity.value,
                "mean_score": float(np.mean(scores)),
            }
        )
    best = max(range(len(results)), key=lambda i: results[i]["mean_score"])
    return results[best]["params"], results
