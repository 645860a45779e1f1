"""``sensampler audit``, in process through ``sensampler.app.cli.main``."""

import json
import os

import numpy as np
import pytest

from sensampler._lib import memory as _memory
from sensampler.app import plotting
from sensampler.app.cli import _audit as _audit_cli
from sensampler.app.cli import main
from sensampler.audit import MAX_AUDIT_PAIRS
from sensampler.parallel import pairs_per_chunk

#: Small, fast settings: a few hundred milliseconds a run.
SMALL = ["--pairs", "2000", "--n", "50", "--seed", "3", "--no-progress"]
TWO = ["--population", "normal", "--population", "heavy=laplace:scale=0.7071"]


def _run(capsys, *args):
    """``(exit code, stdout, stderr)`` of ``sensampler audit args``."""
    code = main(["audit", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def _strict(text):
    """Parse JSON, refusing NaN and Infinity."""

    def refuse(constant):
        raise AssertionError(f"not strict JSON: {constant}")

    return json.loads(text, parse_constant=refuse)


def _one_line(capsys, *args):
    """Run; return (exit code, the one stderr line)."""
    code, _, err = _run(capsys, *args)
    lines = err.strip().splitlines()
    assert len(lines) == 1, lines
    assert "Traceback" not in lines[0]
    return code, lines[0]


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if the sampling starts."""

    def refuse(*args, **kwargs):
        raise AssertionError("the work started before every input was checked")

    monkeypatch.setattr(_audit_cli, "compare_populations", refuse)


def test_one_population_is_audited_against_itself(capsys):
    code, out, err = _run(capsys, *SMALL)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0].split()[:3] == ["estimated_under", "audited_under", "sensitivity"]
    row = lines[2].split()
    assert row[:2] == ["heights", "heights"] and row[7] == "2000"
    assert "conservative choice" not in out


def test_several_populations_give_the_table_and_the_choice(capsys):
    code, out, err = _run(capsys, *TWO, *SMALL, "--multiple", "3")
    assert code == 0, err
    pairs = [tuple(line.split()[:2]) for line in out.splitlines()[2:6]]
    assert pairs == [
        ("normal", "normal"),
        ("normal", "heavy"),
        ("heavy", "normal"),
        ("heavy", "heavy"),
    ]
    assert "within 3 gamma" in out.splitlines()[6]


def test_json_is_strict_and_complete(capsys):
    code, out, err = _run(capsys, *TWO, *SMALL, "--json")
    assert code == 0, err
    document = _strict(out)
    assert set(document["estimates"]) == {"normal", "heavy"}
    assert len(document["audits"]) == 4
    for row in document["audits"]:
        assert 0 <= row["lower"] <= row["rate"] <= row["upper"] <= 1
    choice = document["choice"]
    assert choice["name"] in ("normal", "heavy") and choice["limit"] == pytest.approx(
        2 * document["estimates"]["normal"]["gamma"]
    )
    code, out, _ = _run(capsys, *SMALL, "--json")
    assert code == 0 and _strict(out)["choice"] is None


def test_config_gives_what_the_flags_give(tmp_path, capsys):
    config = tmp_path / "audit.toml"
    config.write_text(
        'query = "quantile:0.9"\nn = 50\npairs = 2000\nseed = 3\nmultiple = 1.5\n'
        '[populations]\nnormal = "normal"\n'
        'heavy = {kind = "Laplace", scale = 0.7071}\n'
    )
    code, out, err = _run(capsys, "--config", str(config), "--json", "--no-progress")
    assert code == 0, err
    by_file = _strict(out)
    code, out, err = _run(
        capsys, *TWO, *SMALL, "--query", "quantile:0.9", "--multiple", "1.5", "--json"
    )
    assert code == 0, err
    by_flags = _strict(out)
    assert by_file["audits"] == by_flags["audits"]
    assert by_file["choice"] == by_flags["choice"]


@pytest.mark.slow
def test_same_seed_same_output_for_any_n_jobs(capsys):
    # a full-path query at n = 2000: each audit's 2000 pairs span 4 chunks
    assert pairs_per_chunk(2000, 8, True) == 524
    outputs = []
    for jobs in ("1", "2"):
        flags = ["--query", "quantile:0.9", *SMALL, "--n", "2000", "--n-jobs", jobs]
        code, out, err = _run(capsys, *flags)
        assert code == 0, err
        outputs.append(out)
    assert outputs[0] == outputs[1]


@pytest.mark.slow
def test_out_writes_the_table_and_the_heat_map(tmp_path, capsys):
    folder = tmp_path / "results"
    code, out, err = _run(capsys, *TWO, *SMALL, "--out", str(folder))
    assert code == 0, err
    rows = (folder / _audit_cli.CSV_NAME).read_text().splitlines()
    assert rows[0].startswith("estimated_under,audited_under") and len(rows) == 5
    if plotting.available():
        assert (folder / _audit_cli.PNG_NAME).stat().st_size > 10_000
    else:
        assert plotting.SKIPPED in err


def test_progress_bars_go_to_stderr(capsys):
    pytest.importorskip("tqdm")
    code, out, err = _run(capsys, *SMALL[:-1], "--progress", "--json")
    assert code == 0 and "pair" in err
    _strict(out)


@pytest.mark.parametrize(
    "args, message",
    [
        (["--n", "0"], "n must be an integer >= 1, got n=0."),
        (["--pairs", "0"], "pairs must be an integer >= 1"),
        (["--pairs", str(MAX_AUDIT_PAIRS + 1)], "pairs must be <= MAX_AUDIT_PAIRS"),
        (["--confidence", "1"], "confidence must be"),
        (["--multiple", "0.5"], "multiple must be >= 1"),
        (["--gamma", "2"], "gamma must be"),
        (["--m", "5"], "m=5 pairs"),
        (["--norm", "l3"], "norm must be"),
        (["--n-jobs", "0"], "n_jobs"),
        (["--seed", "-1"], "seed: random_state must be >= 0"),
        (["--query", "mode"], "unknown query 'mode'"),
        (["--population", "mars"], "--population mars: unknown population"),
        (["--population", "=normal"], "--population takes [NAME=]SPEC"),
        (
            ["--population", "a=normal", "--population", "a=heights"],
            "'a' is given twice",
        ),
        (["--population", "normal:scale=-1"], "scale must be > 0"),
        (
            [
                "--population",
                "normal",
                "--population",
                "mvn=multivariatenormal:mean=[0,0],cov=[[1,0],[0,1]]",
            ],
            "--population mvn draws records of shape (2,)",
        ),
        (
            ["--population", "normal:loc=1e306,scale=1e304", "--query", "variance"],
            "--query on --population normal:loc=1e306,scale=1e304",
        ),
        (
            ["--query", "histogram:4:150:200", "--norm", "coordinate", "--pairs", "3"],
            "pairs must be >= the 4 coordinates",
        ),
    ],
)
def test_usage_errors_exit_2_with_one_line_before_any_work(
    capsys, no_work, args, message
):
    code, err = _one_line(capsys, *args, "--no-progress")
    assert code == 2 and message in err, err


def test_pairs_beyond_memory_are_refused_before_any_work(monkeypatch, capsys, no_work):
    monkeypatch.setattr(_memory, "physical_memory", lambda: 2**30)
    code, err = _one_line(capsys, "--pairs", str(10**8), "--no-progress")
    assert code == 2 and "--pairs 100000000" in err and "physical memory" in err


def test_unwritable_out_is_a_usage_error(tmp_path, capsys, no_work):
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    code, err = _one_line(capsys, "--out", str(blocker / "results"))
    assert code == 2 and "--out" in err


def test_bad_flag_values_are_refused_by_argparse(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["audit", "--pairs", "many"])
    assert exit_.value.code == 2 and "--pairs" in capsys.readouterr().err


def test_config_errors_name_the_file_and_the_key(tmp_path, capsys, no_work):
    config = tmp_path / "audit.toml"
    cases = [
        ("pairs = 2000\nsample = 3\n", "unknown key 'sample'"),
        ("n = 2.5\n", "n must be an integer, got 2.5"),
        ("norm = 1\n", "norm must be a string, got 1"),
        ("populations = 'normal'\n", "populations must be a non-empty table"),
        ("[populations]\nx = 'mars'\n", "--population x: unknown population 'mars'"),
        ("[populations]\nx = 5\n", "--population x: expected a spec string or a table"),
        ("inequality = 'bogus'\n", "inequality must be one of 'exact', 'dkw', 'exchangeable'"),
        ("seed = true\n", "seed: random_state must be"),
        ("pairs = [\n", "malformed TOML"),
    ]
    for text, message in cases:
        config.write_text(text)
        code, err = _one_line(capsys, "--config", str(config))
        assert code == 2 and str(config) in err and message in err, err
    code, err = _one_line(capsys, "--config", str(config), "--n", "10")
    assert code == 2 and "--n was also given" in err
    code, err = _one_line(capsys, "--config", str(tmp_path / "missing.toml"))
    assert code == 2 and "cannot read --config" in err


def test_a_failure_during_the_work_exits_1(monkeypatch, capsys):
    calls = iter(range(10**9))

    def flaky(x):  # finite on the check's probe, then NaN
        return float("nan") if next(calls) > 3 else float(np.mean(x))

    monkeypatch.setattr(_audit_cli, "parse_query", lambda text: flaky)
    code, err = _one_line(capsys, *SMALL)
    assert code == 1 and "NaN" in err


def test_ctrl_c_exits_130(monkeypatch, capsys):
    def interrupt(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(_audit_cli, "compare_populations", interrupt)
    code, err = _one_line(capsys, *SMALL)
    assert code == 130 and "interrupted" in err


def test_help_lists_every_flag(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["audit", "--help"])
    text = capsys.readouterr().out
    assert exit_.value.code == 0
    for flag in ("--query", "--population", "--pairs", "--multiple", "--config"):
        assert flag in text


def test_every_plan_bound_can_be_audited(capsys):
    code, out, err = _run(capsys, *SMALL, "--inequality", "exchangeable", "--json")
    assert code == 0, err
    result = _strict(out)
    assert result["estimates"]["heights"]["plan"]["inequality"] == "exchangeable"
    assert [audit["inequality"] for audit in result["audits"]] == ["exchangeable"]


def test_neighbours_reaches_every_run_and_audit(tmp_path, capsys):
    code, out, err = _run(capsys, *SMALL, "--neighbours", "add-remove", "--json")
    assert code == 0, err
    document = _strict(out)
    assert document["estimates"]["heights"]["neighbours"] == "add-remove"
    assert [row["neighbours"] for row in document["audits"]] == ["add-remove"]
    code, out, err = _run(capsys, *SMALL, "--neighbours", "add-remove")
    assert code == 0, err
    header, _, row = out.splitlines()[:3]
    assert header.split()[-1] == "neighbours" and row.split()[-1] == "add-remove"
    code, out, err = _run(capsys, *SMALL, "--json")
    assert _strict(out)["estimates"]["heights"]["neighbours"] == "replace-one"
    config = tmp_path / "audit.toml"
    config.write_text('n = 50\npairs = 2000\nseed = 3\nneighbours = "add-remove"\n')
    code, out, err = _run(capsys, "--config", str(config), "--json", "--no-progress")
    assert code == 0, err
    assert _strict(out)["audits"] == document["audits"]


def test_add_remove_with_one_record_is_a_usage_error(tmp_path, capsys, no_work):
    code, err = _one_line(capsys, "--n", "1", "--neighbours", "add-remove")
    assert code == 2 and "neighbours='add-remove' needs n >= 2" in err, err
    config = tmp_path / "audit.toml"
    for text, message in [
        ('n = 1\nneighbours = "add-remove"\n', "needs n >= 2"),
        ('neighbours = "swap"\n', "neighbours must be one of"),
        ("neighbours = 1\n", "neighbours must be a string, got 1"),
    ]:
        config.write_text(text)
        code, err = _one_line(capsys, "--config", str(config))
        assert code == 2 and str(config) in err and message in err, err
    with pytest.raises(SystemExit) as exit_:
        main(["audit", "--neighbours", "swap"])
    assert exit_.value.code == 2 and "--neighbours" in capsys.readouterr().err


def test_a_report_over_an_input_file_is_refused_before_any_work(
    tmp_path, capsys, no_work
):
    # Before: only release --report compared its path with the input files; an
    # audit replaced its own --config file or public records with the report.
    config = tmp_path / "audit.toml"
    config.write_text("n = 50\npairs = 2000\n")
    records = tmp_path / "public.csv"
    records.write_text("".join(f"{v}\n" for v in np.linspace(150, 190, 60)))
    (tmp_path / "link.toml").symlink_to(config)
    os.link(records, tmp_path / "hard.csv")
    empirical = f'pub=empirical:path="{records}"'
    cases = [
        (["--config", str(config)], config, "the --config file"),
        # issue 37: a symbolic link is refused as such, whatever it leads to
        (["--config", str(config)], tmp_path / "link.toml", "a symbolic link"),
        (["--population", empirical], records, "the --population pub file"),
        (["--population", empirical], tmp_path / "hard.csv", "the --population pub file"),
    ]
    for args, report, what in cases:
        before = config.read_text(), records.read_text()
        code, err = _one_line(capsys, *args, "--report", str(report), "--no-progress")
        assert code == 2 and f"report={str(report)!r} is {what}" in err, err
        assert (config.read_text(), records.read_text()) == before
    config.write_text(
        f'n = 50\npairs = 2000\n[populations]\npub = {{kind = "Empirical", '
        f'path = "{records}"}}\n'
    )
    code, err = _one_line(capsys, "--config", str(config), "--report", str(records))
    assert code == 2 and "is the --population pub file" in err, err


# -------------------------------------------------- a query that depends on the order
# Issue 37: ``sensampler audit --query identity`` exited 1, a usage error found during
# the work (the sampler's order check); it is now found before any sampling, exit 2,
# one line.


def test_an_order_dependent_query_is_a_usage_error(capsys, monkeypatch):
    """Refused by the probe of the check phase: the work is never started."""
    started = []
    monkeypatch.setattr(
        _audit_cli, "compare_populations", lambda *a, **k: started.append(1)
    )
    code = main(["audit", "--query", "identity", "--pairs", "2000", "--no-progress"])
    err = capsys.readouterr().err.strip().splitlines()
    assert code == 2 and started == []
    assert len(err) == 1 and "depends on the order of the records" in err[0]
    assert "Traceback" not in err[0]


@pytest.mark.parametrize("query", ["mean", "median", "histogram:4:150:200"])
def test_order_free_queries_still_pass_the_check(capsys, query):
    """What holds: the probe refuses only order-dependent queries; a mean, a median and
    a histogram still pass the check and run (exit 0)."""
    code = main(["audit", "--query", query, "--pairs", "2000", "--n", "30",
                 "--seed", "1", "--no-progress"])
    assert code == 0, capsys.readouterr().err
