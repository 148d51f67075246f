"""Body of the grasp-finding worker processes (no Qt): sampled grasps (engine.grasp.sampler
ranked by the Soft Point margin, engine.analytic.ranking) and the default grasp
(engine.analytic.ranking.default_grasp_for), one job at a time, the newest one first."""

from __future__ import annotations

import logging
import time
from typing import Any

from app.workers.messages import DefaultGraspFound, DefaultGraspJob, SampledGrasps, SampleJob

log = logging.getLogger(__name__)


def sample_grasps_for(job: SampleJob) -> SampledGrasps:
    """Run one job; never raises (a failure is the reply's `error`)."""
    from engine.analytic.ranking import simulation_ranker
    from engine.errors import IpcGraspError
    from engine.grasp.default_grasp import no_grasp_error
    from engine.grasp.sampler import sample_grasps, settings_for
    from engine.gripper.pad_geometry import pad_outline

    start = time.perf_counter()
    p = job.params
    try:
        settings = settings_for(p.open_width_m, pad_outline(p.pad, p.pad_edge_length_m), p.mu)
        found = sample_grasps(job.obj, settings, job.n, job.seed, simulation_ranker(p))
        error = "" if found else str(no_grasp_error(job.obj, p, job.seed, ""))
    except IpcGraspError as exc:
        found, error = [], str(exc)
    except Exception as exc:
        log.exception("grasp sampling failed for request %d", job.request)
        found, error = [], f"{type(exc).__name__}: {exc}"
    return SampledGrasps(job.request, found, error, time.perf_counter() - start)


def default_grasp_of(job: DefaultGraspJob) -> DefaultGraspFound:
    """Find one job's default grasp; never raises (no grasp fitting is the reply's `error`)."""
    from engine.analytic.ranking import default_grasp_for
    from engine.errors import IpcGraspError, Message

    start = time.perf_counter()
    try:
        chosen = default_grasp_for(job.obj, job.params, seed=job.seed)
    except IpcGraspError as exc:
        problem = Message(exc.template, exc.settings)
        seconds = time.perf_counter() - start
        return DefaultGraspFound(job.request, None, "", str(exc), seconds, problem=problem)
    except Exception as exc:
        log.exception("finding the default grasp failed for request %d", job.request)
        error = f"{type(exc).__name__}: {exc}"
        return DefaultGraspFound(job.request, None, "", error, time.perf_counter() - start)
    seconds = time.perf_counter() - start
    return DefaultGraspFound(job.request, chosen.grasp, chosen.how, "", seconds, chosen.weak)


def sample_main(inbox: Any, outbox: Any, nice: int = 19) -> None:
    """Serve SampleJobs and DefaultGraspJobs from `inbox` until None; only the newest waiting
    job is run (an owner sends one kind, so an older job left waiting is a stale one). The
    process runs `nice` levels below the GUI and imports the sampler and the simulator's
    checks before the first job arrives."""
    from app.workers import newest_job
    from app.workers.simulation import lower_priority

    lower_priority(nice)
    import engine.analytic.ranking
    import engine.grasp.sampler
    import engine.grasp.trials  # noqa: F401  (the checks of the default grasp)

    while True:
        job = newest_job(inbox)
        if job is None:
            return
        if isinstance(job, DefaultGraspJob):
            outbox.put(default_grasp_of(job))
        else:
            outbox.put(sample_grasps_for(job))
