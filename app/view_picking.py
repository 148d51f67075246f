"""Picking in the 3D view: a right click on the object places the grasp, the resting cursor on
it previews one (at most every 40 ms, at the newest position), a left click (press and release
without dragging) on a sampled-grasp or data-set glyph chooses it. GUI thread only, like every
pyvista/VTK object (see app/viewport.py)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pyvista as pv
from PySide6.QtCore import QObject, Qt, QTimer
from PySide6.QtWidgets import QApplication
from pyvistaqt import QtInteractor
from vtkmodules.vtkRenderingCore import vtkCellPicker

from app.view_interaction import ObjectPicker, safe_keys
from app.visuals.glyphs import GlyphVisual

CLICK_SLOP_PX = 4  # a press and release further apart than this dragged the camera


class ViewPicking(QObject):
    """The view's pickers and mouse observers; reports through the callbacks it is given:
    `picked(point, normal)`, `hovered(point, normal)` ((None, None) off the object) and
    `clicked(glyph visual name, index)`. `busy()` says a gizmo owns the mouse (no hover)."""

    def __init__(
        self,
        plotter: QtInteractor,
        glyphs: tuple[GlyphVisual, ...],
        busy: Callable[[], bool],
        report: tuple[Callable[[Any, Any], None], Callable[[Any, Any], None]],
        clicked: Callable[[str, int], None],
    ) -> None:
        super().__init__(plotter)
        self.plotter = plotter
        self._glyphs = glyphs
        self._busy = busy
        self._picked, self._hovered = report
        self._clicked = clicked
        self._object_picker = ObjectPicker()
        plotter.iren.add_observer("RightButtonPressEvent", self._on_right_press)
        # Hover preview: pick at most every 40 ms at the newest cursor position.
        self._hover_pos: tuple[float, float] | None = None
        self._hover_timer = QTimer(self)
        self._hover_timer.setSingleShot(True)
        self._hover_timer.setInterval(40)
        self._hover_timer.timeout.connect(self._hover_pick)
        self._hovering = False
        plotter.iren.add_observer("MouseMoveEvent", self._on_mouse_move)
        self._glyph_picker = vtkCellPicker()
        self._glyph_picker.SetTolerance(0.004)
        self._glyph_picker.PickFromListOn()
        self._left_press: tuple[float, float] | None = None
        self._left_observers: list[tuple[Any, int]] = []
        self.watch_left_button()

    @property
    def object_picker(self) -> ObjectPicker:
        """The picker of points on the object (shared with the push gesture)."""
        return self._object_picker

    def set_object(self, actor: pv.Actor | None) -> None:
        """Place and preview grasps on `actor` (the object) only."""
        self._object_picker.set_object(actor)

    def set_reset_key(self, reset_view: Callable[[], None]) -> None:
        """Safe keys only, 'r' and 'v' doing `reset_view` (app/view_interaction.py)."""
        safe_keys(self.plotter, reset_view)

    # --- the object ---------------------------------------------------------------------------
    def _on_right_press(self, _obj: Any, _event: Any) -> None:
        x, y = self.plotter.iren.get_event_position()
        self._pick_display(x, y)

    def _pick_display(self, x: float, y: float) -> bool:
        """Pick the object at VTK display pixel (x, y) (origin bottom left); reports it."""
        hit = self._object_picker.pick(x, y, self.plotter.renderer)
        if hit is None:
            return False
        self._picked(*hit)
        return True

    def _on_mouse_move(self, _obj: Any, _event: Any) -> None:
        # No preview while a button drags the camera, or while the gizmo's handles own hover.
        if self._busy() or QApplication.mouseButtons() != Qt.MouseButton.NoButton:
            return
        x, y = self.plotter.iren.get_event_position()
        self._hover_pos = (float(x), float(y))
        if not self._hover_timer.isActive():
            self._hover_timer.start()

    def _hover_pick(self) -> None:
        if self._hover_pos is None or self._busy():
            return
        hit = self._object_picker.pick(*self._hover_pos, self.plotter.renderer)
        if hit is not None:
            self._hovering = True
            self._hovered(*hit)
        elif self._hovering:  # left the object: once
            self._hovering = False
            self._hovered(None, None)

    # --- glyphs -------------------------------------------------------------------------------
    def update_pick_list(self) -> None:
        """Pick among the glyphs drawn now."""
        picker = self._glyph_picker
        picker.InitializePickList()
        for glyphs in self._glyphs:
            actor = glyphs.actor
            if actor is not None:
                picker.AddPickList(actor)

    def glyph_at(self, x: float, y: float) -> tuple[str, int] | None:
        """(glyph visual name, grasp index) of the glyph at VTK display pixel (x, y)."""
        drawn = [g for g in self._glyphs if g.poly is not None]
        if not drawn:
            return None
        picker = self._glyph_picker
        if not picker.Pick(x, y, 0, self.plotter.renderer) or picker.GetActor() is None:
            return None
        for glyphs in drawn:
            if picker.GetActor() is glyphs.actor:
                index = glyphs.index_of_cell(picker.GetCellId())
                if index is not None:
                    return glyphs.name, index
        return None

    def watch_left_button(self) -> None:
        """(Re-)register the left press/release observers of glyph clicks on the current style
        (a gizmo drag, or its removal, gives the interactor a new style)."""
        for owner, tag in self._left_observers:
            owner.RemoveObserver(tag)
        iren = self.plotter.iren
        press = iren.add_observer("LeftButtonPressEvent", self._on_left_press)
        release = iren.add_observer("LeftButtonReleaseEvent", self._on_left_release)
        owners = []
        for tag, event in ((press, "LeftButtonPressEvent"), (release, "LeftButtonReleaseEvent")):
            on_iren = iren._observers.get(tag) == event
            owners.append((iren.interactor if on_iren else iren.style, tag))
        self._left_observers = owners

    def _on_left_press(self, _obj: Any, _event: Any) -> None:
        x, y = self.plotter.iren.get_event_position()
        self._left_press = (float(x), float(y))

    def _on_left_release(self, _obj: Any, _event: Any) -> None:
        start, self._left_press = self._left_press, None
        if start is None or not any(g.poly is not None for g in self._glyphs):
            return
        x, y = self.plotter.iren.get_event_position()
        if abs(x - start[0]) + abs(y - start[1]) > CLICK_SLOP_PX:  # a drag turned the camera
            return
        hit = self.glyph_at(float(x), float(y))
        if hit is not None:
            self._clicked(*hit)
