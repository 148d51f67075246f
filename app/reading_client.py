"""GUI side of the reading worker: files are read in a worker process while the window stays
live, with a progress dialog and Cancel when a read takes a while.

`read(job, what)` returns the worker's answer (app.workers.messages.ObjectRead), or None when
the user cancelled (the worker is then stopped and a fresh one serves the next read). It keeps
the caller's flow in one function (read, ask the unit or the body, read again) by running a
local event loop until the answer arrives: the window repaints, timers and the other workers'
answers are served, and the modal progress dialog keeps the user from starting another open
meanwhile.
"""

from __future__ import annotations

import dataclasses
import logging

from PySide6.QtCore import QEventLoop, QObject, Qt, QTimer, Signal
from PySide6.QtWidgets import QProgressDialog, QWidget

from app.worker_client import WorkerClient
from app.workers.messages import ObjectRead
from app.workers.reading import ReadJob, read_main
from engine.errors import IpcGraspError

log = logging.getLogger(__name__)

PUMP_INTERVAL_MS = 20
SHOW_AFTER_MS = 400
"""A read that answers sooner shows no dialog (most files: a flash would only distract)."""
NICE = 5
"""Below the GUI, above the simulation and analysis workers: the user waits for this one."""


class ReadingClient(QObject):
    """Reads files in one worker process (see the module docstring)."""

    started = Signal(str)  # what is being read, once the job is sent

    def __init__(self, window: QWidget) -> None:
        super().__init__(window)
        self._window = window
        self._client = WorkerClient(
            self, "ipcgrasp-reading", read_main, self._on_answer, poll_ms=PUMP_INTERVAL_MS,
            args=lambda p: (p.inbox, p.outbox, NICE), on_died=self._died,
        )  # fmt: skip
        self._answer: ObjectRead | None = None
        self._loop: QEventLoop | None = None
        self._cancelled = False
        self._sent = False  # a job sent and not answered or cancelled yet

    @property
    def worker_pid(self) -> int | None:
        """The reading process's id (None when none runs)."""
        worker = self._client.worker
        return worker.pid if worker is not None and worker.alive() else None

    def start(self) -> None:
        """Spawn the worker now (the app does at start: the first open then waits for the
        reading only, not for a new interpreter)."""
        self._client.start()

    def shutdown(self) -> None:
        """Stop the worker (a read in progress ends as cancelled)."""
        self.cancel()
        self._client.shutdown(timeout_s=1.0)

    def cancel(self) -> None:
        """Give up the read in progress: its caller gets None, the worker is stopped."""
        if not self._sent:
            return
        self._cancelled = True
        if self._loop is not None:
            self._loop.quit()

    def read(self, job: ReadJob, what: str) -> ObjectRead | None:
        """Send `job` (its `request` is set here) and wait for its answer with the window live;
        `what` says what is read ("Reading mug.obj"). None when the user cancelled."""
        if self._loop is not None:
            raise RuntimeError("a read is already in progress")
        self._answer, self._cancelled = None, False
        job = dataclasses.replace(job, request=self._client.new_request())
        self._client.submit(job)
        self._sent = True
        self.started.emit(what)
        dialog = QProgressDialog(f"{what}…", "Cancel", 0, 0, self._window)
        dialog.setWindowTitle("ipcgrasp")
        dialog.setWindowModality(Qt.WindowModality.WindowModal)
        dialog.canceled.connect(self.cancel)
        # A busy dialog (range 0..0) never reaches the value that starts QProgressDialog's own
        # minimumDuration timer, so it is shown by this one.
        show = QTimer(self)
        show.setSingleShot(True)
        show.timeout.connect(dialog.show)
        show.start(SHOW_AFTER_MS)
        loop = QEventLoop(self)
        self._loop = loop
        try:
            if self._answer is None and not self._cancelled:
                loop.exec()
        finally:
            self._loop, self._sent = None, False
            show.stop()
            show.deleteLater()
            dialog.canceled.disconnect(self.cancel)
            shown = dialog.isVisible()
            dialog.reset()
            dialog.deleteLater()
            if shown and self._window is not None:
                # The closed dialog leaves no window active: the window's shortcuts (F5, Space,
                # Ctrl+S) would do nothing until the user clicked it.
                self._window.activateWindow()
        if self._cancelled and self._answer is None:
            log.info("%s: cancelled; stopping the reading process", what)
            self._client.shutdown(timeout_s=0.5)  # it may be deep in a read: not worth waiting
            return None
        return self._answer

    def _on_answer(self, msg: object) -> None:
        if isinstance(msg, ObjectRead):
            self._answer = msg
            if self._loop is not None:
                self._loop.quit()

    def _died(self, job: object, how: str) -> None:
        if job is None:
            return
        request = getattr(job, "request", 0)
        error = IpcGraspError(
            f"the reading process stopped ({how}) before it finished: the file may need more "
            "memory than is free; try again, or simplify the mesh"
        )
        self._on_answer(ObjectRead(request, error=error))
