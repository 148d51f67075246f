"""GUI side of the analysis worker process: debounced requests, newest answer wins."""

from __future__ import annotations

import dataclasses
import time
from typing import Any

from PySide6.QtCore import QObject, Signal

from app.worker_client import WorkerClient
from app.workers.analysis import analysis_main, prediction_models
from app.workers.messages import AnalysisJob, GraspCheck, Predictions
from engine.analytic.registry import ModelSpec

DEBOUNCE_MS = 120  # coalesce a burst of edits (typing, gizmo drags) into one request
PUMP_INTERVAL_MS = 20


class AnalysisClient(QObject):
    """Sends grasp checks / analytic predictions to one worker process and signals answers.

    A burst of requests is debounced into one; only answers to `latest_request` are signalled
    (app.worker_client.WorkerClient drops the others). A crashed process is restarted at once.
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
        self._client = WorkerClient(
            self, name, analysis_main, self._on_answer, poll_ms=PUMP_INTERVAL_MS,
            debounce_ms=DEBOUNCE_MS, prepare=self._prepare,
        )  # fmt: skip
        self._pending_key: object = None
        self._sent_object_key: object = None  # (object key, process start) last sent
        self.samples = 10
        # None: the predictions table's models (app.workers.analysis.prediction_models), read
        # at each request, so a model registered after start-up is predicted too.
        self.models = models
        self.requested_at: dict[int, float] = {}

    @property
    def latest_request(self) -> int:
        """The newest request's number (answers to others are not signalled)."""
        return self._client.latest

    def start(self) -> None:
        """Spawn the worker process if it is not running, and start polling it."""
        self._client.start()

    def shutdown(self) -> None:
        """Stop polling and the worker process."""
        self._client.shutdown(timeout_s=1.0)

    def request(
        self, obj: Any, object_key: object, grasp: Any, params: Any, seed: int,
        closing_force_n: float,
    ) -> int:  # fmt: skip
        """Queue a check + prediction of `grasp` (sent after the debounce delay)."""
        request = self._client.new_request()
        models = tuple(prediction_models()) if self.models is None else self.models
        self._pending_key = object_key
        job = AnalysisJob(
            request, obj, grasp, params, models, self.samples, seed, closing_force_n, self.check
        )
        self._client.submit(job)
        return request

    def forget(self) -> None:
        """Drop the request waiting for the debounce and make every answer still to come a
        stale one (the grasp they are about is no longer shown)."""
        self._client.forget()

    def _prepare(self, job: AnalysisJob) -> AnalysisJob:
        """The worker keeps the last object it was sent: the same object again goes as None."""
        sent = (self._pending_key, self._client.starts)
        if sent == self._sent_object_key:
            job = dataclasses.replace(job, obj=None)
        self._sent_object_key = sent
        self.requested_at[job.request] = time.perf_counter()
        return job

    def _on_answer(self, msg: object) -> None:
        if isinstance(msg, GraspCheck):
            self.grasp_checked.emit(msg.request, msg.valid, msg.reason)
        elif isinstance(msg, Predictions):
            self.predictions_ready.emit(msg.request, msg)
