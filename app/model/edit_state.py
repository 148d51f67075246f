"""The editable state that undo/redo switches between (Qt-free)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams


@dataclass(frozen=True, eq=False)
class EditState:
    """What the user edits: grasp, parameters, trials, seed, analytic force, density, pose."""

    grasp: Grasp
    params: SimulationParams
    n_trials: int
    seed: int
    analytic_force_n: float
    density_kg_m3: float | None
    pose_index: int

    def same_as(self, other: EditState) -> bool:
        """Field-wise equality (Grasp holds arrays, so dataclass == cannot compare it)."""
        g, h = self.grasp, other.grasp
        same_grasp = (
            np.array_equal(g.center, h.center)
            and np.array_equal(g.axis, h.axis)
            and g.approach_angle_rad == h.approach_angle_rad
        )
        rest = ("params", "n_trials", "seed", "analytic_force_n", "density_kg_m3", "pose_index")
        return same_grasp and all(getattr(self, k) == getattr(other, k) for k in rest)
