"""GUI side of the analysis worker: debounced requests, newest answer wins."""

from __future__ import annotations

import multiprocessing as mp
import queue
import time

from PySide6.QtCore import QObject, QTimer, Signal

from app.analysis_worker import ANALYTIC_MODELS, analysis_main
from app.worker_messages import AnalysisJob, GraspCheck, Predictions

DEBOUNCE_MS = 120  # coalesce a burst of edits (typing, gizmo drags) into one request


class AnalysisController(QObject):
    grasp_checked = Signal(int, bool, str)  # request, valid, reason
    predictions_ready = Signal(int, object)  # request, Predictions

    def __init__(
        self,
        parent: QObject | None = None,
        check: bool = True,
        models: tuple[str, ...] = ANALYTIC_MODELS,
        name: str = "ipcgrasp-analysis",
    ) -> None:
        super().__init__(parent)
        self.check = check
        self.name = name
        self._ctx = mp.get_context("spawn")
        self._inbox = self._ctx.Queue()
        self._outbox = self._ctx.Queue()
        self._proc = None
        self._request = 0
        self._pending: AnalysisJob | None = None
        self._sent_object_key: object = None
        self.latest_request = 0
        self.samples = 10
        self.models: tuple[str, ...] = models
        self._debounce = QTimer(self)
        self._debounce.setSingleShot(True)
        self._debounce.setInterval(DEBOUNCE_MS)
        self._debounce.timeout.connect(self._send)
        self._pump = QTimer(self)
        self._pump.setInterval(20)
        self._pump.timeout.connect(self._drain)
        self.requested_at: dict[int, float] = {}

    def start(self) -> None:
        if self._proc is None or not self._proc.is_alive():
            self._proc = self._ctx.Process(
                target=analysis_main, args=(self._inbox, self._outbox), daemon=True,
                name=self.name,
            )  # fmt: skip
            self._proc.start()
            self._sent_object_key = None
        self._pump.start()

    def shutdown(self) -> None:
        self._pump.stop()
        self._debounce.stop()
        if self._proc is not None:
            try:
                self._inbox.put_nowait(None)
            except (ValueError, OSError, queue.Full):
                pass
            self._proc.join(1.0)
            if self._proc.is_alive():
                self._proc.terminate()
                self._proc.join(1.0)
            self._proc = None
        for q in (self._inbox, self._outbox):
            q.cancel_join_thread()
            q.close()

    def request(self, obj, object_key, grasp, params, seed: int, closing_force_n: float) -> int:
        """Queue a check + prediction of `grasp` (sent after the debounce delay)."""
        self._request += 1
        self.latest_request = self._request
        self._pending = AnalysisJob(
            self._request, obj, grasp, params, self.models, self.samples, seed, closing_force_n,
            self.check,
        )  # fmt: skip
        self._pending_key = object_key
        self._debounce.start()
        return self._request

    def _send(self) -> None:
        job, self._pending = self._pending, None
        if job is None:
            return
        if self._proc is None or not self._proc.is_alive():
            self.start()
        if self._pending_key == self._sent_object_key:
            job = AnalysisJob(job.request, None, *_rest(job))
        self._sent_object_key = self._pending_key
        self.requested_at[job.request] = time.perf_counter()
        self._inbox.put(job)

    def _drain(self) -> None:
        while True:
            try:
                msg = self._outbox.get_nowait()
            except (queue.Empty, OSError, ValueError, EOFError):
                break
            if isinstance(msg, GraspCheck):
                self.grasp_checked.emit(msg.request, msg.valid, msg.reason)
            elif isinstance(msg, Predictions):
                self.predictions_ready.emit(msg.request, msg)
        if self._proc is not None and not self._proc.is_alive():
            # A crashed analysis process must not leave the table stale forever.
            self._proc = None
            self.start()


def _rest(job: AnalysisJob) -> tuple:
    return (
        job.grasp, job.params, job.models, job.samples, job.seed, job.closing_force_n, job.check,
    )  # fmt: skip
