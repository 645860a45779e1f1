"""Audit findings on what a plan states (issue 37): a plan states what the
release will.

Findings (each test failed before its fix):

- ``sensampler plan --target-error`` answered an epsilon of 57 (worst case 572)
  without a word: a plan whose epsilon, or whose worst case, is beyond what
  anyone would call private (above 10) now says so in its text, card and JSON;
- the plan's worst-case line showed the cap (10 epsilon), not the worst case the
  planned release states: it now shows the release's own (built as the release
  builds its mechanism), equal to it on the release's seed;
- the plan's guarantee left out the public-sample wording the release prints
  (what gamma rests on for a bootstrap of public rows): it now says it, as the
  release does, and public rows given as an array are a public sample, as the
  release reads them.
"""

import json

import numpy as np
import pytest

from sensampler.app.cli import main
from sensampler.app.planning import NOT_PRIVATE_EPSILON, plan_release
from sensampler.app.release import release_statistic
from sensampler.distributions import GaussianMixture, LogNormal

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
INCOMES = LogNormal(10.5, 0.8)
N = 500
DATA = HEIGHTS.sample(N, random_state=1)
PUBLIC = HEIGHTS.sample(400, random_state=2)  # public rows, drawn apart from DATA


def _shown(plan):
    """The plan's text, card and JSON (strict), as one list."""
    out = json.dumps(plan.to_dict(), allow_nan=False)
    return [plan.text(), plan._repr_html_(), out]


def test_a_plan_beyond_what_anyone_calls_private_says_so(capsys):
    plan = plan_release("mean", HEIGHTS, N, target_error=0.001, runs=5, random_state=0)
    assert plan.epsilon > NOT_PRIVATE_EPSILON == 10.0
    assert plan.warning.startswith(f"epsilon={plan.epsilon:.6g}"[:12])
    for shown in _shown(plan):
        assert "beyond what anyone would call private (above 10)" in shown
    assert plan.to_dict()["warning"] == plan.warning
    # on the command line, the text says it first
    assert main(["plan", "--query", "mean", "--population", "heights", "--n", str(N),
                 "--target-error", "0.001", "--runs", "5", "--seed", "0"]) == 0
    line = capsys.readouterr().out.splitlines()[2]
    assert line.startswith("  WARNING") and "beyond what anyone would call" in line
    # a worst case beyond it, at a small epsilon: a wide range and a high cap
    wide = plan_release("mean", INCOMES, 1000, epsilon=1.0, bounds=(0.0, 1e7),
                        worst_case_epsilon=100.0, runs=3, random_state=0)
    assert wide.epsilon == 1.0 and wide.worst_case_epsilon > NOT_PRIVATE_EPSILON
    assert wide.warning.startswith("the worst case, epsilon=")
    for shown in _shown(wide):
        assert "beyond what anyone would call private" in shown
    # a private plan says nothing of the kind
    calm = plan_release("mean", HEIGHTS, N, epsilon=1.0, runs=5, random_state=0)
    assert calm.warning is None and calm.to_dict()["warning"] is None
    assert not any("beyond what anyone" in shown for shown in _shown(calm))


@pytest.mark.parametrize("mechanism,delta", [("laplace", 0.0), ("gaussian", 1e-6)])
@pytest.mark.parametrize("epsilon", [0.5, 5.7])
def test_the_worst_case_is_the_one_the_release_states(mechanism, delta, epsilon):
    # run 0 of the plan is the release's sampling run: the same worst case, which
    # the cap (10 epsilon) does not bind here
    settings = dict(epsilon=epsilon, delta=delta, mechanism=mechanism)
    plan = plan_release("mean", HEIGHTS, N, runs=1, random_state=0, **settings)
    release = release_statistic(DATA, "mean", HEIGHTS, random_state=0, **settings)
    stated = release.statement.worst_case.epsilon
    assert plan.worst_case_epsilon == stated < plan.worst_case_cap == 10 * epsilon
    assert plan.worst_case.startswith(release.worst_case), (plan.worst_case,
                                                            release.worst_case)
    # over more runs: the largest of the runs' (the release's among them)
    more = plan_release("mean", HEIGHTS, N, runs=20, random_state=0, **settings)
    assert stated <= more.worst_case_epsilon < 10 * epsilon
    assert "the largest over the 20 sampling runs" in more.worst_case


def test_the_guarantee_says_what_a_public_sample_rests_on(tmp_path):
    path = tmp_path / "public.csv"
    path.write_text("height\n" + "\n".join(f"{float(x)!r}" for x in PUBLIC) + "\n")
    spec = f"bootstrap:{path}"
    kw = dict(epsilon=1.0, random_state=0)
    plan = plan_release("mean", spec, N, column="height", runs=1, **kw)
    release = release_statistic(DATA, "mean", spec, column="height", **kw)
    assert "public sample of 400 rows" in release.guarantee
    assert plan.guarantee == release.guarantee
    assert plan.basis in plan.text() and plan.to_dict()["basis"] == plan.basis
    # public rows as an array: a public sample, for the plan as for the release
    rows = plan_release("mean", np.asarray(PUBLIC), N, runs=1, **kw)
    released = release_statistic(DATA, "mean", np.asarray(PUBLIC), **kw)
    assert rows.guarantee == released.guarantee == release.guarantee


def test_a_quantile_s_guarantee_says_what_a_public_sample_rests_on():
    # the exponential mechanism's scale, calibrated on the public sample's
    # posterior populations (few records: the calibration runs on each)
    kw = dict(epsilon=1.0, random_state=0)
    plan = plan_release("median", np.asarray(PUBLIC), 40, runs=1, **kw)
    release = release_statistic(DATA[:40], "median", np.asarray(PUBLIC), **kw)
    assert "public sample of 400 rows" in release.guarantee
    assert plan.guarantee == release.guarantee
