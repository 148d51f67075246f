"""A pinned trial (compare runs) outlined over the shown one: its pads' edges and its object's
feature edges at its frame, in the ghost colour."""

from __future__ import annotations

import numpy as np
import pyvista as pv

from app.scene_style import GHOST_COLOR, polydata
from app.visuals.base import Visual

GHOST_ACTORS = ("ghost_pad0", "ghost_pad1", "ghost_object")


class GhostVisual(Visual):
    """The outlines of a pinned trial's pads and object."""

    _polys: list[pv.PolyData]

    def forget(self) -> None:
        self._polys = []

    @property
    def points(self) -> list[np.ndarray]:
        """The ghost pads' vertices as drawn ([] when none)."""
        return [np.asarray(poly.points) for poly in self._polys]

    def clear(self) -> None:
        """Remove the outlines."""
        for name in GHOST_ACTORS:
            self.scene.remove(name)
        self._polys = []

    def show(
        self,
        pad_faces: np.ndarray,
        pad_vertices: tuple[np.ndarray, np.ndarray],
        object_pose: np.ndarray | None,
        object_poly: pv.PolyData,
    ) -> None:
        """The pads of `pad_faces` at `pad_vertices` and the outline of `object_poly` (the
        object shown) at `object_pose`."""
        scene = self.scene
        if (
            len(self._polys) != 2
            or not all(scene.has(n) for n in GHOST_ACTORS[:2])
            or self._polys[0].n_points != len(pad_vertices[0])
        ):
            self._polys = []
            for k in (0, 1):
                poly = polydata(pad_vertices[k], pad_faces)
                # Edges only: a see-through surface z-fights with the shown pads it overlaps.
                scene.add_mesh(
                    poly, color=GHOST_COLOR, style="wireframe", line_width=1,
                    name=f"ghost_pad{k}", pickable=False,
                )  # fmt: skip
                self._polys.append(poly)
        for k in (0, 1):
            self._polys[k].points = np.asarray(pad_vertices[k], dtype=float)
        if not scene.has("ghost_object"):
            scene.add_mesh(
                object_poly.copy().extract_feature_edges(), color=GHOST_COLOR,
                line_width=2, name="ghost_object", pickable=False,
            )  # fmt: skip
        ghost = scene.actor("ghost_object")
        ghost.user_matrix = np.eye(4) if object_pose is None else np.asarray(object_pose)
