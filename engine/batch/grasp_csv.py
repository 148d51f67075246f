"""Reading a CSV of grasps: one grasp per row; header names, case-insensitive, in any order.

  required  object (mesh path relative to the CSV, or 'cube' / 'cube:N'),
            center_x, center_y, center_z (m, resting frame), axis_x, axis_y, axis_z
            (the simulate CSV's grasp_center_* / grasp_axis_* names are accepted too)
  optional  approach_angle (rad, default 0), grasp_id (default: 'row<N>'), unit, body (which
            body of a file holding several: K or 'all', see engine.scene.mesh_repair), mass
            (kg), density (kg/m^3), stable_pose (default 0), E (Pa), mu, mu_ground, psi_th (J)

A missing column raises GraspTableError; a bad row becomes a GraspSpec with `error` set naming
its line and field.
"""

from __future__ import annotations

import csv
import difflib
import io
import math
from pathlib import Path
from typing import overload

import numpy as np

from engine import schema
from engine.batch.grasp_spec import GraspSpec, GraspTableError, RowError, bad_row
from engine.errors import ParameterError
from engine.grasp.params import SimulationParams
from engine.io.results_csv import OUTCOME_COLUMNS
from engine.scene.mesh_bodies import parse_body
from engine.scene.object_mesh import MESH_COLUMNS, UNIT_SCALE_M

# Per-row parameter columns -> SimulationParams fields.
ROW_PARAM_COLUMNS = {
    "e": "youngs_modulus_pa",
    "mu": "mu",
    "mu_ground": "mu_ground",
    "psi_th": "psi_th_j",
}

_ALIASES = {
    "grasp_center_x": "center_x",
    "grasp_center_y": "center_y",
    "grasp_center_z": "center_z",
    "grasp_axis_x": "axis_x",
    "grasp_axis_y": "axis_y",
    "grasp_axis_z": "axis_z",
    "mass_kg": "mass",
    "density_kg_m3": "density",
}
_REQUIRED_CSV = ("object", "center_x", "center_y", "center_z", "axis_x", "axis_y", "axis_z")
_ROW_DECLS = {f: schema.field_spec(SimulationParams, f) for f in ROW_PARAM_COLUMNS.values()}
_OPTIONAL_CSV = (
    "approach_angle",
    "grasp_id",
    "unit",
    "body",
    "mass",
    "density",
    "stable_pose",
    *ROW_PARAM_COLUMNS,
)
# Columns of the simulate / batch results CSVs that a grasp table may carry along (ignored).
_CARRIED = {
    "ipcgrasp_version",
    "object_sha256",
    "seed",
    "n_trials",
    "status",
    "model",
    "task_key",
    "config",
    *MESH_COLUMNS,
    *("quality", "quality_model", "contact_width"),  # ipcgrasp sample (CARRIED_SAMPLE_COLUMNS)
    *OUTCOME_COLUMNS,
}

MAX_PATH_CHARS = 4096
"""Longest object path."""
MAX_AXIS_COMPONENT = 1e6
"""Largest closing-axis component (the axis is a direction; it is normalised)."""
MAX_CENTER_M = 10.0
"""Largest grasp centre coordinate (m): objects are at most 1.5 m across."""


def read_csv(
    path: Path, text: str, mass_kg: float | None, unit: str | None, warnings: list[str]
) -> list[GraspSpec]:
    reader = csv.reader(io.StringIO(text, newline=""))
    try:
        header = next(reader)
    except StopIteration:
        raise GraspTableError(f"grasp table {path} is empty: it needs a header row") from None
    except csv.Error as exc:
        raise GraspTableError(f"{path} line 1: not a valid CSV header ({exc})") from exc
    names = [_ALIASES.get(h.strip().lower(), h.strip().lower()) for h in header]
    _check_columns(path, names, warnings)
    missing = [c for c in _REQUIRED_CSV if c not in names]
    if missing:
        raise GraspTableError(
            f"{path}: header lacks column(s) {', '.join(missing)}; a grasp CSV needs "
            f"{', '.join(_REQUIRED_CSV)} (optional: approach_angle, grasp_id, unit, body, mass, density, "
            "stable_pose, E, mu, mu_ground, psi_th)"
        )
    duplicated = sorted({n for n in names if n and names.count(n) > 1})
    if duplicated:
        raise GraspTableError(f"{path}: column(s) {', '.join(duplicated)} appear more than once")
    specs: list[GraspSpec] = []
    seen: dict[str, int] = {}
    row_index = 0
    while True:
        try:
            values = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            row_index += 1
            line = reader.line_num
            specs.append(bad_row(f"row{row_index}", f"line {line}", f"{path} line {line}: {exc}"))
            continue
        line = reader.line_num
        if not any(v.strip() for v in values):
            continue  # blank line
        row_index += 1
        where = f"line {line}"
        at = f"{path} line {line} (row {row_index})"
        gid = f"row{row_index}"
        if len(values) != len(names):
            specs.append(
                bad_row(
                    gid,
                    where,
                    f"{at}: {len(values)} fields, the header has {len(names)}",
                )
            )
            continue
        row = {n: v.strip() for n, v in zip(names, values, strict=True) if n}
        gid = row.get("grasp_id") or gid
        if gid in seen:
            specs.append(
                bad_row(
                    gid,
                    where,
                    f"{at}: grasp_id {gid!r} already used on line {seen[gid]}",
                )
            )
            continue
        seen[gid] = line
        try:
            specs.append(_csv_spec(path, row, gid, where, mass_kg, unit))
        except RowError as exc:
            specs.append(bad_row(gid, where, f"{at}, field {exc.field!r}: {exc.message}"))
    return specs


@overload
def _number(row: dict[str, str], name: str, default: float) -> float: ...
@overload
def _number(row: dict[str, str], name: str, default: None = None) -> float | None: ...
def _number(row: dict[str, str], name: str, default: float | None = None) -> float | None:
    """The row's `name` as a finite float; `default` when empty (required columns raise)."""
    raw = row.get(name, "")
    if raw == "":
        if default is None and name in _REQUIRED_CSV:
            raise RowError(name, "is empty; give a number")
        return default
    try:
        value = float(raw)
    except ValueError:
        raise RowError(name, f"{raw!r} is not a number") from None
    if not math.isfinite(value):
        raise RowError(name, f"{raw!r} is not a finite number")
    return value


def _csv_spec(
    path: Path,
    row: dict[str, str],
    gid: str,
    where: str,
    mass_default: float | None,
    unit_default: str | None,
) -> GraspSpec:
    """The grasp of one row (RowError naming the first bad field, in column order)."""
    obj = _object(path, row)
    center, axis = _center_and_axis(row)
    angle = _number(row, "approach_angle", 0.0)
    mass, density = _mass_and_density(row, mass_default)
    stable_pose = _stable_pose(row)
    unit = row.get("unit") or unit_default
    if unit is not None and unit not in UNIT_SCALE_M:
        raise RowError("unit", f"{unit[:40]!r} is not one of {', '.join(UNIT_SCALE_M)}")
    body = row.get("body", "")
    try:
        parse_body(body)
    except ParameterError as exc:
        raise RowError("body", str(exc)) from None
    return GraspSpec(
        grasp_id=gid,
        source_row=where,
        object=obj,
        unit=unit,
        body=body.strip().lower(),
        mass_kg=mass,
        density_kg_m3=density,
        stable_pose=stable_pose,
        center=center,
        axis=axis,
        approach_angle_rad=float(angle),
        params=_row_params(row),
    )


def _object(path: Path, row: dict[str, str]) -> str:
    """The row's object: 'cube' / 'cube:N', or its mesh path resolved against the CSV's folder."""
    obj = row.get("object", "")
    if not obj:
        raise RowError("object", "is empty; give a mesh path or 'cube'")
    if len(obj) > MAX_PATH_CHARS:
        raise RowError("object", f"is {len(obj)} characters long (at most {MAX_PATH_CHARS})")
    if "\0" in obj:
        raise RowError("object", "contains a NUL character; give a mesh path or 'cube'")
    if not obj.lower().startswith("cube"):
        try:
            mesh = Path(obj).expanduser()
            obj = str(mesh if mesh.is_absolute() else (path.parent / mesh).resolve())
        except (OSError, RuntimeError, ValueError) as exc:  # symlink loop, bad ~user
            raise RowError("object", f"{obj[:200]!r} is not a usable path ({exc})") from None
    return obj


def _center_and_axis(row: dict[str, str]) -> tuple[np.ndarray, np.ndarray]:
    """The grasp centre (m, resting frame) and closing axis (not normalised here)."""
    center = np.array([_number(row, f"center_{c}") for c in "xyz"], dtype=float)
    for c, value in zip("xyz", center, strict=True):
        if abs(value) > MAX_CENTER_M:
            raise RowError(
                f"center_{c}",
                f"{value:g} m is far outside any object (|centre| <= {MAX_CENTER_M:g} m)",
            )
    axis = np.array([_number(row, f"axis_{c}") for c in "xyz"], dtype=float)
    for c, value in zip("xyz", axis, strict=True):
        # A direction: huge components would overflow its length (and become the zero vector).
        if abs(value) > MAX_AXIS_COMPONENT:
            raise RowError(
                f"axis_{c}",
                f"{value:g} is too large for a direction (at most {MAX_AXIS_COMPONENT:g}); give "
                "a direction such as 1 0 0",
            )
    if math.hypot(*(float(a) for a in axis)) < 1e-12:
        raise RowError("axis_x", "the closing axis (axis_x, axis_y, axis_z) is the zero vector")
    return center, axis


def _mass_and_density(
    row: dict[str, str], mass_default: float | None
) -> tuple[float | None, float | None]:
    """The row's mass or density (at most one; the table's default mass when neither)."""
    mass = _number(row, "mass", None)
    density = _number(row, "density", None)
    for name, value in (("mass", mass), ("density", density)):
        if value is not None and value <= 0:
            raise RowError(name, f"must be > 0 (got {value})")
    if mass is not None and density is not None:
        raise RowError("density", "give mass or density, not both")
    if mass is None and density is None:
        mass = mass_default
    return mass, density


def _stable_pose(row: dict[str, str]) -> int:
    """The row's resting pose index (0, the most probable, when empty)."""
    pose_raw = row.get("stable_pose", "")
    try:
        stable_pose = int(pose_raw) if pose_raw else 0
    except ValueError:
        raise RowError("stable_pose", f"{pose_raw[:40]!r} is not an integer index") from None
    if not 0 <= stable_pose <= 10_000:
        raise RowError("stable_pose", f"must be an index >= 0 (got {stable_pose})")
    return stable_pose


def _row_params(row: dict[str, str]) -> dict[str, float]:
    """The row's SimulationParams overrides (E, mu, mu_ground, psi_th columns)."""
    params: dict[str, float] = {}
    for column, field_name in ROW_PARAM_COLUMNS.items():
        value = _number(row, column, None)
        if value is not None:
            # The declared range (engine.schema), checked now: a bad value is an error row,
            # never a trial that fails later as an "invalid perturbed grasp".
            try:
                params[field_name] = schema.check_value(_ROW_DECLS[field_name], value)
            except ParameterError as exc:
                raise RowError(column, str(exc)) from None
    return params


def _check_columns(path: Path, names: list[str], warnings: list[str]) -> None:
    """A column that is a misspelling of a known one is refused with the closest name; other
    unknown columns are noted in `warnings` (they are not read)."""
    known = [*_REQUIRED_CSV, *_OPTIONAL_CSV]
    ignored = []
    for name in names:
        if not name or name in known or name in _ALIASES or name in _CARRIED:
            continue
        if name.startswith("param_") or name.startswith("grasp_"):
            ignored.append(name)
            continue
        close = difflib.get_close_matches(name, known, n=1, cutoff=0.75)
        if close:
            raise GraspTableError(
                f"{path}: column {name!r} is not a grasp table column; did you mean "
                f"{close[0]!r}? Rename it (or remove it). Columns: {', '.join(_REQUIRED_CSV)}; "
                f"optional: {', '.join(_OPTIONAL_CSV)}"
            )
        ignored.append(name)
    if ignored:
        shown = ", ".join(repr(n[:40]) for n in ignored[:10])
        warnings.append(
            f"{path}: column(s) {shown}{' ...' if len(ignored) > 10 else ''} are not grasp "
            "table columns and are ignored"
        )
