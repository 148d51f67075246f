"""Object and grasp dock: stable pose switcher, numeric grasp fields, validity and tools."""

from __future__ import annotations

import html
import math

import numpy as np
from PySide6.QtCore import QPointF, QSize, Qt, Signal
from PySide6.QtGui import QColor, QIcon, QPainter, QPainterPath, QPen, QPixmap, QPolygonF
from PySide6.QtWidgets import (
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.model.pose_choices import PoseChoice
from app.widgets.unit_spinbox import unit_spinbox
from engine.grasp.grasp import Grasp

THUMBNAIL_PX = 48
POSE_LIST_TIP = (
    "How the object can rest on the ground, most probable first: a side view, the probability "
    "of landing so (quasi-static drop) and the height and footprint. Poses that differ only by "
    "a turn about the vertical are one line. 'as in the file': the file's own orientation. The "
    "choice is remembered for the file; changing the pose resets the grasp to the default."
)


def pose_thumbnail(silhouette: np.ndarray, scale_m: float, size: int = THUMBNAIL_PX) -> QPixmap:
    """A side view of the object resting in a pose: `silhouette` (PoseChoice.silhouette,
    metres) filled on a ground line, `scale_m` metres across the picture (the same for every
    pose of an object, so a lying bottle looks lower than a standing one)."""
    pixmap = QPixmap(size, size)
    pixmap.fill(Qt.GlobalColor.transparent)
    painter = QPainter(pixmap)
    painter.setRenderHint(QPainter.RenderHint.Antialiasing)
    margin, ground = 3.0, size - 4.0
    k = (size - 2 * margin) / max(scale_m, 1e-12)
    path = QPainterPath()
    path.setFillRule(Qt.FillRule.WindingFill)  # counter-clockwise triangles: their union
    for tri in np.asarray(silhouette, dtype=np.float64):
        path.addPolygon(QPolygonF([QPointF(size / 2 + k * x, ground - k * z) for x, z in tri]))
        path.closeSubpath()
    painter.setPen(Qt.PenStyle.NoPen)
    painter.setBrush(QColor("#4a6a8a"))
    painter.drawPath(path)
    painter.setPen(QPen(QColor("#555555"), 1.5))
    painter.drawLine(QPointF(1.0, ground + 0.75), QPointF(size - 1.0, ground + 0.75))
    painter.end()
    return pixmap


class GraspDock(QWidget):
    """Object info, stable-pose list, grasp fields (centre mm, axis, approach angle) and the grasp's validity."""

    pose_selected = Signal(int)
    grasp_edited = Signal(object)  # Grasp
    default_requested = Signal()
    gizmo_toggled = Signal(bool)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._updating = False
        outer = QVBoxLayout(self)
        outer.setContentsMargins(6, 6, 6, 6)

        obj = QGroupBox("Object")
        form = QFormLayout(obj)
        self.name_label = QLabel("")
        self.name_label.setWordWrap(True)
        form.addRow("Name", self.name_label)
        self.info_label = QLabel("")
        form.addRow("Size, mass", self.info_label)
        self.pose_combo = self._pose_combo()
        self._show_pose_tip(-1)
        form.addRow("Resting pose", self.pose_combo)
        outer.addWidget(obj)

        grasp = QGroupBox("Grasp (resting frame)")
        form = QFormLayout(grasp)
        tip_c = "Jaw centre: midpoint between the two jaw contact faces, in mm (z up, origin at the centre of mass on the ground)."
        self.center = [unit_spinbox(-1000, 1000, 0.5, 2, " mm", tip_c) for _ in range(3)]
        row = QHBoxLayout()
        for s in self.center:
            row.addWidget(s)
        form.addRow("Centre", row)
        tip_a = "Closing axis (any length; normalised): jaw 0 moves along +axis."
        self.axis = [unit_spinbox(-1.0, 1.0, 0.05, 3, "", tip_a) for _ in range(3)]
        row = QHBoxLayout()
        for s in self.axis:
            row.addWidget(s)
        form.addRow("Axis", row)
        self.angle = unit_spinbox(
            -180.0,
            180.0,
            5.0,
            1,
            "°",
            "Approach angle about the closing axis; 0 approaches from as straight above as the axis allows.",
        )
        self.angle.setWrapping(True)
        form.addRow("Approach", self.angle)
        self.width_label = QLabel("")
        form.addRow("Width", self.width_label)
        self.status_label = QLabel("")
        self.status_label.setWordWrap(True)
        form.addRow("Status", self.status_label)
        buttons = QHBoxLayout()
        self.default_button = QPushButton("Default grasp")
        self.default_button.setToolTip(
            "Top-down grasp through the centre of mass along the narrowest horizontal extent"
        )
        self.gizmo_button = QPushButton("Gizmo")
        self.gizmo_button.setCheckable(True)
        self.gizmo_button.setToolTip(
            "Show a 3D gizmo on the gripper: drag the arrows to move it, the rings to rotate it (the ring about the closing axis sets the approach angle)"
        )
        buttons.addWidget(self.default_button)
        buttons.addWidget(self.gizmo_button)
        form.addRow(buttons)
        hint = QLabel(
            "Right-click the object to place jaw 0 there; the other jaw goes where the surface "
            "normal leaves the object within the gripper's opening."
        )
        hint.setWordWrap(True)
        hint.setStyleSheet("color: #555;")
        form.addRow(hint)
        outer.addWidget(grasp)
        outer.addStretch(1)

        self.pose_combo.currentIndexChanged.connect(self._on_pose)
        for s in (*self.center, *self.axis, self.angle):
            s.valueChanged.connect(self._on_field)
        self.default_button.clicked.connect(self.default_requested)
        self.gizmo_button.toggled.connect(self.gizmo_toggled)

    def _pose_combo(self) -> QComboBox:
        """The resting-pose list: a thumbnail per line; closed, it keeps the dock narrow,
        open, its list shows whole descriptions."""
        combo = QComboBox()
        combo.currentIndexChanged.connect(self._show_pose_tip)
        combo.setIconSize(QSize(THUMBNAIL_PX, THUMBNAIL_PX))
        combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        combo.setMinimumContentsLength(16)
        combo.view().setTextElideMode(Qt.TextElideMode.ElideNone)
        return combo

    def _show_pose_tip(self, row: int) -> None:
        """The closed list's tooltip: the whole current line (the dock may cut it), then what
        the list is."""
        line = self.pose_combo.itemText(row) if row >= 0 else ""
        self.pose_combo.setToolTip((f"{line}\n\n" if line else "") + POSE_LIST_TIP)

    def _on_pose(self, row: int) -> None:
        if not self._updating and row >= 0:
            self.pose_selected.emit(int(self.pose_combo.itemData(row)))

    def _on_field(self) -> None:
        if self._updating:
            return
        axis = np.array([s.value() for s in self.axis])
        if np.linalg.norm(axis) < 1e-9:
            self.status_label.setText("<span style='color:#c0392b'>the axis cannot be zero</span>")
            return
        g = Grasp(
            np.array([s.value() for s in self.center]) * 1e-3,
            axis,
            math.radians(self.angle.value()),
        )
        self.grasp_edited.emit(g)

    def set_object(
        self, name: str, info: str, choices: list[PoseChoice], selected: int | None
    ) -> None:
        """Show the object's name, size and mass, and its pose list: one line per group of
        look-alike poses (a side view, the probability, the description), the item's data its
        stable-pose index; line `selected` is current (None: none)."""
        self._updating = True
        try:
            self.name_label.setText(name)
            self.info_label.setText(info)
            self.pose_combo.clear()
            pictures = [c.silhouette.reshape(-1, 2) for c in choices if c.silhouette.size]
            scale = max((float(np.ptp(p, axis=0).max()) for p in pictures), default=1.0)
            for c in choices:
                icon = QIcon(pose_thumbnail(c.silhouette, scale))
                text = f"{c.probability_text()}  {c.group.description()}"
                self.pose_combo.addItem(icon, text, c.group.index)
                n = len(c.group.members)
                merged = f", merging {n} look-alike poses" if n > 1 else ""
                self.pose_combo.setItemData(
                    self.pose_combo.count() - 1,
                    f"stable pose {c.group.index}{merged}",
                    Qt.ItemDataRole.ToolTipRole,
                )
            self.pose_combo.setCurrentIndex(-1 if selected is None else selected)
        finally:
            self._updating = False

    def set_grasp(self, grasp: Grasp) -> None:
        """Put `grasp` in the fields without emitting grasp_edited."""
        self._updating = True
        try:
            for s, v in zip(self.center, grasp.center * 1e3, strict=True):
                s.setValue(float(v))
            for s, v in zip(self.axis, grasp.axis, strict=True):
                s.setValue(float(v))
            angle = math.degrees(grasp.approach_angle_rad)
            self.angle.setValue((angle + 180.0) % 360.0 - 180.0)
        finally:
            self._updating = False

    def set_status(
        self,
        valid: bool | None,
        reason: str,
        width_mm: float | None,
        pending: str = "checking…",
        warning: str = "",
    ) -> None:
        """Show the grasp's validity (None: `pending`, e.g. being checked) with the reason and
        jaw width, and a `warning` about a valid grasp (the default grasp cannot hold)."""
        self.width_label.setText("" if width_mm is None else f"{width_mm:.1f} mm between contacts")
        if valid is None:
            text = pending
        elif valid:
            text = "<span style='color:#1e8449'>valid</span>"
        else:
            text = f"<span style='color:#c0392b'>invalid: {reason}</span>"
        if warning:
            text += f"<br><span style='color:#b9770e'>warning: {html.escape(warning, quote=False)}</span>"
        self.status_label.setText(text)
