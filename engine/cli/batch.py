"""`ipcgrasp batch`: label a table of grasps with IPC trials and analytic models, resumably."""

from __future__ import annotations

import argparse
import math
import sys
import time
from typing import TYPE_CHECKING

from engine import schema
from engine.analytic.params import AnalyticParams, RobustnessSampling
from engine.analytic.registry import IPC, batch_models, names
from engine.batch.recycle import DEFAULT_TRIAL_TIMEOUT_S, RecyclePolicy
from engine.cli.commands import help_of
from engine.cli.parsing import HelpFormatter
from engine.cli.scene_args import add_unit_argument
from engine.cores import MAX_WORKERS, usable_cores
from engine.errors import ParameterError
from engine.grasp.params import SimulationParams
from engine.grasp.trial_plan import TrialSpec
from engine.mujoco_baseline.params import MujocoParams
from engine.version import build_id

if TYPE_CHECKING:
    from engine.batch.grasp_table import GraspTable
    from engine.batch.results_store import ResumeInfo
    from engine.batch.runner import BatchSummary
    from engine.batch.tasks import BatchConfig, Task


def add_batch_arguments(
    p: argparse.ArgumentParser, models: bool = True, exclude: tuple[str, ...] = ()
) -> None:
    """Options shared by `batch` and `grid`: grasps, trials, physics, execution.

    `exclude` names SimulationParams fields the command gives its own flags for (grid's lists).
    """
    p.add_argument("grasps", metavar="GRASPS", help="grasp CSV or REACH-format JSON")
    if models:
        p.add_argument(
            "--models",
            default=IPC,
            help=f"comma-separated models among {','.join(names(batch_models()))}",
        )
    schema.add_arguments(
        p.add_argument_group("IPC trials of each grasp"), TrialSpec, defaults={"n_trials": 5}
    )
    schema.add_arguments(p, RobustnessSampling)
    schema.add_arguments(
        p.add_argument_group("simulation parameters (SI units; per-row values win)"),
        SimulationParams,
        exclude=exclude,
    )
    schema.add_arguments(p.add_argument_group("MuJoCo baseline (--models mujoco)"), MujocoParams)
    p.add_argument("--mesh-dir", help="folder of REACH meshes <obj>.obj (default: the JSON's)")
    p.add_argument("--mass", type=float, help="object mass in kg for rows that give none")
    add_unit_argument(p, "length unit of the CSV's mesh files, for rows without a unit column")
    p.add_argument("--limit", type=int, help="only the first N grasps of the table")
    p.add_argument(
        "--workers", type=int, help="parallel workers (default: all cores; 0: in this process)"
    )
    defaults = RecyclePolicy()
    p.add_argument(
        "--max-tasks-per-worker",
        type=int,
        default=defaults.max_tasks,
        help="replace a worker process by a fresh one after this many tasks (0: never)",
    )
    p.add_argument(
        "--max-worker-memory",
        type=float,
        default=defaults.max_memory_mb,
        metavar="MB",
        help="replace a local worker whose resident memory exceeds this after a task (0: never)",
    )
    p.add_argument("--backend", choices=["local", "ray"], default="local")
    p.add_argument("--ray-address", help="join this Ray cluster (default: start a local one)")
    p.add_argument(
        "--retry-errors", action="store_true", help="re-run tasks that ended with an error row"
    )
    p.add_argument(
        "--allow-mixed-versions",
        action="store_true",
        help="resume a results file that holds rows of another engine build: its rows are "
        "kept, every task runs again with this build and rows say which build made them",
    )
    p.add_argument(
        "--trial-timeout",
        type=float,
        default=DEFAULT_TRIAL_TIMEOUT_S,
        metavar="S",
        help="wall-clock limit of one task in seconds (0: none): a task over it ends as an "
        "error row saying so (rerun it with --retry-errors) and the batch goes on",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument(
        "--progress-interval",
        type=float,
        default=10.0,
        help="s between progress lines when stderr is not a terminal",
    )


def add_parser(sub: argparse._SubParsersAction) -> None:
    """Register `ipcgrasp batch` (grasp table, models, backend, SimulationParams flags)."""
    p = sub.add_parser(
        "batch",
        help=help_of("batch"),
        description=(
            "Run every (grasp, model, trial) task of GRASPS and append one row per finished task "
            "to --out. Running the same command again resumes: finished tasks are skipped."
        ),
        formatter_class=HelpFormatter,
    )
    add_batch_arguments(p)
    p.add_argument("--out", required=True, help="results CSV (appended to, resumable)")
    p.add_argument(
        "--frames",
        metavar="DIR",
        help="keep every IPC trial's frames: one compressed .npz per trial in DIR, named by its "
        "task key (engine/io/frames_npz.py; the app replays them); resumable: a finished trial "
        "without its file runs again for it, an existing complete file is kept",
    )
    p.add_argument(
        "--analytic-mu", type=float, help="friction of the analytic models (default: --mu)"
    )
    p.set_defaults(run=run)


def params_from_args(args: argparse.Namespace, **overrides: float) -> SimulationParams:
    """The batch-wide simulation parameters from the flags (`overrides` for grid's E and mu)."""
    return schema.from_args(SimulationParams, args, **overrides)


def config_from_args(
    args: argparse.Namespace, models: tuple[str, ...], params: SimulationParams
) -> BatchConfig:
    """The batch-wide settings from the flags."""
    from engine.batch.tasks import BatchConfig

    if args.workers is not None and not 0 <= args.workers <= MAX_WORKERS:
        raise ParameterError(
            f"--workers must be 0 (in this process) to {MAX_WORKERS} (got {args.workers}); "
            f"this machine has {usable_cores()} cores: leave it out to use them all"
        )
    analytic_mu = getattr(args, "analytic_mu", None)
    if analytic_mu is not None:
        mu = schema.field_spec(AnalyticParams, "mu")
        try:
            schema.check_value(mu, analytic_mu)
        except ParameterError:
            raise ParameterError(
                f"--analytic-mu must be {mu.spec.range_text()} (got {analytic_mu}): the analytic "
                "models' friction coefficient"
            ) from None
    timeout = getattr(args, "trial_timeout", 0.0)
    if not (timeout >= 0.0 and math.isfinite(timeout)):
        raise ParameterError(f"--trial-timeout must be a number of seconds >= 0 (got {timeout})")
    return BatchConfig(
        models=models,
        spec=schema.from_args(TrialSpec, args),
        samples=schema.from_args(RobustnessSampling, args).samples,
        params=params,
        analytic_mu=analytic_mu,
        mujoco=schema.from_args(MujocoParams, args),
        frames_dir=_frames_folder(getattr(args, "frames", None)),
        trial_timeout_s=timeout if timeout > 0 else None,
    )


def _frames_folder(path: str | None) -> str | None:
    from engine.batch.trial_frames import frames_folder

    return frames_folder(path)


def _resume_frames(prog: str, out: str, info: ResumeInfo, tasks: list[Task]) -> ResumeInfo:
    """With --frames: finished IPC trials whose frames file is missing or damaged run again
    for it (one line says how many of each)."""
    folder = tasks[0].config.frames_dir if tasks else None
    if not folder:
        return info
    from engine.batch.results_store import read_results
    from engine.batch.trial_frames import missing_frames, rerun_for_frames

    if not info.ok_keys:
        return info
    redo = missing_frames(tasks, read_results([out]), folder)
    if redo.missing:
        print(
            f"{prog}: {len(redo.missing)} finished IPC trials have no frames file in {folder}: "
            "they run again for their frames (their rows are kept)",
            file=sys.stderr,
        )
    if redo.damaged:
        print(
            f"{prog}: {len(redo.damaged)} frames files in {folder} are damaged (their arrays do "
            "not match their checksum): those trials run again for their frames (rows kept)",
            file=sys.stderr,
        )
    return rerun_for_frames(info, redo.keys)


def load_table(args: argparse.Namespace) -> GraspTable:
    """The grasp table of `args.grasps` (with --backend ray, fails first if Ray is missing)."""
    from engine.batch.grasp_table import read_grasp_table

    if args.backend == "ray":
        from engine.batch.ray_backend import import_ray

        import_ray()  # fail before anything is written
    if args.mass is not None and not (math.isfinite(args.mass) and args.mass > 0):
        raise ParameterError(
            f"--mass must be a finite mass in kg > 0 (got {args.mass}): the mass of the objects "
            "of rows that give none"
        )
    return read_grasp_table(
        args.grasps, mesh_dir=args.mesh_dir, mass_kg=args.mass, unit=args.unit, limit=args.limit
    )


def execute(
    args: argparse.Namespace, table: GraspTable, tasks: list[Task], out: str, prog: str
) -> BatchSummary:
    """Open (or resume) `out`, run the tasks with a progress bar, print a summary."""
    from engine.batch.progress import Progress, format_duration
    from engine.batch.results_store import ResultsStore
    from engine.batch.runner import pending_tasks, run_batch

    for note in table.warnings:
        print(f"{prog}: note: {note}", file=sys.stderr)
    if table.errors:
        # At the start, before any task runs: "3 of 125 rows are invalid: ...".
        print(f"{prog}: warning: {table.invalid_summary(show=3)}", file=sys.stderr)
        for spec in table.errors[3:]:
            print(f"{prog}: invalid: {spec.error}", file=sys.stderr)
    _check_meshes(prog, table)
    store = ResultsStore(out)
    info = store.open()
    try:
        _check_versions(out, info, getattr(args, "allow_mixed_versions", False))
        store.repair()  # only now: a file refused above is left byte for byte as it was
        _report_resume(prog, out, info, tasks, args.retry_errors)
        info = _resume_frames(prog, out, info, tasks)
        progress = Progress(
            len({t.key for t in tasks}),
            0,
            interval_s=args.progress_interval,
            enabled=not args.quiet,
        )
        progress.done = progress.total - len(pending_tasks(tasks, info, args.retry_errors))
        start = time.monotonic()
        summary = run_batch(
            tasks,
            store,
            info,
            backend=args.backend,
            workers=args.workers,
            ray_address=args.ray_address,
            retry_errors=args.retry_errors,
            progress=progress,
            policy=recycle_policy(args),
        )
    finally:
        store.close()
    finished = summary.skipped + summary.ran
    elapsed = format_duration(time.monotonic() - start)
    if summary.interrupted:
        how = f" by {summary.stopped_by}" if summary.stopped_by else ""
        print(
            f"{prog}: interrupted{how} after {summary.ran} new tasks ({elapsed}); the workers "
            f"are stopped and {finished} of {summary.total} tasks are in {out}: run the same "
            "command to resume",
            file=sys.stderr,
        )
    else:
        print(
            f"{prog}: {summary.ran} tasks run in {elapsed} ({summary.errors} errors), "
            f"{summary.skipped} already done; {finished}/{summary.total} tasks in {out}",
            file=sys.stderr,
        )
        if summary.ran:
            print(
                f"{prog}: workers: largest {summary.largest_worker_mb:.0f} MB, "
                f"{summary.recycled_workers} recycled",
                file=sys.stderr,
            )
        if summary.failed:
            n = summary.earlier_errors
            earlier = f", {n} of them in an earlier run" if n else ""
            print(
                f"{prog}: {summary.failed} of {summary.total} tasks ended in an error row"
                f"{earlier} (exit status {summary.exit_status}); their 'reason' and 'error' "
                "columns say why: after fixing the cause, run the same command with "
                "--retry-errors to run just them again",
                file=sys.stderr,
            )
    return summary


def _check_meshes(prog: str, table: GraspTable) -> None:
    """Before the first task: every mesh the table names loads and its grasps' masses are
    possible; each object's size, mass and density, and every problem, on stderr (none of the
    grasps can run: GraspTableError, nothing written)."""
    from engine.batch.mesh_check import check_meshes

    check = check_meshes(table)
    for line in check.objects:
        print(f"{prog}: {line}", file=sys.stderr)
    if check.problems:
        print(
            f"{prog}: warning: {check.unusable} of {check.checked} grasps cannot run; their "
            "tasks end in error rows (fix them and run again with --retry-errors):",
            file=sys.stderr,
        )
        for problem in check.problems:
            print(f"{prog}:   {problem}", file=sys.stderr)


def recycle_policy(args: argparse.Namespace) -> RecyclePolicy:
    """When workers are replaced, from --max-tasks-per-worker and --max-worker-memory."""
    policy = RecyclePolicy(
        max_tasks=getattr(args, "max_tasks_per_worker", RecyclePolicy.max_tasks),
        max_memory_mb=getattr(args, "max_worker_memory", RecyclePolicy.max_memory_mb),
    )
    if policy.max_tasks < 0 or policy.max_memory_mb < 0:
        raise ParameterError("--max-tasks-per-worker and --max-worker-memory must be >= 0")
    return policy


def _check_versions(out: str, info: ResumeInfo, allow: bool) -> None:
    """Refuse to add this build's rows to a file of another build's rows unless allowed."""
    other = {v: n for v, n in info.versions.items() if v != build_id()}
    if not other or allow:
        return
    found = ", ".join(f"{n} rows of ipcgrasp {v}" for v, n in sorted(other.items()))
    raise ParameterError(
        f"{out} holds {found}; this is ipcgrasp {build_id()}, whose solver may give other "
        "outcomes, so its rows would be mixed with them. Write to a new --out, or pass "
        "--allow-mixed-versions to keep the old rows and run every task again with this build "
        "(each row names its build in ipcgrasp_version)"
    )


def _report_resume(
    prog: str, out: str, info: ResumeInfo, tasks: list[Task], retry_errors: bool
) -> None:
    if info.repaired_bytes:
        print(
            f"{prog}: {out} ended with a half-written row ({info.repaired_bytes} bytes, kept in "
            f"{out}.partial); cut it off, that task runs again",
            file=sys.stderr,
        )
    if info.missing_columns:
        print(
            f"{prog}: note: {out} was started by another ipcgrasp version; new rows keep its "
            f"columns, so {', '.join(info.missing_columns)} are not recorded",
            file=sys.stderr,
        )
    if info.unreadable_rows:
        lines = ", ".join(map(str, info.unreadable_rows[:10]))
        print(
            f"{prog}: warning: {len(info.unreadable_rows)} unreadable row(s) in {out} "
            f"(lines {lines}) are ignored; their tasks run again",
            file=sys.stderr,
        )
    keys = {t.key for t in tasks}
    ok = len(keys & info.ok_keys)
    err = len(keys & info.error_keys)
    if ok or err:
        retry = " (re-running them: --retry-errors)" if retry_errors and err else ""
        print(
            f"{prog}: resuming {out}: {ok} tasks done, {err} ended with errors{retry}, "
            f"{len(keys) - ok - (0 if retry_errors else err)} to run",
            file=sys.stderr,
        )
    foreign = len((info.ok_keys | info.error_keys) - keys)
    if foreign:
        print(
            f"{prog}: note: {out} also holds {foreign} rows of other tasks (other grasps or "
            "settings); they are kept",
            file=sys.stderr,
        )


def run(args: argparse.Namespace) -> int:
    """Run (or resume) the batch into `args.out`; exit status 128 + the signal when stopped by
    one (130: Ctrl+C, 143: SIGTERM), else 1 when any of its tasks ended in an error row (this
    run's or an earlier one's), else 0."""
    from engine.batch.tasks import make_tasks, parse_models
    from engine.grasp.pad_strain import pad_strain_advice

    models = parse_models(args.models)
    params = params_from_args(args)
    advice = pad_strain_advice(params) if IPC in models else None
    if advice is not None:
        print(f"ipcgrasp batch: warning: {advice}", file=sys.stderr)
    config = config_from_args(args, models, params)
    table = load_table(args)
    tasks = make_tasks(table, config)
    summary = execute(args, table, tasks, args.out, "ipcgrasp batch")
    return summary.exit_status
