"""Body of the analysis worker process: grasp checks and analytic predictions (no Qt).

Runs in its own spawned process because the models (numpy, cvxpy) hold the GIL. Requests
arrive faster than they can be answered while a user drags a slider, so only the newest
pending request is worked on; the validity check is answered first because it is fast.
"""

from __future__ import annotations

import dataclasses
import logging
import queue
from typing import Any

from app.workers.messages import AnalysisJob, GraspCheck, Predictions
from engine.analytic import registry
from engine.analytic.from_simulation import analytic_params_for
from engine.analytic.params import AnalyticParams
from engine.analytic.registry import IPC, MUJOCO, ModelSpec
from engine.scene.resting import RestingObject

log = logging.getLogger(__name__)


def prediction_models() -> list[ModelSpec]:
    """The models of the predictions table, in the registry's table order: every model a batch
    runs (the table shows robustness, so no nominal-only one) but IPC, which is the app's own
    simulation; MuJoCo's row is app/mujoco_prediction.py."""
    return [m for m in registry.batch_models() if m.name != IPC]


def job_analytic_params(job: AnalysisJob) -> AnalyticParams:
    """The analytic models' parameters of a job: the simulation's friction, pad and opening
    with the grip force the window chose (app.model.grip.analytic_force)."""
    return analytic_params_for(job.params, closing_force_n=job.closing_force_n)


def _latest(inbox: Any, job: AnalysisJob) -> AnalysisJob | None:
    """The newest queued job (keeping the last object sent); None means shut down."""
    while True:
        try:
            nxt = inbox.get_nowait()
        except queue.Empty:
            return job
        if nxt is None:
            return None
        if nxt.obj is None and job.obj is not None:
            nxt = dataclasses.replace(nxt, obj=job.obj)
        job = nxt


def analysis_main(inbox: Any, outbox: Any) -> None:
    """Serve AnalysisJobs from `inbox` until None; answers go to `outbox`."""
    from app.workers.simulation import lower_priority
    from engine.errors import IpcGraspError
    from engine.grasp.trials import check_grasp

    lower_priority()
    obj: RestingObject | None = None
    while True:
        job = inbox.get()
        if job is None:
            return
        job = _latest(inbox, job)
        if job is None:
            return
        if job.obj is not None:
            obj = job.obj
        if obj is None:
            continue
        if job.check:
            try:
                check_grasp(obj, job.grasp, job.params)
                outbox.put(GraspCheck(job.request, True, ""))
            except IpcGraspError as exc:
                outbox.put(GraspCheck(job.request, False, str(exc)))
            except Exception as exc:
                log.exception("grasp check failed for request %d", job.request)
                outbox.put(GraspCheck(job.request, False, f"{type(exc).__name__}: {exc}"))
        if job.models:
            _predict(job, obj, inbox, outbox)


def _predict(job: AnalysisJob, obj: RestingObject, inbox: Any, outbox: Any) -> None:
    """Nominal margins first (a fraction of a second), then robustness over the samples
    unless a newer request is already waiting."""
    try:
        from engine.analytic.pipeline import analyze_grasp
    except ImportError as exc:
        outbox.put(Predictions(job.request, False, [], f"analytic models not available ({exc})"))
        return
    try:
        for spec in job.models:
            registry.register(spec)  # a no-op for the built-in models
        aparams = job_analytic_params(job)
        analytic = [m.name for m in job.models if m.analytic]
        stages = [("nominal", 0)]
        if job.samples > 0:
            stages.append(("robust", job.samples))
        for stage, samples in stages:
            if stage == "robust" and not inbox.empty():
                return  # the user has moved on; answer the newer request instead
            results = (
                list(
                    analyze_grasp(
                        obj, job.grasp, aparams, analytic, samples, job.seed, explain=True
                    )
                )
                if analytic
                else []
            )
            if any(m.name == MUJOCO for m in job.models):
                results.append(_mujoco(job, obj, samples))
            outbox.put(Predictions(job.request, True, results, stage=stage))
    except Exception as exc:
        log.exception("analytic predictions failed for request %d", job.request)
        outbox.put(Predictions(job.request, True, [], f"{type(exc).__name__}: {exc}"))


COULD_NOT_RUN = "could_not_run"
"""A row's details key: the model did not run (its reason says why), so it predicts nothing."""

_LOGGED: set[str] = set()  # the baseline's failures logged once per worker process


def _mujoco(job: AnalysisJob, obj: RestingObject, samples: int) -> Any:
    """The MuJoCo baseline's row; when it cannot run (mujoco missing, the baseline failing on
    this object) a row that says so and why, not a failed prediction, and the log says it once
    per kind of failure, not at every request."""
    from engine.analytic.result import ModelResult

    try:
        from app.mujoco_prediction import mujoco_prediction
        from engine.grasp.simulation import build_pad

        pad = build_pad(job.params).vertices
        return mujoco_prediction(obj, job.grasp, job.params, samples, job.seed, pad)
    except ImportError as exc:
        why = f"mujoco is not installed ({exc}); pip install 'ipcgrasp[mujoco]'"
    except Exception as exc:
        why = f"{type(exc).__name__}: {exc}"
    if why not in _LOGGED:
        _LOGGED.add(why)
        log.info("MuJoCo baseline could not run (said once per worker): %s", why)
    return ModelResult(
        MUJOCO, False, float("nan"), reason=f"could not run: {why}", details={COULD_NOT_RUN: True}
    )
