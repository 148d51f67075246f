"""Run a batch: skip finished tasks, execute the rest on a backend, append each row as it lands.

Backends yield result rows as tasks complete; this driver is the only writer of the results
file. Local backend: a process pool (spawn context, one ipctk/BLAS thread per worker), at most
2 tasks in flight per worker so Ctrl+C and crashes lose little. A worker that dies (segfault,
out of memory) breaks the pool: the tasks in flight are re-run one at a time in a fresh pool,
and a task whose worker dies while it runs alone is recorded as an error. `workers=0` runs the tasks in this process (debugging, tests).

Recycling (RecyclePolicy): every task reports its worker's resident memory; when a worker has run
`max_tasks` tasks or is above `max_memory_mb`, the pool takes no new task, lets the tasks in flight
finish (their rows are yielded as usual) and is replaced by a fresh pool, so a leak in native code
cannot grow a worker without bound and no row is lost or computed twice. On Ray, `max_tasks` is
the remote function's `max_calls`.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import socket
import sys
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from engine.batch.progress import Progress
from engine.batch.recycle import RecyclePolicy
from engine.batch.results_store import ResultsStore, ResumeInfo
from engine.batch.task_run import run_task
from engine.batch.tasks import STATUS_ERROR, Task, error_row
from engine.batch.worker_init import init_worker
from engine.cores import usable_cores

if TYPE_CHECKING:
    from multiprocessing.context import BaseContext

log = logging.getLogger(__name__)

# One thread per worker: the workers are the parallelism.
WORKER_ENV = {
    "IPCGRASP_IPCTK_THREADS": "1",
    "IPCGRASP_QUERY_THREADS": "1",
    "OMP_NUM_THREADS": "1",
    "OPENBLAS_NUM_THREADS": "1",
    "MKL_NUM_THREADS": "1",
    "NUMBA_NUM_THREADS": "1",
}
MAX_ATTEMPTS = 2  # Ray: a task whose worker dies twice is recorded as an error
EXIT_ERROR_ROWS = 1
"""Exit status of a batch that finished with error rows (bad input exits 2, signals 128 + N)."""


@dataclass(frozen=True)
class BatchSummary:
    total: int  # tasks in the batch
    skipped: int  # finished before this run
    ran: int  # finished in this run
    errors: int  # of those, with status 'error'
    interrupted: bool
    largest_worker_mb: float = 0.0  # the largest memory high-water mark a worker reported
    recycled_workers: int = 0
    stop_signal: int = 0  # the signal that stopped the batch (SIGINT, SIGTERM), 0 if none
    earlier_errors: int = 0  # tasks whose error row an earlier run wrote (not run again)

    @property
    def stopped_by(self) -> str:
        """The name of the signal that stopped the batch ('SIGTERM'), '' if none."""
        return signal.Signals(self.stop_signal).name if self.stop_signal else ""

    @property
    def failed(self) -> int:
        """Tasks of the batch whose row is an error row: this run's and earlier runs'."""
        return self.errors + self.earlier_errors

    @property
    def exit_status(self) -> int:
        """The command's exit status: 128 + the signal when interrupted (130: Ctrl+C), else
        EXIT_ERROR_ROWS when any task of the batch ended in an error row, else 0."""
        if self.interrupted:
            return 128 + (self.stop_signal or signal.SIGINT)
        return EXIT_ERROR_ROWS if self.failed else 0


@dataclass
class WorkerStats:
    """Memory reported by the workers with their rows, and how many workers were replaced."""

    rss_mb: dict[str, float] = field(default_factory=dict)  # live worker -> MB after last task
    tasks: dict[str, int] = field(default_factory=dict)  # live worker -> tasks run
    largest_mb: float = 0.0  # the largest resident memory seen in this run
    peak_mb: float = 0.0  # the largest high-water mark (ru_maxrss) seen in this run
    recycled: int = 0

    @property
    def current_mb(self) -> float:
        """Resident memory of the largest live worker (0 before the first report)."""
        return max(self.rss_mb.values(), default=0.0)

    def record(self, worker: str, rss_mb: float, peak_mb: float) -> int:
        """Note one finished task of `worker`; returns how many tasks it has run."""
        self.rss_mb[worker] = rss_mb
        self.tasks[worker] = self.tasks.get(worker, 0) + 1
        self.largest_mb = max(self.largest_mb, rss_mb)
        self.peak_mb = max(self.peak_mb, peak_mb)
        return self.tasks[worker]

    def retire(self, worker: str, recycled: bool = True) -> None:
        """`worker` is gone (`recycled`: replaced by a fresh process because it was due)."""
        if self.rss_mb.pop(worker, None) is not None and recycled:
            self.recycled += 1
        self.tasks.pop(worker, None)


def worker_memory_mb() -> tuple[float, float]:
    """(resident, high-water mark) memory of this process in MB."""
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    peak_mb = peak / 2**20 if sys.platform == "darwin" else peak / 1024
    try:
        with open("/proc/self/statm") as f:
            rss_mb = int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20
    except (OSError, ValueError, IndexError):
        rss_mb = peak_mb
    return rss_mb, peak_mb


Measured = tuple[dict[str, object], str, float, float]


def measured(fn: Callable[[Task], dict], task: Task) -> Measured:
    """In a worker: `fn(task)` with the worker's id ('host:pid') and its memory afterwards."""
    row = fn(task)
    return (row, f"{socket.gethostname()}:{os.getpid()}", *worker_memory_mb())


def pending_tasks(tasks: list[Task], info: ResumeInfo, retry_errors: bool = False) -> list[Task]:
    """Tasks without a finished row (errors count as finished unless `retry_errors`)."""
    done = set(info.ok_keys)
    if not retry_errors:
        done |= info.error_keys
    seen: set[str] = set()
    out = []
    for t in tasks:
        if t.key not in done and t.key not in seen:
            seen.add(t.key)
            out.append(t)
    return out


def default_workers() -> int:
    return usable_cores()


@contextlib.contextmanager
def worker_environment() -> Iterator[None]:
    """Set the one-thread variables for workers started meanwhile (spawned children inherit)."""
    saved = {k: os.environ.get(k) for k in WORKER_ENV}
    for k, v in WORKER_ENV.items():
        os.environ.setdefault(k, v)
    try:
        yield
    finally:
        for k, old in saved.items():
            if old is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = old


def _terminate(executor: ProcessPoolExecutor) -> None:
    processes = list(getattr(executor, "_processes", {}).values())
    executor.shutdown(wait=False, cancel_futures=True)
    for p in processes:
        with contextlib.suppress(Exception):
            p.terminate()
    for p in processes:
        with contextlib.suppress(Exception):
            p.join(timeout=5)


def local_results(
    tasks: list[Task],
    workers: int,
    fn: Callable[[Task], dict] = run_task,
    policy: RecyclePolicy | None = None,
    stats: WorkerStats | None = None,
) -> Generator[dict[str, object], None, None]:
    """Rows of `tasks` in completion order, computed by `fn` in a spawn process pool.

    Workers are replaced per `policy` (default RecyclePolicy()); `stats` collects their memory.
    """
    policy = policy if policy is not None else RecyclePolicy()
    stats = stats if stats is not None else WorkerStats()
    if workers == 0:
        for task in tasks:
            row, worker, rss, peak = measured(fn, task)
            stats.record(worker, rss, peak)
            yield row
        return
    import multiprocessing

    ctx = multiprocessing.get_context("spawn")
    queue = list(reversed(tasks))  # pop() from the end keeps the batch order
    # Tasks in flight when a worker died: re-run one at a time, so the crash is pinned on the
    # task that causes it and the others are not charged.
    suspects: list[Task] = []
    while queue or suspects:
        lost, alone = yield from _pool_rows(ctx, workers, fn, policy, stats, queue, suspects)
        if alone and lost:
            for task in lost:
                log.error("task %s killed its worker twice: recorded as an error", task.key)
                yield error_row(
                    task,
                    "worker died",
                    "the worker process died while running this task alone (a crash in the "
                    f"solver or out of memory{_main_guard_hint()})",
                )
        else:
            suspects.extend(reversed(lost))


def _pool_rows(
    ctx: BaseContext,
    workers: int,
    fn: Callable[[Task], dict],
    policy: RecyclePolicy,
    stats: WorkerStats,
    queue: list[Task],
    suspects: list[Task],
) -> Generator[dict[str, object], None, tuple[list[Task], bool]]:
    """Rows from one process pool, taking tasks from the end of `queue` (or one suspect at a
    time) until a worker dies or one is due for recycling; then the pool is stopped.

    Returns the tasks lost with a dead worker and whether the last of them ran alone."""
    executor = ProcessPoolExecutor(workers, mp_context=ctx, initializer=init_worker)
    in_flight: dict[Future, Task] = {}
    lost: list[Task] = []
    alone = False
    recycle = False  # a worker is due: take no new task, drain, start a fresh pool
    try:
        while (suspects or in_flight or (queue and not recycle)) and not lost:
            if suspects:
                if not in_flight:
                    task = suspects.pop()
                    in_flight[executor.submit(measured, fn, task)] = task
                    alone = True
            else:
                alone = False
                while queue and not recycle and len(in_flight) < 2 * workers:
                    task = queue.pop()
                    in_flight[executor.submit(measured, fn, task)] = task
            finished, _ = wait(in_flight, return_when=FIRST_COMPLETED)
            for fut in finished:
                task = in_flight.pop(fut)
                try:
                    row, worker, rss, peak = fut.result()
                except BrokenProcessPool:
                    log.warning("a worker died with task %s in flight", task.key)
                    lost.append(task)
                    continue
                except Exception as exc:  # pickling problems and the like
                    log.error("task %s failed outside run_task", task.key, exc_info=True)
                    row = error_row(task, "task failed", f"{type(exc).__name__}: {exc}")
                else:
                    if policy.due(stats.record(worker, rss, peak), rss) and not recycle:
                        log.info(
                            "recycling the workers (%s ran %d tasks, %.0f MB)",
                            worker,
                            stats.tasks[worker],
                            rss,
                        )
                        recycle = True
                yield row
    finally:
        _terminate(executor)
        for worker in list(stats.rss_mb):  # every worker of this pool is gone
            stats.retire(worker, recycled=recycle)
    lost += in_flight.values()
    return lost, alone


def _main_guard_hint() -> str:
    """A hint for a batch started by the user's own script: workers start by importing the
    main module, so an unguarded script starts the batch again in every worker, which dies."""
    main = sys.modules.get("__main__")
    path = str(getattr(main, "__file__", "") or "")
    if not path.endswith(".py") or os.sep + "engine" + os.sep in path:
        return ""
    return (
        f", or {os.path.basename(path)} starts the batch without an "
        "'if __name__ == \"__main__\":' guard: every worker runs it again on start"
    )


class StopSignals:
    """SIGINT (Ctrl+C) and SIGTERM in the driver: stop the batch cleanly.

    The first signal raises KeyboardInterrupt where the driver waits for rows, or right after
    the row being written (a row is never cut in half); the backend's cleanup then stops the
    workers. A second signal exits at once (the rows on disk are complete; the workers end
    with their driver, see engine.lifeline).
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.signum = 0
        self.writing = False
        self._previous: dict[int, Any] = {}

    def install(self) -> None:
        """Handle the signals from now on (only the main thread can; elsewhere a no-op)."""
        for sig in self.SIGNALS:
            with contextlib.suppress(ValueError):
                self._previous[sig] = signal.signal(sig, self._handle)

    def restore(self) -> None:
        for sig, handler in self._previous.items():
            with contextlib.suppress(ValueError, TypeError):
                signal.signal(sig, handler)
        self._previous.clear()

    def _handle(self, signum: int, frame: object) -> None:
        if self.signum:
            os._exit(128 + signum)
        self.signum = signum
        name = signal.Signals(signum).name
        print(f"\n{name}: stopping the workers (again to exit at once)", file=sys.stderr)
        if not self.writing:
            raise KeyboardInterrupt

    @contextlib.contextmanager
    def writing_row(self) -> Iterator[None]:
        """A row is being written: a signal now takes effect once it is complete."""
        self.writing = True
        try:
            yield
        finally:
            self.writing = False
        if self.signum:
            raise KeyboardInterrupt


def run_batch(
    tasks: list[Task],
    store: ResultsStore,
    info: ResumeInfo,
    backend: str = "local",
    workers: int | None = None,
    ray_address: str | None = None,
    retry_errors: bool = False,
    progress: Progress | None = None,
    on_row: Callable[[dict[str, object]], None] | None = None,
    policy: RecyclePolicy | None = None,
    fn: Callable[[Task], dict] = run_task,
    stats: WorkerStats | None = None,
) -> BatchSummary:
    """Run the unfinished `tasks`, appending each row to `store` as it completes.

    Ctrl+C (or SIGTERM) stops the workers (StopSignals); every row finished so far is already
    on disk and the summary says which signal stopped the batch.
    Workers are replaced per `policy`; `progress` shows their memory and how many were replaced.
    """
    todo = pending_tasks(tasks, info, retry_errors)
    unique = len({t.key for t in tasks})
    skipped = unique - len(todo)
    if workers is None:
        workers = default_workers()
    if progress is None:
        progress = Progress(unique, skipped, enabled=False)
    ran = errors = 0
    interrupted = False
    stats = stats if stats is not None else WorkerStats()
    progress.workers = stats
    if backend == "ray":
        from engine.batch.ray_backend import ray_results

        results = ray_results(todo, ray_address, workers or None, fn, policy, stats)
    elif backend == "local":
        results = local_results(todo, workers, fn, policy, stats)
    else:
        raise ValueError(f"unknown backend {backend!r}")

    stop = StopSignals()
    try:
        stop.install()
        progress.draw(force=True)
        with worker_environment():
            for row in results:
                with stop.writing_row():  # a signal waits until the row is on disk
                    store.append(row)
                    ran += 1
                    is_error = row.get("status") == STATUS_ERROR
                    errors += int(is_error)
                    progress.update(error=is_error)
                    if on_row is not None:
                        on_row(row)
    except KeyboardInterrupt:
        interrupted = True
    finally:
        try:
            results.close()
        finally:
            stop.restore()
            progress.close()
    peak = max(stats.largest_mb, stats.peak_mb)
    # Error rows of earlier runs that this one did not run again count as the batch's too.
    earlier = 0 if retry_errors else len({t.key for t in tasks} & info.error_keys)
    return BatchSummary(
        unique, skipped, ran, errors, interrupted, peak, stats.recycled, stop.signum, earlier
    )
