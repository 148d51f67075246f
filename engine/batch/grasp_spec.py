"""One grasp as a table reader yields it (GraspSpec), the errors of a row and of a whole table,
and the size limits of a table (engine.batch.grasp_table reads CSV and REACH JSON tables)."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.errors import ParameterError

MAX_TABLE_BYTES = 256 * 1024**2
"""Largest grasp table read (256 MiB, about two million CSV rows)."""
MAX_GRASPS = 1_000_000
"""Most grasps (CSV rows or REACH records) in one table."""


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


class RowError(Exception):
    """A field of one row (CSV) or record (REACH) that cannot be read; the reader turns it into
    a GraspSpec with `error` set (`bad_row`)."""

    def __init__(self, field_name: str, message: str) -> None:
        super().__init__(message)
        self.field = field_name
        self.message = message


def bad_row(gid: str, where: str, message: str) -> GraspSpec:
    """The GraspSpec of a row that could not be read: the batch records it as an error row."""
    return GraspSpec(grasp_id=gid, source_row=where, error=message)
