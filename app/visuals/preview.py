"""The hover preview: the grasp a right-click would place, drawn on the object."""

from __future__ import annotations

import numpy as np
import pyvista as pv

from app.gripper_shapes import GripperShapes
from app.scene_style import WARNING_COLOR, polydata
from app.visuals.base import Visual

OK_COLOR = "#27ae60"  # green: a grasp the click would place
PREVIEW_ACTORS = tuple(f"grasp_preview_{n}" for n in ("line", "dots", "plate0", "plate1"))


class PreviewVisual(Visual):
    """Two contacts joined by the closing line and the open jaws' plates, translucent; all in
    the object's resting frame, placed on the object as drawn."""

    _base: dict[str, np.ndarray]  # each actor's matrix in the object's resting frame
    _points: list[np.ndarray]

    def forget(self) -> None:
        self._base, self._points = {}, []

    @property
    def points(self) -> list[np.ndarray]:
        """The contact points drawn (resting frame; [] when none)."""
        return [p.copy() for p in self._points]

    @property
    def shown(self) -> bool:
        """Whether a preview is drawn."""
        return bool(self._base)

    def clear(self) -> None:
        """Remove the preview."""
        for name in PREVIEW_ACTORS:
            self.scene.remove(name)
        self.forget()

    def show(
        self,
        contacts: list[np.ndarray],
        ok: bool,
        plates: tuple[GripperShapes, np.ndarray] | None,
        size: float,
    ) -> None:
        """`contacts` (one or two points), green when `ok` else the warning colour, with the
        plates of `plates` (shapes, pose) when given; dots sized for an object of `size`."""
        self.clear()
        scene = self.scene
        if plates is not None:
            shapes, pose = plates
            for k in (0, 1):
                plate = polydata(shapes.plate_local[k], shapes.plate_faces)
                name = f"grasp_preview_plate{k}"
                scene.add_mesh(plate, color=OK_COLOR, opacity=0.35, name=name, pickable=False)
                self._base[name] = np.asarray(pose, dtype=float)
        color = OK_COLOR if ok else WARNING_COLOR
        points = [np.asarray(c, dtype=float) for c in contacts]
        if len(points) == 2:
            line = pv.Line(points[0], points[1])
            scene.add_mesh(
                line, color=color, line_width=3, name="grasp_preview_line", pickable=False
            )
        dots = pv.merge([pv.Sphere(radius=0.02 * size, center=q) for q in points])
        scene.add_mesh(dots, color=color, name="grasp_preview_dots", pickable=False)
        # Each sphere's centre is the mean of its points: what is drawn, not what was asked.
        n = dots.n_points // len(points)
        drawn = np.asarray(dots.points)
        self._points = [drawn[i : i + n].mean(axis=0) for i in range(0, dots.n_points, n)]
        self._base["grasp_preview_line"] = np.eye(4)
        self._base["grasp_preview_dots"] = np.eye(4)

    def place(self, object_pose: np.ndarray) -> None:
        """Put the preview on the object drawn at `object_pose`."""
        actors = self.scene.actors
        for name, base in self._base.items():
            if name in actors:
                actors[name].user_matrix = np.asarray(object_pose) @ base
