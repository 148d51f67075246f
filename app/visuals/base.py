"""What every visual shares: the scene they draw in (the plotter, added to without rendering)
and the visual's contract (draw from plain data, forget its actors when the scene is cleared).

GUI thread only, like every pyvista/VTK object (see app/viewport.py).
"""

from __future__ import annotations

from typing import Any

import pyvista as pv
from pyvistaqt import QtInteractor


class Scene:
    """The plotter the visuals draw in. pyvista renders after every change by default; here
    changes only mark the scene dirty and the view's 30 Hz display tick renders once."""

    def __init__(self, plotter: QtInteractor) -> None:
        self.plotter = plotter
        self.dirty = False

    def request_render(self) -> None:
        """Render on the next display tick."""
        self.dirty = True

    def add_mesh(self, mesh: Any, **kwargs: Any) -> pv.Actor:
        """An actor of `mesh` in the scene's renderer (no render)."""
        return self.plotter.add_mesh(mesh, render=False, **kwargs)

    def add_text(self, text: str, **kwargs: Any) -> Any:
        """A text actor in the scene's renderer (no render)."""
        return self.plotter.add_text(text, render=False, **kwargs)

    def remove(self, name: str) -> None:
        """Remove the actor called `name` if drawn."""
        # The renderer's own method: the plotter's functools.wraps wrapper types as unbound.
        self.plotter.renderer.remove_actor(name, render=False)

    @property
    def actors(self) -> dict[str, Any]:
        """The scene renderer's actors by name."""
        return self.plotter.renderer.actors

    def has(self, name: str) -> bool:
        """Whether an actor called `name` is drawn."""
        return name in self.plotter.renderer.actors

    def actor(self, name: str) -> Any:
        """The actor called `name` (KeyError if not drawn)."""
        return self.plotter.renderer.actors[name]


class Visual:
    """One kind of thing drawn in the 3D view: owns its actors and draws, updates and clears
    itself from plain data (napari's layer visual)."""

    def __init__(self, scene: Scene) -> None:
        self.scene = scene
        self.forget()

    def forget(self) -> None:
        """The scene's actors were all removed (a new object): drop references to them."""
