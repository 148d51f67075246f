"""Editing: grasp, parameters, stable pose and gizmo, each edit an undoable state change."""

from __future__ import annotations

import logging
import math
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

import numpy as np
from PySide6.QtCore import QTimer
from PySide6.QtGui import QUndoStack

from app import settings as app_settings
from app.model import AppModel, EditState, provisional_default_grasp
from app.model.events import Event
from app.undo import StateCommand
from engine.errors import GraspError, IpcGraspError
from engine.grasp.antipodal import AntipodalGrasp, antipodal_grasp, grasp_from_pose
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.trial_plan import TrialSpec
from engine.schema import field_spec

if TYPE_CHECKING:  # the window wires these; importing them here would be circular
    from app.ui import Feedback

log = logging.getLogger(__name__)

# What the status line adds when an edit of the grasp leaves a simulated frame's view.
BACK_TO_REST = (
    "the view is back in edit mode with the object at rest (the run's frames stay on the "
    "timeline: Home or End shows them)"
)


# Edits of the app's own fields (not declared in the engine's parameter classes).
_APP_LABELS = {
    "analytic_force_n": "analytic force",
    "gripper": "gripper",
    "squeeze_stop": "squeeze stop",
    "density": "object density",
    "pad": "pad preset",  # its dock label "Preset" sits under "Pads"
}


def field_label(name: str) -> str:
    """What the user calls field `name` (its label in the parameter dock), e.g. "Ψ_th" for
    psi_th_j: undo and redo show it ("Undo change Ψ_th")."""
    if name in _APP_LABELS:
        return _APP_LABELS[name]
    for cls in (SimulationParams, TrialSpec):
        try:
            return field_spec(cls, name).spec.label or name
        except KeyError:
            continue
    return name


class EditController:
    """Every edit becomes a StateCommand on `undo_stack`; applying one sets the model.

    `param_message` (text, field name) tells the parameters view what to show at that field:
    "" after an accepted edit, the reason after a refused one (the view then puts the field
    back to the valid value); a refusal is on the status line too.
    """

    def __init__(self, model: AppModel, undo_stack: QUndoStack, ui: Feedback) -> None:
        self.model = model
        self.undo_stack = undo_stack
        self.ui = ui
        self.param_message = Event("param_message")
        # (contact0, contact1, ok, gripper pose): the grasp a right-click would place;
        # (None, None, False, None) clears it.
        self.preview_changed = Event("preview_changed")

    def push(self, new: EditState, text: str, merge: str | None = None) -> None:
        """Make `new` current as an undoable step (nothing if it equals the current state)."""
        old = self.model.edit_state()
        if old.same_as(new):
            return
        self.undo_stack.push(StateCommand(self.model.apply_edit, old, new, text, merge))

    def set_grasp(self, grasp: Grasp, text: str = "move grasp", merge: str | None = None) -> None:
        """Make `grasp` the current grasp (undoable)."""
        if self.model.doc is not None:
            self.push(replace(self.model.edit_state(), grasp=grasp), text, merge)

    def edit_param(self, name: str, value: object) -> bool:
        """Apply one parameter edit (SI units); invalid values are refused with the reason."""
        d = self.model.doc
        if d is None:
            return False
        s = self.model.edit_state()
        try:
            if name == "n_trials":
                new = replace(s, n_trials=int(value))  # type: ignore[call-overload]
            elif name == "seed":
                new = replace(s, seed=int(value))  # type: ignore[call-overload]
            elif name == "analytic_force_n":
                new = replace(s, analytic_force_n=float(value))  # type: ignore[arg-type]
            elif name == "gripper":
                new = replace(s, params=d.params.with_gripper(str(value)))
            elif name == "squeeze_stop":
                # (Psi_th or None, force or None): one undoable edit for the stop choice.
                psi_th, force = cast("tuple[float | None, float | None]", value)
                stopped = replace(d.params, psi_th_j=psi_th, squeeze_force_n=force)
                new = replace(s, params=stopped.validate())
            elif name == "density":
                if not (isinstance(value, int | float) and math.isfinite(value) and value > 0):
                    raise IpcGraspError(f"object density must be > 0 kg/m^3 (got {value})")
                new = replace(s, density_kg_m3=float(value))
            else:
                changes: dict[str, Any] = {name: value}
                new = replace(s, params=replace(d.params, **changes).validate())
        except (IpcGraspError, TypeError, ValueError) as exc:
            self.refuse(name, str(exc))
            return False
        self.param_message.emit("", name)
        # A choice (stop mode, gripper) is one undo step each; typing in a field merges.
        merge = None if name in ("squeeze_stop", "gripper") else name
        self.push(new, f"change {field_label(name)}", merge=merge)
        return True

    def refuse(self, name: str, reason: str) -> None:
        """Say why a value of field `name` is not taken (the engine's check, or the field's own
        range for a typed value): at the field and on the status line."""
        log.info("edit of %s refused: %s", name, reason)
        label = field_label(name)
        # A field's own range refusal names it already ("Friction μ = 5 is out of range ...").
        said = reason if reason.startswith(f"{label} ") else f"{label} not changed: {reason}"
        self.ui.status(said, log_it=False)
        self.param_message.emit(reason, name)

    def set_stable_pose(self, index: int) -> None:
        """Rest the object in stable pose `index` with the default grasp (undoable; the
        grasp is provisional until DefaultGraspController has found it in its worker). The
        user's choice is remembered for the mesh file (app.settings.MESH_POSE): it opens so
        next time."""
        d = self.model.doc
        if d is None or index == d.pose_index:
            return
        from engine.scene.resting import rest_object

        obj = rest_object(d.mesh, index, density_kg_m3=d.density_kg_m3, poses=d.poses)
        grasp = provisional_default_grasp(obj, d.params)
        s = self.model.edit_state()
        self.push(replace(s, pose_index=index, grasp=grasp), f"rest on pose {index}")
        if not d.mesh.source.startswith("builtin:") and Path(d.spec_text).is_file():
            app_settings.remember_pose(Path(d.spec_text), index, len(d.poses))

    def default_grasp(self) -> None:
        """Put the engine's default grasp back (undoable; found in a worker process by
        DefaultGraspController, provisional until then)."""
        d = self.model.doc
        if d is not None:
            self.set_grasp(provisional_default_grasp(d.obj, d.params), "default grasp")

    def _complete(self, point: np.ndarray, normal: np.ndarray) -> AntipodalGrasp:
        d = self.model.doc
        assert d is not None
        return antipodal_grasp(
            d.obj,
            point,
            normal,
            d.grasp.approach_angle_rad,
            open_width_m=d.params.open_width_m,
            clearance_m=d.params.dhat_m,
        )

    def preview_at(self, point: np.ndarray | None, normal: np.ndarray | None) -> None:
        """Hover preview: the grasp a right-click at `point` (resting frame: the viewport maps
        a pick on a simulated frame's moved object back) would place (None: off the object).
        The status line says what a click would do, and over a simulated frame that the view
        then returns to the object at rest."""
        if point is None or normal is None or self.model.doc is None:
            self.preview_changed.emit(None, None, False, None)
            return
        try:
            done = self._complete(point, normal)
        except GraspError as exc:
            self.preview_changed.emit(point, None, False, None)
            self.ui.status(f"no grasp here: {exc}", log_it=False)
            return
        self.preview_changed.emit(done.contact0, done.contact1, True, done.grasp.pose())
        self.ui.status(
            f"right-click to grasp here: contacts {done.width_m * 1e3:.1f} mm apart"
            + (
                "; the view then returns to the object at rest" if self.model.mode == "play" else ""
            ),
            log_it=False,
        )

    def place_grasp_at(self, point: np.ndarray, normal: np.ndarray) -> bool:
        """Click-to-place: jaw 0 at `point` (resting frame), the other jaw where a ray along
        -normal leaves the object within the gripper's opening. Over a simulated frame the
        view returns to the object at rest (edit mode) with the grasp placed, and says so."""
        d = self.model.doc
        if d is None:
            return False
        try:
            done = self._complete(point, normal)
        except GraspError as exc:
            self.ui.status(f"cannot place a grasp there: {exc}")
            return False
        from_frame = self.model.mode == "play"
        self.set_grasp(done.grasp, "place grasp")
        self.ui.status(
            f"grasp placed: contacts {done.width_m * 1e3:.1f} mm apart"
            + (f"; {BACK_TO_REST}" if from_frame else "")
        )
        return True

    def on_gizmo(self, matrix: np.ndarray) -> None:
        """The gizmo was dragged to `matrix`. Called from inside the widget's mouse-release
        handler: rebuild the widget (which applying the grasp does) only after it returned."""
        QTimer.singleShot(0, lambda: self.apply_gizmo(matrix))

    def apply_gizmo(self, matrix: np.ndarray) -> None:
        """Make the gripper pose `matrix` the grasp (undoable)."""
        try:
            self.set_grasp(grasp_from_pose(matrix), "move grasp (gizmo)")
        except (IpcGraspError, ValueError) as exc:
            self.ui.status(f"gizmo: {exc}")
