"""The two ways :class:`~sensampler.models.PrivateEstimator` releases a model:
output perturbation (noise on the fitted attributes of the private fit, or of a
fit shrunk toward the public model) and sufficient-statistics perturbation of a
linear regression (Wang 2018: noise on ``X^T X`` and ``X^T y``, the
coefficients solved from them); or the public model, which reads no private
data. Each returns ``(estimate, mechanism, release)``: ``release(X, y)`` is the
only step that reads the private data, None for the public model.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from sklearn.base import clone

from ..queries import additive
from ._fits import Candidate, Statistics, scrub
from ._sampling import Concatenated, Setting, flat, sample, worst_rule, write
from ._select import noisy_build, private_model, shrunk_models, statistics_candidates

__all__ = ["by_output", "by_statistics", "fit_private"]

#: ``choose(candidates, setting, seed)``: the winner's index, None for the
#: public model (:meth:`PrivateEstimator._choose`).
Choose = Callable[[list, Setting, np.random.SeedSequence], "int | None"]


def fit_private(model, setting: Setting, X, y):
    """``model`` fitted on the private rows (after the public ones with
    ``augment``); scikit-learn's messages are re-raised without values."""
    fixed = setting.fixed
    try:
        return clone(model).fit(
            np.concatenate([fixed[:, :-1], X]), np.concatenate([fixed[:, -1], y])
        )
    except (TypeError, ValueError, ArithmeticError) as exc:
        kind = TypeError if isinstance(exc, TypeError) else ValueError
        raise kind(
            f"fitting {type(model).__name__} on the private data failed: "
            f"{scrub(exc)} (the rest of scikit-learn's message, which may quote "
            "private values, is withheld)"
        ) from None


def _output_options(setting: Setting, sample_seed, select_seed):
    """``(label, model, sampled sensitivity)`` of every output-perturbation
    candidate ``setting.select`` allows, and the seeds of the shrunk fits' runs
    followed by those of the choice and of the winner's fresh run."""
    model, names = setting.model, setting.names
    options = []
    if setting.select != "shrunk":
        private = private_model(setting)
        query = Concatenated(private, names, setting.fixed)
        options.append(("private fit", private, sample(query, setting, sample_seed)))
    shrunk = shrunk_models(setting) if setting.select != "private" else []
    seeds = select_seed.spawn(len(shrunk) + 2)
    for (label, candidate), seed in zip(shrunk, seeds):
        query = Concatenated(candidate, names, setting.fixed, worst_rule(candidate))
        options.append((label, candidate, sample(query, setting, seed)))
    if not options:
        raise ValueError(
            "select='shrunk' needs a model that can be shrunk toward the public "
            "one (LogisticRegression with an L2 penalty, Ridge, LinearRegression"
            f"), got {type(model).__name__}."
        )
    return options, seeds


def by_output(setting: Setting, sample_seed, select_seed, choose: Choose):
    """Output perturbation: the private fit, or a fit shrunk toward the public
    model, released with its sampled sensitivity; or the public model.

    Parameters
    ----------
    setting : Setting
        The fit's shared pieces.
    sample_seed, select_seed : numpy.random.SeedSequence
        Seed the private fit's sampling run, and the shrunk fits' runs, the
        choice and the winner's fresh run.
    choose : callable
        ``choose(candidates, setting, seed)``: the winner's index, or None.

    Returns
    -------
    tuple
        ``(estimate, mechanism, release)``; ``release`` is None for the
        public model.
    """
    names = setting.names
    options, seeds = _output_options(setting, sample_seed, select_seed)
    mechanisms = [setting.mechanism(estimate) for _, _, estimate in options]
    candidates = [
        Candidate(label, noisy_build(candidate, setting, mechanism))
        for (label, candidate, _), mechanism in zip(options, mechanisms)
    ]
    index = choose(candidates, setting, seeds[-2])
    if index is None:  # the public model: nothing read from the private data
        return options[0][2], mechanisms[0], None
    _, chosen, estimate = options[index]
    if len(options) > 1 or setting.released is not setting.plan:
        # Sampled afresh, with the release's plan: keeping the run that won
        # a comparison of sampled sensitivities would favour a low draw and
        # weaken gamma.
        query = Concatenated(chosen, names, setting.fixed, worst_rule(chosen))
        estimate = sample(query, setting, seeds[-1], setting.released)
    mechanism = setting.mechanism(estimate)

    def release(X, y):
        if setting.classifier and not np.array_equal(
            np.unique(y), setting.template.classes_
        ):
            raise ValueError(
                "the private y must hold exactly the public classes "
                f"{setting.template.classes_.tolist()!r}: the released model's "
                "labels are public."
            )
        private = fit_private(chosen, setting, X, y)
        # Fresh OS entropy, never random_state: the seed travels with the
        # model (get_params, pickles), and noise drawn from it could be drawn
        # again and subtracted from the released attributes.
        released = mechanism.release(
            flat(private, names), random_state=np.random.default_rng()
        )
        write(setting.template, names, np.asarray(released, dtype=float))
        return setting.template

    return estimate, mechanism, release


def by_statistics(setting: Setting, sample_seed, select_seed, choose: Choose):
    """Sufficient-statistics perturbation of a linear regression: X^T X and
    X^T y released by one mechanism with their sampled sensitivity, the
    coefficients solved from them with a penalty (toward 0 or toward the
    public model) chosen on public data; or the public model.

    Parameters
    ----------
    setting : Setting
        The fit's shared pieces.
    sample_seed, select_seed : numpy.random.SeedSequence
        Seed the statistics' sampling run and the choice.
    choose : callable
        ``choose(candidates, setting, seed)``: the winner's index, or None.

    Returns
    -------
    tuple
        ``(estimate, mechanism, release)``; ``release`` is None for the
        public model.
    """
    model, (X_pub, y_pub) = setting.model, setting.public
    params = model.get_params()
    rms = float(np.sqrt(np.mean(np.square(y_pub))))
    stats = Statistics(
        X_pub.shape[1],
        bool(params.get("fit_intercept", True)),
        1.0 / rms if rms > 0 else 1.0,
    )
    query = additive(stats.record_map, name="sufficient statistics X^T X, X^T y")
    estimate = sample(query, setting, sample_seed, setting.released)
    mechanism = setting.mechanism(estimate)
    options = statistics_candidates(
        setting, stats, mechanism, float(params.get("alpha", 0.0))
    )
    index = choose([candidate for candidate, _, _ in options], setting, select_seed)
    if index is None:
        return estimate, mechanism, None
    _, lam, toward = options[index]
    template = setting.template
    centre = np.array(template.coef_, dtype=float) if toward else None
    fixed_sum = stats.record_map(setting.fixed).sum(axis=0)

    def release(X, y):
        vector = stats.record_map(np.column_stack([X, y])).sum(axis=0)
        # Fresh OS entropy, never random_state (see by_output).
        noisy = mechanism.release(vector, random_state=np.random.default_rng())
        coef, intercept = stats.solve(np.asarray(noisy) + fixed_sum, lam, centre)
        values = np.concatenate([coef, [intercept]]) if len(setting.names) > 1 else coef
        write(template, setting.names, values)
        return template

    return estimate, mechanism, release
