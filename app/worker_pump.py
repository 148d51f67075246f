"""The GUI side of app.workers: Qt timers that poll worker outboxes and debounce requests on
the GUI thread (the one place the worker clients touch Qt)."""

from __future__ import annotations

from collections.abc import Callable

from PySide6.QtCore import QObject, QTimer


class Pump(QObject):
    """Calls `poll()` every `interval_ms` on the GUI thread (no extra thread, no cross-thread
    slots); `poll` drains the outboxes, hands messages on and checks for dead workers.

    With `single_shot` it is a debounce instead: `poll()` runs once, `interval_ms` after the
    last `start()` (a burst of starts is one call), and `stop()` drops a call still to come."""

    def __init__(
        self,
        parent: QObject | None,
        interval_ms: int,
        poll: Callable[[], None],
        single_shot: bool = False,
    ) -> None:
        super().__init__(parent)
        self._timer = QTimer(self)
        self._timer.setSingleShot(single_shot)
        self._timer.setInterval(interval_ms)
        self._timer.timeout.connect(poll)

    def start(self) -> None:
        """Start polling (restart the delay of a single shot)."""
        self._timer.start()

    def stop(self) -> None:
        """Stop polling (drop a single shot still to come)."""
        self._timer.stop()

    def is_active(self) -> bool:
        """True while polling (while a single shot is to come)."""
        return self._timer.isActive()
