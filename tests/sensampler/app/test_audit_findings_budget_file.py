"""Audit findings on budget files: a ledger path that is not a regular file must
be refused by name, with a bounded read.

Each test is expected to fail until the finding is fixed (strict xfail)."""

import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from sensampler.app.budget_file import BudgetFile, BudgetFileError
from sensampler.privacy import PrivacyStatement

pytestmark = pytest.mark.skipif(
    not hasattr(os, "mkfifo"), reason="FIFOs and /dev/zero: POSIX only"
)


def _unblock_later(fifo, after=2.0, until=4.0):
    """Open ``fifo`` for writing (without blocking) once a reader waits on it, then
    close it: a reader blocked in open() then reads end-of-file. Returns the
    thread and an event that stops it early (the reader did not wait)."""
    done = threading.Event()

    def run():
        if done.wait(after):
            return
        deadline = time.monotonic() + until
        while time.monotonic() < deadline and not done.is_set():
            try:
                os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                return
            except OSError:  # no reader: nothing to unblock
                time.sleep(0.05)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, done


def test_a_fifo_budget_file_is_refused_at_once(tmp_path):
    fifo = str(tmp_path / "ledger.json")
    os.mkfifo(fifo)
    thread, done = _unblock_later(fifo)
    start = time.monotonic()
    with pytest.raises(BudgetFileError) as info:
        BudgetFile(fifo).filter()
    elapsed = time.monotonic() - start
    done.set()
    thread.join()
    # measured: blocked until the writer came, then "not valid JSON"
    assert elapsed < 1.0
    assert "FIFO" in str(info.value) or "not a regular file" in str(info.value)


def test_a_device_budget_file_is_refused_with_a_bounded_read():
    code = textwrap.dedent(
        """
        import resource
        resource.setrlimit(resource.RLIMIT_AS, (768 * 2**20, 768 * 2**20))
        from sensampler.app.budget_file import BudgetFile, BudgetFileError
        try:
            BudgetFile("/dev/zero").filter()
        except BudgetFileError as exc:
            print("refused:", exc)
        """
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
        env=env,
    )
    # measured: MemoryError (exit 1) after reading ~0.7 GB of zeros
    assert done.returncode == 0, done.stderr[-300:]
    assert done.stdout.startswith("refused:") and "/dev/zero" in done.stdout


def test_a_hard_link_made_during_a_spend_does_not_split_the_ledger(tmp_path):
    ledger, other = str(tmp_path / "ledger.json"), str(tmp_path / "other.json")
    with BudgetFile(ledger, epsilon=1.0).session() as session:
        session.spend(PrivacyStatement("m", 0.5, 0.0), "first")
    try:
        with BudgetFile(ledger).session() as session:
            os.link(ledger, other)  # another name for the ledger, mid-spend
            session.spend(PrivacyStatement("m", 0.5, 0.0), "second")
    except BudgetFileError:
        return  # the write refused: a valid fix
    try:
        spent_through_other = BudgetFile(other).filter().spent.epsilon
    except BudgetFileError:
        return  # the other name refused: a valid fix
    # measured: 'other' holds the old ledger alone (0.5 spent, 0.5 left)
    assert spent_through_other >= 1.0


def test_a_hard_link_made_just_before_the_rename_is_refused_after_it(
    tmp_path, monkeypatch
):
    ledger, other = str(tmp_path / "ledger.json"), str(tmp_path / "other.json")
    with BudgetFile(ledger, epsilon=1.0).session() as session:
        session.spend(PrivacyStatement("m", 0.5, 0.0), "first")
    replace = os.replace

    def link_then_replace(src, dst):  # the link lands after the last count
        if dst == os.path.realpath(ledger):
            os.link(dst, other)
        replace(src, dst)

    monkeypatch.setattr(os, "replace", link_then_replace)
    with BudgetFile(ledger).session() as session:
        session.spend(PrivacyStatement("m", 0.5, 0.0), "second")
    monkeypatch.setattr(os, "replace", replace)
    assert BudgetFile(ledger).filter().spent.epsilon == pytest.approx(1.0)
    with pytest.raises(BudgetFileError, match="hard link to an old ledger"):
        BudgetFile(other).filter()
