"""A plan follows the release's bounds and worst-case floor (plan_release's
``bounds`` for every query, and ``worst_case_epsilon``).

Before: the plan sampled unclipped databases and ignored the floor, so a release
whose noise the floor raised was planned with the noise of its sampled
sensitivity alone (a lognormal mean capped at 1.2: 303 planned, 416 released),
and ``worst_case_epsilon`` was not a parameter.
"""

import json
import math

import pytest
from scipy import stats

from sensampler.app.cli import main
from sensampler.app.planning import plan_release, prepare_plan
from sensampler.app.release import release_statistic
from sensampler.distributions import GaussianMixture, LogNormal
from sensampler.mechanisms import GaussianMechanism, LaplaceMechanism
from sensampler.mechanisms.gaussian import analytic_gaussian_sigma

INCOMES = LogNormal(10.5, 0.8)
HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
N = 1000
WIDE = (0.0, 1e7)  # worst-case sensitivity of the mean 1e7 / N = 1e4, far above sampled


def _release(mechanism="laplace", **kw):
    data = INCOMES.sample(N, random_state=1)
    return release_statistic(data, "mean", population=INCOMES, random_state=0,
                             mechanism=mechanism, **kw)


def test_a_floor_that_binds_is_the_planned_error_laplace():
    plan = plan_release("mean", INCOMES, N, epsilon=1.0, bounds=WIDE,
                        worst_case_epsilon=1.0, runs=20, random_state=0)
    release = _release(epsilon=1.0, bounds=WIDE, worst_case_epsilon=1.0)
    # the release's own mechanism, rebuilt from its estimate
    scale = LaplaceMechanism(release.estimate, 1.0, 1.0).scale
    assert release.noise == f"Laplace noise of scale {scale:.6g}"
    assert scale == pytest.approx(1e4, rel=1e-12)  # the floor: 1e4 / 1
    # E|Laplace(b)| = b; the 90% error is b log 10
    assert plan.expected_error == pytest.approx(scale, rel=1e-12)
    assert plan.error_90 == pytest.approx(scale * math.log(10.0), rel=1e-9)
    assert plan.worst_case_epsilon == release.statement.worst_case.epsilon == 1.0
    assert plan.bounds == WIDE and plan.bounds_source == "[0, 1e+07] (given)"


def test_a_floor_that_binds_is_the_planned_error_gaussian():
    plan = plan_release("mean", INCOMES, N, epsilon=1.0, delta=1e-6,
                        mechanism="gaussian", bounds=WIDE, worst_case_epsilon=2.0,
                        runs=20, random_state=0)
    release = _release("gaussian", epsilon=1.0, delta=1e-6, bounds=WIDE,
                       worst_case_epsilon=2.0)
    sigma = GaussianMechanism(release.estimate, 1.0, 1e-6, worst_case_epsilon=2.0).sigma
    assert release.noise == f"Gaussian noise of sigma {sigma:.6g}"
    assert sigma == pytest.approx(1e4 * analytic_gaussian_sigma(2.0, 1e-6), rel=1e-9)
    assert plan.expected_error == pytest.approx(sigma * math.sqrt(2 / math.pi), rel=1e-9)
    assert plan.error_90 == pytest.approx(sigma * stats.norm.ppf(0.95), rel=1e-6)
    # the floor binds on every run: each states the release's worst case
    assert plan.worst_case_epsilon == release.statement.worst_case.epsilon <= 2.0
    assert plan.worst_case_cap == 2.0
    assert release.worst_case.split(",")[0] in plan.text()


def test_the_default_cap_and_model_bounds_are_the_release_s():
    # Population bounds and a cap of 10 epsilon by default, as release_statistic.
    plan = plan_release("mean", INCOMES, N, epsilon=1.0, runs=10, random_state=0)
    release = _release(epsilon=1.0)
    assert plan.bounds == (release.bounds.low, release.bounds.high)
    assert plan.bounds_source == release.bounds.describe()
    # the release's worst case (its run is the plan's first), within the cap
    assert release.statement.worst_case.epsilon <= plan.worst_case_epsilon < 10.0
    assert plan.worst_case_cap == 10.0
    # A cap of 1.2 binds on most runs: the planned error is about the release's.
    capped = plan_release("mean", INCOMES, N, epsilon=1.0, worst_case_epsilon=1.2,
                          runs=10, random_state=0)
    release = _release(epsilon=1.0, worst_case_epsilon=1.2)
    noise = LaplaceMechanism(release.estimate, 1.0, 1.2).scale
    assert release.noise == f"Laplace noise of scale {noise:.6g}"
    assert capped.expected_error >= noise * (1 - 1e-12) > 1.3 * plan.expected_error


def test_a_target_is_solved_through_the_floor_and_refused_below_it():
    # A fixed cap of 1 holds the noise at a scale of at least 1e4 at any epsilon:
    # a target above it is reached at a small epsilon (the sampled sensitivity's
    # scale, about 300 / epsilon, above the floor); one below it never is.
    kw = dict(bounds=WIDE, worst_case_epsilon=1.0, runs=5, random_state=0)
    plan = plan_release("mean", INCOMES, N, target_error=2e4, **kw)
    again = plan_release("mean", INCOMES, N, epsilon=plan.epsilon, **kw)
    assert again.expected_error == pytest.approx(2e4, rel=1e-9)
    with pytest.raises(ValueError, match=r"target_error=5000\.0 is below the error "
                       r"the cap worst_case_epsilon=1\.0 allows at any epsilon"):
        plan_release("mean", INCOMES, N, target_error=5e3, **kw)


def test_no_bounds_plan_the_release_without_a_floor():
    plan = plan_release("mean", HEIGHTS, 500, epsilon=1.0, bounds=None, runs=5,
                        random_state=0)
    assert plan.bounds is None and plan.worst_case_epsilon is None
    assert plan.worst_case is None and "worst case" not in plan.text()
    # a quantile without bounds is released like any statistic, and planned so
    median = plan_release("median", HEIGHTS, 500, epsilon=1.0, bounds=None, runs=5,
                          random_state=0)
    assert median.mechanism == "laplace" and median.sensitivity > 0


def test_a_quantile_plan_keeps_the_cap():
    plain = plan_release("median", HEIGHTS, 500, epsilon=1.0, worst_case_epsilon=1.0,
                         runs=5, random_state=0)
    sampled = plan_release("median", HEIGHTS, 500, epsilon=1.0, runs=5, random_state=0)
    # a cap at epsilon: the plain mechanism, as the release answers it
    assert plain.gamma is None and plain.worst_case_epsilon == 1.0
    assert sampled.gamma is not None and 1.0 < sampled.worst_case_epsilon <= 4.0
    assert plain.expected_error > sampled.expected_error
    release = release_statistic(HEIGHTS.sample(500, random_state=1), "median",
                                population=HEIGHTS, epsilon=1.0, random_state=0,
                                worst_case_epsilon=1.0)
    assert release.statement.run is None  # plain: no gamma
    # a cap between: the scale keeps within it
    mid = plan_release("median", HEIGHTS, 500, epsilon=1.0, worst_case_epsilon=1.1,
                       runs=5, random_state=0)
    assert mid.worst_case_epsilon <= 1.1


@pytest.mark.parametrize("value", [0.0, -1.0, math.nan, math.inf, "2_0", "x"])
def test_a_bad_cap_is_refused_before_drawing(value):
    with pytest.raises((ValueError, TypeError), match="worst_case_epsilon must be"):
        prepare_plan("mean", HEIGHTS, 500, epsilon=1.0, worst_case_epsilon=value)


def test_private_bounds_are_refused():
    with pytest.raises(ValueError, match="a plan never reads"):
        prepare_plan("mean", HEIGHTS, 500, epsilon=1.0, bounds="private:1")


def test_the_card_and_json_show_the_bounds_and_the_worst_case():
    plan = plan_release("mean", INCOMES, N, epsilon=1.0, bounds=WIDE,
                        worst_case_epsilon=1.0, runs=5, random_state=0)
    html = plan._repr_html_()
    assert "[0, 1e+07] (given)" in html and "at most epsilon=1-DP for every pair" in html
    out = plan.to_dict()
    assert out["bounds"] == list(WIDE) and out["worst_case_epsilon"] == 1.0
    assert out["worst_case"] == (
        "at most epsilon=1-DP for every pair of replace-one neighbours, records "
        "clipped to the bounds (the cap: the noise is raised to meet it)"
    )
    json.dumps(out, allow_nan=False)


def test_the_command_line_plans_the_floor(capsys):
    args = ["plan", "--query", "mean", "--population", "lognormal:mu=10.5,sigma=0.8",
            "--n", str(N), "--epsilon", "1", "--runs", "5", "--seed", "0"]
    assert main(args + ["--bounds", "0:1e7", "--worst-case-epsilon", "1", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["expected_error"] == pytest.approx(1e4, rel=1e-12)
    assert out["worst_case_epsilon"] == 1.0 and out["bounds"] == [0.0, 1e7]
    assert main(args + ["--bounds", "none", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["bounds"] is None
    assert main(args + ["--bounds", "private:1"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a plan never reads" in err
    assert main(args + ["--worst-case-epsilon", "0"]) == 2
    assert "worst_case_epsilon" in capsys.readouterr().err
