"""The 3D view: object, ground, gripper (pads + backing plates), picking, gizmo, contacts.

Threading rule (pyvistaqt invariant): only the GUI thread touches pyvista/VTK objects; workers
send numpy arrays. Rendering is throttled: changes mark the view dirty and the owner's display
clock calls `render_if_dirty` (at most ~30 Hz), so a burst of streamed frames costs one render
(rendering each frame froze the GUI for over a second in measurements, see shared/notes/gui.md).
The view has no timer of its own: with a QOpenGLWidget in the window, every repaint composes the
whole window in (software) GL, and a render out of step with the other widgets' repaints would
cost a second composition.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyvista as pv
from PySide6.QtCore import QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QApplication, QWidget
from pyvistaqt import QtInteractor
from vtkmodules.vtkRenderingAnnotation import vtkCornerAnnotation
from vtkmodules.vtkRenderingCore import vtkCellPicker

from app.force_arrows import ForceArrowLayer
from app.gripper_shapes import GripperShapes
from app.model.forces import ForceView
from app.scene_style import (
    BACKGROUND,
    CANDIDATE_CMAP,
    DATASET_SELECTED_COLOR,
    GHOST_COLOR,
    GRID_COLOR,
    GROUND_COLOR,
    OBJECT_COLOR,
    OBJECT_EDGE_COLOR,
    PAD_COLOR,
    PLATE_COLOR,
    UNKNOWN_COLOR,
    WARNING_COLOR,
    candidate_glyphs,
    contact_mesh,
    gripper_glyphs,
    ground_plane,
    ground_size,
)
from app.scene_style import polydata as _polydata
from app.view_camera import CAMERA_PRESETS, CAMERA_VIEWS, Section, frame_box, union_bounds
from app.view_interaction import ObjectPicker, add_gizmo, safe_keys
from engine.analytic.contact_patch import ContactPatch, ContactPoint
from engine.grasp.frames import Frame
from engine.grasp.grasp import Grasp
from engine.scene.resting import RestingObject

PAD_CMAP = "YlOrRd"  # light at zero strain, so a pad at rest still reads as a pad
DATASET_TUBES_MAX = 300  # data-set glyphs drawn as tubes up to this many grasps, else lines

# The pads' colour bar: where its lower left corner sits in its renderer's viewport (0..1), in
# the whole view and in the right half of a side-by-side comparison.
BAR_X, BAR_X_SIDE, BAR_Y = 0.88, 0.74, 0.25
COLOR_MODES = ("none", "energy", "displacement")
_FIELD_TITLES = {"energy": "strain energy density (J/m^3)", "displacement": "displacement (mm)"}


class Viewport(QObject):
    """Owns the QtInteractor and every actor in it."""

    picked = Signal(object, object)  # (point (3,), outward normal (3,)) on the object
    # The object's surface under the resting cursor (point, normal), or (None, None) off it.
    hovered = Signal(object, object)
    gizmo_moved = Signal(object)  # 4x4 gripper pose after a gizmo drag
    candidate_clicked = Signal(int)  # index of the sampled grasp glyph clicked (left button)
    dataset_clicked = Signal(int)  # data-set grasp index of the glyph clicked (left button)

    def __init__(self, parent: QWidget) -> None:
        super().__init__(parent)
        # No MSAA: with software GL (llvmpipe) 4x MSAA made every render ~50 ms slower; FXAA is
        # switched on only while the view is idle (set_quality).
        self.plotter = QtInteractor(parent, auto_update=False, multi_samples=0)
        # Dropped files go to the main window (validated loading), not pyvista.read.
        self.plotter.setAcceptDrops(False)
        self.plotter.renderers.set_background(BACKGROUND[0], top=BACKGROUND[1])
        self._high_quality = False
        self.set_quality(True)
        self._dirty = False
        self.renders = 0
        self._object_poly: pv.PolyData | None = None
        self._object_actor: pv.Actor | None = None
        # The camera (app/view_camera.py): a new object is framed with its gripper once that is
        # drawn; the section through the grasp plane follows the gripper while frames play.
        self._frame_pending = False
        self.section = Section(self.plotter)
        self._object_faces: np.ndarray | None = None  # the faces shown (same mesh: move it)
        self._ground_size = 0.0
        self._ghost_polys: list[pv.PolyData] = []  # a pinned trial's pads (compare runs)
        # Side by side (compare runs): the pinned trial in a renderer of its own, right half.
        self.side_renderer: pv.Renderer | None = None
        self._side_polys: list[pv.PolyData] = []
        self._side_actors: dict[str, pv.Actor] = {}
        self._side_text: vtkCornerAnnotation | None = None
        self._side_observer: int | None = None
        self._pad_polys: list[pv.PolyData] = []
        self._pad_actors: list[pv.Actor] = []
        self._plate_actors: list[pv.Actor] = []
        self._shapes: GripperShapes | None = None
        self._gizmo_pose: np.ndarray | None = None
        self._gizmo_on = False
        self.color_mode = "none"
        self._field_max = 1.0
        self._contact_names: list[str] = []
        self._gizmo: pv.AffineWidget3D | None = None
        self._frame_text: pv.CornerAnnotation | None = None
        self._object_picker = ObjectPicker()
        self.plotter.iren.add_observer("RightButtonPressEvent", self._on_right_press)
        # Hover preview: pick at most every 40 ms at the newest cursor position.
        self._hover_pos: tuple[float, float] | None = None
        self._hover_timer = QTimer(self)
        self._hover_timer.setSingleShot(True)
        self._hover_timer.setInterval(40)
        self._hover_timer.timeout.connect(self._hover_pick)
        self._hovering = False
        # The hover preview's actors and their matrices in the object's resting frame.
        self._preview_base: dict[str, np.ndarray] = {}
        self.plotter.iren.add_observer("MouseMoveEvent", self._on_mouse_move)
        # Sampled-grasp and data-set glyphs: a left click (press and release without dragging)
        # on one. Glyph actor name -> its glyphs' indices (sampled candidates, data-set grasps).
        self._candidate_picker = vtkCellPicker()
        self._candidate_picker.SetTolerance(0.004)
        self._candidate_picker.PickFromListOn()
        self._glyph_indices: dict[str, list[int]] = {}
        # The glyph polydata drawn, by actor name: the picker's cell ids index them (an actor's
        # mapper.dataset may be the output of pyvista's scalars filter, empty until rendered).
        self.glyph_polys: dict[str, pv.PolyData] = {}
        self._dataset_glyphs: tuple[np.ndarray, np.ndarray, pv.PolyData] | None = None
        self._outline: tuple[bytes, float] | None = None  # the data-set grasp outlined
        self._left_press: tuple[float, float] | None = None
        self._left_observers: list[tuple[Any, int]] = []
        self._watch_left_button()
        safe_keys(self.plotter, lambda: self.camera_preset("reset"))
        # Contact-force arrows, drawn over the scene (app/force_arrows.py).
        self.forces = ForceArrowLayer(self.plotter)

    @property
    def widget(self) -> QWidget:
        """The Qt widget of the 3D view."""
        return self.plotter

    # --- rendering ----------------------------------------------------------------------------
    def request_render(self) -> None:
        """Render on the next display tick."""
        self._dirty = True

    def render_if_dirty(self) -> None:
        """Schedule one repaint of the view if anything changed (called by the display clock)."""
        if self._dirty and self.plotter.isVisible():
            self._dirty = False
            self._sync_gizmo_followers()
            self.renders += 1
            # update() schedules paintGL, which renders once; plotter.render() would render
            # now and then again in the paintGL its frame event schedules.
            self.plotter.update()

    # pyvista renders after every scene change by default; here the 30 Hz tick renders once.
    def _add_mesh(self, mesh: Any, **kwargs: Any) -> pv.Actor:
        return self.plotter.add_mesh(mesh, render=False, **kwargs)

    def _add_text(self, text: str, **kwargs: Any) -> Any:
        return self.plotter.add_text(text, render=False, **kwargs)

    def _remove_actor(self, name: str) -> None:
        # The renderer's own method: the plotter's functools.wraps wrapper types as unbound.
        self.plotter.renderer.remove_actor(name, render=False)

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
        self._dirty = False
        self.renders += 1
        self.plotter.render()

    def close(self) -> None:
        """Release the render window."""
        self.plotter.close()

    # --- scene --------------------------------------------------------------------------------
    def show_object(self, obj: RestingObject) -> None:
        """Replace the scene with `obj` resting on the ground (resting frame = world)."""
        p = self.plotter
        self._remove_gizmo()
        if self._shows_mesh_of(obj):
            self._move_object(obj)
            return
        self.end_side_by_side()
        p.clear_actors()
        self.clear_forces()
        self._glyph_indices, self.glyph_polys, self._ghost_polys = {}, {}, []
        self._candidate_picker.InitializePickList()
        self._frame_text = None
        self._pad_actors, self._plate_actors, self._pad_polys = [], [], []
        self._contact_names = []
        v = np.asarray(obj.vertices)
        self._add_ground(v)
        self._object_poly = _polydata(v, obj.faces)
        self._object_faces = np.array(obj.faces)
        self._object_actor = self._add_mesh(
            self._object_poly, color=OBJECT_COLOR, name="object", smooth_shading=False,
            show_edges=len(obj.faces) < 5000, edge_color=OBJECT_EDGE_COLOR, pickable=True,
        )  # fmt: skip
        self._object_picker.set_object(self._object_actor)
        p.renderer.add_axes(interactive=False)
        self._reset_camera()
        self.request_render()

    def _shows_mesh_of(self, obj: RestingObject) -> bool:
        """Whether the view shows `obj`'s mesh already (in another resting pose, say)."""
        poly, actor = self._object_poly, self._object_actor
        return (
            poly is not None
            and actor is not None
            and self._object_faces is not None
            and poly.n_points == len(obj.vertices)
            and np.array_equal(self._object_faces, obj.faces)
            and "object" in self._actor_names()
        )

    def _move_object(self, obj: RestingObject) -> None:
        """The mesh shown, resting otherwise: move its points and re-make the ground; the
        gripper's and the glyphs' actors stay (a rebuild of the scene cost ~25 ms a pose
        change with software GL, a data-set browser changes pose at most grasps)."""
        assert self._object_poly is not None and self._object_actor is not None
        self.clear_contacts()
        self.clear_forces()
        self.clear_grasp_preview()
        self.show_ghost(None)  # its object copy rests as before
        self.end_side_by_side()
        self._update_scalar_bar(False)
        v = np.asarray(obj.vertices, dtype=float)
        self._object_poly.points = v
        self._object_actor.user_matrix = np.eye(4)
        self._add_ground(v)
        self._reset_camera()
        self.request_render()

    def _add_ground(self, vertices: np.ndarray) -> None:
        size = ground_size(vertices)
        if size == self._ground_size and "ground" in self._actor_names():
            return  # the same ground (another resting pose of an object of the same size)
        self._ground_size = size
        ground = ground_plane(vertices)
        # Unlit: the ground covers much of the view and software GL pays per lit fragment.
        self._add_mesh(ground, color=GROUND_COLOR, pickable=False, name="ground", lighting=False)
        self._add_mesh(
            ground, style="wireframe", color=GRID_COLOR, pickable=False, name="ground_grid",
            line_width=1, lighting=False,
        )  # fmt: skip

    def _reset_camera(self) -> None:
        # The initial view; framed again with the gripper once it is drawn (_frame_new_scene).
        self.camera_preset("reset")
        self._frame_pending = True

    def _frame_new_scene(self) -> None:
        if self._frame_pending:
            self._frame_pending = False
            self.camera_preset("reset")

    def framed_bounds(self) -> np.ndarray | None:
        """The (3, 2) box the camera presets frame: the object and the gripper as drawn."""
        actors = self.plotter.renderer.actors
        names = ("object", "pad0", "pad1", "plate0", "plate1")
        return union_bounds(
            [actors[n].GetBounds() for n in names if n in actors and actors[n].GetVisibility()]
        )

    def camera_preset(self, name: str) -> None:
        """Look at the object and the gripper from the "front" (along +y), the "side" (along
        -x), the "top" (down -z), as at first ("reset", isometric), or "fit" them in the view
        keeping the direction; whatever the zoom, pan or turn before (app/view_camera.py)."""
        if name not in CAMERA_PRESETS:
            raise ValueError(f"unknown camera preset {name!r}; use {', '.join(CAMERA_PRESETS)}")
        # The renderer's camera: the plotter's camera property resets the camera (rendering
        # twice) while it is marked unset.
        r = self.plotter.renderer
        box = self.framed_bounds()
        if box is None:
            return
        direction, up = CAMERA_VIEWS.get(name, (None, None))
        frame_box(r, box, direction, up)
        self.request_render()

    def set_orthographic(self, on: bool) -> None:
        """Parallel projection (no perspective: sizes compare across the view) or perspective;
        the framing is kept (app/view_camera.py sets both the distance and the scale)."""
        camera = self.plotter.renderer.camera
        if bool(camera.parallel_projection) != on:
            camera.parallel_projection = on
            # The wheel zooms a parallel view by its scale: start from what frames the scene.
            box = self.framed_bounds()
            if box is not None:
                frame_box(self.plotter.renderer, box)
            self.request_render()

    def set_section(self, on: bool) -> None:
        """The section through the grasp plane on or off (app/view_camera.py's Section): on,
        the camera looks down the approach direction at the cut."""
        self.section.on = on
        self.section.update()
        if on:
            # The cut itself framed (the gripper's base, cut away, would set the distance).
            outline = self.plotter.renderer.actors.get("section_outline")
            box = None if outline is None else union_bounds([outline.GetBounds()])
            box = self.framed_bounds() if box is None else box
            if box is not None:
                # Down the approach, the closing axis left to right.
                up = np.cross(self.section.axis, self.section.normal)
                frame_box(self.plotter.renderer, box, -self.section.normal, up)
        self.request_render()

    def set_object_pose(self, pose: np.ndarray | None) -> None:
        """Move the object to the 4x4 `pose` (a hover preview on it moves with it)."""
        if self._object_actor is not None:
            self._object_actor.user_matrix = np.eye(4) if pose is None else np.asarray(pose)
            if self._preview_base:
                self._place_grasp_preview()
            self.request_render()

    def _ensure_gripper(self, shapes: GripperShapes) -> None:
        if self._shapes is shapes and self._pad_actors:
            return
        for name in ("pad0", "pad1", "plate0", "plate1"):
            self._remove_actor(name)
        self._shapes = shapes
        self._pad_polys, self._pad_actors, self._plate_actors = [], [], []
        for k in (0, 1):
            poly = _polydata(shapes.pad_local[k], shapes.pad_faces)
            poly.point_data["field"] = np.zeros(poly.n_points)
            actor = self._add_mesh(
                poly, scalars="field", cmap=PAD_CMAP, clim=[0.0, 1.0], show_scalar_bar=False,
                name=f"pad{k}", pickable=False, smooth_shading=False,
            )  # fmt: skip
            actor.mapper.scalar_visibility = False
            actor.prop.color = PAD_COLOR
            self._pad_polys.append(poly)
            self._pad_actors.append(actor)
            plate = _polydata(shapes.plate_local[k], shapes.plate_faces)
            self._plate_actors.append(
                self._add_mesh(plate, color=PLATE_COLOR, name=f"plate{k}", pickable=False)
            )

    def show_open_gripper(
        self, shapes: GripperShapes, grasp: Grasp, valid: bool, reason: str = ""
    ) -> None:
        """Draw the open gripper at the grasp pose (warning colour and reason when invalid)."""
        self._ensure_gripper(shapes)
        pose = grasp.pose()
        for k in (0, 1):
            self._pad_polys[k].points = shapes.pad_local[k]
            self._pad_actors[k].user_matrix = pose
            self._pad_actors[k].mapper.scalar_visibility = False
            self._pad_actors[k].prop.color = PAD_COLOR if valid else WARNING_COLOR
            self._plate_actors[k].user_matrix = pose
            self._plate_actors[k].prop.color = PLATE_COLOR if valid else WARNING_COLOR
        self._gizmo_pose = pose
        self.set_object_pose(None)
        self._update_scalar_bar(False)  # the open pads are not coloured
        self._draw_axis(grasp, shapes.open_width_m, valid)
        self.set_status_text("" if valid else f"Invalid grasp: {reason}", warning=True)
        if self._frame_text is not None:
            self._frame_text.SetVisibility(False)
        self.section.set_plane(pose)
        self.section.update()
        self._frame_new_scene()
        self.request_render()

    def _draw_axis(self, grasp: Grasp, width: float, valid: bool) -> None:
        """The closing axis across the open jaws and the jaw centre: a unit line along x and a
        sphere at the origin, placed by their actors' matrices (made once: a grasp edit, or a
        data-set grasp chosen, only moves them)."""
        names = self._actor_names()
        if "grasp_axis" not in names:
            segment = pv.Line((-0.5, 0.0, 0.0), (0.5, 0.0, 0.0))
            segment.clear_data()  # its "Distance" array drew a colour bar of its own
            self._add_mesh(
                segment, color=PAD_COLOR, line_width=3, name="grasp_axis", pickable=False,
                show_scalar_bar=False,
            )  # fmt: skip
        if "grasp_center" not in names:
            self._add_mesh(
                pv.Sphere(radius=0.0012), color="#222222", name="grasp_center", pickable=False
            )
        actors = self.plotter.renderer.actors
        line = np.eye(4)
        line[:3, 0] = width * grasp.axis
        line[:3, 3] = grasp.center
        axis_actor = actors["grasp_axis"]
        axis_actor.user_matrix = line
        axis_actor.prop.color = PAD_COLOR if valid else WARNING_COLOR
        centre = np.eye(4)
        centre[:3, 3] = grasp.center
        actors["grasp_center"].user_matrix = centre

    def set_status_text(self, text: str, warning: bool = False) -> None:
        """The text in the view's corner."""
        self._remove_actor("status_text")
        if text:
            self._add_text(
                text, position="upper_left", font_size=10, name="status_text",
                color=WARNING_COLOR if warning else "#222222",
            )  # fmt: skip
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
        self._ensure_gripper(shapes)
        self._remove_gizmo()
        for name in ("grasp_axis", "grasp_center", "status_text"):
            self._remove_actor(name)
        colored = fields is not None and self.color_mode != "none"
        for k in (0, 1):
            poly = self._pad_polys[k]
            poly.points = np.asarray(pad_vertices[k], dtype=float)
            actor = self._pad_actors[k]
            actor.user_matrix = np.eye(4)
            actor.prop.color = PAD_COLOR
            actor.mapper.scalar_visibility = colored
            if colored and fields is not None:
                poly.point_data["field"] = np.asarray(fields[k], dtype=float)
                actor.mapper.scalar_range = (0.0, self._field_max)
            self._plate_actors[k].user_matrix = shapes.plate_matrix(
                k, gripper_pose, travel_m, lift_m
            )
            self._plate_actors[k].prop.color = PLATE_COLOR
        self.set_object_pose(object_pose)
        self._update_scalar_bar(colored)
        # One text actor, updated in place: re-creating it each frame costs a texture upload.
        if self._frame_text is None:
            text = self._add_text(
                label, position="lower_left", font_size=9, name="frame_text", color="#222222"
            )
            assert isinstance(text, pv.CornerAnnotation)  # a named corner gives one
            self._frame_text = text
        else:
            self._frame_text.SetText(0, label)  # corner 0 = lower left
            self._frame_text.SetVisibility(True)
        self.section.set_plane(gripper_pose, lift_m)
        self.section.update()
        self._frame_new_scene()
        self.request_render()

    def show_ghost(
        self,
        pad_faces: np.ndarray | None,
        pad_vertices: tuple[np.ndarray, np.ndarray] | None = None,
        object_pose: np.ndarray | None = None,
    ) -> None:
        """A pinned trial's pads (their edges) and object (its feature edges) at their frame,
        in the ghost colour (None: remove)."""
        names = ("ghost_pad0", "ghost_pad1", "ghost_object")
        if pad_faces is None or pad_vertices is None or self._object_poly is None:
            for name in names:
                self._remove_actor(name)
            self._ghost_polys = []
            self.request_render()
            return
        present = self._actor_names()
        if (
            len(self._ghost_polys) != 2
            or not all(n in present for n in names[:2])
            or (self._ghost_polys[0].n_points != len(pad_vertices[0]))
        ):
            self._ghost_polys = []
            for k in (0, 1):
                poly = _polydata(pad_vertices[k], pad_faces)
                # Edges only: a see-through surface z-fights with the shown pads it overlaps.
                self._add_mesh(
                    poly, color=GHOST_COLOR, style="wireframe", line_width=1,
                    name=f"ghost_pad{k}", pickable=False,
                )  # fmt: skip
                self._ghost_polys.append(poly)
        for k in (0, 1):
            self._ghost_polys[k].points = np.asarray(pad_vertices[k], dtype=float)
        if "ghost_object" not in present:
            self._add_mesh(
                self._object_poly.copy().extract_feature_edges(), color=GHOST_COLOR,
                line_width=2, name="ghost_object", pickable=False,
            )  # fmt: skip
        ghost = self.plotter.renderer.actors["ghost_object"]
        ghost.user_matrix = np.eye(4) if object_pose is None else np.asarray(object_pose)
        self.request_render()

    def ghost_pad_points(self) -> list[np.ndarray]:
        """The ghost pads' vertices as drawn (tests)."""
        return [np.asarray(poly.points) for poly in self._ghost_polys]

    # --- side by side (compare runs) -----------------------------------------------------
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
        if self._object_actor is None or len(self._pad_actors) != 2:
            return
        self.show_ghost(None)
        side = self.side_renderer or self._make_side_renderer()
        if len(self._side_polys) != 2 or self._side_polys[0].n_points != len(pad_vertices[0]):
            for k in (0, 1):
                side.remove_actor(f"side_pad{k}", render=False)
            self._side_polys = []
            for k in (0, 1):
                poly = _polydata(pad_vertices[k], pad_faces)
                poly.point_data["field"] = np.zeros(poly.n_points)
                mapper = pv.DataSetMapper(poly)
                mapper.lookup_table = self._pad_actors[0].mapper.lookup_table
                mapper.SetScalarModeToUsePointFieldData()
                mapper.SelectColorArray("field")
                actor = pv.Actor(mapper=mapper)
                actor.prop = self._pad_actors[0].prop.copy()
                side.add_actor(actor, name=f"side_pad{k}", pickable=False, render=False)
                self._side_actors[f"pad{k}"] = actor
                self._side_polys.append(poly)
        colored = fields is not None and self.color_mode != "none"
        for k in (0, 1):
            poly = self._side_polys[k]
            poly.points = np.asarray(pad_vertices[k], dtype=float)
            actor = self._side_actors[f"pad{k}"]
            actor.prop.color = PAD_COLOR
            actor.mapper.scalar_visibility = colored
            if colored and fields is not None:
                poly.point_data["field"] = np.asarray(fields[k], dtype=float)
                actor.mapper.scalar_range = (0.0, self._field_max)
            plate = self._side_actors[f"plate{k}"]
            plate.visibility = plate_matrices is not None
            if plate_matrices is not None:
                plate.user_matrix = plate_matrices[k]
        self._side_actors["object"].user_matrix = np.asarray(object_pose, dtype=float)
        self._update_scalar_bar(self._pad_actors[0].mapper.scalar_visibility)
        self._remove_actor("side_title")
        self._add_text(
            titles[0], position="upper_left", font_size=10, name="side_title", color="#222222"
        )
        assert self._side_text is not None
        self._side_text.SetText(2, titles[1])  # upper left
        self._side_text.SetText(0, label)  # lower left
        self.request_render()

    def _make_side_renderer(self) -> pv.Renderer:
        """The right half's renderer: the scene's camera and lights, its ground and object
        drawn by the scene's own mappers, and the scene's plates' shapes."""
        main = self.plotter.renderer
        side = pv.Renderer(self.plotter, border=True, border_color="#9a9a9a", border_width=2.0)
        side.set_background(BACKGROUND[0], top=BACKGROUND[1])
        side.InteractiveOff()  # mouse events go to the scene's renderer: one camera turns both
        side.SetActiveCamera(main.GetActiveCamera())
        self._side_observer = main.AddObserver(
            "StartEvent", lambda *_: side.SetActiveCamera(main.GetActiveCamera())
        )
        side.AutomaticLightCreationOff()
        lights = main.GetLights()
        lights.InitTraversal()
        for _ in range(lights.GetNumberOfItems()):
            side.AddLight(lights.GetNextItem())
        actors = main.actors
        self._side_actors = {}
        for name in ("ground", "ground_grid", "object", "plate0", "plate1"):
            source = actors.get(name)
            if source is None:
                continue
            copy = pv.Actor(mapper=source.mapper)
            copy.prop = source.prop.copy()
            side.add_actor(copy, name=f"side_{name}", pickable=False, render=False)
            self._side_actors[name] = copy
        text = vtkCornerAnnotation()
        text.SetMaximumFontSize(14)
        text.GetTextProperty().SetColor(*pv.Color("#222222").float_rgb)
        side.AddViewProp(text)
        self._side_text = text
        window = self.plotter.render_window
        assert window is not None  # until close()
        window.AddRenderer(side)
        main.SetViewport(0.0, 0.0, 0.5, 1.0)
        side.SetViewport(0.5, 0.0, 1.0, 1.0)
        self.forces.renderer.SetViewport(0.0, 0.0, 0.5, 1.0)
        self.side_renderer = side
        self._side_polys = []
        return side

    def end_side_by_side(self) -> None:
        """Back to one view of the whole window."""
        side = self.side_renderer
        if side is None:
            return
        main = self.plotter.renderer
        if self._side_observer is not None:
            main.RemoveObserver(self._side_observer)
        window = self.plotter.render_window
        if window is not None:
            window.RemoveRenderer(side)
        for bar in self.plotter.scalar_bars.values():  # the colour bar back in the one view
            if side.HasViewProp(bar):
                side.RemoveViewProp(bar)
                main.AddViewProp(bar)
                bar.SetPosition(BAR_X, BAR_Y)
        main.SetViewport(0.0, 0.0, 1.0, 1.0)
        self.forces.renderer.SetViewport(0.0, 0.0, 1.0, 1.0)
        self._remove_actor("side_title")
        self.side_renderer, self._side_observer, self._side_text = None, None, None
        self._side_polys, self._side_actors = [], {}
        self.request_render()

    def pad_points(self) -> list[np.ndarray]:
        """The shown pads' vertices as drawn (tests)."""
        return [np.asarray(poly.points) for poly in self._pad_polys]

    def side_pad_points(self) -> list[np.ndarray]:
        """The pinned trial's pads as drawn side by side (tests)."""
        return [np.asarray(poly.points) for poly in self._side_polys]

    def side_object_pose(self) -> np.ndarray | None:
        """The pinned trial's object pose as drawn side by side (tests)."""
        actor = self._side_actors.get("object")
        return None if actor is None else np.asarray(actor.user_matrix)

    def side_titles(self) -> tuple[str, str]:
        """The two halves' titles (shown, pinned) and the pinned frame's label (tests)."""
        actor = self.plotter.renderer.actors.get("side_title")
        left = "" if actor is None else str(actor.GetText(2))
        right = "" if self._side_text is None else str(self._side_text.GetText(2))
        return left, right

    def set_field_range(self, vmax: float) -> None:
        """Top of the pads' colour scale."""
        self._field_max = float(vmax) if vmax > 0 else 1.0

    def _update_scalar_bar(self, visible: bool) -> None:
        """The pads' one colour bar (the colour mode's title), at the right edge of the view:
        of the right half's renderer when comparing side by side, so it covers neither run."""
        title = _FIELD_TITLES.get(self.color_mode, "")
        bars = self.plotter.scalar_bars
        side = self.side_renderer
        for existing in list(bars.keys()):
            if existing != title or not visible:
                if side is not None:
                    side.RemoveViewProp(bars[existing])
                self.plotter.remove_scalar_bar(existing, render=False)
        if visible and title not in bars and self._pad_actors:
            # ScalarBars' own method (the plotter's wrapper types as an unbound function).
            bars.add_scalar_bar(
                title, mapper=self._pad_actors[0].mapper, vertical=True, position_x=BAR_X,
                position_y=BAR_Y, height=0.5, width=0.06, n_labels=4, fmt="%.2g",
                color="#222222", title_font_size=12, label_font_size=11, render=False,
            )  # fmt: skip
        if visible and side is not None and title in bars and not side.HasViewProp(bars[title]):
            self.plotter.renderer.RemoveViewProp(bars[title])
            side.AddViewProp(bars[title])
            # Half as wide a renderer: further in, so its title and labels are not cut off.
            bars[title].SetPosition(BAR_X_SIDE, BAR_Y)

    def colour_bars(self) -> dict[str, str]:
        """The colour bars drawn: title -> "main" or "side" (the renderer holding it; tests)."""
        side = self.side_renderer
        return {
            title: "side" if side is not None and side.HasViewProp(bar) else "main"
            for title, bar in self.plotter.scalar_bars.items()
            if self.plotter.renderer.HasViewProp(bar)
            or (side is not None and side.HasViewProp(bar))
        }

    # --- picking and gizmo (app/view_interaction.py) ------------------------------------------
    def _on_right_press(self, _obj: Any, _event: Any) -> None:
        x, y = self.plotter.iren.get_event_position()
        self._pick_display(x, y)

    def _pick_display(self, x: float, y: float) -> bool:
        """Pick the object at VTK display pixel (x, y) (origin bottom left); emits `picked`."""
        hit = self._object_picker.pick(x, y, self.plotter.renderer)
        if hit is None:
            return False
        self.picked.emit(*hit)
        return True

    def _on_mouse_move(self, _obj: Any, _event: Any) -> None:
        # No preview while a button drags the camera, or while the gizmo's handles own hover.
        if self._gizmo is not None or QApplication.mouseButtons() != Qt.MouseButton.NoButton:
            return
        x, y = self.plotter.iren.get_event_position()
        self._hover_pos = (float(x), float(y))
        if not self._hover_timer.isActive():
            self._hover_timer.start()

    def _hover_pick(self) -> None:
        if self._hover_pos is None or self._gizmo is not None:
            return
        hit = self._object_picker.pick(*self._hover_pos, self.plotter.renderer)
        if hit is not None:
            self._hovering = True
            self.hovered.emit(*hit)
        elif self._hovering:  # left the object: once
            self._hovering = False
            self.hovered.emit(None, None)

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
        self.clear_grasp_preview()
        if contact0 is None or self._object_poly is None:
            return
        if pose is not None and self._shapes is not None:
            for k in (0, 1):
                plate = _polydata(self._shapes.plate_local[k], self._shapes.plate_faces)
                self._add_mesh(
                    plate, color="#27ae60", opacity=0.35, name=f"grasp_preview_plate{k}",
                    pickable=False,
                )  # fmt: skip
                self._preview_base[f"grasp_preview_plate{k}"] = np.asarray(pose, dtype=float)
        size = max(float(self._object_poly.length), 1e-3)
        color = "#27ae60" if ok else WARNING_COLOR
        points = [np.asarray(contact0, dtype=float)]
        if contact1 is not None:
            points.append(np.asarray(contact1, dtype=float))
            line = pv.Line(points[0], points[1])
            self._add_mesh(
                line, color=color, line_width=3, name="grasp_preview_line", pickable=False
            )
        dots = pv.merge([pv.Sphere(radius=0.02 * size, center=q) for q in points])
        self._add_mesh(dots, color=color, name="grasp_preview_dots", pickable=False)
        self._preview_base["grasp_preview_line"] = np.eye(4)
        self._preview_base["grasp_preview_dots"] = np.eye(4)
        self._place_grasp_preview()

    def _place_grasp_preview(self) -> None:
        """Put the preview's actors on the object as drawn (its pose times their own)."""
        actors = self.plotter.renderer.actors
        pose = np.eye(4) if self._object_actor is None else self._object_actor.user_matrix
        for name, base in self._preview_base.items():
            if name in actors:
                actors[name].user_matrix = np.asarray(pose) @ base
        self.request_render()

    def clear_grasp_preview(self) -> None:
        """Remove the hover preview."""
        for name in ("line", "dots", "plate0", "plate1"):
            self._remove_actor(f"grasp_preview_{name}")
        self._preview_base = {}
        self.request_render()

    def grasp_preview_points(self) -> list[np.ndarray]:
        """The drawn preview's contact points, resting frame (tests)."""
        actor = self.plotter.renderer.actors.get("grasp_preview_dots")
        if actor is None:
            return []
        mesh = actor.mapper.dataset
        # Each sphere's centre is the mean of its points.
        n = mesh.n_points // (2 if "grasp_preview_line" in self.plotter.renderer.actors else 1)
        pts = np.asarray(mesh.points)
        return [pts[i : i + n].mean(axis=0) for i in range(0, mesh.n_points, n)]

    def pick_at(self, x: int, y: int) -> bool:
        """Pick the object surface at widget pixel (x, y) as a right-click would."""
        height = self.plotter.height()
        r = self._pixel_ratio()
        return self._pick_display(x * r, (height - y) * r)

    def _pixel_ratio(self) -> float:
        return float(self.plotter.devicePixelRatioF())

    def set_gizmo(self, enabled: bool) -> None:
        """Show or hide the gizmo at the grasp."""
        self._gizmo_on = enabled
        self._remove_gizmo()
        if enabled and self._plate_actors and self._gizmo_pose is not None:
            self._add_gizmo()
        self.request_render()

    def _add_gizmo(self) -> None:
        assert self._gizmo_pose is not None
        pose = self._gizmo_pose

        def released(matrix: Any) -> None:
            # The widget has just switched the interactor's style back (a drag uses a style
            # of its own): glyph clicks need their observers on the new one.
            self._watch_left_button()
            self.gizmo_moved.emit(np.asarray(matrix, dtype=float).copy())

        def moved(_matrix: Any) -> None:
            # The widget calls this before it updates the actor; the render tick copies the
            # new matrix to the other gripper actors.
            self.request_render()

        self._gizmo = add_gizmo(self.plotter, self._plate_actors[0], pose, released, moved)
        self._watch_left_button()  # enabling its picking may replace the style too

    def _sync_gizmo_followers(self) -> None:
        if self._gizmo is None or not self._plate_actors:
            return
        m = self._plate_actors[0].user_matrix
        for a in [*self._pad_actors, self._plate_actors[1]]:
            a.user_matrix = m

    def _remove_gizmo(self) -> None:
        if self._gizmo is None:
            return
        self._gizmo.remove()
        self._gizmo = None
        # Removing the gizmo disables pyvista's picking, which gives the interactor a new
        # style: the release observer (pyvista registers release observers on the style) went
        # with the old one, and clicks on sampled-grasp glyphs were ignored from then on.
        self._watch_left_button()

    def _watch_left_button(self) -> None:
        """(Re-)register the left press/release observers of glyph clicks on the current style."""
        for owner, tag in self._left_observers:
            owner.RemoveObserver(tag)
        iren = self.plotter.iren
        press = iren.add_observer("LeftButtonPressEvent", self._on_left_press)
        release = iren.add_observer("LeftButtonReleaseEvent", self._on_left_release)
        owners = []
        for tag, event in ((press, "LeftButtonPressEvent"), (release, "LeftButtonReleaseEvent")):
            on_iren = iren._observers.get(tag) == event
            owners.append((iren.interactor if on_iren else iren.style, tag))
        self._left_observers = owners

    # --- sampled grasps ---------------------------------------------------------------------
    def show_candidates(self, candidates: list) -> None:
        """Draw sampled grasps as small gripper glyphs coloured by quality ([] removes them)."""
        self._remove_actor("candidates")
        self._glyph_indices.pop("candidates", None)
        self.glyph_polys.pop("candidates", None)
        if candidates:
            poly = candidate_glyphs(candidates)
            q = np.asarray(poly.cell_data["quality"])
            lo, hi = float(q.min()), float(q.max())
            self._add_mesh(
                poly, scalars="quality", preference="cell", cmap=CANDIDATE_CMAP,
                clim=(lo, hi if hi > lo else lo + 1.0), line_width=4,
                render_lines_as_tubes=True, show_scalar_bar=False, name="candidates",
            )  # fmt: skip
            self._glyph_indices["candidates"] = list(range(len(candidates)))
            self.glyph_polys["candidates"] = poly
        self._update_pick_list()

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
        cached = self._dataset_glyphs
        if not len(indices) or poses is None or widths is None or values is None:
            self._dataset_glyphs = None
        elif cached is None or cached[0] is not poses or cached[1] is not values:
            poly = gripper_glyphs(poses, widths, values)
            self._dataset_glyphs = (poses, values, poly)
        elif "dataset" in self._actor_names() and "dataset" in self._glyph_indices:
            # The glyphs drawn, the object resting otherwise: move them.
            actor = self.plotter.renderer.actors["dataset"]
            actor.user_matrix = np.eye(4) if transform is None else np.asarray(transform)
            self.request_render()
            return
        self._remove_actor("dataset")
        self._glyph_indices.pop("dataset", None)
        self.glyph_polys.pop("dataset", None)
        if self._dataset_glyphs is not None:
            poly = self._dataset_glyphs[2]
            # Tubes read best, but cost ~0.1 ms per glyph per render with software GL: many
            # glyphs are drawn as thin lines.
            many = len(indices) > DATASET_TUBES_MAX
            actor = self._add_mesh(
                poly, scalars="value", preference="cell", cmap=CANDIDATE_CMAP, clim=(0.0, 1.0),
                nan_color=UNKNOWN_COLOR, line_width=1 if many else 3,
                render_lines_as_tubes=not many, show_scalar_bar=False, name="dataset",
            )  # fmt: skip
            actor.user_matrix = np.eye(4) if transform is None else np.asarray(transform)
            self._glyph_indices["dataset"] = list(indices)
            self.glyph_polys["dataset"] = poly
        self._update_pick_list()

    def show_dataset_selection(self, pose: np.ndarray | None, width: float = 0.0) -> None:
        """Outline the shown data-set grasp's glyph (None removes the outline)."""
        key = None if pose is None else (np.asarray(pose).tobytes(), float(width))
        if key is not None and key == self._outline and "dataset_selected" in self._actor_names():
            return  # drawn already
        self._outline = key
        self._remove_actor("dataset_selected")
        if pose is not None:
            poly = gripper_glyphs(np.asarray(pose)[None], np.array([width]), np.zeros(1))
            self._add_mesh(
                poly, color=DATASET_SELECTED_COLOR, line_width=7, render_lines_as_tubes=True,
                pickable=False, name="dataset_selected",
            )  # fmt: skip
        self.request_render()

    def _actor_names(self) -> set[str]:
        return set(self.plotter.renderer.actors)

    def _update_pick_list(self) -> None:
        picker = self._candidate_picker
        picker.InitializePickList()
        for name in self._glyph_indices:
            actor = self.plotter.renderer.actors.get(name)
            if actor is not None:
                picker.AddPickList(actor)
        self.request_render()

    def glyph_at(self, x: float, y: float) -> tuple[str, int] | None:
        """("candidates" or "dataset", index) of the glyph at VTK display pixel (x, y)."""
        if not self._glyph_indices:
            return None
        picker = self._candidate_picker
        if not picker.Pick(x, y, 0, self.plotter.renderer) or picker.GetActor() is None:
            return None
        cell = picker.GetCellId()
        for name, indices in self._glyph_indices.items():
            actor = self.plotter.renderer.actors.get(name)
            poly = self.glyph_polys.get(name)
            if actor is None or poly is None or picker.GetActor() is not actor:
                continue
            if 0 <= cell < poly.n_cells:
                k = int(poly.cell_data["candidate" if name == "candidates" else "glyph"][cell])
                return name, indices[k]
        return None

    def candidate_at(self, x: float, y: float) -> int | None:
        """The sampled grasp whose glyph is at VTK display pixel (x, y), or None."""
        hit = self.glyph_at(x, y)
        return hit[1] if hit is not None and hit[0] == "candidates" else None

    def dataset_glyph_at(self, x: float, y: float) -> int | None:
        """The data-set grasp whose glyph is at VTK display pixel (x, y), or None."""
        hit = self.glyph_at(x, y)
        return hit[1] if hit is not None and hit[0] == "dataset" else None

    def _on_left_press(self, _obj: Any, _event: Any) -> None:
        x, y = self.plotter.iren.get_event_position()
        self._left_press = (float(x), float(y))

    def _on_left_release(self, _obj: Any, _event: Any) -> None:
        start, self._left_press = self._left_press, None
        if start is None or not self._glyph_indices:
            return
        x, y = self.plotter.iren.get_event_position()
        if abs(x - start[0]) + abs(y - start[1]) > 4:  # a drag turned the camera
            return
        hit = self.glyph_at(float(x), float(y))
        if hit is not None:
            (self.candidate_clicked if hit[0] == "candidates" else self.dataset_clicked).emit(
                hit[1]
            )

    # --- simulated contact forces -------------------------------------------------------------
    def show_forces(self, frame: Frame, view: ForceView) -> None:
        """Arrows of `frame`'s contact forces on the object, normal and friction, per contact
        point or per patch at `view`'s scale, and the object's weight at its centre of mass."""
        self.forces.show(frame, view)
        self.request_render()

    def clear_forces(self) -> None:
        """Remove the contact-force arrows."""
        if self.forces.visible:
            self.forces.clear()
            self.request_render()

    # --- analytic contacts --------------------------------------------------------------------
    def show_contacts(self, contacts: list[ContactPoint] | list[ContactPatch]) -> None:
        """Draw analytic contact points (arrows) or patches (coloured by pressure)."""
        self.clear_contacts()
        for i, c in enumerate(contacts):
            name = f"contact{i}"
            mesh, options = contact_mesh(c)
            self._add_mesh(mesh, name=name, pickable=False, **options)
            self._contact_names.append(name)
        self.request_render()

    def clear_contacts(self) -> None:
        """Remove the drawn contacts."""
        for name in self._contact_names:
            self._remove_actor(name)
        self._contact_names = []
        self.request_render()

    def screenshot(self, path: str | None = None) -> np.ndarray:
        """The view as an image array (and saved to `path` if given)."""
        self.render_now()
        img = self.plotter.screenshot(path, return_img=True)
        if img is None:  # only without return_img
            raise RuntimeError("the view returned no image")
        return img

    def camera_position(self) -> pv.CameraPosition:
        """The camera (position, focal point, view up)."""
        return self.plotter.camera_position

    def view_angle_deg(self) -> float:
        """The camera's view angle (the zoom of the view)."""
        return float(self.plotter.renderer.camera.view_angle)

    def field_title(self) -> str:
        """The colour bar's title for the current colour mode ("" for plain pads)."""
        return _FIELD_TITLES.get(self.color_mode, "")

    def window_size(self) -> tuple[int, int]:
        """The render window's size in pixels."""
        return int(self.plotter.width()), int(self.plotter.height())
