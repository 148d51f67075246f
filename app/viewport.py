"""The 3D view: a thin host of the plotter, the camera and picking, holding one visual per
kind of thing drawn (app/visuals/: object, ground, gripper, ghost, hover preview, gizmo, glyphs,
contacts, force arrows, the side-by-side view ...). Its methods are what the controllers call;
each delegates to the visuals and schedules a render.

Threading rule (pyvistaqt invariant): only the GUI thread touches pyvista/VTK objects; workers
send numpy arrays. Rendering is throttled: changes mark the view dirty and the owner's display
clock calls `render_if_dirty` (at most ~30 Hz), so a burst of streamed frames costs one render
(rendering each frame froze the GUI for over a second in measurements, see shared/notes/gui.md).
The view has no timer of its own: with a QOpenGLWidget in the window, every repaint composes the
whole window in (software) GL, and a render out of step with the other widgets' repaints would
cost a second composition.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pyvista as pv
from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget
from pyvistaqt import QtInteractor

from app.gripper_shapes import GripperShapes
from app.model.forces import ForceView
from app.push_gesture import PushGesture
from app.scene_style import BACKGROUND
from app.view_camera import ViewCamera
from app.view_picking import ViewPicking
from app.visuals import Scene, Visuals
from app.visuals.colour_bar import FIELD_TITLES, ColourBarVisual
from app.visuals.contacts import ContactsVisual
from app.visuals.forces import ForcesVisual
from app.visuals.ghost import GhostVisual
from app.visuals.gizmo import GizmoVisual
from app.visuals.glyphs import CandidatesVisual, DatasetSelectionVisual, DatasetVisual
from app.visuals.gripper import GripperVisual, LabelsVisual
from app.visuals.object import GroundVisual, ObjectVisual
from app.visuals.preview import PreviewVisual
from app.visuals.push_arrow import PushArrowVisual
from app.visuals.side_by_side import SideBySideVisual
from engine.analytic.contact_forces import ContactForces
from engine.analytic.contact_patch import ContactPatch, ContactPoint
from engine.grasp.frames import Frame
from engine.grasp.grasp import Grasp
from engine.scene.resting import RestingObject

COLOR_MODES = ("none", "energy", "displacement")


class Viewport(QObject):
    """Owns the QtInteractor, the camera, picking and the visuals drawn in it."""

    picked = Signal(object, object)  # (point (3,), outward normal (3,)) on the object
    # The object's surface under the resting cursor (point, normal), or (None, None) off it.
    hovered = Signal(object, object)
    gizmo_moved = Signal(object)  # 4x4 gripper pose after a gizmo drag
    candidate_clicked = Signal(int)  # index of the sampled grasp glyph clicked (left button)
    dataset_clicked = Signal(int)  # data-set grasp index of the glyph clicked (left button)
    # The push (Ctrl + left drag on the object, app/push_gesture.py): world start and end of
    # the drag while it moves; at the release the point in the object's resting frame too.
    push_dragged = Signal(object, object)
    push_released = Signal(object, object, object)
    push_cancelled = Signal()

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        # No MSAA: with software GL (llvmpipe) 4x MSAA made every render ~50 ms slower; FXAA is
        # switched on only while the view is idle (set_quality).
        self.plotter = QtInteractor(parent, auto_update=False, multi_samples=0)
        # Dropped files go to the main window (validated loading), not pyvista.read.
        self.plotter.setAcceptDrops(False)
        self.plotter.renderers.set_background(BACKGROUND[0], top=BACKGROUND[1])
        self.scene = Scene(self.plotter)
        self._high_quality = False
        self.set_quality(True)
        self.renders = 0
        # The camera (app/view_camera.py): a new object is framed with its gripper once that is
        # drawn; the section through the grasp plane follows the gripper while frames play.
        self.camera = ViewCamera(self.plotter, self.request_render)
        self.color_mode = "none"
        self._field_max = 1.0
        self.visuals = Visuals(self.scene)
        v = self.visuals
        self.ground = v.get("ground", GroundVisual)
        self.object = v.get("object", ObjectVisual)
        self.gripper = v.get("gripper", GripperVisual)
        self.labels = v.get("labels", LabelsVisual)
        self.colour_bar = v.get("colour_bar", ColourBarVisual)
        self.ghost = v.get("ghost", GhostVisual)
        self.side_by_side = v.get("side_by_side", SideBySideVisual)
        self.preview = v.get("preview", PreviewVisual)
        self.gizmo = v.get("gizmo", GizmoVisual)
        self.candidates = v.get("candidates", CandidatesVisual)
        self.dataset = v.get("dataset", DatasetVisual)
        self.dataset_selection = v.get("dataset_selection", DatasetSelectionVisual)
        self.contacts = v.get("contacts", ContactsVisual)
        self.forces = v.get("forces", ForcesVisual)  # over the scene (app/force_arrows.py)
        self._gizmo_pose: np.ndarray | None = None
        self._gizmo_on = False
        # Right-click placement, hover preview, glyph clicks (app/view_picking.py).
        self.picking = ViewPicking(
            self.plotter, (self.candidates, self.dataset), lambda: self.gizmo.widget is not None,
            (self.picked.emit, self.hovered.emit), self._glyph_clicked,
        )  # fmt: skip
        self.picking.set_reset_key(lambda: self.camera.preset("reset"))
        self.push_arrow = v.get("push_arrow", PushArrowVisual)
        # Asked at a push's press; the push controller sets it (False: not now, it said why).
        self.push_allowed: Callable[[], bool] = lambda: False
        self.push_gesture = PushGesture(
            self.plotter, self.picking.object_picker, lambda: self.push_allowed(),
            self.push_dragged.emit, self.push_released.emit, self.push_cancelled.emit,
        )  # fmt: skip
        self.gizmo.restyled = self.picking.watch_left_button
        self.gizmo.released = self.gizmo_moved.emit

    @property
    def widget(self) -> QWidget:
        """The Qt widget of the 3D view."""
        return self.plotter

    # --- rendering ----------------------------------------------------------------------------
    def request_render(self) -> None:
        """Render on the next display tick."""
        self.scene.request_render()

    def render_if_dirty(self) -> None:
        """Schedule one repaint of the view if anything changed (called by the display clock)."""
        if self.scene.dirty and self.plotter.isVisible():
            self.scene.dirty = False
            self.gizmo.follow()
            self.renders += 1
            # update() schedules paintGL, which renders once; plotter.render() would render
            # now and then again in the paintGL its frame event schedules.
            self.plotter.update()

    def set_quality(self, high: bool) -> None:
        """FXAA when idle; off while frames stream or play (it costs a full-screen pass)."""
        if high == self._high_quality:
            return
        self._high_quality = high
        # VTK's own switch: pyvista's enable_anti_aliasing first asks the GL driver whether
        # it is EGL, which took 31 ms of the GUI thread at the end of every run.
        self.plotter.renderer.SetUseFXAA(high)
        self.request_render()

    def render_now(self) -> None:
        """Render immediately."""
        self.scene.dirty = False
        self.renders += 1
        self.plotter.render()

    def close(self) -> None:
        """Release the render window."""
        self.plotter.close()

    # --- scene --------------------------------------------------------------------------------
    def show_object(self, obj: RestingObject) -> None:
        """Replace the scene with `obj` resting on the ground (resting frame = world)."""
        self.gizmo.remove()
        if self.object.shows_mesh_of(obj):
            self._move_object(obj)
            return
        self.end_side_by_side()
        self.plotter.clear_actors()
        self.clear_forces()
        self.visuals.forget()
        self.picking.update_pick_list()
        self.ground.show(np.asarray(obj.vertices))
        self.picking.set_object(self.object.show(obj))
        self.plotter.renderer.add_axes(interactive=False)
        self.camera.new_scene()
        self.request_render()

    def _move_object(self, obj: RestingObject) -> None:
        """The mesh shown, resting otherwise: move its points and re-make the ground; the
        gripper's and the glyphs' actors stay (a rebuild of the scene cost ~25 ms a pose
        change with software GL, a data-set browser changes pose at most grasps)."""
        self.clear_contacts()
        self.clear_forces()
        self.clear_grasp_preview()
        self.show_ghost(None)  # its object copy rests as before
        self.end_side_by_side()
        self.colour_bar.update("", None, None)
        self.object.rest(obj)
        self.ground.show(np.asarray(obj.vertices, dtype=float))
        self.camera.new_scene()
        self.request_render()

    def set_object_pose(self, pose: np.ndarray | None) -> None:
        """Move the object to the 4x4 `pose` (a hover preview on it moves with it)."""
        if self.object.set_pose(pose):
            if self.preview.shown:
                self.preview.place(self.object.pose)
            self.request_render()

    # --- camera (app/view_camera.py) ---------------------------------------------------------
    def camera_position(self) -> pv.CameraPosition:
        """The camera (position, focal point, view up)."""
        return self.plotter.camera_position

    def view_angle_deg(self) -> float:
        """The camera's view angle (the zoom of the view)."""
        return float(self.plotter.renderer.camera.view_angle)

    def window_size(self) -> tuple[int, int]:
        """The render window's size in pixels."""
        return int(self.plotter.width()), int(self.plotter.height())

    def screenshot(self, path: str | None = None) -> np.ndarray:
        """The view as an image array (and saved to `path` if given)."""
        self.render_now()
        img = self.plotter.screenshot(path, return_img=True)
        if img is None:  # only without return_img
            raise RuntimeError("the view returned no image")
        return img

    # --- the gripper --------------------------------------------------------------------------
    def show_open_gripper(
        self, shapes: GripperShapes, grasp: Grasp, valid: bool, reason: str = ""
    ) -> None:
        """Draw the open gripper at the grasp pose (warning colour and reason when invalid)."""
        self.gripper.show_open(shapes, grasp, valid)
        pose = grasp.pose()
        self._gizmo_pose = pose
        self.set_object_pose(None)
        self._update_colour_bar()  # the open pads are not coloured
        self.labels.set_status("" if valid else f"Invalid grasp: {reason}", warning=True)
        self.labels.set_frame(None)
        self.camera.follow_grasp(pose)
        self.request_render()

    def set_status_text(self, text: str, warning: bool = False) -> None:
        """The text in the view's corner."""
        self.labels.set_status(text, warning)
        self.request_render()

    def show_frame(
        self,
        shapes: GripperShapes,
        gripper_pose: np.ndarray,
        pad_vertices: tuple[np.ndarray, np.ndarray],
        object_pose: np.ndarray,
        travel_m: float,
        lift_m: float,
        fields: tuple[np.ndarray, np.ndarray] | None,
        label: str,
    ) -> None:
        """Draw one simulated frame (pads in world coordinates, plates and object moved)."""
        self.gizmo.remove()
        self.labels.set_status("")
        shown = fields if self.color_mode != "none" else None
        self.gripper.show_frame(
            shapes, gripper_pose, pad_vertices, (travel_m, lift_m), shown, self._field_max
        )
        self.set_object_pose(object_pose)
        self._update_colour_bar()
        self.labels.set_frame(label)
        self.camera.follow_grasp(gripper_pose, lift_m)
        self.request_render()

    def set_gizmo(self, enabled: bool) -> None:
        """Show or hide the gizmo at the grasp."""
        self._gizmo_on = enabled
        self.gizmo.remove()
        g = self.gripper
        if enabled and g.plate_actors and self._gizmo_pose is not None:
            self.gizmo.show(g.plate_actors, g.pad_actors, self._gizmo_pose)
        self.request_render()

    def set_field_range(self, vmax: float) -> None:
        """Top of the pads' colour scale."""
        self._field_max = float(vmax) if vmax > 0 else 1.0

    def field_title(self) -> str:
        """The colour bar's title for the current colour mode ("" for plain pads)."""
        return FIELD_TITLES.get(self.color_mode, "")

    def _update_colour_bar(self) -> None:
        """The pads' colour bar while they are coloured, in the right half side by side."""
        g = self.gripper
        mapper = g.pad_actors[0].mapper if g.coloured else None
        self.colour_bar.update(self.field_title(), mapper, self.side_by_side.renderer)

    # --- a pinned trial (compare runs) --------------------------------------------------------
    def show_ghost(
        self,
        pad_faces: np.ndarray | None,
        pad_vertices: tuple[np.ndarray, np.ndarray] | None = None,
        object_pose: np.ndarray | None = None,
    ) -> None:
        """A pinned trial's pads (their edges) and object (its feature edges) at their frame,
        in the ghost colour (None: remove)."""
        poly = self.object.poly
        if pad_faces is None or pad_vertices is None or poly is None:
            self.ghost.clear()
        else:
            self.ghost.show(pad_faces, pad_vertices, object_pose, poly)
        self.request_render()

    def show_side_by_side(
        self,
        pad_faces: np.ndarray,
        pad_vertices: tuple[np.ndarray, np.ndarray],
        object_pose: np.ndarray,
        plate_matrices: tuple[np.ndarray, np.ndarray] | None,
        fields: tuple[np.ndarray, np.ndarray] | None,
        titles: tuple[str, str],
        label: str,
    ) -> None:
        """A pinned trial's pads, plates and object at their frame in the right half of the
        view, beside the shown trial (left half), both seen by one camera: `titles` (shown,
        pinned) name each run and what differs, `label` the pinned frame's time and forces.
        Its pads are coloured as the shown ones, on the shown trial's scale."""
        if self.object.actor is None or not self.gripper.drawn:
            return
        self.show_ghost(None)
        shown = fields if self.color_mode != "none" else None
        template = self.gripper.pad_actors[0]
        self.side_by_side.show(
            pad_faces, pad_vertices, object_pose, plate_matrices, shown,
            (template, self._field_max),
        )  # fmt: skip
        self.forces.split(True)
        self._update_colour_bar()
        self.side_by_side.set_titles(titles, label)
        self.request_render()

    def end_side_by_side(self) -> None:
        """Back to one view of the whole window."""
        side = self.side_by_side.end()
        if side is None:
            return
        self.colour_bar.back_to_main(side)  # the colour bar back in the one view
        self.forces.split(False)
        self.request_render()

    # --- hover preview ------------------------------------------------------------------------
    def show_grasp_preview(
        self,
        contact0: np.ndarray | None,
        contact1: np.ndarray | None,
        ok: bool,
        pose: np.ndarray | None = None,
    ) -> None:
        """The grasp a right-click would place: its two contacts joined by the closing line
        and, at `pose`, a translucent ghost of the open jaws' plates (green); only the picked
        point (red) where there is none; None clears it. All in the object's resting frame,
        drawn on the object where it is shown (a simulated frame moves it)."""
        poly, shapes = self.object.poly, self.gripper.shapes
        if contact0 is None or poly is None:
            self.clear_grasp_preview()
            return
        contacts = [contact0] if contact1 is None else [contact0, contact1]
        plates = None if pose is None or shapes is None else (shapes, pose)
        self.preview.show(contacts, ok, plates, max(float(poly.length), 1e-3))
        self.preview.place(self.object.pose)
        self.request_render()

    def clear_grasp_preview(self) -> None:
        """Remove the hover preview."""
        self.preview.clear()
        self.request_render()

    # --- glyphs -------------------------------------------------------------------------------
    def show_candidates(self, candidates: list) -> None:
        """Draw sampled grasps as small gripper glyphs coloured by quality ([] removes them)."""
        self.candidates.show(candidates)
        self.picking.update_pick_list()
        self.request_render()

    def show_dataset(
        self,
        indices: list[int],
        poses: np.ndarray | None,
        widths: np.ndarray | None,
        values: np.ndarray | None,
        transform: np.ndarray | None = None,
    ) -> None:
        """Draw data-set grasps as small gripper glyphs coloured by outcome: `poses` (N,4,4)
        in the object's mesh frame, placed by `transform` (mesh -> resting frame), `values` in
        [0, 1] red to green, NaN (unknown) grey; `indices` are their data-set indices ([]
        removes them). The same arrays again (another resting pose) reuse the glyphs drawn."""
        self.dataset.show(indices, poses, widths, values, transform)
        self.picking.update_pick_list()
        self.request_render()

    def show_dataset_selection(self, pose: np.ndarray | None, width: float = 0.0) -> None:
        """Outline the shown data-set grasp's glyph (None removes the outline)."""
        self.dataset_selection.show(pose, width)
        self.request_render()

    def _glyph_clicked(self, name: str, index: int) -> None:
        (self.candidate_clicked if name == "candidates" else self.dataset_clicked).emit(index)

    # --- contacts and forces ------------------------------------------------------------------
    def show_forces(self, frame: Frame, view: ForceView) -> None:
        """Arrows of `frame`'s contact forces on the object, normal and friction, per contact
        point or per patch at `view`'s scale, and the object's weight at its centre of mass."""
        self.forces.show(frame, view)
        self.request_render()

    def clear_forces(self) -> None:
        """Remove the contact-force arrows."""
        if self.forces.clear():
            self.request_render()

    def show_contacts(
        self,
        contacts: list[ContactPoint] | list[ContactPatch],
        forces: ContactForces | None = None,
        label: str = "",
        mode: str = "points",
    ) -> None:
        """Draw analytic contact points (arrows) or patches (coloured by pressure), and model
        `label`'s contact forces on them (normal and friction arrows, per contact or per jaw:
        `mode`) when given."""
        self.contacts.show(contacts, forces, label, mode)
        self.request_render()

    def clear_contacts(self) -> None:
        """Remove the drawn contacts."""
        self.contacts.clear()
        self.request_render()
