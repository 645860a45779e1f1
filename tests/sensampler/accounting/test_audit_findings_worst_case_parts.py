"""Audit findings on which releases ``worst_case`` counts as holding for every
pair: only a global statement is its own worst case, never a sampled one."""

import pytest

from sensampler.accounting import PrivacyFilter, RenyiAccountant
from sensampler.privacy import PrivacyStatement, SamplingRun


@pytest.mark.parametrize("make", [lambda: PrivacyFilter(5.0), RenyiAccountant])
def test_a_sampled_statement_of_gamma_0_is_no_worst_case(make):
    # failed: its entry has gamma 0, so worst_case() read it as a global
    # statement and stated epsilon=1 for every pair, where the statement is
    # random DP over data from the model only
    statement = PrivacyStatement("hand-made", 1.0, 0.0, run=SamplingRun("r", 0.0),
                                 source="sampled")
    acc = make()
    acc.compose(statement)
    assert acc.worst_case() is None


@pytest.mark.xfail(strict=True, reason=(
    "a ledger entry keeps no source: an anonymous run of gamma 0 leaves the same "
    "entry as a global statement, so worst_case() counts it as one"))
def test_an_anonymous_sampled_statement_of_gamma_0_is_no_worst_case():
    statement = PrivacyStatement("hand-made", 1.0, 0.0, run=SamplingRun(None, 0.0),
                                 source="sampled")
    acc = PrivacyFilter(5.0)
    acc.compose(statement)
    assert acc.worst_case() is None


def test_a_global_statement_is_still_its_own_worst_case():
    acc = PrivacyFilter(5.0)
    acc.compose(PrivacyStatement("global", 1.0, 0.0), 2)
    assert acc.worst_case().epsilon == 2.0
