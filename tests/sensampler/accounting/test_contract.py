"""One contract for every accountant and filter: the delta domain [0, 1], an empty
ledger at 0, statements validated, arguments validated before anything is spent,
no overflow, "no γ budget" said in words, and ``compose_all`` all or nothing."""

import math
import re
import threading

import numpy as np
import pytest

from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PLDAccountant,
    PrivacyFilter,
    RenyiAccountant,
    RenyiFilter,
    WhitehouseFilter,
    ZCDPAccountant,
)
from sensampler.mechanisms import GaussianMechanism, LaplaceMechanism
from sensampler.privacy import PrivacyStatement, SamplingRun

ACCOUNTANTS = [RenyiAccountant, ZCDPAccountant, PLDAccountant]
FILTERS = [
    lambda: PrivacyFilter(1.0, 1e-5),
    lambda: RenyiFilter(1.0, 1e-5),
    lambda: WhitehouseFilter(1.0, 1e-5),
]
EVERY = ACCOUNTANTS + FILTERS
IDS = ["renyi", "zcdp", "pld", "filter", "renyi-filter", "whitehouse"]


@pytest.mark.parametrize("make", EVERY, ids=IDS)
@pytest.mark.parametrize("delta", [0.0, 1e-5, 1.0])
def test_nothing_composed_is_zero(make, delta):
    # before: RenyiAccountant().epsilon(1e-5) = 0.0035; epsilon(0.0) raised
    accountant = make()
    assert accountant.epsilon(delta) == 0.0
    assert accountant.delta(0.0) == 0.0


@pytest.mark.parametrize("make", EVERY, ids=IDS)
def test_a_recorded_run_alone_is_still_zero(make):
    from sensampler.privacy import SamplingRun

    accountant = make()
    accountant.record_run(SamplingRun("run-1", 0.01))
    assert accountant.epsilon(1e-5) == 0.0


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS[:3])
def test_delta_zero_gives_the_pure_composition_or_inf(make):
    # one rule for every accountant: delta = 0 is allowed; the pure-DP epsilon
    # where every release is pure, inf otherwise
    accountant = make()
    accountant.compose(LaplaceMechanism(1.0, 0.1), count=3)
    assert accountant.epsilon(0.0) == pytest.approx(0.3, rel=1e-12)
    assert accountant.epsilon(0.0) >= 0.3
    assert accountant.epsilon(1.0) == 0.0
    accountant.compose(GaussianMechanism(1.0, 0.5, 1e-5))
    assert accountant.epsilon(0.0) == math.inf
    assert accountant.epsilon(1e-5) < math.inf


@pytest.mark.parametrize("make", FILTERS, ids=IDS[3:])
def test_filters_at_delta_zero(make):
    f = make()
    f.spend(0.1)
    spent = f.spent
    assert f.epsilon(0.0) == (spent.epsilon if spent.delta == 0.0 else math.inf)
    assert f.epsilon(1.0) == spent.epsilon


@pytest.mark.parametrize("make", EVERY, ids=IDS)
@pytest.mark.parametrize("delta", [-0.1, 1.5, float("nan"), float("inf")])
def test_every_accountant_refuses_a_delta_outside_zero_one(make, delta):
    with pytest.raises(ValueError, match=r"^delta must be"):
        make().epsilon(delta)


def _tampered(field, value, epsilon=1.0, delta=0.0):
    """A valid statement whose number is changed after its checks (the records
    refuse bad numbers when built; accountants check again when they compose)."""
    statement = PrivacyStatement("bad", epsilon, delta, rho=0.5 if field == "rho" else None)
    object.__setattr__(statement, field, value)
    return statement


@pytest.mark.parametrize("make", EVERY, ids=IDS)
@pytest.mark.parametrize(
    "field, value, name",
    [
        ("epsilon", -5.0, "bad epsilon must be >= 0.0"),
        ("delta", 1.5, "bad delta must be >= 0.0 and <= 1.0"),
        ("epsilon", float("nan"), "bad epsilon must be finite"),
        ("rho", -3.0, "bad rho must be >= 0.0"),
    ],
)
def test_a_statement_with_bad_numbers_is_refused_and_records_nothing(
    make, field, value, name
):
    # before: ZCDPAccountant accepted rho = -3; PrivacyFilter epsilon = -5
    with pytest.raises(ValueError):
        PrivacyStatement("bad", **{"epsilon": 1.0, "delta": 0.0, field: value})
    accountant = make()
    with pytest.raises(ValueError, match=re.escape(name)):
        accountant.compose(_tampered(field, value))
    assert accountant.count == 0 and accountant.ledger == ()


def test_a_clearly_negative_renyi_curve_is_refused():
    statement = PrivacyStatement("bad", None, None, rdp=lambda a: -1.0)
    for accountant in (RenyiAccountant(), RenyiFilter(1.0, 1e-5)):
        with pytest.raises(ValueError, match="must be >= 0"):
            accountant.compose(statement)
        assert accountant.count == 0


@pytest.mark.parametrize("make", FILTERS, ids=IDS[3:])
def test_release_validates_every_argument_before_spending(make):
    # before: PrivacyFilter(1.0).release(..., bogus_kw=1) raised with count = 1
    f = make()
    with pytest.raises(TypeError, match="bogus_kw.*nothing was spent"):
        f.release(LaplaceMechanism(1.0, 0.1), 1.0, bogus_kw=1)
    with pytest.raises(ValueError, match="value"):
        f.release(LaplaceMechanism(1.0, 0.1), float("nan"))
    assert f.count == 0 and f.ledger == ()
    assert np.isfinite(f.release(LaplaceMechanism(1.0, 0.1), 1.0, random_state=0))
    assert f.count == 1


def test_overflowing_spends_are_budget_errors():
    # before: OverflowError from float(Fraction)
    wh = WhitehouseFilter(1.0, 1e-6)
    with pytest.raises(ExceededPrivacyBudgetError, match="W = inf > 1"):
        wh.spend(1e160)
    assert wh.count == 0
    for rule in ("auto", "basic"):
        f = PrivacyFilter(1e308, 1e-6, rule=rule)
        f.spend(1e308)  # fits exactly
        with pytest.raises(ExceededPrivacyBudgetError, match="epsilon inf > 1e"):
            f.spend(1e308)
        assert f.count == 1 and f.spent.epsilon == 1e308


@pytest.mark.parametrize("make", FILTERS, ids=IDS[3:])
def test_remaining_says_no_gamma_budget(make):
    # before: "gamma=inf" when no gamma budget was set
    text = str(make().remaining)
    assert "no γ budget" in text and "gamma=inf" not in text
    assert make().remaining.gamma == math.inf


def test_remaining_with_a_gamma_budget_says_what_is_left():
    f = PrivacyFilter(1.0, 1e-5, gamma=0.1)
    assert "gamma=0.1 left" in str(f.remaining)


@pytest.mark.slow
@pytest.mark.parametrize("make", FILTERS, ids=IDS[3:])
def test_threads_spending_at_once_never_exceed_the_budget(make):
    f = make()
    admitted = []

    def spend():
        for _ in range(100):
            try:
                f.spend(0.01)
                admitted.append(1)
            except ExceededPrivacyBudgetError:
                pass

    threads = [threading.Thread(target=spend) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    fresh = make()
    n = 0
    while True:
        try:
            fresh.spend(0.01)
            n += 1
        except ExceededPrivacyBudgetError:
            break
    assert len(admitted) == f.count == n  # the sequential count, exactly


EXTREME = {
    "epsilon-inf": lambda: PrivacyStatement("x", math.inf, 0.0),
    "epsilon-inf-delta": lambda: PrivacyStatement("x", math.inf, 1e-7),
    "epsilon-huge": lambda: PrivacyStatement("x", 1e308, 0.0),
    "delta-one": lambda: PrivacyStatement("x", 0.1, 1.0),
    "rho-huge": lambda: PrivacyStatement("x", None, None, rho=1e308),
    "everything-huge": lambda: PrivacyStatement("x", 1e308, 0.0, rho=1e308),
}
EXTREME_FILTERS = [
    *FILTERS,
    lambda: PrivacyFilter(1.0, 0.0),
    lambda: PrivacyFilter(1.0, 1e-5, rule="advanced"),
    lambda: RenyiFilter(1.0, 1e-5, alpha=30.0),
]


@pytest.mark.parametrize("statement", EXTREME.values(), ids=list(EXTREME))
@pytest.mark.parametrize("make", EXTREME_FILTERS)
def test_a_filter_refuses_an_extreme_statement_by_name_and_records_nothing(
    make, statement
):
    # audit finding: PrivacyFilter(1, 0) raised OverflowError on epsilon = inf
    f = make()
    with pytest.raises(ValueError):  # ExceededPrivacyBudgetError is one
        f.compose(statement())
    assert len(f.ledger) == 0 and f.spent.epsilon == 0.0 and f.gamma == 0.0


@pytest.mark.parametrize("statement", EXTREME.values(), ids=list(EXTREME))
@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS[:3])
def test_an_accountant_refuses_an_extreme_statement_or_bounds_it(make, statement):
    accountant = make()
    try:
        accountant.compose(statement())
    except ValueError as error:
        assert len(accountant.ledger) == 0
        assert re.search(r"epsilon|delta|rho|Rényi|zCDP|distribution", str(error))
        return
    assert len(accountant.ledger) == 1
    assert accountant.epsilon(1e-5) >= 1e308  # nothing better than trivial holds
    assert accountant.delta(1.0) == 1.0


# ----------------------------------------------- compose_all, whole or nothing
# An audit of ``PrivacyAccountant.compose_all`` under threads and after a
# rollback: it held, and the tests stay as regression tests.


def _run_pair(tag):
    """Two statements of one sampling run ``tag``: a given one and a sampled one."""
    return [
        PrivacyStatement("a", 0.013, 0.0),
        PrivacyStatement("b", 0.017, 0.0, run=SamplingRun(tag, 0.001),
                         source="sampled"),
    ]


@pytest.mark.slow
@pytest.mark.parametrize("make", [
    lambda: PrivacyFilter(1.0, 0.0, gamma=0.5),
    lambda: RenyiFilter(1.0, 1e-6),
    lambda: WhitehouseFilter(1.0, 1e-6),
])
def test_threads_record_whole_runs_within_the_budget(make):
    """Audit (held): threads calling ``compose_all`` at once record whole runs,
    in order, and leave the state the same spends made one by one leave."""
    budget = make()
    refused = []

    def work(i):
        for j in range(25):
            try:
                budget.compose_all(_run_pair(f"r{i}-{j}"))
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
        fresh.compose_all(_run_pair(f"x{k}"))
    assert fresh.spent == budget.spent


def test_after_a_rollback_the_state_is_that_of_the_spends_kept():
    """Audit (held): a ``compose_all`` refused part way leaves no trace of the
    statements it had already composed in place."""
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
