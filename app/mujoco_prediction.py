"""The MuJoCo baseline as a row of the predictions table (worker side, no Qt).

The nominal stage runs the nominal grasp (its frames travel back in `details["frames"]` so the
run can be played on the timeline); the robust stage runs the same `samples` perturbed poses
the analytic models use (engine.grasp.trial_plan.perturbed_trials of the seed), so the row's
robustness is paired with theirs and with IPC's trials.
"""

from __future__ import annotations

import dataclasses
import math
import time

import numpy as np

from engine.analytic.registry import MUJOCO
from engine.analytic.result import ModelResult, wilson_interval
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.trial_plan import TrialSpec, perturbed_trials, plan_trials
from engine.scene.resting import RestingObject


def mujoco_prediction(
    obj: RestingObject,
    grasp: Grasp,
    params: SimulationParams,
    samples: int,
    seed: int,
    pad_points: np.ndarray | None = None,
) -> ModelResult:
    """The baseline's verdict: the nominal trial, plus robustness over `samples` poses if > 0.

    Raises ImportError (naming the extra) when mujoco is not installed.
    """
    from engine.mujoco_baseline.simulation import run_mujoco_trial

    t0 = time.perf_counter()
    frames: list = []
    nominal = plan_trials(grasp, TrialSpec(n_trials=1, seed=seed))[0]
    result = run_mujoco_trial(
        obj, nominal, params, pad_points=pad_points, on_frame=lambda f: frames.append(f)
    )
    out = ModelResult(
        model=MUJOCO,
        success=bool(result.success),
        margin=math.nan,  # a simulation has no margin s*
        reason="" if result.success else result.reason,
        details={"frames": frames, "trial_result": result, "pose": nominal.pose},
    )
    if samples > 0:
        spec = TrialSpec(n_trials=samples, seed=seed)
        wins = sum(
            run_mujoco_trial(obj, t, params, pad_points=pad_points).success
            for t in perturbed_trials(grasp, spec)
        )
        out = dataclasses.replace(
            out,
            robustness=wins / samples,
            robustness_ci=wilson_interval(wins, samples),
            samples=samples,
        )
    elapsed = time.perf_counter() - t0
    return dataclasses.replace(out, time_s=elapsed, time_per_sample_s=elapsed / max(samples + 1, 1))
