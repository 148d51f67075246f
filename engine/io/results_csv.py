"""Trial results as CSV: one row per trial with the parameters, grasp and outcome that produced it.

Written here (`context_columns`, `result_row`; batch rows by engine.batch.tasks with the same
columns) and read back here: `trial_result_from_row` and `params_from_row` turn a row's cells
into the TrialResult and SimulationParams that made it (the app's data-set browser replays
batch trials with them).
"""

from __future__ import annotations

import csv
import math
import os
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING

from engine import schema
from engine.errors import IpcGraspError, ParameterError
from engine.grasp.frames import PUSH_KEYS, TrialResult
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.strength import DIRECTIONS
from engine.io.safe_write import StreamFile, open_new_text
from engine.scene.object_mesh import MESH_COLUMNS, ObjectMesh, mesh_columns
from engine.version import build_id

if TYPE_CHECKING:
    from engine.analytic.params import AnalyticParams

OUTCOME_COLUMNS = (
    "trial",
    "success",
    "reason",
    "psi1",
    "psi2",
    "grip_force",
    "grip_force_1",
    "grip_force_2",
    "squeeze_balanced",
    "lift_height",
    "slip_1",
    "slip_2",
    "rotation",
    "min_lift_grip",
    "frames",
    "newton_iterations",
    "rollbacks",
    "wall_time_s",
    "min_distance",
    "intersection_free",
    "error",
    "perturbation_dx",
    "perturbation_dy",
    "perturbation_dz",
    "perturbation_rx",
    "perturbation_ry",
    "perturbation_rz",
    *(f"strength_{d}{tail}" for d in DIRECTIONS for tail in ("", "_weights")),
    "strength_held",
)
PUSH_COLUMNS = tuple(f"push_{k}" for k in PUSH_KEYS)
"""A push's columns (engine.grasp.push), after OUTCOME_COLUMNS in `simulate --push` rows."""


def context_columns(
    object_source: str,
    object_sha256: str | None,
    stable_pose: int,
    grasp: Grasp,
    params: SimulationParams | AnalyticParams,
    seed: int,
    *,
    mesh: ObjectMesh | None = None,
) -> dict[str, object]:
    """The inputs that produced a row (simulator or analytic parameters), so a CSV alone
    reproduces its results; `mesh` adds which body of the file was used and what loading
    repaired (engine.scene.object_mesh.MESH_COLUMNS, empty without it)."""
    g = grasp.to_dict()
    row: dict[str, object] = {
        "ipcgrasp_version": build_id(),
        "object": object_source,
        "object_sha256": object_sha256 or "",
        **(mesh_columns(mesh) if mesh is not None else dict.fromkeys(MESH_COLUMNS, "")),
        "stable_pose": stable_pose,
        "grasp_center_x": g["center"][0],
        "grasp_center_y": g["center"][1],
        "grasp_center_z": g["center"][2],
        "grasp_axis_x": g["axis"][0],
        "grasp_axis_y": g["axis"][1],
        "grasp_axis_z": g["axis"][2],
        "approach_angle": g["approach_angle_rad"],
        "seed": seed,
    }
    row.update(schema.to_row(params))
    return row


def open_results_writer(
    path: str | os.PathLike, columns: Iterable[str], *, overwrite: bool = False
) -> tuple[StreamFile, csv.DictWriter[str]]:
    """Open `path` for writing rows (creating parent folders); error names the fix if it cannot.

    An existing file is refused (OutputExistsError naming --force) unless `overwrite`; then the
    rows go to a temporary file that replaces it when closed (engine.io.safe_write).
    """
    f = open_new_text(path, overwrite=overwrite, hint="choose a writable --out path")
    writer = csv.DictWriter(f, fieldnames=list(columns))
    writer.writeheader()
    f.mark_empty()  # a header alone is not kept when the rows cannot be written
    return f, writer


def result_row(
    context: dict[str, object], result: TrialResult, columns: tuple[str, ...] = OUTCOME_COLUMNS
) -> dict[str, object]:
    """One CSV row: the context columns, then the trial's outcome `columns` ('' when absent)."""
    row = dict(context)
    data = result.as_json()
    row.update({k: data.get(k, "") for k in columns})
    return row


# --- reading rows back -------------------------------------------------------------------------
def cell_float(text: str | None) -> float:
    """A numeric cell (NaN when empty, missing or not a number)."""
    try:
        return float(text) if text not in (None, "") else math.nan
    except ValueError:
        return math.nan


def cell_int(text: str | None, default: int = 0) -> int:
    """An integer cell (`default` when empty, missing or not a number)."""
    value = cell_float(text)
    return int(value) if math.isfinite(value) else default


def params_from_row(row: Mapping[str, str]) -> SimulationParams | None:
    """The simulation parameters of a results row (its param_* cells, engine.schema.from_row),
    or None when it has none or they do not read (another version's columns)."""
    if not any(f"param_{d.name}" in row for d in schema.declared(SimulationParams)):
        return None
    try:
        return schema.from_row(SimulationParams, row)
    except (IpcGraspError, TypeError, ValueError):
        return None


def cell_error(row: Mapping[str, str], column: str, expected: str) -> ParameterError:
    """A results cell outside its type or range, naming the row and the column."""
    trial = row.get("trial", "")
    return ParameterError(
        f"results row of grasp {row.get('grasp_id', '')!r}, model {row.get('model', '')!r}"
        f"{f', trial {trial}' if trial else ''} (task_key {row.get('task_key', '')!r}): column "
        f"{column!r} is {row.get(column, '')!r:.40}, not {expected}; the file was edited or "
        "damaged: restore the row or run its task again"
    )


def flag_cell(row: Mapping[str, str], column: str, default: bool | None = None) -> bool:
    """A true/false cell (as rows write them, any case); an empty or missing cell is
    `default`, or refused when there is none."""
    text = row.get(column, "").strip().lower()
    if text == "" and default is not None:
        return default
    if text not in ("true", "false"):
        raise cell_error(row, column, "true or false")
    return text == "true"


def _count_cell(row: Mapping[str, str], column: str) -> int:
    """A count cell: digits only (0 when empty or missing)."""
    text = row.get(column, "").strip()
    if text and not (text.isascii() and text.isdigit()):
        raise cell_error(row, column, "a whole number >= 0")
    return int(text) if text else 0


def _number_cell(row: Mapping[str, str], column: str, *, low: float | None = None) -> float:
    """A numeric cell (NaN when empty or missing: not measured); below `low` or infinite with
    a `low` refused, as is text that is not a number."""
    text = row.get(column, "").strip()
    value = cell_float(text)
    if text and math.isnan(value) and text.lower() != "nan":
        raise cell_error(row, column, "a number")
    if low is not None and (value < low or math.isinf(value)):
        raise cell_error(row, column, f"a finite number >= {low:g}")
    return value


def trial_result_from_row(row: Mapping[str, str]) -> TrialResult:
    """The TrialResult a row records (outcome, Psi, forces, timing, perturbation): the inverse
    of the outcome columns `result_row` and batch rows write. A cell outside its type or range
    (success other than true or false, a count that is not a whole number, a negative time,
    text where a number belongs) raises ParameterError naming the row and the column."""
    perturbation = {
        k: _number_cell(row, f"perturbation_{k}")
        for k in ("dx", "dy", "dz", "rx", "ry", "rz")
        if row.get(f"perturbation_{k}", "") != ""
    }
    strength = {
        d: _number_cell(row, f"strength_{d}", low=0.0)
        for d in DIRECTIONS
        if row.get(f"strength_{d}", "") != ""
    }
    weights = {d: _number_cell(row, f"strength_{d}_weights", low=0.0) for d in strength}
    held = row.get("strength_held", "")
    if any(h not in strength for h in filter(None, held.split(";"))):
        raise cell_error(row, "strength_held", "directions measured in this row, joined by ';'")
    push = {k: _number_cell(row, f"push_{k}") for k in PUSH_KEYS if row.get(f"push_{k}", "")}
    if push and set(push) != set(PUSH_KEYS):
        missing = ", ".join(f"push_{k}" for k in PUSH_KEYS if k not in push)
        raise cell_error(row, "push_held", f"a push's every column (missing {missing})")
    return TrialResult(
        trial=_count_cell(row, "trial"),
        success=flag_cell(row, "success"),
        reason=row.get("reason", ""),
        psi1_j=_number_cell(row, "psi1"),
        psi2_j=_number_cell(row, "psi2"),
        grip_force1_n=_number_cell(row, "grip_force_1"),
        grip_force2_n=_number_cell(row, "grip_force_2"),
        squeeze_balanced=flag_cell(row, "squeeze_balanced", False),
        lift_height_m=_number_cell(row, "lift_height"),
        slip1_m=_number_cell(row, "slip_1"),
        slip2_m=_number_cell(row, "slip_2"),
        rotation_rad=_number_cell(row, "rotation"),
        min_lift_grip_n=_number_cell(row, "min_lift_grip"),
        frames=_count_cell(row, "frames"),
        newton_iterations=_count_cell(row, "newton_iterations"),
        rollbacks=_count_cell(row, "rollbacks"),
        wall_time_s=_number_cell(row, "wall_time_s", low=0.0),
        min_distance_m=_number_cell(row, "min_distance"),
        intersection_free=flag_cell(row, "intersection_free", True),
        perturbation=perturbation,
        error=row.get("error", ""),
        strength=strength,
        strength_weights=weights,
        strength_held=held,
        push=push,
    )
