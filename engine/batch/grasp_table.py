"""Read and write a table of grasps to label: a CSV of grasps or a REACH-format JSON of physical
trials.

CSV: one grasp per row (engine.batch.grasp_csv says the columns); `write_grasp_table` writes
this format (ipcgrasp sample) and checks it by reading it back.

REACH JSON (engine.batch.reach_records): a list of physical-trial records, the records of one
attempt sharing one grasp. The gripper's x axis closes the jaws, z approaches; the jaw centre
(midpoint of the two tooltips) is at gripper-frame (0, 0, REACH_JAW_CENTER_Z_M). The grasp id is
'<obj>/<attempt>'.

Structural problems (unreadable file, missing column) raise GraspTableError; a bad row becomes a
GraspSpec with `error` set, so the batch records it and goes on. A row's scene (object at rest,
grasp) is built by engine.batch.grasp_scene.build_scene.
"""

from __future__ import annotations

import csv
import hashlib
import io
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from engine.batch.grasp_csv import read_csv
from engine.batch.grasp_scene import REACH_SNAP_DEG as REACH_SNAP_DEG
from engine.batch.grasp_scene import build_scene as build_scene
from engine.batch.grasp_scene import reach_grasp as reach_grasp
from engine.batch.grasp_spec import MAX_GRASPS, MAX_TABLE_BYTES, GraspSpec, GraspTableError
from engine.batch.reach_records import read_reach
from engine.io.safe_write import atomic_write_text

# build_scene, reach_grasp and REACH_SNAP_DEG live in grasp_scene; they are imported from here
# by app/model/dataset.py and benchmarks/ (bench_reach, bench_phases, bench_mujoco, ...).

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
        grasps = read_reach(p, text, folder, mass_kg, warnings)
        kind = "reach"
    else:
        grasps = read_csv(p, text, mass_kg, unit, warnings)
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
