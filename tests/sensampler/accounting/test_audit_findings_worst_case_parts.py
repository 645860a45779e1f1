"""Audit findings on which releases ``worst_case`` counts as holding for every
pair: only a global statement is its own worst case, never a sampled one."""

from dataclasses import replace

import pytest

from sensampler.accounting import LedgerEntry, PrivacyFilter, RenyiAccountant
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


def test_an_anonymous_sampled_statement_of_gamma_0_is_no_worst_case():
    # failed: a ledger entry kept no source, so an anonymous run of gamma 0 left
    # the same entry as a global statement and worst_case() counted it as one
    statement = PrivacyStatement("hand-made", 1.0, 0.0, run=SamplingRun(None, 0.0),
                                 source="sampled")
    acc = PrivacyFilter(5.0)
    acc.compose(statement)
    assert acc.worst_case() is None
    entry = acc.ledger[0]
    assert entry.sampled and entry.to_statement().source == "sampled"
    # a budget file's line keeps it, and only where the other keys cannot tell
    line = entry.to_dict()
    assert line["sampled"] is True and LedgerEntry.from_dict(line) == replace(
        entry, rho=None, neighbours=None
    )
    assert "sampled" not in LedgerEntry.of(PrivacyStatement("g", 1.0, 0.0), 1).to_dict()


def test_a_global_statement_is_still_its_own_worst_case():
    acc = PrivacyFilter(5.0)
    acc.compose(PrivacyStatement("global", 1.0, 0.0), 2)
    assert acc.worst_case().epsilon == 2.0
