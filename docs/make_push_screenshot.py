"""Regenerate docs/push.png: the push, on the example cube.

    xvfb-run -a -s "-screen 0 1600x1000x24" .venv/bin/python docs/make_push_screenshot.py

Simulates the default grasp's nominal trial, shows its last (hold) frame and Ctrl + drags on
the cube, down the screen, by 60 % of its size (the grip's friction 2 mu F for a drag across
the whole object): the trial runs again with the push after its hold, and the picture shows a
frame in the middle of the push, the arrow on the pushed point and the status line's verdict.
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
from screenshot_window import ROOT, grab, open_window, run_to_end, shut


def _drag(w, start: np.ndarray, end: np.ndarray) -> None:
    """Ctrl + left drag on the 3D view from world point `start` to `end`."""
    from PySide6.QtCore import QEvent, QPoint, QPointF, Qt
    from PySide6.QtGui import QMouseEvent
    from PySide6.QtWidgets import QApplication

    plotter = w.viewport.plotter
    ren = plotter.renderer

    def pos(world: np.ndarray) -> QPoint:
        ren.SetWorldPoint(*world, 1.0)
        ren.WorldToDisplay()
        x, y, _ = ren.GetDisplayPoint()
        r = plotter.devicePixelRatioF()
        return QPoint(round(x / r), round(plotter.height() - 1 - y / r))

    ctrl, left = Qt.KeyboardModifier.ControlModifier, Qt.MouseButton.LeftButton
    none = Qt.MouseButton.NoButton
    for kind, p, button, held in (
        (QEvent.Type.MouseButtonPress, pos(start), left, left),
        (QEvent.Type.MouseMove, pos(end), none, left),
        (QEvent.Type.MouseButtonRelease, pos(end), left, none),
    ):
        event = QMouseEvent(kind, QPointF(p), QPointF(plotter.mapToGlobal(p)), button, held, ctrl)
        QApplication.sendEvent(plotter, event)


def main() -> int:
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "docs" / "push.png"
    app, w = open_window(1500, 900)
    from app.smoke_test import wait_until

    w.editing.edit_param("n_trials", 1)
    run_to_end(app, w)
    rec = w.doc.run.trials[0]
    w.scene.seek(len(rec.frames) - 1)
    wait_until(app, lambda: w.timeline.index == len(rec.frames) - 1, 10, "the hold frame")
    w.viewport.render_now()
    f = rec.frames[-1]
    com = np.asarray(w.doc.run.obj.center_of_mass)
    start = f.object_pose[:3, :3] @ com + f.object_pose[:3, 3]
    cam = w.viewport.plotter.renderer.GetActiveCamera()
    look = np.subtract(cam.GetFocalPoint(), cam.GetPosition())
    up = np.asarray(cam.GetViewUp(), dtype=float)
    up -= look * (up @ look) / (look @ look)
    size = float(np.ptp(np.asarray(w.doc.obj.vertices), axis=0).max())
    w.doc.dirty = False
    _drag(w, start, start - 0.6 * size * up / np.linalg.norm(up))
    wait_until(app, lambda: not w.sim.is_running(), 600, "the push")
    pushed = w.doc.run.trials[0]
    first = next(i for i, fr in enumerate(pushed.frames) if fr.phase == "push")
    w.scene.seek(first + 10)
    status = w.status_label.text()
    wait_until(app, lambda: w.viewport.push_arrow.drawn, 10, "the push's arrow")
    w.status_label.setText(status)
    grab(app, w, out)
    print(f"saved {out}: {status}")
    w.doc.dirty = False
    shut(w)
    return 0


if __name__ == "__main__":
    sys.exit(main())
