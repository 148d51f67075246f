"""The one trial path: running the trials of a plan (engine.grasp.trial_plan decides their poses).

`run_trial` executes one planned trial and is what the CLI (`run_trials`), the batch tasks and
the app's simulation worker call; a consumer streams frames through `on_frame` and stops the
trial by returning a reason from it (e.g. "cancelled").
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from typing import Protocol

import numpy as np

from engine.errors import IpcGraspError, SolverError
from engine.grasp.disturbance import measure_strength
from engine.grasp.frames import Frame, TrialResult
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.placement_checks import (
    check_pads_close_on_object,
    check_pads_grip,
    layout_builder,
    place_open_jaws,
)
from engine.grasp.push import Push, apply_push
from engine.grasp.simulation import GraspSimulation, build_pad
from engine.grasp.strength import disturb_directions

# The plan's names, re-exported: callers that run trials import everything from here.
from engine.grasp.trial_plan import (
    PlannedTrial,
    TrialSpec,
    perturbed_trials,
    plan_trials,
    planned_trial,
)
from engine.gripper.pad_geometry import PadMesh
from engine.ipc import ipctk_gateway as ipc
from engine.scene.resting import RestingObject

__all__ = [
    "CANCELLED",
    "INVALID_PERTURBED_GRASP",
    "PlannedTrial",
    "TrialSpec",
    "check_grasp",
    "drive_trial",
    "perturbed_trials",
    "plan_trials",
    "planned_trial",
    "robustness",
    "run_trial",
    "run_trials",
]

log = logging.getLogger(__name__)

INVALID_PERTURBED_GRASP = "invalid perturbed grasp"
CANCELLED = "cancelled"

OnFrame = Callable[[Frame], str | None]
"""Called after every frame; returning a non-empty string stops the trial with that reason."""


class TrialRunner(Protocol):
    """A simulator's trial: iterate `frames()`; `result` is final when they are exhausted."""

    result: TrialResult

    def frames(self) -> Iterator[Frame]:
        """The trial's frames (stopping iteration cancels it)."""
        ...


def drive_trial(
    build: Callable[[], TrialRunner],
    trial: PlannedTrial,
    on_frame: OnFrame | None = None,
    *,
    label: str = "trial",
) -> TrialResult:
    """Build a simulator's trial and stream its frames to `on_frame`; never raises for a pose
    that cannot be executed.

    A perturbed pose that the simulator refuses (open jaws in the object, a jaw that misses) is
    a failed trial with reason "invalid perturbed grasp"; the nominal pose raises instead, since
    that is the user's input to fix. Solver failures are recorded in the result by the
    simulator itself. `on_frame` may return a reason (e.g. "cancelled") to stop the trial.
    """
    try:
        sim = build()
    except IpcGraspError as exc:
        if trial.perturbation is None:
            raise
        log.info("%s %d: perturbed pose refused: %s", label, trial.index, exc)
        return TrialResult(
            trial=trial.index,
            success=False,
            reason=INVALID_PERTURBED_GRASP,
            error=str(exc),
            perturbation=trial.perturbation_dict,
        )
    gen = sim.frames()
    for frame in gen:
        stop = on_frame(frame) if on_frame is not None else None
        if stop:
            close = getattr(gen, "close", None)
            if callable(close):
                close()
            sim.result.success = False
            sim.result.reason = str(stop)
            break
    log.info(
        "%s %d: %s (%s) in %.3f s",
        label,
        trial.index,
        "success" if sim.result.success else "fail",
        sim.result.reason,
        sim.result.wall_time_s,
    )
    return sim.result


def run_trial(
    obj: RestingObject,
    trial: PlannedTrial,
    params: SimulationParams,
    *,
    pad: PadMesh | None = None,
    on_frame: OnFrame | None = None,
    push: Push | None = None,
) -> TrialResult:
    """Simulate one planned trial with IPC (drive_trial: a perturbed pose the simulator refuses
    is a failed trial, the nominal one raises). `push`: after a trial that lifted (and its
    disturbance test, if any), push the held object (engine.grasp.push), its frames streamed
    to `on_frame` too; the result records what the push did."""
    if push is not None:
        push.validate()

    built: list[GraspSimulation] = []

    def build() -> GraspSimulation:
        built.append(
            GraspSimulation(
                obj,
                trial.pose,
                params,
                pad=pad if pad is not None else build_pad(params),
                trial=trial.index,
                perturbation=trial.perturbation_dict,
                # Without a frame consumer nobody reads the frames' per-point forces.
                contact_forces=on_frame is not None,
            )
        )
        return built[0]

    result = drive_trial(build, trial, on_frame)
    measure = disturb_directions(params.disturb)
    if measure and result.success and built:
        sim = built[0]
        try:
            result.record_strength(measure_strength(sim, sim.hold_force_n, measure))
        except SolverError as exc:  # the lift's outcome stands; the strength is not known
            log.warning("trial %d: the disturbance test failed: %s", trial.index, exc)
            result.error = f"disturbance test: {exc}"
    if push is not None and result.success and built:
        _push(built[0], push, result, on_frame)
    return result


def _push(sim: GraspSimulation, push: Push, result: TrialResult, on_frame: OnFrame | None) -> None:
    """Run `push` on the held object, streaming its frames, and record its outcome."""
    t0 = time.perf_counter()
    gen = apply_push(sim, push, sim.hold_force_n)
    try:
        while True:
            frame = next(gen)  # counted in the result's frames by sim.frame
            stop = on_frame(frame) if on_frame is not None else None
            if stop:  # as drive_trial: a trial its consumer stopped ends with that reason
                gen.close()
                result.success, result.reason = False, str(stop)
                return
    except StopIteration as done:
        result.record_push(push, done.value)
    except SolverError as exc:
        log.warning("trial %d: the push failed: %s", result.trial, exc)
        result.error = f"push: {exc}"
    finally:
        result.wall_time_s += time.perf_counter() - t0


def check_grasp(
    obj: RestingObject, grasp: Grasp, params: SimulationParams, pad: PadMesh | None = None
) -> None:
    """Raise GraspError/ParameterError if the nominal grasp cannot be simulated at all, or
    would close on nothing or squeeze the object out: the simulation's own placement checks
    (engine.grasp.placement_checks), without its system, and `check_pads_grip` (both pads
    must first touch the object where friction holds; the simulation would run such a grasp
    and end it "pushed out")."""
    params.validate()
    ipc.configure_threads()
    pad = pad if pad is not None else build_pad(params)
    build = layout_builder(obj, pad, 0.5 * params.dhat_m)
    placed, _ = place_open_jaws(obj, grasp.pose(), params, pad, build)
    sweeps = check_pads_close_on_object(obj, placed.jaws, pad.outline, placed.open_width_m)
    check_pads_grip(obj, placed.jaws, sweeps, params.mu)


def run_trials(
    obj: RestingObject,
    grasp: Grasp,
    params: SimulationParams,
    spec: TrialSpec,
    on_frame: Callable[[int, Frame], str | None] | None = None,
    *,
    pad: PadMesh | None = None,
    push: Push | None = None,
) -> Iterator[TrialResult]:
    """Yield one result per planned trial; a trial that fails never stops the others.

    `on_frame(trial, frame)` may return a reason (e.g. "cancelled") to stop the whole run after
    that frame: the stopped trial is yielded with that reason and no further trial runs.
    `push`: every trial that lifts is then pushed (run_trial).
    """
    params.validate()
    pad = pad if pad is not None else build_pad(params)
    stopped: list[str] = []
    for planned in plan_trials(grasp, spec):

        def frame_hook(frame: Frame, k: int = planned.index) -> str | None:
            if on_frame is None:
                return None
            reason = on_frame(k, frame)
            if reason:
                stopped.append(str(reason))
            return reason

        yield run_trial(obj, planned, params, pad=pad, on_frame=frame_hook, push=push)
        if stopped:
            return


def robustness(results: list[TrialResult]) -> float:
    """R = mean success over the trials (NaN for no trials)."""
    if not results:
        return float("nan")
    return float(np.mean([r.success for r in results]))
