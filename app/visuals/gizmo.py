"""The gizmo at the grasp: a 3D widget that drags the gripper (app/view_interaction.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyvista as pv

from app.view_interaction import add_gizmo
from app.visuals.base import Visual


class GizmoVisual(Visual):
    """The widget on the gripper's first plate; the other gripper actors follow it.

    `restyled` is called whenever the widget may have given the interactor a new style (the
    view's glyph clicks re-register their observers then); `released` with the dragged 4x4
    pose (the host sets both)."""

    widget: pv.AffineWidget3D | None = None
    restyled: Callable[[], None] = staticmethod(lambda: None)
    released: Callable[[np.ndarray], None] = staticmethod(lambda _pose: None)
    _followers: list[pv.Actor]
    _leader: pv.Actor | None = None

    def forget(self) -> None:
        self._followers, self._leader = [], None

    def show(self, plates: list[pv.Actor], pads: list[pv.Actor], pose: np.ndarray) -> None:
        """The widget at `pose` on `plates[0]`, with the other plate and the pads following."""
        self.remove()

        def released(matrix: Any) -> None:
            # The widget has just switched the interactor's style back (a drag uses a style
            # of its own): glyph clicks need their observers on the new one.
            self.restyled()
            self.released(np.asarray(matrix, dtype=float).copy())

        def moved(_matrix: Any) -> None:
            # The widget calls this before it updates the actor; the render tick copies the
            # new matrix to the other gripper actors (follow).
            self.scene.request_render()

        self._followers = [*pads, plates[1]]
        self.widget = add_gizmo(self.scene.plotter, plates[0], pose, released, moved)
        self._leader = plates[0]
        self.restyled()  # enabling its picking may replace the style too

    def follow(self) -> None:
        """The other gripper actors to the dragged plate's matrix."""
        if self.widget is None or self._leader is None:
            return
        m = self._leader.user_matrix
        for a in self._followers:
            a.user_matrix = m

    def remove(self) -> None:
        """Remove the widget."""
        if self.widget is None:
            return
        self.widget.remove()
        self.widget = None
        self.forget()
        # Removing the gizmo disables pyvista's picking, which gives the interactor a new
        # style: the release observer (pyvista registers release observers on the style) went
        # with the old one, and clicks on sampled-grasp glyphs were ignored from then on.
        self.restyled()
