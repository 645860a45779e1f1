"""The command line: any flag values parse or exit 2; ``main`` returns 0, 1 or 2
with at most one error line, and a refused command writes nothing."""

import json
import os

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from sensampler.app import cli as cli

values = st.one_of(
    st.sampled_from(["0", "-1", "1e308", "nan", "inf", "", "x", "0.05", "2**63"]),
    st.integers(-(2**64), 2**64).map(str),
)


@pytest.mark.slow
@given(st.sampled_from(["--gamma", "--m", "--k"]), values)
def test_parse_args_parses_or_exits_2(flag, value):
    try:
        cli.build_parser().parse_args(["sampling-plan", flag, value])
    except SystemExit as exc:
        assert exc.code == 2


@pytest.mark.slow
@settings(suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    st.sampled_from(
        [
            ["sampling-plan", "--gamma"],
            ["sampling-plan", "--m"],
            ["sample", "--n"],
            ["sample", "--gamma"],
            ["sample", "--n-jobs"],
            ["sensitivity-sweep", "--repetitions"],
            ["sensitivity-sweep", "--epsilons"],
        ]
    ),
    values,
)
def test_main_checks_before_it_works(tmp_path, capsys, monkeypatch, head, value):
    def no_work(*args, **kwargs):
        raise KeyboardInterrupt  # a command that passed its checks stops here

    for name in ("sample_sensitivity", "sensitivity_sweep", "run_batch", "run_demo"):
        monkeypatch.setattr(cli, name, no_work)
    capsys.readouterr()  # the fixtures are shared by every example
    out = tmp_path / "out"
    args = [*head, value] + (["--out", str(out)] if head[0] == "sensitivity-sweep" else [])
    try:
        code = cli.main(args)
    except SystemExit as exc:  # argparse's own usage error
        assert exc.code == 2
        return
    err = capsys.readouterr().err.strip().splitlines()
    assert code in (0, 2, 130) and len(err) <= 1, (code, err)
    if code == 2:
        assert not os.path.exists(out) or not os.listdir(out)


@pytest.mark.parametrize("command", ["sample", "sensitivity-sweep"])
def test_n_jobs_0_exits_2(command, capsys):
    assert cli.main([command, "--n-jobs", "0"]) == 2
    assert "n_jobs" in capsys.readouterr().err


#: Sizes no machine of 16 GiB holds: the check phase refuses them (exit 2).
@pytest.mark.slow
@settings(max_examples=30, suppress_health_check=[HealthCheck.function_scoped_fixture])
@example(["sample", "--n"], 2**63)
@example(["sample", "--query", "median", "--n"], 10**10)
@example(["sample", "--m"], 10**9)
@example(["sensitivity-sweep", "--repetitions"], 10**11)
@example(["audit", "--n"], 2**63)  # exit 1 from the sampler before
@example(["audit", "--m"], 10**9)  # exit 1 after the probes before
@example(["audit", "--pairs"], 10**9)
@given(
    st.sampled_from(
        [
            ["sample", "--query", "median", "--n"],
            ["sample", "--m"],
            ["sensitivity-sweep", "--repetitions"],
            ["sensitivity-sweep", "--n"],
        ]
    ),
    st.integers(10**10, 2**70),
)
def test_sizes_beyond_the_machine_exit_2(capsys, monkeypatch, head, size):
    """(An additive query's n is bounded by MAX_N only: it draws no database.)"""
    from sensampler._lib import memory as _memory
    from sensampler.app.cli import _audit as _audit_cli

    def no_work(*args, **kwargs):
        raise AssertionError("the work started")

    monkeypatch.setattr(_memory, "physical_memory", lambda: 16 * 2**30)
    for name in ("sample_sensitivity", "sensitivity_sweep"):
        monkeypatch.setattr(cli, name, no_work)
    monkeypatch.setattr(_audit_cli, "compare_populations", no_work)
    capsys.readouterr()
    code = cli.main([*head, str(size), *(["--no-progress"] if head[0] == "audit" else [])])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and len(err) == 1, (code, err)


def _strict(text):
    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.slow
@settings(max_examples=10, deadline=None)
@example("sampled,mean", "1")  # printed NaN before (delta, coordinate)
@given(
    st.sampled_from(["sampled", "mean", "1", "0", "1e308", "sampled,mean+2sd"]),
    st.sampled_from(["1", "0.01,5", "1e-300", "1e300"]),
)
def test_sweep_json_is_strict_json(sensitivities, epsilons):
    import contextlib
    import io

    buffer, errors = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(buffer), contextlib.redirect_stderr(errors):
        code = cli.main(
            ["sensitivity-sweep", "--seed", "0", "--repetitions", "2", "--gamma", "0.5",
             "--sensitivities", sensitivities, "--epsilons", epsilons, "--json"]
        )
    if code == 0:
        assert all("value" in row for row in _strict(buffer.getvalue()))
    else:
        assert len(errors.getvalue().strip().splitlines()) == 1
