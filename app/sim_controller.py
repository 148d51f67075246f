"""Runs trials in spawned worker processes and pumps their messages into Qt signals.

Why processes: the IPC solver holds the GIL, and a solver thread in the GUI process made the
event loop stall for 140+ ms per gap (shared/notes/gui.md). Workers are started at launch and
warm up, so the first frame of a run arrives within a fraction of a second. A QTimer pump
drains the shared queue on the GUI thread (no extra thread, no cross-thread slots). A worker
that dies marks its trial failed with the exit code and is replaced.
"""

from __future__ import annotations

import multiprocessing as mp
import os
import queue
import time
from collections import deque
from dataclasses import dataclass, field
from typing import Any

from PySide6.QtCore import QObject, QTimer, Signal

from app.sim_worker import worker_main
from app.worker_messages import FramePacket, TrialEnded, TrialJob, TrialStarted, WorkerReady
from engine.grasp.frames import TrialResult

PUMP_INTERVAL_MS = 10
PUMP_BUDGET_S = 0.008  # at most this long per tick, so the GUI keeps breathing
HEALTH_INTERVAL_MS = 200
CANCEL_GRACE_S = 3.0  # a worker that ignores cancel this long is terminated


def default_worker_count() -> int:
    """One worker per spare core (at least one): the GUI keeps a core."""
    return max(1, min(4, (os.cpu_count() or 2) - 1))


@dataclass
class _Worker:
    wid: int
    process: Any
    inbox: Any
    cancel: Any
    job: TrialJob | None = None
    ready: bool = False
    cancel_deadline: float | None = None
    frames_seen: int = 0
    extra: dict = field(default_factory=dict)


class SimulationController(QObject):
    """Owns the worker processes; one run (a list of trial jobs) at a time."""

    workers_ready = Signal(int)  # number of warmed-up workers
    trial_started = Signal(int)
    frame_arrived = Signal(object)  # FramePacket
    trial_ended = Signal(int, object, str)  # trial, TrialResult, status done|failed|cancelled
    run_finished = Signal(int, bool)  # run id, cancelled

    def __init__(self, parent: QObject | None = None, n_workers: int | None = None) -> None:
        super().__init__(parent)
        self._ctx = mp.get_context("spawn")  # fork would copy Qt/GL state into the child
        # A SimpleQueue writes each message to the pipe inside put() (a Queue hands it to a
        # feeder thread), so every frame sent before a worker crashes reaches the GUI.
        self._outbox = self._ctx.SimpleQueue()
        self._n = n_workers or default_worker_count()
        self._workers: list[_Worker] = []
        self._next_wid = 0
        self._pending: deque[TrialJob] = deque()
        self._outstanding: set[int] = set()
        self._run_id = 0
        self._cancelled = False
        self.submitted_at: float | None = None
        self.first_frame_at: float | None = None
        self._pump = QTimer(self)
        self._pump.setInterval(PUMP_INTERVAL_MS)
        self._pump.timeout.connect(self._drain)
        self._health = QTimer(self)
        self._health.setInterval(HEALTH_INTERVAL_MS)
        self._health.timeout.connect(self._check_workers)
        self._shut = False

    # --- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the workers now (they warm up in the background)."""
        while len(self._workers) < self._n:
            self._spawn()
        self._pump.start()
        self._health.start()

    def _spawn(self) -> _Worker:
        inbox, cancel = self._ctx.Queue(), self._ctx.Event()
        wid = self._next_wid
        self._next_wid += 1
        proc = self._ctx.Process(
            target=worker_main, args=(wid, inbox, self._outbox, cancel), daemon=True,
            name=f"ipcgrasp-sim-{wid}",
        )  # fmt: skip
        proc.start()
        w = _Worker(wid, proc, inbox, cancel)
        self._workers.append(w)
        return w

    def shutdown(self, timeout_s: float = 2.0) -> None:
        """Stop every worker (asks, then terminates the ones still running)."""
        if self._shut:
            return
        self._shut = True
        self._pump.stop()
        self._health.stop()
        for w in self._workers:
            w.cancel.set()
            try:
                w.inbox.put_nowait(None)
            except (ValueError, OSError, queue.Full):
                pass
        deadline = time.monotonic() + timeout_s
        for w in self._workers:
            w.process.join(max(0.0, deadline - time.monotonic()))
            if w.process.is_alive():
                w.process.terminate()
                w.process.join(1.0)
            w.inbox.cancel_join_thread()
            w.inbox.close()
        self._outbox.close()
        self._workers = []

    @property
    def ready_count(self) -> int:
        return sum(w.ready for w in self._workers)

    @property
    def worker_pids(self) -> list[int]:
        return [w.process.pid for w in self._workers]

    def is_running(self) -> bool:
        return bool(self._outstanding)

    # --- runs ---------------------------------------------------------------------------------
    def submit(self, run_id: int, jobs: list[TrialJob]) -> None:
        """Start a run; any previous run must have finished (or been cancelled)."""
        if self._outstanding:
            raise RuntimeError("a run is still in progress; cancel it first")
        if not self._workers:
            self.start()
        self._run_id = run_id
        self._cancelled = False
        self._pending = deque(jobs)
        self._outstanding = {j.trial for j in jobs}
        self.submitted_at = time.perf_counter()
        self.first_frame_at = None
        self._dispatch()

    def cancel(self) -> None:
        """Stop the run: queued trials are dropped, running ones stop after their next frame."""
        if not self._outstanding:
            return
        self._cancelled = True
        while self._pending:
            job = self._pending.popleft()
            result = TrialResult(trial=job.trial, success=False, reason="cancelled")
            result.perturbation = job.planned.perturbation_dict
            self._finish(job.trial, result, "cancelled")
        now = time.monotonic()
        for w in self._workers:
            if w.job is not None and w.job.run_id == self._run_id:
                w.cancel.set()
                w.cancel_deadline = now + CANCEL_GRACE_S

    def _dispatch(self) -> None:
        for w in self._workers:
            if not self._pending:
                return
            if w.job is None and w.process.is_alive():
                job = self._pending.popleft()
                w.job = job
                w.frames_seen = 0
                w.cancel.clear()
                w.inbox.put(job)

    def _finish(self, trial: int, result: TrialResult, status: str) -> None:
        if trial not in self._outstanding:
            return
        self._outstanding.discard(trial)
        self.trial_ended.emit(trial, result, status)
        if not self._outstanding:
            self.run_finished.emit(self._run_id, self._cancelled)

    # --- pump ---------------------------------------------------------------------------------
    def _drain(self, budget_s: float | None = PUMP_BUDGET_S) -> None:
        start = time.perf_counter()
        while budget_s is None or time.perf_counter() - start < budget_s:
            try:
                if self._outbox.empty():
                    return
                msg = self._outbox.get()
            except (OSError, ValueError, EOFError):
                return
            self._handle(msg)

    def _worker(self, wid: int) -> _Worker | None:
        return next((w for w in self._workers if w.wid == wid), None)

    def _handle(self, msg: object) -> None:
        if isinstance(msg, WorkerReady):
            w = self._worker(msg.worker)
            if w is not None:
                w.ready = True
                self.workers_ready.emit(self.ready_count)
        elif isinstance(msg, FramePacket):
            w = self._worker(msg.worker)
            if w is not None:
                w.frames_seen += 1
            if msg.run_id == self._run_id and msg.trial in self._outstanding:
                if self.first_frame_at is None:
                    self.first_frame_at = time.perf_counter()
                self.frame_arrived.emit(msg)
        elif isinstance(msg, TrialStarted):
            if msg.run_id == self._run_id:
                self.trial_started.emit(msg.trial)
        elif isinstance(msg, TrialEnded):
            w = self._worker(msg.worker)
            if w is not None:
                w.job = None
                w.cancel_deadline = None
                w.cancel.clear()
            if msg.run_id == self._run_id:
                status = (
                    "cancelled" if msg.cancelled else ("failed" if msg.result.error else "done")
                )
                self._finish(msg.trial, msg.result, status)
            self._dispatch()

    def _check_workers(self) -> None:
        """Replace dead workers (failing their trial) and terminate ones that ignore cancel."""
        if self._shut:
            return
        self._drain(budget_s=None)  # deliver what a dying worker sent before it died
        now = time.monotonic()
        for w in list(self._workers):
            alive = w.process.is_alive()
            overdue = w.cancel_deadline is not None and now > w.cancel_deadline and alive
            if alive and not overdue:
                continue
            if overdue:
                w.process.terminate()
                w.process.join(1.0)
            job = w.job
            self._workers.remove(w)
            w.inbox.cancel_join_thread()
            if job is not None and job.run_id == self._run_id:
                result = TrialResult(trial=job.trial, success=False, reason="cancelled")
                result.perturbation = job.planned.perturbation_dict
                result.frames = w.frames_seen
                status = "cancelled"
                if not overdue:
                    code = w.process.exitcode
                    how = (
                        f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"
                    )
                    result.reason = "worker crashed"
                    result.error = (
                        f"the simulation worker process died ({how}) after {w.frames_seen} "
                        "frames; the frames so far are kept"
                    )
                    status = "failed"
                self._finish(job.trial, result, status)
            self._spawn()
        self._dispatch()
