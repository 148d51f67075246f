"""The simulated contact forces: arrows over the scene in a render layer of their own
(app/force_arrows.py's ForceArrowLayer, which the off-screen video exporter shares)."""

from __future__ import annotations

from app.force_arrows import ForceArrowLayer
from app.model.forces import ForceView
from app.visuals.base import Scene, Visual
from engine.grasp.frames import Frame


class ForcesVisual(Visual):
    """`layer` the arrows, their legend and the centre-of-mass marker."""

    def __init__(self, scene: Scene) -> None:
        super().__init__(scene)
        self.layer = ForceArrowLayer(scene.plotter)

    @property
    def visible(self) -> bool:
        """Whether arrows are shown."""
        return self.layer.visible

    def show(self, frame: Frame, view: ForceView) -> None:
        """Arrows of `frame`'s contact forces as `view` says."""
        self.layer.show(frame, view)

    def clear(self) -> bool:
        """Remove the arrows; whether any were shown."""
        if not self.layer.visible:
            return False
        self.layer.clear()
        return True

    def split(self, on: bool) -> None:
        """Over the left half (side by side) or the whole view."""
        self.layer.renderer.SetViewport(0.0, 0.0, 0.5 if on else 1.0, 1.0)
