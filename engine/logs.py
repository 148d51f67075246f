"""Logging set-up for the `ipcgrasp` commands and their worker processes.

Engine modules log through `logging.getLogger(__name__)` and never configure logging; a
command (or the app) calls `configure` once. Batch workers are spawned processes: they call
`configure` again with the driver's settings (`worker_settings`), so their records reach the
same stderr and log file, tagged with the process name.
"""

from __future__ import annotations

import logging
import os
import sys

LEVELS = ("debug", "info", "warning", "error")
FORMAT = "%(asctime)s %(processName)s %(name)s %(levelname)s: %(message)s"

_installed: list[logging.Handler] = []  # the handlers `configure` added to the root logger

_ENV_LEVEL = "IPCGRASP_LOG_LEVEL"
_ENV_FILE = "IPCGRASP_LOG_FILE"


class _StderrHandler(logging.StreamHandler):
    """Writes to whatever sys.stderr is when a record comes (a test's capture may replace it)."""

    @property
    def stream(self) -> object:
        return sys.stderr

    @stream.setter
    def stream(self, value: object) -> None:
        pass


def configure(level: str = "warning", file: str | None = None) -> None:
    """Send the engine's records at `level` and above to stderr and, if given, to `file`.

    The settings are also put in the environment, so processes spawned later (batch workers)
    find them in `worker_settings`.
    """
    name = level.lower()
    if name not in LEVELS:
        raise ValueError(f"log level must be one of {', '.join(LEVELS)} (got {level!r})")
    handlers: list[logging.Handler] = [_StderrHandler()]
    if file:
        handlers.append(logging.FileHandler(file, encoding="utf-8"))
    root = logging.getLogger()
    # Replace only the handlers an earlier call installed: an embedding program's (the app's
    # log view, pytest's capture) stay.
    for old in _installed:
        root.removeHandler(old)
        old.close()
    _installed.clear()
    formatter = logging.Formatter(FORMAT)
    for h in handlers:
        h.setFormatter(formatter)
        root.addHandler(h)
        _installed.append(h)
    root.setLevel(getattr(logging, name.upper()))
    # Third-party chatter stays at warnings whatever our level.
    for noisy in ("numba", "matplotlib", "trimesh", "PIL"):
        logging.getLogger(noisy).setLevel(logging.WARNING)
    os.environ[_ENV_LEVEL] = name
    if file:
        os.environ[_ENV_FILE] = os.path.abspath(file)
    else:
        os.environ.pop(_ENV_FILE, None)


def worker_settings() -> tuple[str, str | None]:
    """The (level, file) a spawned worker should use: the driver's, from the environment."""
    return os.environ.get(_ENV_LEVEL, "warning"), os.environ.get(_ENV_FILE) or None


def configure_worker() -> None:
    """In a spawned worker: log like the driver that started it."""
    level, file = worker_settings()
    configure(level, file)
