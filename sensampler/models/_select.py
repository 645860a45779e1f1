"""The choice among candidate releases, on public data alone.

Each candidate (the public model, the private fit, fits shrunk toward the public
model, penalised solutions of released sufficient statistics) is built on
synthetic public and private data sets drawn from the population and labelled
by the public model, with the noise its own sampled sensitivity calls for; the
best expected test score less one standard deviation of it wins
(:func:`sensampler.models._fits.simulate_scores`). It reads the public data,
the population, ``n`` and the candidates' noise scales: no private data.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from sklearn.base import clone
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge

from .._lib.threads import one_thread
from ..mechanisms import LaplaceMechanism
from ._fits import (
    Candidate,
    ShrunkLogisticRegression,
    ShrunkRidge,
    Statistics,
    simulate_scores,
)
from ._sampling import Setting, flat, write

__all__ = [
    "SELECTIONS",
    "SELECTION_REPEATS",
    "SHRINK_FACTORS",
    "STATISTICS_PENALTIES",
    "choose",
    "noise",
    "noisy_build",
    "private_model",
    "shrunk_models",
    "statistics_candidates",
]

#: Ways to choose the released model (``select``).
SELECTIONS = ("auto", "public", "private", "shrunk")
#: Synthetic (public, private) data sets the choice among candidates draws.
SELECTION_REPEATS = 24
#: Strengths of the pull toward the public model tried by output perturbation:
#: the shrunk fit's ``C`` (logistic) is the estimator's ``C`` times these, its
#: ``alpha`` (ridge) the estimator's ``alpha`` divided by them.
SHRINK_FACTORS = (1.0, 0.3, 0.1, 0.03, 0.01)
#: Penalties tried on the released sufficient statistics, in units of the
#: spectral size of their noise, sigma * sqrt(p) (p coefficients).
STATISTICS_PENALTIES = (0.1, 0.3, 1.0, 3.0, 10.0, 30.0, 100.0)


def noise(mechanism, size: int, rng: np.random.Generator) -> np.ndarray:
    """Noise of ``mechanism``'s law, drawn for a simulation (no release, no spend)."""
    if isinstance(mechanism, LaplaceMechanism):
        return rng.laplace(0.0, float(mechanism.scale), size)
    return rng.normal(0.0, float(mechanism.scale), size)


def _sharing_public(candidate: Candidate, model: Any) -> Candidate:
    """``candidate`` building, first, the model fitted on the synthetic public set
    (``shared["public"]``, once per synthetic data set)."""

    def build(X_pub, y_pub, X_priv, y_priv, rng, shared):
        if "public" not in shared:
            shared["public"] = clone(model).fit(X_pub, y_pub)
        return candidate.build(X_pub, y_pub, X_priv, y_priv, rng, shared)

    return Candidate(candidate.name, build, candidate.details)


def _l2_logistic(params: dict) -> bool:
    """Whether a ``LogisticRegression``'s parameters make its objective an L2
    penalty plus the unweighted log-loss times a finite ``C``."""
    return (
        params.get("penalty") in ("l2", "deprecated")
        and params.get("l1_ratio") in (None, 0, 0.0)
        and params.get("class_weight") is None
        and bool(np.isfinite(params["C"]))
    )


def private_model(setting: Setting) -> Any:
    """The model the private fit samples, simulates and releases.

    A ``LogisticRegression`` with an L2 penalty and a solver that minimises
    its objective (not ``liblinear``, which penalises the intercept), whose
    fit on the public rows converged (``n_iter_`` below ``max_iter``), is
    replaced by the exact minimiser of that objective
    (:class:`ShrunkLogisticRegression` with no centre and the intercept out
    of the penalty): the same model within the solver's tolerance, fitted by
    Newton's method to machine precision, for a whole stack of databases at
    once where it has two classes (:meth:`ShrunkLogisticRegression.fit_batch`).
    Any other model is its own.
    """
    model, template = setting.model, setting.template
    if type(model) is not LogisticRegression:
        return model
    params = model.get_params()
    converged = np.all(np.asarray(template.n_iter_) < params["max_iter"])
    if not _l2_logistic(params) or params["solver"] == "liblinear" or not converged:
        return model
    return ShrunkLogisticRegression(
        C=params["C"], fit_intercept=bool(params["fit_intercept"]),
        classes=template.classes_, penalize_intercept=False,
    )


def shrunk_models(setting: Setting) -> list[tuple[str, Any]]:
    """Fits pulled toward the public model's coefficients, strongest last
    (:data:`SHRINK_FACTORS`); none for an estimator we cannot shrink."""
    model, template = setting.model, setting.template
    params = model.get_params()
    fit_intercept = bool(params.get("fit_intercept", True))
    if type(model) is LogisticRegression:
        if not _l2_logistic(params):
            return []
        bound = None if setting.data_norm is None else setting.data_norm.high
        return [
            (
                f"private fit shrunk toward the public model, C={params['C'] * f:g}",
                ShrunkLogisticRegression(
                    C=params["C"] * f,
                    coef=template.coef_,
                    intercept=template.intercept_,
                    fit_intercept=fit_intercept,
                    classes=template.classes_,
                    row_bound=bound,
                ),
            )
            for f in SHRINK_FACTORS
        ]
    if type(model) in (Ridge, LinearRegression) and np.ndim(template.coef_) == 1:
        alpha = float(params.get("alpha", 1.0))
        return [
            (
                f"private fit shrunk toward the public model, alpha={alpha / f:g}",
                ShrunkRidge(
                    alpha=alpha / f, coef=template.coef_, fit_intercept=fit_intercept
                ),
            )
            for f in SHRINK_FACTORS
        ]
    return []


def noisy_build(candidate, setting: Setting, mechanism):
    """How :func:`simulate_scores` builds ``candidate``'s release on synthetic
    data: fitted (centred on the synthetic public fit when it is a shrunk
    one), its attributes noised as the mechanism would."""
    names = setting.names

    def build(X_pub, y_pub, X_priv, y_priv, rng, shared):
        model = clone(candidate)
        if "coef" in model.get_params():
            public = shared["public"]
            centre = {"coef": public.coef_}
            if "intercept" in model.get_params():
                centre["intercept"] = public.intercept_
            model.set_params(**centre)
        if setting.augment:
            X_priv = np.concatenate([X_pub, X_priv])
            y_priv = np.concatenate([y_pub, y_priv])
        fitted = model.fit(X_priv, y_priv)
        values = flat(fitted, names)
        write(fitted, names, values + noise(mechanism, values.size, rng))
        return fitted

    return build


def statistics_candidates(
    setting: Setting, stats: Statistics, mechanism, alpha: float
) -> list[tuple[Candidate, float, bool]]:
    """The penalised solutions of the released sufficient statistics, as
    candidates: ``(candidate, penalty, toward the public model)``, the
    penalties the estimator's ``alpha`` and :data:`STATISTICS_PENALTIES` in
    units of the noise's spectral size."""
    spread = float(mechanism.scale) * np.sqrt(stats.p)
    lams = sorted({alpha} | {c * spread for c in STATISTICS_PENALTIES})
    towards = [t for t, skip in ((False, "shrunk"), (True, "private")) if setting.select != skip]

    def solver(lam, toward):
        def build(X_pub, y_pub, X_priv, y_priv, rng, shared):
            if "noisy" not in shared:
                vector = stats.record_map(np.column_stack([X_priv, y_priv])).sum(axis=0)
                if setting.augment:
                    vector += stats.record_map(np.column_stack([X_pub, y_pub])).sum(0)
                shared["noisy"] = vector + noise(mechanism, vector.size, rng)
            centre = shared["public"].coef_ if toward else None
            out = ShrunkRidge()
            out.coef_, out.intercept_ = stats.solve(shared["noisy"], lam, centre)
            return out

        return build

    return [
        (
            Candidate(
                f"sufficient statistics, penalty {lam:.4g}"
                + (" toward the public model" if toward else ""),
                solver(lam, toward),
            ),
            lam,
            toward,
        )
        for lam in lams
        for toward in towards
    ]


def _label_noise(setting: Setting) -> float:
    """The synthetic labels' noise: a regression's residual standard deviation
    on the public rows; for a classifier without probabilities its public error
    rate (at least 1/n public); 0 for one with probabilities."""
    truth, (X_pub, y_pub) = setting.template, setting.public
    if not setting.classifier:
        residual = y_pub - truth.predict(X_pub)
        dof = max(len(y_pub) - X_pub.shape[1] - 1, 1)
        return float(np.sqrt(np.sum(residual**2) / dof))
    if not hasattr(truth, "predict_proba"):
        # labels of a classifier without probabilities: its own predictions,
        # replaced by a uniform label at its public error rate (at least 1/n)
        return max(1.0 - float(truth.score(X_pub, y_pub)), 1.0 / len(y_pub))
    return 0.0


def _scores(pool, setting: Setting, seed) -> list[np.ndarray]:
    """Each candidate's test scores over :data:`SELECTION_REPEATS` synthetic
    data sets (accuracy, or minus the squared error)."""
    from sklearn.exceptions import ConvergenceWarning

    population = setting.population

    def features(size, rng):
        return population.sample(size, random_state=rng)[:, :-1]

    # one BLAS thread, as every fit of the sampling work (sensampler._lib.threads):
    # the same choice for any n_jobs, and small fits run faster so
    with warnings.catch_warnings(), one_thread():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return simulate_scores(
            pool, setting.template, features, len(setting.public[1]), setting.n,
            setting.classifier, _label_noise(setting), np.random.default_rng(seed),
            SELECTION_REPEATS,
        )


def choose(candidates, setting: Setting, seed) -> tuple[int | None, dict]:
    """The candidate with the best expected score on synthetic data drawn from
    the public population, and why.

    Reads no private data: only the public rows, the population, n and the
    candidates' noise scales.

    Parameters
    ----------
    candidates : list of Candidate
        The private candidates (the public model is added first when
        ``setting.select == "auto"``).
    setting : Setting
        The fit's shared pieces.
    seed : numpy.random.SeedSequence
        Seeds the synthetic data sets and the noise.

    Returns
    -------
    index : int or None
        The winner's index in ``candidates``, or None for the public model.
    selected : dict
        ``"candidate"``, ``"reason"`` and ``"candidates"`` (the table of
        expected scores), as :attr:`PrivateEstimator.selected_` holds them.
    """
    pool = list(candidates)
    if setting.select == "auto":

        def public_build(X_pub, y_pub, X_priv, y_priv, rng, shared):
            return shared["public"]

        pool.insert(0, Candidate("public model", public_build))
    pool = [_sharing_public(c, setting.model) for c in pool]
    scores = _scores(pool, setting, seed)
    metric = "accuracy" if setting.classifier else "squared error"
    sign = 1.0 if setting.classifier else -1.0
    table = {
        c.name: {
            "expected " + metric: sign * float(np.mean(s)),
            "standard error": float(np.std(s, ddof=1) / np.sqrt(s.size)),
            "standard deviation": float(np.std(s)),
        }
        for c, s in zip(pool, scores)
        if s.size > 1
    }
    if not table:
        best = 0 if setting.select != "auto" else 1
        reason = (
            "no synthetic data set drawn from the public population held every "
            "class: the private fit is released without a comparison"
        )
    else:
        best = int(np.argmax([np.mean(s) - np.std(s) for s in scores]))
        reason = (
            f"best expected test {metric} less one standard deviation "
            f"({table[pool[best].name]['expected ' + metric]:.4g} expected) "
            f"over {scores[0].size} pairs of synthetic public and private data "
            "sets drawn from the public population, each candidate released "
            "with its own noise; no private data read"
        )
    selected = {"candidate": pool[best].name, "reason": reason, "candidates": table}
    if setting.select == "auto":
        return (None if best == 0 else best - 1), selected
    return best, selected
