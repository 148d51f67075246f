"""The GUI side of app.workers: a Qt timer that polls worker outboxes on the GUI thread."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer


class Pump(QObject):
    """Calls `poll()` every `interval_ms` on the GUI thread (no extra thread, no cross-thread
    slots); `poll` drains the outboxes, hands messages on and checks for dead workers."""

    def __init__(self, parent: QObject | None, interval_ms: int, poll: Callable[[], None]) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(poll)

    def start(self) -> None:
        """Start polling."""
        self._timer.start()

    def stop(self) -> None:
        """Stop polling."""
        self._timer.stop()

    def is_active(self) -> bool:
        """True while polling."""
        return self._timer.isActive()
