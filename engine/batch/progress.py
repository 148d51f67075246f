"""A plain-text progress bar on stderr with rate, ETA and the largest worker's memory.

On a terminal it redraws one line; otherwise (a log file, CI) it prints a new line at most every
`interval_s` seconds and at the end, so logs stay short. The rate counts only tasks finished in
this run (resumed ones are done already and would make the ETA lie).
"""

from __future__ import annotations

import sys
import time
from typing import TYPE_CHECKING, TextIO

if TYPE_CHECKING:
    from engine.batch.runner import WorkerStats


def format_duration(seconds: float) -> str:
    """'mm:ss' or 'h:mm:ss' of a duration in seconds; '--:--' for NaN or infinity."""
    if seconds != seconds or seconds == float("inf"):
        return "--:--"
    seconds = round(seconds)
    h, rest = divmod(seconds, 3600)
    m, s = divmod(rest, 60)
    return f"{h}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


class Progress:
    """A batch's progress bar on `stream` (stderr): redrawn in place on a terminal, else one line
    every `interval_s` seconds."""

    def __init__(
        self,
        total: int,
        done: int = 0,
        stream: TextIO | None = None,
        interval_s: float = 10.0,
        width: int = 24,
        enabled: bool = True,
    ) -> None:
        self.total = total
        self.done = done  # including tasks finished before this run
        self.new = 0
        self.errors = 0
        self.stream = stream if stream is not None else sys.stderr
        self.tty = bool(getattr(self.stream, "isatty", lambda: False)())
        self.interval_s = interval_s if not self.tty else 0.2
        self.width = width
        self.enabled = enabled
        self.start = time.monotonic()
        self._last_draw = -float("inf")
        self._drawn: tuple[int, int] | None = None  # (done, errors) last shown
        self.workers: WorkerStats | None = None  # the batch's worker memory (set by run_batch)

    @property
    def rate_per_min(self) -> float:
        """Tasks finished per minute in this run (0 before the first)."""
        elapsed = time.monotonic() - self.start
        return 60.0 * self.new / elapsed if elapsed > 0 and self.new else 0.0

    @property
    def eta_s(self) -> float:
        """Seconds until every task is done at the current rate (NaN while unknown)."""
        rate = self.rate_per_min
        return 60.0 * (self.total - self.done) / rate if rate > 0 else float("nan")

    def line(self) -> str:
        """The bar as text: done/total, percent, rate, elapsed time, ETA and errors."""
        frac = self.done / self.total if self.total else 1.0
        filled = round(frac * self.width)
        bar = "#" * filled + "." * (self.width - filled)
        errors = f"  {self.errors} errors" if self.errors else ""
        return (
            f"[{bar}] {self.done}/{self.total} tasks {100 * frac:5.1f}%  "
            f"{self.rate_per_min:.1f}/min  elapsed {format_duration(time.monotonic() - self.start)}"
            f"  ETA {format_duration(self.eta_s)}{errors}{self.memory()}"
        )

    def memory(self) -> str:
        """'  worker 412 MB (max 430), 2 recycled': the largest live worker's resident memory,
        the largest seen in this run and how many workers were replaced."""
        w = self.workers
        if w is None or (not w.largest_mb and not w.recycled):
            return ""
        recycled = f", {w.recycled} recycled" if w.recycled else ""
        return f"  worker {w.current_mb:.0f} MB (max {w.largest_mb:.0f}){recycled}"

    def update(self, error: bool = False) -> None:
        """Count one finished task (`error`: it failed) and redraw when due."""
        self.done += 1
        self.new += 1
        self.errors += int(error)
        self.draw()

    def draw(self, force: bool = False) -> None:
        """Write the bar if enabled and due (`force`: now), not repeating an unchanged line."""
        if not self.enabled:
            return
        now = time.monotonic()
        if not force and now - self._last_draw < self.interval_s and self.done < self.total:
            return
        if not self.tty and self._drawn == (self.done, self.errors) and not force:
            return
        self._last_draw = now
        self._drawn = (self.done, self.errors)
        if self.tty:
            self.stream.write("\r" + self.line() + "\x1b[K")
        else:
            self.stream.write(self.line() + "\n")
        self.stream.flush()

    def close(self) -> None:
        """Draw the final state if it was not shown yet and end the terminal line."""
        if not self.enabled:
            return
        if self._drawn != (self.done, self.errors):
            self.draw(force=True)
        if self.tty:
            self.stream.write("\n")
            self.stream.flush()

    def message(self, text: str) -> None:
        """Print a line without breaking the bar."""
        if self.tty and self.enabled:
            self.stream.write("\r\x1b[K")
        self.stream.write(text + "\n")
        self.stream.flush()
        if self.tty and self.enabled:
            self.draw(force=True)
