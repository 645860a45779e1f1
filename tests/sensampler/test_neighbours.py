"""Add/remove neighbours end to end: pairs, laws, coverage, statements, audits."""

import numpy as np
import pytest
from scipy import stats

from sensampler import queries, sample_sensitivity
from sensampler.app.budget_file import BudgetFile
from sensampler.audit import audit_estimate
from sensampler.distributions import Normal
from sensampler.mechanisms import GaussianMechanism, LaplaceMechanism
from sensampler.privacy import to_replace_one
from tests.conftest import assert_below_in_se, assert_close_in_se

#: A sum not declared additive: the sampler draws whole databases for it.
FULL_SUM = queries.batched(lambda stack: stack.sum(axis=1), name="full sum")
#: Smallest p-value a two-sample test of two equal laws may give at a fixed seed.
P_MIN = 1e-6


def _ks_p(a, b):
    return stats.ks_2samp(np.ravel(a), np.ravel(b)).pvalue


def _direct_mean_changes(n, size, rng):
    """|mean(D u {x}) - mean(D)| for D of n - 1 N(0, 1) records, simulated directly."""
    d = rng.standard_normal((size, n - 1))
    x = rng.standard_normal(size)
    return np.abs((d.sum(axis=1) + x) / n - d.mean(axis=1))


# ---------------------------------------------------------------------- pairs
def test_pairs_are_d_and_d_with_one_record_more_at_a_uniform_position():
    calls = []

    def record(stack):
        calls.append(np.array(stack))
        return stack.sum(axis=1)

    query = queries.batched(record, name="recorded sum")
    sample_sensitivity(
        query, Normal(), 7, m=300, k=300, neighbours="add-remove", random_state=0,
        n_jobs=1,
    )
    larger, smaller = calls[-2], calls[-1]  # the one chunk's two evaluations
    assert larger.shape == (300, 7) and smaller.shape == (300, 6)
    positions = []
    for big, small in zip(larger, smaller):
        found = [p for p in range(7) if np.array_equal(np.delete(big, p), small)]
        assert len(found) == 1  # D is D u {x} less one record, in order
        positions.append(found[0])
    counts = np.bincount(positions, minlength=7)
    assert stats.chisquare(counts).pvalue > P_MIN  # x sits anywhere, uniformly


def test_replace_one_pairs_keep_n_records():
    sizes = set()

    def record(stack):
        sizes.add(stack.shape[1])
        return stack.sum(axis=1)

    sample_sensitivity(queries.batched(record), Normal(), 7, m=50, random_state=0)
    assert sizes == {7}


# ----------------------------------------------------------------------- laws
@pytest.mark.parametrize("query", [queries.sum, FULL_SUM], ids=["additive", "full"])
def test_a_sums_sensitivity_is_one_records_value(query):
    est = sample_sensitivity(
        query, Normal(), 20, m=4000, k=4000, neighbours="add-remove", random_state=1
    )
    reference = np.abs(np.random.default_rng(2).standard_normal(4000))
    assert _ks_p(est.samples, reference) > P_MIN
    # and not the replace-one law |x - x'|, whose scale is sqrt(2) times larger
    replace = np.abs(np.random.default_rng(3).standard_normal((2, 4000)))
    assert _ks_p(est.samples, replace[0] - replace[1]) < P_MIN


@pytest.mark.parametrize("n", [2, 5])
def test_a_means_sensitivity_matches_a_direct_simulation(n):
    # queries.mean is declared additive="mean": under add/remove its change
    # (g(x) - mean(D)) / n depends on D, so it must not use g(x) alone.
    est = sample_sensitivity(
        queries.mean, Normal(), n, m=4000, k=4000, neighbours="add-remove",
        random_state=4,
    )
    direct = _direct_mean_changes(n, 4000, np.random.default_rng(5))
    assert _ks_p(est.samples, direct) > P_MIN
    # The test can tell: at n = 2 from |g(x)| / n (the record alone), at n = 5
    # from the replace-one law |g(x) - g(x')| / n.
    x = np.random.default_rng(6).standard_normal((2, 4000))
    wrong = np.abs(x[0]) / n if n == 2 else np.abs(x[0] - x[1]) / n
    assert _ks_p(est.samples, wrong) < P_MIN


def test_structured_and_per_coordinate_outputs():
    query = queries.batched(
        lambda s: {"sum": s.sum(axis=1), "mean": s.mean(axis=1)}, name="both"
    )
    result = sample_sensitivity(
        query, Normal(), 3, m=3000, k=3000, neighbours="add-remove", random_state=7
    )
    assert result["sum"].run.neighbours == "add-remove"
    records = np.abs(np.random.default_rng(8).standard_normal(3000))
    assert _ks_p(result["sum"].samples, records) > P_MIN
    direct = _direct_mean_changes(3, 3000, np.random.default_rng(9))
    assert _ks_p(result["mean"].samples, direct) > P_MIN
    pair = queries.batched(lambda s: np.stack([s.sum(axis=1), 2 * s.sum(axis=1)], axis=1))
    per = sample_sensitivity(
        pair, Normal(), 3, m=200, k=200, norm="coordinate", neighbours="add-remove",
        random_state=7,
    )
    assert per.samples.shape == (200, 2)
    np.testing.assert_allclose(per.samples[:, 1], 2 * per.samples[:, 0], rtol=1e-12)


# ------------------------------------------------------------------- coverage
@pytest.mark.slow
@pytest.mark.parametrize("query", [queries.sum, queries.mean], ids=["sum", "mean"])
def test_fresh_add_remove_pairs_exceed_the_estimate_at_most_gamma(query):
    # One run and one fresh pair per seed, the pair simulated directly: the
    # joint failure probability of random DP is at most gamma.
    n, runs, exceed, gamma = 3, 300, 0, 0.05
    rng = np.random.default_rng(10)
    for seed in range(runs):
        est = sample_sensitivity(
            query, Normal(), n, gamma=gamma, neighbours="add-remove", random_state=seed
        )
        d, x = rng.standard_normal(n - 1), rng.standard_normal()
        change = abs(x) if query is queries.sum else abs((d.sum() + x) / n - d.mean())
        exceed += change > float(est.sensitivity.value)
    assert est.gamma <= gamma
    assert_below_in_se(exceed, runs * gamma, np.sqrt(runs * gamma * (1 - gamma)))


def test_the_audit_repeats_the_runs_relation():
    est = sample_sensitivity(
        queries.sum, Normal(), 50, gamma=0.05, neighbours="add-remove", random_state=11
    )
    audit = audit_estimate(est, pairs=20_000, random_state=12)
    # Under replace-one pairs, |x - x'|, the rate would be about 0.16.
    assert audit.upper < 0.08
    exact = 2 * stats.norm.sf(float(est.sensitivity.value))  # P[|x| > s]
    assert_close_in_se(audit.rate, exact, np.sqrt(exact * (1 - exact) / 20_000))


# ----------------------------------------------------------------- refusals
def test_unknown_relations_and_too_small_n_are_refused_before_any_draw():
    calls = []

    def record(stack):
        calls.append(stack)
        return stack.sum(axis=1)

    query = queries.batched(record)
    with pytest.raises(ValueError, match=r"neighbours=.bogus"):
        sample_sensitivity(query, Normal(), 10, m=10, neighbours="bogus")
    with pytest.raises(ValueError, match=r"n >= 2.*n=1"):
        sample_sensitivity(query, Normal(), 1, m=10, neighbours="add-remove")
    assert calls == []


def test_an_output_whose_shape_follows_n_is_refused_by_name():
    def echo(db):
        return db * 2.0

    refused = r"query 'echo' changes its output with the number of records"
    with pytest.raises(ValueError, match=refused):
        sample_sensitivity(echo, Normal(), 5, m=10, neighbours="add-remove", random_state=0)
    counts = queries.batched(lambda s: np.ones((len(s), s.shape[1])), name="per record")
    with pytest.raises(ValueError, match="per record"):
        sample_sensitivity(counts, Normal(), 5, m=10, neighbours="add-remove")


# -------------------------------------------------------- records and statements
def test_the_relation_is_in_the_run_summary_dict_and_statements():
    est = sample_sensitivity(
        queries.mean, Normal(), 40, gamma=0.05, neighbours="add-remove", random_state=13
    )
    assert est.run.neighbours == est.neighbours == "add-remove"
    assert "add-remove, n=40" in est.summary()
    assert est.to_dict()["neighbours"] == "add-remove"
    for mech in (LaplaceMechanism(est, 1.0), GaussianMechanism(est, 1.0, 1e-6)):
        assert mech.privacy.neighbours == mech.privacy.run.neighbours == "add-remove"
        assert "add-remove neighbours" in str(mech.privacy)
    derived = LaplaceMechanism(2.0 * est.sensitivity + 1.0, 1.0)
    assert derived.privacy.neighbours == "add-remove"


def test_the_summary_says_which_add_remove_pairs_the_estimate_covers():
    # issue 28: add/remove sampling draws pairs of (n - 1, n) records, never
    # (n, n + 1); nothing said so.
    est = sample_sensitivity(
        queries.mean, Normal(), 40, gamma=0.05, neighbours="add-remove", random_state=13
    )
    assert (
        "add-remove, n=40 (pairs of 39 and 40 records; no addition to 40 was sampled)"
        in est.summary()
    )
    replace_one = sample_sensitivity(queries.mean, Normal(), 40, m=19, random_state=1)
    assert "pairs of" not in replace_one.summary()


def test_a_global_sensitivity_states_replace_one():
    assert LaplaceMechanism(1.0, 1.0).privacy.neighbours == "replace-one"
    default = sample_sensitivity(queries.mean, Normal(), 40, gamma=0.05, random_state=0)
    assert LaplaceMechanism(default, 1.0).privacy.neighbours == "replace-one"


def test_a_query_that_sorts_its_input_in_place_is_refused():
    def sorting_sum(stack):
        stack.sort(axis=1)  # would reorder the sampler's own array
        return stack.sum(axis=1)

    with pytest.raises(ValueError, match="writes into its database.*np.array"):
        sample_sensitivity(
            queries.batched(sorting_sum), Normal(), 6, m=3000, k=3000,
            neighbours="add-remove", random_state=14,
        )


def test_a_budget_file_refuses_an_add_remove_statement(tmp_path):
    est = sample_sensitivity(
        queries.sum, Normal(), 30, gamma=0.05, neighbours="add-remove", random_state=16
    )
    statement = LaplaceMechanism(est, 0.1).privacy
    budget = BudgetFile(str(tmp_path / "ledger.json"), epsilon=1.0, delta=1e-6)
    with pytest.raises(ValueError, match="to_replace_one"), budget.session() as session:
        session.spend(statement)
    with budget.session() as session:
        session.spend(to_replace_one(statement))
    again = BudgetFile(str(tmp_path / "ledger.json")).filter()
    assert again.spent.epsilon == pytest.approx(0.2)
