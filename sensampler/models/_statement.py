"""What a :class:`~sensampler.models.PrivateEstimator` fit states: the
mechanism's statement, or (0, 0) for the public model, named under add/remove
neighbours with the size it holds given; and what holds for every pair of
neighbours, in words."""

from __future__ import annotations

from dataclasses import replace

from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge

from ..privacy import PrivacyStatement, format_dp, size_words
from ._sampling import Setting

__all__ = ["PUBLIC_RELEASE", "given_size", "statement", "worst_case_words"]

#: The mechanism named by the statement of a public model chosen over every
#: private release.
PUBLIC_RELEASE = "public model (fitted on the public data only, no private data read)"


def given_size(stated: PrivacyStatement, n: int, neighbours: str) -> PrivacyStatement:
    """``stated`` as the fit states and records it: under add/remove
    neighbours named with the size it holds given (:func:`size_words`; the
    sampled sensitivity, the choice among candidates and the noise all read
    ``n``, so the release publishes it), as ``release_statistic`` says."""
    if neighbours != "add-remove":
        return stated
    return replace(stated, mechanism=f"{stated.mechanism} ({size_words(neighbours, n)})")


def statement(mechanism, n: int, neighbours: str) -> PrivacyStatement:
    """What the fit states: ``mechanism``'s statement, or (0, 0) for the
    public model (``None``), given ``n`` (:func:`given_size`)."""
    if mechanism is None:
        # The public model: a function of the public data, the population
        # fitted on them, n and random_state only (n is public under
        # replace-one neighbours, published under add-remove ones), so the
        # release is 0-DP given n.
        stated = PrivacyStatement(PUBLIC_RELEASE, 0.0, 0.0, rho=0.0, neighbours=neighbours)
    else:
        stated = mechanism.privacy
    return given_size(stated, n, neighbours)


def worst_case_words(
    model, released: bool, setting: Setting, stated: PrivacyStatement, statistics: bool
) -> str:
    """What the statement says for every pair of neighbours, in words.

    Parameters
    ----------
    model : estimator
        The estimator released (before shrinkage).
    released : bool
        Whether a private release was made (else the public model).
    setting : Setting
        The fit's shared pieces.
    stated : PrivacyStatement
        The fit's statement.
    statistics : bool
        Whether the sufficient statistics were released.

    Returns
    -------
    str
    """
    if not released:
        given = (
            f", given n ({size_words(setting.neighbours, setting.n)})"
            if setting.neighbours == "add-remove"
            else ""
        )
        return (
            "the public model reads no private data: 0-DP for every pair of "
            f"neighbours{given}"
        )
    worst = stated.worst_case
    if worst is not None:
        return (
            f"{format_dp(worst.epsilon, worst.delta)} for every pair of "
            f"neighbours: rows clipped to feature norm {setting.data_norm.high:.6g}"
            " and an L2 penalty toward the public model (Chaudhuri, Monteleoni & "
            "Sarwate 2011, Cor. 8)"
        )
    if statistics:
        why = "sufficient statistics of unbounded rows and targets"
    elif type(model) is LogisticRegression and setting.data_norm is None:
        why = "data_norm=None: the rows are not clipped"
    elif type(model) is LogisticRegression:
        why = (
            "the unshrunk fit leaves its intercept unpenalised, so no strongly "
            "convex objective bounds it"
        )
    elif type(model) in (Ridge, LinearRegression):
        why = "the squared loss of unbounded targets is not Lipschitz"
    else:
        why = f"no bound is known for {type(model).__name__}"
    return f"no worst-case part: {why}; the statement is random DP only"
