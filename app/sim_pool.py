"""Runs trials in spawned worker processes and pumps their messages into Qt signals.

Why processes: the IPC solver holds the GIL, and a solver thread in the GUI process made the
event loop stall for 140+ ms per gap (shared/notes/gui.md). Workers are started at launch and
warm up, so the first frame of a run arrives within a fraction of a second. A Pump drains the
shared outbox on the GUI thread. A worker that dies marks its trial failed with the exit code
and is replaced. When a run ends, an idle worker whose resident memory grew past
`max_worker_memory_mb` is replaced too, so a leak in native code cannot accumulate over a
session. Process handling is app.workers.WorkerProcess.
"""

from __future__ import annotations

import logging
import os
import time
from collections import deque
from dataclasses import dataclass

from PySide6.QtCore import QObject, Signal

from app.worker_pump import Pump
from app.workers import WorkerProcess, drain_queue, spawn_context
from app.workers.messages import FramePacket, TrialEnded, TrialJob, TrialStarted, WorkerReady
from app.workers.simulation import worker_main
from engine.grasp.frames import TrialResult

log = logging.getLogger(__name__)

PUMP_INTERVAL_MS = 10
PUMP_BUDGET_S = 0.008  # at most this long per tick, so the GUI keeps breathing
HEALTH_INTERVAL_MS = 200
CANCEL_GRACE_S = 3.0  # a worker that ignores cancel this long is terminated
MAX_WORKER_MEMORY_MB = 1536.0  # an idle worker above this is replaced when a run ends


def process_rss_mb(pid: int) -> float | None:
    """Resident memory of process `pid` in MB (Linux /proc; None where unavailable)."""
    try:
        with open(f"/proc/{pid}/statm") as f:
            return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        return None


def default_worker_count() -> int:
    """One worker per spare core (at least one): the GUI keeps a core."""
    return max(1, min(4, (os.cpu_count() or 2) - 1))


@dataclass
class _Worker:
    wid: int
    proc: WorkerProcess
    job: TrialJob | None = None
    ready: bool = False
    cancel_deadline: float | None = None
    frames_seen: int = 0
    job_started: float = 0.0  # perf_counter when its job was sent


class SimulationPool(QObject):
    """Owns the simulation worker processes; one run (a list of trial jobs) at a time."""

    workers_ready = Signal(int)  # number of warmed-up workers
    trial_started = Signal(int)
    frame_arrived = Signal(object)  # FramePacket
    trial_ended = Signal(int, object, str)  # trial, TrialResult, status done|failed|cancelled
    run_finished = Signal(int, bool)  # run id, cancelled

    def __init__(
        self,
        parent: QObject | None = None,
        n_workers: int | None = None,
        max_worker_memory_mb: float = MAX_WORKER_MEMORY_MB,
    ) -> None:
        super().__init__(parent)
        self.max_worker_memory_mb = max_worker_memory_mb  # 0: never replace a grown worker
        self.recycled_workers = 0
        # A SimpleQueue writes each message to the pipe inside put() (a Queue hands it to a
        # feeder thread), so every frame sent before a worker crashes reaches the GUI.
        self._outbox = spawn_context().SimpleQueue()
        self._n = n_workers or default_worker_count()
        self._workers: list[_Worker] = []
        self._next_wid = 0
        self._pending: deque[TrialJob] = deque()
        self._outstanding: set[int] = set()
        self._run_id = 0
        self._cancelled = False
        self.submitted_at: float | None = None
        self.first_frame_at: float | None = None
        self._pump = Pump(self, PUMP_INTERVAL_MS, self._drain)
        self._health = Pump(self, HEALTH_INTERVAL_MS, self._check_workers)
        self._shut = False

    # --- lifecycle ----------------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the workers now (they warm up in the background)."""
        while len(self._workers) < self._n:
            self._spawn()
        self._pump.start()
        self._health.start()

    def _spawn(self) -> _Worker:
        wid = self._next_wid
        self._next_wid += 1
        proc = WorkerProcess(f"ipcgrasp-sim-{wid}", outbox=self._outbox)
        proc.start(worker_main, wid, proc.inbox, self._outbox, proc.cancel)
        w = _Worker(wid, proc)
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
            w.proc.request_stop()
        deadline = time.monotonic() + timeout_s
        for w in self._workers:
            w.proc.stop(deadline=deadline)
        self._outbox.close()
        self._workers = []

    @property
    def ready_count(self) -> int:
        """Workers that finished warming up."""
        return sum(w.ready for w in self._workers)

    @property
    def worker_pids(self) -> list[int]:
        """Process ids of the current workers."""
        return [w.proc.pid or 0 for w in self._workers]

    def is_running(self) -> bool:
        """True while trials of the current run are queued or running."""
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
                w.proc.cancel.set()
                w.cancel_deadline = now + CANCEL_GRACE_S

    def _dispatch(self) -> None:
        for w in self._workers:
            if not self._pending:
                return
            if w.job is None and w.proc.alive():
                job = self._pending.popleft()
                w.job = job
                w.frames_seen = 0
                w.job_started = time.perf_counter()
                w.proc.cancel.clear()
                w.proc.send(job)

    def _finish(self, trial: int, result: TrialResult, status: str) -> None:
        if trial not in self._outstanding:
            return
        self._outstanding.discard(trial)
        self.trial_ended.emit(trial, result, status)
        if not self._outstanding:
            self._replace_grown_workers()
            self.run_finished.emit(self._run_id, self._cancelled)

    def _replace_grown_workers(self) -> None:
        """Replace idle workers whose resident memory exceeds max_worker_memory_mb."""
        for w in list(self._workers):
            pid = w.proc.pid
            rss = process_rss_mb(pid) if pid and w.job is None and not self._shut else None
            if rss is None or not self.max_worker_memory_mb or rss <= self.max_worker_memory_mb:
                continue
            log.info("simulation worker %d holds %.0f MB: replacing it", w.wid, rss)
            self._workers.remove(w)
            w.proc.stop(timeout_s=2.0)
            self.recycled_workers += 1
            self._spawn()

    # --- pump ---------------------------------------------------------------------------------
    def _drain(self, budget_s: float | None = PUMP_BUDGET_S) -> None:
        if budget_s is None:
            messages = drain_queue(self._outbox)
            for msg in messages:
                self._handle(msg)
            return
        start = time.perf_counter()
        while time.perf_counter() - start < budget_s:
            batch = drain_queue(self._outbox, limit=1)
            if not batch:
                return
            self._handle(batch[0])

    def _worker(self, wid: int) -> _Worker | None:
        return next((w for w in self._workers if w.wid == wid), None)

    def _handle(self, msg: object) -> None:
        if isinstance(msg, WorkerReady):
            w = self._worker(msg.worker)
            if w is not None:
                w.ready = True
                log.info("simulation worker %d ready (warm-up %.1f s)", msg.worker, msg.warmup_s)
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
                w.proc.cancel.clear()
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
            alive = w.proc.alive()
            overdue = w.cancel_deadline is not None and now > w.cancel_deadline and alive
            if alive and not overdue:
                continue
            if overdue:
                log.warning(
                    "worker %d ignored cancel for %.0f s; terminating", w.wid, CANCEL_GRACE_S
                )
                w.proc.terminate()
            job = w.job
            self._workers.remove(w)
            w.proc.close_queues()
            if job is not None and job.run_id == self._run_id:
                result = TrialResult(trial=job.trial, success=False, reason="cancelled")
                result.perturbation = job.planned.perturbation_dict
                result.frames = w.frames_seen
                # The worker cannot say how long it ran: the time since its job was sent
                # (a cancelled trial showed 0.0 s after 41 frames).
                result.wall_time_s = time.perf_counter() - w.job_started
                status = "cancelled"
                if not overdue:
                    how = w.proc.exit_description()
                    log.error("simulation worker %d died (%s) in trial %d", w.wid, how, job.trial)
                    result.reason = "worker crashed"
                    result.error = (
                        f"the simulation worker process died ({how}) after {w.frames_seen} "
                        "frames; the frames so far are kept"
                    )
                    status = "failed"
                self._finish(job.trial, result, status)
            self._spawn()
        self._dispatch()
