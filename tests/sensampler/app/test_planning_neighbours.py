"""plan_release and ``sensampler plan`` under add/remove neighbours, as release has them."""

import json
import re

import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler.app.cli import main
from sensampler.app.planning import plan_release
from sensampler.distributions import GaussianMixture
from sensampler.parallel import child_seed
from sensampler.privacy import NEIGHBOURS

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])


def test_the_sampled_plan_draws_add_remove_pairs():
    # Before: neighbours= was not a parameter (the plan was replace-one only).
    plan = plan_release("mean", HEIGHTS, 300, epsilon=1.0, runs=4, random_state=7,
                        neighbours="add-remove")
    root = np.random.SeedSequence(7)
    expected = [
        float(sample_sensitivity(queries.mean, HEIGHTS, 300, gamma=0.05, norm="l1",
                                 neighbours="add-remove",
                                 random_state=child_seed(root, i)).sensitivity.value)
        for i in range(4)
    ]
    assert list(plan.sensitivities) == expected
    assert plan.neighbours == "add-remove" and plan.to_dict()["neighbours"] == "add-remove"
    assert "for add-remove neighbours (n=300 records, published" in plan.guarantee
    default = plan_release("mean", HEIGHTS, 300, epsilon=1.0, runs=4, random_state=7)
    assert default.neighbours == NEIGHBOURS == "replace-one"
    assert "for replace-one neighbours (n=300 records)" in default.guarantee


@pytest.mark.parametrize("q", [0.5, 0.9])
def test_the_quantile_plan_uses_the_add_remove_utility_sensitivity(q):
    # The exponential mechanism weighs exp(eps u / (2 du)): under add/remove
    # du = max(q, 1 - q) instead of 1, so its law at eps is the replace-one law
    # at eps / max(q, 1 - q), on the same databases.
    query = "median" if q == 0.5 else f"quantile:{q}"
    du = max(q, 1 - q)
    add_remove = plan_release(query, HEIGHTS, 200, epsilon=0.5, runs=3, random_state=1,
                              neighbours="add-remove")
    replace_one = plan_release(query, HEIGHTS, 200, epsilon=0.5 / du, runs=3,
                               random_state=1)
    assert add_remove.expected_error == pytest.approx(replace_one.expected_error,
                                                      rel=1e-9)
    assert add_remove.error_90 == pytest.approx(replace_one.error_90, rel=1e-9)
    assert add_remove.mechanism == "exponential"
    assert "add-remove neighbours" in add_remove.guarantee


def test_add_remove_needs_two_records_and_a_known_relation():
    with pytest.raises(ValueError, match=re.escape("neighbours='add-remove' needs n >= 2")):
        plan_release("mean", HEIGHTS, 1, epsilon=1.0, neighbours="add-remove")
    with pytest.raises(ValueError, match="neighbours"):
        plan_release("mean", HEIGHTS, 10, epsilon=1.0, neighbours="swap")


FLAGS = ["plan", "--query", "median", "--population", "heights", "--n", "200"]


def test_the_command_line_takes_neighbours(capsys):
    args = [*FLAGS, "--epsilon", "0.5", "--runs", "3", "--seed", "1", "--json"]
    assert main([*args, "--neighbours", "add-remove"]) == 0
    out = json.loads(capsys.readouterr().out)
    plan = plan_release("median", HEIGHTS, 200, epsilon=0.5, runs=3, random_state=1,
                        neighbours="add-remove")
    assert out["neighbours"] == "add-remove"
    assert out["expected_error"] == pytest.approx(plan.expected_error, rel=1e-12)
    assert main(["plan", "--query", "mean", "--population", "heights", "--n", "1",
                 "--epsilon", "1", "--neighbours", "add-remove"]) == 2
    assert "n >= 2" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exc:  # argparse's choices: a usage error
        main([*args, "--neighbours", "swap"])
    assert exc.value.code == 2
