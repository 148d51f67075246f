"""One helper for every worker process of the app: simulation, analysis, video export (no Qt).

Contract:
- The GUI process creates a WorkerProcess and calls `start(target, *args)`; `target` runs in a
  fresh *spawned* interpreter (fork would copy Qt and OpenGL state into the child), with its
  logging sent back to the GUI (see app.logs) and its stderr turned into log records, so a
  traceback a worker prints reaches the log file and the Log dock.
- Each worker has an `inbox` (jobs to it), a `cancel` event and an `outbox` (replies), which
  is its own queue or one shared by a pool. `drain()` reads what arrived without blocking;
  the GUI calls it from a Qt timer (app.worker_pump.Pump), never from another thread.
- `alive()` / `exit_description()` detect a crash; `stop()` asks (None to the inbox, the cancel
  event), waits, then terminates: only the owner of a WorkerProcess stops it.
- A worker never outlives the GUI process: `worker_entry` calls engine.lifeline.die_with_parent
  first, so a killed (kill -9) or crashed GUI leaves no worker behind. Start workers from the
  GUI thread (Linux ties the parent-death signal to the thread that started the child).
"""

from __future__ import annotations

import io
import logging
import logging.handlers
import multiprocessing as mp
import queue
import sys
import time
from collections.abc import Callable
from typing import Any

log = logging.getLogger(__name__)


def spawn_context() -> Any:
    """The multiprocessing context every app worker uses."""
    return mp.get_context("spawn")


class _LogWriter(io.TextIOBase):
    """A file object (for sys.stderr in a worker) that logs each complete line."""

    def __init__(self, logger: logging.Logger, level: int) -> None:
        self._logger, self._level, self._buf = logger, level, ""

    def write(self, text: str) -> int:
        self._buf += text
        *lines, self._buf = self._buf.split("\n")
        for line in lines:
            if line.strip():
                self._logger.log(self._level, line)
        return len(text)

    def flush(self) -> None:
        if self._buf.strip():
            self._logger.log(self._level, self._buf)
        self._buf = ""


def worker_entry(log_queue: Any, name: str, target: Callable[..., Any], args: tuple) -> None:
    """Runs in the child: log to `log_queue`, stderr to the log, then `target(*args)`.

    The child ends when the GUI process does, even when that is killed (engine.lifeline)."""
    from engine.lifeline import die_with_parent

    die_with_parent()
    root = logging.getLogger()
    root.handlers.clear()
    if log_queue is not None:
        root.addHandler(logging.handlers.QueueHandler(log_queue))
    root.setLevel(logging.INFO)
    sys.stderr = _LogWriter(logging.getLogger(f"app.worker.{name}"), logging.ERROR)
    try:
        target(*args)
    except Exception:
        logging.getLogger(f"app.worker.{name}").exception("the worker process failed")
        raise
    finally:
        sys.stderr.flush()


def newest_job(inbox: Any) -> Any:
    """Wait for a job, then skip to the newest one waiting behind it (older ones are stale);
    None (the shut-down message) wins wherever it is."""
    job = inbox.get()
    while job is not None:
        try:
            newer = inbox.get_nowait()
        except queue.Empty:
            break
        job = newer
    return job


def drain_queue(q: Any, limit: int | None = None, budget_s: float | None = None) -> list:
    """What waits in `q` now, without blocking: at most `limit` messages, or as many as
    arrive within `budget_s` seconds. Works for Queue and SimpleQueue."""
    out: list = []
    get_nowait = getattr(q, "get_nowait", None)  # SimpleQueue has only empty() and get()
    start = time.perf_counter()
    while limit is None or len(out) < limit:
        if budget_s is not None and time.perf_counter() - start >= budget_s:
            break
        try:
            if get_nowait is None:
                if q.empty():
                    break
                out.append(q.get())
            else:
                out.append(get_nowait())
        except (queue.Empty, OSError, ValueError, EOFError):
            break
    return out


class WorkerProcess:
    """A spawned child process with an inbox, a cancel event and an outbox."""

    def __init__(self, name: str, outbox: Any | None = None, log_queue: Any | None = None) -> None:
        self.name = name
        self.ctx = spawn_context()
        self.inbox: Any = self.ctx.Queue()
        self.cancel: Any = self.ctx.Event()
        self.outbox: Any = outbox if outbox is not None else self.ctx.Queue()
        self._own_outbox = outbox is None
        self._log_listener: Any = None
        if log_queue is None:
            from app.logs import hub

            log_queue, self._log_listener = hub().worker_queue()
        self._log_queue = log_queue
        self.process: Any = None

    def start(self, target: Callable[..., Any], *args: Any) -> None:
        """Spawn the child running `target(*args)` (args may hold self.inbox etc.)."""
        self.process = self.ctx.Process(
            target=worker_entry,
            args=(self._log_queue, self.name, target, args),
            daemon=True,
            name=self.name,
        )
        self.process.start()
        log.info("started worker process %s (pid %s)", self.name, self.process.pid)

    @property
    def pid(self) -> int | None:
        """The child's process id (None before start)."""
        return None if self.process is None else self.process.pid

    def alive(self) -> bool:
        """True while the child runs."""
        return self.process is not None and self.process.is_alive()

    def exit_description(self) -> str:
        """How the child ended: "exit code N" or "signal N"."""
        code = None if self.process is None else self.process.exitcode
        return f"signal {-code}" if code is not None and code < 0 else f"exit code {code}"

    def send(self, message: Any) -> None:
        """Put `message` in the child's inbox."""
        self.inbox.put(message)

    def drain(self, limit: int | None = None, budget_s: float | None = None) -> list:
        """Messages waiting in the outbox (see drain_queue)."""
        return drain_queue(self.outbox, limit, budget_s)

    def terminate(self) -> None:
        """Kill the child now (it gets no chance to clean up)."""
        if self.alive():
            self.process.terminate()
            self.process.join(1.0)

    def request_stop(self) -> None:
        """Ask the child to stop: cancel set, None in the inbox (returns at once)."""
        self.cancel.set()
        try:
            self.inbox.put_nowait(None)
        except (ValueError, OSError, queue.Full):
            pass

    def stop(self, timeout_s: float = 2.0, deadline: float | None = None) -> None:
        """Ask the child to stop, wait until `deadline` (a time.monotonic() value, or now +
        timeout_s), then terminate it; close the queues."""
        self.request_stop()
        if self.process is not None:
            end = deadline if deadline is not None else time.monotonic() + timeout_s
            self.process.join(max(0.0, end - time.monotonic()))
            if self.process.is_alive():
                log.info("worker process %s did not stop; terminating it", self.name)
            self.terminate()
        self.close_queues()

    def close_queues(self) -> None:
        """Release the queues without waiting for unsent data (the child may be dead)."""
        listener, self._log_listener = self._log_listener, None
        if listener is not None:
            if self.process is not None and self.process.exitcode == 0:
                listener.stop()  # a clean exit: forward what is still queued, then stop
            # A killed child may have left its queue half-written: the listener (a daemon
            # thread) is abandoned rather than joined.
        queues = [self.inbox] + ([self.outbox] if self._own_outbox else [])
        for q in queues:
            try:
                q.cancel_join_thread()
                q.close()
            except (AttributeError, OSError, ValueError):
                pass
