"""Audit of ``PrivacyAccountant.compose_all`` under threads and after a
rollback (held: kept as regression tests)."""

import threading

import pytest

from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    RenyiAccountant,
    RenyiFilter,
    WhitehouseFilter,
)
from sensampler.privacy import PrivacyStatement, SamplingRun


def _pair(tag):
    return [
        PrivacyStatement("a", 0.013, 0.0),
        PrivacyStatement("b", 0.017, 0.0, run=SamplingRun(tag, 0.001),
                         source="sampled"),
    ]


@pytest.mark.parametrize("make", [
    lambda: PrivacyFilter(1.0, 0.0, gamma=0.5),
    lambda: RenyiFilter(1.0, 1e-6),
    lambda: WhitehouseFilter(1.0, 1e-6),
])
def test_threads_record_whole_runs_within_the_budget(make):
    budget = make()
    refused = []

    def work(i):
        for j in range(25):
            try:
                budget.compose_all(_pair(f"r{i}-{j}"))
            except ExceededPrivacyBudgetError:
                refused.append(1)

    threads = [threading.Thread(target=work, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    names = [e.mechanism for e in budget.ledger]
    assert names == ["a", "b"] * (len(names) // 2)  # whole runs, in order
    assert refused  # the budget did stop some
    pairs = len(names) // 2
    assert budget.gamma == pytest.approx(pairs * 0.001, rel=1e-12)
    # the same spends one by one on a fresh budget: the same state
    fresh = make()
    for k in range(pairs):
        fresh.compose_all(_pair(f"x{k}"))
    assert fresh.spent == budget.spent


def test_after_a_rollback_the_state_is_that_of_the_spends_kept():
    acc = RenyiAccountant()
    acc.compose(PrivacyStatement("pure", 0.2, 0.0))
    with pytest.raises(ValueError, match="neighbours="):
        acc.compose_all([
            PrivacyStatement("pure", 0.3, 0.0),  # changes the pure tally in place
            PrivacyStatement("other", 0.1, 0.0, neighbours="add-remove"),
        ])
    acc.compose(PrivacyStatement("pure", 0.4, 0.0))
    fresh = RenyiAccountant()
    fresh.compose(PrivacyStatement("pure", 0.2, 0.0))
    fresh.compose(PrivacyStatement("pure", 0.4, 0.0))
    for delta in (0.0, 1e-6):
        assert acc.epsilon(delta) == fresh.epsilon(delta)
