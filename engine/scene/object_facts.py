"""What a result row records about the object, what every command says about it at start, and
the densities no object has.

ObjectFacts declares the `object_*` columns once (engine.schema): the unit the mesh file was
read in, its scale, the object's mass, density and size. Rows of older versions lack some of
them; reading such a row gives None for what it does not record (`schema.from_row`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np
import trimesh

from engine import schema
from engine.errors import ParameterError, literal
from engine.scene.mesh_units import UNIT_SCALE_M, size_mm
from engine.scene.scene_settings import unit_setting
from engine.schema import param

if TYPE_CHECKING:
    from engine.scene.object_mesh import ObjectMesh
    from engine.scene.resting import RestingObject

MIN_DENSITY_KG_M3 = 10.0
"""Lightest density an object can have (expanded polystyrene foam is about 15 kg/m^3)."""
MAX_DENSITY_KG_M3 = 25_000.0
"""Heaviest density an object can have (osmium, the densest element, is 22,590 kg/m^3)."""

PREFIX = "object_"
"""The prefix of the ObjectFacts columns in result rows."""


def _number(default: float | None, unit: str, help_text: str) -> float | None:
    return param(default, unit=unit, help=help_text, low=0.0, low_inclusive=False, widget="none")


@dataclass(frozen=True)
class ObjectFacts:
    """The object as a row records it (the `object_*` columns)."""

    unit: str | None = param(
        None,
        unit="",
        help="length unit the mesh file was read in ('m' for the built-in cube)",
        choices=tuple(UNIT_SCALE_M),
        widget="none",
    )
    scale_m: float | None = _number(None, "m", "metres per file unit the mesh was read with")
    mass_kg: float | None = _number(None, "kg", "object mass")
    density_kg_m3: float | None = _number(None, "kg/m^3", "object density (uniform)")
    size_x_mm: float | None = _number(None, "mm", "mesh extent along its x axis")
    size_y_mm: float | None = _number(None, "mm", "mesh extent along its y axis")
    size_z_mm: float | None = _number(None, "mm", "mesh extent along its z axis")

    @classmethod
    def of(cls, obj: RestingObject) -> ObjectFacts:
        """The facts of an object at rest (its size is its mesh's, in the file's frame)."""
        mesh = obj.mesh
        x, y, z = (float(v) * 1e3 for v in np.ptp(np.asarray(mesh.vertices), axis=0))
        return cls(mesh.unit or "m", mesh.scale_m, obj.mass_kg, obj.density_kg_m3, x, y, z)

    @classmethod
    def of_mesh(cls, mesh: ObjectMesh, density_kg_m3: float) -> ObjectFacts:
        """The facts of `mesh` at a uniform density (its mass from its volume)."""
        vertices = np.asarray(mesh.vertices, dtype=float)
        faces = np.asarray(mesh.faces, dtype=np.int64)
        volume = float(trimesh.triangles.mass_properties(vertices[faces], density=1.0).volume)
        x, y, z = (float(v) * 1e3 for v in np.ptp(vertices, axis=0))
        density = float(density_kg_m3)
        return cls(mesh.unit or "m", mesh.scale_m, density * volume, density, x, y, z)

    def columns(self) -> dict[str, object]:
        """The row cells (OBJECT_COLUMNS)."""
        return schema.to_row(self, PREFIX)

    def describe(self) -> str:
        """One line: '66 x 115 x 66 mm (file read in cm), 100 g, 1.2e+03 kg/m^3'."""
        sizes = (self.size_x_mm, self.size_y_mm, self.size_z_mm)
        size = size_mm([s * 1e-3 for s in sizes if s is not None])
        unit = "metres" if self.unit in (None, "m") else self.unit
        mass = "?" if self.mass_kg is None else f"{self.mass_kg * 1e3:.4g} g"
        density = "?" if self.density_kg_m3 is None else f"{self.density_kg_m3:.4g} kg/m^3"
        return f"{size} (mesh read in {unit}), mass {mass}, density {density}"


OBJECT_COLUMNS = tuple(schema.columns(ObjectFacts, PREFIX))
"""The result-row columns ObjectFacts fills, in order."""


def check_density(mass_kg: float, volume_m3: float, mesh: ObjectMesh, given: str) -> None:
    """Refuse a mass and volume whose density no object has, with the numbers and the likely
    fix. `given` says what was given ("mass", "density" or "default")."""
    density = mass_kg / volume_m3
    if MIN_DENSITY_KG_M3 <= density <= MAX_DENSITY_KG_M3:
        return
    size = size_mm(np.ptp(np.asarray(mesh.vertices), axis=0).tolist())
    unit = mesh.unit or "m"
    numbers = (
        f"a mass of {mass_kg * 1e3:.4g} g in {volume_m3 * 1e6:.4g} cm^3 (the mesh, {size} read "
        f"in {'metres' if unit == 'm' else unit}) is a density of {density:.3g} kg/m^3"
    )
    if density > MAX_DENSITY_KG_M3:
        why = (
            f"more than any object ({MAX_DENSITY_KG_M3:,.0f} kg/m^3; osmium is 22,590): the mesh "
            "is likely too small for its unit (a file in cm or inches read as mm?), or the "
            f"{given} is too large (grams given as kg?)"
        )
    else:
        why = (
            f"less than any object ({MIN_DENSITY_KG_M3:g} kg/m^3; foam is about 15): the mesh is "
            f"likely too large for its unit (a file in mm read as cm or m?), or the {given} is too "
            "small"
        )
    raise ParameterError(
        literal(f"{numbers}, {why}") + ": check the mesh's unit ({0}) and the " + given,
        settings=[unit_setting()],
    )
