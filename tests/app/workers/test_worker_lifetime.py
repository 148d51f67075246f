"""The app's worker processes die with the GUI process, even when it is killed (kill -9).

A stand-in GUI process (no Qt: app.workers is Qt-free) starts the real worker bodies through
the app's worker API: a simulation worker in the middle of a trial, the grasp-finding worker
(sampled and default grasps) and the analysis worker, both idle. It is then killed with
SIGKILL; every worker must then exit by itself (waited for up to a minute: a hang guard, not a
speed claim).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import time

import pytest

from engine.lifeline import is_running
from tests.conftest import REPO

pytestmark = pytest.mark.skipif(
    not os.path.isdir("/proc"), reason="process liveness is read from /proc"
)
HANG_GUARD_S = 60.0  # how long to wait for the workers to exit: not a speed claim


def drive() -> None:
    """The stand-in GUI process: start the workers, print their pids once the simulation
    streams frames, then wait to be killed."""
    from app.workers import WorkerProcess
    from app.workers.analysis import analysis_main
    from app.workers.messages import FramePacket, TrialJob
    from app.workers.sampling import sample_main
    from app.workers.simulation import worker_main
    from engine.grasp.grasp import Grasp
    from engine.grasp.params import SimulationParams
    from engine.grasp.trial_plan import TrialSpec, planned_trial
    from engine.scene.object_mesh import object_from_spec
    from engine.scene.resting import rest_object

    sim = WorkerProcess("ipcgrasp-sim-0")
    sim.start(worker_main, 0, sim.inbox, sim.outbox, sim.cancel)
    finder = WorkerProcess("ipcgrasp-default-grasp")
    finder.start(sample_main, finder.inbox, finder.outbox)
    analysis = WorkerProcess("ipcgrasp-analysis")
    analysis.start(analysis_main, analysis.inbox, analysis.outbox)
    obj = rest_object(object_from_spec("cube"), 0)
    planned = planned_trial(Grasp([0, 0, 0.015], [1, 0, 0], 0.0), TrialSpec(n_trials=1), 0)
    sim.send(TrialJob(1, planned, obj, SimulationParams()))  # a whole trial: seconds
    end = time.monotonic() + 300
    while time.monotonic() < end:
        if any(isinstance(m, FramePacket) for m in sim.drain()):
            break
        time.sleep(0.05)
    else:
        raise SystemExit("no frame from the simulation worker")
    print(json.dumps([sim.pid, finder.pid, analysis.pid]), flush=True)
    time.sleep(600)


def test_app_workers_die_with_a_killed_gui_process(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    code = "from tests.app.workers.test_worker_lifetime import drive; drive()"
    log = tmp_path / "stderr.txt"
    with (
        log.open("w") as err,
        subprocess.Popen(
            [sys.executable, "-c", code],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=err,
            start_new_session=True,
        ) as proc,
    ):
        try:
            assert proc.stdout is not None
            ready, _, _ = select.select([proc.stdout], [], [], 300)
            line = proc.stdout.readline() if ready else b""
            if not line:
                proc.kill()
                proc.wait(30)
                pytest.fail(f"no worker pids from the stand-in GUI process:\n{log.read_text()}")
            pids = json.loads(line)
            assert all(is_running(pid) for pid in pids)
            proc.send_signal(signal.SIGKILL)  # the simulation worker is mid-trial
            proc.wait(30)
            end = time.monotonic() + HANG_GUARD_S
            while any(is_running(pid) for pid in pids) and time.monotonic() < end:
                time.sleep(0.1)
            left = [pid for pid in pids if is_running(pid)]
            for pid in left:
                os.kill(pid, signal.SIGKILL)
            names = ["simulation", "default grasp", "analysis"]
            assert not left, [names[pids.index(pid)] for pid in left]
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait(30)
