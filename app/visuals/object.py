"""The object resting on the ground, and the ground under it."""

from __future__ import annotations

import numpy as np
import pyvista as pv

from app.scene_style import (
    GRID_COLOR,
    GROUND_COLOR,
    OBJECT_COLOR,
    OBJECT_EDGE_COLOR,
    ground_plane,
    ground_size,
    polydata,
)
from app.visuals.base import Visual
from engine.scene.resting import RestingObject


class GroundVisual(Visual):
    """A square of ground (with its grid) around the object."""

    size = 0.0  # the side of the ground drawn (m); 0 before any

    def forget(self) -> None:
        self.size = 0.0

    def show(self, vertices: np.ndarray) -> None:
        """Ground under an object of `vertices` (kept if one of the same size is drawn)."""
        size = ground_size(vertices)
        if size == self.size and self.scene.has("ground"):
            return  # the same ground (another resting pose of an object of the same size)
        self.size = size
        ground = ground_plane(vertices)
        # Unlit: the ground covers much of the view and software GL pays per lit fragment.
        add = self.scene.add_mesh
        add(ground, color=GROUND_COLOR, pickable=False, name="ground", lighting=False)
        add(
            ground, style="wireframe", color=GRID_COLOR, pickable=False, name="ground_grid",
            line_width=1, lighting=False,
        )  # fmt: skip


class ObjectVisual(Visual):
    """The object's mesh (its resting pose = world), moved by a pose while frames play."""

    poly: pv.PolyData | None = None  # the mesh drawn
    actor: pv.Actor | None = None
    _faces: np.ndarray | None = None

    def forget(self) -> None:
        self.poly, self.actor, self._faces = None, None, None

    def shows_mesh_of(self, obj: RestingObject) -> bool:
        """Whether `obj`'s mesh is drawn already (in another resting pose, say)."""
        poly, actor = self.poly, self.actor
        return (
            poly is not None
            and actor is not None
            and self._faces is not None
            and poly.n_points == len(obj.vertices)
            and np.array_equal(self._faces, obj.faces)
            and self.scene.has("object")
        )

    def show(self, obj: RestingObject) -> pv.Actor:
        """Draw `obj`'s mesh in its resting pose (a new actor)."""
        self.poly = polydata(np.asarray(obj.vertices), obj.faces)
        self._faces = np.array(obj.faces)
        self.actor = self.scene.add_mesh(
            self.poly, color=OBJECT_COLOR, name="object", smooth_shading=False,
            show_edges=len(obj.faces) < 5000, edge_color=OBJECT_EDGE_COLOR, pickable=True,
        )  # fmt: skip
        return self.actor

    def rest(self, obj: RestingObject) -> None:
        """The mesh drawn, resting otherwise: move its points (shows_mesh_of(obj) holds)."""
        assert self.poly is not None and self.actor is not None
        self.poly.points = np.asarray(obj.vertices, dtype=float)
        self.actor.user_matrix = np.eye(4)

    @property
    def pose(self) -> np.ndarray:
        """The 4x4 pose the object is drawn at (identity: resting)."""
        return np.eye(4) if self.actor is None else np.asarray(self.actor.user_matrix)

    def set_pose(self, pose: np.ndarray | None) -> bool:
        """Move the object to `pose` (None: resting); False when none is drawn."""
        if self.actor is None:
            return False
        self.actor.user_matrix = np.eye(4) if pose is None else np.asarray(pose)
        return True
