"""GUI side of the analysis worker process: debounced requests, newest answer wins."""

from __future__ import annotations

import logging
import time
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.worker_pump import Pump
from app.workers import WorkerProcess
from app.workers.analysis import analysis_main, prediction_models
from app.workers.messages import AnalysisJob, GraspCheck, Predictions
from engine.analytic.registry import ModelSpec

log = logging.getLogger(__name__)

DEBOUNCE_MS = 120  # coalesce a burst of edits (typing, gizmo drags) into one request
PUMP_INTERVAL_MS = 20


class AnalysisClient(QObject):
    """Sends grasp checks / analytic predictions to one worker process and signals answers.

    A burst of requests is debounced into one; only answers to `latest_request` matter to the
    caller. A crashed process is restarted on the next poll.
    """

    grasp_checked = Signal(int, bool, str)  # request, valid, reason
    predictions_ready = Signal(int, object)  # request, Predictions

    def __init__(
        self,
        parent: QObject | None = None,
        check: bool = True,
        models: tuple[ModelSpec, ...] | None = None,
        name: str = "ipcgrasp-analysis",
    ) -> None:
        super().__init__(parent)
        self.check = check
        self.name = name
        self._worker: WorkerProcess | None = None
        self._request = 0
        self._pending: AnalysisJob | None = None
        self._pending_key: object = None
        self._sent_object_key: object = None
        self.latest_request = 0
        self.samples = 10
        # None: the predictions table's models (app.workers.analysis.prediction_models), read
        # at each request, so a model registered after start-up is predicted too.
        self.models = models
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._send)
        self._pump = Pump(self, PUMP_INTERVAL_MS, self._drain)
        self.requested_at: dict[int, float] = {}

    def start(self) -> None:
        """Spawn the worker process if it is not running, and start polling it."""
        if self._worker is None or not self._worker.alive():
            if self._worker is not None:
                self._worker.close_queues()
            self._worker = WorkerProcess(self.name)
            self._worker.start(analysis_main, self._worker.inbox, self._worker.outbox)
            self._sent_object_key = None
        self._pump.start()

    def shutdown(self) -> None:
        """Stop polling and the worker process."""
        self._pump.stop()
        self._debounce.stop()
        if self._worker is not None:
            self._worker.stop(timeout_s=1.0)
            self._worker = None

    def request(
        self, obj: Any, object_key: object, grasp: Any, params: Any, seed: int,
        closing_force_n: float,
    ) -> int:  # fmt: skip
        """Queue a check + prediction of `grasp` (sent after the debounce delay)."""
        self._request += 1
        self.latest_request = self._request
        models = tuple(prediction_models()) if self.models is None else self.models
        self._pending = AnalysisJob(
            self._request, obj, grasp, params, models, self.samples, seed, closing_force_n,
            self.check,
        )  # fmt: skip
        self._pending_key = object_key
        self._debounce.start()
        return self._request

    def forget(self) -> None:
        """Drop the request waiting for the debounce and make every answer still to come a
        stale one (the grasp they are about is no longer shown)."""
        self._request += 1
        self.latest_request = self._request
        self._pending = None
        self._debounce.stop()

    def _send(self) -> None:
        job, self._pending = self._pending, None
        if job is None:
            return
        if self._worker is None or not self._worker.alive():
            self.start()
        assert self._worker is not None
        if self._pending_key == self._sent_object_key:
            job = AnalysisJob(job.request, None, *_rest(job))  # the worker keeps the object
        self._sent_object_key = self._pending_key
        self.requested_at[job.request] = time.perf_counter()
        self._worker.send(job)

    def _drain(self) -> None:
        if self._worker is None:
            return
        for msg in self._worker.drain():
            if isinstance(msg, GraspCheck):
                self.grasp_checked.emit(msg.request, msg.valid, msg.reason)
            elif isinstance(msg, Predictions):
                self.predictions_ready.emit(msg.request, msg)
        if not self._worker.alive():
            # A crashed analysis process must not leave the table stale forever.
            log.error(
                "analysis process %s died (%s); restarting it",
                self.name,
                self._worker.exit_description(),
            )
            self.start()


def _rest(job: AnalysisJob) -> tuple:
    return (
        job.grasp, job.params, job.models, job.samples, job.seed, job.closing_force_n, job.check,
    )  # fmt: skip
