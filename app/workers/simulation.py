"""Body of a simulation worker process (spawned; imports the engine, never Qt).

The solver holds the GIL for seconds, so it must not run in the GUI process. A worker warms up
once (imports, numba kernels, one frame of the example grasp) so that the first frame of a
real run arrives quickly, then runs one trial per job and streams every frame.
"""

from __future__ import annotations

import logging
import os
import time
from typing import Any

from app.workers.messages import FramePacket, TrialEnded, TrialJob, TrialStarted, WorkerReady

log = logging.getLogger(__name__)


def lower_priority(increment: int = 19) -> None:
    """Let the GUI process win the CPU when both want it (the solver only gets slower)."""
    try:
        os.nice(increment)
    except (AttributeError, OSError):  # not on this platform, or not allowed
        pass


def worker_main(worker: int, inbox: Any, outbox: Any, cancel: Any) -> None:
    """Serve TrialJobs from `inbox` until it yields None; `cancel` is a multiprocessing Event."""
    lower_priority()
    t0 = time.perf_counter()
    try:
        from engine.grasp.warmup import warm_up

        warm_up()
    except Exception:  # a broken warm-up must not kill the worker: real jobs report errors
        log.exception("worker %d: warm-up failed", worker)
    outbox.put(WorkerReady(worker, time.perf_counter() - t0))
    caches: dict = {}
    while True:
        job = inbox.get()
        if job is None:
            return
        _run_trial(worker, job, outbox, cancel, caches)


def _run_trial(worker: int, job: TrialJob, outbox: Any, cancel: Any, caches: dict) -> None:
    from engine.batch.recycle import DEFAULT_TRIAL_TIMEOUT_S
    from engine.errors import GraspError
    from engine.grasp.frames import Frame, TrialResult
    from engine.grasp.simulation import build_pad
    from engine.grasp.time_limit import TIMED_OUT, TrialTimedOut, wall_clock_limit
    from engine.grasp.trials import CANCELLED, run_trial
    from engine.gripper.pad_fields import PadFieldEvaluator

    outbox.put(TrialStarted(worker, job.run_id, job.trial))
    p = job.params
    result = TrialResult(trial=job.trial, success=False, reason="not run")
    result.perturbation = job.planned.perturbation_dict
    count = 0

    def on_frame(frame: Frame) -> str | None:
        nonlocal count
        count += 1
        energy = (
            fields.energy_density(frame.pad_vertices[0]).astype("float32"),
            fields.energy_density(frame.pad_vertices[1]).astype("float32"),
        )
        outbox.put(FramePacket(worker, job.run_id, job.trial, frame, energy))
        if cancel.is_set():
            return CANCELLED
        if job.max_frames is not None and count >= job.max_frames:
            return "stopped after max frames"
        return None

    try:
        key = (p.pad, p.pad_edge_length_m, p.pad_layers)
        if key not in caches:
            caches[key] = build_pad(p)
        pad = caches[key]
        fields = PadFieldEvaluator(pad, p.youngs_modulus_pa, p.poisson_ratio)
        # The batch's limit: a trial that stalls ends with a reason instead of holding the
        # worker (the frames so far stay in the run).
        with wall_clock_limit(DEFAULT_TRIAL_TIMEOUT_S):
            result = run_trial(job.obj, job.planned, p, pad=pad, on_frame=on_frame, push=job.push)
    except GraspError as exc:  # the grasp changed and F5 came before its check answered
        result.success = False
        result.reason = "invalid grasp"
        result.error = str(exc)
        log.info("worker %d: trial %d of run %d: invalid grasp: %s", worker, job.trial,
                 job.run_id, exc)  # fmt: skip
    except TrialTimedOut as exc:
        result.success = False
        result.reason = TIMED_OUT
        result.error = f"the trial ran longer than {exc.limit_s:g} s and was stopped"
        result.frames = count
    except Exception as exc:  # report, never die: the GUI marks the trial failed with this
        result.success = False
        result.reason = "worker error"
        result.error = f"{type(exc).__name__}: {exc}"
        log.exception("worker %d: trial %d of run %d failed", worker, job.trial, job.run_id)
    outbox.put(TrialEnded(worker, job.run_id, job.trial, result, result.reason == CANCELLED))
