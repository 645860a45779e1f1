import csv
import json
import math
import os
import re
import stat
import subprocess
import sys
import threading

import numpy as np
import pytest

from sensampler import queries
from sensampler.accounting import (
    ExceededPrivacyBudgetError,
    PrivacyFilter,
    default_filter,
)
from sensampler.app.budget_file import BudgetFile, BudgetFileError
from sensampler.app.cli import main
from sensampler.app.release import (
    prepare_releases,
    release_statistic,
    release_statistics,
)
from sensampler.distributions import Empirical, GaussianMixture, Normal, PublicSample
from sensampler.mechanisms import ExponentialQuantileMechanism
from sensampler.mechanisms.choice import build_mechanism
from sensampler.sampler import sample_sensitivity

SECRET = "987654.321"
POP = "normal:loc=170,scale=10"


def _csv(path, values, column="height"):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", column])
        for i, v in enumerate(values):
            writer.writerow([i, v])
    return str(path)


@pytest.fixture
def files(tmp_path):
    rng = np.random.default_rng(20261123)
    private = rng.normal(170, 10, 800).round(2)
    public = rng.normal(170, 10, 1500).round(2)
    return (
        _csv(tmp_path / "private.csv", private),
        _csv(tmp_path / "public.csv", public),
        private,
    )


def _strict(text):
    def refuse(name):
        raise ValueError(f"not strict JSON: {name}")

    return json.loads(text, parse_constant=refuse)


def _run(capsys, *argv):
    code = main(["release", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_release_command_prints_the_answer_and_the_full_statement(files, capsys):
    private, public, values = files
    code, out, err = _run(
        capsys, "--data", private, "--column", "height",
        "--population", f"bootstrap:{public}", "--epsilon", "0.5", "--seed", "7",
    )
    assert code == 0, err
    assert "epsilon=0.5-DP for replace-one neighbours (n=800 records), except with " \
        "probability gamma=" in out
    assert "over the data drawn from the population model" in out
    assert "gamma is not delta" in out
    assert "sampling seed: entropy 7" in out and "plan       exact: PAC statement" in out
    answer = float(out.split("\n")[1].split(":")[1].split()[0])
    scale = float(out.split("Laplace noise of scale ")[1].split()[0])
    # |Laplace(b)| > 30 b has probability e^-30
    assert abs(answer - values.mean()) < 30 * scale


@pytest.mark.slow
def test_json_is_strict_and_complete(files, capsys):
    private, public, values = files
    code, out, _ = _run(
        capsys, "--data", private, "--column", "height", "--population", POP,
        "--query", "mean", "--query", "quantile:0.9", "--query", "histogram:4:150:190",
        "--epsilon", "1", "--json", "--seed", "1",
    )
    assert code == 0
    record = _strict(out)
    assert [r["query"] for r in record["releases"]] == [
        "mean", "quantile:0.9", "histogram:4:150:190",
    ]
    first = record["releases"][0]
    assert first["n"] == 800 and first["epsilon"] == 1.0 and first["delta"] == 0.0
    assert 0 < first["gamma"] <= 0.05
    assert "except with probability gamma" in first["guarantee"]
    assert len(record["releases"][2]["answer"]) == 4
    assert record["budget"] is None
    # one run per query, each with its own id: the quantile's calibrates its scale
    assert len({r["run_id"] for r in record["releases"] if "run_id" in r}) == 3
    quantile = record["releases"][1]
    assert quantile["mechanism"] == "exponential" and 0 < quantile["gamma"] <= 0.05
    assert "except with probability gamma" in quantile["guarantee"]
    assert quantile["worst_case"]["epsilon"] <= 4.0


def test_json_with_a_budget_file_has_no_infinity(files, tmp_path, capsys):
    private, public, _ = files
    ledger = str(tmp_path / "ledger.json")
    code, out, err = _run(
        capsys, "--data", private, "--column", "height", "--population", POP,
        "--epsilon", "0.5", "--budget-file", ledger, "--budget-epsilon", "1", "--json",
    )
    assert code == 0, err
    budget = _strict(out)["budget"]
    assert budget["budget"]["gamma"] is None  # no gamma budget: null, not Infinity
    assert budget["spent"]["epsilon"] == 0.5


def _numbers(line, name):
    return [float(v) for v in re.findall(rf"\b{name}=([0-9.]+(?:e[+-]?[0-9]+)?)", line)]


@pytest.mark.slow
def test_printed_totals_round_up(files, tmp_path, capsys):
    # issue 28: three releases of epsilon 0.1 total 0.30000000000000004, printed as
    # 0.3 on the together: and budget: lines; gamma rounded down likewise.
    private, _, _ = files
    ledger = tmp_path / "ledger.json"
    code, out, err = _run(
        capsys, "--data", private, "--column", "height", "--population", POP,
        "--query", "mean", "--query", "median", "--query", "sum",
        "--epsilon", "0.1", "--seed", "3",
        "--budget-file", str(ledger), "--budget-epsilon", "1",
    )
    assert code == 0, err
    together = next(x for x in out.splitlines() if x.startswith("together:"))
    spent_line = next(x for x in out.splitlines() if x.startswith("budget "))
    spent = BudgetFile(ledger).filter().spent
    assert spent.epsilon == 0.1 + 0.1 + 0.1 > 0.3
    assert _numbers(together, "epsilon")[0] >= spent.epsilon
    assert _numbers(together, "gamma")[0] >= spent.gamma
    epsilon_spent, epsilon_budget = _numbers(spent_line, "epsilon")
    gamma_spent = _numbers(spent_line, "gamma")[0]
    assert epsilon_spent >= spent.epsilon and gamma_spent >= spent.gamma
    assert epsilon_budget == 1.0


def test_over_budget_is_refused_before_anything_and_the_file_is_unchanged(
    files, tmp_path, capsys
):
    private, public, _ = files
    ledger = tmp_path / "ledger.json"
    base = ["--data", private, "--column", "height", "--population", POP,
            "--budget-file", str(ledger)]
    assert _run(capsys, *base, "--epsilon", "0.6", "--budget-epsilon", "1")[0] == 0
    before = ledger.read_bytes()
    code, out, err = _run(capsys, *base, "--epsilon", "0.5")
    assert code == 2 and out == ""
    assert f"budget file {ledger}: spending epsilon=0.5" in err
    assert "would exceed" in err and len(err.strip().splitlines()) == 1
    assert ledger.read_bytes() == before
    # several queries: all or nothing
    code, _, err = _run(capsys, *base, "--epsilon", "0.2", "--query", "mean",
                        "--query", "median", "--query", "sum")
    assert code == 2 and ledger.read_bytes() == before


def test_a_budget_file_is_created_only_with_its_budget(files, tmp_path, capsys):
    private, public, _ = files
    ledger = tmp_path / "ledger.json"
    code, _, err = _run(capsys, "--data", private, "--column", "height",
                        "--population", POP, "--epsilon", "0.5",
                        "--budget-file", str(ledger))
    assert code == 2 and "does not exist; create it" in err
    assert not ledger.exists()
    code, _, err = _run(capsys, "--data", private, "--column", "height",
                        "--population", POP, "--epsilon", "0.5",
                        "--budget-epsilon", "1")
    assert code == 2 and "--budget-epsilon needs --budget-file" in err


def test_gamma_of_each_run_is_spent(files, tmp_path):
    _, _, values = files
    budget = BudgetFile(tmp_path / "l.json", epsilon=2.0, gamma=0.12)
    releases = release_statistics(values, ["mean", "variance"], POP, epsilon=0.5,
                                  budget=budget, random_state=0)
    spent = BudgetFile(tmp_path / "l.json").filter()
    assert spent.gamma == pytest.approx(sum(r.statement.gamma for r in releases))
    with pytest.raises(ExceededPrivacyBudgetError, match="gamma"):
        release_statistic(values, "mean", POP, epsilon=0.1, budget=budget)


@pytest.mark.slow
def test_two_concurrent_commands_on_one_budget_spend_it_once(files, tmp_path):
    private, public, _ = files
    ledger = tmp_path / "ledger.json"
    BudgetFile(ledger, epsilon=1.0).filter()  # checks only; create it with a spend:
    with BudgetFile(ledger, epsilon=1.0).session():
        pass  # no spend: nothing written
    assert not ledger.exists()
    argv = [sys.executable, "-m", "sensampler", "release", "--data", private,
            "--column", "height", "--population", f"bootstrap:{public}",
            "--epsilon", "0.6", "--budget-file", str(ledger), "--budget-epsilon", "1"]
    procs = [
        subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, stdin=subprocess.DEVNULL)
        for _ in range(2)
    ]
    results = [(p.wait(timeout=120), *p.communicate()) for p in procs]
    codes = sorted(code for code, _, _ in results)
    assert codes[0] == 0 and codes[1] in (1, 2), results
    loser = [err for code, _, err in results if code][0]
    assert "would exceed" in loser
    record = json.loads(ledger.read_text())
    assert len(record["entries"]) == 1


def test_the_lock_decides_between_two_prepared_releases(files, tmp_path):
    # Both pass the early check; the check under the lock admits only one.
    _, _, values = files
    budget = BudgetFile(tmp_path / "l.json", epsilon=1.0)
    prepared = [
        prepare_releases(values, ["mean"], POP, epsilon=0.6, budget=budget)
        for _ in range(2)
    ]
    outcomes = []

    def run(p):
        try:
            p.run()
            outcomes.append("released")
        except ExceededPrivacyBudgetError:
            outcomes.append("refused")

    threads = [threading.Thread(target=run, args=(p,)) for p in prepared]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(outcomes) == ["refused", "released"]
    assert BudgetFile(tmp_path / "l.json").filter().count == 1


@pytest.mark.parametrize(
    "rows, flags",
    [
        (["170", f"{SECRET}x", "160"], []),
        (["170", "", SECRET], []),
        ([SECRET, "nan"], []),
        ([SECRET, "170"], ["--column", "weight"]),
    ],
)
def test_errors_never_print_a_private_value(tmp_path, capsys, rows, flags):
    path = tmp_path / "private.csv"
    path.write_text("id,height\n" + "".join(f"{SECRET},{r}\n" for r in rows))
    code, out, err = _run(
        capsys, "--data", str(path), "--column", "height", "--population", POP,
        "--epsilon", "1", *flags,
    )
    assert code == 2
    assert SECRET not in out + err and "98765" not in out + err
    assert str(path) in err and len(err.strip().splitlines()) == 1
    assert "Traceback" not in err


def test_a_headerless_file_is_not_echoed(tmp_path, capsys):
    path = tmp_path / "private.csv"
    path.write_text(f"{SECRET},170\n1,2\n")
    code, out, err = _run(capsys, "--data", str(path), "--column", "height",
                          "--population", POP, "--epsilon", "1")
    assert code == 2 and SECRET not in out + err
    assert "has no column 'height'" in err


def test_usage_errors_exit_2(files, tmp_path, capsys):
    private, public, _ = files
    base = ["--data", private, "--column", "height"]
    cases = [
        (["--population", POP, "--epsilon", "-1"], "epsilon must be > 0.0"),
        (["--population", POP, "--epsilon", "1", "--delta", "1e-6"], "takes no delta"),
        (["--population", POP, "--epsilon", "1", "--mechanism", "gaussian"],
         "needs delta > 0"),
        (["--population", POP, "--epsilon", "1", "--query", "mode"], "unknown query"),
        (["--population", POP, "--epsilon", "1", "--gamma", "2"], "gamma"),
        (["--population", "bootstrap:" + str(tmp_path / "none.csv"), "--epsilon", "1"],
         "cannot read"),
        (["--population", "multivariatenormal:mean=[0,0],cov=[[1,0],[0,1]]",
          "--epsilon", "1"], "records of shape (2,)"),
        (["--population", POP, "--epsilon", "1", "--granularity", "0.1"],
         "granularity is for the discrete mechanisms"),
    ]
    for flags, message in cases:
        code, out, err = _run(capsys, *base, *flags)
        assert code == 2, (flags, err)
        assert message in err, (flags, err)
        assert out == ""


def test_toml_population(files, tmp_path, capsys):
    private, _, _ = files
    toml = tmp_path / "pop.toml"
    toml.write_text('[population]\nkind = "Normal"\nloc = 170\nscale = 10\n')
    code, out, err = _run(capsys, "--data", private, "--column", "height",
                          "--population", str(toml), "--epsilon", "1", "--json")
    assert code == 0, err
    assert _strict(out)["releases"][0]["n"] == 800


@pytest.mark.parametrize("mechanism", ["gaussian", "discrete-laplace", "discrete-gaussian"])
def test_other_mechanisms(files, capsys, mechanism):
    private, _, values = files
    delta = ["--delta", "1e-6"] if "gaussian" in mechanism else []
    code, out, err = _run(capsys, "--data", private, "--column", "height",
                          "--population", POP, "--epsilon", "0.5", *delta,
                          "--mechanism", mechanism, "--json", "--seed", "3")
    assert code == 0, err
    r = _strict(out)["releases"][0]
    assert r["epsilon"] <= 0.5 and r["delta"] == (1e-6 if delta else 0.0)
    # sensitivity about 10 * 3.5 / 800: the noise is far below 10
    assert abs(r["answer"] - values.mean()) < 10


def test_discrete_gaussian_statement_holds_by_the_exact_curve():
    # The (epsilon, delta) spent comes from a zCDP conversion; the exact delta of
    # the discrete Gaussian (Canonne, Kamath & Steinke 2020, Thm. 7) at that
    # epsilon must be at most delta.
    est = sample_sensitivity(queries.mean, Normal(0, 1), 50, gamma=0.05, norm="l2",
                             random_state=0)
    for epsilon, delta in [(0.5, 1e-6), (1.0, 1e-9), (3.0, 1e-5)]:
        mech, statement, _ = build_mechanism("discrete-gaussian", est, epsilon,
                                             delta, None, 1)
        assert statement.epsilon <= epsilon
        assert statement.epsilon > 0.99 * epsilon  # no needless noise
        assert mech.delta(statement.epsilon) <= delta
        assert statement.gamma == est.gamma and statement.run == est.run


def test_noise_is_never_seeded_by_random_state(files):
    _, _, values = files
    a = release_statistic(values, "mean", POP, epsilon=1.0, random_state=5)
    b = release_statistic(values, "mean", POP, epsilon=1.0, random_state=5)
    assert a.estimate.sensitivity.value == b.estimate.sensitivity.value
    assert a.value != b.value


def test_library_validation_names_parameters(files):
    _, _, values = files
    with pytest.raises(ValueError, match="epsilon must be > 0.0, got epsilon=0.0"):
        release_statistic(values, "mean", POP, epsilon=0.0)
    with pytest.raises(ValueError, match="mechanism must be one of"):
        release_statistic(values, "mean", POP, epsilon=1.0, mechanism="exponential")
    with pytest.raises(ValueError, match="data must be finite") as info:
        release_statistic([1.0, math.nan, 987654.321], "mean", POP, epsilon=1.0)
    assert "987654" not in str(info.value)
    with pytest.raises(TypeError, match="budget must be None, a PrivacyFilter"):
        release_statistic(values, "mean", POP, epsilon=1.0, budget=3)
    with pytest.raises(TypeError, match="queries must be a sequence"):
        release_statistics(values, "mean", POP, epsilon=1.0)


def test_a_budget_that_is_also_the_default_is_spent_once(files):
    # issue 28: release_statistic(..., budget=F) inside default_filter(F) recorded
    # two entries per release.
    _, _, values = files
    f = PrivacyFilter(1.0, rule="basic")
    with default_filter(f):
        release_statistic(values, "mean", POP, epsilon=0.4, budget=f, random_state=0)
    assert f.count == 1 and f.spent.epsilon == 0.4
    # another default is still spent from, besides the explicit budget
    other = PrivacyFilter(1.0, rule="basic")
    with default_filter(other):
        release_statistic(values, "mean", POP, epsilon=0.4, budget=f, random_state=0)
    assert f.count == 2 and other.count == 1


def test_an_in_memory_filter_is_spent_all_or_nothing(files):
    _, _, values = files
    f = PrivacyFilter(1.0, rule="basic")
    release_statistic(values, "mean", POP, epsilon=0.4, budget=f)
    with pytest.raises(ExceededPrivacyBudgetError):
        release_statistics(values, ["mean", "median"], POP, epsilon=0.4, budget=f)
    assert f.count == 1 and f.spent.epsilon == 0.4


def test_parquet_data(tmp_path, capsys):
    pd = pytest.importorskip("pandas")
    import pyarrow  # noqa: F401  (in the test extra: Parquet is tested in every CI phase)
    values = np.random.default_rng(0).normal(170, 10, 300)
    path = str(tmp_path / "private.parquet")
    pd.DataFrame({"height": values}).to_parquet(path)
    code, out, err = _run(capsys, "--data", path, "--column", "height",
                          "--population", POP, "--epsilon", "1", "--json")
    assert code == 0, err
    assert _strict(out)["releases"][0]["n"] == 300


def test_a_matrix_answer_is_released_in_its_own_shape_and_spent_once():
    # The answer was flattened before the release: the mechanism, whose
    # sensitivity covers (2, 2), refused the (4,) vector after epsilon was spent.
    data = np.random.default_rng(0).normal(size=200)
    budget = PrivacyFilter(5.0, 0.0)
    release = release_statistic(
        data, lambda db: np.full((2, 2), db.mean()), Normal(), epsilon=1.0,
        budget=budget, random_state=0,
    )
    assert np.shape(release.value) == (2, 2)
    assert len(budget.ledger) == 1 and budget.spent.epsilon == 1.0


def test_an_answer_the_mechanism_refuses_spends_nothing():
    # A float release on the grid refuses a value beyond 2**52 grid steps: the
    # refusal now comes before sampling, before the budget is touched.
    data = np.random.default_rng(0).normal(size=200)
    budget = PrivacyFilter(5.0, 0.0)
    with pytest.raises(ValueError, match="is too fine for the answer .* float release"):
        release_statistic(
            # 1e8 / 1e-9 = 1e17 grid steps; the mean's change survives + 1e8
            # (a sampled sensitivity of 0 would be refused first, also unspent)
            data, lambda db: db.mean() + 1e8, Normal(), epsilon=1.0,
            mechanism="discrete-laplace", granularity=1e-9, budget=budget,
            random_state=0,
        )
    assert len(budget.ledger) == 0


# --------------------------------------------------- the population is a sample
def test_the_statement_says_what_a_bootstrap_rests_on(files, capsys):
    private, public, values = files
    code, out, err = _run(
        capsys, "--data", private, "--column", "height",
        "--population", f"bootstrap:{public}", "--epsilon", "0.5", "--seed", "7",
        "--json",
    )
    assert code == 0, err
    release = _strict(out)["releases"][0]
    assert release["basis"].startswith(
        "gamma for this public sample of 1500 rows at confidence 0.908 (smoothed Bayesian "
        "bootstrap, Rubin 1981"
    )
    assert release["guarantee"].endswith(release["basis"])
    r = release_statistic(values, "mean", POP, epsilon=0.5, random_state=0)
    assert r.basis == "" and "public sample" not in r.guarantee
    public_rows = np.random.default_rng(2).normal(170, 10, 300)
    r = release_statistic(values, "mean", public_rows, epsilon=0.5, random_state=0)
    assert r.basis.startswith("gamma for this public sample of 300 rows")
    r = release_statistic(
        values, "mean", Empirical(public_rows), epsilon=0.5, random_state=0
    )
    assert r.basis == ""  # a population given as such is used as given


def test_a_public_sample_too_small_is_refused_before_anything(files, tmp_path, capsys):
    private, _, values = files
    ledger = tmp_path / "ledger.json"
    base = ["--data", private, "--column", "height", "--epsilon", "0.5",
            "--budget-file", str(ledger), "--budget-epsilon", "1"]
    assert _run(capsys, *base, "--population", POP)[0] == 0
    before = ledger.read_bytes()
    for rows in (1, 39):
        tiny = _csv(tmp_path / f"tiny{rows}.csv", np.linspace(160, 180, rows))
        code, out, err = _run(capsys, *base, "--population", f"bootstrap:{tiny}")
        assert code == 2 and out == ""
        assert f"the public sample has {rows} row(s); a statement at gamma=0.04981 " \
            "needs at least 40" in err
        assert "add public rows, or use a population model" in err
        assert len(err.strip().splitlines()) == 1
    assert ledger.read_bytes() == before
    enough = _csv(tmp_path / "enough.csv", np.linspace(160, 180, 40) + 0.01)
    assert _run(capsys, *base, "--population", f"bootstrap:{enough}")[0] == 0
    with pytest.raises(ValueError, match="the public sample has 1 row"):
        release_statistic(values, "mean", PublicSample([170.0]), epsilon=1.0)


def test_the_private_file_as_its_own_population_is_refused(files, tmp_path, capsys):
    private, public, values = files
    ledger = tmp_path / "ledger.json"
    base = ["--data", private, "--column", "height", "--epsilon", "0.5",
            "--budget-file", str(ledger), "--budget-epsilon", "1"]
    assert _run(capsys, *base, "--population", POP)[0] == 0
    before = ledger.read_bytes()
    link = tmp_path / "link.csv"
    link.symlink_to(private)
    copy = tmp_path / "copy.csv"
    copy.write_bytes(open(private, "rb").read())
    shuffled = _csv(
        tmp_path / "shuffled.csv", np.random.default_rng(1).permutation(values)
    )
    head = _csv(tmp_path / "head.csv", values[:300])
    cases = [
        (private, "is the private data file"),
        (link, "is the private data file"),
        (copy, "has the same content as the private data file"),
        (shuffled, "are the private records (the same rows)"),
        (head, "are a contiguous block of the private records"),
    ]
    for path, message in cases:
        code, out, err = _run(capsys, *base, "--population", f"bootstrap:{path}")
        assert code == 2 and out == "", (path, err)
        assert message in err and len(err.strip().splitlines()) == 1, (path, err)
    assert ledger.read_bytes() == before
    # the Python function, with arrays
    budget = PrivacyFilter(1.0)
    for population in (Empirical(values), PublicSample(values[::-1])):
        with pytest.raises(ValueError, match="same rows"):
            release_statistic(values, "mean", population, epsilon=0.5, budget=budget)
    assert len(budget.ledger) == 0 and budget.spent.epsilon == 0.0


def test_a_grid_too_fine_for_the_noise_spends_nothing():
    # Before: the budget was spent, then the draw failed on a zero answer with a
    # false "probability below 2**-64" (the noise's margin exceeded 2**52 steps).
    f = PrivacyFilter(1.0, rule="basic")
    with pytest.raises(ValueError, match="too fine for a float release"):
        release_statistic(
            np.zeros(50), "mean", POP, epsilon=0.5, mechanism="discrete-laplace",
            granularity=1e-300, bounds=None, budget=f, random_state=0,
        )
    assert f.count == 0


def test_a_noise_scale_whose_draws_overflow_is_refused_and_nothing_spent():
    # Before: a sum over bounds (0, 1e303) at epsilon 1e-5 had a finite Laplace
    # scale near 9e307 and published inf about one time in five.
    data = np.random.default_rng(0).uniform(0, 1e303, 100)
    budget = PrivacyFilter(1.0, 1e-5)
    with pytest.raises(ValueError, match="a draw of its noise can overflow a double"):
        release_statistic(
            data, "sum", "uniform:low=0,high=1e303", epsilon=1e-5,
            bounds=(0, 1e303), budget=budget, random_state=0,
        )
    assert budget.spent.epsilon == 0.0 and len(budget.ledger) == 0


# ---------------------------------------------- quantile releases and release reports
# Audit findings on quantile releases and release reports: each test failed
# until its finding was fixed.


OUTLIER = 987654.321


def _exact_csv(path, values, column="height"):
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["id", column])
        writer.writerows((i, repr(float(v))) for i, v in enumerate(values))
    return str(path)


def test_the_private_file_as_population_publishes_no_record_of_it(tmp_path, capsys):
    """Audit finding: the private file given as the population (bootstrap:) was read as
    public rows, and the release exited 0 publishing its minimum and an outlier as
    bounds; it is refused (exit 2) and no record is printed."""
    heights = np.random.default_rng(20261126).normal(170, 10, 50)
    private = _exact_csv(tmp_path / "private.csv", [*heights, OUTLIER])
    code = main(["release", "--data", private, "--column", "height", "--population",
                 f"bootstrap:{private}", "--query", "median", "--epsilon", "0.5",
                 "--json"])
    out, err = capsys.readouterr()
    # measured: exit 0, "bounds": [<the minimum record>, 987654.321]
    assert code == 2 and out == "", out
    assert str(OUTLIER) not in out + err


@pytest.mark.slow
def test_a_report_cannot_overwrite_the_budget_it_spends_from(tmp_path):
    """Audit finding: a report naming the budget file replaced the ledger with the HTML
    page; the report is refused before anything is spent, or the ledger keeps what
    was spent."""
    ledger = str(tmp_path / "ledger.json")
    data = np.random.default_rng(20261126).normal(170, 10, 200)
    release_statistic(data, "median", POP, epsilon=0.5,
                      budget=BudgetFile(ledger, epsilon=1.0))
    try:
        release_statistic(data, "median", POP, epsilon=0.5, budget=ledger,
                          report=ledger)
    except ValueError:
        pass  # refused before anything is spent: what a fix may do
    try:
        spent = BudgetFile(ledger).filter().spent.epsilon
    except BudgetFileError:  # measured: the ledger is now the HTML page
        spent = None
    assert spent is not None and spent >= 0.5


@pytest.mark.slow
def test_a_secure_mechanism_choice_is_not_dropped_for_a_median():
    """Documented (docs/release.md): a quantile uses the exponential mechanism whatever
    --mechanism says, and that mechanism is now floating-point safe too: a public
    grid of outputs, sampled exactly from the secure generator. The release must say
    so, and its value must be a point of that grid."""
    data = np.random.default_rng(20261126).normal(170, 10, 200)
    r = release_statistic(data, "median", POP, epsilon=0.5,
                          mechanism="discrete-laplace")
    assert r.mechanism == "exponential"
    assert "sampled exactly on a grid of 16385 points" in r.noise
    assert "secure generator" in r.noise
    grid = ExponentialQuantileMechanism(0.5, r.bounds, 0.5).grid
    assert r.value in grid.tolist()


def test_several_releases_under_a_default_filter_are_all_or_nothing():
    """Audit finding: several releases under a default filter spent the first
    (epsilon=0.5, one ledger entry) and returned nothing when the second was refused;
    they are all or nothing."""
    data = np.random.default_rng(20261126).normal(170, 10, 200)
    budget = PrivacyFilter(0.6)
    with default_filter(budget), pytest.raises(ExceededPrivacyBudgetError):
        release_statistics(data, ["median", "quantile:0.9"], POP, epsilon=0.5)
    # measured: epsilon=0.5 spent, one ledger entry, no value returned
    assert len(budget.ledger) == 0


def test_a_different_default_filter_is_tried_before_the_budget_is_spent():
    """Audit finding: with a budget and a different default filter, the budget spent
    both releases and the default the first before the default refused; both are
    tried before either is spent."""
    data = np.random.default_rng(20261126).normal(170, 10, 200)
    budget, default = PrivacyFilter(10.0), PrivacyFilter(0.6)
    with default_filter(default), pytest.raises(ExceededPrivacyBudgetError):
        release_statistics(data, ["median", "quantile:0.9"], POP, epsilon=0.5,
                           budget=budget)
    # before: the budget spent both releases, the default the first one
    assert len(budget.ledger) == len(default.ledger) == 0


def test_a_prepared_release_displays_no_record_and_no_exact_answer():
    """Audit finding: a prepared release's repr showed its data and its exact answers
    ("data=array([... 213.579246])"); it displays neither."""
    planted = 213.579246
    data = np.append(np.random.default_rng(20261126).normal(170, 10, 20), planted)
    prepared = prepare_releases(data, ["mean"], POP, epsilon=1.0)
    exact = f"{np.mean(data):.6g}"
    shown = repr(prepared) + str(prepared)
    html = getattr(prepared, "_repr_html_", None)
    if html is not None:
        shown += html()
    # measured: "data=array([... 213.579246])", "answers=(array(172.36...),)"
    assert "213.579" not in shown
    assert exact[:6] not in shown


def test_a_report_naming_an_input_file_is_refused_before_any_spend(tmp_path, capsys):
    """Audit finding: a report path naming an input (the data under another name, a link
    to the budget file, the public population) would overwrite it; it is refused
    before any spend, exit 2."""
    heights = np.random.default_rng(20261126).normal(170, 10, 50)
    private = _exact_csv(tmp_path / "private.csv", heights)
    public = _exact_csv(tmp_path / "public.csv", heights + 1.0)
    ledger = str(tmp_path / "ledger.json")
    hard = str(tmp_path / "hard.csv")
    os.link(private, hard)  # the data under another name
    soft = str(tmp_path / "soft.json")
    os.symlink(ledger, soft)  # the budget file, not yet created
    # issue 37: a symbolic link is refused as such, whatever it leads to
    for report, what in ((hard, "--data"), (soft, "is a symbolic link"),
                         (public, "--population")):
        before = open(private).read(), open(public).read()
        code = main(["release", "--data", private, "--column", "height",
                     "--population", f"bootstrap:{public}", "--query", "mean",
                     "--epsilon", "0.5", "--budget-file", ledger,
                     "--budget-epsilon", "1", "--report", report])
        out, err = capsys.readouterr()
        assert code == 2 and what in err and "Traceback" not in err, err
        assert (open(private).read(), open(public).read()) == before
        assert not os.path.exists(ledger)  # nothing created, nothing spent


# --------------------------------- the report is checked before the budget is charged
# Issue 37, files the release writes (the commands' side: app/cli/test_cli.py): the
# Python release checks its report before the filter is charged.


HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def test_the_python_release_refuses_a_bad_report_before_spending(tmp_path):
    """release_statistics: the same check, before the filter is charged."""
    budget = PrivacyFilter(2.0)
    fifo = tmp_path / "r.html"
    os.mkfifo(fifo)
    for report in (fifo, tmp_path / ("r" * 300)):
        with pytest.raises(ValueError, match="report="):
            release_statistics(
                HEIGHTS.sample(50, random_state=0), ["mean"], HEIGHTS,
                epsilon=0.5, budget=budget, report=report,
            )
    assert budget.count == 0
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
