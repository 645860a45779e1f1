"""Process workers do not outlive a leader killed by SIGKILL (which runs no clean-up)."""

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

from sensampler import parallel

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

#: A leader sampling a query that does not release the GIL (so loky's process
#: workers run it), each worker marking its pid in a folder when it first runs.
LEADER = textwrap.dedent(
    """
    import os, sys, time
    from sensampler import sample_sensitivity
    from sensampler.distributions import Normal

    MARKS = sys.argv[1]

    def slow_mean(db):
        open(os.path.join(MARKS, str(os.getpid())), "w").close()
        time.sleep(0.01)
        return db.mean()

    if __name__ == "__main__":
        sample_sensitivity(slow_mean, Normal(), 10, m=100_000, n_jobs=2, random_state=0)
    """
)


def _children(parents):
    found = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as handle:
                    fields = handle.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) in parents:
                found.add(int(entry))
    return found


def _command(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as handle:
            return f"{pid}: " + handle.read().replace(b"\0", b" ").decode()[-70:]
    except OSError:
        return f"{pid}: ?"


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as handle:
            return handle.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.slow
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_sigkill_of_the_leader_leaves_no_worker_or_tracker(tmp_path):
    # Failed before: two loky workers and two resource trackers were still alive
    # 60 s after the leader's SIGKILL (loky keeps idle workers for 300 s).
    script = tmp_path / "leader.py"
    script.write_text(LEADER)
    marks = tmp_path / "marks"
    marks.mkdir()
    leader = subprocess.Popen(
        [sys.executable, str(script), str(marks)],
        env=dict(os.environ),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    descendants = set()
    try:
        deadline = time.monotonic() + 120
        # both workers are running tasks (the leader marks too: it probes the query)
        while len(set(os.listdir(marks)) - {str(leader.pid)}) < 2:
            assert leader.poll() is None and time.monotonic() < deadline
            time.sleep(0.2)
        frontier = {leader.pid}
        while frontier:
            frontier = _children(frontier) - descendants
            descendants |= frontier
        assert len(descendants) >= 2
        leader.kill()
        leader.wait()
        deadline = time.monotonic() + 15  # the workers check every 0.5 s
        while any(_alive(p) for p in descendants) and time.monotonic() < deadline:
            time.sleep(0.2)
        left = [_command(p) for p in sorted(descendants) if _alive(p)]
        assert left == [], f"still alive after the leader's SIGKILL: {left}"
    finally:
        if leader.poll() is None:
            leader.kill()
        for pid in descendants:
            if _alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_watch_parent_does_nothing_in_the_dispatching_process():
    before = parallel.threading.active_count()
    parallel.watch_parent(os.getpid())  # the threads backend: the leader itself
    parallel.watch_parent(-1)  # not this process's parent (a Dask worker)
    assert parallel.threading.active_count() == before
