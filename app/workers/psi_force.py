"""Body of the Psi_th force worker process (no Qt): the grip force a Psi_th stop implies on a
grasp (engine.grasp.calibration.force_at_psi: the simulator's squeeze, about a second), one
job at a time, the newest one first; a job still squeezing when a newer one arrives stops."""

from __future__ import annotations

import logging
import time
from typing import Any

from app.workers.messages import PsiForceFound, PsiForceJob

log = logging.getLogger(__name__)

SUPERSEDED = "superseded by a newer request"


def psi_force_of(job: PsiForceJob, pads: dict, superseded: Any = None) -> PsiForceFound | None:
    """Run one job; never raises (a grasp that cannot be squeezed is the reply's `error`).
    None when `superseded()` said a newer job waits (nobody wants this answer)."""
    from engine.errors import IpcGraspError
    from engine.grasp.calibration import force_at_psi
    from engine.grasp.simulation import build_pad

    start = time.perf_counter()
    p = job.params
    key = (p.pad, p.pad_edge_length_m, p.pad_layers)
    try:
        if key not in pads:
            pads[key] = build_pad(p)

        def on_frame(_frame: Any) -> str | None:
            return SUPERSEDED if superseded is not None and superseded() else None

        result = force_at_psi(job.obj, job.grasp, p, pad=pads[key], on_frame=on_frame)
    except IpcGraspError as exc:
        return PsiForceFound(job.request, None, str(exc), time.perf_counter() - start)
    except Exception as exc:
        log.exception("the Psi_th force failed for request %d", job.request)
        error = f"{type(exc).__name__}: {exc}"
        return PsiForceFound(job.request, None, error, time.perf_counter() - start)
    if result.reason == SUPERSEDED:
        return None
    return PsiForceFound(job.request, result, "", time.perf_counter() - start)


def psi_force_main(inbox: Any, outbox: Any, nice: int = 10) -> None:
    """Serve PsiForceJobs from `inbox` until None; only the newest waiting job is run. The
    process runs `nice` levels below the GUI and loads the simulator before the first job."""
    from app.workers import newest_job
    from app.workers.simulation import lower_priority

    lower_priority(nice)
    import engine.grasp.calibration  # noqa: F401  (the simulator, before the first job)

    pads: dict = {}
    while True:
        job = newest_job(inbox)
        if job is None:
            return
        answer = psi_force_of(job, pads, lambda: not inbox.empty())
        if answer is not None:
            outbox.put(answer)
