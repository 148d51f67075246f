"""Synchronized time plots (Psi1/Psi2, grip force per pad, object height) drawn with QPainter.

pyqtgraph is not a dependency and QtCharts is in the large PySide6-Addons wheel, so three small
panels are painted directly. A vertical cursor marks the current frame; phase markers are
dashed lines; clicking or dragging seeks.
"""

from __future__ import annotations

import math

import numpy as np
from PySide6.QtCore import QPointF, QRectF, Qt, Signal
from PySide6.QtGui import QColor, QFont, QMouseEvent, QPainter, QPaintEvent, QPen, QPolygonF
from PySide6.QtWidgets import QSizePolicy, QWidget

from app.model.trial_series import TrialSeries

PAD_COLORS = ("#1f77b4", "#d62728")
PINNED_ALPHA = 110  # a pinned trial's curves: the same colours, dashed and lighter
PANELS = (
    ("Ψ (J)", ("psi1", "psi2"), True),
    ("grip force (N)", ("force1", "force2"), False),
    ("object height (mm)", ("height_mm",), False),
)
_MARGIN_L, _MARGIN_R, _GAP = 64, 10, 6


def _ticks(lo: float, hi: float, n: int = 3) -> list[float]:
    if not (math.isfinite(lo) and math.isfinite(hi)) or hi <= lo:
        return [lo]
    step = 10 ** math.floor(math.log10((hi - lo) / n))
    for m in (1, 2, 5, 10):
        if (hi - lo) / (m * step) <= n:
            step *= m
            break
    start = math.ceil(lo / step) * step
    return [start + i * step for i in range(int((hi - start) / step) + 1)]


class TimePlots(QWidget):
    """Psi, grip forces and object height over time, with a cursor at the current frame; click to seek."""

    seek = Signal(int)  # frame index

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.series = TrialSeries.empty()
        self.pinned: TrialSeries | None = None  # a trial pinned for comparison, drawn dashed
        self.pinned_label = ""
        self.current = -1
        # While a run streams, the owner repaints the plots at its own pace (`throttled`):
        # set_series / set_current only mark them `stale` (each repaint also recomposes the
        # window around the OpenGL view, so it goes with the view's own repaint).
        self.throttled = False
        self.stale = False
        self.setMinimumHeight(180)
        self.setSizePolicy(QSizePolicy.Policy.Expanding, QSizePolicy.Policy.Expanding)
        self.setToolTip("Click or drag to move to a frame")

    def set_series(self, series: TrialSeries) -> None:
        """Plot `series` (it grows as frames stream in; call update())"""
        self.series = series
        self._changed()

    def set_pinned(self, series: TrialSeries | None, label: str = "") -> None:
        """Draw `series` (a pinned trial) dashed behind the shown one (None: stop)."""
        self.pinned = series
        self.pinned_label = label
        self.update()

    def set_current(self, index: int) -> None:
        """Move the cursor to frame `index` (-1: none)."""
        if index != self.current:
            self.current = index
            self._changed()

    def _changed(self) -> None:
        if self.throttled:
            self.stale = True
        else:
            self.update()

    def refresh(self) -> None:
        """Repaint now if anything changed while throttled."""
        self.stale = False
        self.update()

    # --- geometry -----------------------------------------------------------------------------
    def _time_range(self) -> tuple[float, float]:
        t = list(self.series.time_s)
        if self.pinned is not None and len(self.pinned):
            t += [self.pinned.time_s[0], self.pinned.time_s[-1]]
        if not t:
            return 0.0, 1.0
        lo, hi = min(t), max(t)
        return (lo, hi if hi > lo else lo + 0.01)

    def _xs(self, t: np.ndarray) -> np.ndarray:
        """Widget x of the times t."""
        lo, hi = self._time_range()
        w = self.width() - _MARGIN_L - _MARGIN_R
        return _MARGIN_L + (t - lo) / (hi - lo) * w

    def _x(self, t: float) -> float:
        """Widget x of time t."""
        return float(self._xs(np.asarray(t, dtype=float)))

    def _index_at(self, x: float) -> int:
        t = self.series.time_s
        if not t:
            return -1
        lo, hi = self._time_range()
        w = max(1, self.width() - _MARGIN_L - _MARGIN_R)
        target = lo + (x - _MARGIN_L) / w * (hi - lo)
        return int(np.argmin(np.abs(np.asarray(t) - target)))

    def mousePressEvent(self, event: QMouseEvent) -> None:
        i = self._index_at(event.position().x())
        if i >= 0:
            self.seek.emit(i)

    def mouseMoveEvent(self, event: QMouseEvent) -> None:
        if event.buttons() & Qt.MouseButton.LeftButton:
            self.mousePressEvent(event)

    # --- painting -----------------------------------------------------------------------------
    def paintEvent(self, _event: QPaintEvent) -> None:
        p = QPainter(self)
        p.setRenderHint(QPainter.RenderHint.Antialiasing)
        p.fillRect(self.rect(), QColor("#ffffff"))
        font = QFont(self.font())
        font.setPointSizeF(max(7.0, font.pointSizeF() * 0.85))
        p.setFont(font)
        h = self.height() - 18  # room for the time axis labels
        panel_h = (h - _GAP * (len(PANELS) - 1)) / len(PANELS)
        for k, (title, keys, log) in enumerate(PANELS):
            top = k * (panel_h + _GAP)
            rect = QRectF(_MARGIN_L, top + 2, self.width() - _MARGIN_L - _MARGIN_R, panel_h - 4)
            self._panel(p, rect, title, keys, log)
        if len(self.series) == 0:
            p.setPen(QColor("#777777"))
            p.drawText(
                QRectF(_MARGIN_L, 0, self.width() - _MARGIN_L - _MARGIN_R, h),
                Qt.AlignmentFlag.AlignCenter,
                "No frames yet: press Simulate (F5), or pick a trial in the Runs table",
            )
        lo, hi = self._time_range()
        p.setPen(QColor("#444444"))
        for t in _ticks(lo, hi, 6):
            p.drawText(QPointF(self._x(t) - 12, self.height() - 4), f"{t:.2f}")
        p.drawText(QPointF(self.width() - _MARGIN_R - 30, self.height() - 4), "t (s)")
        p.end()

    def _panel(self, p: QPainter, rect: QRectF, title: str, keys: tuple, log: bool) -> None:
        p.setPen(QPen(QColor("#c8ccd2"), 1))
        p.drawRect(rect)
        p.setPen(QColor("#333333"))
        p.drawText(QPointF(rect.left() + 6, rect.top() + 13), title)
        s = self.series
        if len(s) == 0:
            return
        t = s.array("time_s")
        ys = [s.array(k) for k in keys]
        pin = self.pinned if self.pinned is not None and len(self.pinned) else None
        pin_t = pin.array("time_s") if pin is not None else np.zeros(0)
        pin_ys = [pin.array(k) for k in keys] if pin is not None else []
        if log:
            ys = [np.log10(np.maximum(y, 1e-16)) for y in ys]
            pin_ys = [np.log10(np.maximum(y, 1e-16)) for y in pin_ys]
        finite = np.concatenate([y[np.isfinite(y)] for y in [*ys, *pin_ys]])
        if finite.size == 0:
            return
        lo, hi = float(finite.min()), float(finite.max())
        if log:
            lo = max(lo, hi - 6.0)  # six decades are plenty; the approach is ~0
        if hi - lo < 1e-12:
            lo, hi = lo - 0.5, hi + 0.5
        pad = 0.08 * (hi - lo)
        lo, hi = lo - pad, hi + pad

        def ys_of(v: np.ndarray) -> np.ndarray:
            return rect.bottom() - (np.clip(v, lo, hi) - lo) / (hi - lo) * rect.height()

        def y_of(v: float) -> float:
            return float(ys_of(np.asarray(v, dtype=float)))

        p.setPen(QColor("#666666"))
        for v in _ticks(lo, hi, 2):
            label = f"1e{v:.0f}" if log else f"{v:.3g}"
            p.drawText(
                QRectF(0, y_of(v) - 8, _MARGIN_L - 6, 16),
                Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter,
                label,
            )
        # Phase markers.
        p.setPen(QPen(QColor("#9aa3ad"), 1, Qt.PenStyle.DashLine))
        for index, _label in s.markers():
            x = self._x(t[index])
            p.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))
        curves = [(pin_t, y, j, True) for j, y in enumerate(pin_ys)]
        curves += [(t, y, j, False) for j, y in enumerate(ys)]
        for times, y, j, pinned in curves:
            xs, py = self._xs(times), ys_of(y)
            color = QColor(PAD_COLORS[j] if len(ys) > 1 else "#2c3e50")
            if pinned:
                color.setAlpha(PINNED_ALPHA)
            pen = QPen(color, 1.6, Qt.PenStyle.DashLine if pinned else Qt.PenStyle.SolidLine)
            p.setPen(pen)
            # One polyline per finite run (a NaN breaks the curve).
            finite = np.isfinite(y)
            edges = np.flatnonzero(np.diff(np.r_[0, finite.astype(np.int8), 0]))
            for a, b in zip(edges[::2], edges[1::2], strict=True):
                p.drawPolyline(
                    QPolygonF(
                        [
                            QPointF(u, v)
                            for u, v in zip(xs[a:b].tolist(), py[a:b].tolist(), strict=True)
                        ]
                    )
                )
        if len(ys) > 1:
            for j, name in enumerate(("pad 1", "pad 2")):
                p.setPen(QColor(PAD_COLORS[j]))
                p.drawText(QPointF(rect.right() - 90 + 45 * j, rect.top() + 12), name)
        if pin is not None:
            p.setPen(QColor("#777777"))
            p.drawText(QPointF(rect.left() + 130, rect.top() + 12), f"dashed: {self.pinned_label}")
        if 0 <= self.current < len(t):
            x = self._x(t[self.current])
            p.setPen(QPen(QColor("#e67e22"), 1.5))
            p.drawLine(QPointF(x, rect.top()), QPointF(x, rect.bottom()))
