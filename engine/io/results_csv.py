"""Trial results as CSV: one row per trial with the parameters, grasp and outcome that produced it."""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable
from typing import TYPE_CHECKING

from engine import schema
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
    f.flush()
    return f, writer


def result_row(context: dict[str, object], result: TrialResult) -> dict[str, object]:
    """One CSV row: the context columns, then the trial's outcome columns ('' when absent)."""
    row = dict(context)
    data = result.as_json()
    row.update({k: data.get(k, "") for k in OUTCOME_COLUMNS})
    return row
