"""Worker processes die with the process that started them, even when it is killed (kill -9).

A killed driver runs no cleanup, so every worker kind ends itself:

- `die_with_parent()`, called first thing in a child process (batch pool workers, the app's
  simulation, analysis, grasp-finding and video workers): on Linux the kernel sends the child
  SIGKILL when its parent dies (prctl PR_SET_PDEATHSIG); everywhere, a daemon thread also polls
  the parent's pid and kills the process once it has a new parent (the portable fallback, and
  the check for a parent that died before the child got this far). Linux ties PR_SET_PDEATHSIG
  to the *thread* that started the child: start workers from a thread that outlives them (every
  starter here is the main thread).
- `Reaper`, for process trees we do not start ourselves (a local Ray instance: GCS, raylet,
  agents and Ray's workers, which do not all end when their raylet dies): a small watcher
  process records the driver's descendants every `interval_s` and, when the driver is gone
  without having said goodbye, kills those it saw and every process that carries the reaper's
  token in its environment (Linux /proc; elsewhere it is not started). The token catches what
  the snapshots miss: a driver killed while ray.init runs leaves agents that the raylet started
  between two snapshots, reparented to init once the raylet is killed.

Only the standard library is imported here: the reaper runs this file as a script.
"""

from __future__ import annotations

import contextlib
import logging
import os
import select
import signal
import subprocess
import sys
import threading
import time

log = logging.getLogger(__name__)

PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
POLL_S = 0.5  # how often the fallback thread and the reaper look
TOKEN_VAR = "IPCGRASP_REAPER_TOKEN"  # inherited by whatever the driver starts while watched


def _kill_self() -> None:
    os.kill(os.getpid(), signal.SIGKILL)


def _parent_pid_of_this_child() -> int:
    """The pid of the process that started this one (multiprocessing knows it even when the
    parent has already died; otherwise the current parent)."""
    import multiprocessing

    parent = multiprocessing.parent_process()
    if parent is not None and parent.pid:
        return int(parent.pid)
    return os.getppid()


def _set_pdeathsig() -> bool:
    """Ask Linux for SIGKILL when the parent dies; False where that is not available."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


_watching: set[int] = set()


def die_with_parent(poll_s: float = POLL_S) -> None:
    """Make this child process end as soon as the process that started it is gone.

    Call it first thing in the child (idempotent). Never in a command's own process: it would
    then die with the shell.
    """
    parent = _parent_pid_of_this_child()
    if parent in _watching:
        return
    _watching.add(parent)
    direct = os.getppid() == parent  # not so under a fork server, or if it died already
    if direct:
        _set_pdeathsig()

    def parent_gone() -> bool:
        return os.getppid() != parent if direct else not is_running(parent)

    if parent_gone():  # the parent died before we got here
        _kill_self()

    def watch() -> None:
        while True:
            time.sleep(poll_s)
            if parent_gone():
                _kill_self()

    threading.Thread(target=watch, name="ipcgrasp-lifeline", daemon=True).start()


# --- the reaper -----------------------------------------------------------------------------


def _start_time(pid: int) -> int | None:
    """The start time (clock ticks since boot) of a live process, None if gone or a zombie."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return None
    fields = stat[stat.rindex(b")") + 2 :].split()
    if fields[0] in (b"Z", b"X"):
        return None
    return int(fields[19])


def is_running(pid: int) -> bool:
    """Whether process `pid` runs (a zombie does not). Linux /proc; elsewhere os.kill(pid, 0)."""
    if os.path.isdir("/proc"):
        return _start_time(pid) is not None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _children_map() -> dict[int, list[int]]:
    out: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
            ppid = int(stat[stat.rindex(b")") + 2 :].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        out.setdefault(ppid, []).append(int(name))
    return out


def descendants(pid: int) -> list[int]:
    """Pids of every live process below `pid` (Linux /proc; [] elsewhere)."""
    if not os.path.isdir("/proc"):
        return []
    children = _children_map()
    found: list[int] = []
    todo = [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.append(child)
                todo.append(child)
    return found


def carrying_token(token: str) -> list[int]:
    """Pids of live processes whose environment holds `TOKEN_VAR=token` (Linux /proc; the
    environment a process was started with, readable for this user's processes)."""
    if not os.path.isdir("/proc"):
        return []
    needle = f"{TOKEN_VAR}={token}".encode()
    found: list[int] = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                environ = f.read()
        except OSError:
            continue
        if needle in environ.split(b"\0"):
            found.append(int(name))
    return found


def _reap(driver: int, interval_s: float, token: str = "") -> None:
    """Reaper process body: watch `driver`'s descendants until stdin ends; if the driver is
    gone by then (it was killed), kill every descendant seen (checked by start time) and every
    process carrying `token` in its environment."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's Ctrl+C is the driver's
    me = os.getpid()
    driver_start = _start_time(driver)
    seen: dict[int, int] = {}  # pid -> start time
    while True:
        ready, _, _ = select.select([0], [], [], interval_s)
        if ready:
            data = os.read(0, 64)
            if b"done" in data:
                return  # the driver cleaned up itself
            if not data:
                break
        for pid in descendants(driver):
            start = _start_time(pid)
            if pid != me and start is not None:
                seen[pid] = start

    # The pipe ends a moment before a killed driver leaves the process table.
    def driver_alive() -> bool:
        return driver_start is not None and _start_time(driver) == driver_start

    end = time.monotonic() + 2.0
    while driver_alive() and time.monotonic() < end:
        time.sleep(0.05)
    if driver_alive():
        return  # a live driver closed the pipe: it did not ask for anything
    for _ in range(3):  # also what the seen processes start meanwhile
        for pid in carrying_token(token) if token else []:
            start = _start_time(pid)
            if pid != me and start is not None:
                seen.setdefault(pid, start)
        for pid in list(seen):
            if _start_time(pid) != seen[pid]:
                del seen[pid]
                continue
            for child in descendants(pid):
                start = _start_time(child)
                if child != me and start is not None:
                    seen.setdefault(child, start)
        for pid in seen:
            with contextlib.suppress(OSError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.2)


class Reaper:
    """Kills what this process started, directly or not, if this process is killed.

    `start()` before starting the processes (e.g. before ray.init), `stop()` after they have
    been shut down normally. Linux only (needs /proc); elsewhere start() does nothing.
    """

    def __init__(self, interval_s: float = POLL_S) -> None:
        self.interval_s = interval_s
        self.process: subprocess.Popen | None = None
        self._saved_token: str | None = None

    def start(self) -> bool:
        """Start the watcher process; False where it cannot run (no /proc, frozen app)."""
        script = os.path.abspath(__file__)
        if (
            not os.path.isdir("/proc")
            or getattr(sys, "frozen", False)
            or not os.path.isfile(script)
        ):
            log.info("no reaper for child processes on this platform")
            return False
        token = f"{os.getpid()}-{os.urandom(8).hex()}"
        env = {k: v for k, v in os.environ.items() if k != TOKEN_VAR}
        self.process = subprocess.Popen(
            [sys.executable, "-I", "-S", script, str(os.getpid()), str(self.interval_s), token],
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            env=env,
            start_new_session=True,  # the terminal's signals are not its business
        )
        # Set after the reaper started, so the reaper itself does not carry it.
        self._saved_token = os.environ.get(TOKEN_VAR)
        os.environ[TOKEN_VAR] = token
        return True

    def stop(self) -> None:
        """Tell the watcher this process cleaned up after itself; it exits without killing."""
        proc, self.process = self.process, None
        if proc is None or proc.stdin is None:
            return
        if self._saved_token is None:
            os.environ.pop(TOKEN_VAR, None)
        else:
            os.environ[TOKEN_VAR] = self._saved_token
        with contextlib.suppress(OSError):
            proc.stdin.write(b"done")
            proc.stdin.close()
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(5)

    def __enter__(self) -> Reaper:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


if __name__ == "__main__":  # the reaper process (Reaper.start)
    _reap(int(sys.argv[1]), float(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else "")
