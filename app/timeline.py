"""Timeline: scrubber with phase markers, play/pause, step, Home/End, speed and loop.

Playback advances in simulated time (speed x real time) on a QTimer; `follow_live` keeps the
scrubber on the newest frame while a run streams, until the user moves it.
"""

from __future__ import annotations

import time

from PySide6.QtCore import QPointF, QRectF, Qt, QTimer, Signal
from PySide6.QtGui import QColor, QPainter, QPaintEvent, QPen
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QLabel,
    QSlider,
    QStyle,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from app.model.trial_series import TrialSeries

PHASE_COLORS = {"squeeze": "#5dade2", "lift": "#58d68d", "hold": "#f5b041", "push": "#af7ac5"}
SPEEDS = (0.05, 0.1, 0.25, 0.5, 1.0)
PLAY_INTERVAL_MS = 33


class PhaseBar(QWidget):
    """Coloured phase segments and event ticks drawn along the scrubber."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.series = TrialSeries.empty()
        self.setFixedHeight(22)

    def paintEvent(self, _event: QPaintEvent) -> None:
        p = QPainter(self)
        n = len(self.series)
        w = self.width() - 16  # the slider's groove is inset by about its handle
        x0 = 8
        if n == 0:
            p.end()
            return
        seg = w / max(n - 1, 1)
        for i, phase in enumerate(self.series.phase):
            x = x0 + (i - 0.5) * seg
            p.fillRect(QRectF(x, 2, seg + 1, 6), QColor(PHASE_COLORS.get(phase, "#cccccc")))
        p.setPen(QPen(QColor("#2c3e50"), 1))
        font = p.font()
        font.setPointSizeF(max(6.5, font.pointSizeF() * 0.75))
        p.setFont(font)
        last_x = -1e9
        metrics = p.fontMetrics()
        for index, label in self.series.markers():
            x = x0 + index * seg
            p.drawLine(QPointF(x, 0), QPointF(x, 10))
            width = metrics.horizontalAdvance(label)
            tx = x + 2 if x + 2 + width < self.width() else x - 2 - width  # keep it inside
            if tx - last_x > 4:  # skip labels that would overlap the previous one
                p.drawText(QPointF(tx, 20), label)
                last_x = tx + width
        p.end()


class Timeline(QWidget):
    """Scrubber with the phase bar, play/pause, step, speed and loop over a trial's frames."""

    frame_changed = Signal(int)

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.series = TrialSeries.empty()
        self.follow_live = True
        outer = QVBoxLayout(self)
        outer.setContentsMargins(4, 2, 4, 2)
        outer.setSpacing(0)
        self.slider = QSlider(Qt.Orientation.Horizontal)
        self.slider.setRange(0, 0)
        self.slider.setToolTip("Scrub through the frames (Left/Right step, Shift x10, Home/End)")
        self.phase_bar = PhaseBar()
        outer.addWidget(self.slider)
        outer.addWidget(self.phase_bar)
        row = QHBoxLayout()
        outer.addLayout(row)

        style = self.style()

        def button(icon: QStyle.StandardPixmap, tip: str) -> QToolButton:
            b = QToolButton()
            b.setIcon(style.standardIcon(icon))
            b.setToolTip(tip)
            b.setFocusPolicy(Qt.FocusPolicy.NoFocus)
            row.addWidget(b)
            return b

        sp = QStyle.StandardPixmap
        self.home_button = button(sp.SP_MediaSkipBackward, "First frame (Home)")
        self.back_button = button(
            sp.SP_MediaSeekBackward, "Previous frame (Left; Shift+Left: 10 frames)"
        )
        self.play_button = button(sp.SP_MediaPlay, "Play / pause (Space)")
        self.play_button.setCheckable(True)
        self.next_button = button(
            sp.SP_MediaSeekForward, "Next frame (Right; Shift+Right: 10 frames)"
        )
        self.end_button = button(sp.SP_MediaSkipForward, "Last frame (End)")
        self.speed_combo = QComboBox()
        for s in SPEEDS:
            self.speed_combo.addItem(f"{s:g}x", s)
        self.speed_combo.setCurrentIndex(1)
        self.speed_combo.setToolTip("Playback speed relative to simulated time")
        self.speed_combo.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        row.addWidget(self.speed_combo)
        self.loop_box = QCheckBox("loop")
        self.loop_box.setToolTip("Start again at the first frame after the last")
        self.loop_box.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        row.addWidget(self.loop_box)
        self.label = QLabel("no frames")
        self.label.setMinimumWidth(260)
        row.addWidget(self.label, 1)

        self._timer = QTimer(self)
        self._timer.setInterval(PLAY_INTERVAL_MS)
        self._timer.timeout.connect(self._tick)
        self._play_clock = 0.0
        self._play_time = 0.0

        self.slider.valueChanged.connect(self._on_slider)
        self.slider.sliderPressed.connect(lambda: setattr(self, "follow_live", False))
        self.home_button.clicked.connect(self.first)
        self.end_button.clicked.connect(self.last)
        self.back_button.clicked.connect(lambda: self.step(-1))
        self.next_button.clicked.connect(lambda: self.step(1))
        self.play_button.toggled.connect(self._on_play)

    # --- data ---------------------------------------------------------------------------------
    def set_series(self, series: TrialSeries, keep_position: bool = False) -> None:
        """Show a trial's frames (a run streaming into `series` calls `frames_added`)."""
        self.series = series
        self.phase_bar.series = series
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, len(series) - 1))
        if not keep_position:
            self.slider.setValue(max(0, len(series) - 1) if self.follow_live else 0)
        self.slider.blockSignals(False)
        self.phase_bar.update()
        self._update_label()
        self.frame_changed.emit(self.slider.value() if len(series) else -1)

    def frames_added(self) -> None:
        """The series grew: extend the range (and follow the live frame)."""
        n = len(self.series)
        self.slider.blockSignals(True)
        self.slider.setRange(0, max(0, n - 1))
        self.slider.blockSignals(False)
        self.phase_bar.update()
        if self.follow_live and n:
            self.slider.setValue(n - 1)  # emits frame_changed
        else:
            self._update_label()

    @property
    def index(self) -> int:
        """The current frame index (-1 without frames)."""
        return self.slider.value() if len(self.series) else -1

    # --- navigation ---------------------------------------------------------------------------
    def seek(self, index: int) -> None:
        """Go to frame `index` (clamped); following live only at the last frame."""
        n = len(self.series)
        if n == 0:
            return
        index = max(0, min(n - 1, index))
        self.follow_live = index == n - 1
        self.slider.setValue(index)

    def step(self, delta: int) -> None:
        """Move `delta` frames."""
        self.seek(self.index + delta)

    def first(self) -> None:
        """Go to the first frame."""
        self.seek(0)

    def last(self) -> None:
        """Go to the last frame."""
        self.seek(len(self.series) - 1)

    def toggle_play(self) -> None:
        """Play or pause."""
        self.play_button.toggle()

    def is_playing(self) -> bool:
        """True while playing."""
        return self._timer.isActive()

    def _on_play(self, playing: bool) -> None:
        sp = QStyle.StandardPixmap
        self.play_button.setIcon(
            self.style().standardIcon(sp.SP_MediaPause if playing else sp.SP_MediaPlay)
        )
        if playing and len(self.series):
            if self.index >= len(self.series) - 1:
                self.slider.setValue(0)
            self._play_time = self.series.time_s[self.index]
            self._play_clock = time.perf_counter()
            self.follow_live = False
            self._timer.start()
        else:
            self._timer.stop()
            if playing:
                self.play_button.setChecked(False)

    def _tick(self) -> None:
        t = self.series.time_s
        if not t:
            return
        now = time.perf_counter()
        speed = float(self.speed_combo.currentData())
        self._play_time += (now - self._play_clock) * speed
        self._play_clock = now
        index = self.index
        while index + 1 < len(t) and t[index + 1] <= self._play_time:
            index += 1
        if index >= len(t) - 1 and self._play_time > t[-1]:
            if self.loop_box.isChecked():
                index, self._play_time = 0, t[0]
            else:
                self.slider.setValue(len(t) - 1)
                self.play_button.setChecked(False)
                return
        if index != self.index:
            self.slider.setValue(index)

    def _on_slider(self, value: int) -> None:
        self._update_label()
        self.frame_changed.emit(value if len(self.series) else -1)

    def _update_label(self) -> None:
        n = len(self.series)
        if n == 0:
            self.label.setText("no frames")
            return
        i = self.index
        live = "  ● live" if self.follow_live else ""
        self.label.setText(
            f"frame {i + 1}/{n}   t = {self.series.time_s[i]:.3f} s   {self.series.phase[i]}{live}"
        )
