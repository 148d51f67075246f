"""Before a batch's first task: every mesh its grasp table names is loaded once, and the masses
its grasps give are checked against the mesh's volume.

A mesh that does not load (missing, unreadable, the wrong unit, ...) or a mass no object of its
size has would end each of its grasps' tasks in an error row; `check_meshes` lists them all at
the start instead, each with the grasps that name it and the fix (for a REACH JSON: exactly where
to put the missing `<obj>.obj`), and says each usable object's size, mass and density.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import trimesh

from engine.batch.grasp_spec import GraspSpec, GraspTableError
from engine.batch.grasp_table import GraspTable
from engine.errors import IpcGraspError
from engine.scene.mesh_units import size_mm
from engine.scene.object_facts import check_density
from engine.scene.object_mesh import (
    BUILTIN_CUBE_MASS_KG,
    MAX_CUBE_VERTICES,
    ObjectMesh,
    object_from_spec,
)
from engine.scene.resting import DEFAULT_DENSITY_KG_M3

CHECKED_CUBE_VERTICES = 2000
"""Built-in `cube:N` objects up to this many vertices are built to check them (finer ones take
seconds to build: their tasks build them)."""


@dataclass(frozen=True)
class MeshCheck:
    """What checking a table's meshes found."""

    objects: tuple[str, ...]  # one line per usable object: its size, unit, mass and density
    problems: tuple[str, ...]  # one line per unusable mesh or impossible mass, with the fix
    unusable: int  # grasps whose mesh or mass cannot be used (their tasks would be error rows)
    checked: int  # grasps whose row was read (those with a row error are not counted)


def _ids(specs: Sequence[GraspSpec], show: int = 3) -> str:
    names = ", ".join(s.grasp_id for s in specs[:show])
    more = f" and {len(specs) - show} more" if len(specs) > show else ""
    return f"{len(specs)} grasp{'s' if len(specs) != 1 else ''} ({names}{more})"


def _mesh_problem(
    table: GraspTable, spec: GraspSpec, specs: list[GraspSpec], exc: Exception
) -> str:
    """The line for a mesh that does not load: for a REACH JSON's missing mesh, where it goes."""
    path = Path(spec.object)
    if table.kind == "reach" and not path.is_file():
        return (
            f"REACH object {path.stem!r} ({_ids(specs)}): its mesh {path.name} is not in "
            f"{path.parent}: put {path.name} there, or pass --mesh-dir with the folder that "
            "holds it"
        )
    return f"{spec.object} ({_ids(specs)}): {exc}"


def _mass(spec: GraspSpec, mesh: ObjectMesh, volume: float) -> tuple[float, str]:
    """The mass a grasp's row gives its object (as engine.scene.resting.rest_object does)."""
    if spec.mass_kg is not None:
        return spec.mass_kg, "mass"
    if spec.density_kg_m3 is not None:
        return spec.density_kg_m3 * volume, "density"
    if mesh.source == "builtin:cube":
        return BUILTIN_CUBE_MASS_KG, "mass"
    return DEFAULT_DENSITY_KG_M3 * volume, "mass"


def _describe(mesh: ObjectMesh, grasps: int, densities: list[float], volume: float) -> str:
    """'object can (3 grasps): 66 x 66 x 115 mm (mesh read in cm), mass 350 g, density ...'."""
    lo, hi = min(densities), max(densities)
    mass = f"{lo * volume * 1e3:.4g} g" + (f" to {hi * volume * 1e3:.4g} g" if hi > lo else "")
    density = f"{lo:.4g}" + (f" to {hi:.4g}" if hi > lo else "")
    read = "metres" if (mesh.unit or "m") == "m" else mesh.unit
    size = size_mm(np.ptp(np.asarray(mesh.vertices), axis=0).tolist())
    return (
        f"object {mesh.name} ({grasps} grasp{'s' if grasps != 1 else ''}): {size} (mesh read "
        f"in {read}), mass {mass}, density {density} kg/m^3"
    )


def _checkable(spec: GraspSpec) -> bool:
    """A mesh file, or a built-in cube cheap enough to build."""
    text = spec.object.strip()
    if not text.startswith("cube:"):
        return True
    count = text[5:].strip()
    return (
        count.isascii()
        and count.isdigit()
        and int(count) <= min(CHECKED_CUBE_VERTICES, MAX_CUBE_VERTICES)
    )


def check_meshes(table: GraspTable) -> MeshCheck:
    """Load every mesh `table` names (once per file, unit and body) and check its grasps'
    masses. Raises GraspTableError, listing every problem, when no grasp can run."""
    groups: dict[tuple[str, str | None, str], list[GraspSpec]] = {}
    for spec in table.grasps:
        if not spec.error and _checkable(spec):
            groups.setdefault((spec.object, spec.unit, spec.body), []).append(spec)
    objects: list[str] = []
    problems: list[str] = []
    unusable = 0
    for (name, unit, body), specs in groups.items():
        try:
            mesh = object_from_spec(name, unit=unit, body=body or None)
        except IpcGraspError as exc:
            problems.append(_mesh_problem(table, specs[0], specs, exc))
            unusable += len(specs)
            continue
        volume = float(trimesh.Trimesh(mesh.vertices, mesh.faces, process=False).volume)
        densities: list[float] = []
        for spec in specs:
            mass, given = _mass(spec, mesh, volume)
            try:
                check_density(mass, volume, mesh, given)
            except IpcGraspError as exc:
                problems.append(f"grasp {spec.grasp_id} ({spec.source_row}): {exc}")
                unusable += 1
                continue
            densities.append(mass / volume)
        if densities:
            objects.append(_describe(mesh, len(specs), densities, volume))
    checked = sum(1 for s in table.grasps if not s.error)
    if checked and unusable == checked:
        raise GraspTableError(
            f"none of the {checked} grasps of {table.path} can run, nothing was run or written: "
            + "; ".join(problems)
        )
    return MeshCheck(tuple(objects), tuple(problems), unusable, checked)
