"""A pinned trial drawn beside the shown one (Qt-free): the right half's frame and the two
halves' titles, the same for the 3D view (app.controllers.scene) and an exported video
(app.workers.video)."""

from __future__ import annotations

import numpy as np

from app.gripper_shapes import GripperShapes
from app.model.compare import PinnedTrial, side_labels
from app.model.document import Run
from app.workers.video_job import SideBySide, SideFrame
from engine.io.session import TrialRecord


def side_frame(
    pinned: PinnedTrial, k: int, run: Run, shapes: GripperShapes | None, mode: str
) -> SideFrame:
    """What the right half shows for the pinned trial's frame `k` beside `run` (colour mode
    `mode`, the current gripper's `shapes`): the view and its video draw the same."""
    g = pinned.record.frames[k]
    plates = None
    # The plates are drawn with the current gripper's shapes: only when the pinned run
    # used the same pad and opening (else its pads and object are drawn alone).
    same_gripper = shapes is not None and (
        pinned.pad_faces.shape == np.asarray(shapes.pad_faces).shape
        and pinned.params.open_width_m == run.params.open_width_m
    )
    if shapes is not None and same_gripper:
        rec = pinned.record
        plates = (
            shapes.plate_matrix(0, rec.gripper_pose, g.plate_travel_m, g.plate_lift_m),
            shapes.plate_matrix(1, rec.gripper_pose, g.plate_travel_m, g.plate_lift_m),
        )
    energy = pinned.record.energy_density
    fields = energy[k] if mode == "energy" and len(energy) == len(pinned.record.frames) else None
    label = (
        f"t = {g.time_s:.3f} s  {g.phase}  F = {g.grip_force_n[0]:.3f}, {g.grip_force_n[1]:.3f} N"
    )
    return SideFrame(g.pad_vertices, g.object_pose, plates, fields, label)


def side_by_side(
    pinned: PinnedTrial, run: Run, rec: TrialRecord, shapes: GripperShapes | None, mode: str
) -> SideBySide | None:
    """The pinned trial beside each frame of `rec` (a trial of `run`) at the frame's time;
    None when the pinned trial has no frame at any of them."""
    ks = [pinned.frame_at(f.time_s) for f in rec.frames]
    if all(k < 0 for k in ks):
        return None
    frames = [side_frame(pinned, k, run, shapes, mode) if k >= 0 else None for k in ks]
    return SideBySide(np.asarray(pinned.pad_faces), side_titles(pinned, run, rec.trial), frames)


def side_titles(pinned: PinnedTrial, run: Run, trial: int) -> tuple[str, str]:
    """The two halves' titles of a side-by-side comparison (shown, pinned): each run and the
    values of the parameters that differ."""
    pinned_values, shown_values = side_labels(pinned.params, run.params, pinned.grasp, run.grasp)
    shown = f"run {run.run_id}, trial {trial}"
    return (
        ": ".join([shown, ", ".join(shown_values)]) if shown_values else shown,
        ": ".join([f"{pinned.label} (pinned)", ", ".join(pinned_values)])
        if pinned_values
        else f"{pinned.label} (pinned)",
    )
