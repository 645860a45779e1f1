"""A plan follows the release's bounds and worst-case floor (plan_release's
``bounds`` for every query, and ``worst_case_epsilon``).

Before: the plan sampled unclipped databases and ignored the floor, so a release
whose noise the floor raised was planned with the noise of its sampled
sensitivity alone (a lognormal mean capped at 1.2: 303 planned, 416 released),
and ``worst_case_epsilon`` was not a parameter.
"""

import dataclasses
import json
import math

import numpy as np
import pytest
from scipy import stats

from sensampler import queries
from sensampler._lib import printing
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
    assert plan.bounds == WIDE and plan.bounds_source == "[0, 10000000] (given)"


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
    assert release.noise == f"Laplace noise of scale {printing.sensitivity(noise)}"
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


@pytest.mark.slow
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
    assert "[0, 10000000] (given)" in html and "at most epsilon=1-DP for every pair" in html
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
    assert "--worst-case-epsilon" in capsys.readouterr().err


# ------------------------------------------ the release's bounds and worst-case floor
# An outside audit of plans that follow the release's bounds and worst-case floor
# (plan_release's ``bounds`` and ``worst_case_epsilon``, ``sensampler plan --bounds
# --worst-case-epsilon``).
#
# Findings (each test failed before its fix):
#
# - a quantile capped below epsilon (``worst_case_epsilon=0.5``, epsilon 1) is
#   released, stated and spent at the cap; the plan's guarantee said epsilon=1;
# - a quantile's sampled scale: the plan stated the worst case of the scale sampled
#   on its own pairs (seed 7: 1.18921), the release samples its own and stated more
#   (1.24186): the plan now states the most the release may state (the largest
#   candidate scale under the cap);
# - bad ``bounds`` strings, and a population model that gives ``"auto"`` no width,
#   were refused with messages offering ``private:EPS0`` (which a plan refuses) or
#   naming ``low`` instead of ``bounds``; ``" AUTO "`` was
#   refused on the command line, where ``" None "`` was accepted;
# - a cap whose floor overflows (``worst_case_epsilon=1e-320``), or a noise scale
#   that overflows at the planned epsilon, crashed in the root finder ("The function
#   value at x=inf is NaN") where the release refuses with a clear message;
# - a target below the floor of a fixed cap was refused as needing "an epsilon
#   outside [1e-06, 1e+06]", where no epsilon reaches it: the cap does not allow it;
# - a ReleasePlan built by hand could state a worst case without bounds, a NaN,
#   negative or infinite cap, bad bounds or NaN errors (not strict JSON), and a
#   worst case that contradicts its mechanism.
#
# What holds is written as tests too (the last section).


FLOOR_N = 200
FLOOR_DATA = HEIGHTS.sample(FLOOR_N, random_state=1)
CLI = ["plan", "--query", "mean", "--population", "normal:loc=0,scale=1", "--n",
       "100", "--epsilon", "1", "--runs", "2", "--seed", "0"]


def _floor_release(query, **kw):
    kw.setdefault("random_state", 0)
    return release_statistic(FLOOR_DATA, query, population=HEIGHTS, **kw)


def test_a_quantile_capped_below_epsilon_states_the_epsilon_the_release_states():
    """Finding: a quantile capped below epsilon (worst_case_epsilon=0.5, epsilon 1) is
    released, stated and spent at the cap; the plan's guarantee said epsilon=1."""
    kw = dict(epsilon=1.0, worst_case_epsilon=0.5)
    plan = plan_release("median", HEIGHTS, FLOOR_N, runs=3, random_state=0, **kw)
    release = _floor_release("median", **kw)
    assert release.statement.epsilon == 0.5  # released, stated and spent at the cap
    assert plan.guarantee == release.guarantee  # before: epsilon=1-DP
    assert "epsilon=0.5-DP" in plan.text() and "epsilon=0.5-DP" in plan._repr_html_()
    assert "epsilon=0.5-DP" in plan.to_dict()["guarantee"]
    assert plan.stated_epsilon == plan.to_dict()["stated_epsilon"] == 0.5
    words = "the plain mechanism at the cap: states and spends epsilon=0.5-DP"
    assert words in plan.text() and words in plan._repr_html_()


@pytest.mark.slow
def test_a_sampled_quantile_scale_states_the_most_the_release_may_state():
    """Finding: the plan stated the worst case of the scale sampled on its own pairs,
    where the release samples its own and stated more; the plan states the most the
    release may state (the largest candidate scale under the cap)."""
    # seed 7: the plan's pairs give the scale 2^(-1/4) (worst case 1.18921), the
    # release's own pairs the next one up (1.24186)
    plan = plan_release("median", HEIGHTS, FLOOR_N, epsilon=1.0, runs=2, random_state=7)
    release = _floor_release("median", epsilon=1.0, random_state=7)
    assert release.statement.worst_case.epsilon == pytest.approx(1.241857812073484)
    assert plan.worst_case_epsilon >= release.statement.worst_case.epsilon
    # the largest candidate scale, 2 t0 = 4 epsilon / 2: a worst case of 4 epsilon
    assert plan.worst_case_epsilon == 4.0
    assert plan.worst_case.startswith("at most epsilon=4-DP for every pair")
    # under a cap, the largest candidate within it: 2^(-7/16) * 2
    capped = plan_release("median", HEIGHTS, FLOOR_N, epsilon=1.0, worst_case_epsilon=1.5,
                          runs=2, random_state=7)
    assert capped.worst_case_epsilon == pytest.approx(2 * 2 ** (-7 / 16), rel=1e-15)
    assert 1.0 < capped.worst_case_epsilon <= 1.5


@pytest.mark.parametrize(
    "text", ["2:1", "1:1", "a:b", "", "1:2:3", "nan:1", "inf:1", "private:abc",
             "private:1", " Private:1"],
)
def test_bad_bounds_strings_name_bounds_and_never_offer_private_bounds(text):
    """Finding: bad bounds strings were refused with messages offering private:EPS0
    (which a plan refuses) or naming low instead of bounds."""
    with pytest.raises(ValueError) as info:
        prepare_plan("mean", HEIGHTS, FLOOR_N, epsilon=1.0, bounds=text)
    message = str(info.value)
    assert "bounds" in message and repr(text) in message, message
    # a plan refuses private bounds: no message may suggest them
    assert "--bounds private" not in message and "or 'private:EPS0'" not in message
    if text.strip().lower().startswith("private:"):
        assert "a plan never reads" in message


def test_the_bounds_words_are_read_by_the_one_parser():
    """Sensampler.settings.parse_bounds reads every bounds setting: its words in any
    case, with spaces around them (before, the plan refused " AUTO " and "none",
    which the command line and a release's settings take)"""
    kw = dict(epsilon=1.0, runs=1, random_state=0)
    assert plan_release("mean", HEIGHTS, FLOOR_N, bounds="none", **kw).bounds is None
    auto = plan_release("mean", HEIGHTS, FLOOR_N, bounds=" AUTO ", **kw)
    assert auto == plan_release("mean", HEIGHTS, FLOOR_N, **kw)


def test_a_population_that_gives_auto_no_width_does_not_offer_private_bounds():
    """Finding: a population model that gives "auto" no width was refused with a message
    offering private bounds, which a plan never reads."""
    with pytest.raises(ValueError) as info:
        prepare_plan("mean", np.full(50, 5.0), FLOOR_N, epsilon=1.0)
    message = str(info.value)
    assert "no width" in message and "bounds='auto'" in message, message
    assert "private" not in message.replace("a plan reads no private data", "")


def test_bad_bounds_are_refused_before_the_population_is_read(tmp_path):
    """Before: the population file was read first (here: its absence reported)"""
    with pytest.raises(ValueError, match="got bounds='a:b'"):
        prepare_plan("mean", f"bootstrap:{tmp_path / 'absent.csv'}", FLOOR_N, epsilon=1.0,
                     bounds="a:b")


@pytest.mark.parametrize("text", ["2:1", "a:b", "nan:1", "private:abc", ""])
def test_bad_bounds_on_the_command_line_exit_2_with_one_line(text, capsys):
    """Finding, on the command line: bad --bounds exit 2 with one line that names bounds
    and never suggests --bounds private."""
    assert main(CLI + [f"--bounds={text}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "bounds" in err and "--bounds private" not in err


def test_auto_and_none_are_read_alike_on_the_command_line(capsys):
    """Finding: " AUTO " was refused on the command line, where " None " was accepted;
    it is read as auto."""
    assert main(CLI + ["--bounds", " AUTO ", "--json"]) == 0
    spaced = json.loads(capsys.readouterr().out)
    assert main(CLI + ["--json"]) == 0
    assert spaced == json.loads(capsys.readouterr().out)


def test_a_cap_whose_floor_overflows_is_refused_before_drawing(capsys):
    """The release refuses it ("the noise scale ... is not finite"); before, the plan
    crashed in the root finder."""
    with pytest.raises(ValueError, match=r"worst_case_epsilon=1e-320.*not finite"):
        prepare_plan("mean", HEIGHTS, FLOOR_N, epsilon=1.0, worst_case_epsilon=1e-320)
    with pytest.raises(ValueError, match="not finite"):
        _floor_release("mean", epsilon=1.0, worst_case_epsilon=1e-320)
    assert main(CLI + ["--worst-case-epsilon", "1e-320"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "worst_case_epsilon=1e-320" in err


@pytest.mark.parametrize("measure", ["mean", 0.9])
def test_a_noise_scale_that_overflows_is_refused_as_the_release_refuses_it(measure):
    """Finding: a noise scale that overflows at the planned epsilon crashed the plan in
    the root finder; the plan refuses it as the release does, and still solves a
    target where the scales are finite."""
    # a worst case of 1e304 at epsilon 1e-6: a floor of 1e304 / 1e-5 = 1e309
    kw = dict(epsilon=1e-6, bounds=(0.0, 1e304))
    with pytest.raises(ValueError, match=r"worst_case=1e\+304, epsilon=1e-06 .*not finite"):
        prepare_plan("sum", HEIGHTS, FLOOR_N, measure=measure, **kw)
    with pytest.raises(ValueError, match="not finite"):
        _floor_release("sum", **kw)
    # a floor of 1e308: finite, but its draws can overflow (above
    # LARGEST_NOISE_SCALE): the release refuses it, and so does the plan
    kw = dict(epsilon=1e-6, bounds=(0.0, 1e303))
    with pytest.raises(ValueError, match="can overflow a double"):
        plan_release("sum", HEIGHTS, FLOOR_N, runs=2, random_state=0, measure=measure, **kw)
    with pytest.raises(ValueError, match="can overflow a double"):
        _floor_release("sum", **kw)
    # a target that such scales cannot meet is still solved where they are finite
    plan = plan_release("sum", HEIGHTS, FLOOR_N, target_error=1e300, bounds=(0.0, 1e303),
                        runs=2, random_state=0, measure=measure)
    assert math.isfinite(plan.epsilon) and plan.error_90 > 0


@pytest.mark.parametrize("query", ["mean", "median"])
def test_a_target_below_a_fixed_cap_s_floor_names_the_cap(query):
    """Finding: a target below the floor of a fixed cap was refused as needing "an
    epsilon outside [1e-06, 1e+06]", where no epsilon reaches it; the message names
    the cap."""
    with pytest.raises(ValueError) as info:
        plan_release(query, HEIGHTS, FLOOR_N, target_error=1e-3, worst_case_epsilon=0.5,
                     runs=3, random_state=0)
    message = str(info.value)
    assert "worst_case_epsilon=0.5" in message and "at any epsilon" in message, message
    assert "needs an epsilon outside" not in message


def _plans():
    mean = plan_release("mean", HEIGHTS, FLOOR_N, epsilon=1.0, runs=2, random_state=0)
    median = plan_release("median", HEIGHTS, FLOOR_N, epsilon=1.0, runs=2, random_state=0)
    plain = plan_release("median", HEIGHTS, FLOOR_N, epsilon=1.0, runs=2, random_state=0,
                         worst_case_epsilon=1.0)
    return mean, median, plain


@pytest.mark.slow
def test_a_plan_built_by_hand_cannot_state_a_worst_case_it_does_not_carry():
    """Finding: a ReleasePlan built by hand could state a worst case without bounds, a
    NaN, negative or infinite cap, bad bounds or NaN errors (not strict JSON), and a
    worst case that contradicts its mechanism."""
    mean, median, plain = _plans()
    bad = [
        (mean, dict(worst_case_epsilon=math.nan)),
        (mean, dict(worst_case_epsilon=-1.0)),
        (mean, dict(worst_case_epsilon=math.inf)),
        (mean, dict(bounds=None, bounds_source=None)),  # a worst case needs bounds
        (mean, dict(bounds=(2.0, 1.0))),
        (mean, dict(bounds=(math.nan, 1.0))),
        (mean, dict(bounds=(1.0, 2.0, 3.0))),
        (mean, dict(epsilon=math.nan)),
        (mean, dict(expected_error=math.nan)),
        (mean, dict(error_90=math.inf)),
        (median, dict(worst_case_epsilon=0.5)),  # a sampled scale is above epsilon
        (median, dict(worst_case_epsilon=math.nan)),
        (plain, dict(worst_case_epsilon=4.0)),  # the plain mechanism is its epsilon
        (mean, dict(worst_case_cap=mean.worst_case_epsilon / 2)),  # above its cap
        (mean, dict(worst_case_cap=math.nan)),
        (mean, dict(worst_case_epsilon=None)),  # a cap on no worst case
        (median, dict(worst_case_cap=4.0)),  # the exponential mechanism has none
    ]
    for plan, change in bad:
        with pytest.raises((ValueError, TypeError)):
            dataclasses.replace(plan, **change)
    # what a plan may carry: no worst case at all, or none without bounds
    no_cap = dict(worst_case_epsilon=None, worst_case_cap=None)
    assert dataclasses.replace(mean, **no_cap).worst_case is None
    assert dataclasses.replace(mean, bounds=None, **no_cap).bounds is None


# ------------------------------------------------------------------------- what holds


def _rebuilt(release, mechanism, epsilon, delta, cap):
    """The release's own noise, from its estimate: E|noise| and its worst case."""
    if mechanism == "laplace":
        return float(np.max(LaplaceMechanism(release.estimate, epsilon, cap).scale))
    sigma = GaussianMechanism(release.estimate, epsilon, delta,
                              worst_case_epsilon=cap).sigma
    return float(np.max(sigma)) * math.sqrt(2.0 / math.pi)


@pytest.mark.parametrize("mechanism,delta", [("laplace", 0.0), ("gaussian", 1e-6)])
@pytest.mark.parametrize("query", ["mean", "count", "histogram:5:140:200", "variance"])
@pytest.mark.parametrize(
    "kw",
    [{}, {"worst_case_epsilon": 0.3}, {"worst_case_epsilon": 50.0},
     {"neighbours": "add-remove"}, {"bounds": (0.0, 1e4), "worst_case_epsilon": 1.0}],
)
def test_one_run_plans_the_release_s_noise_exactly(mechanism, delta, query, kw):
    """What holds: a plan of one run plans the release's own noise exactly, and states
    the worst case the release states (before: the cap) and its guarantee."""
    # run 0 of the plan is the release's sampling run (child 0 of the same seed)
    settings = dict(epsilon=1.0, delta=delta, mechanism=mechanism, **kw)
    plan = plan_release(query, HEIGHTS, FLOOR_N, runs=1, random_state=0, **settings)
    release = _floor_release(query, **settings)
    noise = _rebuilt(release, mechanism, 1.0, delta, kw.get("worst_case_epsilon"))
    assert plan.expected_error == pytest.approx(noise, rel=1e-12)
    # the plan's worst case is the one the release states (before: the cap,
    # which the release's stays within), and its guarantee the release's
    assert plan.worst_case_epsilon == release.statement.worst_case.epsilon
    assert plan.worst_case_cap == kw.get("worst_case_epsilon", 10.0)
    assert plan.guarantee == release.guarantee
    assert plan.bounds == (release.bounds.low, release.bounds.high)


def _trimmed_mean(x):
    return float(np.mean(np.sort(np.asarray(x))[5:-5]))


@pytest.mark.parametrize("mechanism,delta", [("laplace", 0.0), ("gaussian", 1e-6)])
def test_a_vector_query_and_one_with_no_worst_case_are_planned_as_released(
    mechanism, delta
):
    """What holds: a vector query (two quantiles: a worst case, the floor binding at a
    cap of 0.3) and a callable (no worst case, no floor) are planned as they are
    released."""
    # two quantiles at once: a sampled sensitivity with a worst case (the floor
    # binds at a cap of 0.3); a callable: no worst case, no floor, whatever the cap
    for query, worst in [(queries.quantile([0.25, 0.75]), True), (_trimmed_mean, False)]:
        settings = dict(epsilon=1.0, delta=delta, mechanism=mechanism,
                        worst_case_epsilon=0.3)
        plan = plan_release(query, HEIGHTS, FLOOR_N, runs=1, random_state=0, **settings)
        release = _floor_release(query, **settings)
        noise = _rebuilt(release, mechanism, 1.0, delta, 0.3)
        assert plan.expected_error == pytest.approx(noise, rel=1e-12)
        stated = release.statement.worst_case
        assert (stated is not None) == worst == (plan.worst_case_cap == 0.3)
        assert plan.worst_case_epsilon == (None if stated is None else stated.epsilon)


def test_without_bounds_the_plan_has_no_floor_as_the_release():
    """What holds: without bounds neither the plan nor the release has a worst case or a
    floor, and a sampled sensitivity of 0 is refused by both."""
    plan = plan_release("mean", HEIGHTS, FLOOR_N, epsilon=1.0, bounds=None, runs=1,
                        random_state=0, worst_case_epsilon=0.01)
    release = _floor_release("mean", epsilon=1.0, bounds=None, worst_case_epsilon=0.01)
    assert release.statement.worst_case is None and plan.worst_case is None
    assert plan.expected_error == pytest.approx(
        LaplaceMechanism(release.estimate, 1.0).scale, rel=1e-12
    )
    # a sampled 0 without bounds is refused by both
    with pytest.raises(ValueError, match="every sampled sensitivity of count"):
        plan_release("count", HEIGHTS, FLOOR_N, epsilon=1.0, bounds=None, runs=2,
                     random_state=0)


@pytest.mark.slow
@pytest.mark.parametrize(
    "query,neighbours", [("median", "replace-one"), ("quantile:0.9", "add-remove")]
)
def test_the_quantile_plan_at_every_cap_matches_the_release_s_rule(query, neighbours):
    """What holds: at every cap a quantile's plan follows the release's rule (the plain
    mechanism at or below epsilon, a sampled scale within the cap above it) and
    states at least what the release states."""
    # cap < epsilon: plain at the cap; cap == epsilon: plain; cap between epsilon
    # and 4 epsilon: a sampled scale within it; above: at most 4 epsilon
    for cap, plain in [(0.5, True), (1.0, True), (1.5, False), (3.0, False),
                       (20.0, False)]:
        kw = dict(epsilon=1.0, worst_case_epsilon=cap, neighbours=neighbours)
        plan = plan_release(query, HEIGHTS, FLOOR_N, runs=2, random_state=0, **kw)
        release = _floor_release(query, **kw)
        assert plan.guarantee == release.guarantee
        assert (plan.gamma is None) == plain == (release.statement.run is None)
        stated = release.statement.epsilon if plain else (
            release.statement.worst_case.epsilon)
        assert stated <= plan.worst_case_epsilon <= min(cap, 4.0)


@pytest.mark.slow
def test_a_target_is_solved_below_a_quantile_s_cap_and_states_it():
    """What holds: a target error is solved at an epsilon below a quantile's cap, with a
    sampled scale within the cap."""
    plan = plan_release("median", HEIGHTS, FLOOR_N, target_error=1.0, worst_case_epsilon=0.5,
                        runs=3, random_state=0)
    assert plan.expected_error <= 1.0 and plan.epsilon < 0.5
    assert plan.gamma is not None and plan.epsilon < plan.worst_case_epsilon <= 0.5


@pytest.mark.slow
@pytest.mark.parametrize("query", ["mean", "median"])
def test_the_same_seed_gives_the_same_plan_whatever_n_jobs(query):
    """What holds: the same seed gives the same plan whatever n_jobs."""
    kw = dict(epsilon=1.0, runs=3, random_state=5, worst_case_epsilon=2.0)
    one = plan_release(query, HEIGHTS, FLOOR_N, n_jobs=1, **kw)
    two = plan_release(query, HEIGHTS, FLOOR_N, n_jobs=2, **kw)
    assert one == two and one.sensitivities == two.sensitivities
    assert one.to_dict() == plan_release(query, HEIGHTS, FLOOR_N, **kw).to_dict()


@pytest.mark.parametrize("value", ["0", "-1", "nan", "inf"])
def test_a_bad_cap_on_the_command_line_exits_2_with_one_line(value, capsys):
    """What holds: a bad --worst-case-epsilon exits 2 with one line naming the
    flag as typed."""
    assert main(CLI + [f"--worst-case-epsilon={value}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--worst-case-epsilon" in err


@pytest.mark.slow
def test_text_card_and_json_say_the_same_bounds_and_worst_case(capsys):
    """What holds: a plan's text, card and JSON state the same bounds and worst case, on
    the command line as in Python."""
    for query in ("mean", "median"):
        args = ["plan", "--query", query, "--population",
                "heights", "--n", str(FLOOR_N),
                "--epsilon", "1", "--runs", "2", "--seed", "0",
                "--bounds", "140:210", "--worst-case-epsilon", "1.5"]
        assert main(args + ["--json"]) == 0
        out = json.loads(capsys.readouterr().out, parse_constant=pytest.fail)
        plan = plan_release(query, HEIGHTS, FLOOR_N, epsilon=1.0, runs=2, random_state=0,
                            bounds=(140, 210), worst_case_epsilon=1.5)
        assert out["worst_case"] == plan.worst_case and out["bounds"] == [140.0, 210.0]
        for shown in (plan.text(), plan._repr_html_()):
            assert plan.worst_case in shown and "[140, 210] (given)" in shown


@pytest.mark.slow
def test_a_plan_built_by_hand_states_a_delta_its_mechanism_takes():
    """Before: a Laplace or exponential plan accepted delta > 0 (and a Gaussian plan
    delta = 0 or NaN), stating a guarantee its release cannot give."""
    mean, median, _ = _plans()
    gaussian = plan_release("mean", HEIGHTS, FLOOR_N, epsilon=1.0, delta=1e-6,
                            mechanism="gaussian", runs=2, random_state=0)
    bad = [
        (mean, dict(delta=1e-5)),
        (mean, dict(delta=-0.0 - 1.0)),
        (median, dict(delta=1e-5)),
        (gaussian, dict(delta=0.0)),
        (gaussian, dict(delta=math.nan)),
        (gaussian, dict(delta=1.0)),
    ]
    for plan, change in bad:
        with pytest.raises(ValueError, match="delta"):
            dataclasses.replace(plan, **change)
    assert dataclasses.replace(gaussian, delta=1e-9).delta == 1e-9
