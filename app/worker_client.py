"""The GUI side of one request worker process: the one client every request worker uses.

A request worker (analysis, grasp check, default grasp, sampling, Psi_th force, video export)
is one spawned process (app.workers.process.WorkerProcess) that answers jobs. WorkerClient does
for each of them what each once hand-rolled:

- start on demand (or at once with `start()`), and restart a worker that died: at once when
  `restart` is set, else at the next job;
- number the requests: `new_request()` gives the next generation, which the job carries as
  `request`; `latest` is the newest, and `forget()` makes every answer still to come stale;
- send a job at once or after a debounce delay (`submit`), the newest job replacing one that
  still waits; `prepare` may change or drop a job just before it is sent;
- drain the outbox on a Qt timer (app.worker_pump.Pump, the GUI thread): an answer to the
  newest request (or a message without a `request`, such as the video's progress) goes to
  `on_answer`, an answer to an older one to `on_stale` (counted in `stale_answers`);
- when the worker dies, deliver what it sent before dying, then send the job it left
  unanswered again up to `retries` times, and else call `on_died(job, how)` (job None when
  none was outstanding);
- shut down: stop polling, drop a job still waiting, stop the process.

Qt is used only through app.worker_pump.Pump (the poll timer and the debounce).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any

from PySide6.QtCore import QObject

from app.worker_pump import Pump
from app.workers.process import WorkerProcess

log = logging.getLogger(__name__)


def _queues(proc: WorkerProcess) -> tuple:
    return (proc.inbox, proc.outbox)


class WorkerClient:
    """One request worker process seen from the GUI thread (see the module's docstring)."""

    def __init__(
        self,
        parent: QObject,
        name: str,
        target: Callable[..., Any],
        on_answer: Callable[[Any], None],
        *,
        args: Callable[[WorkerProcess], tuple] = _queues,
        poll_ms: int = 20,
        debounce_ms: int = 0,
        retries: int = 0,
        restart: bool = True,
        on_stale: Callable[[Any], None] | None = None,
        on_died: Callable[[Any, str], None] | None = None,
        prepare: Callable[[Any], Any] | None = None,
    ) -> None:
        self.name = name
        self._target, self._args = target, args
        self._on_answer, self._on_stale, self._on_died = on_answer, on_stale, on_died
        self._prepare = prepare
        self.retries, self.restart = retries, restart
        self.worker: WorkerProcess | None = None
        self.latest = 0  # the newest request's number
        self.starts = 0  # processes started so far (a new one holds nothing of the old one's)
        self.sent = 0  # jobs sent
        self.stale_answers = 0  # answers that came for an older request
        self._pending: Any = None  # the job waiting for the debounce delay
        self._outstanding: Any = None  # the newest job sent and not answered yet
        self._tries = 0
        self._pump = Pump(parent, poll_ms, self._poll)
        self._debounce = (
            Pump(parent, debounce_ms, self._send_pending, single_shot=True) if debounce_ms else None
        )

    # --- lifetime -----------------------------------------------------------------------------
    def start(self) -> None:
        """Spawn the worker process if it is not running, and start polling it."""
        if self.worker is None or not self.worker.alive():
            if self.worker is not None:
                self.worker.close_queues()
            self.worker = WorkerProcess(self.name)
            self.worker.start(self._target, *self._args(self.worker))
            self.starts += 1
        self._pump.start()

    def alive(self) -> bool:
        """True while the worker process runs."""
        return self.worker is not None and self.worker.alive()

    def cancel(self) -> None:
        """Set the worker's cancel event (a worker that watches it stops its job)."""
        if self.worker is not None:
            self.worker.cancel.set()

    def shutdown(self, timeout_s: float = 1.0) -> None:
        """Stop polling, drop a job still waiting, stop the worker process (asked, then after
        `timeout_s` terminated)."""
        self._pump.stop()
        self.cancel_pending()
        self._outstanding = None
        if self.worker is not None:
            self.worker.stop(timeout_s=timeout_s)
            self.worker = None

    # --- requests -----------------------------------------------------------------------------
    def new_request(self) -> int:
        """The number of a new request (the newest from now on)."""
        self.latest += 1
        return self.latest

    def submit(self, job: Any) -> None:
        """Send `job` (made with the number from new_request()) now, or after the debounce
        delay when the client has one (a newer job submitted meanwhile replaces it)."""
        if self._debounce is None:
            self._send(job)
            return
        self._pending = job
        self._debounce.start()

    def cancel_pending(self) -> None:
        """Drop the job waiting for the debounce delay (answers to jobs sent still count)."""
        self._pending = None
        if self._debounce is not None:
            self._debounce.stop()

    def forget(self) -> None:
        """Drop the job still waiting and make every answer still to come a stale one."""
        self.new_request()
        self.cancel_pending()
        self._outstanding = None

    def _send_pending(self) -> None:
        job, self._pending = self._pending, None
        if job is not None:
            self._send(job)

    def _send(self, job: Any) -> None:
        self.start()
        if self._prepare is not None:
            job = self._prepare(job)
            if job is None:
                return
        assert self.worker is not None
        self._outstanding, self._tries = job, 0
        self.worker.send(job)
        self.sent += 1

    # --- answers ------------------------------------------------------------------------------
    def _poll(self) -> None:
        worker = self.worker
        if worker is None:
            return
        for msg in worker.drain():
            self._deliver(msg)
            if self.worker is not worker:
                return  # an answer shut the client down (a finished video export)
        if not worker.alive():
            for msg in worker.drain():  # what it sent just before it died
                self._deliver(msg)
                if self.worker is not worker:
                    return
            self._died(worker)

    def _deliver(self, msg: Any) -> None:
        request = getattr(msg, "request", None)
        job = self._outstanding
        if job is not None and request is not None and getattr(job, "request", None) == request:
            self._outstanding = None
        if request is None or request == self.latest:
            self._on_answer(msg)
            return
        self.stale_answers += 1
        if self._on_stale is not None:
            self._on_stale(msg)
        else:
            log.info("%s: ignored the answer to stale request %d", self.name, request)

    def _died(self, worker: WorkerProcess) -> None:
        how = worker.exit_description()
        log.error("the worker process %s died (%s)", self.name, how)
        worker.close_queues()
        self.worker = None
        job = self._outstanding
        if job is not None and self._tries < self.retries:
            self._tries += 1
            log.info("%s: sending request %s again", self.name, getattr(job, "request", "?"))
            self.start()
            assert self.worker is not None
            self.worker.send(job)
            return
        self._outstanding = None
        if self.restart:
            self.start()  # a fresh process for the next job
        else:
            self._pump.stop()
        if self._on_died is not None:
            self._on_died(job, how)
