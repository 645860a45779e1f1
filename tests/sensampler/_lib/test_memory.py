"""The measured memory model: refusals before any work, and a model never below a
footprint measured at a small size."""

import os
import re
import subprocess
import sys

import pytest

from sensampler import queries, sample_sensitivity
from sensampler._lib import memory as _memory
from sensampler.app.experiments import sensitivity_sweep
from sensampler.distributions import GaussianMixture, Normal
from sensampler.parallel import DEFAULT_CHUNK_BYTES
from tests.conftest import traced_peak

GiB = 2**30
#: The repository: tests/sensampler/_lib/ is three folders below it.
ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


class _Counting(Normal):
    def __init__(self):
        super().__init__()
        self.draws = 0

    def sample_batch(self, *args, **kwargs):
        self.draws += 1
        return super().sample_batch(*args, **kwargs)


@pytest.fixture
def small_machine(monkeypatch):
    """A machine with 16 GiB: the refusals below hold whatever this one has."""
    monkeypatch.setattr(_memory, "physical_memory", lambda: 16 * GiB)


def test_the_sampler_model_is_not_below_a_measured_footprint():
    # Failed before: the check counted 16 bytes a sensitivity, 32 are held.
    m = 200_000
    peak = traced_peak(
        lambda: sample_sensitivity(queries.mean, Normal(), 100, m=m, random_state=0)
    )
    # Three float64 copies of the m sensitivities at the peak (the chunks'
    # results, their concatenation, the estimate's copy); four while the
    # sampler's one function kept the chunks' results alive to its end.
    assert peak > 22 * m
    model = _memory.sampler_bytes(m, 1, 100, 8, additive=True)
    assert peak <= model
    # the sensitivities alone, without the chunk's allowance, also cover it
    assert peak - 3 * DEFAULT_CHUNK_BYTES <= _memory.SENSITIVITY_BYTES * m


def test_the_sweep_model_is_not_below_a_measured_footprint():
    # Failed before: the check allowed 2 copies of the databases; the heights
    # mixture's draws hold 3.1, a histogram 4.1.
    population = GaussianMixture([[178, 7], [162, 6.5]], [0.5, 0.5])
    n, repetitions = 20_000, 50
    for query in (queries.mean, queries.histogram(10, range=(150.0, 200.0))):
        peak = traced_peak(
            lambda q=query: sensitivity_sweep(
                q, population, n, [1.0], {"x": 1.0}, repetitions=repetitions,
                random_state=0, n_jobs=1,
            )
        )
        assert peak > 2 * repetitions * n * 8  # the old allowance
        answer = 1 if query is queries.mean else 10
        assert peak <= _memory.sweep_bytes(repetitions, n, 8, answer, 1)


@pytest.mark.slow
def test_the_sweep_model_counts_answers_and_rows():
    # queries.identity answers with a whole database: 5 rows per coordinate.
    n, repetitions = 300, 5
    peak = traced_peak(
        lambda: sensitivity_sweep(
            queries.identity, Normal(), n, [1.0, 2.0], {"x": 1.0},
            repetitions=repetitions, random_state=0, n_jobs=1,
        )
    )
    assert peak <= _memory.sweep_bytes(repetitions, n, 8, n, 2)


def test_a_billion_pairs_are_refused_before_drawing(small_machine):
    pop = _Counting()
    message = (
        "m=1000000000 pairs of 1 sensitivity each (40 bytes a sensitivity, 1 "
        "worker(s)) need about 37.3 GiB, more than this machine's 16 GiB of "
        "physical memory: lower m"
    )
    with pytest.raises(ValueError, match=re.escape(message)):
        sample_sensitivity(queries.mean, pop, 100, m=10**9, n_jobs=1)
    assert pop.draws == 1  # the probe only, which holds a few records
    # 5e8 pairs fit in 16 GiB at 8 bytes (the old check) but not at 40.
    with pytest.raises(ValueError, match="m=500000000 pairs"):
        sample_sensitivity(queries.mean, pop, 100, m=5 * 10**8, n_jobs=1)


def test_per_coordinate_sensitivities_count_each_coordinate(small_machine):
    hist = queries.histogram(1000, range=(-3.0, 3.0))
    with pytest.raises(ValueError, match="pairs of 1000 sensitivities each"):
        sample_sensitivity(hist, Normal(), 100, m=10**6, norm="coordinate")


def test_workers_hold_a_chunk_each(small_machine):
    need = _memory.sampler_bytes(10, 1, 10**8, 8, additive=False, workers=4)
    assert need == 40 * 10 + 4 * 5 * 8 * 10**8  # one 0.8 GB database each, x5


def test_a_sweep_that_does_not_fit_is_refused_before_drawing(small_machine):
    pop = _Counting()
    with pytest.raises(ValueError, match=re.escape("repetitions=100000 databases")):
        sensitivity_sweep(
            queries.mean, pop, 10**4, [1.0], {"x": 1.0}, repetitions=10**5
        )
    assert pop.draws == 0
    # answers as large as the database, and their rows, are counted too: 2 GiB
    # of databases, 9 x 2 GiB of answers.
    with pytest.raises(ValueError, match="answers of 10000 numbers"):
        sensitivity_sweep(
            queries.identity, pop, 10**4, [1.0], {"x": 1.0}, repetitions=25_000
        )
    assert pop.draws == 1  # the probe database only


def _platform(monkeypatch, tmp_path, *, meminfo=None, cgroup=None, files=None):
    """A platform whose /proc and cgroup files are the ones given (none: absent)."""
    monkeypatch.setattr(_memory, "physical_memory", lambda: None)
    monkeypatch.setattr(_memory, "resource", None)
    paths = {}
    for name, text in (("meminfo", meminfo), ("cgroup", cgroup)):
        paths[name] = str(tmp_path / name)
        if text is not None:
            (tmp_path / name).write_text(text)
    root = tmp_path / "sys"
    for relative, text in (files or {}).items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_text(text)
    monkeypatch.setattr(_memory, "MEMINFO", paths["meminfo"])
    monkeypatch.setattr(_memory, "PROC_CGROUP", paths["cgroup"])
    monkeypatch.setattr(_memory, "CGROUP_ROOT", str(root))


def test_check_fits_is_silent_where_the_platform_does_not_say(monkeypatch, tmp_path):
    _platform(monkeypatch, tmp_path)
    assert _memory.available_memory() is None
    _memory.check_fits("anything", 10**30, "no advice")


MEMINFO = "MemTotal:       24684092 kB\nMemFree: 1 kB\nMemAvailable:    3145728 kB\n"


def test_the_guard_compares_with_available_memory_not_total(monkeypatch, tmp_path):
    # Failed before: the guard compared with total RAM (here 23.5 GiB), so
    # m = 4e8 (about 15 GiB) passed on a machine with 3 GiB available.
    _platform(monkeypatch, tmp_path, meminfo=MEMINFO)
    monkeypatch.setattr(_memory, "physical_memory", lambda: 24684092 * 1024)
    assert _memory.available_memory()[0] == 3 * GiB
    with pytest.raises(
        ValueError, match=re.escape("more than the 3 GiB of memory available (MemAvailable)")
    ):
        _memory.check_sampling_fits(4 * 10**8, 1, 100, 8, True)


@pytest.mark.parametrize(
    "cgroup, files",
    [
        ("0::/box\n", {"box/memory.max": "2147483648\n", "box/memory.current": "0\n"}),
        (  # the container's own cgroup mounted at the root
            "0::/host/path\n",
            {"memory.max": "2147483648\n", "memory.current": "0\n"},
        ),
        (
            "4:memory:/box\n1:cpu:/\n",
            {
                "memory/box/memory.limit_in_bytes": "3221225472\n",
                "memory/box/memory.usage_in_bytes": "1073741824\n",
            },
        ),
    ],
)
def test_the_guard_honours_a_cgroup_limit(monkeypatch, tmp_path, cgroup, files):
    _platform(monkeypatch, tmp_path, meminfo=MEMINFO.replace("3145728", "20000000"),
              cgroup=cgroup, files=files)
    size, source = _memory.available_memory()
    assert size == 2 * GiB and "cgroup" in source
    with pytest.raises(ValueError, match="cgroup memory limit: lower m"):
        _memory.check_sampling_fits(10**8, 1, 100, 8, True)


def test_an_unlimited_cgroup_is_no_limit(monkeypatch, tmp_path):
    files = {"memory.max": "max\n", "memory/memory.limit_in_bytes": "9223372036854771712\n"}
    _platform(monkeypatch, tmp_path, cgroup="0::/\n5:memory:/\n", files=files)
    assert _memory.available_memory() is None


@pytest.mark.slow
@pytest.mark.skipif(sys.platform != "linux", reason="RLIMIT_AS and /proc: Linux")
def test_the_guard_honours_rlimit_as_in_a_real_process():
    # Failed before: m = 4e8 was accepted under a 3 GiB address-space limit and
    # died of MemoryError after a minute (exit 1); now refused at once (exit 2).
    code = (
        "import resource, sys; "
        "resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, resource.RLIM_INFINITY)); "
        "from sensampler.app.cli import main; "
        "sys.exit(main(['sample', '--m', '400000000', '--n', '10']))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
        env=dict(os.environ),
    )
    assert out.returncode == 2, out.stderr
    assert "left under this process's RLIMIT_AS" in out.stderr


def test_small_work_is_let_through_without_reading_the_limits(monkeypatch):
    # Before: every call read /proc and the cgroup files (0.14 ms of a 0.37 ms
    # sampling call); work of at most 64 MiB cannot take a machine.
    def unread():
        raise AssertionError("the limits were read")

    monkeypatch.setattr(_memory, "available_memory", unread)
    _memory.check_fits("small work", _memory.UNCHECKED_BYTES, "no advice")
    with pytest.raises(AssertionError, match="the limits were read"):
        _memory.check_fits("larger work", _memory.UNCHECKED_BYTES + 1, "no advice")
