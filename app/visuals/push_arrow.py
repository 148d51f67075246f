"""The push's arrow: from where the drag started to where it is (while dragging), or onto the
pushed point of the object in a push frame, its length the push's force."""

from __future__ import annotations

import numpy as np
import pyvista as pv

from app.visuals.base import Visual

PUSH_COLOR = "#8e44ad"  # the timeline's push phase, darker


class PushArrowVisual(Visual):
    """One arrow, drawn or not."""

    NAME = "push_arrow"
    drawn: bool

    def forget(self) -> None:
        self.drawn = False

    def show(self, tail: np.ndarray, head: np.ndarray) -> None:
        """Draw the arrow from `tail` to `head` (world, m) in place of the one drawn."""
        tail, head = np.asarray(tail, dtype=float), np.asarray(head, dtype=float)
        length = float(np.linalg.norm(head - tail))
        if length < 1e-9:
            self.clear()
            return
        arrow = pv.Arrow(
            start=tail, direction=head - tail, scale=length, tip_length=0.25, tip_radius=0.08,
            shaft_radius=0.025,
        )  # fmt: skip
        self.scene.add_mesh(
            arrow, name=self.NAME, color=PUSH_COLOR, pickable=False, reset_camera=False
        )
        self.drawn = True
        self.scene.request_render()

    def clear(self) -> None:
        """Remove the arrow."""
        if self.drawn:
            self.scene.remove(self.NAME)
            self.scene.request_render()
        self.drawn = False
