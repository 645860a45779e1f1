"""The command line: any flag values parse or exit 2; ``main`` returns 0, 1 or 2
with at most one error line, and a refused command writes nothing."""

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sensampler import cli

values = st.one_of(
    st.sampled_from(["0", "-1", "1e308", "nan", "inf", "", "x", "0.05", "2**63"]),
    st.integers(-(2**64), 2**64).map(str),
)


@given(st.sampled_from(["--gamma", "--m", "--k"]), values)
def test_parse_args_parses_or_exits_2(flag, value):
    try:
        cli.build_parser().parse_args(["plan", flag, value])
    except SystemExit as exc:
        assert exc.code == 2


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(
        [
            ["plan", "--gamma"],
            ["plan", "--m"],
            ["sample", "--n"],
            ["sample", "--gamma"],
            ["sample", "--n-jobs"],
            ["sweep", "--repetitions"],
            ["sweep", "--epsilons"],
        ]
    ),
    values,
)
def test_main_checks_before_it_works(tmp_path, capsys, monkeypatch, head, value):
    def no_work(*args, **kwargs):
        raise KeyboardInterrupt  # a command that passed its checks stops here

    for name in ("sample_sensitivity", "error_vs_epsilon", "run_batch", "run_demo"):
        monkeypatch.setattr(cli, name, no_work)
    capsys.readouterr()  # the fixtures are shared by every example
    out = tmp_path / "out"
    args = [*head, value] + (["--out", str(out)] if head[0] == "sweep" else [])
    try:
        code = cli.main(args)
    except SystemExit as exc:  # argparse's own usage error
        assert exc.code == 2
        return
    err = capsys.readouterr().err.strip().splitlines()
    assert code in (0, 2, 130) and len(err) <= 1, (code, err)
    if code == 2:
        assert not os.path.exists(out) or not os.listdir(out)


@pytest.mark.parametrize("command", ["sample", "sweep"])
def test_n_jobs_0_exits_2(command, capsys):
    assert cli.main([command, "--n-jobs", "0"]) == 2
    assert "n_jobs" in capsys.readouterr().err
