"""One interface for accountants and filters: compose, convert, gamma, ledger."""

import re
import sys
from dataclasses import replace

import pytest

from sensampler import queries, sample_sensitivity
from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    LedgerEntry,
    PLDAccountant,
    PrivacyAccountant,
    PrivacyFilter,
    RenyiAccountant,
    RenyiFilter,
    WhitehouseFilter,
    ZCDPAccountant,
)
from sensampler.app.budget_file import replay_filter
from sensampler.bounds import Bounds
from sensampler.distributions import GaussianMixture, Normal
from sensampler.mechanisms import (
    GaussianMechanism,
    LaplaceMechanism,
    ZCDPGaussianMechanism,
)
from sensampler.privacy import PrivacyBound, PrivacyStatement, SamplingRun

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
ACCOUNTANTS = [
    lambda: PrivacyFilter(100.0, 1e-3, rule="basic"),
    RenyiAccountant,
    ZCDPAccountant,
]
IDS = ["filter", "renyi", "zcdp"]


def _statement(gamma, run_id=None):
    run = SamplingRun(run_id, gamma)
    return PrivacyStatement(
        "Laplace",
        0.1,
        0.0,
        rho=0.005,
        rdp=lambda a: 0.005 * a,
        run=run,
        source="sampled",
    )


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_anonymous_gamma_counts_once_per_release(make):
    # five distinct guarantees, gamma = 0.01 each, no run identity: a union bound
    # needs 0.05, whatever the objects' id()
    acc = make()
    for _ in range(5):
        acc.compose(_statement(0.01))
    assert acc.gamma == pytest.approx(0.05)
    acc.compose(_statement(0.01), count=3)
    assert acc.gamma == pytest.approx(0.08)


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_a_named_run_counts_once(make):
    acc = make()
    for _ in range(4):
        acc.compose(_statement(0.02, "run-a"))
    acc.compose(_statement(0.03, "run-b"), count=2)
    assert acc.gamma == pytest.approx(0.05)


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_one_interface(make):
    acc = make()
    assert isinstance(acc, PrivacyAccountant)
    mech = LaplaceMechanism(1.0, 0.1)
    acc.compose(mech, count=2)
    acc.compose(mech.privacy)
    assert acc.count == 3 and len(acc.ledger) == 2
    report = acc.report(1e-3)
    assert isinstance(report, PrivacyBound) and report.gamma == 0.0
    eps = acc.epsilon(1e-3)
    assert 0 < eps < 1
    assert acc.delta(eps) <= 1e-3 * (1 + 1e-6)
    assert acc.delta(eps * 1.5) <= acc.delta(eps)
    assert repr(acc).startswith(type(acc).__name__ + "(") and "count=3" in repr(acc)


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_ledger_exports_as_a_table(make):
    est = sample_sensitivity(queries.mean, HEIGHTS, 100, gamma=0.05, random_state=0)
    acc = make()
    acc.compose(LaplaceMechanism(est, 0.1), count=2)
    records = acc.ledger_records()
    assert records == [
        {
            "mechanism": "Laplace",
            "epsilon": 0.1,
            "delta": 0.0,
            "rho": pytest.approx(0.005),
            "gamma": est.gamma,
            "run_id": est.run_id,
            "count": 2,
            "neighbours": "replace-one",
            "worst_case_epsilon": None,
            "worst_case_delta": None,
            "worst_case_rho": None,
            "sampled": True,
            "privacy_unit": "record",
        }
    ]
    assert list(records[0]) == list(LedgerEntry.__annotations__)
    pd = pytest.importorskip("pandas")
    frame = acc.to_pandas()
    assert isinstance(frame, pd.DataFrame) and frame["count"].tolist() == [2]


def test_to_pandas_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match=r"sensampler\[pandas\]"):
        RenyiAccountant().to_pandas()


@pytest.mark.parametrize("make", ACCOUNTANTS, ids=IDS)
def test_every_run_drawn_can_be_counted(make):
    # Seed shopping: draw three runs, release with the smallest estimate. The
    # chance that the kept one is too small is at most the sum of the three gammas.
    runs = [
        sample_sensitivity(queries.mean, HEIGHTS, 100, gamma=0.05, random_state=s)
        for s in range(3)
    ]
    acc = make()
    for est in runs:
        acc.record_run(est)
    kept = min(runs, key=lambda e: e.sensitivity.value)
    acc.compose(LaplaceMechanism(kept, 0.1))
    assert acc.gamma == pytest.approx(sum(e.gamma for e in runs))
    assert acc.count == 1
    assert [r["mechanism"] for r in acc.ledger_records()].count("sampling run") == 3
    with pytest.raises(TypeError, match="run must be a SamplingRun"):
        acc.record_run(0.05)


def test_filter_gamma_budget_counts_recorded_runs():
    f = PrivacyFilter(10.0, gamma=0.06)
    f.record_run(SamplingRun("a", 0.05))
    with pytest.raises(ExceededPrivacyBudgetError, match="over the budget gamma=0.06"):
        f.record_run(SamplingRun("b", 0.05))
    assert f.gamma == pytest.approx(0.05) and len(f.ledger) == 1


def test_reports_are_privacy_bounds_with_gamma():
    est = sample_sensitivity(
        queries.mean, HEIGHTS, 100, gamma=0.05, norm="l2", random_state=0
    )
    acc = RenyiAccountant()
    acc.compose(GaussianMechanism(est, 0.5, 1e-5), count=10)
    report = acc.report(1e-5)
    assert report.gamma == est.gamma and report.delta == 1e-5
    eps, delta = report
    assert eps == acc.epsilon(1e-5) and "Rényi" in report.method


EVERY_ACCOUNTANT = [
    *ACCOUNTANTS,
    PLDAccountant,
    lambda: RenyiFilter(10.0, 1e-3),
    lambda: WhitehouseFilter(10.0, 1e-3),
]


@pytest.mark.parametrize(
    "call, value, error, message",
    [
        ("epsilon", -0.1, ValueError, "delta must be >= 0.0 and <= 1.0, got delta=-0.1."),
        ("epsilon", 1.5, ValueError, "delta must be >= 0.0 and <= 1.0, got delta=1.5."),
        ("epsilon", "1e-5", TypeError, "delta must be a real number"),
        ("report", float("nan"), ValueError, "delta must be"),
        ("delta", -1.0, ValueError, "epsilon must be"),
        ("delta", float("inf"), ValueError, "epsilon must be"),
        ("delta", True, TypeError, "epsilon must be a real number"),
    ],
)
@pytest.mark.parametrize("make", EVERY_ACCOUNTANT)
def test_every_report_checks_its_argument_in_the_base_class(
    make, call, value, error, message
):
    # One check, in PrivacyAccountant, for every accountant and filter: the
    # same domain (sensampler._lib.domains) and the same message everywhere.
    acc = make()
    acc.compose(LaplaceMechanism(1.0, 0.1))
    with pytest.raises(error, match=re.escape(message)):
        getattr(acc, call)(value)


def test_no_accountant_checks_a_report_argument_itself():
    # The subclasses implement the hooks _epsilon, _delta and _report only
    # (RenyiAccountant and ZCDPAccountant's epsilon adds the conversion method).
    for cls in (PLDAccountant, PrivacyFilter, RenyiFilter, WhitehouseFilter):
        for name in ("epsilon", "delta"):
            assert getattr(cls, name) is getattr(PrivacyAccountant, name), (cls, name)


def _statements():
    """Statements of every shape a ledger line keeps."""
    add_remove = SamplingRun("ar", 0.05, neighbours="add-remove")
    worst = PrivacyStatement("Laplace (worst case)", 3.0, 0.0)
    return [
        PrivacyStatement("global", 0.5, 1e-6),
        PrivacyStatement("zCDP", None, None, rho=0.25),
        PrivacyStatement("Gaussian", 1.0, 1e-6, rho=0.3),
        PrivacyStatement(
            "sampled", 0.5, 0.0, run=SamplingRun("r", 0.05), source="sampled",
            worst_case=worst,
        ),
        PrivacyStatement("anonymous", 0.5, 0.0, run=SamplingRun(None, 0.01),
                         source="sampled"),
        PrivacyStatement("add-remove", 0.5, 0.0, run=add_remove, source="sampled",
                         neighbours="add-remove"),
    ]


@pytest.mark.parametrize("statement", _statements(), ids=lambda s: s.mechanism)
def test_a_ledger_entry_is_a_view_of_the_statement_and_gives_it_back(statement):
    entry = LedgerEntry.of(statement, 3)
    back = entry.to_statement()
    assert LedgerEntry.of(back, 3) == entry
    for name in ("mechanism", "epsilon", "delta", "rho", "gamma", "source",
                 "neighbours"):
        assert getattr(back, name) == getattr(statement, name), name
    assert (back.run is None) == (statement.run is None)
    if statement.run is not None:
        assert back.run.run_id == statement.run.run_id
        assert back.run.neighbours == statement.run.neighbours
    if statement.worst_case is not None:
        assert back.worst_case.epsilon == statement.worst_case.epsilon


def test_a_sampling_run_recorded_alone_states_no_release():
    acc = ZCDPAccountant()
    acc.record_run(SamplingRun("r", 0.05))
    with pytest.raises(ValueError, match="states no release; record it with record_run"):
        acc.ledger[0].to_statement()


def test_a_replayed_ledger_keeps_its_neighbouring_relation():
    # Failed before: the replay rebuilt every statement as replace-one, so a copy
    # of a filter holding add-remove releases refused the next add-remove one
    # (and would have taken a replace-one one the filter refuses).
    add_remove = _statements()[-1]
    original = PrivacyFilter(1.0, 1e-5, rule="basic", gamma=0.5)
    original.compose(add_remove)
    copy = replay_filter(1.0, 1e-5, "basic", 0.5, original.ledger)
    assert copy.neighbours == original.neighbours == "add-remove"
    copy.compose(add_remove)
    with pytest.raises(ValueError, match="cannot compose global"):
        copy.compose(_statements()[0])


ALL_OR_NONE = [
    lambda: PrivacyFilter(10.0, 1e-5, rule="basic"),
    lambda: PrivacyFilter(10.0, 1e-5, rule="advanced"),
    lambda: WhitehouseFilter(10.0, 1e-5),
    lambda: RenyiFilter(10.0, 1e-5),
    RenyiAccountant,
    ZCDPAccountant,
    PLDAccountant,
]


def _state(acc):
    return (acc.ledger, acc.count, acc.neighbours, acc.report(1e-5))


@pytest.mark.parametrize("make", ALL_OR_NONE)
def test_compose_all_records_all_or_none(make):
    # Failed before (no compose_all): a release of several statements was
    # composed one by one, and a refusal kept the statements before it.
    acc = make()
    acc.compose(PrivacyStatement("first", 0.2, 0.0))
    before = _state(acc)
    refused = [
        PrivacyStatement("second", 0.2, 0.0),
        PrivacyStatement("other relation", 0.1, 0.0, neighbours="add-remove"),
    ]
    with pytest.raises(ValueError, match="neighbours="):
        acc.compose_all(refused)
    assert _state(acc) == before
    one_by_one = make()
    together = make()
    statements = [PrivacyStatement(f"s{i}", 0.1, 0.0) for i in range(3)]
    for s in statements:
        one_by_one.compose(s)
    together.compose_all(statements)
    assert _state(together) == _state(one_by_one)


@pytest.mark.parametrize("make", ALL_OR_NONE[:4])
def test_compose_all_over_a_filter_budget_records_none(make):
    acc = make()
    with pytest.raises(ExceededPrivacyBudgetError):
        acc.compose_all([PrivacyStatement(f"s{i}", 1.0, 0.0) for i in range(30)])
    assert acc.count == 0 and acc.ledger == ()


def test_every_entry_is_built_from_a_statement_or_a_run():
    # A spend given as numbers is the entry of a global statement without its
    # relation; a run recorded alone is LedgerEntry.of_run(run).
    budget = PrivacyFilter(1.0, 1e-5, rule="basic")
    budget.spend(0.25, 1e-7)
    run = SamplingRun("r", 0.05)
    budget.record_run(run)
    spend = PrivacyStatement("spend", 0.25, 1e-7)
    assert budget.ledger == (
        LedgerEntry.of(spend, 1, states_relation=False),
        LedgerEntry.of_run(run),
    )
    assert budget.ledger[0].neighbours is None
    assert budget.ledger[1] == LedgerEntry(
        "sampling run", 0.0, 0.0, 0.0, 0.05, "r", 0
    )
    back = budget.ledger[1].to_run("add-remove")
    assert (back.run_id, back.gamma, back.neighbours) == ("r", 0.05, "add-remove")


@pytest.mark.parametrize(
    "statement",
    [s for s in _statements() if s.epsilon is not None],  # what a filter spends
    ids=lambda s: s.mechanism,
)
def test_a_ledger_line_round_trips_through_its_dict(statement):
    entry = LedgerEntry.of(statement, 2)
    record = entry.to_dict()
    keys = ["mechanism", "epsilon", "delta", "gamma", "run_id", "count"]
    if statement.worst_case is not None:
        keys += ["worst_case_epsilon", "worst_case_delta"]
    assert list(record) == keys
    back = LedgerEntry.from_dict({**record, "label": "x", "time": "t"})
    # the dict keeps neither the Rényi parameter nor the relation (a budget
    # file's ledger is replace-one); it keeps the privacy unit
    assert back == replace(entry, rho=None, neighbours=None)
    assert back.to_dict() == record


@pytest.mark.parametrize(
    ("change", "problem"),
    [
        (lambda r: r.pop("count"), "lacks one of"),
        (lambda r: r.update(mechanism=3), "mechanism must be a str"),
        (lambda r: r.update(run_id=3), "run_id must be a str or null"),
        (lambda r: r.update(delta=2.0), "delta"),
        (lambda r: r.update(gamma=-0.1), "gamma"),
        (lambda r: r.update(count=-1), "count"),
        (lambda r: r.update(worst_case_epsilon=1.0), "worst_case_epsilon"),
    ],
)
def test_from_dict_refuses_a_malformed_line_by_name(change, problem):
    record = LedgerEntry.of(_statements()[0], 1).to_dict()
    change(record)
    with pytest.raises((TypeError, ValueError), match=problem):
        LedgerEntry.from_dict(record)


# ------------------------------------------- a ledger line as a view of its statement
# Audit findings on a ledger line as a view of its statement (``LedgerEntry.of`` and
# ``to_statement``, which budget files and the filter replicas replay): what the
# statement holds for every pair must come back.


def test_a_zcdp_worst_case_survives_a_ledger_line():
    """Failed before LedgerEntry.worst_case_rho: the rho-zCDP worst case of the zCDP,
    Rényi and discrete Gaussian mechanisms was dropped by a ledger line."""
    est = sample_sensitivity(queries.mean, Normal(170, 10), 500, gamma=0.05,
                             bounds=Bounds.given(140.0, 200.0), random_state=0)
    statement = ZCDPGaussianMechanism(est, 0.1).privacy
    assert statement.worst_case.rho is not None
    back = LedgerEntry.of(statement, 1).to_statement()
    assert back.worst_case is not None
    assert back.worst_case.rho == statement.worst_case.rho


def test_a_replayed_ledger_keeps_relation_gamma_and_the_dp_worst_case():
    """Audit finding: a ledger line replayed must keep what its statement holds (the
    relation, epsilon, delta, rho, gamma, the run and the DP worst case), and equal
    the line the filter records."""
    est = sample_sensitivity(queries.mean, Normal(170, 10), 500, gamma=0.05,
                             bounds=Bounds.given(140.0, 200.0), random_state=0,
                             neighbours="add-remove")
    statement = LaplaceMechanism(est, 0.5).privacy
    back = LedgerEntry.of(statement, 3).to_statement()
    assert back.neighbours == "add-remove" and back.run.neighbours == "add-remove"
    assert (back.epsilon, back.delta, back.rho, back.gamma) == (
        statement.epsilon, statement.delta, statement.rho, statement.gamma
    )
    assert back.run.run_id == statement.run.run_id
    assert (back.worst_case.epsilon, back.worst_case.delta) == (
        statement.worst_case.epsilon, statement.worst_case.delta
    )
    assert back.worst_case.neighbours == "add-remove"
    f = PrivacyFilter(5.0)
    f.compose(statement, 3)
    assert LedgerEntry.of(back, 3) == f.ledger[0]


# -------------------------------------------------------------- a budget file's lines
# Audit findings on a budget file's lines (``LedgerEntry.from_dict``): a line the
# replay would read as costing less than it states is refused, even under a consistent
# checksum (which detects corruption, not edits).


LINE = dict(mechanism="Laplace", epsilon=0.6, delta=0.0, gamma=0.05, run_id="r",
            count=1)


@pytest.mark.parametrize("change", [
    dict(count=0),
    dict(count=0, epsilon=0.0, delta=1e-6),
    dict(count=0, epsilon=0.0, worst_case_epsilon=2.0, worst_case_delta=0.0),
])
def test_a_sampling_run_line_stating_a_cost_is_refused(change):
    """Failed: accepted, and replayed by record_run, which drops its cost."""
    with pytest.raises(ValueError, match=re.escape("count=0")):
        LedgerEntry.from_dict({**LINE, **change})


def test_a_run_drawn_still_reads_back():
    """What holds: a line recording a sampling run drawn (count 0, no cost) still reads
    back unchanged."""
    line = LedgerEntry.of_run(SamplingRun("r", 0.05)).to_dict()
    assert LedgerEntry.from_dict(line).to_dict() == line
