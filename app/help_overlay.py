"""Help where users look for it: the keyboard and mouse overlay (F1 or ?), generated from the
window's actions (their shortcuts are declared once, in app/menus.py) plus the keys and clicks
that are not actions (timeline keys, the 3D view's mouse)."""

from __future__ import annotations

import html
from typing import Any

from PySide6.QtCore import Qt
from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QLabel, QScrollArea, QVBoxLayout, QWidget

# Keys and clicks that are not QActions: (what, how).
OTHER_KEYS = (
    ("Timeline: play / pause", "Space"),
    ("Timeline: step one frame (Shift: 10)", "Left / Right"),
    ("Timeline: first / last frame", "Home / End"),
    ("Place jaw 0 on the object (the other jaw follows)", "right-click"),
    ("Choose a sampled or data-set grasp", "left-click its glyph"),
    ("Turn / pan / zoom the view", "left drag / middle drag / wheel"),
)


NEXT_STEPS = (
    "To start: File > Open (a mesh or a session) or the example cube; right-click the object to "
    "place a grasp, or Edit > Sample grasps; F5 simulates; File > Open data set browses a "
    "labelled data set."
)


def shortcut_rows(actions: list[QAction]) -> list[tuple[str, str]]:
    """(what, keys) of every action with a shortcut, in the order given, then OTHER_KEYS."""
    rows = []
    for a in actions:
        keys = [k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts()]
        keys = [k for k in keys if k]
        if keys:
            what = a.text().replace("&", "").replace("…", "").strip()
            rows.append((what, " or ".join(keys)))
    return rows + list(OTHER_KEYS)


class HelpOverlay(QDialog):
    """A table of the keys and clicks; F1, ? or Esc closes it again."""

    def __init__(self, parent: QWidget, rows: list[tuple[str, str]], hint: str = "") -> None:
        super().__init__(parent)
        self.setWindowTitle("ipcgrasp: keys and clicks")
        self.setModal(False)
        layout = QVBoxLayout(self)
        body = "".join(
            f"<tr><td style='padding:2px 14px 2px 0'>{html.escape(what)}</td>"
            f"<td><b>{html.escape(keys)}</b></td></tr>"
            for what, keys in rows
        )
        self.label = QLabel(
            f"<table>{body}</table>"
            + (f"<p>{html.escape(hint)}</p>" if hint else "")
            + "<p style='color:#666'>F1, ? or Esc closes this.</p>"
        )
        self.label.setTextFormat(Qt.TextFormat.RichText)
        self.label.setWordWrap(True)
        scroll = QScrollArea()
        scroll.setWidgetResizable(True)
        scroll.setWidget(self.label)
        layout.addWidget(scroll)
        self.resize(560, 620)
        self.rows = rows

    def keyPressEvent(self, event: Any) -> None:  # Qt override
        if event.key() in (Qt.Key.Key_F1, Qt.Key.Key_Question, Qt.Key.Key_Escape):
            self.close()
            return
        super().keyPressEvent(event)
