"""The push gesture in the 3D view: Ctrl + left drag on the object (app/controllers/push.py
decides what it does). Qt sees the mouse before VTK: the events of a push never reach the
camera's interactor style, which would spin the view on a Ctrl + left drag. GUI thread only."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QEvent, QObject, Qt
from PySide6.QtGui import QKeyEvent, QMouseEvent
from pyvistaqt import QtInteractor

from app.view_interaction import ObjectPicker


class PushGesture(QObject):
    """Reports a drag that started on the object with Ctrl held: `allowed()` is asked at the
    press (False: the press is swallowed, the caller said why), then `dragged(start, end)`
    (world points, m) while the mouse moves, `released(point, start, end)` (`point` on the
    object in its resting frame) at the release, `cancelled()` on Esc."""

    def __init__(
        self,
        plotter: QtInteractor,
        picker: ObjectPicker,
        allowed: Callable[[], bool],
        dragged: Callable[[np.ndarray, np.ndarray], None],
        released: Callable[[np.ndarray, np.ndarray, np.ndarray], None],
        cancelled: Callable[[], None],
    ) -> None:
        super().__init__(plotter)
        self.plotter = plotter
        self.picker = picker
        self.allowed, self.dragged, self.released = allowed, dragged, released
        self.cancelled = cancelled
        self._start: tuple[np.ndarray, np.ndarray, float] | None = None  # world, rest, depth
        plotter.installEventFilter(self)

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:  # Qt override
        t = event.type()
        if t == QEvent.Type.MouseButtonPress and isinstance(event, QMouseEvent):
            return self._press(event)
        if self._start is None:
            return False
        if t == QEvent.Type.MouseMove and isinstance(event, QMouseEvent):
            self.dragged(self._start[0], self._world_at(event))
            return True
        if t == QEvent.Type.MouseButtonRelease and isinstance(event, QMouseEvent):
            if event.button() == Qt.MouseButton.LeftButton:
                end = self._world_at(event)
                world, rest, _ = self._start
                self._start = None
                self.released(rest, world, end)
            return True
        if t == QEvent.Type.KeyPress and isinstance(event, QKeyEvent):
            if event.key() == Qt.Key.Key_Escape:
                self._start = None
                self.cancelled()
                return True
        return False

    def _press(self, event: QMouseEvent) -> bool:
        ctrl = bool(event.modifiers() & Qt.KeyboardModifier.ControlModifier)
        if event.button() != Qt.MouseButton.LeftButton or not ctrl:
            return False
        x, y = self._display(event)
        hit = self.picker.pick_world(x, y, self.plotter.renderer)
        if hit is None:
            return False  # off the object: the camera's Ctrl + drag, as before
        if not self.allowed():
            return True
        world, rest = hit
        ren = self.plotter.renderer
        ren.SetWorldPoint(*world, 1.0)
        ren.WorldToDisplay()
        self._start = (world, rest, float(ren.GetDisplayPoint()[2]))
        return True

    def _display(self, event: QMouseEvent) -> tuple[float, float]:
        """VTK display pixel (origin bottom left) of a Qt mouse event."""
        ratio = self.plotter.devicePixelRatioF()
        pos = event.position()
        return (pos.x() * ratio, (self.plotter.height() - pos.y() - 1) * ratio)

    def _world_at(self, event: QMouseEvent) -> np.ndarray:
        """The world point under the cursor at the depth of the press (the plane through the
        pushed point facing the camera)."""
        assert self._start is not None
        x, y = self._display(event)
        ren = self.plotter.renderer
        ren.SetDisplayPoint(x, y, self._start[2])
        ren.DisplayToWorld()
        w = np.array(ren.GetWorldPoint(), dtype=float)
        return w[:3] / w[3]
