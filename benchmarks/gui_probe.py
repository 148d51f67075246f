"""What the GUI benchmarks share (bench_gui.py, bench_forces_gui.py, bench_dataset.py): waiting
on the real window's event loop, the machine's load, and the event-loop gap probe.

The probe is a QTimer at a short interval on the GUI thread: the time between two of its ticks
is how long the window could not react (a gap). It also records the CPU time the process used
in each interval (all its threads, the GL rasterizer's included): a long gap with little CPU
means the process waited for a core rather than worked.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
import time
from collections.abc import Callable
from typing import Any


def wait(app: Any, predicate: Callable[[], bool], timeout_s: float, poll_s: float = 0.001) -> None:
    """Run the event loop until `predicate()` holds (TimeoutError after `timeout_s`)."""
    start = time.perf_counter()
    while not predicate():
        if time.perf_counter() - start > timeout_s:
            raise TimeoutError("timed out")
        app.processEvents()
        time.sleep(poll_s)


def fresh_settings() -> str:
    """Point the app's settings (QSettings, NativeFormat) at a new empty folder, so no view
    choice remembered from the user's sessions (contact forces on, side by side) changes what
    is measured, and the benchmark's own choices are not remembered; returns the folder."""
    from PySide6.QtCore import QSettings

    folder = tempfile.mkdtemp(prefix="ipcgrasp-bench-settings-")
    QSettings.setPath(QSettings.Format.NativeFormat, QSettings.Scope.UserScope, folder)
    return folder


def uptime() -> str:
    """`uptime`'s line (the load averages), or os.getloadavg() where there is no uptime."""
    try:
        out = subprocess.run(["uptime"], capture_output=True, text=True, timeout=5).stdout
        return out.strip()
    except (OSError, subprocess.SubprocessError):
        load = os.getloadavg() if hasattr(os, "getloadavg") else ()
        return "load average: " + ", ".join(f"{x:.2f}" for x in load)


def p99(gaps: list[float]) -> float:
    """The 99th percentile of sorted `gaps`."""
    return gaps[min(len(gaps) - 1, int(0.99 * len(gaps)))]


class GapProbe:
    """A QTimer of `interval_ms` recording the time between its consecutive ticks (`gaps`, in
    order) and the process's CPU time in each (`cpu`)."""

    def __init__(self, interval_ms: int) -> None:
        from PySide6.QtCore import QTimer

        self.interval_ms = interval_ms
        self.gaps: list[float] = []
        self.cpu: list[float] = []
        self._last: float | None = None
        self._last_cpu = 0.0
        self.timer = QTimer()
        self.timer.setInterval(interval_ms)
        self.timer.timeout.connect(self._tick)

    def _tick(self) -> None:
        now, cpu = time.perf_counter(), time.process_time()
        if self._last is not None:
            self.gaps.append(now - self._last)
            self.cpu.append(cpu - self._last_cpu)
        self._last, self._last_cpu = now, cpu

    def start(self) -> None:
        """Forget earlier gaps and start ticking."""
        self.gaps, self.cpu, self._last = [], [], None
        self.timer.start()

    def stop(self) -> list[float]:
        """Stop; the gaps since start(), in order."""
        self.timer.stop()
        return list(self.gaps)

    def cpu_in_longest(self) -> float:
        """The CPU time the process used during the longest gap."""
        if not self.gaps:
            return 0.0
        return self.cpu[max(range(len(self.gaps)), key=self.gaps.__getitem__)]
