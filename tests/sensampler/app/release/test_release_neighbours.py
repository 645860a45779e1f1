"""``neighbours=`` in the release: one relation from the sampler to the statement,
and every budget charged under its own relation (issue 26)."""

import json
import math
import re

import mpmath
import numpy as np
import pytest

from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    WhitehouseFilter,
    default_filter,
)
from sensampler.app.budget_file import BudgetFile
from sensampler.app.cli import main
from sensampler.app.release import (
    _running,
    load_population,
    prepare_releases,
    release_statistic,
    release_statistics,
)
from sensampler.app.specs import parse_query
from sensampler.parallel import child_seed
from sensampler.privacy import PrivacyStatement

POP = "normal:loc=170,scale=10"
DATA = np.random.default_rng(20261126).normal(170, 10, 400).round(2)


@pytest.fixture
def no_sampling(monkeypatch):
    """Fail the test if the release samples anything."""

    def refuse(*args, **kwargs):
        raise AssertionError("sampled although the release was refused")

    monkeypatch.setattr(_running, "sample_sensitivity", refuse)


def test_the_relation_reaches_the_estimate_the_statement_and_its_worst_case():
    r = release_statistic(
        DATA, "sum", POP, epsilon=0.5, bounds=(100, 250), neighbours="add-remove",
        random_state=3,
    )
    s = r.statement
    assert s.neighbours == r.estimate.run.neighbours == "add-remove"
    assert s.worst_case.neighbours == "add-remove"
    # the sum's worst case under add/remove is the record itself, max(|a|, |b|)
    # = 250, where replace-one would give the width 150 (_math.worst_cases.worst_sum)
    assert r.estimate.worst_case == 250.0
    # the run is the sampler's own under add/remove pairs, with the release's seed
    again = _running.sample_sensitivity(
        parse_query("sum"),
        load_population(POP),
        DATA.size,
        gamma=0.05,
        bounds=r.bounds,
        neighbours="add-remove",
        random_state=child_seed(np.random.SeedSequence(3), 0),
    )
    assert r.estimate.sensitivity.value == again.sensitivity.value
    document = r.to_dict()
    assert document["neighbours"] == "add-remove"
    assert json.loads(json.dumps(document))["neighbours"] == "add-remove"
    text = r.text()
    assert "for add-remove neighbours (n=400 records, published" in text
    assert "for every pair of add-remove neighbours" in text


def test_replace_one_stays_the_default():
    r = release_statistic(DATA, "mean", POP, epsilon=1.0, random_state=0)
    assert r.statement.neighbours == "replace-one"
    assert "(n=400 records)" in r.guarantee


@pytest.mark.slow
def test_a_quantile_uses_the_add_remove_utility_sensitivity():
    r = release_statistic(DATA, "quantile:0.9", POP, epsilon=1.0, neighbours="add-remove")
    assert r.statement.neighbours == "add-remove"
    # rank - qn moves by max(q, 1 - q) = 0.9 under add/remove, 1 under replace-one
    assert "of sensitivity 0.9," in r.noise
    assert "for add-remove neighbours" in r.guarantee


def test_the_plain_dp_release_is_calibrated_and_labelled_for_its_relation():
    # no population: a global sensitivity. A histogram's add/remove worst case is
    # 1 (one bin +1), its replace-one one 2: Laplace scale 1/0.5 = 2 vs 4.
    add_remove, replace_one = (
        release_statistic(
            DATA, "histogram:4:150:190", None, epsilon=0.5, bounds="private:1.2",
            neighbours=relation, budget=PrivacyFilter(10.0, rule="basic"),
        )
        for relation in ("add-remove", "replace-one")
    )
    assert add_remove.statement.neighbours == "add-remove"
    assert add_remove.noise == "Laplace noise of scale 2"
    assert replace_one.noise == "Laplace noise of scale 4"
    assert replace_one.statement.neighbours == "replace-one"
    assert add_remove.bounds.statement.neighbours == "add-remove"


@pytest.mark.slow
def test_a_replace_one_budget_file_records_the_converted_statements(tmp_path):
    ledger = tmp_path / "ledger.json"
    budget = BudgetFile(ledger, epsilon=5.0, gamma=0.5)
    release_statistics(  # n = 400: add/remove private bounds need eps0 >= 1.165
        DATA, ["mean", "median"], None, epsilon=0.3, bounds="private:1.2",
        neighbours="add-remove", budget=budget,
    )
    spent = BudgetFile(ledger).filter()
    # group privacy: each add/remove epsilon doubles (1.2 + 0.3 + 0.3) * 2 = 3.6
    assert spent.spent.epsilon == pytest.approx(3.6)
    assert spent.neighbours == "replace-one"
    sampled = release_statistic(
        DATA, "mean", POP, epsilon=0.25, gamma=0.05, neighbours="add-remove",
        budget=budget,
    )
    after = BudgetFile(ledger).filter().spent
    assert after.epsilon == pytest.approx(3.6 + 0.5)
    # the run's gamma doubles too (both steps of a replacement: a union bound)
    assert after.gamma == pytest.approx(2 * sampled.statement.gamma)
    assert sampled.statement.neighbours == "add-remove"  # what the release states


def test_a_replace_one_budget_charged_over_its_limit_refuses_before_sampling(
    tmp_path, no_sampling
):
    # 0.3 under add/remove is 0.6 under replace-one: over a budget of 0.5,
    # though 0.3 alone would fit. Refused before anything is sampled or spent.
    ledger = tmp_path / "ledger.json"
    budget = BudgetFile(ledger, epsilon=0.5)
    with pytest.raises(ExceededPrivacyBudgetError):
        release_statistic(DATA, "mean", POP, epsilon=0.3, neighbours="add-remove",
                          budget=budget)
    assert not ledger.exists()
    f = PrivacyFilter(1.0, rule="basic")
    f.compose(PrivacyStatement("earlier", 0.5, 0.0))  # a replace-one filter
    with pytest.raises(ExceededPrivacyBudgetError):
        release_statistic(DATA, "mean", POP, epsilon=0.3, neighbours="add-remove",
                          budget=f)
    assert f.count == 1


@pytest.mark.slow
def test_filters_record_each_statement_under_their_own_relation():
    earlier = PrivacyStatement("earlier", 0.1, 0.0)  # replace-one
    replace_one = PrivacyFilter(5.0, rule="basic")
    replace_one.compose(earlier)
    empty = PrivacyFilter(5.0, rule="basic")
    with default_filter(replace_one):
        release_statistic(DATA, "mean", POP, epsilon=0.4, neighbours="add-remove",
                          budget=empty, random_state=1)
    # the empty filter takes the release's relation; the replace-one default
    # records the conversion: 0.1 + 2 * 0.4
    assert empty.neighbours == "add-remove" and empty.spent.epsilon == 0.4
    assert replace_one.spent.epsilon == pytest.approx(0.9)
    assert replace_one.ledger[-1].neighbours == "replace-one"
    assert replace_one.count == 2 and empty.count == 1
    # a second add/remove release: the filter's replica keeps its relation
    release_statistic(DATA, "median", POP, epsilon=0.4, neighbours="add-remove",
                      budget=empty)
    assert empty.count == 2


def test_an_add_remove_filter_refuses_a_replace_one_release_before_sampling(
    no_sampling
):
    f = PrivacyFilter(5.0, rule="basic")
    f.compose(PrivacyStatement("earlier", 0.1, 0.0, neighbours="add-remove"))
    message = (
        "the budget holds statements for add-remove neighbours, and planned holds "
        "for replace-one neighbours, which implies no add-remove guarantee: release "
        "with neighbours='add-remove', or spend from another budget."
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        release_statistic(DATA, "mean", POP, epsilon=0.4, budget=f)
    assert f.count == 1


@pytest.mark.parametrize("bounds", ["auto", "private:0.5"])
def test_add_remove_with_one_record_is_refused_before_anything(
    tmp_path, no_sampling, bounds
):
    ledger = tmp_path / "ledger.json"
    f = PrivacyFilter(5.0, rule="basic")
    message = (
        "neighbours='add-remove' needs n >= 2 (D holds n - 1 records and "
        "D u {x} holds n), got n=1."
    )
    for budget in (f, BudgetFile(ledger, epsilon=5.0)):
        with pytest.raises(ValueError, match=re.escape(message)):
            release_statistic([170.0], "mean", POP, epsilon=0.4, bounds=bounds,
                              neighbours="add-remove", budget=budget)
    assert f.count == 0 and not ledger.exists()
    # one record is fine under replace-one: the check is the relation's
    prepare_releases([170.0], ["mean"], POP, epsilon=0.4)


def test_an_unknown_relation_is_named(no_sampling):
    with pytest.raises(ValueError, match="neighbours"):
        release_statistic(DATA, "mean", POP, epsilon=1.0, neighbours="swap")


def _csv(path, values):
    path.write_text("height\n" + "".join(f"{v}\n" for v in values))
    return str(path)


def _release(capsys, *argv):
    code = main(["release", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_the_release_command_states_and_spends_the_relation(tmp_path, capsys):
    data = _csv(tmp_path / "private.csv", DATA)
    ledger = str(tmp_path / "ledger.json")
    flags = ["--data", data, "--column", "height", "--population", POP,
             "--epsilon", "0.25", "--seed", "1", "--neighbours", "add-remove"]
    code, out, err = _release(capsys, *flags, "--json", "--budget-file", ledger,
                              "--budget-epsilon", "2")
    assert code == 0, err
    document = json.loads(out)
    assert document["releases"][0]["neighbours"] == "add-remove"
    # the budget file is replace-one: the add/remove epsilon 0.25 counts twice
    assert document["budget"]["spent"]["epsilon"] == pytest.approx(0.5)
    code, out, err = _release(capsys, *flags, "--query", "mean", "--query", "sum")
    assert code == 0, err
    assert "for add-remove neighbours (n=400 records, published" in out
    assert "for every pair of add-remove neighbours (basic composition" in out
    code, out, err = _release(capsys, *flags, "--budget-file", ledger)
    assert code == 0, err
    assert (
        "-DP for every pair of replace-one neighbours (basic composition; the "
        "ledger is replace-one)"
    ) in out
    code, out, err = _release(capsys, *flags[:-2], "--json")
    assert json.loads(out)["releases"][0]["neighbours"] == "replace-one"


def test_the_release_command_refuses_add_remove_on_one_record_before_work(
    tmp_path, capsys, no_sampling
):
    data = _csv(tmp_path / "one.csv", [170.0])
    ledger = tmp_path / "ledger.json"
    code, out, err = _release(
        capsys, "--data", data, "--column", "height", "--population", POP,
        "--epsilon", "0.5", "--neighbours", "add-remove",
        "--budget-file", str(ledger), "--budget-epsilon", "1",
    )
    assert code == 2 and out == ""
    assert err.strip() == (
        "sensampler release: error: neighbours='add-remove' needs n >= 2 (D holds "
        "n - 1 records and D u {x} holds n), got n=1."
    )
    assert not ledger.exists()
    with pytest.raises(SystemExit) as exit_:
        main(["release", "--data", data, "--column", "height", "--epsilon", "1",
              "--neighbours", "swap"])
    assert exit_.value.code == 2 and "--neighbours" in capsys.readouterr().err


def test_an_approximate_release_and_its_worst_case_convert_by_group_privacy(tmp_path):
    ledger = tmp_path / "ledger.json"
    budget = BudgetFile(ledger, epsilon=5.0, delta=1e-4)
    r = release_statistic(
        DATA, "mean", POP, epsilon=0.5, delta=1e-6, mechanism="gaussian",
        neighbours="add-remove", budget=budget, random_state=2,
    )
    s = r.statement
    assert s.neighbours == s.worst_case.neighbours == "add-remove"
    spent = BudgetFile(ledger).filter()
    # (eps, delta) -> (2 eps, (1 + e^eps) delta), Dwork & Roth 2014, Thm. 2.2
    assert spent.spent.epsilon == pytest.approx(2 * s.epsilon)
    assert spent.spent.delta == pytest.approx((1 + math.exp(s.epsilon)) * s.delta)
    worst = spent.worst_case()
    assert worst.epsilon == pytest.approx(2 * s.worst_case.epsilon)
    assert worst.delta == pytest.approx(
        (1 + math.exp(s.worst_case.epsilon)) * s.worst_case.delta
    )


# ------------------------------------------ several budgets under their own relations
# Audit findings on releases spent from several budgets under their own relations: a
# refusal must leave every budget as it was, and what a budget records must bound the
# release's guarantee under the budget's relation. A test marked xfail(strict=True) is
# a finding left open.


def test_a_default_filter_of_another_kind_refusing_leaves_the_budget_unspent():
    """A WhitehouseFilter default is not tried before the spend: it refused after the
    budget was charged, which then recorded a release never made."""
    budget = PrivacyFilter(10.0, 1e-5)
    with default_filter(WhitehouseFilter(0.5, 1e-6)):
        with pytest.raises(ExceededPrivacyBudgetError):
            release_statistic(DATA, "mean", POP, epsilon=1.0, budget=budget,
                              random_state=0)
    assert budget.count == 0


def test_a_default_filter_of_another_kind_keeps_nothing_of_a_refused_run():
    """Failed before: charged one statement at a time, it kept the first."""
    default = WhitehouseFilter(2.0, 1e-6)  # holds one release of 0.3, not two
    with default_filter(default):
        with pytest.raises(ExceededPrivacyBudgetError):
            release_statistics(DATA, ["mean", "sum"], POP, epsilon=0.3,
                               random_state=0)
    assert default.count == 0


def test_a_budget_file_records_at_least_group_privacy_of_an_add_remove_release(
    tmp_path,
):
    """Audit finding: a budget file counts under replace-one, so an add-remove release
    must be recorded at no less than its group privacy: 2 epsilon, (1 + e^epsilon)
    delta and 2 gamma (Dwork & Roth 2014, Thm. 2.2)."""
    ledger = tmp_path / "ledger.json"
    epsilon, delta = 0.7, 1e-7
    release = release_statistic(
        DATA, "mean", POP, epsilon=epsilon, delta=delta, mechanism="gaussian",
        neighbours="add-remove", budget=BudgetFile(ledger, epsilon=5.0, delta=1e-5),
        random_state=0,
    )
    (entry,) = BudgetFile(ledger).filter().ledger
    assert entry.neighbours == "replace-one"
    assert entry.epsilon == 2 * release.statement.epsilon
    with mpmath.workdps(60):  # (1 + e^epsilon) delta, Dwork & Roth 2014, Thm. 2.2
        exact = (1 + mpmath.exp(mpmath.mpf(epsilon))) * mpmath.mpf(delta)
        assert exact <= mpmath.mpf(entry.delta) <= exact * (1 + 1e-14)
    assert entry.gamma == min(1.0, 2 * release.statement.gamma)


def test_a_spend_between_the_trial_and_the_spend_leaves_nothing_recorded(monkeypatch):
    """Failed before: the run's statements were composed one by one, without holding the
    filter, after its trial."""
    budget = PrivacyFilter(1.0, rule="basic")
    compose_all = PrivacyFilter.compose_all

    def interleaved(self, mechanisms):
        if self is budget:  # another thread's spend lands after the trial
            self.compose(PrivacyStatement("another thread", 0.4, 0.0))
        return compose_all(self, mechanisms)

    monkeypatch.setattr(PrivacyFilter, "compose_all", interleaved)
    with pytest.raises(ExceededPrivacyBudgetError):
        release_statistics(DATA, ["mean", "sum"], POP, epsilon=0.35, budget=budget,
                           random_state=0)  # tried: 0.7 of 1, fits
    assert [entry.mechanism for entry in budget.ledger] == ["another thread"]
