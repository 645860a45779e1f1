"""sensampler plan --query --population --n --target-error (or --epsilon), and
sensampler sampling-plan --gamma: two commands, as the API has two functions."""

import argparse
import json
from dataclasses import fields

import numpy as np
import pytest

from sensampler._lib import printing
from sensampler.app.cli import build_parser, main
from sensampler.app.planning import ACCOUNTS_FOR_NOTHING, plan_release
from sensampler.distributions import GaussianMixture
from sensampler.settings import ReleaseSettings

FLAGS = ["plan", "--query", "mean", "--population", "heights", "--n", "500"]


def test_plan_from_a_target_error_prints_epsilon_and_says_it_spends_nothing(capsys):
    assert main([*FLAGS, "--target-error", "0.1", "--seed", "0", "--runs", "20"]) == 0
    out = capsys.readouterr().out
    assert "target expected error 0.1" in out
    assert "m=113, k=113" in out
    assert ACCOUNTS_FOR_NOTHING in out


def test_plan_json_agrees_with_python(capsys):
    args = [*FLAGS, "--epsilon", "0.5", "--seed", "3", "--runs", "10", "--json"]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    plan = plan_release("mean", heights, 500, epsilon=0.5, runs=10, random_state=3)
    assert out["epsilon"] == 0.5
    assert np.isclose(out["expected_error"], plan.expected_error, rtol=1e-12)
    assert out["note"] == ACCOUNTS_FOR_NOTHING


@pytest.mark.slow
def test_plan_of_a_median_plans_the_exponential_mechanism_the_release_uses(capsys):
    args = ["plan", "--query", "median", "--population", "heights", "--n", "500",
            "--target-error", "0.2", "--seed", "7", "--runs", "50"]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "mechanism       exponential, epsilon=" in out
    assert "except with probability gamma=" in out and "worst case      at most epsilon=" in out
    assert "m=2000, k=1931" in out and "of the exponential mechanism's scale" in out
    assert main([*args, "--json"]) == 0
    plan = json.loads(capsys.readouterr().out)
    heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    expected = plan_release("median", heights, 500, target_error=0.2, runs=50,
                            random_state=7)
    assert plan["mechanism"] == "exponential" and plan["epsilon"] == expected.epsilon
    assert (plan["m"], plan["k"]) == (expected.m, expected.k) == (2000, 1931)
    assert plan["gamma"] == expected.gamma and plan["sensitivity"] is None
    assert plan["bounds"] == list(expected.bounds)


def test_the_sampling_plan_is_a_command_of_its_own(capsys):
    # Before: `sensampler plan` was two commands in one (a sampling plan from
    # --gamma, a release plan from --target-error); the sampling plan's inequality is
    # --inequality, as the release's settings name it.
    assert main(["sampling-plan", "--gamma", "0.05", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["m"] == 113
    assert main(["sampling-plan", "--gamma", "0.05", "--inequality", "dkw", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["m"] == 1305
    # plan --gamma alone is a release plan missing its query: it names the command
    assert main(["plan", "--gamma", "0.05"]) == 2
    err = capsys.readouterr().err
    assert "sensampler sampling-plan --gamma G" in err and err.count("\n") == 1
    with pytest.raises(SystemExit) as exc:  # the sampling plan's flags are not plan's
        main([*FLAGS, "--target-error", "0.1", "--k", "5"])
    assert exc.value.code == 2


def test_every_flag_of_both_commands_has_help():
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for command in ("plan", "sampling-plan"):
        for action in sub.choices[command]._actions:
            assert action.help, (command, action.dest)


def test_plan_reads_the_inequality_and_numbers_as_the_settings_do(capsys):
    args = [*FLAGS, "--epsilon", "1", "--runs", "2", "--seed", "0", "--json"]
    assert main([*args, "--inequality", "dkw"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["inequality"], out["m"]) == ("dkw", 1305)
    assert main([*FLAGS, "--epsilon", "1_0", "--runs", "2"]) == 2  # ASCII digits only
    err = capsys.readouterr().err
    assert "--epsilon must be a number (ASCII digits), got '1_0'." in err


@pytest.mark.parametrize(
    ("extra", "message"),
    [
        ([], "planning a release needs one of --target-error and --epsilon."),
        (["--target-error", "0.1", "--epsilon", "1"], "one of --target-error"),
        (["--target-error", "0.1", "--measure", "max"], "--measure must be 'mean'"),
        (["--target-error", "0"], "--target-error must be > 0, got --target-error 0."),
        (
            ["--target-error", "1", "--bounds", "private:1"],
            "--bounds: private:1 are bounds estimated from the private data",
        ),
    ],
)
def test_plan_usage_errors_exit_2_in_one_line(extra, message, capsys):
    assert main([*FLAGS, *extra]) == 2
    err = capsys.readouterr().err
    assert message in err and err.count("\n") == 1


def test_plan_offers_every_setting_of_the_record_from_one_place():
    """A new release setting is one field of ReleaseSettings: ``sensampler plan``
    offers it with the field's flag, as ``sensampler release`` does (the plan once
    listed its own flags, a second edit for every new setting)."""
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for command, omitted in (("plan", {"granularity"}), ("release", set())):
        dests = {action.dest for action in sub.choices[command]._actions}
        wanted = {f.name for f in fields(ReleaseSettings)} - omitted
        assert wanted <= dests, (command, wanted - dests)


def test_plan_needs_query_population_and_n(capsys):
    assert main(["plan", "--target-error", "0.1"]) == 2
    err = capsys.readouterr().err
    assert "needs --query, --population, --n." in err


def test_plan_prints_its_errors_and_sensitivity_in_the_data_units(capsys):
    """Issue 38: ``--unit cm`` follows the planned errors and the sensitivity,
    each printed by the one policy (an error rounded up to 3 digits)."""
    args = [*FLAGS, "--epsilon", "0.5", "--seed", "3", "--runs", "10", "--unit", "cm"]
    assert main(args) == 0
    out = capsys.readouterr().out
    heights = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    plan = plan_release("mean", heights, 500, epsilon=0.5, runs=10, random_state=3)
    assert f"expected error  {printing.error(plan.expected_error)} cm" in out
    assert f"90% of errors   <= {printing.error(plan.error_90)} cm" in out
    assert f"sensitivity     {printing.sensitivity(plan.sensitivity)} cm" in out
