"""Batch workers never outlive their driver, and SIGINT / SIGTERM stop a batch resumably.

The real `ipcgrasp batch` runs in a subprocess (local pool of 2 workers, and a local Ray
instance when Ray is installed). Killed with SIGKILL mid-run, every process it had started (pool
workers, multiprocessing's resource tracker, Ray's GCS, raylet, agents and workers) is gone
within a few seconds. Stopped with SIGTERM or Ctrl+C, it exits with 128 + the signal, keeps
every finished row (a valid CSV), says how to resume and stops its workers; running the same
command again runs only the unfinished tasks.
"""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from engine.lifeline import descendants, is_running
from tests.conftest import REPO
from tests.engine.batch.conftest import CUBE_ROW, read_rows, write_grasps

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(not os.path.isdir("/proc"), reason="process trees are read from /proc"),
]
needs_ray = pytest.mark.skipif(
    importlib.util.find_spec("ray") is None,
    reason="ray is not installed (pip install 'ipcgrasp[ray]'); the Ray backend is optional",
)
BACKENDS = ["local", pytest.param("ray", marks=needs_ray)]
GONE_WITHIN_S = 5.0


def start_batch(grasps: Path, out: Path, backend: str, log: Path) -> subprocess.Popen:
    """`ipcgrasp batch` of 4 IPC trials per grasp on 2 workers, in its own process group."""
    cmd = [sys.executable, "-m", "engine.cli.main", "batch", str(grasps), "--out", str(out)]
    cmd += ["--trials", "4", "--workers", "2", "--backend", backend, "--progress-interval", "0"]
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAY_USAGE_STATS_ENABLED": "0"}
    with log.open("w") as err:
        return subprocess.Popen(cmd, cwd=REPO, env=env, stderr=err, start_new_session=True)


def wait_for_rows(out: Path, n: int, proc: subprocess.Popen, log: Path, timeout_s=300.0) -> None:
    end = time.monotonic() + timeout_s
    while time.monotonic() < end:
        if out.exists() and len(read_rows(out)) >= n:
            return
        if proc.poll() is not None:
            pytest.fail(f"batch ended early with status {proc.returncode}:\n{log.read_text()}")
        time.sleep(0.2)
    pytest.fail(f"no {n} rows in {out} after {timeout_s} s")


def still_running(pids: list[int], within_s: float = GONE_WITHIN_S) -> list[str]:
    """The processes of `pids` still running after `within_s` seconds (with their command)."""
    end = time.monotonic() + within_s
    while True:
        left = [pid for pid in pids if is_running(pid)]
        if not left or time.monotonic() > end:
            break
        time.sleep(0.1)
    out = []
    for pid in left:
        try:
            cmd = Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            cmd = "?"
        out.append(f"{pid}: {cmd[:120]}")
        os.kill(pid, signal.SIGKILL)  # do not leave them to the next test
    return out


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_killed_driver_leaves_no_process_behind(tmp_path, backend):
    grasps = write_grasps(tmp_path / "g.csv", [[g, *CUBE_ROW] for g in "ab"])
    out, log = tmp_path / "r.csv", tmp_path / "stderr.txt"
    proc = start_batch(grasps, out, backend, log)
    wait_for_rows(out, 1, proc, log)  # the workers are busy with the next tasks
    children = descendants(proc.pid)
    assert len(children) >= 3, children  # local: 2 workers and the resource tracker
    proc.send_signal(signal.SIGKILL)
    proc.wait(30)
    left = still_running(children)
    assert not left, "\n".join(left)
    assert read_rows(out)  # what was written stays


@pytest.mark.parametrize(
    "backend, sig, to_group",
    [
        ("local", signal.SIGTERM, False),  # kill PID, systemd, a scheduler
        ("local", signal.SIGINT, True),  # Ctrl+C in a terminal: the whole process group
        pytest.param("ray", signal.SIGTERM, False, marks=needs_ray),
        pytest.param("ray", signal.SIGINT, True, marks=needs_ray),
    ],
)
def test_a_signal_stops_the_batch_and_the_resume_runs_only_the_rest(
    tmp_path, backend, sig, to_group
):
    grasps = write_grasps(tmp_path / "g.csv", [["a", *CUBE_ROW]])  # 4 tasks
    out, log = tmp_path / "r.csv", tmp_path / "stderr.txt"
    proc = start_batch(grasps, out, backend, log)
    wait_for_rows(out, 1, proc, log)
    children = descendants(proc.pid)
    if to_group:
        os.killpg(proc.pid, sig)
    else:
        proc.send_signal(sig)
    assert proc.wait(120) == 128 + sig, log.read_text()
    err = log.read_text()
    assert f"interrupted by {sig.name}" in err and "run the same command to resume" in err, err
    left = still_running(children)
    assert not left, "\n".join(left)
    assert out.read_bytes().endswith(b"\n")  # no half-written row
    first = read_rows(out)
    assert 1 <= len(first) < 4 and all(r["status"] == "ok" for r in first), first
    assert len({r["task_key"] for r in first}) == len(first)

    resume_log = tmp_path / "resume.txt"
    proc = start_batch(grasps, out, backend, resume_log)
    assert proc.wait(600) == 0, resume_log.read_text()
    err = resume_log.read_text()
    assert f"resuming {out}: {len(first)} tasks done" in err, err
    assert f"{4 - len(first)} tasks run" in err, err  # finished tasks are not computed again
    rows = read_rows(out)
    assert rows[: len(first)] == first  # finished rows untouched
    assert sorted(int(r["trial"]) for r in rows) == [0, 1, 2, 3]
    assert len({r["task_key"] for r in rows}) == 4 and all(r["status"] == "ok" for r in rows)
