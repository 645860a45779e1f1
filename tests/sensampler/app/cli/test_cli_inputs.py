"""No input can take the machine, and each refusal comes in its phase with one clear
line: files, memory, flags and interruptions of the ``sensampler`` command.

In process through :func:`sensampler.app.cli.main` where possible (FIFOs with a
watchdog that opens a writer if the command waits for one); in a subprocess (with a
timeout, and an address-space limit where the old behaviour was to eat memory) for
devices and signals.
"""

import contextlib
import os
import re
import subprocess
import sys
import textwrap
import threading

import pytest

from sensampler._lib import memory as _memory
from sensampler.app import release
from sensampler.app.cli import _audit as _audit_cli
from sensampler.app.cli import main

ROOT = os.path.abspath(
    os.path.join(os.path.dirname(__file__), "..", "..", "..", "..")
)
GiB = 2**30


def _one_line(capsys, *argv):
    """``(exit code, the one stderr line)`` of ``sensampler argv``, in process."""
    code = main(list(argv))
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    return code, err[0]


@pytest.fixture
def data(tmp_path):
    path = tmp_path / "private.csv"
    path.write_text("x\n" + "".join(f"{v}\n" for v in range(1, 11)))
    return str(path)


@pytest.fixture
def no_work(monkeypatch):
    """Fail the test if any sampling starts."""

    def refuse(*args, **kwargs):
        raise AssertionError("the work started before every input was checked")

    monkeypatch.setattr(_audit_cli, "compare_populations", refuse)
    monkeypatch.setattr(release._running, "sample_sensitivity", refuse)


@pytest.fixture
def available_3_gib(monkeypatch, tmp_path):
    """A machine of 23.5 GiB with 3 GiB available (as /proc/meminfo says)."""
    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal: 24684092 kB\nMemAvailable: 3145728 kB\n")
    monkeypatch.setattr(_memory, "MEMINFO", str(meminfo))
    monkeypatch.setattr(_memory, "physical_memory", lambda: 24684092 * 1024)


def _release(data, *flags):
    return [
        "release", "--data", data, "--column", "x", "--epsilon", "1", "--seed", "1",
        *flags,
    ]


NORMAL = ["--population", "normal:loc=0,scale=1"]


# -- phases: refused before any work, exit 2 ------------------------------------


@pytest.mark.parametrize(
    "argv, message",
    [
        (  # was exit 1, from the sampler
            ["audit", "--n", str(2**63), "--pairs", "1000"],
            f"n must be <= MAX_N={2**63 - 1}, got n={2**63}.",
        ),
        (  # was exit 1, after the probes (while --pairs 1e9 gave 2)
            ["audit", "--m", str(10**9)],
            "--m 1000000000: m=1000000000 pairs of 1 sensitivity each",
        ),
    ],
)
def test_audit_sizes_are_checked_before_work(capsys, monkeypatch, no_work, argv, message):
    monkeypatch.setattr(_memory, "physical_memory", lambda: 16 * GiB)
    code, err = _one_line(capsys, *argv, "--no-progress")
    assert code == 2 and message in err, err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["audit", "--pairs", str(4 * 10**8)], "--pairs 400000000: m=400000000 pairs"),
        (["sample", "--m", str(4 * 10**8)], "more than the 3 GiB of memory available"),
    ],
)
def test_work_beyond_limits_is_refused_before_it_starts(
    capsys, no_work, available_3_gib, argv, message
):
    code, err = _one_line(capsys, *argv, "--no-progress")
    assert code == 2 and message in err, err


def test_release_of_identity_is_refused_before_sampling(capsys, no_work, data):
    # Was accepted, then failed after sampling (exit 1) advising order_dependent=True,
    # which no flag sets.
    code, err = _one_line(capsys, *_release(data, *NORMAL, "--query", "identity"))
    assert code == 2 and "query 'identity' publishes the records themselves" in err
    assert "release a statistic: mean, sum, median" in err
    assert "order_dependent" not in err


def test_release_with_too_many_workers_is_refused_before_sampling(capsys, no_work, data):
    code, err = _one_line(capsys, *_release(data, *NORMAL, "--n-jobs", "100000"))
    assert code == 2 and "100000 worker(s)) need about" in err, err
    assert err.endswith("or fewer workers than --n-jobs 100000."), err  # as typed


@pytest.mark.parametrize(
    "mechanism, granularity, message",
    [
        # was exit 1 after sampling, quoting the private answer (value=5.5)
        ("discrete-laplace", "1e-300", "granularity=1e-300 is too fine for the answer"),
        # was OverflowError after sampling
        ("discrete-gaussian", "5e-324", "granularity must be >= 2.2250738585072014e-308"),
        ("discrete-laplace", "1e300", "--granularity 1e+300 is too coarse for --epsilon 1.0"),
        ("discrete-gaussian", "1e300", "--granularity 1e+300 is too coarse for --epsilon 1.0"),
    ],
)
def test_a_grid_that_cannot_work_is_refused_before_sampling(
    capsys, no_work, data, mechanism, granularity, message
):
    delta = ["--delta", "1e-6"] if mechanism == "discrete-gaussian" else []
    argv = _release(
        data, *NORMAL, "--mechanism", mechanism, "--granularity", granularity, *delta
    )
    code, err = _one_line(capsys, *argv)
    assert code == 2 and message in err, err
    assert "5.5" not in err  # the private answer is never quoted


def test_a_tiny_grid_on_zero_data_is_refused_before_sampling(capsys, no_work, tmp_path):
    # The answer 0 passes any grid; 5e-324 (subnormal) raised OverflowError.
    zeros = tmp_path / "zeros.csv"
    zeros.write_text("x\n0\n0\n0\n")
    argv = _release(
        str(zeros), *NORMAL, "--mechanism", "discrete-gaussian", "--delta", "1e-6",
        "--granularity", "5e-324",
    )
    code, err = _one_line(capsys, *argv)
    assert code == 2 and "granularity must be >=" in err and "Overflow" not in err


# -- messages -------------------------------------------------------------------


def test_an_overflowing_population_is_one_sentence_before_sampling(capsys, no_work, data):
    # Was exit 1 with "... overflows float64. on a probe database ...".
    code, err = _one_line(capsys, *_release(data, "--population", "normal:loc=1e308,scale=1e300"))
    assert code == 2 and "drawn from the population model" in err and ". on" not in err
    code, err = _one_line(
        capsys, "audit", "--population", "normal:loc=1e308,scale=1e300", "--no-progress"
    )
    assert code == 2 and "overflows float64, on a probe database" in err, err


def test_unknown_population_keys_list_the_valid_ones(capsys, no_work, data):
    code, err = _one_line(capsys, *_release(data, "--population", "normal:mean=170"))
    assert code == 2
    assert err.endswith("unknown parameter(s) 'mean' for Normal; its parameters: loc, scale.")


def test_a_data_file_as_population_suggests_bootstrap(capsys, no_work, data):
    code, err = _one_line(capsys, *_release(data, "--population", "public.csv"))
    assert code == 2 and "write 'bootstrap:public.csv'" in err, err
    code, err = _one_line(capsys, "audit", "--population", "public.csv")
    assert code == 2 and err.endswith("is 'empirical:path=\"public.csv\"'."), err


@pytest.mark.parametrize("text", ["1_000", "\u0663", "\uff15"])
def test_a_data_file_holds_ascii_numbers_only(capsys, no_work, tmp_path, text):
    # float() reads all three; the release took them as numbers.
    path = tmp_path / "d.csv"
    path.write_text(f"x\n1\n{text}\n", encoding="utf-8")
    code, err = _one_line(capsys, *_release(str(path), *NORMAL))
    assert code == 2 and "line 3 (record 2): column 'x' is not a number" in err


def test_a_bad_byte_names_its_line(capsys, no_work, tmp_path):
    # Said "after line 0".
    path = tmp_path / "d.csv"
    path.write_bytes(b"x\n\xff\n2\n")
    code, err = _one_line(capsys, *_release(str(path), *NORMAL))
    assert code == 2 and err.endswith("d.csv, line 2: not UTF-8 text."), err


BOM = b"\xef\xbb\xbf"


def test_toml_files_may_start_with_a_byte_order_mark(capsys, tmp_path, data):
    # Each gave "Invalid statement (at line 1, column 1)".
    population = tmp_path / "population.toml"
    population.write_bytes(BOM + b'[population]\nkind = "Normal"\nloc = 0\nscale = 1\n')
    code = main(_release(data, "--population", str(population)))
    assert code == 0, capsys.readouterr().err
    config = tmp_path / "audit.toml"
    config.write_bytes(BOM + b'pairs = 1000\nn = 20\nseed = 1\n[populations]\na = "normal"\n')
    code = main(["audit", "--config", str(config), "--no-progress"])
    assert code == 0, capsys.readouterr().err


def test_an_interrupted_release_does_not_claim_kept_work(capsys, monkeypatch, data):
    def interrupted(self, step=None):
        raise KeyboardInterrupt

    monkeypatch.setattr(release.PreparedRelease, "run", interrupted)
    code, err = _one_line(capsys, *_release(data, *NORMAL))
    assert code == 130
    assert err == (
        "sensampler release: interrupted; no answer was printed (a --budget-file "
        "keeps any spend already written to it)"
    )


# -- files that are not files, and files without end: subprocesses --------------


def _sensampler(*argv, limit_bytes=None, timeout=60):
    """Run the command in a subprocess (an address-space limit if given)."""
    code = "import sys; from sensampler.app.cli import main; sys.exit(main(sys.argv[1:]))"
    if limit_bytes is not None:
        code = (
            "import resource; resource.setrlimit(resource.RLIMIT_AS, "
            f"({limit_bytes}, resource.RLIM_INFINITY)); " + code
        )
    return subprocess.run(
        [sys.executable, "-c", code, *argv], capture_output=True, text=True,
        timeout=timeout, env=dict(os.environ),
    )


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")
def test_a_fifo_is_refused_by_name_without_hanging(tmp_path, data, capsys):
    # Each hung, waiting for a writer that never comes.
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    cases = [
        (_release(str(fifo), *NORMAL), "data file"),
        (_release(data, *NORMAL, "--budget-file", str(fifo)), "--budget-file"),
        (["audit", "--config", str(fifo)], "--config"),
        (["run", str(fifo), "--out", str(tmp_path / "out")], "config"),
        (["sample", "--population-file", str(fifo)], "--population-file"),
    ]
    for argv, what in cases:  # in process, a writer opened for it if it waits
        hung = threading.Event()

        def release(hung=hung):
            hung.set()
            with contextlib.suppress(OSError):  # no reader waiting: nothing to free
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))

        watchdog = threading.Timer(30.0, release)
        watchdog.start()
        try:
            code, line = _one_line(capsys, *argv)
        finally:
            watchdog.cancel()
        assert not hung.is_set(), f"{argv} waited for a writer"
        assert code == 2
        assert f"{what} {fifo} is a FIFO (named pipe), not a regular file" in line


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="RLIMIT_AS, /dev/zero")
@pytest.mark.parametrize(
    "argv, message",
    [
        (
            ["release", "--data", "/dev/zero", "--column", "x", "--epsilon", "1",
             "--population", "normal"],
            "data file /dev/zero is a device, not a regular file",
        ),
        (
            ["audit", "--population", 'empirical:path="/dev/zero"'],
            "records file /dev/zero is a device, not a regular file",
        ),
    ],
)
def test_dev_zero_is_refused_by_name(argv, message):
    # Each read without end: 2.7 GB within 60 s, MemoryError later.
    out = _sensampler(*argv, limit_bytes=2 * GiB)
    assert out.returncode == 2 and message in out.stderr, out.stderr


def test_a_regular_file_without_line_breaks_is_refused_at_the_line_limit(
    capsys, no_work, tmp_path
):
    path = tmp_path / "zeros.csv"
    path.write_bytes(b"x\n" + b"0" * (2**20 + 1))
    code, err = _one_line(capsys, *_release(str(path), *NORMAL))
    assert code == 2 and re.search(r"line 2: longer than 1048576 bytes", err), err


CTRL_C_WHILE_LOADING = textwrap.dedent(
    """
    import runpy, sys

    class CtrlC:  # a Ctrl-C while the command line's modules load
        def find_spec(self, name, path=None, target=None):
            if name == "sensampler.app.plotting":
                raise KeyboardInterrupt
            return None

    sys.meta_path.insert(0, CtrlC())
    sys.argv = ["sensampler", "sampling-plan", "--gamma", "0.05"]
    runpy.run_module("sensampler", run_name="__main__", alter_sys=True)
    """
)


@pytest.mark.slow
def test_ctrl_c_while_loading_is_one_line():
    # Printed a 20-line traceback through the import machinery.
    out = subprocess.run(
        [sys.executable, "-c", CTRL_C_WHILE_LOADING], capture_output=True, text=True,
        timeout=120, env=dict(os.environ),
    )
    assert out.returncode == 130
    assert out.stderr.strip().splitlines() == ["sensampler: interrupted"]
