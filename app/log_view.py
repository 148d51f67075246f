"""The Log dock (View > Log): the app's and the worker processes' log records, live."""

from __future__ import annotations

from pathlib import Path

from PySide6.QtCore import QStandardPaths, QTimer
from PySide6.QtGui import QFontDatabase
from PySide6.QtWidgets import QLabel, QPlainTextEdit, QVBoxLayout, QWidget

from app.logs import LogHub, default_log_dir

POLL_MS = 250


def app_data_dir() -> Path:
    """Qt's AppDataLocation (e.g. ~/.local/share/ipcgrasp), or the XDG default."""
    loc = QStandardPaths.writableLocation(QStandardPaths.StandardLocation.AppDataLocation)
    return Path(loc) if loc else default_log_dir()


class LogView(QWidget):
    """Shows the hub's ring of log lines; polls it while visible (records from the worker
    processes arrive on a listener thread, so the view never touches them directly)."""

    def __init__(self, hub: LogHub, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.hub = hub
        self._count = 0
        lay = QVBoxLayout(self)
        lay.setContentsMargins(0, 0, 0, 0)
        where = hub.file_path or "no log file"
        self.file_label = QLabel(f"Log file: {where}")
        self.file_label.setTextInteractionFlags(self.file_label.textInteractionFlags())
        self.text = QPlainTextEdit()
        self.text.setReadOnly(True)
        self.text.setMaximumBlockCount(5000)
        self.text.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        lay.addWidget(self.file_label)
        lay.addWidget(self.text, 1)
        self._timer = QTimer(self)
        self._timer.setInterval(POLL_MS)
        self._timer.timeout.connect(self.refresh)
        self._timer.start()

    def refresh(self) -> None:
        """Append the lines logged since the last refresh (only while visible)."""
        if not self.isVisible():
            return
        lines, self._count = self.hub.ring.since(self._count)
        if lines:
            self.text.appendPlainText("\n".join(lines))

    def stop(self) -> None:
        """Stop polling."""
        self._timer.stop()
