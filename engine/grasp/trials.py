"""The one trial path: which gripper poses a run simulates, and running one of them.

The trial plan (`plan_trials`) is the single place that decides the poses of N trials:

- **N = 1 runs the nominal grasp** (what the user placed or typed), unperturbed;
- **N >= 2 runs N perturbed poses**: trial k is the nominal pose composed with
  `sample_perturbations(N, seed, sigma_t, sigma_r)[k]`, a gripper-frame Gaussian offset
  (IPC-GraspSim: sigma 1 mm, 0.003 rad) that depends only on (seed, k).

`run_trial` executes one planned trial and is what the CLI (`run_trials`), the batch tasks and
the app's simulation worker call; a consumer streams frames through `on_frame` and stops the
trial by returning a reason from it (e.g. "cancelled").
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from engine.errors import IpcGraspError, ParameterError
from engine.grasp.frames import Frame, TrialResult
from engine.grasp.grasp import Grasp, Perturbation, sample_perturbations
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation, build_pad
from engine.gripper.pad_geometry import PadMesh
from engine.scene.resting import RestingObject
from engine.schema import check_fields, param

log = logging.getLogger(__name__)

INVALID_PERTURBED_GRASP = "invalid perturbed grasp"
CANCELLED = "cancelled"

OnFrame = Callable[[Frame], str | None]
"""Called after every frame; returning a non-empty string stops the trial with that reason."""


@dataclass(frozen=True)
class TrialSpec:
    """How many trials a run has and how their poses are drawn (see the module docstring)."""

    n_trials: int = param(
        1,
        unit="",
        help="number N of trials (1: the nominal grasp; N >= 2: N perturbed poses)",
        low=1,
        high=100_000,
        flag="--trials",
        label="Trials N",
        widget="int",
        group="trials",
    )
    seed: int = param(
        0,
        unit="",
        help="random seed of the perturbations: the same seed gives the same trials",
        low=0,
        high=2**63 - 1,  # batch grasp seeds are 32-bit hashes; SeedSequence takes any size
        flag="--seed",
        label="Seed",
        widget="int",
        group="trials",
    )
    translation_sigma_m: float = param(
        0.001,
        unit="m",
        help="standard deviation of the gripper-frame translation perturbation (IPC-GraspSim 1 mm)",
        low=0.0,
        high=0.05,
        flag="--translation-sigma",
        widget="none",
        group="trials",
    )
    rotation_sigma_rad: float = param(
        0.003,
        unit="rad",
        help="standard deviation of each gripper-frame rotation perturbation (IPC-GraspSim 0.003 rad)",
        low=0.0,
        high=0.5,
        flag="--rotation-sigma",
        widget="none",
        group="trials",
    )

    def validate(self) -> TrialSpec:
        """Raise ParameterError naming the bad field; return self."""
        check_fields(self)
        return self


@dataclass(frozen=True)
class PlannedTrial:
    """One trial of a plan: its index, world <- gripper pose and offset (None: nominal)."""

    index: int
    pose: np.ndarray
    perturbation: Perturbation | None

    @property
    def perturbation_dict(self) -> dict[str, float]:
        """The offset as the result rows store it ({} for the nominal pose)."""
        return {} if self.perturbation is None else self.perturbation.to_dict()


def plan_trials(grasp: Grasp, spec: TrialSpec) -> list[PlannedTrial]:
    """The poses of every trial of `spec` (N = 1: the nominal grasp; N >= 2: perturbed)."""
    spec.validate()
    nominal = grasp.pose()
    if spec.n_trials == 1:
        return [PlannedTrial(0, nominal, None)]
    perturbations = sample_perturbations(
        spec.n_trials, spec.seed, spec.translation_sigma_m, spec.rotation_sigma_rad
    )
    return [PlannedTrial(k, p.apply(nominal), p) for k, p in enumerate(perturbations)]


def planned_trial(grasp: Grasp, spec: TrialSpec, k: int) -> PlannedTrial:
    """Trial k of `spec` alone (a batch task runs one trial of a plan)."""
    if not 0 <= k < spec.n_trials:
        raise ParameterError(f"trial index {k} is outside 0..{spec.n_trials - 1}")
    return plan_trials(grasp, spec)[k]


def run_trial(
    obj: RestingObject,
    trial: PlannedTrial,
    params: SimulationParams,
    *,
    pad: PadMesh | None = None,
    on_frame: OnFrame | None = None,
) -> TrialResult:
    """Simulate one planned trial; never raises for a pose that cannot be executed.

    A perturbed pose that the simulator refuses (open jaws in the object, a jaw that misses) is
    a failed trial with reason "invalid perturbed grasp"; the nominal pose raises instead, since
    that is the user's input to fix. Solver failures are recorded in the result by the
    simulation itself.
    """
    try:
        sim = GraspSimulation(
            obj,
            trial.pose,
            params,
            pad=pad if pad is not None else build_pad(params),
            trial=trial.index,
            perturbation=trial.perturbation_dict,
        )
    except IpcGraspError as exc:
        if trial.perturbation is None:
            raise
        log.info("trial %d: perturbed pose refused: %s", trial.index, exc)
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
            gen.close()
            sim.result.success = False
            sim.result.reason = str(stop)
            break
    log.info(
        "trial %d: %s (%s) in %.2f s",
        trial.index,
        "success" if sim.result.success else "fail",
        sim.result.reason,
        sim.result.wall_time_s,
    )
    return sim.result


def check_grasp(obj: RestingObject, grasp: Grasp, params: SimulationParams) -> None:
    """Raise GraspError/ParameterError if the nominal grasp cannot be simulated at all."""
    GraspSimulation(obj, grasp.pose(), params, pad=build_pad(params))


def run_trials(
    obj: RestingObject,
    grasp: Grasp,
    params: SimulationParams,
    spec: TrialSpec,
    on_frame: Callable[[int, Frame], str | None] | None = None,
) -> Iterator[TrialResult]:
    """Yield one result per planned trial; a trial that fails never stops the others.

    `on_frame(trial, frame)` may return a reason (e.g. "cancelled") to stop the whole run after
    that frame: the stopped trial is yielded with that reason and no further trial runs.
    """
    params.validate()
    pad = build_pad(params)
    stopped: list[str] = []
    for planned in plan_trials(grasp, spec):

        def frame_hook(frame: Frame, k: int = planned.index) -> str | None:
            if on_frame is None:
                return None
            reason = on_frame(k, frame)
            if reason:
                stopped.append(str(reason))
            return reason

        yield run_trial(obj, planned, params, pad=pad, on_frame=frame_hook)
        if stopped:
            return


def robustness(results: list[TrialResult]) -> float:
    """R = mean success over the trials (NaN for no trials)."""
    if not results:
        return float("nan")
    return float(np.mean([r.success for r in results]))
