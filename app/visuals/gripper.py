"""The gripper: two pads (coloured by a field in simulated frames) and their backing plates,
with the closing axis and the jaw centre while the grasp is edited."""

from __future__ import annotations

import numpy as np
import pyvista as pv

from app.gripper_shapes import GripperShapes
from app.scene_style import PAD_COLOR, PLATE_COLOR, WARNING_COLOR, polydata
from app.visuals.base import Visual
from engine.grasp.grasp import Grasp

PAD_CMAP = "YlOrRd"  # light at zero strain, so a pad at rest still reads as a pad
AXIS_ACTORS = ("grasp_axis", "grasp_center")


class GripperVisual(Visual):
    """The pads' and plates' actors, made once per gripper shape and moved after."""

    shapes: GripperShapes | None = None
    pad_polys: list[pv.PolyData]
    pad_actors: list[pv.Actor]
    plate_actors: list[pv.Actor]

    def forget(self) -> None:
        self.pad_polys, self.pad_actors, self.plate_actors = [], [], []

    @property
    def drawn(self) -> bool:
        """Whether the pads and plates are drawn."""
        return len(self.pad_actors) == 2 and len(self.plate_actors) == 2

    @property
    def points(self) -> list[np.ndarray]:
        """The pads' vertices as drawn (their own frame, or world in simulated frames)."""
        return [np.asarray(poly.points) for poly in self.pad_polys]

    def _ensure(self, shapes: GripperShapes) -> None:
        if self.shapes is shapes and self.pad_actors:
            return
        for name in ("pad0", "pad1", "plate0", "plate1"):
            self.scene.remove(name)
        self.shapes = shapes
        self.forget()
        for k in (0, 1):
            poly = polydata(shapes.pad_local[k], shapes.pad_faces)
            poly.point_data["field"] = np.zeros(poly.n_points)
            actor = self.scene.add_mesh(
                poly, scalars="field", cmap=PAD_CMAP, clim=[0.0, 1.0], show_scalar_bar=False,
                name=f"pad{k}", pickable=False, smooth_shading=False,
            )  # fmt: skip
            actor.mapper.scalar_visibility = False
            actor.prop.color = PAD_COLOR
            self.pad_polys.append(poly)
            self.pad_actors.append(actor)
            plate = polydata(shapes.plate_local[k], shapes.plate_faces)
            self.plate_actors.append(
                self.scene.add_mesh(plate, color=PLATE_COLOR, name=f"plate{k}", pickable=False)
            )

    def show_open(self, shapes: GripperShapes, grasp: Grasp, valid: bool) -> None:
        """The open gripper at the grasp pose, in the warning colour when invalid."""
        self._ensure(shapes)
        pose = grasp.pose()
        for k in (0, 1):
            self.pad_polys[k].points = shapes.pad_local[k]
            self.pad_actors[k].user_matrix = pose
            self.pad_actors[k].mapper.scalar_visibility = False
            self.pad_actors[k].prop.color = PAD_COLOR if valid else WARNING_COLOR
            self.plate_actors[k].user_matrix = pose
            self.plate_actors[k].prop.color = PLATE_COLOR if valid else WARNING_COLOR
        self._draw_axis(grasp, shapes.open_width_m, valid)

    def _draw_axis(self, grasp: Grasp, width: float, valid: bool) -> None:
        """The closing axis across the open jaws and the jaw centre: a unit line along x and a
        sphere at the origin, placed by their actors' matrices (made once: a grasp edit, or a
        data-set grasp chosen, only moves them)."""
        if not self.scene.has("grasp_axis"):
            segment = pv.Line((-0.5, 0.0, 0.0), (0.5, 0.0, 0.0))
            segment.clear_data()  # its "Distance" array drew a colour bar of its own
            self.scene.add_mesh(
                segment, color=PAD_COLOR, line_width=3, name="grasp_axis", pickable=False,
                show_scalar_bar=False,
            )  # fmt: skip
        if not self.scene.has("grasp_center"):
            self.scene.add_mesh(
                pv.Sphere(radius=0.0012), color="#222222", name="grasp_center", pickable=False
            )
        line = np.eye(4)
        line[:3, 0] = width * grasp.axis
        line[:3, 3] = grasp.center
        axis_actor = self.scene.actor("grasp_axis")
        axis_actor.user_matrix = line
        axis_actor.prop.color = PAD_COLOR if valid else WARNING_COLOR
        centre = np.eye(4)
        centre[:3, 3] = grasp.center
        self.scene.actor("grasp_center").user_matrix = centre

    def show_frame(
        self,
        shapes: GripperShapes,
        gripper_pose: np.ndarray,
        pad_vertices: tuple[np.ndarray, np.ndarray],
        travel_lift_m: tuple[float, float],
        fields: tuple[np.ndarray, np.ndarray] | None,
        field_max: float,
    ) -> None:
        """One simulated frame: the pads in world coordinates (coloured by `fields` up to
        `field_max` when given), the plates moved; no axis."""
        self._ensure(shapes)
        for name in AXIS_ACTORS:
            self.scene.remove(name)
        for k in (0, 1):
            poly = self.pad_polys[k]
            poly.points = np.asarray(pad_vertices[k], dtype=float)
            actor = self.pad_actors[k]
            actor.user_matrix = np.eye(4)
            actor.prop.color = PAD_COLOR
            actor.mapper.scalar_visibility = fields is not None
            if fields is not None:
                poly.point_data["field"] = np.asarray(fields[k], dtype=float)
                actor.mapper.scalar_range = (0.0, field_max)
            self.plate_actors[k].user_matrix = shapes.plate_matrix(k, gripper_pose, *travel_lift_m)
            self.plate_actors[k].prop.color = PLATE_COLOR

    @property
    def coloured(self) -> bool:
        """Whether the pads are drawn coloured by a field."""
        return bool(self.pad_actors) and bool(self.pad_actors[0].mapper.scalar_visibility)


class LabelsVisual(Visual):
    """The view's corner texts: the status (upper left; an invalid grasp's reason) and the
    simulated frame's label (lower left)."""

    frame_text: pv.CornerAnnotation | None = None

    def forget(self) -> None:
        self.frame_text = None

    def set_status(self, text: str, warning: bool = False) -> None:
        """The text in the view's upper left corner ("" removes it)."""
        self.scene.remove("status_text")
        if text:
            self.scene.add_text(
                text, position="upper_left", font_size=10, name="status_text",
                color=WARNING_COLOR if warning else "#222222",
            )  # fmt: skip

    def set_frame(self, label: str | None) -> None:
        """The frame's label in the lower left (None hides it)."""
        if label is None:
            if self.frame_text is not None:
                self.frame_text.SetVisibility(False)
            return
        # One text actor, updated in place: re-creating it each frame costs a texture upload.
        if self.frame_text is None:
            text = self.scene.add_text(
                label, position="lower_left", font_size=9, name="frame_text", color="#222222"
            )
            assert isinstance(text, pv.CornerAnnotation)  # a named corner gives one
            self.frame_text = text
        else:
            self.frame_text.SetText(0, label)  # corner 0 = lower left
            self.frame_text.SetVisibility(True)
