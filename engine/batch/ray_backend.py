"""Ray backend: the same tasks as the local pool, on a Ray cluster or a local Ray instance.

Results come back to the driver, which writes them (same file semantics as the local backend).
With `address` (e.g. 'ray://head:10001' or 'auto') it joins an existing cluster; every node
needs ipcgrasp installed in the same version (the task function is imported there by name).
Without it a local instance with `num_cpus` CPUs is started and shut down at the end.

Lifetime: a local instance started here is shut down at the end, on Ctrl+C and on SIGTERM; if
the driver is killed (kill -9), an engine.lifeline.Reaper kills what it had started (Ray's
fate sharing ends the GCS, raylet and workers, but its agents wait a minute for the dead GCS).
Joining a cluster, the cluster's Ray ends this driver's tasks when the driver disconnects.

Workers: a Ray worker process is replaced after `RecyclePolicy.max_tasks` tasks (`max_calls`); its
memory is bounded by Ray's own memory monitor (RAY_memory_usage_threshold), and each row reports
the worker's memory for the progress line. A lost node (or a dead worker) makes Ray run the
tasks it held again elsewhere (`max_retries`); the driver yields one row per task whatever
happened, so the results file gets every row exactly once.
"""

from __future__ import annotations

import contextlib
import signal
from collections.abc import Callable, Generator, Iterator
from typing import Any

from engine.batch.runner import (
    MAX_ATTEMPTS,
    WORKER_ENV,
    RecyclePolicy,
    WorkerStats,
    measured,
)
from engine.batch.task_run import run_task
from engine.batch.tasks import Task, error_row
from engine.errors import ParameterError
from engine.lifeline import Reaper


def import_ray() -> Any:
    """The `ray` module (untyped, hence Any); ParameterError naming the install if missing."""
    try:
        import ray
    except ImportError as exc:
        raise ParameterError(
            "--backend ray needs Ray: pip install 'ray[default]' (or, from the checkout, "
            "pip install '.[ray]'), or use "
            f"--backend local ({exc})"
        ) from exc
    return ray


def ray_results(
    tasks: list[Task],
    address: str | None = None,
    num_cpus: int | None = None,
    fn: Callable[[Task], dict] = run_task,
    policy: RecyclePolicy | None = None,
    stats: WorkerStats | None = None,
) -> Generator[dict[str, object], None, None]:
    """Rows of `tasks` in completion order, computed by `fn` on Ray workers (one CPU per task)."""
    if not tasks:
        return
    policy = policy if policy is not None else RecyclePolicy()
    stats = stats if stats is not None else WorkerStats()
    ray = import_ray()
    started = False
    # A local instance is ours: its processes (GCS, raylet, agents, workers) must not outlive
    # this driver even when it is killed; Ray's own fate sharing leaves its agents running.
    reaper = Reaper() if not address and not ray.is_initialized() else None
    in_flight: dict[Any, Task] = {}  # Ray ObjectRef -> its task
    try:
        if not ray.is_initialized():
            kwargs: dict[str, Any] = {
                "runtime_env": {"env_vars": dict(WORKER_ENV)},
                "include_dashboard": False,
                "log_to_driver": False,
            }
            started = True
            with _keep_signal_handlers():
                if reaper is None:
                    ray.init(address=address, **kwargs)
                else:
                    reaper.start()
                    # "local": a new instance even when this machine runs a cluster (ray start).
                    ray.init(address="local", num_cpus=num_cpus, **kwargs)
        remote = ray.remote(num_cpus=1, max_retries=MAX_ATTEMPTS - 1, max_calls=policy.max_tasks)(
            measured
        )
        capacity = max(1, int(ray.cluster_resources().get("CPU", 1)))
        queue = list(reversed(tasks))
        while queue or in_flight:
            while queue and len(in_flight) < 2 * capacity:
                task = queue.pop()
                in_flight[remote.remote(fn, task)] = task
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                task = in_flight.pop(ref)
                try:
                    row, worker, rss, peak = ray.get(ref)
                except Exception as exc:  # worker died twice, object lost, ...
                    row = error_row(task, "worker died", f"{type(exc).__name__}: {exc}")
                else:
                    ran = stats.record(worker, rss, peak)
                    if policy.max_tasks and ran >= policy.max_tasks:
                        stats.retire(worker)  # Ray replaces it after max_calls
                yield row
    finally:
        if not started:
            # On a cluster the unfinished tasks would run on: cancel them. An instance of our
            # own is shut down with its workers instead: cancelling a task that is finishing
            # crashed Ray 2.60's driver ("Tried to complete task that was not pending", a
            # C++ check that aborts with exit 1) when Ctrl+C reached the process group.
            for ref in in_flight:
                with contextlib.suppress(Exception):
                    ray.cancel(ref, force=True)
        if started:
            with contextlib.suppress(Exception):
                ray.shutdown()
        if reaper is not None:
            reaper.stop()


@contextlib.contextmanager
def _keep_signal_handlers() -> Iterator[None]:
    """ray.init installs its own SIGTERM handler (it prints a trace and exits): put the
    driver's back, so SIGTERM stops a batch as cleanly as Ctrl+C (engine.batch.runner)."""
    saved = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    try:
        yield
    finally:
        for sig, handler in saved.items():
            if handler is not None:
                with contextlib.suppress(ValueError, TypeError):
                    signal.signal(sig, handler)
