"""Side by side (compare runs): a pinned trial's pads, plates and object at their frame in a
renderer of its own, the right half of the view, beside the shown trial (left half), both
seen by one camera."""

from __future__ import annotations

import numpy as np
import pyvista as pv
from vtkmodules.vtkRenderingAnnotation import vtkCornerAnnotation

from app.scene_style import BACKGROUND, PAD_COLOR, polydata
from app.visuals.base import Visual

SHARED_ACTORS = ("ground", "ground_grid", "object", "plate0", "plate1")


class SideBySideVisual(Visual):
    """The right half's renderer and what it draws; `renderer` is None in the one view."""

    renderer: pv.Renderer | None = None
    _polys: list[pv.PolyData]
    _actors: dict[str, pv.Actor]
    _text: vtkCornerAnnotation | None = None
    _observer: int | None = None

    def forget(self) -> None:
        self._polys, self._actors = [], {}

    @property
    def points(self) -> list[np.ndarray]:
        """The pinned trial's pads as drawn ([] in the one view)."""
        return [np.asarray(poly.points) for poly in self._polys]

    @property
    def object_pose(self) -> np.ndarray | None:
        """The pinned trial's object pose as drawn (None in the one view)."""
        actor = self._actors.get("object")
        return None if actor is None else np.asarray(actor.user_matrix)

    @property
    def titles(self) -> tuple[str, str]:
        """The two halves' titles (shown, pinned), ("", "") in the one view."""
        actors = self.scene.actors
        left = "" if "side_title" not in actors else str(actors["side_title"].GetText(2))
        right = "" if self._text is None else str(self._text.GetText(2))
        return left, right

    def show(
        self,
        pad_faces: np.ndarray,
        pad_vertices: tuple[np.ndarray, np.ndarray],
        object_pose: np.ndarray,
        plate_matrices: tuple[np.ndarray, np.ndarray] | None,
        fields: tuple[np.ndarray, np.ndarray] | None,
        pads: tuple[pv.Actor, float],
    ) -> None:
        """Draw the pinned frame: its pads coloured by `fields` (None: plain) as the shown pad
        actor `pads[0]` is, up to `pads[1]`; plates hidden when `plate_matrices` is None."""
        template, field_max = pads
        side = self.renderer or self._make_renderer()
        if len(self._polys) != 2 or self._polys[0].n_points != len(pad_vertices[0]):
            self._make_pads(side, pad_faces, pad_vertices, template)
        for k in (0, 1):
            poly = self._polys[k]
            poly.points = np.asarray(pad_vertices[k], dtype=float)
            actor = self._actors[f"pad{k}"]
            actor.prop.color = PAD_COLOR
            actor.mapper.scalar_visibility = fields is not None
            if fields is not None:
                poly.point_data["field"] = np.asarray(fields[k], dtype=float)
                actor.mapper.scalar_range = (0.0, field_max)
            plate = self._actors.get(f"plate{k}")
            if plate is not None:
                plate.visibility = plate_matrices is not None
                if plate_matrices is not None:
                    plate.user_matrix = plate_matrices[k]
        self._actors["object"].user_matrix = np.asarray(object_pose, dtype=float)

    def set_titles(self, titles: tuple[str, str], label: str) -> None:
        """`titles` (shown, pinned) atop each half, `label` the pinned frame's time and forces."""
        self.scene.remove("side_title")
        self.scene.add_text(
            titles[0], position="upper_left", font_size=10, name="side_title", color="#222222"
        )
        assert self._text is not None
        self._text.SetText(2, titles[1])  # upper left
        self._text.SetText(0, label)  # lower left

    def _make_pads(
        self,
        side: pv.Renderer,
        pad_faces: np.ndarray,
        pad_vertices: tuple[np.ndarray, np.ndarray],
        template: pv.Actor,
    ) -> None:
        for k in (0, 1):
            side.remove_actor(f"side_pad{k}", render=False)
        self._polys = []
        for k in (0, 1):
            poly = polydata(pad_vertices[k], pad_faces)
            poly.point_data["field"] = np.zeros(poly.n_points)
            mapper = pv.DataSetMapper(poly)
            mapper.lookup_table = template.mapper.lookup_table
            mapper.SetScalarModeToUsePointFieldData()
            mapper.SelectColorArray("field")
            actor = pv.Actor(mapper=mapper)
            actor.prop = template.prop.copy()
            side.add_actor(actor, name=f"side_pad{k}", pickable=False, render=False)
            self._actors[f"pad{k}"] = actor
            self._polys.append(poly)

    def _make_renderer(self) -> pv.Renderer:
        """The right half's renderer: the scene's camera and lights, its ground and object
        drawn by the scene's own mappers, and the scene's plates' shapes."""
        plotter = self.scene.plotter
        main = plotter.renderer
        side = pv.Renderer(plotter, border=True, border_color="#9a9a9a", border_width=2.0)
        side.set_background(BACKGROUND[0], top=BACKGROUND[1])
        side.InteractiveOff()  # mouse events go to the scene's renderer: one camera turns both
        side.SetActiveCamera(main.GetActiveCamera())
        self._observer = main.AddObserver(
            "StartEvent", lambda *_: side.SetActiveCamera(main.GetActiveCamera())
        )
        side.AutomaticLightCreationOff()
        lights = main.GetLights()
        lights.InitTraversal()
        for _ in range(lights.GetNumberOfItems()):
            side.AddLight(lights.GetNextItem())
        actors = main.actors
        self._actors = {}
        for name in SHARED_ACTORS:
            source = actors.get(name)
            if source is None:
                continue
            copy = pv.Actor(mapper=source.mapper)
            copy.prop = source.prop.copy()
            side.add_actor(copy, name=f"side_{name}", pickable=False, render=False)
            self._actors[name] = copy
        text = vtkCornerAnnotation()
        text.SetMaximumFontSize(14)
        text.GetTextProperty().SetColor(*pv.Color("#222222").float_rgb)
        side.AddViewProp(text)
        self._text = text
        window = plotter.render_window
        assert window is not None  # until close()
        window.AddRenderer(side)
        main.SetViewport(0.0, 0.0, 0.5, 1.0)
        side.SetViewport(0.5, 0.0, 1.0, 1.0)
        self.renderer = side
        self._polys = []
        return side

    def end(self) -> pv.Renderer | None:
        """Back to one view of the whole window; returns the right half's renderer removed."""
        side = self.renderer
        if side is None:
            return None
        plotter = self.scene.plotter
        main = plotter.renderer
        if self._observer is not None:
            main.RemoveObserver(self._observer)
        window = plotter.render_window
        if window is not None:
            window.RemoveRenderer(side)
        main.SetViewport(0.0, 0.0, 1.0, 1.0)
        self.scene.remove("side_title")
        self.renderer, self._observer, self._text = None, None, None
        self.forget()
        return side
