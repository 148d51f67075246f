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
from engine.errors import IpcGraspError
from engine.grasp.frames import TrialResult
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
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
)


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


def result_row(context: dict[str, object], result: TrialResult) -> dict[str, object]:
    """One CSV row: the context columns, then the trial's outcome columns ('' when absent)."""
    row = dict(context)
    data = result.as_json()
    row.update({k: data.get(k, "") for k in OUTCOME_COLUMNS})
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


def trial_result_from_row(row: Mapping[str, str]) -> TrialResult:
    """The TrialResult a row records (outcome, Psi, forces, timing, perturbation): the inverse
    of the outcome columns `result_row` and batch rows write."""
    perturbation = {
        k: cell_float(row.get(f"perturbation_{k}"))
        for k in ("dx", "dy", "dz", "rx", "ry", "rz")
        if row.get(f"perturbation_{k}", "") != ""
    }
    return TrialResult(
        trial=cell_int(row.get("trial")),
        success=row.get("success") == "True",
        reason=row.get("reason", ""),
        psi1_j=cell_float(row.get("psi1")),
        psi2_j=cell_float(row.get("psi2")),
        grip_force1_n=cell_float(row.get("grip_force_1")),
        grip_force2_n=cell_float(row.get("grip_force_2")),
        squeeze_balanced=row.get("squeeze_balanced") == "True",
        lift_height_m=cell_float(row.get("lift_height")),
        slip1_m=cell_float(row.get("slip_1")),
        slip2_m=cell_float(row.get("slip_2")),
        rotation_rad=cell_float(row.get("rotation")),
        min_lift_grip_n=cell_float(row.get("min_lift_grip")),
        frames=cell_int(row.get("frames")),
        newton_iterations=cell_int(row.get("newton_iterations")),
        rollbacks=cell_int(row.get("rollbacks")),
        wall_time_s=cell_float(row.get("wall_time_s")),
        min_distance_m=cell_float(row.get("min_distance")),
        intersection_free=row.get("intersection_free", "True") != "False",
        perturbation=perturbation,
        error=row.get("error", ""),
    )
