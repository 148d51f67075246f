"""Read a table of grasps to label: a CSV of grasps or a REACH-format JSON of physical trials.

CSV (one grasp per row; header names, case-insensitive, in any order):
  required  object (mesh path relative to the CSV, or 'cube' / 'cube:N'),
            center_x, center_y, center_z (m, resting frame), axis_x, axis_y, axis_z
            (the simulate CSV's grasp_center_* / grasp_axis_* names are accepted too)
  optional  approach_angle (rad, default 0), grasp_id (default: 'row<N>'), unit, body (which
            body of a file holding several: K or 'all', see engine.scene.mesh_repair), mass
            (kg), density (kg/m^3), stable_pose (default 0), E (Pa), mu, mu_ground, psi_th (J)
`write_grasp_table` writes this format (ipcgrasp sample) and checks it by reading it back.

REACH JSON (Danielczuk et al. 2019; IPC-GraspSim's physical data): a list of records, one per
physical trial, each with `obj`, `attempt` (the grasp), `trial`, `result`, `grasp` (4x4 world <-
gripper) and `pose` (4x4 world <- object). Records of one attempt share one grasp. The gripper's
x axis closes the jaws, z approaches; the jaw centre (midpoint of the two tooltips) is at
gripper-frame (0, 0, REACH_JAW_CENTER_Z_M). The grasp id is '<obj>/<attempt>'.

Structural problems (unreadable file, missing column) raise GraspTableError; a bad row becomes a
GraspSpec with `error` set, so the batch records it and goes on.
"""

from __future__ import annotations

import csv
import difflib
import hashlib
import io
import json
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import overload

import numpy as np

from engine import schema
from engine.errors import ParameterError
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.io.results_csv import OUTCOME_COLUMNS
from engine.io.safe_write import atomic_write_text
from engine.scene.mesh_repair import parse_body
from engine.scene.object_mesh import MESH_COLUMNS, UNIT_SCALE_M, ObjectMesh, object_from_spec
from engine.scene.resting import RestingObject, rest_object, rest_object_from_rotation

REACH_JAW_CENTER_Z_M = 0.160098
"""Jaw centre along the YuMi gripper's approach axis (yumi_metal_spline.yaml tooltips)."""

REACH_SNAP_DEG = 2.0
"""Recorded REACH object poses tilted by at most this much are laid flat on their support face."""

# Printed masses of the REACH / IPC-GraspSim objects (IPC-GraspSim's phys_grasp_ipc.py), kg.
REACH_OBJECT_MASSES_KG = {
    "bar_clamp": 0.0185,
    "book": 0.0348,
    "bowl": 0.0157,
    "cat": 0.0099,
    "cube_3cm": 0.0030,
    "endstop_holder": 0.0163,
    "engine_part": 0.0286,
    "fan_extruder": 0.0074,
    "gearbox": 0.0074,
    "large_marker": 0.0032,
    "mount1": 0.0104,
    "mug": 0.0202,
    "nozzle": 0.0063,
    "part1": 0.0068,
    "part3": 0.0136,
    "pawn": 0.0186,
    "pear": 0.0065,
    "pipe_connector": 0.0235,
    "sardines": 0.0112,
    "sulfur_neutron": 0.0070,
    "vase": 0.0131,
    "yoda": 0.0204,
}

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

MAX_TABLE_BYTES = 256 * 1024**2
"""Largest grasp table read (256 MiB, about two million CSV rows)."""
MAX_GRASPS = 1_000_000
"""Most grasps (CSV rows or REACH records) in one table."""
MAX_PATH_CHARS = 4096
"""Longest object path or REACH object name."""
MAX_AXIS_COMPONENT = 1e6
"""Largest closing-axis component (the axis is a direction; it is normalised)."""
MAX_CENTER_M = 10.0
"""Largest grasp centre coordinate (m): objects are at most 1.5 m across."""


class GraspTableError(ParameterError):
    """The grasp table as a whole cannot be read (the message names the file and the fix)."""


@dataclass(frozen=True, eq=False)
class GraspSpec:
    """One grasp to label, as read (the scene is built later, in the worker)."""

    grasp_id: str
    source_row: str  # where it came from, for messages: 'line 4' or 'records 0-4'
    object: str = ""  # mesh path or 'cube' spec
    unit: str | None = None
    body: str = ""  # which body of a file holding several ('' = refuse several, K, 'all')
    mass_kg: float | None = None
    density_kg_m3: float | None = None
    stable_pose: int = 0
    center: np.ndarray | None = None  # CSV: resting frame
    axis: np.ndarray | None = None
    approach_angle_rad: float = 0.0
    gripper_pose: np.ndarray | None = None  # REACH: 4x4 world <- gripper
    object_pose: np.ndarray | None = None  # REACH: 4x4 world <- object
    params: dict[str, float] = field(default_factory=dict)  # SimulationParams overrides
    error: str = ""  # non-empty: the row could not be read; why

    def identity(self) -> dict:
        """Everything that defines the grasp, as plain JSON data (for task keys)."""

        def arr(a: np.ndarray | None) -> list | None:
            return None if a is None else np.asarray(a, dtype=float).round(12).tolist()

        return {
            "grasp_id": self.grasp_id,
            "object": self.object,
            "unit": self.unit,
            **({"body": self.body} if self.body else {}),  # old keys stay valid without one
            "mass_kg": self.mass_kg,
            "density_kg_m3": self.density_kg_m3,
            "stable_pose": self.stable_pose,
            "center": arr(self.center),
            "axis": arr(self.axis),
            "approach_angle_rad": self.approach_angle_rad,
            "gripper_pose": arr(self.gripper_pose),
            "object_pose": arr(self.object_pose),
            "params": dict(sorted(self.params.items())),
            "error": self.error,
        }


@dataclass(frozen=True)
class GraspTable:
    """The grasps of one GRASPS file (CSV or REACH JSON), with its path and SHA-256."""

    path: str
    sha256: str
    kind: str  # 'csv' or 'reach'
    grasps: tuple[GraspSpec, ...]
    warnings: tuple[str, ...] = ()  # e.g. columns the table has that are not read

    @property
    def errors(self) -> list[GraspSpec]:
        """The grasps whose row could not be read (their `error` says why)."""
        return [g for g in self.grasps if g.error]

    def invalid_summary(self, show: int = 10) -> str:
        """'3 of 125 rows are invalid: ...' (the first `show` reasons), or '' when none are."""
        bad = self.errors
        if not bad:
            return ""
        what = "rows" if self.kind == "csv" else "grasps"
        reasons = "; ".join(g.error for g in bad[:show])
        more = f"; and {len(bad) - show} more" if len(bad) > show else ""
        return (
            f"{len(bad)} of {len(self.grasps)} {what} are invalid and are recorded as error "
            f"rows (fix them and run again with --retry-errors): {reasons}{more}"
        )


def read_grasp_table(
    path: str | Path,
    mesh_dir: str | Path | None = None,
    mass_kg: float | None = None,
    unit: str | None = None,
    limit: int | None = None,
) -> GraspTable:
    """Read GRASPS (CSV or REACH JSON); `limit` keeps the first N grasps.

    `mesh_dir`: where REACH meshes (<obj>.obj) live (default: the JSON's folder); CSV paths are
    relative to the CSV's folder. `mass_kg`, `unit`: defaults for rows that give none.
    """
    p = Path(path).expanduser()
    if not p.is_file():
        what = "is a directory" if p.is_dir() else "not found"
        raise GraspTableError(f"grasp table {p} {what}: give a CSV of grasps or a REACH JSON")
    if limit is not None and limit < 1:
        raise GraspTableError(f"--limit must be >= 1 (got {limit})")
    try:
        size = p.stat().st_size
        if size > MAX_TABLE_BYTES:
            raise GraspTableError(
                f"grasp table {p} is {size / 1024**2:.0f} MiB (at most "
                f"{MAX_TABLE_BYTES / 1024**2:.0f} MiB): split it into several tables"
            )
        data = p.read_bytes()
    except OSError as exc:
        raise GraspTableError(f"cannot read grasp table {p}: {exc.strerror}") from exc
    sha = hashlib.sha256(data).hexdigest()
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise GraspTableError(f"grasp table {p} is not UTF-8 text ({exc})") from exc
    warnings: list[str] = []
    if p.suffix.lower() == ".json" or text.lstrip().startswith(("[", "{")):
        folder = Path(mesh_dir).expanduser() if mesh_dir else p.parent
        grasps = _read_reach(p, text, folder, mass_kg)
        kind = "reach"
    else:
        grasps = _read_csv(p, text, mass_kg, unit, warnings)
        kind = "csv"
    if not grasps:
        raise GraspTableError(f"grasp table {p} contains no grasps")
    if len(grasps) > MAX_GRASPS:
        raise GraspTableError(
            f"grasp table {p} has {len(grasps)} grasps (at most {MAX_GRASPS}); split it"
        )
    if limit is not None:
        grasps = grasps[:limit]
    return GraspTable(str(p.resolve()), sha, kind, tuple(grasps), tuple(warnings))


# --- CSV ----------------------------------------------------------------------------------------
def _read_csv(
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
            specs.append(_bad(f"row{row_index}", f"line {line}", f"{path} line {line}: {exc}"))
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
                _bad(
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
                _bad(
                    gid,
                    where,
                    f"{at}: grasp_id {gid!r} already used on line {seen[gid]}",
                )
            )
            continue
        seen[gid] = line
        try:
            specs.append(_csv_spec(path, row, gid, where, mass_kg, unit))
        except _RowError as exc:
            specs.append(_bad(gid, where, f"{at}, field {exc.field!r}: {exc.message}"))
    return specs


class _RowError(Exception):
    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


@overload
def _number(row: dict[str, str], name: str, default: float) -> float: ...
@overload
def _number(row: dict[str, str], name: str, default: None = None) -> float | None: ...
def _number(row: dict[str, str], name: str, default: float | None = None) -> float | None:
    """The row's `name` as a finite float; `default` when empty (required columns raise)."""
    raw = row.get(name, "")
    if raw == "":
        if default is None and name in _REQUIRED_CSV:
            raise _RowError(name, "is empty; give a number")
        return default
    try:
        value = float(raw)
    except ValueError:
        raise _RowError(name, f"{raw!r} is not a number") from None
    if not math.isfinite(value):
        raise _RowError(name, f"{raw!r} is not a finite number")
    return value


def _csv_spec(
    path: Path,
    row: dict[str, str],
    gid: str,
    where: str,
    mass_default: float | None,
    unit_default: str | None,
) -> GraspSpec:
    obj = row.get("object", "")
    if not obj:
        raise _RowError("object", "is empty; give a mesh path or 'cube'")
    if len(obj) > MAX_PATH_CHARS:
        raise _RowError("object", f"is {len(obj)} characters long (at most {MAX_PATH_CHARS})")
    if "\0" in obj:
        raise _RowError("object", "contains a NUL character; give a mesh path or 'cube'")
    if not obj.lower().startswith("cube"):
        try:
            mesh = Path(obj).expanduser()
            obj = str(mesh if mesh.is_absolute() else (path.parent / mesh).resolve())
        except (OSError, RuntimeError, ValueError) as exc:  # symlink loop, bad ~user
            raise _RowError("object", f"{obj[:200]!r} is not a usable path ({exc})") from None
    center = np.array([_number(row, f"center_{c}") for c in "xyz"], dtype=float)
    for c, value in zip("xyz", center, strict=True):
        if abs(value) > MAX_CENTER_M:
            raise _RowError(
                f"center_{c}",
                f"{value:g} m is far outside any object (|centre| <= {MAX_CENTER_M:g} m)",
            )
    axis = np.array([_number(row, f"axis_{c}") for c in "xyz"], dtype=float)
    for c, value in zip("xyz", axis, strict=True):
        # A direction: huge components would overflow its length (and become the zero vector).
        if abs(value) > MAX_AXIS_COMPONENT:
            raise _RowError(
                f"axis_{c}",
                f"{value:g} is too large for a direction (at most {MAX_AXIS_COMPONENT:g}); give "
                "a direction such as 1 0 0",
            )
    if math.hypot(*(float(a) for a in axis)) < 1e-12:
        raise _RowError("axis_x", "the closing axis (axis_x, axis_y, axis_z) is the zero vector")
    angle = _number(row, "approach_angle", 0.0)
    mass = _number(row, "mass", None)
    density = _number(row, "density", None)
    for name, value in (("mass", mass), ("density", density)):
        if value is not None and value <= 0:
            raise _RowError(name, f"must be > 0 (got {value})")
    if mass is not None and density is not None:
        raise _RowError("density", "give mass or density, not both")
    if mass is None and density is None:
        mass = mass_default
    pose_raw = row.get("stable_pose", "")
    try:
        stable_pose = int(pose_raw) if pose_raw else 0
    except ValueError:
        raise _RowError("stable_pose", f"{pose_raw[:40]!r} is not an integer index") from None
    if not 0 <= stable_pose <= 10_000:
        raise _RowError("stable_pose", f"must be an index >= 0 (got {stable_pose})")
    unit = row.get("unit") or unit_default
    if unit is not None and unit not in UNIT_SCALE_M:
        raise _RowError("unit", f"{unit[:40]!r} is not one of {', '.join(UNIT_SCALE_M)}")
    body = row.get("body", "")
    try:
        parse_body(body)
    except ParameterError as exc:
        raise _RowError("body", str(exc)) from None
    params: dict[str, float] = {}
    for column, field_name in ROW_PARAM_COLUMNS.items():
        value = _number(row, column, None)
        if value is not None:
            # The declared range (engine.schema), checked now: a bad value is an error row,
            # never a trial that fails later as an "invalid perturbed grasp".
            try:
                params[field_name] = schema.check_value(_ROW_DECLS[field_name], value)
            except ParameterError as exc:
                raise _RowError(column, str(exc)) from None
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
        params=params,
    )


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


def _bad(gid: str, where: str, message: str) -> GraspSpec:
    return GraspSpec(grasp_id=gid, source_row=where, error=message)


# --- writing -----------------------------------------------------------------------------------
CARRIED_SAMPLE_COLUMNS = ("quality", "quality_model", "contact_width")
"""Columns `ipcgrasp sample` adds after the grasp columns (carried along, not read)."""

WRITTEN_COLUMNS = (
    "grasp_id",
    "object",
    "unit",
    "body",
    "stable_pose",
    "mass",
    "density",
    "center_x",
    "center_y",
    "center_z",
    "axis_x",
    "axis_y",
    "axis_z",
    "approach_angle",
)
"""The grasp CSV columns `write_grasp_table` writes, in order."""


def _cell(value: object) -> str:
    if value is None:
        return ""
    if isinstance(value, float | np.floating):
        return repr(float(value))
    return str(value)


def write_grasp_table(
    path: str | Path,
    grasps: list[GraspSpec],
    extra: list[dict[str, object]] | None = None,
    *,
    overwrite: bool = False,
) -> GraspTable:
    """Write CSV grasps (resting-frame centre and axis) that `read_grasp_table` reads back.

    `extra` gives per-grasp values of CARRIED_SAMPLE_COLUMNS. The file is written atomically
    (refused if it exists unless `overwrite`) and then read back: a grasp that would not read
    as written raises GraspTableError naming it. Returns the table as read.
    """
    if extra is not None and len(extra) != len(grasps):
        raise ValueError("write_grasp_table: one extra dict per grasp")
    for g in grasps:
        if g.error or g.center is None or g.axis is None or g.gripper_pose is not None:
            raise GraspTableError(
                f"grasp {g.grasp_id!r} cannot be written as a CSV grasp (it needs a centre and an "
                "axis in the resting frame)"
            )
    used_extra = [c for c in CARRIED_SAMPLE_COLUMNS if extra and any(c in e for e in extra)]
    out = io.StringIO(newline="")
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow([*WRITTEN_COLUMNS, *used_extra])
    for k, g in enumerate(grasps):
        assert g.center is not None and g.axis is not None
        values: dict[str, object] = {
            "grasp_id": g.grasp_id,
            "object": g.object,
            "unit": g.unit,
            "body": g.body,
            "stable_pose": g.stable_pose,
            "mass": g.mass_kg,
            "density": g.density_kg_m3,
            "approach_angle": g.approach_angle_rad,
        }
        for i, c in enumerate("xyz"):
            values[f"center_{c}"] = float(g.center[i])
            values[f"axis_{c}"] = float(g.axis[i])
        row = [_cell(values[c]) for c in WRITTEN_COLUMNS]
        row += [_cell((extra or [{}] * len(grasps))[k].get(c)) for c in used_extra]
        writer.writerow(row)
    p = Path(path).expanduser()
    atomic_write_text(p, out.getvalue(), overwrite=overwrite)
    table = read_grasp_table(p)
    if table.errors or table.warnings or len(table.grasps) != len(grasps):
        problems = [g.error for g in table.errors] + list(table.warnings)
        raise GraspTableError(f"{p} does not read back as written: {'; '.join(problems[:3])}")
    return table


# --- REACH JSON ---------------------------------------------------------------------------------
def load_reach_records(path: Path, text: str | None = None) -> list:
    """The list of records of a REACH JSON file (GraspTableError if it is not one)."""
    try:
        if text is None:
            if path.stat().st_size > MAX_TABLE_BYTES:
                raise GraspTableError(
                    f"{path} is over {MAX_TABLE_BYTES / 1024**2:.0f} MiB; split it into several files"
                )
            text = path.read_bytes().decode("utf-8-sig")
        records = json.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise GraspTableError(f"cannot read {path}: {exc}") from exc
    except RecursionError:
        raise GraspTableError(
            f"{path} is nested too deeply to be REACH records (a list of flat objects)"
        ) from None
    except json.JSONDecodeError as exc:
        raise GraspTableError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc
    if not isinstance(records, list):
        raise GraspTableError(
            f"{path}: expected a JSON list of REACH records (obj, attempt, trial, result, grasp, "
            f"pose), got a {type(records).__name__}"
        )
    return records


def _matrix(record: dict, name: str) -> np.ndarray:
    if name not in record:
        raise _RowError(name, "is missing (a 4x4 matrix)")
    try:
        m = np.asarray(record[name], dtype=float)
    except (TypeError, ValueError):
        raise _RowError(name, "is not a 4x4 matrix of numbers") from None
    if m.shape != (4, 4) or not np.all(np.isfinite(m)):
        raise _RowError(name, f"must be a finite 4x4 matrix (got shape {m.shape})")
    return m


def reach_grasp_id(record: dict) -> str:
    """'<obj>/<attempt>', the id shared by a REACH grasp and its physical trials."""
    obj, attempt = record.get("obj"), record.get("attempt")
    if not isinstance(obj, str) or not obj:
        raise _RowError("obj", "is missing or not a string (the object name)")
    if isinstance(attempt, bool) or not isinstance(attempt, int):
        raise _RowError("attempt", f"must be an integer grasp number (got {attempt!r})")
    return f"{obj}/{attempt}"


def _read_reach(
    path: Path, text: str, mesh_dir: Path, mass_default: float | None
) -> list[GraspSpec]:
    records = load_reach_records(path, text)
    groups: dict[str, list[tuple[int, dict]]] = {}
    specs: dict[str, GraspSpec] = {}
    order: list[str] = []
    for i, rec in enumerate(records):
        where = f"record {i}"
        try:
            if not isinstance(rec, dict):
                raise _RowError("record", "is not a JSON object")
            gid = reach_grasp_id(rec)
        except _RowError as exc:
            gid = f"record{i}"
            order.append(gid)
            specs[gid] = _bad(gid, where, f"{path} {where}, field {exc.field!r}: {exc.message}")
            continue
        if gid not in groups:
            order.append(gid)
            groups[gid] = []
        groups[gid].append((i, rec))
    for gid, members in groups.items():
        first_index, first = members[0]
        where = f"record {first_index}"
        try:
            grasp = _matrix(first, "grasp")
            pose = _matrix(first, "pose")
            for j, rec in members[1:]:
                for name, ref in (("grasp", grasp), ("pose", pose)):
                    if not np.allclose(_matrix(rec, name), ref, atol=1e-9):
                        raise _RowError(
                            name, f"differs between records {first_index} and {j} of {gid}"
                        )
        except _RowError as exc:
            specs[gid] = _bad(gid, where, f"{path} {where}, field {exc.field!r}: {exc.message}")
            continue
        obj = first["obj"]
        try:
            mesh_path = _reach_mesh(mesh_dir, obj)
        except _RowError as exc:
            specs[gid] = _bad(gid, where, f"{path} {where}, field {exc.field!r}: {exc.message}")
            continue
        mass = mass_default if mass_default is not None else REACH_OBJECT_MASSES_KG.get(obj)
        specs[gid] = GraspSpec(
            grasp_id=gid,
            source_row=where,
            object=mesh_path,
            mass_kg=mass,
            gripper_pose=grasp,
            object_pose=pose,
        )
    return [specs[g] for g in order]


def _reach_mesh(mesh_dir: Path, obj: str) -> str:
    """The mesh `<mesh_dir>/<obj>.obj`; `obj` must be a plain name that stays in `mesh_dir`."""
    if (
        len(obj) > 255
        or "\0" in obj
        or "/" in obj
        or "\\" in obj
        or obj in (".", "..")
        or obj.startswith("~")
    ):
        raise _RowError(
            "obj",
            f"{obj[:80]!r} is not an object name (a file name without folders: the mesh is "
            "<obj>.obj in --mesh-dir)",
        )
    try:
        folder = mesh_dir.resolve()
        mesh = (folder / f"{obj}.obj").resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise _RowError("obj", f"{obj!r}: not a usable mesh path ({exc})") from None
    if mesh.parent != folder:
        raise _RowError("obj", f"the mesh of {obj!r} links outside --mesh-dir {folder}")
    return str(mesh)


# --- scene --------------------------------------------------------------------------------------
def reach_grasp(obj: RestingObject, gripper_pose: np.ndarray, object_pose: np.ndarray) -> Grasp:
    """The REACH gripper pose as a Grasp in `obj`'s resting frame (jaw centre, axis, angle).

    `obj` must come from rest_object_from_rotation(mesh, object_pose[:3, :3]): its resting
    frame is the world frame shifted so the object sits at the origin.
    """
    rest_from_mesh = np.asarray(obj.pose_transform)
    # Use the object's (orthonormalised) rotation so the frame change is a pure translation.
    world_from_mesh = np.array(object_pose, dtype=float)
    world_from_mesh[:3, :3] = rest_from_mesh[:3, :3]
    rest_from_world = rest_from_mesh @ np.linalg.inv(world_from_mesh)
    jaw = np.eye(4)
    jaw[2, 3] = REACH_JAW_CENTER_Z_M
    pose = rest_from_world @ gripper_pose @ jaw
    x, z = pose[:3, 0], pose[:3, 2]
    x = x / np.linalg.norm(x)
    # Grasp.pose() rotates a reference approach z0 about the axis by the approach angle; find
    # the angle that reproduces this z (its component orthogonal to x).
    z = z - np.dot(z, x) * x
    z /= np.linalg.norm(z)
    z0 = Grasp(pose[:3, 3], x, 0.0).pose()[:3, 2]
    angle = math.atan2(float(np.dot(z, np.cross(x, z0))), float(np.dot(z, z0)))
    return Grasp(pose[:3, 3], x, angle)


def build_scene(spec: GraspSpec) -> tuple[RestingObject, ObjectMesh, Grasp]:
    """Load the mesh, put it at rest and build the grasp (raises IpcGraspError on bad input)."""
    if spec.error:
        raise ParameterError(spec.error)
    mesh = object_from_spec(spec.object, unit=spec.unit, body=spec.body or None)
    if spec.gripper_pose is not None and spec.object_pose is not None:
        obj = rest_object_from_rotation(
            mesh,
            spec.object_pose[:3, :3],
            mass_kg=spec.mass_kg,
            density_kg_m3=spec.density_kg_m3,
            snap_to_support_deg=REACH_SNAP_DEG,
        )
        return obj, mesh, reach_grasp(obj, spec.gripper_pose, spec.object_pose)
    obj = rest_object(
        mesh, spec.stable_pose, mass_kg=spec.mass_kg, density_kg_m3=spec.density_kg_m3
    )
    assert spec.center is not None and spec.axis is not None
    return obj, mesh, Grasp(spec.center, spec.axis, spec.approach_angle_rad)
