"""The ``sensampler`` command: in process through ``cli.main`` (argument errors,
help), through its real entry point (a subprocess) where the process matters."""

import argparse
import contextlib
import io
import json
import os
import stat
import subprocess
import sys

import numpy as np
import pytest

from sensampler import __version__
from sensampler._lib.domains import GAUSSIAN_VARIANTS
from sensampler.app import cli
from sensampler.app.cli import main
from sensampler.app.demo import demo_files
from sensampler.app.specs import MECHANISMS, mechanisms_help
from sensampler.distributions import GaussianMixture
from sensampler.norms import NORM_NAMES
from sensampler.plan import INEQUALITIES

ROOT = os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..", "..", "..")
)


#: The installed console script (``pip install`` puts it beside the interpreter); a
#: checkout that is not installed falls back to ``python -m sensampler``.
SCRIPT = os.path.join(os.path.dirname(sys.executable), "sensampler")
COMMAND = (
    [SCRIPT] if os.path.exists(SCRIPT) else [sys.executable, "-m", "sensampler"]
)


def sensampler(*args, cwd=None):
    env = dict(os.environ)
    return subprocess.run(
        [*COMMAND, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def in_process(*args):
    """``main(args)`` in this process, as ``sensampler(*args)`` returns it.

    A ``CompletedProcess`` with the exit code and what was written to stdout
    and stderr; argparse's own exits (``--help``, a bad flag) raise
    ``SystemExit``, whose code is returned like ``main``'s.
    """
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(list(args))
        except SystemExit as exc:
            code = exc.code
    return subprocess.CompletedProcess(args, code, out.getvalue(), err.getvalue())


def _subcommands():
    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    return sorted(sub.choices)


@pytest.mark.parametrize("command", _subcommands())
def test_every_subcommand_has_help(command):
    out = in_process(command, "--help")
    assert out.returncode == 0 and "usage: sensampler " + command in out.stdout


@pytest.mark.slow
def test_version_and_bare_command():
    # the real entry point once: the console script, or python -m sensampler
    assert sensampler("--version").stdout.strip() == f"sensampler {__version__}"
    assert "COMMAND" in in_process().stdout


def test_plan_text_and_json():
    out = in_process("sampling-plan", "--gamma", "0.05", "--inequality", "dkw", "--json")
    assert out.returncode == 0
    assert json.loads(out.stdout)["m"] == 1305
    assert "m           113" in in_process("sampling-plan", "--gamma", "0.05").stdout


def test_sample_json_and_population_flags(tmp_path):
    out = in_process(
        "sample",
        "--population",
        "normal:loc=170,scale=10",
        "--query",
        "quantile:0.9",
        "--n",
        "50",
        "--gamma",
        "0.1",
        "--seed",
        "1",
        "--json",
        "--no-progress",
    )
    assert out.returncode == 0, out.stderr
    est = json.loads(out.stdout)
    assert est["query"] == "quantile(0.9)" and est["neighbours"] == "replace-one"
    pop = tmp_path / "pop.toml"
    pop.write_text(
        '[population]\nkind = "GaussianMixture"\nparams = [[178, 7], [162, 6.5]]\n'
        "weights = [0.5, 0.5]\n"
    )
    out = in_process(
        "sample",
        "--population-file",
        str(pop),
        "--n",
        "1",
        "--query",
        "identity",
        "--seed",
        "0",
        "--no-progress",
    )
    assert out.returncode == 0 and "sensitivity" in out.stdout


@pytest.mark.slow
def test_sweep_writes_csv_and_png(tmp_path):
    out = sensampler(
        "sensitivity-sweep",
        "--n",
        "100",
        "--epsilons",
        "0.1,1",
        "--repetitions",
        "20",
        "--seed",
        "0",
        "--out",
        str(tmp_path),
        "--no-progress",
    )
    assert out.returncode == 0, out.stderr
    assert (tmp_path / "error_vs_epsilon.csv").exists()
    assert (tmp_path / "error_vs_epsilon.png").stat().st_size > 10_000
    rows = _small_sweep()
    assert {r["statistic"] for r in rows} == {"mean", "std", "median", "q05", "q95"}


def _small_sweep(*flags, seed="0"):
    """Rows of a small sweep (n 50, epsilon 1, 5 repetitions) with extra flags."""
    out = in_process(
        "sensitivity-sweep",
        "--n",
        "50",
        "--epsilons",
        "1",
        "--repetitions",
        "5",
        "--seed",
        seed,
        "--json",
        "--no-progress",
        *flags,
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def test_sweep_accepts_numbers_and_per_coordinate_norms():
    # Failed before: "sensitivities must be numbers ... got '0.5'".
    rows = _small_sweep("--sensitivities", "sampled,mean,mean+2sd,0.5")
    labels = {r["sensitivity"]: r["guarantee"] for r in rows}
    assert labels == {
        "sampled": "random DP, gamma=0.04982",
        "mean": "none (typical value)",
        "mean + 2 sd": "none (typical value)",
        "0.5": "as given",
    }
    # Failed before: the shape of the per-coordinate sensitivity was refused.
    rows = _small_sweep("--query", "histogram:3:150:200", "--norm", "coordinate")
    errors = [
        r["error"]
        for r in rows
        if r["statistic"] == "mean" and r["sensitivity"] == "sampled"
    ]
    assert errors == ["l2", "absolute", "absolute", "absolute"]


def test_sweep_with_the_same_seed_samples_the_same_sensitivity():
    def sampled(*flags):
        rows = _small_sweep(*flags, seed="4")
        return next(
            r["sensitivity_value"] for r in rows if r["sensitivity"] == "sampled"
        )

    assert sampled() == sampled("--sensitivities", "sampled,1")


def _run(tmp_path, grid, *flags):
    """``sensampler run`` of a config with ``grid`` lines, results in tmp_path/o."""
    config = tmp_path / "c.toml"
    config.write_text(
        '[grid]\npopulation = ["heights"]\nn = [50]\ngamma = [0.1]\n' + grid
    )
    return in_process(
        "run", str(config), "--out", str(tmp_path / "o"), "--no-progress", *flags
    )


def test_batch_runs_a_per_coordinate_norm(tmp_path):
    # Failed before: the sweep refused the estimate's per-coordinate shape.
    out = _run(
        tmp_path,
        'query = ["histogram:3:150:200"]\nnorm = ["coordinate"]\n'
        'mechanism = ["laplace", "analytic"]\nepsilon = [1.0]\n'
        "[run]\nrepetitions = 5\n",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    rows = [r for r in json.loads(out.stdout) if r["statistic"] == "mean"]
    assert {r["mechanism"] for r in rows} == {"laplace", "analytic"}
    # per coordinate a number; on the whole answer's l2 row none (null in JSON)
    assert all(
        isinstance(r["sensitivity"], float) == (r["coordinate"] is not None)
        for r in rows
    )


def test_run_and_resume(tmp_path):
    grid = 'query = ["mean"]\nmechanism = ["laplace"]\nepsilon = [1.0]\n'
    grid += "[run]\nrepetitions = 10\n"
    first = _run(tmp_path, grid, "--json")
    assert first.returncode == 0, first.stderr
    again = _run(tmp_path, grid)
    assert "1 already done, 0 to do" in again.stderr
    assert json.loads(first.stdout)[0]["population"] == "heights"


@pytest.mark.slow
def test_demo_writes_its_results(tmp_path):
    out = sensampler("demo", "--out", "results", "--no-progress", cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    assert "gamma" in out.stdout and "Sampling plans" in out.stdout
    for name in (
        "error_vs_epsilon.csv",
        "error_vs_epsilon.png",
        "sensitivity_histogram.png",
        "composition.png",
        "runs_before_budget.png",
        "vectorized_vs_sequential.png",
        "epsilon_vs_iterations.png",
    ):
        assert (tmp_path / "results" / name).stat().st_size > 0
        if name.endswith(".png"):
            caption = tmp_path / "results" / name.replace(".png", ".txt")
            assert caption.read_text().strip()


@pytest.mark.parametrize(
    "args, message",
    [
        (("sampling-plan", "--gamma", "2"), "gamma must be > 0.0 and < 1.0, got gamma=2.0."),
        (("sampling-plan",), "give gamma, m, or both"),
        (
            ("sample", "--n", "0", "--no-progress"),
            "n must be an integer >= 1, got n=0.",
        ),
        (("sample", "--query", "mode"), "unknown query 'mode'"),
        (("sample", "--population", "mars"), "unknown population 'mars'"),
        (("sample", "--population", "normal:scale=-1"), "scale must be > 0.0"),
        (("sensitivity-sweep", "--epsilons", "0,1"), "epsilons must be > 0"),
        (("sensitivity-sweep", "--mechanism", "analytic"), "needs delta"),
        (("sensitivity-sweep", "--epsilons", ""), "epsilons must not be empty, got an empty grid."),
        (
            ("sensitivity-sweep", "--norm", "l2"),
            "--mechanism laplace accepts --norm l1, coordinate; got 'l2'.",
        ),
        (
            ("sensitivity-sweep", "--mechanism", "gaussian", "--delta", "1e-5", "--epsilons", "2"),
            "use variant='analytic' for epsilon >= 1",
        ),
        (("sensitivity-sweep", "--sensitivities", "sampled,median"), "got 'median'"),
        (("run", "missing.toml"), "cannot read config missing.toml"),
    ],
)
def test_user_errors_are_one_line_and_exit_2(args, message, no_work):
    out = in_process(*args)
    assert out.returncode == 2
    assert message in out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_bad_flags_exit_2():
    out = in_process("sampling-plan", "--gamma", "abc")
    assert out.returncode == 2 and "invalid float value" in out.stderr
    assert in_process("frobnicate").returncode == 2


def test_malformed_toml_is_a_user_error(tmp_path, no_work):
    bad = tmp_path / "bad.toml"
    bad.write_text("[grid\n")
    out = in_process("run", str(bad), "--out", str(tmp_path / "o"))
    assert out.returncode == 2 and "malformed TOML" in out.stderr
    assert "Traceback" not in out.stderr


# Exit codes by phase: 2 for what is found before any work, 1 for a failure
# during it, 130 for Ctrl-C; always one line on stderr.


def _main_one_line(capsys, args):
    """Run ``main(args)`` in process; return (exit code, the one stderr line)."""
    code = main(list(args))
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "Traceback" not in err[0] and "Warning" not in err[0]
    return code, err[0]


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if any command starts its work."""

    def refuse(*args, **kwargs):
        raise AssertionError("the work started before every input was checked")

    for name in ("sample_sensitivity", "sensitivity_sweep", "run_batch", "run_demo"):
        monkeypatch.setattr(cli, name, refuse, raising=False)


def test_missing_empirical_path_is_a_usage_error(tmp_path, capsys, no_work):
    missing = str(tmp_path / "missing.csv")
    code, err = _main_one_line(
        capsys, ["sample", "--population", f"empirical:path={json.dumps(missing)}"]
    )
    assert code == 2 and "missing.csv" in err
    pop = tmp_path / "pop.toml"
    pop.write_text(f"[population]\nkind = 'Empirical'\npath = {json.dumps(missing)}\n")
    for command in ("sample", "sensitivity-sweep"):
        code, err = _main_one_line(capsys, [command, "--population-file", str(pop)])
        assert code == 2 and "missing.csv" in err


def _config(tmp_path):
    config = tmp_path / "grid.toml"
    config.write_text(
        "[grid]\npopulation = ['heights']\nn = [50]\ngamma = [0.1]\n"
        "query = ['mean']\nmechanism = ['laplace']\nepsilon = [1.0]\n"
        "[run]\nrepetitions = 2\n"
    )
    return str(config)


@pytest.mark.parametrize("command", ["sensitivity-sweep", "demo", "run"])
def test_unwritable_or_empty_out_is_a_usage_error_before_any_work(
    tmp_path, capsys, no_work, command
):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    head = [command] + ([_config(tmp_path)] if command == "run" else [])
    for out in (str(blocker / "results"), ""):
        code, err = _main_one_line(capsys, [*head, "--out", out])
        assert code == 2 and "--out" in err, err
    assert sorted(os.listdir(tmp_path)) == sorted(
        ["a-file"] + (["grid.toml"] if command == "run" else [])
    )


def test_n_jobs_0_is_refused_even_with_one_chunk(capsys, no_work):
    code, err = _main_one_line(capsys, ["sample", "--n-jobs", "0", "--n", "10"])
    assert code == 2 and "n_jobs" in err


@pytest.mark.slow
def test_a_nan_of_the_probe_exits_2_without_warnings():
    # the probe of the variance of Normal(1e306, 1e304) overflows to inf: the
    # check phase answers the query once (to size the run), so it is found there
    out = sensampler(
        "sample",
        "--population",
        "normal:loc=1e306,scale=1e304",
        "--query",
        "variance",
        "--no-progress",
    )
    assert out.returncode == 2, out.stderr
    lines = out.stderr.strip().splitlines()
    assert len(lines) == 1 and "NaN" in lines[0], lines
    assert "RuntimeWarning" not in out.stderr


def test_a_query_failing_mid_run_exits_1(monkeypatch, capsys):
    calls = iter(range(10**9))

    def flaky(x):  # a finite probe, then NaN
        return float("nan") if next(calls) > 3 else float(np.mean(x))

    monkeypatch.setattr(cli, "parse_query", lambda text: flaky)
    code, err = _main_one_line(capsys, ["sample", "--n", "10", "--no-progress"])
    assert code == 1 and "NaN" in err


@pytest.mark.parametrize("phase", ["check", "work"])
def test_ctrl_c_exits_130_with_one_line(monkeypatch, capsys, phase):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    target = "parse_query" if phase == "check" else "sample_sensitivity"
    monkeypatch.setattr(cli, target, interrupt)
    code, err = _main_one_line(capsys, ["sample", "--n", "10", "--no-progress"])
    assert code == 130 and "interrupted" in err


# --------------------------------------------------------------- reliability
def _strict_json(text):
    """``json.loads`` refusing NaN and infinities, as strict parsers do."""

    def refuse(constant):
        raise ValueError(f"not JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


@pytest.mark.parametrize(
    "args",
    [
        ["sampling-plan", "--gamma", "0.05", "--json"],
        ["sample", "--seed", "0", "--m", "200", "--gamma", "0.5", "--json"],
        ["sensitivity-sweep", "--seed", "0", "--repetitions", "3", "--epsilons", "1", "--json"],
    ],
)
def test_every_json_output_is_strict_json(args, capsys):
    # Failed before: sweep and run printed NaN (a Laplace release has no delta).
    assert main(args) == 0
    _strict_json(capsys.readouterr().out)


def test_run_json_is_strict_json(tmp_path):
    out = _run(
        tmp_path,
        'query = ["mean"]\nmechanism = ["laplace"]\nepsilon = [1.0]\n'
        "[run]\nrepetitions = 3\n",
        "--json",
    )
    assert out.returncode == 0, out.stderr
    rows = _strict_json(out.stdout)
    assert rows and all(r["coordinate"] is None for r in rows)


@pytest.fixture
def small_machine(monkeypatch):
    from sensampler._lib import memory as _memory

    monkeypatch.setattr(_memory, "physical_memory", lambda: 16 * 2**30)


@pytest.mark.parametrize(
    "args, message",
    [
        (["sample", "--n", "9223372036854775808"], "--n must be <= MAX_N="),
        (["sample", "--n", "10000000000", "--query", "median"], "5 copies of one"),
        (["sample", "--m", "1000000000"], "m=1000000000 pairs"),
        (["sensitivity-sweep", "--repetitions", "100000000000"], "repetitions=100000000000"),
        (["sensitivity-sweep", "--n", "100000000"], "repetitions=100 databases of n=100000000"),
    ],
)
def test_sizes_beyond_the_machine_are_usage_errors(
    args, message, small_machine, capsys, monkeypatch
):
    # Failed before: exit 1, found during the work (or after 100 s of it).
    def no_work(*a, **k):
        raise AssertionError("the work started")

    for name in ("sample_sensitivity", "sensitivity_sweep"):
        monkeypatch.setattr(cli, name, no_work)
    assert main(args) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and message in err[0] and "Traceback" not in err[0]


@pytest.mark.parametrize(
    "content, line",
    [
        ("1,2\nsecret_name,3\n", "line 2 (not counting blank and # comment lines): "
         "column 1 is not a number"),
        ("secret_name\n", "line 1 (not counting blank and # comment lines): "
         "column 1 is not a number"),
        ("1,2\n3,4,secret_name\n", "line 2 (not counting blank and # comment lines): "
         "a different number of columns"),
    ],
)
def test_a_bad_records_file_is_named_never_shown(tmp_path, capsys, content, line):
    # Failed before: numpy's message quoted the record ("could not convert string
    # 'secret_name'").
    path = tmp_path / "records.csv"
    path.write_text(content)
    code = main(["sample", "--population", f'empirical:path="{path}"'])
    err = capsys.readouterr().err
    assert code == 2
    assert "secret_name" not in err
    assert f"{path}: {line}" in err


def test_population_flag_json_errors_show_no_value(capsys):
    assert main(["sample", "--population", "empirical:data=[1,secret_name]"]) == 2
    err = capsys.readouterr().err
    assert "secret_name" not in err and "population parameter data is not JSON" in err


def test_a_toml_file_with_a_byte_order_mark_reads(tmp_path, capsys):
    # Failed before: "malformed TOML: Invalid statement (at line 1, column 1)".
    path = tmp_path / "p.toml"
    path.write_bytes(b'\xef\xbb\xbf[population]\nkind = "Normal"\n')
    assert main(["sample", "--population-file", str(path), "--m", "200", "--gamma", "0.5"]) == 0


@pytest.mark.slow
def test_a_closed_output_pipe_stops_the_printing_not_the_work(tmp_path):
    # Failed before: the log line of the second run hit the closed pipe and the
    # batch stopped after one run (`run c.toml 2>&1 | head -1`).
    config = tmp_path / "c.toml"
    config.write_text(
        '[grid]\npopulation = "heights"\nquery = "mean"\nn = [10, 20, 30]\n'
        'gamma = 0.1\nmechanism = "laplace"\nepsilon = 1.0\n[run]\nrepetitions = 3\n'
    )
    out = tmp_path / "o"
    script = (
        f"{' '.join(COMMAND)} run {config} --out {out} --no-progress 2>&1 | head -1"
    )
    env = dict(os.environ)
    done = subprocess.run(
        ["bash", "-o", "pipefail", "-c", script], env=env, capture_output=True,
        text=True, timeout=300,
    )
    assert done.stdout.startswith("3 runs: 0 already done, 3 to do")
    assert len(list((out / "runs").glob("*.json"))) == 3
    assert (out / "summary.csv").exists()
    assert done.returncode == 0  # the work's exit code: it finished


@pytest.mark.slow
def test_sigterm_stops_like_ctrl_c_and_shuts_the_workers_down(tmp_path):
    # Failed before: killed at once, loky's resource tracker then warned of leaked
    # semaphores; now exit 143 with one line, and the workers are shut down.
    # The signal goes once the work has started, whatever the machine's load: the
    # progress bar's first byte on stderr says so (the test once slept 4 s, and a
    # slow start met the signal before the handler, exit -15).
    import signal

    proc = subprocess.Popen(
        [*COMMAND, "sample", "--query", "median", "--n", "2000", "--m", "3000000",
         "--n-jobs", "2", "--seed", "0", "--progress"],
        env=dict(os.environ), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    # Blocks until the bar is drawn twice: the work runs, and the bar is built
    # (tqdm 4.60 draws once inside its constructor; a signal there leaves a
    # half-built bar whose __del__ prints a traceback at exit).
    ready = proc.stderr.read(1)
    while ready.count(b"\r") < 2:
        byte = proc.stderr.read(1)
        assert byte, ready  # the command ended before its bar moved
        ready += byte
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=120)
    assert ready.startswith(b"\r")
    assert proc.returncode == cli.EXIT_TERMINATED == 143
    # what is left once the bar's redrawn lines are set aside: one line
    lines = (ready + err).decode().replace("\r", "\n").splitlines()
    assert [line for line in lines if line.strip() and "%|" not in line] == [
        "sensampler sample: terminated"
    ]


def _bound_and_norm_arguments():
    """Every ``--inequality`` (``--inequality`` on release) and ``--norm`` argument of
    every command."""
    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for command, subparser in sub.choices.items():
        for action in subparser._actions:
            if action.dest in ("inequality", "inequality", "norm"):
                yield command, action


def test_every_bound_flag_offers_the_plans_bounds():
    found = [c for c, a in _bound_and_norm_arguments() if a.dest != "norm"]
    commands = {"sampling-plan", "plan", "sample", "sensitivity-sweep", "audit", "release"}
    assert commands <= set(found)
    for command, action in _bound_and_norm_arguments():
        if action.dest != "norm":
            assert tuple(action.choices) == INEQUALITIES, command
        elif action.choices is None:  # free text: the help lists every name
            assert all(name in action.help for name in NORM_NAMES), command


def test_the_mechanism_help_is_read_from_the_gaussian_variants():
    # before: the help spelled the variants out by hand
    parser = cli.build_parser()
    (sub,) = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    (action,) = [a for a in sub.choices["sensitivity-sweep"]._actions if a.dest == "mechanism"]
    assert action.help == mechanisms_help()
    variants = {kw["variant"] for _, kw in MECHANISMS.values() if "variant" in kw}
    assert variants == set(GAUSSIAN_VARIANTS)
    for name in MECHANISMS:
        assert f"{name}: " in action.help
    for variant in GAUSSIAN_VARIANTS:
        assert f"variant={variant!r}" in action.help


@pytest.mark.parametrize("inequality", INEQUALITIES)
def test_sampling_plan_accepts_every_bound(inequality, capsys):
    assert main(["sampling-plan", "--gamma", "0.05", "--inequality", inequality, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["inequality"] == inequality


def test_sample_takes_the_add_remove_relation(capsys):
    # before: the command line had no way to sample add/remove neighbours
    flags = ["sample", "--population", "normal", "--query", "sum", "--n", "1000",
             "--gamma", "0.05", "--seed", "0", "--no-progress", "--json"]
    assert main([*flags, "--neighbours", "add-remove"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["neighbours"] == "add-remove"
    assert main(flags) == 0
    assert json.loads(capsys.readouterr().out)["neighbours"] == "replace-one"


def test_a_bad_relation_is_a_usage_error(capsys, no_work):
    base = ["sample", "--population", "normal", "--query", "sum", "--gamma", "0.05"]
    code, err = _main_one_line(capsys, [*base, "--n", "1", "--neighbours", "add-remove"])
    assert code == 2 and "neighbours='add-remove' needs n >= 2" in err
    with pytest.raises(SystemExit) as exit_:  # argparse's own choices
        main([*base, "--n", "10", "--neighbours", "bogus"])
    assert exit_.value.code == 2
    assert "--neighbours: invalid choice: 'bogus'" in capsys.readouterr().err


# ------------------------------------------------------ the files each command writes
# Issue 37: every file the commands and the release write is checked before any work.
#
# "Files the release writes": a report, figure, CSV, run folder or budget lock that is
# a FIFO, a symbolic link, a folder or a device was replaced (or written through)
# after the work, and the release was charged first. "A report that cannot be written
# after the budget was charged": a 300-character report name passed the check and
# failed at the write, the budget spent. "A lock path that is a folder" exited 1 after
# reading everything. Each destination is now refused before anything is sampled or
# spent, with exit code 2.
#
# The one check is tested in tests/sensampler/test_table.py, the report's in
# app/test_report.py, the Python release's in app/release/test_release.py, a
# figure's in app/test_plotting.py.


HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
FAST = ["--population", "normal:loc=170,scale=10", "--epsilon", "0.5", "--seed", "0"]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "private.csv"
    values = HEIGHTS.sample(200, random_state=1)
    path.write_text("height\n" + "\n".join(f"{x:.4f}" for x in values) + "\n")
    return str(path)


def _release_with_budget(data, ledger, *more):
    return main(
        [
            "release", "--data", data, "--column", "height", *FAST,
            "--budget-file", str(ledger), "--budget-epsilon", "1", *more,
        ]
    )


def _one_line(capsys):
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_a_fifo_report_is_refused_before_any_spend(data, tmp_path, capsys):
    """A FIFO at --report was replaced by the report, after the spend."""
    fifo = tmp_path / "report.html"
    os.mkfifo(fifo)
    ledger = tmp_path / "ledger.json"
    assert _release_with_budget(data, ledger, "--report", str(fifo)) == 2
    assert "is a FIFO (named pipe)" in _one_line(capsys)
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)
    assert not ledger.exists()  # nothing spent


def test_a_symbolic_link_report_is_refused_before_any_spend(data, tmp_path, capsys):
    """A link at --report was replaced by the report, after the spend."""
    target = tmp_path / "notes.txt"
    target.write_text("mine")
    link = tmp_path / "report.html"
    os.symlink(target, link)
    ledger = tmp_path / "ledger.json"
    assert _release_with_budget(data, ledger, "--report", str(link)) == 2
    assert "is a symbolic link" in _one_line(capsys)
    assert os.path.islink(link) and target.read_text() == "mine"
    assert not ledger.exists()


def test_a_report_name_too_long_is_refused_before_any_charge(data, tmp_path, capsys):
    """A 300-character name passed the old check, the budget was charged, then
    the write failed (rc 1, ``File name too long``) and no answer was printed."""
    ledger = tmp_path / "ledger.json"
    name = tmp_path / ("r" * 296 + ".html")
    assert _release_with_budget(data, ledger, "--report", str(name)) == 2
    assert "longer than the" in _one_line(capsys)
    assert not ledger.exists()
    # the longest name that fits, with the temporary file's prefix, is written
    fits = tmp_path / ("r" * (os.pathconf(tmp_path, "PC_NAME_MAX") - 21 - 5) + ".html")
    assert _release_with_budget(data, ledger, "--report", str(fits)) == 0
    assert fits.read_text().startswith("<!DOCTYPE html>")
    assert json.loads(ledger.read_text())["entries"]


def test_a_budget_lock_that_is_a_folder_is_a_usage_error(data, tmp_path, capsys):
    """A folder at FILE.lock exited 1 after the data and budget were read."""
    ledger = tmp_path / "ledger.json"
    (tmp_path / "ledger.json.lock").mkdir()
    assert _release_with_budget(data, ledger) == 2
    assert "budget file lock" in _one_line(capsys)
    assert not ledger.exists()


def test_a_budget_lock_that_is_a_link_is_refused(data, tmp_path, capsys):
    """A lock is opened for writing: a link there would be followed."""
    ledger = tmp_path / "ledger.json"
    os.symlink(tmp_path / "elsewhere", tmp_path / "ledger.json.lock")
    assert _release_with_budget(data, ledger) == 2
    assert "is a symbolic link" in _one_line(capsys)
    assert not (tmp_path / "elsewhere").exists()


def test_sweep_refuses_a_fifo_in_out_before_the_sweep(tmp_path, capsys):
    """sweep wrote error_vs_epsilon.csv onto whatever was there, after the work."""
    os.mkfifo(tmp_path / "error_vs_epsilon.csv")
    code = main(
        ["sensitivity-sweep", "--out", str(tmp_path), "--repetitions", "2", "--n", "20",
         "--sensitivities", "1.0", "--epsilons", "1"]
    )
    assert code == 2
    assert "is a FIFO" in _one_line(capsys)
    assert stat.S_ISFIFO(os.lstat(tmp_path / "error_vs_epsilon.csv").st_mode)


def test_audit_refuses_a_link_in_out_before_sampling(tmp_path, capsys):
    """audit wrote cross_coverage.csv through a symbolic link in --out, after its
    sampling; the link is refused first (exit 2, one line)."""
    os.symlink(tmp_path / "x", tmp_path / "cross_coverage.csv")
    code = main(["audit", "--out", str(tmp_path), "--pairs", "2000", "--n", "20"])
    assert code == 2
    assert "is a symbolic link" in _one_line(capsys)


def test_run_refuses_a_fifo_among_its_run_files_before_any_run(tmp_path, capsys):
    """A run file, the summary or the lock of ``run --out`` that is not a
    regular file is refused before the first run (a FIFO there also hung the
    resume's read)."""
    config = tmp_path / "c.toml"
    config.write_text(
        "[run]\nseed = 0\nrepetitions = 2\n[grid]\npopulation = ['heights']\n"
        "query = ['mean']\nn = [10]\ngamma = [0.05]\nmechanism = ['laplace']\n"
        "epsilon = [1.0]\n"
    )
    out = tmp_path / "out"
    (out / "runs").mkdir(parents=True)
    os.mkfifo(out / "summary.csv")
    assert main(["run", str(config), "--out", str(out)]) == 2
    assert "summary.csv" in _one_line(capsys)
    os.unlink(out / "summary.csv")
    (out / "runs").rmdir()
    os.symlink(tmp_path, out / "runs")
    assert main(["run", str(config), "--out", str(out)]) == 2
    assert "is a symbolic link, not a folder" in _one_line(capsys)
    assert not list(tmp_path.glob("*.json"))


def test_demo_refuses_a_folder_in_the_place_of_a_file(tmp_path, capsys):
    """demo wrote its files over whatever was in --out, after the work; a folder where a
    file goes is refused first (exit 2), and an empty folder still takes the demo's
    files."""
    (tmp_path / "error_vs_epsilon.csv").mkdir()
    assert main(["demo", "--out", str(tmp_path)]) == 2
    assert "is a folder" in _one_line(capsys)
    (tmp_path / "new").mkdir()
    assert len(demo_files(tmp_path / "new", figures=False)) == 1


# ------------------------------------------------------ argparse's own usage errors
@pytest.mark.parametrize(
    ("args", "said"),
    [
        (["release", "--data", "x.csv", "--column", "h", "--epsilon", "1", "--bogus", "1"],
         "sensampler release: error: unrecognized arguments: --bogus 1"),
        (["release", "--data", "x.csv", "--column", "h", "--epsilon", "1", "--inequality", "x"],
         "sensampler release: error: argument --inequality: invalid choice: 'x'"),
        (["audit", "--n"], "sensampler audit: error: argument --n: expected one argument"),
        (["release", "--epsilon", "1"],
         "sensampler release: error: the following arguments are required: --data"),
        (["bogus"], "sensampler: error: argument COMMAND: invalid choice: 'bogus'"),
    ],
)
def test_argparse_s_own_usage_errors_are_one_line(args, said, capsys):
    """argparse printed its usage block before an unknown flag, a bad choice or a
    missing argument (issue 38): one line naming the flag as typed, exit 2."""
    with pytest.raises(SystemExit) as exit_:
        main(args)
    err = capsys.readouterr().err.splitlines()
    assert exit_.value.code == 2
    assert len(err) == 1 and err[0].startswith(said), err
    assert err[0].endswith(f"(see {said.split(': error')[0]} --help)")
