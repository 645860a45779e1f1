"""Audit findings on a ledger line as a view of its statement
(``LedgerEntry.of`` and ``to_statement``, which budget files and the filter
replicas replay): what the statement holds for every pair must come back."""


from sensampler import queries, sample_sensitivity
from sensampler.accounting import LedgerEntry, PrivacyFilter
from sensampler.bounds import Bounds
from sensampler.distributions import Normal
from sensampler.mechanisms import LaplaceMechanism, ZCDPGaussianMechanism


def test_a_zcdp_worst_case_survives_a_ledger_line():
    # failed before LedgerEntry.worst_case_rho: the rho-zCDP worst case of the
    # zCDP, Rényi and discrete Gaussian mechanisms was dropped by a ledger line
    est = sample_sensitivity(queries.mean, Normal(170, 10), 500, gamma=0.05,
                             bounds=Bounds.given(140.0, 200.0), random_state=0)
    statement = ZCDPGaussianMechanism(est, 0.1).privacy
    assert statement.worst_case.rho is not None
    back = LedgerEntry.of(statement, 1).to_statement()
    assert back.worst_case is not None
    assert back.worst_case.rho == statement.worst_case.rho


def test_a_replayed_ledger_keeps_relation_gamma_and_the_dp_worst_case():
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
