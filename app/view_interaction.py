"""Input in the 3D view: safe keys, the grasp-placement picker and the gizmo with its picker.

Grasp placement has its own picker, limited to the object and driven only by a right click.
pyvista's point picking listens to every pick of the interactor's picker, and the gizmo picks
on every mouse move to highlight its handles: hovering the object with the gizmo on re-placed
the grasp. GUI thread only, like every pyvista/VTK object (see app/viewport.py).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pyvista as pv
from pyvistaqt import QtInteractor
from vtkmodules.vtkRenderingCore import vtkCellPicker


def safe_keys(plotter: QtInteractor, reset_view: Callable[[], None]) -> None:
    """Drop pyvista's and VTK's single-key bindings ('q' closes the plotter, 'e' exits,
    'w'/'s' switch to wireframe); 'r' and 'v' (pyvista's reset and isometric view) do the
    window's View > Camera > Reset view, which frames the object and the open gripper."""
    iren = plotter.iren
    iren.clear_key_event_callbacks()
    iren.interactor.RemoveObservers("CharEvent")
    iren.add_key_event("v", reset_view)
    iren.add_key_event("r", reset_view)


class ObjectPicker:
    """The object's surface point and outward normal under a display pixel."""

    def __init__(self) -> None:
        self._picker = vtkCellPicker()
        self._picker.SetTolerance(0.0005)
        self._picker.PickFromListOn()
        self._actor: pv.Actor | None = None

    def set_object(self, actor: pv.Actor | None) -> None:
        """Pick on `actor` only (None: pick nothing)."""
        self._actor = actor
        self._picker.InitializePickList()
        if actor is not None:
            self._picker.AddPickList(actor)

    def pick(
        self, x: float, y: float, renderer: pv.Renderer
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """(point, outward normal) on the object at VTK display pixel (x, y) (origin bottom
        left), in the object's resting frame: the object as drawn may be moved (a simulated
        frame's pose), and the picked point is mapped back through that pose, so a grasp
        placed from it sits on the resting object where it was picked on the moved one."""
        hit = self._hit(x, y, renderer)
        if hit is None:
            return None
        to_world, point = hit
        normal = np.linalg.solve(to_world[:3, :3], self._picker.GetPickNormal())
        normal /= max(float(np.linalg.norm(normal)), 1e-300)
        return point, normal

    def pick_world(
        self, x: float, y: float, renderer: pv.Renderer
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """(point in the world as drawn, the same point in the object's resting frame) on the
        object at VTK display pixel (x, y), on the triangle hit."""
        hit = self._hit(x, y, renderer)
        if hit is None:
            return None
        to_world, rest = hit
        return to_world[:3, :3] @ rest + to_world[:3, 3], rest

    def _hit(
        self, x: float, y: float, renderer: pv.Renderer
    ) -> tuple[np.ndarray, np.ndarray] | None:
        """(the object actor's 4x4 world <- resting frame, the picked point in the resting
        frame, on the triangle hit), or None."""
        picker = self._picker
        if self._actor is None or not picker.Pick(x, y, 0, renderer):
            return None
        actor = picker.GetActor()
        if actor is None:
            return None
        m = actor.GetMatrix()
        to_world = np.array([[m.GetElement(r, c) for c in range(4)] for r in range(4)])
        to_rest = np.linalg.inv(to_world)
        world = np.array(picker.GetPickPosition(), dtype=float)
        return to_world, _onto_cell(picker, to_rest[:3, :3] @ world + to_rest[:3, 3])


def _onto_cell(picker: vtkCellPicker, point: np.ndarray) -> np.ndarray:
    """The picked point (resting frame: the mesh's own coordinates) moved onto the triangle
    the picker hit.

    With its tolerance the picker also hits a triangle the ray passes just beside, and then
    reports the point where the ray meets that triangle's plane: near an edge of a thin part
    seen at a grazing angle (a mug's handle) that is up to a millimetre off the surface, too far
    for grasp placement, which wants jaw 0 on the surface. The normal stays the triangle's."""
    data, cell_id = picker.GetDataSet(), picker.GetCellId()
    if data is None or cell_id < 0:
        return point
    cell = data.GetCell(cell_id)
    ids = [cell.GetPointId(k) for k in range(cell.GetNumberOfPoints())]
    if len(ids) != 3:
        return point
    corners = np.array([data.GetPoint(i) for i in ids], dtype=float)
    import trimesh  # loaded already with the object's mesh

    return trimesh.triangles.closest_point(corners[None], np.asarray(point, dtype=float)[None])[0]


def add_gizmo(
    plotter: QtInteractor,
    driven: pv.Actor,
    pose: np.ndarray,
    released: Callable[[Any], None],
    moved: Callable[[Any], None],
) -> pv.AffineWidget3D:
    """An affine transform widget on `driven` at the 4x4 `pose`; `released(matrix)` after a
    drag, `moved(matrix)` during it (before the widget updates the actor)."""
    gizmo = plotter.add_affine_transform_widget(
        driven, origin=tuple(pose[:3, 3]), scale=0.6, axes=pose[:3, :3].T.copy(),
        release_callback=released, interact_callback=moved,
    )  # fmt: skip
    # The widget highlights and grabs the handle its interactor's picker finds on every mouse
    # move. Its default hardware picker misses after each repaint of the QOpenGLWidget
    # (measured: every other move), so a press often found no handle and rotated the camera
    # instead. A geometric picker limited to the handles always hits them, also where they
    # are drawn over the object ("always visible").
    handles = vtkCellPicker()
    handles.SetTolerance(0.004)
    handles.PickFromListOn()
    for actor in [*gizmo._arrows, *gizmo._circles]:
        handles.AddPickList(actor)
    plotter.iren.picker = handles
    return gizmo
