"""The pad mesh and gripper shapes for the current parameters, and the colour fields of frames
(strain energy density or displacement per pad vertex) with their colour-scale ranges."""

from __future__ import annotations

import numpy as np

from app.gripper_shapes import GripperShapes
from app.model.document import build_pad
from engine.grasp.params import SimulationParams
from engine.gripper.pad_fields import PadFieldEvaluator, pad_displacement
from engine.gripper.pad_geometry import PadMesh
from engine.io.session import TrialRecord

Fields = tuple[np.ndarray, np.ndarray]

# The colour scale's top is at least what a pad strained this much shows: a pad at rest, whose
# strain energy is round-off (~1e-5 J/m^3), reads as unstrained, not at the top of the scale.
FLOOR_STRAIN = 1e-4
FLOOR_DISPLACEMENT_MM = 0.01


class PadFields:
    """Caches the pad built from the parameters and derives per-frame colour fields."""

    def __init__(self) -> None:
        self.pad: PadMesh | None = None
        self.shapes: GripperShapes | None = None
        self._key: tuple | None = None
        self._evaluator: PadFieldEvaluator | None = None
        self._field_max: dict[tuple[int, str], tuple[int, float]] = {}

    def update(self, params: SimulationParams) -> bool:
        """Rebuild the pad and shapes if the pad parameters changed; True if rebuilt."""
        key = (params.pad, params.pad_edge_length_m, params.pad_layers, params.open_width_m)
        if key == self._key:
            return False
        self.pad = build_pad(params)
        self.shapes = GripperShapes.build(self.pad, params.open_width_m)
        self._key = key
        self._evaluator = None
        return True

    def reset(self) -> None:
        """Forget the energy evaluator and the colour ranges (a new document)."""
        self._evaluator = None
        self._field_max = {}

    def reset_ranges(self) -> None:
        """Forget the colour ranges (a new run)."""
        self._field_max = {}

    def resolution(self) -> str:
        """The pad's mesh size for the parameters dock."""
        if self.pad is None:
            return ""
        return f"{len(self.pad.vertices)} vertices, {len(self.pad.tets)} tets per pad"

    def fields_for(
        self, rec: TrialRecord, index: int, mode: str, params: SimulationParams
    ) -> Fields | None:
        """Colour field of frame `index` for `mode` ("none", "energy", "displacement")."""
        if mode == "none" or self.pad is None:
            return None
        if mode == "energy":
            if len(rec.energy_density) != len(rec.frames):
                self.fill_energy(rec, params)
            return rec.energy_density[index]
        f = rec.frames[index]
        disp = pad_displacement(
            self.pad,
            f.pad_vertices,
            rec.gripper_pose,
            params.open_width_m,
            f.plate_travel_m,
            f.plate_lift_m,
        )
        return (disp[0] * 1e3, disp[1] * 1e3)

    def fill_energy(self, rec: TrialRecord, params: SimulationParams) -> None:
        """Energy fields for frames that came without them (old frame files)."""
        if self.pad is None:
            return
        if self._evaluator is None:
            self._evaluator = PadFieldEvaluator(
                self.pad, params.youngs_modulus_pa, params.poisson_ratio
            )
        ev = self._evaluator
        rec.energy_density = [
            (ev.energy_density(f.pad_vertices[0]), ev.energy_density(f.pad_vertices[1]))
            for f in rec.frames
        ]

    def field_range(self, rec: TrialRecord, mode: str, params: SimulationParams) -> float:
        """Top of the colour scale for a trial: the largest per-frame 99th percentile, so a
        few stress-concentration vertices at an edge do not wash out the rest of the pad.
        Updated incrementally as frames stream in."""
        key = (rec.trial, mode)
        counted, vmax = self._field_max.get(key, (0, 0.0))
        for i in range(counted, len(rec.frames)):
            fields = self.fields_for(rec, i, mode, params)
            if fields is not None:
                vmax = max(vmax, float(np.percentile(np.concatenate(fields), 99)))
        self._field_max[key] = (len(rec.frames), vmax)
        return max(vmax, field_floor(mode, params))


def field_floor(mode: str, params: SimulationParams) -> float:
    """The least top of the colour scale in `mode`: the energy density of a FLOOR_STRAIN strain
    (J/m^3, 0.5 E strain^2) or FLOOR_DISPLACEMENT_MM."""
    if mode == "energy":
        return 0.5 * params.youngs_modulus_pa * FLOOR_STRAIN**2
    return FLOOR_DISPLACEMENT_MM
