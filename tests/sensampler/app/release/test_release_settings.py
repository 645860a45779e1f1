"""A release takes one settings record (issue 36), and the findings of issue 37 on it.

``release_statistic(s)`` and ``prepare_releases`` take a
:class:`~sensampler.settings.ReleaseSettings` (or its fields as keywords), and
``sensampler release`` builds the same record from flags derived from its fields,
each value read by the field's own reader, naming the flag as typed.
"""

import argparse
import json
from dataclasses import fields

import numpy as np
import pytest

from sensampler.accounting import PrivacyFilter
from sensampler.app import release
from sensampler.app.cli import build_parser, main
from sensampler.app.cli._flags import add_settings_flags, flag_of, settings_from_args
from sensampler.app.experiments.batch_release import RELEASE_KEYS
from sensampler.app.release import (
    load_population,
    prepare_releases,
    release_statistic,
    release_statistics,
)
from sensampler.settings import ReleaseSettings

POP = "normal:loc=170,scale=10"
DATA = np.random.default_rng(37).normal(170, 10, 300).round(2)


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if anything is sampled or calibrated."""

    def refuse(*args, **kwargs):
        raise AssertionError("the work started before every input was checked")

    monkeypatch.setattr(release._running, "sample_sensitivity", refuse)
    monkeypatch.setattr(release._running, "calibrate_quantile", refuse)


@pytest.fixture
def outlier_file(tmp_path):
    """Heights and one record the population model never draws (issue 37)."""
    path = tmp_path / "private.csv"
    path.write_text("x\n" + "".join(f"{v}\n" for v in [*DATA, 987654.321]))
    return str(path)


def _cli(capsys, *argv):
    """``(exit code, stdout, stderr lines)`` of ``sensampler argv``, in process."""
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err.strip().splitlines()


def _release_argv(path, *flags):
    return ["release", "--data", path, "--column", "x", "--population", POP,
            "--seed", "1", *flags]


# ------------------------------------------------- issue 37: a quantile without bounds


@pytest.mark.parametrize("query", ["median", "quantile:1"])
def test_a_quantile_without_bounds_samples_nothing(query, no_work):
    """Before: ``bounds=None`` released a quantile with a sampled Laplace scale
    (``quantile:1`` of a file holding 987654.321 gave 987652.96 under
    "eps = 0.5-DP"), the leak the exponential mechanism is there to avoid; then
    it was refused. Now it is the exponential mechanism over the wide public
    grid: plain epsilon-DP for every pair, nothing sampled or calibrated (the
    fixture refuses both), beside a mean that samples its sensitivity."""
    budget = PrivacyFilter(10.0)
    r = release_statistic(DATA, query, POP, epsilon=0.5, bounds=None, budget=budget)
    assert r.statement.source == "global" and r.statement.gamma == 0.0
    assert "wide public grid" in r.noise and budget.spent.epsilon == 0.5
    prepared = prepare_releases(DATA, ["mean", query], POP, epsilon=0.5, bounds="none")
    assert [s.source for s in prepared.planned] == ["sampled", "global"]


def test_the_command_releases_a_quantile_with_bounds_none_over_the_wide_grid(
    outlier_file, capsys, no_work
):
    """Before: ``--bounds none --query quantile:1`` published the outlier almost
    exactly (exit 0), then it was refused; now the exponential mechanism over the
    wide public grid, plain DP, with nothing sampled."""
    code, out, err = _cli(capsys, *_release_argv(
        outlier_file, "--epsilon", "0.5", "--bounds", "none", "--query", "quantile:1"))
    assert code == 0 and err == []
    assert "wide public grid" in out and "for every pair" in out


def test_other_queries_keep_bounds_none():
    r = release_statistic(DATA, "mean", POP, epsilon=0.5, bounds="none", random_state=0)
    assert r.bounds is None and r.statement.worst_case is None


# ----------------------------------------------- issue 37: numbers and bounds as text


@pytest.mark.parametrize(
    "flags, flag",
    [
        (("--bounds", "1_0:200"), "--bounds"),
        (("--bounds", "private:1_0"), "--bounds"),
        (("--bounds", "\u0661\u0660:200"), "--bounds"),  # Arabic-Indic digits
        (("--bounds", "\uff11\uff10:200"), "--bounds"),  # full-width digits
        (("--epsilon", "1_0"), "--epsilon"),
        (("--gamma", "\u0660.\u0660\u0665"), "--gamma"),
        (("--worst-case-epsilon", "\uff15"), "--worst-case-epsilon"),
    ],
)
def test_numbers_in_other_forms_are_refused_naming_the_flag(
    outlier_file, capsys, no_work, flags, flag
):
    """Before: the flags went through ``float``, which reads ``1_0`` as 10 and
    other scripts' digits as digits: the release went ahead (exit 0)."""
    argv = _release_argv(outlier_file, "--epsilon", "0.5", "--query", "mean")
    code, out, err = _cli(capsys, *argv, *flags)
    assert code == 2 and out == "" and len(err) == 1
    assert err[0].startswith(f"sensampler release: error: {flag}"), err


@pytest.mark.parametrize(
    "flag", ["--budget-epsilon", "--budget-delta", "--budget-gamma", "--seed", "--n-jobs"]
)
def test_the_other_numeric_flags_refuse_other_forms_too(outlier_file, capsys, flag):
    """Before: ``type=float`` and ``type=int`` took ``1_0`` as 10."""
    with pytest.raises(SystemExit) as exit_:
        main(_release_argv(outlier_file, "--epsilon", "0.5", flag, "1_0"))
    assert exit_.value.code == 2
    assert f"argument {flag}: invalid" in capsys.readouterr().err


def test_a_subnormal_width_exits_2_before_any_work(outlier_file, capsys, no_work):
    """Before: ``--bounds=0:5e-324`` sampled, then failed with ZeroDivisionError
    (exit 1); the one bounds parser refuses it first."""
    code, out, err = _cli(capsys, *_release_argv(
        outlier_file, "--epsilon", "0.5", "--bounds=0:5e-324"))
    assert code == 2 and out == "" and len(err) == 1
    assert "--bounds must be wider than the smallest normal double" in err[0]


def test_a_usage_message_names_the_flag_as_typed(outlier_file, capsys, no_work):
    code, _, err = _cli(capsys, *_release_argv(outlier_file, "--epsilon", "-1"))
    assert code == 2 and "--epsilon must be > 0.0, got --epsilon=-1.0." in err[0]
    code, _, err = _cli(capsys, *_release_argv(outlier_file, "--epsilon", "1",
                                               "--gamma", "1"))
    assert code == 2 and "--gamma must be > 0.0 and < 1.0, got --gamma=1.0." in err[0]
    with pytest.raises(ValueError, match="--population bootstrap:p.csv needs --column"):
        load_population("bootstrap:p.csv", name="--population", column_name="--column")
    with pytest.raises(ValueError, match="population='bootstrap:p.csv' needs column"):
        load_population("bootstrap:p.csv")


# ------------------------------------------------------ issue 36: one settings record


def test_the_inequality_flag_reaches_the_sampling_plan(outlier_file, capsys):
    """Before: ``sensampler release`` had ``--inequality`` without help, and no
    ``--inequality``."""
    code, out, _ = _cli(capsys, *_release_argv(
        outlier_file, "--epsilon", "0.5", "--bounds", "100:250", "--inequality",
        "dkw", "--json"))
    assert code == 0
    (r,) = json.loads(out)["releases"]
    assert (r["inequality"], r["m"]) == ("dkw", 1305)
    (action,) = [a for a in _release_parser()._actions if a.dest == "inequality"]
    assert action.option_strings == ["--inequality"] and "certifies gamma" in action.help


def _release_parser():
    parser = build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sub.choices["release"]


def test_every_setting_is_a_flag_of_the_release_command():
    actions = {a.dest: a for a in _release_parser()._actions}
    for setting in fields(ReleaseSettings):
        action = actions[setting.name]
        assert action.option_strings == [flag_of(setting.name)]
        assert setting.metadata["help"] in action.help
        assert action.choices == setting.metadata["choices"]
    assert actions["epsilon"].required


def test_the_flags_build_the_record_the_keywords_build():
    parser = argparse.ArgumentParser()
    add_settings_flags(parser)
    args = parser.parse_args(
        ["--epsilon", "0.5", "--bounds", " none ", "--mechanism", "gaussian",
         "--delta", "1e-6", "--worst-case-epsilon", "2", "--inequality", "dkw"]
    )
    assert settings_from_args(args) == ReleaseSettings(
        epsilon=0.5, bounds=None, mechanism="gaussian", delta=1e-6,
        worst_case_epsilon=2.0, inequality="dkw",
    )
    assert settings_from_args(parser.parse_args([])) == ReleaseSettings()


@pytest.mark.slow
def test_a_settings_record_and_keywords_release_alike():
    settings = ReleaseSettings(epsilon=0.5, bounds="100:250", inequality="exchangeable")
    by_record = release_statistic(DATA, "mean", POP, settings, random_state=4)
    by_keywords = release_statistic(DATA, "mean", POP, random_state=4, epsilon=0.5,
                                    bounds="100:250", inequality="exchangeable")
    assert by_record.estimate.sensitivity == by_keywords.estimate.sensitivity
    assert by_record.estimate.inequality == "exchangeable"
    # keywords change fields of the record given
    (median, mean) = release_statistics(DATA, ["median", "mean"], POP, settings,
                                        epsilon=0.25, random_state=4)
    assert median.statement.epsilon == mean.statement.epsilon == 0.25
    assert mean.bounds.high == 250.0


def test_an_unknown_setting_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown setting\\(s\\) 'bound'"):
        release_statistic(DATA, "mean", POP, epsilon=0.5, bound="dkw")  # former name
    with pytest.raises(TypeError, match="settings must be a ReleaseSettings"):
        release_statistic(DATA, "mean", POP, {"epsilon": 0.5})
    with pytest.raises(ValueError, match="a release needs epsilon"):
        release_statistic(DATA, "mean", POP)


def test_the_unit_is_a_setting_read_once_for_release_plan_sweep_and_batch():
    """Issue 38 ("no units anywhere"): the data's unit is one display-only field
    of the settings, so it is a flag of release, plan and sweep and a batch key
    at once, read by one reader that names the flag as typed."""
    assert ReleaseSettings(epsilon=1.0, unit=" cm ").unit == "cm"
    assert ReleaseSettings(epsilon=1.0, unit="").unit is None
    assert ReleaseSettings(epsilon=1.0).unit is None
    with pytest.raises(ValueError, match=r"unit must be a short printable text.*'c\\nm'"):
        ReleaseSettings(epsilon=1.0, unit="c\nm")
    with pytest.raises(TypeError, match="unit must be a text such as 'cm', got unit=3"):
        ReleaseSettings(epsilon=1.0, unit=3)
    assert "unit" in RELEASE_KEYS
    parser = build_parser()
    for command in ("release", "plan", "sweep"):
        sub = next(
            a for a in parser._subparsers._group_actions[0].choices.items() if a[0] == command
        )[1]
        assert any("--unit" in a.option_strings for a in sub._actions), command
