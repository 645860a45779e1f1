"""Composition functions, filters and accountants: any input is refused by name or
gives a finite bound; a refused spend leaves the ledger as it was."""

from functools import partial

import numpy as np
import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from sensampler import accounting as acc
from sensampler.mechanisms import LaplaceMechanism
from tests.property._contract import anything, refused_or_result


def _bound_ok(bound):
    epsilon, delta = bound
    assert not np.isnan(epsilon) and not np.isnan(delta)
    assert epsilon >= 0 and 0 <= delta <= 1


@pytest.mark.slow
@example(1_943_240_929, 4.150126570071027e-247, 8, 4.150126570071027e-247)
@example(0.0, 0.0, 9_223_372_036_854_775_808, 0.5)
@example(0.001, 0.0, 2**70, 1e-5)
@example(8.98846567431158e307, 0, 2, 0.5)  # k * epsilon beyond the largest float
@given(anything, anything, anything, anything)
def test_composition_functions(epsilon, delta, k, delta_prime):
    for func in (
        acc.advanced_composition,
        acc.optimal_composition,
        acc.tightest_composition,
    ):
        bound = refused_or_result(
            partial(func, epsilon, delta, k, delta_prime),
            "epsilon",
            "delta",
            "k",
            "delta_prime",
        )
        if bound is not None:
            _bound_ok(bound)
    bound = refused_or_result(
        lambda: acc.basic_composition(epsilon, delta, k), "epsilon", "delta", "k"
    )
    if bound is not None:
        _bound_ok(bound)


@pytest.mark.slow
@given(st.one_of(anything, st.lists(anything, max_size=3)), anything)
def test_list_compositions(epsilons, deltas):
    for call in (
        lambda: acc.parallel_composition(epsilons, deltas),
        lambda: acc.basic_composition(epsilons, deltas),
    ):
        bound = refused_or_result(call, "epsilon", "delta")
        if bound is not None:
            _bound_ok(bound)


@pytest.mark.slow
@example(1.3407807929942597e154, 0.0)
@given(st.one_of(anything, st.lists(anything, max_size=3)), anything)
def test_heterogeneous_composition(epsilons, deltas):
    bound = refused_or_result(
        lambda: acc.heterogeneous_composition(epsilons, deltas, 1e-6),
        "epsilon",
        "delta",
    )
    if bound is not None:
        _bound_ok(bound)


@pytest.mark.slow
@given(anything, anything, st.sampled_from(["basic", "advanced", "auto", "x"]))
def test_filter_constructor(epsilon, delta, rule):
    refused_or_result(
        lambda: acc.PrivacyFilter(epsilon, delta, rule=rule), "epsilon", "delta", "rule"
    )


@pytest.mark.slow
@given(anything, anything)
def test_a_refused_spend_records_nothing(epsilon, delta):
    budget = acc.PrivacyFilter(1.0, 1e-5)
    budget.spend(0.1)
    before = (budget.count, list(budget.ledger))
    try:
        budget.spend(epsilon, delta)
    except acc.ExceededPrivacyBudgetError:
        assert (budget.count, list(budget.ledger)) == before
    except (ValueError, TypeError) as exc:
        assert any(n in str(exc) for n in ("epsilon", "delta", "mechanism")), exc
        assert (budget.count, list(budget.ledger)) == before
    else:
        assert budget.count == before[0] + 1


@pytest.mark.slow
@example("x", 0)
@given(anything, anything)
def test_a_refused_release_records_nothing(value, random_state):
    budget = acc.PrivacyFilter(1.0, 1e-5)
    mechanism = LaplaceMechanism(1.0, 0.1)
    try:
        released = budget.release(mechanism, value, random_state=random_state)
    except (ValueError, TypeError) as exc:
        assert "value" in str(exc) or "random_state" in str(exc), str(exc)
        assert budget.count == 0
    else:
        assert np.all(np.isfinite(np.asarray(released, dtype=float)))
        assert budget.count == 1


@pytest.mark.slow
@example(1.3407807929942597e154)
@example(1e308)
@given(anything)
def test_accountants(epsilon):
    for accountant in (acc.RenyiAccountant(), acc.ZCDPAccountant()):
        mechanism = refused_or_result(lambda: LaplaceMechanism(1.0, epsilon), "epsilon")
        if mechanism is None:
            continue
        refused_or_result(partial(accountant.compose, mechanism), "mechanism")
        delta_result = refused_or_result(partial(accountant.epsilon, 1e-6), "delta")
        if delta_result is not None:
            assert not np.isnan(float(delta_result))
        # every accountant: delta = 0 allowed, a pure ledger's epsilon there finite
        # and never below the epsilons composed (basic composition is exact here)
        pure = accountant.epsilon(0.0)
        if accountant.count:
            assert pure >= float(mechanism.privacy.epsilon) * (1 - 1e-12)
        assert 0.0 <= accountant.delta(0.0) <= 1.0


@pytest.mark.slow
@example(0.0, 1e-300)
@example(1e308, 1e308)
@example(5e-324, 0.0)  # the advanced rule's sqrt(H) underflowed: ZeroDivisionError
@given(anything, anything)
def test_filters_never_overflow_nor_raise_anything_but_a_budget_error(budget, spend):
    for make in (
        lambda: acc.PrivacyFilter(budget, 1e-6),
        lambda: acc.WhitehouseFilter(budget, 1e-6),
        lambda: acc.RenyiFilter(budget, 1e-6),
    ):
        f = refused_or_result(make, "epsilon")
        if f is None:
            continue
        try:
            f.spend(spend)
            f.spend(spend)
        except acc.ExceededPrivacyBudgetError:
            pass
        except (TypeError, ValueError) as exc:
            assert any(w in str(exc) for w in ("epsilon", "delta", "mechanism")), exc
        assert f.count <= 2 and 0.0 <= f.epsilon(1.0) < float("inf")
