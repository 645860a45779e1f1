"""A near copy of the private data as the release's population (issue 37)."""

import csv

import numpy as np
import pytest

from sensampler.accounting import PrivacyFilter
from sensampler.app.cli import main
from sensampler.app.release import release_statistic
from sensampler.distributions import PublicSample


def _csv(path, values):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", "height"])
        writer.writerows(enumerate(values))
    return str(path)


def test_a_near_copy_file_is_refused_before_any_spend(tmp_path, capsys):
    """Before: values + 0.001 and values rounded to one decimal were accepted
    as the population of `sensampler release --population bootstrap:FILE`."""
    rng = np.random.default_rng(20261123)
    values = rng.normal(170, 10, 800).round(2)
    private = _csv(tmp_path / "private.csv", values)
    public = _csv(tmp_path / "public.csv", rng.normal(170, 10, 800).round(2))
    ledger = tmp_path / "ledger.json"
    base = ["release", "--data", private, "--column", "height", "--epsilon", "0.5",
            "--budget-file", str(ledger), "--budget-epsilon", "1"]
    assert main([*base, "--population", f"bootstrap:{public}"]) == 0  # independent
    capsys.readouterr()
    before = ledger.read_bytes()
    for name, copy, words in [
        ("shifted.csv", values + 0.001, "are the private records shifted"),
        ("rounded.csv", np.round(values, 1), "are the private records rounded"),
    ]:
        path = _csv(tmp_path / name, copy)
        code = main([*base, "--population", f"bootstrap:{path}"])
        out, err = capsys.readouterr()
        assert code == 2 and out == "", err
        assert f"the population bootstrap:{path}: its rows {words}" in err
        assert len(err.strip().splitlines()) == 1
        assert not any(f"{v:.2f}" in err for v in values[:100])
    assert ledger.read_bytes() == before


@pytest.mark.parametrize(
    "copy", [lambda x: x + 1e-9, lambda x: np.round(x, 1)], ids=["+1e-9", "rounded"]
)
def test_a_near_copy_public_sample_is_refused_before_any_spend(copy):
    """Before: PublicSample(data + 1e-9) and PublicSample(np.round(data, 1))
    released the same data with the private file as its own population."""
    data = np.random.default_rng(3).normal(170, 10, 500)
    budget = PrivacyFilter(1.0)
    with pytest.raises(ValueError, match="population of 500 rows: its rows are the"):
        release_statistic(data, "mean", PublicSample(copy(data)), epsilon=0.5,
                          budget=budget)
    assert len(budget.ledger) == 0
