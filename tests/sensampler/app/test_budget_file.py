import json
import os
import re
import signal
import subprocess
import sys
import textwrap
import threading
import time

import pytest

from sensampler.accounting import ExceededPrivacyBudgetError, PrivacyFilter
from sensampler.app.budget_file import (
    BudgetFile,
    BudgetFileError,
    _checksum,
    replay_filter,
)
from sensampler.privacy import PrivacyStatement, SamplingRun


def _statement(epsilon, delta=0.0, gamma=0.05, run_id="r"):
    return PrivacyStatement(
        "Laplace", epsilon, delta, run=SamplingRun(run_id, gamma), source="sampled"
    )


def _spend(budget, *statements):
    with budget.session() as session:
        for s in statements:
            session.spend(s, "test")


def test_created_with_its_budget_then_spent_and_replayed(tmp_path):
    path = tmp_path / "ledger.json"
    budget = BudgetFile(path, epsilon=1.0, delta=1e-6, gamma=0.2)
    assert not budget.exists()
    _spend(budget, _statement(0.3, run_id="a"), _statement(0.3, 1e-7, run_id="b"))
    again = BudgetFile(path).filter()
    assert again.spent.epsilon == pytest.approx(0.6)
    assert again.spent.delta == pytest.approx(1e-7)
    assert again.gamma == pytest.approx(0.1)  # one gamma per run
    assert again.count == 2
    record = json.loads(path.read_text())
    assert record["budget"] == {"epsilon": 1.0, "delta": 1e-6, "gamma": 0.2, "rule": "basic"}
    assert [e["run_id"] for e in record["entries"]] == ["a", "b"]


def test_refused_without_a_budget_when_missing(tmp_path):
    path = tmp_path / "ledger.json"
    with pytest.raises(BudgetFileError, match="does not exist; create it"):
        BudgetFile(path).filter()
    with pytest.raises(BudgetFileError, match="does not exist"):
        _spend(BudgetFile(path), _statement(0.1))
    assert not path.exists()


def test_another_budget_for_an_existing_file_is_refused(tmp_path):
    path = tmp_path / "ledger.json"
    _spend(BudgetFile(path, epsilon=1.0), _statement(0.1))
    BudgetFile(path, epsilon=1.0).filter()  # the same budget is fine
    with pytest.raises(BudgetFileError, match="holds the budget epsilon=1.0"):
        BudgetFile(path, epsilon=2.0).filter()


def test_a_refused_spend_writes_nothing(tmp_path):
    path = tmp_path / "ledger.json"
    _spend(BudgetFile(path, epsilon=1.0), _statement(0.6, run_id="a"))
    before = path.read_bytes()
    with pytest.raises(ExceededPrivacyBudgetError):
        # the first fits, the second does not: neither is written
        _spend(BudgetFile(path), _statement(0.3, run_id="b"), _statement(0.3, run_id="c"))
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp")] == []


def test_gamma_budget_is_enforced(tmp_path):
    path = tmp_path / "ledger.json"
    budget = BudgetFile(path, epsilon=10.0, gamma=0.08)
    _spend(budget, _statement(0.1, gamma=0.05, run_id="a"))
    with pytest.raises(ExceededPrivacyBudgetError, match="gamma"):
        _spend(BudgetFile(path), _statement(0.1, gamma=0.05, run_id="b"))


@pytest.mark.parametrize(
    "edit, problem",
    [
        (lambda t: t.replace('"epsilon": 0.5', '"epsilon": 0.05', 1), "checksum mismatch"),
        (lambda t: t[: len(t) // 2], "not valid JSON"),
        (lambda t: "[]", "not a sensampler budget file"),
        (lambda t: t.replace('"epsilon": 0.5', '"epsilon": NaN', 1), "not valid JSON"),
    ],
)
def test_a_tampered_or_corrupt_file_is_refused_by_name(tmp_path, edit, problem):
    path = tmp_path / "ledger.json"
    _spend(BudgetFile(path, epsilon=1.0), _statement(0.5))
    path.write_text(edit(path.read_text()))
    with pytest.raises(BudgetFileError, match=re.escape(f"budget file {path}: {problem}")):
        BudgetFile(path).filter()


def _rewrite_with_checksum(path, change):
    from sensampler.app.budget_file import _checksum

    record = json.loads(path.read_text())
    change(record)
    content = {k: v for k, v in record.items() if k != "checksum"}
    record["checksum"] = _checksum(content)
    path.write_text(json.dumps(record))


@pytest.mark.parametrize(
    "change, problem",
    [
        (lambda r: r["entries"].append(dict(r["entries"][0], run_id="x")), "exceed its own budget"),
        (lambda r: r["entries"][0].update(epsilon="0.5"), "inconsistent"),
        (lambda r: r["entries"][0].update(count=True), "inconsistent"),
        (lambda r: r["entries"][0].pop("gamma"), "inconsistent"),
        (lambda r: r["budget"].update(epsilon=-1), "inconsistent"),
        (lambda r: r.update(version=2), "unsupported version"),
    ],
)
def test_a_consistent_checksum_does_not_make_a_bad_ledger_valid(tmp_path, change, problem):
    # The checksum does not authenticate; the content is checked on its own.
    path = tmp_path / "ledger.json"
    _spend(BudgetFile(path, epsilon=1.0), _statement(0.6))
    _rewrite_with_checksum(path, change)
    with pytest.raises(BudgetFileError, match=re.escape(problem)):
        BudgetFile(path).filter()


def test_threads_never_overspend(tmp_path):
    path = tmp_path / "ledger.json"
    _spend(BudgetFile(path, epsilon=1.0), _statement(0.1, run_id="first"))
    results = []

    def worker(i):
        try:
            _spend(BudgetFile(path), _statement(0.1, run_id=f"t{i}"))
            results.append(True)
        except ExceededPrivacyBudgetError:
            results.append(False)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert results.count(True) == 9  # 0.1 + 9 * 0.1 = 1.0
    assert BudgetFile(path).filter().count == 10


def test_replay_filter_matches_the_filter_it_copies():
    original = PrivacyFilter(1.0, 1e-5, rule="auto", gamma=0.5)
    original.compose(_statement(0.2, run_id="a"))
    original.compose(_statement(0.2, run_id="a"))  # same run: gamma once
    original.spend(0.1, 1e-6)
    copy = replay_filter(
        1.0, 1e-5, original.active_rule, 0.5, original.ledger
    )
    assert copy.spent == original.spent
    assert copy.gamma == original.gamma == pytest.approx(0.05)
    assert copy.count == original.count == 3


def test_replay_filter_keeps_the_relation_of_the_ledger():
    # Before: every entry was replayed as replace-one, so the replica of a filter
    # holding add/remove statements refused the next add/remove statement.
    run = SamplingRun("a", 0.05, neighbours="add-remove")
    original = PrivacyFilter(1.0, rule="basic")
    original.spend(0.1)  # states no relation: counted in the filter's
    original.compose(
        PrivacyStatement("m", 0.2, 0.0, run=run, source="sampled", neighbours="add-remove")
    )
    copy = replay_filter(1.0, 0.0, "basic", None, original.ledger)
    assert copy.neighbours == original.neighbours == "add-remove"
    assert copy.spent == original.spent
    copy.compose(PrivacyStatement("next", 0.2, 0.0, neighbours="add-remove"))
    with pytest.raises(ValueError, match="cannot compose"):
        copy.compose(PrivacyStatement("other", 0.2, 0.0))


def test_budget_arguments_are_checked_first(tmp_path):
    with pytest.raises(ValueError, match="epsilon must be > 0.0"):
        BudgetFile(tmp_path / "l.json", epsilon=0.0)
    with pytest.raises(ValueError, match="delta and gamma are given with its epsilon"):
        BudgetFile(tmp_path / "l.json", delta=1e-6)
    with pytest.raises(TypeError, match="path must name a file"):
        BudgetFile("")


def test_a_file_in_a_missing_folder_is_refused_before_any_spend(tmp_path):
    budget = BudgetFile(tmp_path / "no" / "ledger.json", epsilon=1.0)
    with pytest.raises(BudgetFileError, match="is not a writable folder"):
        budget.filter()
    with pytest.raises(BudgetFileError, match="is not an existing folder"):
        _spend(budget, _statement(0.1))


# ---------------------------------------------------------------- one ledger per file
def test_symbolic_links_share_one_ledger_and_one_lock(tmp_path):
    # issue 28: 0.5 at creation + 0.5 through link A + 0.5 through link B all
    # succeeded with a budget of 1.0, each link keeping a private copy.
    real = tmp_path / "ledger.json"
    _spend(BudgetFile(real, epsilon=1.0), _statement(0.5, run_id="a"))
    link_a, link_b = tmp_path / "a.json", tmp_path / "b.json"
    link_a.symlink_to(real)
    link_b.symlink_to(real)
    _spend(BudgetFile(link_a), _statement(0.5, run_id="b"))
    with pytest.raises(ExceededPrivacyBudgetError):
        _spend(BudgetFile(link_b), _statement(0.5, run_id="c"))
    assert link_a.is_symlink() and link_b.is_symlink()  # written through, not replaced
    assert len(json.loads(real.read_text())["entries"]) == 2
    assert BudgetFile(link_b).filter().spent.epsilon == pytest.approx(1.0)
    assert not (tmp_path / "a.json.lock").exists()  # the real file's lock only
    assert (tmp_path / "ledger.json.lock").exists()


def test_a_link_to_a_missing_file_creates_the_real_file(tmp_path):
    real, link = tmp_path / "ledger.json", tmp_path / "link.json"
    link.symlink_to(real)
    _spend(BudgetFile(link, epsilon=1.0), _statement(0.25))
    assert link.is_symlink()
    assert BudgetFile(real).filter().spent.epsilon == pytest.approx(0.25)


def test_a_hard_linked_budget_file_is_refused_by_name(tmp_path):
    real, other = tmp_path / "ledger.json", tmp_path / "other.json"
    _spend(BudgetFile(real, epsilon=1.0), _statement(0.5, run_id="a"))
    other.hardlink_to(real)
    before = real.read_bytes()
    for path in (real, other):
        with pytest.raises(BudgetFileError, match=r"has 2 hard links.*symbolic link"):
            _spend(BudgetFile(path), _statement(0.5, run_id="b"))
        with pytest.raises(BudgetFileError, match=re.escape(str(path))):
            BudgetFile(path).filter()
    assert real.read_bytes() == before
    assert real.stat().st_ino == other.stat().st_ino  # still one file


def test_a_lock_that_is_a_folder_is_named(tmp_path):
    path = tmp_path / "ledger.json"
    (tmp_path / "ledger.json.lock").mkdir()
    message = f"budget file lock {path}.lock is a folder"
    with pytest.raises(BudgetFileError, match=re.escape(message)):
        _spend(BudgetFile(path, epsilon=1.0), _statement(0.1))
    assert not path.exists()


def test_a_deeply_nested_ledger_is_refused_by_name(tmp_path):
    path = tmp_path / "ledger.json"
    path.write_text("[" * 100_000 + "]" * 100_000)
    message = f"budget file {path}: nested too deeply to be a budget file; refusing it."
    with pytest.raises(BudgetFileError, match=re.escape(message)):
        BudgetFile(path).filter()


@pytest.mark.slow
def test_a_write_killed_before_its_rename_leaves_nothing_behind(tmp_path):
    path = tmp_path / "ledger.json"
    _spend(BudgetFile(path, epsilon=1.0), _statement(0.1, run_id="a"))
    before = path.read_bytes()
    # a spend killed (SIGKILL) between writing its temporary file and the rename
    script = textwrap.dedent(
        f"""
        import os, signal
        import sensampler.table as table
        from sensampler.app.budget_file import BudgetFile
        from sensampler.privacy import PrivacyStatement, SamplingRun
        table.os.replace = lambda *a: os.kill(os.getpid(), signal.SIGKILL)
        with BudgetFile({str(path)!r}).session() as s:
            s.spend(PrivacyStatement("Laplace", 0.1, 0.0, run=SamplingRun("b", 0.05),
                                     source="sampled"))
        """
    )
    env = dict(os.environ)
    done = subprocess.run([sys.executable, "-c", script], env=env, check=False)
    assert done.returncode == -signal.SIGKILL
    left = [p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-")]
    assert len(left) == 1 and left[0].endswith("ledger.json")
    assert path.read_bytes() == before  # the ledger itself is intact
    unrelated = tmp_path / ".tmp-0123456789abcdef0ledger.json"  # another file's
    unrelated.write_text("x")
    _spend(BudgetFile(path), _statement(0.1, run_id="c"))
    left = sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".tmp-"))
    assert left == [unrelated.name]
    assert BudgetFile(path).filter().count == 2


_WRITTEN_BEFORE = os.path.join(os.path.dirname(__file__), "data", "budget_v1.json")


def test_a_file_written_by_an_earlier_version_loads_and_keeps_its_bytes(tmp_path):
    # budget_v1.json was written by the version whose ledger lines were built
    # by hand: its entries must still load, and a spend must keep them (and
    # the checksum's rule) byte for byte.
    path = tmp_path / "budget.json"
    original = open(_WRITTEN_BEFORE).read()
    path.write_text(original)
    budget = BudgetFile(path)
    assert budget.filter().spent.epsilon == pytest.approx(0.875)
    before = json.loads(original)
    with budget.session() as session:
        session.spend(_statement(0.0625, run_id="new"), label="after")
    after = json.loads(path.read_text())
    assert after["entries"][:-1] == before["entries"]
    old_text = json.dumps(before["entries"], indent=1)
    assert old_text[:-2] in json.dumps(after["entries"], indent=1)
    assert list(after["entries"][-1]) == [
        "mechanism", "epsilon", "delta", "gamma", "run_id", "count", "label", "time"
    ]
    assert BudgetFile(path).filter().spent.epsilon == pytest.approx(0.9375)


# ---------------------------------------------------- a spend edited into a run drawn
# Audit finding on a budget file's lines (LedgerEntry.from_dict, tested in
# tests/sensampler/accounting/test_ledger.py): an edit under a consistent checksum (which detects
# corruption, not edits) must not make the replay cost less than the file states.


def test_a_spend_turned_into_a_run_drawn_does_not_free_the_budget(tmp_path):
    """Audit finding: a spend edited into a run drawn (count 0) under a recomputed
    checksum replayed as spending nothing, leaving the whole budget; the file is
    refused as inconsistent."""
    path = tmp_path / "ledger.json"
    with BudgetFile(path, epsilon=1.0).session() as session:
        session.spend(PrivacyStatement("Laplace", 0.6, 0.0, run=SamplingRun("r", 0.05),
                                       source="sampled"), "test")
    record = json.loads(path.read_text())
    record["entries"][0]["count"] = 0
    content = {k: v for k, v in record.items() if k != "checksum"}
    record["checksum"] = _checksum(content)
    path.write_text(json.dumps(record))
    # failed: the filter replayed had spent 0, leaving the whole budget
    with pytest.raises(BudgetFileError, match="inconsistent"):
        BudgetFile(path).filter()


# ------------------------------------------- a ledger path that is not a regular file
# Audit findings on budget files: a ledger path that is not a regular file must
# be refused by name, with a bounded read; a hard link must not split the ledger.


POSIX_ONLY = pytest.mark.skipif(
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


@POSIX_ONLY
def test_a_fifo_budget_file_is_refused_at_once(tmp_path):
    """Audit finding: a FIFO at the budget file's path blocked the read until a writer
    came, then failed as "not valid JSON"; it is refused at once, by name."""
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


@pytest.mark.slow
@POSIX_ONLY
def test_a_device_budget_file_is_refused_with_a_bounded_read():
    """Audit finding: /dev/zero as a budget file was read whole (MemoryError, exit 1,
    after about 0.7 GB of zeros); it is refused after a bounded read, naming the
    path."""
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


@POSIX_ONLY
def test_a_hard_link_made_during_a_spend_does_not_split_the_ledger(tmp_path):
    """Audit finding: a hard link made to the ledger during a spend kept the old ledger
    under the other name (0.5 spent of 1, where 1 was), a second budget to spend
    from; the write or the other name must now be refused, or the other name hold the
    whole spend."""
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


@POSIX_ONLY
def test_a_hard_link_made_just_before_the_rename_is_refused_after_it(
    tmp_path, monkeypatch
):
    """Audit finding: a hard link that lands after the last link count, just before the
    rename, names the old ledger; reading through it is refused as a hard link to an
    old ledger, and the ledger holds both spends."""
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
