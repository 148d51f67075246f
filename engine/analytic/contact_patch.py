"""Plain data shared by the analytic models: contact points and discretised contact patches.

Conventions (every model): positions are in the object's resting frame (the frame of
`RestingObject.vertices`), wrenches act ON THE OBJECT as w = [f; tau] with tau about the
object's centre of mass, and the contacts must supply -w_ext where w_ext is the external load
(gravity at the centre of mass).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class ContactPoint:
    """A point contact of one jaw (Soft Point model)."""

    jaw: int
    position: np.ndarray  # (3,) m
    normal: np.ndarray  # (3,) unit, into the object (direction of the pad's push)


@dataclass(frozen=True, eq=False)
class ContactPatch:
    """One jaw's contact patch as triangle elements with a normal force each."""

    jaw: int
    triangles: np.ndarray  # (n,3,3) element corners, m
    centroids: np.ndarray  # (n,3) m
    normals: np.ndarray  # (n,3) unit, into the object (direction of the pad's push)
    areas: np.ndarray  # (n,) m^2
    forces: np.ndarray  # (n,) N, integral of the pressure over each element
    centers_of_pressure: np.ndarray  # (n,3) m, where each element's normal force acts
    closing_direction: np.ndarray  # (3,) unit, the jaw's closing direction

    @property
    def pressure_pa(self) -> np.ndarray:
        """Mean pressure per element (for drawing)."""
        return self.forces / np.maximum(self.areas, 1e-300)

    @property
    def total_force_n(self) -> float:
        """Normal force the jaw presses with, summed over the elements (N)."""
        return float(self.forces.sum())

    @property
    def area_m2(self) -> float:
        """Contact area of the patch (m^2)."""
        return float(self.areas.sum())

    def __len__(self) -> int:
        return len(self.areas)
