"""engine.lifeline: a child ends with the process that started it (kill -9 included), through
Linux's parent-death signal and through the portable watchdog alone; the reaper ends a tree of
processes that would outlive a killed driver, and leaves it alone after a clean stop."""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time

import pytest

from engine import lifeline
from tests.conftest import REPO

pytestmark = pytest.mark.skipif(
    not os.path.isdir("/proc"), reason="process liveness is read from /proc"
)


def sleeping_child(use_pdeathsig: bool) -> None:
    """Body of a spawned child: die with the parent (optionally without prctl), then sleep."""
    if not use_pdeathsig:
        lifeline._set_pdeathsig = lambda: False  # the portable fallback alone
    lifeline.die_with_parent(poll_s=0.2)
    time.sleep(120)


def middle(kind: str) -> None:
    """The process that gets killed: starts what must not outlive it, prints the pids."""
    if kind in ("pdeathsig", "watchdog"):
        import multiprocessing

        child = multiprocessing.get_context("spawn").Process(
            target=sleeping_child, args=(kind == "pdeathsig",), daemon=True
        )
        child.start()
        pids = [child.pid]
        time.sleep(2.0)  # the child is up and watching
    elif kind == "reaper-orphan":
        # What a raylet killed while starting its agents leaves: a process reparented to init
        # before any snapshot saw it (the snapshot interval is longer than the test).
        reaper = lifeline.Reaper(interval_s=60.0)
        assert reaper.start()
        starter = subprocess.run(
            [
                sys.executable,
                "-c",
                "import subprocess, sys; "
                "p = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)'], "
                "stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True); "
                "print(p.pid)",
            ],
            capture_output=True,
            check=True,
        )
        pids = [int(starter.stdout)]
        assert pids[0] not in lifeline.descendants(os.getpid())  # an orphan now
    else:  # "reaper" / "reaper-stopped": a tree that ignores its parent's death
        reaper = lifeline.Reaper(interval_s=0.2)
        assert reaper.start()
        sleeper = subprocess.Popen(
            [
                sys.executable,
                "-c",
                "import subprocess, sys, time; "
                "subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(120)']); "
                "time.sleep(120)",
            ],
            start_new_session=True,
        )
        time.sleep(1.0)  # the reaper has seen the tree
        pids = [sleeper.pid, *lifeline.descendants(sleeper.pid)]
        if kind == "reaper-stopped":
            reaper.stop()
    print(json.dumps(pids), flush=True)
    time.sleep(120)


def run_and_kill(kind: str, within_s: float = 3.0) -> list[int]:
    """Start `middle(kind)`, kill it with SIGKILL; the pids it started still running after
    `within_s` seconds (killed here afterwards)."""
    code = f"from tests.engine.test_lifeline import middle; middle({kind!r})"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    with subprocess.Popen(
        [sys.executable, "-c", code], cwd=REPO, env=env, stdout=subprocess.PIPE
    ) as proc:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        line = proc.stdout.readline() if ready else b""
        if not line:
            proc.kill()
            pytest.fail("the middle process printed no pids")
        pids = json.loads(line)
        assert pids and all(lifeline.is_running(p) for p in pids)
        proc.send_signal(signal.SIGKILL)
        proc.wait(30)
    end = time.monotonic() + within_s
    while any(lifeline.is_running(p) for p in pids) and time.monotonic() < end:
        time.sleep(0.05)
    left = [p for p in pids if lifeline.is_running(p)]
    for p in pids:
        if lifeline.is_running(p):
            os.kill(p, signal.SIGKILL)
    return left


@pytest.mark.parametrize("kind", ["pdeathsig", "watchdog"])
def test_a_child_dies_with_its_killed_parent(kind):
    assert run_and_kill(kind) == []


def test_the_reaper_kills_a_tree_that_outlives_its_killed_driver():
    assert run_and_kill("reaper") == []


def test_the_reaper_kills_an_orphan_started_between_two_snapshots():
    """Ray's agents started while ray.init ran, then reparented: found by the environment."""
    assert run_and_kill("reaper-orphan") == []


def test_the_token_leaves_the_environment_after_stop():
    reaper = lifeline.Reaper()
    assert reaper.start()
    token = os.environ[lifeline.TOKEN_VAR]
    # The child says when it runs: until its exec, /proc shows this process's environment as
    # it was at start (without the token), and on a loaded machine that can take a while.
    child = "import time; print('ready', flush=True); time.sleep(30)"
    with subprocess.Popen([sys.executable, "-c", child], stdout=subprocess.PIPE) as proc:
        try:
            assert proc.stdout is not None and proc.stdout.readline() == b"ready\n"
            assert lifeline.carrying_token(token) == [proc.pid]  # not the reaper, not this one
        finally:
            proc.kill()
    reaper.stop()
    assert lifeline.TOKEN_VAR not in os.environ


def test_after_a_clean_stop_the_reaper_kills_nothing():
    left = run_and_kill("reaper-stopped", within_s=1.5)
    assert len(left) == 2  # the sleeper and its child kept running (killed by the test)


def test_descendants_and_is_running():
    with subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"]) as proc:
        assert proc.pid in lifeline.descendants(os.getpid())
        assert lifeline.is_running(proc.pid)
        proc.kill()
        proc.wait()
    assert not lifeline.is_running(proc.pid)
