"""Audit findings on a budget file's lines (``LedgerEntry.from_dict``): a line
the replay would read as costing less than it states is refused, even under a
consistent checksum (which detects corruption, not edits)."""

import json
import re

import pytest

from sensampler.accounting import LedgerEntry
from sensampler.app.budget_file import BudgetFile, BudgetFileError, _checksum
from sensampler.privacy import PrivacyStatement, SamplingRun

LINE = dict(mechanism="Laplace", epsilon=0.6, delta=0.0, gamma=0.05, run_id="r",
            count=1)


@pytest.mark.parametrize("change", [
    dict(count=0),
    dict(count=0, epsilon=0.0, delta=1e-6),
    dict(count=0, epsilon=0.0, worst_case_epsilon=2.0, worst_case_delta=0.0),
])
def test_a_sampling_run_line_stating_a_cost_is_refused(change):
    # failed: accepted, and replayed by record_run, which drops its cost
    with pytest.raises(ValueError, match=re.escape("count=0")):
        LedgerEntry.from_dict({**LINE, **change})


def test_a_run_drawn_still_reads_back():
    line = LedgerEntry.of_run(SamplingRun("r", 0.05)).to_dict()
    assert LedgerEntry.from_dict(line).to_dict() == line


def test_a_spend_turned_into_a_run_drawn_does_not_free_the_budget(tmp_path):
    path = tmp_path / "ledger.json"
    with BudgetFile(path, epsilon=1.0).session() as session:
        session.spend(PrivacyStatement("Laplace", 0.6, 0.0, run=SamplingRun("r", 0.05),
                                       source="sampled"), "test")
    record = json.loads(path.read_text())
    record["entries"][0]["count"] = 0
    content = {k: v for k, v in record.items() if k != "checksum"}
    record["checksum"] = _checksum(content)
    path.write_text(json.dumps(record))
    # failed: the filter replayed had spent 0, leaving the whole budget
    with pytest.raises(BudgetFileError, match="inconsistent"):
        BudgetFile(path).filter()
