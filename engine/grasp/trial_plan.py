"""The trial plan: which gripper poses the N trials of a run simulate (no simulation here).

- **N = 1 runs the nominal grasp** (what the user placed or typed), unperturbed;
- **N >= 2 runs N perturbed poses**: trial k is the nominal pose composed with
  `sample_perturbations(N, seed, sigma_t, sigma_r)[k]`, a gripper-frame Gaussian offset
  (IPC-GraspSim: sigma 1 mm, 0.003 rad) that depends only on (seed, k).

The analytic models' robustness samples are `perturbed_trials` of the same seed, so their
sample k and the simulator's trial k share one offset (common random numbers).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.errors import ParameterError
from engine.schema import check_fields, param

if TYPE_CHECKING:  # numpy loads with the planning, not with TrialSpec's flags (CMD --help)
    import numpy as np

    from engine.grasp.grasp import Grasp, Perturbation


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
    if spec.n_trials == 1:
        return [PlannedTrial(0, grasp.pose(), None)]
    return perturbed_trials(grasp, spec)


def perturbed_trials(grasp: Grasp, spec: TrialSpec) -> list[PlannedTrial]:
    """N perturbed poses whatever N is (0 allowed): robustness sampling, e.g. the analytic
    models' samples, which share trial k's offset with the simulator's trial k."""
    from engine.grasp.grasp import sample_perturbations

    perturbations = sample_perturbations(
        spec.n_trials, spec.seed, spec.translation_sigma_m, spec.rotation_sigma_rad
    )
    nominal = grasp.pose()
    return [PlannedTrial(k, p.apply(nominal), p) for k, p in enumerate(perturbations)]


def planned_trial(grasp: Grasp, spec: TrialSpec, k: int) -> PlannedTrial:
    """Trial k of `spec` alone (a batch task runs one trial of a plan)."""
    if not 0 <= k < spec.n_trials:
        raise ParameterError(f"trial index {k} is outside 0..{spec.n_trials - 1}")
    return plan_trials(grasp, spec)[k]
