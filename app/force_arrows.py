"""Contact-force arrows drawn over a pyvista scene: the interactive view and the off-screen
video exporter share this (no Qt here, so the export process does not load it).

The arrows end where the pads press the object, between the pads and the object, and the
ground's under it: drawn in the scene they would be hidden. They are drawn in a render layer of
their own above the scene, with the scene's camera, so they are seen through the pads, the
plates and the object. A legend in the arrows' colours states each kind's scale.

With the object's mass known (ForceView), its centre of mass is marked by a small sphere and its
weight m g drawn from there straight down, in purple, at the normal forces' scale.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyvista as pv
from vtkmodules.vtkRenderingCore import vtkActor, vtkPolyDataMapper, vtkRenderer, vtkTextActor

from app.model.forces import FORCE_KINDS, Arrows, ForceView, totals_text
from engine.grasp.frames import Frame

FORCE_COLORS = {"normal": "#e8590c", "friction": "#0b8f6a"}  # orange, green
WEIGHT_COLOR = "#7b2cbf"  # purple: the weight arrow and the centre-of-mass marker
TOTALS_COLOR = "#222222"
# One arrow from (0,0,0) to (1,0,0), as triangles: placed and scaled per force with numpy
# (2.6 ms to draw a frame's 177 contact points, against 8.5 ms with pyvista's glyph filter).
_ARROW = pv.Arrow(
    tip_length=0.3, tip_radius=0.14, shaft_radius=0.06, tip_resolution=10, shaft_resolution=8
)
_ARROW = _ARROW.triangulate()
_ARROW_POINTS = np.asarray(_ARROW.points, dtype=float)
_ARROW_TRIANGLES = np.asarray(_ARROW.faces).reshape(-1, 4)[:, 1:]


def _rgb(color: str) -> tuple[float, float, float]:
    c = pv.Color(color)
    return c.float_rgb


def arrow_mesh(arrows: Arrows) -> pv.PolyData:
    """One arrow per force, from its tail to its contact point (the template arrow turned onto
    the force and scaled to its drawn length, shaft and head alike)."""
    n = len(arrows.tails)
    if not n:
        return pv.PolyData()
    length = np.linalg.norm(arrows.vectors, axis=1)
    d = arrows.vectors / length[:, None]
    # A unit vector across each direction: the axis it is least aligned with, made orthogonal.
    helper = np.eye(3)[np.argmin(np.abs(d), axis=1)]
    u = np.cross(d, helper)
    u /= np.linalg.norm(u, axis=1)[:, None]
    w = np.cross(d, u)
    t = _ARROW_POINTS
    points = arrows.tails[:, None, :] + length[:, None, None] * (
        t[None, :, 0, None] * d[:, None, :]
        + t[None, :, 1, None] * u[:, None, :]
        + t[None, :, 2, None] * w[:, None, :]
    )
    tri = _ARROW_TRIANGLES[None] + (len(t) * np.arange(n))[:, None, None]
    cells = np.concatenate([np.full((n * len(_ARROW_TRIANGLES), 1), 3), tri.reshape(-1, 3)], 1)
    return pv.PolyData(points.reshape(-1, 3), cells.ravel())


class ForceArrowLayer:
    """The arrows of one frame and their legend, over the scene of `plotter`."""

    def __init__(self, plotter: Any) -> None:
        window = plotter.render_window
        main = plotter.renderer
        layer = window.GetNumberOfLayers()
        window.SetNumberOfLayers(layer + 1)
        self.renderer = vtkRenderer()
        self.renderer.SetLayer(layer)
        self.renderer.InteractiveOff()  # clicks and drags go to the scene
        self.renderer.SetActiveCamera(main.GetActiveCamera())
        # pyvista may give the scene a new camera object (camera presets): follow it.
        main.AddObserver(
            "StartEvent", lambda *_: self.renderer.SetActiveCamera(main.GetActiveCamera())
        )
        window.AddRenderer(self.renderer)
        self.arrows: dict[str, Arrows] = {}
        self.meshes: dict[str, pv.PolyData] = {}
        self._actors: dict[str, vtkActor] = {}
        self._mappers: dict[str, vtkPolyDataMapper] = {}
        self._legend: dict[str, vtkTextActor] = {}
        for kind in (*FORCE_KINDS, "weight"):
            mapper = vtkPolyDataMapper()
            mapper.SetInputData(pv.PolyData())
            mapper.ScalarVisibilityOff()  # the glyphs carry their vectors: colour, not scalars
            actor = vtkActor()
            actor.SetMapper(mapper)
            actor.GetProperty().SetColor(*_rgb(FORCE_COLORS.get(kind, WEIGHT_COLOR)))
            actor.GetProperty().SetAmbient(0.3)
            actor.SetVisibility(False)
            self.renderer.AddActor(actor)
            self._actors[kind] = actor
            self._mappers[kind] = mapper
        # The centre of mass: a unit sphere, placed and sized per frame.
        self._com_mapper = vtkPolyDataMapper()
        self._com_mapper.SetInputData(pv.Sphere(radius=1.0, theta_resolution=16, phi_resolution=12))
        self._com_mapper.ScalarVisibilityOff()
        self.com_actor = vtkActor()
        self.com_actor.SetMapper(self._com_mapper)
        self.com_actor.GetProperty().SetColor(*_rgb(WEIGHT_COLOR))
        self.com_actor.GetProperty().SetAmbient(0.3)
        self.com_actor.SetVisibility(False)
        self.renderer.AddActor(self.com_actor)
        self.com: np.ndarray | None = None  # the centre of mass drawn (m)
        # The legend, top right: each kind's scale in its colour, the weight, then the
        # patches' totals.
        lines = (*FORCE_COLORS.items(), ("weight", WEIGHT_COLOR), ("totals", TOTALS_COLOR))
        for i, (name, color) in enumerate(lines):
            text = vtkTextActor()
            text.GetPositionCoordinate().SetCoordinateSystemToNormalizedViewport()
            text.SetPosition(0.985, 0.965 - 0.04 * i)
            prop = text.GetTextProperty()
            prop.SetJustificationToRight()
            prop.SetVerticalJustificationToTop()
            prop.SetFontSize(15 if name != "totals" else 13)
            prop.SetBold(name != "totals")
            prop.SetColor(*_rgb(color))
            prop.SetBackgroundColor(1.0, 1.0, 1.0)  # readable over the plates too
            prop.SetBackgroundOpacity(0.8)
            text.SetVisibility(False)
            self.renderer.AddViewProp(text)
            self._legend[name] = text

    @property
    def visible(self) -> bool:
        """Whether arrows are shown."""
        return bool(self._actors["normal"].GetVisibility())

    def show(self, frame: Frame, view: ForceView) -> None:
        """Draw `frame`'s contact forces as `view` says (per contact point or per patch, at
        its scale), with the weight at the centre of mass when `view` knows the mass."""
        weight = view.weight_arrow(frame)
        com = view.centre_of_mass(frame)
        self.draw(
            {kind: (view.arrows(frame, kind), view.legend(kind)) for kind in FORCE_KINDS},
            totals_text(frame),
            None if weight is None or com is None else (weight, view.weight_legend()),
            com,
            view.marker_radius_m,
        )

    def draw(
        self,
        kinds: dict[str, tuple[Arrows, str]],
        totals: str,
        weight: tuple[Arrows, str] | None = None,
        com: np.ndarray | None = None,
        marker_radius_m: float = 1e-3,
    ) -> None:
        """Draw arrows of each kind of FORCE_KINDS with its legend line, the `totals` line,
        and the weight arrow with its legend and the centre-of-mass marker when given (a
        simulated frame's forces, show; an analytic model's, app/visuals/contacts.py)."""
        for kind in FORCE_KINDS:
            self._set(kind, *kinds[kind])
        self.com = com
        if weight is not None and com is not None:
            self._set("weight", *weight)
            self.com_actor.SetPosition(*com)
            self.com_actor.SetScale(marker_radius_m)
            self.com_actor.SetVisibility(True)
        else:
            self._hide("weight")
            self.com_actor.SetVisibility(False)
        self._legend["totals"].SetInput(totals)
        self._legend["totals"].SetVisibility(True)

    def _set(self, kind: str, arrows: Arrows, legend: str) -> None:
        mesh = arrow_mesh(arrows)
        self.arrows[kind], self.meshes[kind] = arrows, mesh
        self._mappers[kind].SetInputData(mesh)
        self._actors[kind].SetVisibility(True)
        self._legend[kind].SetInput(legend)
        self._legend[kind].SetVisibility(True)

    def _hide(self, kind: str) -> None:
        self.arrows.pop(kind, None)
        self.meshes.pop(kind, None)
        self._actors[kind].SetVisibility(False)
        self._legend[kind].SetVisibility(False)

    def clear(self) -> None:
        """No arrows, no legend."""
        for actor in (*self._actors.values(), self.com_actor):
            actor.SetVisibility(False)
        for text in self._legend.values():
            text.SetVisibility(False)
        self.arrows, self.meshes, self.com = {}, {}, None

    @property
    def legend(self) -> list[str]:
        """The legend lines shown."""
        return [t.GetInput() for t in self._legend.values() if t.GetVisibility()]


def arrow_count(mesh: pv.PolyData) -> int:
    """How many arrows a mesh of arrow_mesh holds."""
    return int(mesh.n_points // _ARROW.n_points) if mesh.n_points else 0
