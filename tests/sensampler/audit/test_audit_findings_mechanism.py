"""Issue 37, "an audit reads a secret without spending".

``audit_mechanism`` under a default filter spent nothing: 400 000 releases of a
secret 3.14159 located it (threshold 3.1479) with 0.5 spent before and after,
and it only warned. An audit is now the release of its inputs: it charges its
``2 * releases`` releases to the default filter before drawing anything (a
budget that cannot hold them refuses it), unless the caller declares the inputs
its own with ``synthetic=True``.
"""

import warnings

import pytest

from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    default_filter,
)
from sensampler.audit import audit_mechanism
from sensampler.audit import mechanism as audit_module
from sensampler.mechanisms import LaplaceMechanism

SECRET = 3.14159


def test_an_audit_of_a_secret_under_a_filter_is_refused_and_draws_nothing(
    monkeypatch,
):
    """The reproduction of the finding: refused before drawing, nothing spent."""
    mechanism = LaplaceMechanism(1.0, 1.0)
    budget = PrivacyFilter(1.0)
    budget.compose(LaplaceMechanism(1.0, 0.5))
    drawn = []
    draw = audit_module._draw
    monkeypatch.setattr(
        audit_module, "_draw", lambda *a: drawn.append(1) or draw(*a)
    )
    with default_filter(budget):
        with pytest.raises(ExceededPrivacyBudgetError, match="synthetic=True"):
            audit_mechanism(mechanism, SECRET, SECRET + 1, releases=400_000,
                            random_state=0)
    assert budget.spent.epsilon == 0.5 and budget.count == 1
    assert drawn == []


def test_an_audit_spends_the_composition_of_its_releases():
    """Charged at once: 2 * releases releases of the statement, basic composition."""
    budget = PrivacyFilter(5_000.0)
    with default_filter(budget), warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning: the audit has spent
        audit_mechanism(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, releases=2_000,
                        random_state=0)
    assert budget.spent.epsilon == pytest.approx(4_000.0)
    assert budget.count == 4_000


def test_synthetic_inputs_spend_nothing_and_give_the_same_result():
    """The declared way to audit one's own inputs under a filter."""
    budget = PrivacyFilter(1.0)
    mechanism = LaplaceMechanism(1.0, 1.0)
    with default_filter(budget), warnings.catch_warnings():
        warnings.simplefilter("error")
        free = audit_mechanism(mechanism, 0.0, 1.0, releases=4_000, random_state=3,
                               synthetic=True)
    assert budget.count == 0
    outside = audit_mechanism(mechanism, 0.0, 1.0, releases=4_000, random_state=3)
    assert free == outside


def test_synthetic_must_be_a_bool_and_is_checked_before_anything_is_spent():
    budget = PrivacyFilter(1e9)
    with default_filter(budget):
        with pytest.raises(TypeError, match="synthetic"):
            audit_mechanism(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, releases=10,
                            synthetic="yes")
        with pytest.raises(ValueError, match="releases"):
            audit_mechanism(LaplaceMechanism(1.0, 1.0), 0.0, 1.0, releases=1)
    assert budget.count == 0
