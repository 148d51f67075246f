"""Robustness: N squeeze-lift trials with Gaussian gripper-pose perturbations."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass

import numpy as np

from engine.errors import IpcGraspError
from engine.grasp.frames import Frame, TrialResult
from engine.grasp.grasp import Grasp, sample_perturbations
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation, build_pad
from engine.scene.resting import RestingObject


@dataclass(frozen=True)
class TrialSpec:
    n_trials: int = 1
    seed: int = 0
    translation_sigma_m: float = 0.001
    rotation_sigma_rad: float = 0.003


def check_grasp(obj: RestingObject, grasp: Grasp, params: SimulationParams) -> None:
    """Raise GraspError/ParameterError if the nominal grasp cannot be simulated at all."""
    GraspSimulation(obj, grasp.pose(), params, pad=build_pad(params))


def run_trials(
    obj: RestingObject,
    grasp: Grasp,
    params: SimulationParams,
    spec: TrialSpec,
    on_frame: Callable[[int, Frame], bool | None] | None = None,
) -> Iterator[TrialResult]:
    """Yield one result per perturbed trial; a trial that fails never stops the others.

    `on_frame(trial, frame)` may return True to cancel the whole run after that frame.
    """
    params.validate()
    pad = build_pad(params)
    nominal = grasp.pose()
    perturbations = sample_perturbations(
        spec.n_trials, spec.seed, spec.translation_sigma_m, spec.rotation_sigma_rad
    )
    for k, pert in enumerate(perturbations):
        try:
            sim = GraspSimulation(
                obj, pert.apply(nominal), params, pad=pad, trial=k, perturbation=pert.to_dict()
            )
        except IpcGraspError as exc:
            yield TrialResult(
                trial=k,
                success=False,
                reason="invalid perturbed grasp",
                error=str(exc),
                perturbation=pert.to_dict(),
            )
            continue
        cancelled = False
        gen = sim.frames()
        for frame in gen:
            if on_frame is not None and on_frame(k, frame):
                gen.close()
                sim.result.reason = "cancelled"
                cancelled = True
                break
        yield sim.result
        if cancelled:
            return


def robustness(results: list[TrialResult]) -> float:
    """R = mean success over the trials (NaN for no trials)."""
    if not results:
        return float("nan")
    return float(np.mean([r.success for r in results]))
