"""plan_release and ``sensampler plan`` under add/remove neighbours, as release has them."""

import json
import re

import numpy as np
import pytest

from sensampler import queries, sample_sensitivity
from sensampler.app.cli import main
from sensampler.app.planning import plan_release
from sensampler.app.specs import parse_query
from sensampler.bounds import Bounds
from sensampler.distributions import GaussianMixture
from sensampler.mechanisms.accuracy import QuantileErrorModel
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
                                 bounds=Bounds.given(*plan.bounds),
                                 random_state=child_seed(root, i)).sensitivity.value)
        for i in range(4)
    ]
    assert list(plan.sensitivities) == expected
    assert plan.neighbours == "add-remove" and plan.to_dict()["neighbours"] == "add-remove"
    assert "for add-remove neighbours (n=300 records, published" in plan.guarantee
    default = plan_release("mean", HEIGHTS, 300, epsilon=1.0, runs=4, random_state=7)
    assert default.neighbours == NEIGHBOURS == "replace-one"
    assert "for replace-one neighbours (n=300 records)" in default.guarantee


@pytest.mark.slow
@pytest.mark.parametrize("q", [0.5, 0.9])
def test_the_quantile_plan_uses_the_add_remove_utility_sensitivity(q):
    # The plain exponential mechanism weighs exp(eps u / (2 du)): under add/remove
    # du = max(q, 1 - q) instead of 1, so its law at eps is the replace-one law
    # at eps / max(q, 1 - q), on the same databases.
    name = "median" if q == 0.5 else f"quantile:{q}"
    query = parse_query(name)
    du = max(q, 1 - q)
    root = np.random.SeedSequence(1)
    add_remove, replace_one = (
        QuantileErrorModel.draw(query, q, (140.0, 210.0), HEIGHTS, 200, 3, root, relation)
        for relation in ("add-remove", "replace-one")
    )
    assert add_remove.mean_error(0.5) == pytest.approx(
        replace_one.mean_error(0.5 / du), rel=1e-9
    )
    assert add_remove.error_quantile(0.9, 0.5) == pytest.approx(
        replace_one.error_quantile(0.9, 0.5 / du), rel=1e-9
    )
    # the plan calibrates the scale on add/remove pairs; its worst case 2 t du
    plan = plan_release(name, HEIGHTS, 200, epsilon=0.5, runs=3,
                        random_state=1, neighbours="add-remove")
    assert plan.mechanism == "exponential"
    assert "add-remove neighbours" in plan.guarantee
    assert 0.5 <= plan.worst_case_epsilon <= 2.0


def test_add_remove_needs_two_records_and_a_known_relation():
    with pytest.raises(ValueError, match=re.escape("neighbours='add-remove' needs n >= 2")):
        plan_release("mean", HEIGHTS, 1, epsilon=1.0, neighbours="add-remove")
    with pytest.raises(ValueError, match="neighbours"):
        plan_release("mean", HEIGHTS, 10, epsilon=1.0, neighbours="swap")


FLAGS = ["plan", "--query", "median", "--population", "heights", "--n", "200"]


@pytest.mark.slow
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
