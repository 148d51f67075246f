"""Body of the grasp-sampling worker process (no Qt): engine.grasp.sampler ranked by the Soft
Point margin (engine.analytic.ranking), one job at a time, the newest one first."""

from __future__ import annotations

import logging
import queue
import time
from typing import Any

from app.worker_messages import SampledGrasps, SampleJob

log = logging.getLogger(__name__)


def sample_grasps_for(job: SampleJob) -> SampledGrasps:
    """Run one job; never raises (a failure is the reply's `error`)."""
    from engine.analytic.ranking import analytic_params_for, margin_ranker
    from engine.errors import IpcGraspError
    from engine.grasp.default_grasp import no_grasp_message
    from engine.grasp.sampler import sample_grasps, settings_for
    from engine.gripper.pad_geometry import pad_outline

    start = time.perf_counter()
    p = job.params
    try:
        settings = settings_for(p.open_width_m, pad_outline(p.pad, p.pad_edge_length_m), p.mu)
        found = sample_grasps(
            job.obj, settings, job.n, job.seed, margin_ranker(analytic_params_for(p))
        )
        error = "" if found else no_grasp_message(job.obj, p, job.seed, "")
    except IpcGraspError as exc:
        found, error = [], str(exc)
    except Exception as exc:
        log.exception("grasp sampling failed for request %d", job.request)
        found, error = [], f"{type(exc).__name__}: {exc}"
    return SampledGrasps(job.request, found, error, time.perf_counter() - start)


def sample_main(inbox: Any, outbox: Any) -> None:
    """Serve SampleJobs from `inbox` until None; only the newest waiting job is run."""
    from app.sim_worker import lower_priority

    lower_priority()
    while True:
        job = inbox.get()
        while job is not None:
            try:
                newer = inbox.get_nowait()
            except queue.Empty:
                break
            job = newer
        if job is None:
            return
        outbox.put(sample_grasps_for(job))
