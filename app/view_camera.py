"""The 3D view's camera and section: framing what matters whatever the zoom before, the view
presets, the orthographic toggle, and the section through the grasp plane.

Framing computes the camera from the bounds to show and the view direction alone (never from
the camera's previous distance, view angle or parallel scale), so after any wheel zoom, pan or
turn a preset puts the same picture back. GUI thread only, like every pyvista/VTK object
(see app/viewport.py); no Qt here.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyvista as pv
from vtkmodules.vtkCommonDataModel import vtkPlane
from vtkmodules.vtkFiltersGeneral import vtkContourTriangulator

VIEW_ANGLE_DEG = 30.0  # VTK's default; the wheel dollies, the presets never change the angle
FILL = 0.8  # the framed box's projection spans at most this share of the view's width/height
# Camera presets: (direction from the target to the camera, view up).
CAMERA_VIEWS = {
    "front": ((0.0, -1.0, 0.0), (0.0, 0.0, 1.0)),
    "side": ((1.0, 0.0, 0.0), (0.0, 0.0, 1.0)),
    "top": ((0.0, 0.0, 1.0), (0.0, 1.0, 0.0)),
    "reset": ((1.0, 1.0, 1.0), (0.0, 0.0, 1.0)),  # the initial (isometric) view
}
CAMERA_PRESETS = (*CAMERA_VIEWS, "fit")
SECTION_COLOR = "#1f3a93"  # the cut's outline: dark blue, apart from the pads' yellow-red
SECTION_FILL = "#8c7b63"  # the object's cut face: a darker shade of the object's colour
SECTION_ACTORS = ("object", "pad0", "pad1", "plate0", "plate1", "ghost_pad0", "ghost_pad1")


def union_bounds(boxes: Sequence[Sequence[float]]) -> np.ndarray | None:
    """The (3, 2) box holding every finite VTK bounds (xmin, xmax, ymin, ...) of `boxes`."""
    valid = [np.asarray(b, dtype=float).reshape(3, 2) for b in boxes]
    valid = [b for b in valid if np.all(np.isfinite(b)) and np.all(b[:, 1] >= b[:, 0])]
    if not valid:
        return None
    stack = np.stack(valid)
    return np.stack([stack[:, :, 0].min(axis=0), stack[:, :, 1].max(axis=0)], axis=1)


def _corners(box: np.ndarray) -> np.ndarray:
    return np.array([[x, y, z] for x in box[0] for y in box[1] for z in box[2]])


def frame_box(
    renderer: pv.Renderer,
    box: np.ndarray,
    direction: Sequence[float] | np.ndarray | None = None,
    up: Sequence[float] | np.ndarray | None = None,
) -> None:
    """Point the camera at the centre of `box` ((3, 2) bounds) from `direction` (None: keep
    the current one) with `up`, at the distance (perspective) or parallel scale
    (orthographic) where the box's eight corners fill at most FILL of the view."""
    cam = renderer.camera
    centre = box.mean(axis=1)
    if direction is None:
        direction = np.asarray(cam.position) - np.asarray(cam.focal_point)
        up = cam.up
    n = np.asarray(direction, dtype=float)
    n /= max(float(np.linalg.norm(n)), 1e-300)
    u = np.asarray(up if up is not None else (0.0, 0.0, 1.0), dtype=float)
    u = u - np.dot(u, n) * n
    if np.linalg.norm(u) < 1e-9:  # up along the view: any perpendicular
        u = np.cross(n, [1.0, 0.0, 0.0] if abs(n[0]) < 0.9 else [0.0, 1.0, 0.0])
    u /= np.linalg.norm(u)
    right = np.cross(u, n)  # n points at the camera, so right = up x n
    offsets = _corners(box) - centre
    x = np.abs(offsets @ right)
    y = np.abs(offsets @ u)
    depth = offsets @ n  # towards the camera
    width, height = renderer.GetSize()
    aspect = width / height if width > 0 and height > 0 else 4.0 / 3.0
    cam.view_angle = VIEW_ANGLE_DEG
    half = math.tan(math.radians(VIEW_ANGLE_DEG) / 2.0) * FILL
    # Each corner fits when its lateral offset is within the view's half-size at its depth.
    need = np.maximum(y / half, x / (half * aspect)) + depth
    extent = float(max(box[:, 1] - box[:, 0]))
    distance = max(float(need.max()), float(depth.max()) + 0.5 * extent, 1e-4)
    cam.focal_point = centre
    cam.position = centre + distance * n
    cam.up = u
    cam.parallel_scale = max(float(y.max()), float(x.max()) / aspect, 1e-5) / FILL
    renderer.reset_camera_clipping_range()
    renderer.camera_set = True


class Section:
    """A section through the grasp plane: the actors of SECTION_ACTORS clipped by the plane
    through the grasp centre normal to the approach direction (the gripper's base side cut
    away, so both pads' cross-sections are seen pressing the object's), and the cut's outline
    on the object and the pads drawn over it. Kept while frames play: `update` moves it."""

    def __init__(self, plotter: Any) -> None:  # a pyvista Plotter (pyvistaqt's QtInteractor)
        self.plotter = plotter
        self.on = False
        self.plane = vtkPlane()
        self.origin = np.zeros(3)
        self.normal = np.array([0.0, 0.0, -1.0])
        self.axis = np.array([1.0, 0.0, 0.0])  # the closing axis: left to right in the view
        self._clipped: list[pv.Actor] = []

    def set_plane(self, pose: np.ndarray, lift_m: float = 0.0) -> None:
        """Through the grasp centre of the gripper `pose` (raised by `lift_m`), normal to its
        approach direction: the base side (against the approach) is cut away."""
        pose = np.asarray(pose, dtype=float)
        self.origin = pose[:3, 3] + np.array([0.0, 0.0, lift_m])
        self.normal = pose[:3, 2] / max(float(np.linalg.norm(pose[:3, 2])), 1e-300)
        self.axis = pose[:3, 0]
        self.plane.SetOrigin(*self.origin)
        self.plane.SetNormal(*self.normal)  # VTK keeps the side the normal points to

    def update(self) -> None:
        """Clip the section's actors now in the scene and redraw the cut's outline."""
        if not self.on and not self._clipped:
            return  # off, and nothing to undo: no cost per frame
        actors = self.plotter.renderer.actors
        for clipped in self._clipped:
            clipped.mapper.RemoveClippingPlane(self.plane)
        self._clipped = []
        for name in ("section_outline", "section_fill"):
            self.plotter.renderer.remove_actor(name, render=False)
        if not self.on:
            return
        lines = []
        for name in SECTION_ACTORS:
            found = actors.get(name)
            if found is None or not found.GetVisibility():
                continue
            actor: pv.Actor = found
            actor.mapper.AddClippingPlane(self.plane)
            self._clipped.append(actor)  # kept even without a cut: update() unclips it
            cut = self._cut(actor)
            if cut is not None:
                lines.append(cut)
                if name == "object":
                    self._fill(cut)
        if lines:
            self.plotter.add_mesh(
                pv.merge(lines), color=SECTION_COLOR, line_width=3, name="section_outline",
                pickable=False, render=False, lighting=False,
            )  # fmt: skip

    def _fill(self, outline: pv.PolyData) -> None:
        """The object's cut face, solid: its closed outline triangulated (holes kept)."""
        fill = vtkContourTriangulator()
        fill.SetInputData(outline)
        fill.Update()
        face = pv.wrap(fill.GetOutput())
        if face.n_cells:
            # Nudged towards the viewer (against the normal) so the outline is not hidden by it.
            face.points = np.asarray(face.points) - 1e-6 * self.normal
            self.plotter.add_mesh(
                face, color=SECTION_FILL, name="section_fill", pickable=False, render=False,
                lighting=False,
            )  # fmt: skip

    def _cut(self, actor: pv.Actor) -> pv.PolyData | None:
        """`actor`'s mesh cut by the plane, in world coordinates (its matrix applied)."""
        mesh = actor.mapper.dataset
        if mesh is None or mesh.n_points == 0 or not isinstance(mesh, pv.PolyData):
            return None
        matrix = np.asarray(actor.user_matrix, dtype=float)
        world = (
            mesh.transform(matrix, inplace=False) if not np.allclose(matrix, np.eye(4)) else mesh
        )
        cut = world.slice(normal=self.normal, origin=self.origin)
        return cut if cut.n_points else None


FRAMED_ACTORS = ("object", "pad0", "pad1", "plate0", "plate1")


class ViewCamera:
    """The 3D view's camera: the presets, the orthographic toggle and the section, framing
    the object and the gripper as drawn; a new object is framed with its gripper once that is
    drawn. `changed` is called after each change (the view renders on its next tick)."""

    def __init__(self, plotter: Any, changed: Callable[[], None]) -> None:
        self.plotter = plotter
        self.section = Section(plotter)
        self._changed = changed
        self._frame_pending = False

    def framed_bounds(self) -> np.ndarray | None:
        """The (3, 2) box the camera presets frame: the object and the gripper as drawn."""
        actors = self.plotter.renderer.actors
        return union_bounds(
            [a.GetBounds() for n in FRAMED_ACTORS if (a := actors.get(n)) and a.GetVisibility()]
        )

    def preset(self, name: str) -> None:
        """Look at the object and the gripper from the "front" (along +y), the "side" (along
        -x), the "top" (down -z), as at first ("reset", isometric), or "fit" them in the view
        keeping the direction; whatever the zoom, pan or turn before."""
        if name not in CAMERA_PRESETS:
            raise ValueError(f"unknown camera preset {name!r}; use {', '.join(CAMERA_PRESETS)}")
        # The renderer's camera: the plotter's camera property resets the camera (rendering
        # twice) while it is marked unset.
        box = self.framed_bounds()
        if box is None:
            return
        direction, up = CAMERA_VIEWS.get(name, (None, None))
        frame_box(self.plotter.renderer, box, direction, up)
        self._changed()

    def new_scene(self) -> None:
        """The initial view of a new scene; framed again once its gripper is drawn."""
        self.preset("reset")
        self._frame_pending = True

    def gripper_drawn(self) -> None:
        """Frame the new scene with its gripper (once)."""
        if self._frame_pending:
            self._frame_pending = False
            self.preset("reset")

    def set_orthographic(self, on: bool) -> None:
        """Parallel projection (no perspective: sizes compare across the view) or perspective;
        the framing is kept (frame_box sets both the distance and the scale)."""
        camera = self.plotter.renderer.camera
        if bool(camera.parallel_projection) != on:
            camera.parallel_projection = on
            # The wheel zooms a parallel view by its scale: start from what frames the scene.
            box = self.framed_bounds()
            if box is not None:
                frame_box(self.plotter.renderer, box)
            self._changed()

    def set_section(self, on: bool) -> None:
        """The section through the grasp plane on or off: on, the camera looks down the
        approach direction at the cut."""
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
        self._changed()

    def follow_grasp(self, pose: np.ndarray, lift_m: float = 0.0) -> None:
        """The section's plane through the grasp at `pose` (lifted by `lift_m`), and the new
        scene framed if it waits for its gripper."""
        self.section.set_plane(pose, lift_m)
        self.section.update()
        self.gripper_drawn()
