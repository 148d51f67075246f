"""Per-vertex fields of a deformed pad for drawing: strain energy density and displacement.

Both are functions of a frame's pad vertex positions only, so the app can colour any stored
frame without re-running the simulation.
"""

from __future__ import annotations

import numpy as np

from engine.fem.neohookean import elastic_energy_per_tet, lame_parameters, tet_rest
from engine.gripper.jaws import place_jaws
from engine.gripper.pad_geometry import PadMesh


class PadFieldEvaluator:
    """Evaluates fields of one pad mesh for a given material (rest data computed once)."""

    def __init__(self, pad: PadMesh, youngs_modulus_pa: float, poisson_ratio: float) -> None:
        self.pad = pad
        self._rest = tet_rest(pad.vertices, pad.tets)
        self._mu, self._lam = lame_parameters(youngs_modulus_pa, poisson_ratio)
        # Each tet's energy density is shared among its 4 vertices, weighted by volume.
        tets = np.asarray(pad.tets)
        vol = np.asarray(self._rest.volumes)
        self._vertex_volume = np.zeros(len(pad.vertices))
        np.add.at(self._vertex_volume, tets.ravel(), np.repeat(vol, 4))

    def energy_density(self, positions: np.ndarray) -> np.ndarray:
        """(n,) Neo-Hookean strain energy density (J/m^3) per vertex, volume-weighted average
        of the incident tets; inverted tets (infinite energy) count as 0."""
        per_tet = elastic_energy_per_tet(
            np.asarray(positions, dtype=np.float64), self._rest, self._mu, self._lam
        )
        per_tet = np.where(np.isfinite(per_tet), per_tet, 0.0)
        acc = np.zeros(len(self._vertex_volume))
        np.add.at(acc, np.asarray(self.pad.tets).ravel(), np.repeat(per_tet, 4))
        # sum of tet energies around a vertex / sum of their volumes = mean density.
        return acc / np.maximum(self._vertex_volume, 1e-300)


def pad_rest_positions(
    pad: PadMesh,
    gripper_pose: np.ndarray,
    open_width_m: float,
    plate_travel_m: float,
    plate_lift_m: float,
) -> tuple[np.ndarray, np.ndarray]:
    """World positions both pads would have undeformed, carried by their plates."""
    jaws = place_jaws(np.asarray(gripper_pose, dtype=float), open_width_m)
    up = np.array([0.0, 0.0, plate_lift_m])
    left, right = (
        jaw.to_world(np.asarray(pad.vertices)) + plate_travel_m * jaw.normal + up for jaw in jaws
    )
    return left, right


def pad_displacement(
    pad: PadMesh,
    positions: tuple[np.ndarray, np.ndarray],
    gripper_pose: np.ndarray,
    open_width_m: float,
    plate_travel_m: float,
    plate_lift_m: float,
) -> tuple[np.ndarray, np.ndarray]:
    """(n,) deformation displacement magnitude (m) of each pad's vertices relative to the plate."""
    rest = pad_rest_positions(pad, gripper_pose, open_width_m, plate_travel_m, plate_lift_m)
    left, right = (
        np.linalg.norm(np.asarray(x, dtype=float) - r, axis=1)
        for x, r in zip(positions, rest, strict=True)
    )
    return left, right
