"""Logging for the app and its worker processes (no Qt).

The GUI process logs to a file in the user's data directory, to stderr (warnings and up)
and to an in-memory ring that the Log dock shows. Worker processes send their records over a
multiprocessing queue (app.workers installs a QueueHandler there); a listener thread in the
GUI process hands each record to the logger of the same name, so a worker's traceback lands
in the same file and the same Log dock as the GUI's own messages.
"""

from __future__ import annotations

import collections
import logging
import logging.handlers
import multiprocessing as mp
import os
import sys
import threading
from pathlib import Path
from typing import Any

FORMAT = "%(asctime)s %(levelname)-7s %(processName)s %(name)s: %(message)s"
LOG_FILE_NAME = "ipcgrasp.log"
RING_SIZE = 2000
log = logging.getLogger(__name__)


def default_log_dir() -> Path:
    """~/.local/share/ipcgrasp (or $XDG_DATA_HOME/ipcgrasp): used when Qt gives no path."""
    base = os.environ.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return Path(base) / "ipcgrasp"


class RingHandler(logging.Handler):
    """Keeps the last formatted lines; `since(n)` returns the lines after the n-th one."""

    def __init__(self, size: int = RING_SIZE) -> None:
        super().__init__(logging.INFO)
        self.lines: collections.deque[str] = collections.deque(maxlen=size)
        self.count = 0  # lines ever emitted
        self.setFormatter(logging.Formatter(FORMAT, "%H:%M:%S"))

    def emit(self, record: logging.LogRecord) -> None:
        try:
            text = self.format(record)
        except Exception:
            self.handleError(record)
            return
        with self.lock or threading.Lock():
            self.lines.append(text)
            self.count += 1

    def since(self, count: int) -> tuple[list[str], int]:
        """Lines emitted after the first `count` ones (as far as the ring still holds them)
        and the new count."""
        with self.lock or threading.Lock():
            new = min(self.count - count, len(self.lines))
            return (list(self.lines)[len(self.lines) - new :] if new > 0 else []), self.count


class _ToLogger(logging.Handler):
    """Listener side: a worker's record goes to the GUI process's logger of the same name."""

    def handle(self, record: logging.LogRecord) -> bool:
        # The worker's own logger levels already chose this record; the GUI process's levels
        # (which a test or an in-process command may have raised) must not drop it again.
        logging.getLogger(record.name).handle(record)
        return True

    def emit(self, record: logging.LogRecord) -> None:  # pragma: no cover - handle() does it
        pass


class LogHub:
    """The GUI process's logging: file, stderr, ring, and the queue the workers log into."""

    def __init__(self) -> None:
        self.ring = RingHandler()
        self.file_path: Path | None = None
        self.queue: Any = mp.get_context("spawn").Queue()
        self._listener = logging.handlers.QueueListener(self.queue, _ToLogger())
        self._listener.start()
        root = logging.getLogger()
        if root.level > logging.INFO or root.level == logging.NOTSET:
            root.setLevel(logging.INFO)
        root.addHandler(self.ring)
        if not any(getattr(h, "_ipcgrasp_stderr", False) for h in root.handlers):
            err = logging.StreamHandler(sys.stderr)
            err.setLevel(logging.WARNING)
            err.setFormatter(logging.Formatter(FORMAT))
            err._ipcgrasp_stderr = True  # type: ignore[attr-defined]
            root.addHandler(err)

    def worker_queue(self) -> tuple[Any, logging.handlers.QueueListener]:
        """A log queue of one worker process and the listener that forwards its records.

        One queue per worker: a worker killed while it writes a record (a crash, terminate())
        can leave a shared queue's write lock taken for good, and every other worker's log
        would stop there.
        """
        q: Any = mp.get_context("spawn").Queue()
        listener = logging.handlers.QueueListener(q, _ToLogger())
        listener.start()
        return q, listener

    def log_to_file(self, directory: Path) -> Path | None:
        """Also write the log to `directory`/ipcgrasp.log (once); None if it cannot."""
        if self.file_path is not None:
            return self.file_path
        try:
            directory.mkdir(parents=True, exist_ok=True)
            handler = logging.handlers.RotatingFileHandler(
                directory / LOG_FILE_NAME, maxBytes=2_000_000, backupCount=2, encoding="utf-8"
            )
        except OSError as exc:
            log.warning("cannot write the log file in %s: %s", directory, exc)
            return None
        handler.setLevel(logging.INFO)
        handler.setFormatter(logging.Formatter(FORMAT))
        logging.getLogger().addHandler(handler)
        self.file_path = directory / LOG_FILE_NAME
        return self.file_path

    def stop(self) -> None:
        """Stop the listener thread (records still queued are handled first)."""
        try:
            self._listener.stop()
        except Exception:  # already stopped
            pass


_hub: LogHub | None = None


def hub() -> LogHub:
    """The process's LogHub, started on first use."""
    global _hub
    if _hub is None:
        _hub = LogHub()
    return _hub


def install(log_dir: Path | None = None) -> LogHub:
    """Start logging for the GUI process, with the file in `log_dir` (default_log_dir())."""
    h = hub()
    h.log_to_file(log_dir or default_log_dir())
    return h
