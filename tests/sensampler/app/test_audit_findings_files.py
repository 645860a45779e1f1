"""Issue 37: every file the commands and the release write is checked before any work.

"Files the release writes": a report, figure, CSV, run folder or budget lock
that is a FIFO, a symbolic link, a folder or a device was replaced (or written
through) after the work, and the release was charged first. "A report that
cannot be written after the budget was charged": a 300-character report name
passed the check and failed at the write, the budget spent. "A lock path that
is a folder" exited 1 after reading everything. Each destination is now refused
before anything is sampled or spent, with exit code 2.
"""

import json
import os
import stat

import pytest

from sensampler.accounting import PrivacyFilter
from sensampler.app import plotting
from sensampler.app.cli import main
from sensampler.app.demo import demo_files
from sensampler.app.experiments import runs_before_budget
from sensampler.app.release import release_statistics
from sensampler.app.report import check_report_path
from sensampler.distributions import GaussianMixture
from sensampler.table import OutputFileError

HEIGHTS = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
FAST = ["--population", "normal:loc=170,scale=10", "--epsilon", "0.5", "--seed", "0"]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "private.csv"
    values = HEIGHTS.sample(200, random_state=1)
    path.write_text("height\n" + "\n".join(f"{x:.4f}" for x in values) + "\n")
    return str(path)


def _release(data, ledger, *more):
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


def test_the_null_device_as_a_report_is_refused_by_the_check():
    """As root the old release replaced /dev/null with a regular file; the
    check refuses it now (only checked here: nothing writes the device)."""
    with pytest.raises(OutputFileError, match="is a device"):
        check_report_path("/dev/null")


def test_a_fifo_report_is_refused_before_any_spend(data, tmp_path, capsys):
    """A FIFO at --report was replaced by the report, after the spend."""
    fifo = tmp_path / "report.html"
    os.mkfifo(fifo)
    ledger = tmp_path / "ledger.json"
    assert _release(data, ledger, "--report", str(fifo)) == 2
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
    assert _release(data, ledger, "--report", str(link)) == 2
    assert "is a symbolic link" in _one_line(capsys)
    assert os.path.islink(link) and target.read_text() == "mine"
    assert not ledger.exists()


def test_a_report_name_too_long_is_refused_before_any_charge(data, tmp_path, capsys):
    """A 300-character name passed the old check, the budget was charged, then
    the write failed (rc 1, ``File name too long``) and no answer was printed."""
    ledger = tmp_path / "ledger.json"
    name = tmp_path / ("r" * 296 + ".html")
    assert _release(data, ledger, "--report", str(name)) == 2
    assert "longer than the" in _one_line(capsys)
    assert not ledger.exists()
    # the longest name that fits, with the temporary file's prefix, is written
    fits = tmp_path / ("r" * (os.pathconf(tmp_path, "PC_NAME_MAX") - 21 - 5) + ".html")
    assert _release(data, ledger, "--report", str(fits)) == 0
    assert fits.read_text().startswith("<!DOCTYPE html>")
    assert json.loads(ledger.read_text())["entries"]


def test_the_python_release_refuses_a_bad_report_before_spending(tmp_path):
    """release_statistics: the same check, before the filter is charged."""
    budget = PrivacyFilter(2.0)
    fifo = tmp_path / "r.html"
    os.mkfifo(fifo)
    for report in (fifo, tmp_path / ("r" * 300)):
        with pytest.raises(ValueError, match="report="):
            release_statistics(
                HEIGHTS.sample(50, random_state=0), ["mean"], HEIGHTS,
                epsilon=0.5, budget=budget, report=report,
            )
    assert budget.count == 0
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)


def test_a_budget_lock_that_is_a_folder_is_a_usage_error(data, tmp_path, capsys):
    """A folder at FILE.lock exited 1 after the data and budget were read."""
    ledger = tmp_path / "ledger.json"
    (tmp_path / "ledger.json.lock").mkdir()
    assert _release(data, ledger) == 2
    assert "budget file lock" in _one_line(capsys)
    assert not ledger.exists()


def test_a_budget_lock_that_is_a_link_is_refused(data, tmp_path, capsys):
    """A lock is opened for writing: a link there would be followed."""
    ledger = tmp_path / "ledger.json"
    os.symlink(tmp_path / "elsewhere", tmp_path / "ledger.json.lock")
    assert _release(data, ledger) == 2
    assert "is a symbolic link" in _one_line(capsys)
    assert not (tmp_path / "elsewhere").exists()


def test_sweep_refuses_a_fifo_in_out_before_the_sweep(tmp_path, capsys):
    """sweep wrote error_vs_epsilon.csv onto whatever was there, after the work."""
    os.mkfifo(tmp_path / "error_vs_epsilon.csv")
    code = main(
        ["sweep", "--out", str(tmp_path), "--repetitions", "2", "--n", "20",
         "--sensitivities", "1.0", "--epsilons", "1"]
    )
    assert code == 2
    assert "is a FIFO" in _one_line(capsys)
    assert stat.S_ISFIFO(os.lstat(tmp_path / "error_vs_epsilon.csv").st_mode)


def test_audit_refuses_a_link_in_out_before_sampling(tmp_path, capsys):
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
    (tmp_path / "error_vs_epsilon.csv").mkdir()
    assert main(["demo", "--out", str(tmp_path)]) == 2
    assert "is a folder" in _one_line(capsys)
    (tmp_path / "new").mkdir()
    assert len(demo_files(tmp_path / "new", figures=False)) == 1


@pytest.mark.skipif(not plotting.available(), reason="needs matplotlib")
def test_a_figure_is_written_atomically_and_never_through_a_link(tmp_path):
    """savefig opened the path itself: it wrote through a link or into a FIFO."""
    table = runs_before_budget([0.02, 0.2])
    target = tmp_path / "theirs.png"
    target.write_bytes(b"theirs")
    os.symlink(target, tmp_path / "fig.png")
    with pytest.raises(OutputFileError, match="is a symbolic link"):
        plotting.plot_runs_before_budget(table, tmp_path / "fig.png")
    assert target.read_bytes() == b"theirs"
    plotting.plot_runs_before_budget(table, tmp_path / "new.png")
    assert (tmp_path / "new.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    plotting.plot_runs_before_budget(table, tmp_path / "new.svg")
    assert b"<svg" in (tmp_path / "new.svg").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "fig.png", "new.png", "new.svg", "theirs.png"
    ]


def test_the_check_passes_a_new_name_and_a_regular_file(tmp_path):
    assert check_report_path(tmp_path / "new.html") == str(tmp_path / "new.html")
    (tmp_path / "old.html").write_text("x")
    assert check_report_path(tmp_path / "old.html")
