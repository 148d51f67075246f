"""Batch tasks: one IPC or MuJoCo trial, or one analytic model's robustness over samples.

A task is plain picklable data (it travels to spawn workers and Ray workers);
`run_task` (engine.batch.task_run) turns it into one result row (the columns and the rows'
common part are here: RESULT_COLUMNS, base_row, error_row) and never raises: a failure becomes
a row with status 'error' and why.

Seeds: every grasp gets its own perturbation seed derived from (batch seed, grasp id), and the
same list is used by every model (IPC trial k is trial k of the grasp's trial plan,
engine.grasp.trials.plan_trials with that seed: the nominal pose when N = 1, else
sample_perturbations(N, grasp_seed)[k]; the analytic models get `samples` perturbations from the
same seed), so model comparisons are paired.

The MuJoCo baseline (engine.mujoco_baseline) is a trial model like IPC: one task per trial k of
the same plan, so its rows pair with IPC's trial by trial (same pose, same perturbation columns)
and `evaluate` reduces both the same way (mean success over a grasp's trials).

Task keys include the engine build (engine.version.build_id), so rows of other solver code are
never taken for this code's results, and an analytic task's key every AnalyticParams field
(engine.analytic.from_simulation: the gripper's opening, pad and grip force among them).

The models come from engine.analytic.registry; each task carries its model's entry, so a model
registered at run time in the driver is registered in the spawned or Ray worker that runs it.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import platform
import socket
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

import numpy as np

from engine import schema
from engine.analytic import registry
from engine.analytic.from_simulation import analytic_params_for
from engine.analytic.registry import IPC, MUJOCO, ModelSpec
from engine.batch.grasp_spec import GraspSpec
from engine.batch.grasp_table import GraspTable
from engine.batch.recycle import DEFAULT_TRIAL_TIMEOUT_S
from engine.errors import ParameterError
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.trials import TrialSpec
from engine.io.results_csv import OUTCOME_COLUMNS
from engine.mujoco_baseline.params import MujocoParams
from engine.scene.object_facts import OBJECT_COLUMNS, ObjectFacts
from engine.scene.object_mesh import MESH_COLUMNS, ObjectMesh, mesh_columns
from engine.version import build_id

if TYPE_CHECKING:
    from engine.analytic.params import AnalyticParams
    from engine.scene.resting import RestingObject

STATUS_OK = "ok"
STATUS_ERROR = "error"

IPC_OUTCOMES = [
    c for c in OUTCOME_COLUMNS if c not in ("trial", "success", "reason", "error", "wall_time_s")
]
PARAM_COLUMNS = schema.columns(SimulationParams)

RESULT_COLUMNS = (
    "task_key",
    "status",
    "model",
    "grasp_id",
    "trial",
    "config",
    "success",
    "robustness",
    "robustness_ci_low",
    "robustness_ci_high",
    "margin",
    "reason",
    "error",
    "wall_time_s",
    "task_time_s",
    "task_cpu_s",
    "time_per_sample_s",
    "samples",
    "seed",
    "grasp_seed",
    "translation_sigma",
    "rotation_sigma",
    "grasps_file",
    "grasps_sha256",
    "source_row",
    "object",
    "object_sha256",
    *MESH_COLUMNS,
    *OBJECT_COLUMNS,  # unit, scale, mass, density and size (engine.scene.object_facts)
    "stable_pose",
    "object_rotation",
    "grasp_center_x",
    "grasp_center_y",
    "grasp_center_z",
    "grasp_axis_x",
    "grasp_axis_y",
    "grasp_axis_z",
    "approach_angle",
    *PARAM_COLUMNS,
    "analytic_params",
    *IPC_OUTCOMES,
    "ipcgrasp_version",
    "python_version",
    "numpy_version",
    "ipctk_version",
    "host",
    "pid",
    "started_at",
    "finished_at",
)
"""Columns of a batch results CSV, in order."""

TIMING_COLUMNS = frozenset(
    {
        "wall_time_s",
        "task_time_s",
        "task_cpu_s",
        "time_per_sample_s",
        "host",
        "pid",
        "started_at",
        "finished_at",
    }
)
"""Columns that differ between two runs of the same task (everything else must match)."""


@dataclass(frozen=True)
class BatchConfig:
    """Batch-wide settings; per-row parameters of the grasp table override `params`."""

    models: tuple[str, ...] = (IPC,)
    # The IPC trial plan of every grasp (n_trials, batch seed, sigmas); each grasp's plan uses
    # its own seed derived from (spec.seed, grasp id), see grasp_seed.
    spec: TrialSpec = field(default_factory=lambda: TrialSpec(n_trials=5))
    samples: int = 100
    params: SimulationParams = field(default_factory=SimulationParams)
    analytic_mu: float | None = None  # friction of the analytic models; None: params.mu
    mujoco: MujocoParams = field(default_factory=MujocoParams)  # the MuJoCo baseline's own
    # `--frames DIR`: keep each IPC trial's frames in DIR/<task key>.npz (not part of any key).
    frames_dir: str | None = None
    # `--trial-timeout`: the wall-clock limit of one task (s; None: none), not part of any key:
    # a task over it becomes an error row and the batch goes on.
    trial_timeout_s: float | None = DEFAULT_TRIAL_TIMEOUT_S


@dataclass(frozen=True)
class Task:
    """One unit of batch work: IPC trial `trial` of a grasp, or one analytic model on it."""

    key: str
    model: str
    trial: int  # IPC trial index; -1 for analytic models
    grasp: GraspSpec
    params: SimulationParams  # effective: batch, then row overrides
    config: BatchConfig
    config_id: str  # same for every task of one model and one batch-wide setting
    grasp_seed: int
    grasps_file: str = ""
    grasps_sha256: str = ""
    model_spec: ModelSpec | None = None  # the model's registry entry (None: look it up)

    def analytic_params(self) -> AnalyticParams:
        """The analytic models' parameters of this task (engine.analytic.from_simulation)."""
        return _analytic_params(self.params, self.config)


def _is_trial_model(name: str) -> bool:
    return name in registry.names(registry.trial_models())


def parse_models(text: str) -> tuple[str, ...]:
    """'ipc,reach' -> ('ipc', 'reach'); ParameterError listing the valid names otherwise."""
    valid = ", ".join(registry.names(registry.batch_models()))
    names = [m.strip().lower() for m in str(text).split(",") if m.strip()]
    if not names:
        raise ParameterError(f"--models is empty; choose from {valid}")
    known = registry.names()
    for name in names:
        if name in known and registry.model(name).nominal_only:
            raise ParameterError(
                f"model {name!r} evaluates the nominal grasp only (too slow for robustness "
                f"sampling) and is not available in batches; valid models: {valid}"
            )
        if name not in known:
            raise ParameterError(f"unknown model {name!r}; valid models: {valid}")
    return tuple(dict.fromkeys(names))


def _digest(data: object, n: int = 16) -> str:
    text = json.dumps(data, sort_keys=True, default=str, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:n]


def grasp_seed(seed: int, grasp_id: str) -> int:
    """The perturbation seed of one grasp: reproducible from (batch seed, grasp id)."""
    return int(hashlib.sha256(f"{seed}:{grasp_id}".encode()).hexdigest()[:8], 16)


def _analytic_params(params: SimulationParams, config: BatchConfig) -> AnalyticParams:
    """The analytic models' parameters for these simulation parameters: the gripper's opening,
    pad and grip force, the batch's analytic friction and perturbation sigmas."""
    return analytic_params_for(params, mu=config.analytic_mu, spec=config.spec)


def _model_settings(model: str, params: SimulationParams, config: BatchConfig) -> dict:
    """What defines a model's result besides the grasp (goes into keys and config ids)."""
    common = {
        "engine": build_id(),
        "model": model,
        "seed": config.spec.seed,
        "translation_sigma_m": config.spec.translation_sigma_m,
        "rotation_sigma_rad": config.spec.rotation_sigma_rad,
    }
    if _is_trial_model(model):
        # N = 1 runs the nominal pose, N >= 2 perturbed ones (engine.grasp.trials).
        pose = "nominal" if config.spec.n_trials == 1 else "perturbed"
        settings = {**common, "pose": pose, "params": params.to_dict()}
        if model == MUJOCO:
            settings["mujoco"] = config.mujoco.to_dict()
        return settings
    # Every field the analytic result depends on: rows of another opening or force are not
    # this task's.
    analytic = _analytic_params(params, config).to_dict()
    return {**common, "analytic": analytic, "samples": config.samples}


def make_tasks(
    table: GraspTable, config: BatchConfig, overrides: dict[str, float] | None = None
) -> list[Task]:
    """All tasks of a batch, grasp by grasp (IPC trials first, then the analytic models).

    `overrides` (e.g. a grid cell's E and mu) win over both the batch and the row parameters.
    """
    specs = {m: registry.model(m) for m in config.models}
    if any(not s.analytic for s in specs.values()):
        config.spec.validate()
    if config.samples < 1 and any(s.analytic for s in specs.values()):
        raise ParameterError(f"--samples must be >= 1 (got {config.samples})")
    # Field name -> value: SimulationParams fields of mixed types, hence Any.
    batch_fields: dict[str, Any] = dict(overrides or {})
    batch_params = replace(config.params, **batch_fields).validate()
    tasks = []
    for spec in table.grasps:
        params = batch_params
        if spec.params and not spec.error:
            row_fields: dict[str, Any] = {**spec.params, **(overrides or {})}
            params = replace(config.params, **row_fields)
        gseed = grasp_seed(config.spec.seed, spec.grasp_id)
        for model in config.models:
            settings = _model_settings(model, params, config)
            config_id = _digest(_model_settings(model, batch_params, config), 8)
            trials = range(config.spec.n_trials) if not specs[model].analytic else [-1]
            for trial in trials:
                key = _digest({"grasp": spec.identity(), "trial": trial, **settings})
                tasks.append(
                    Task(
                        key,
                        model,
                        trial,
                        spec,
                        params,
                        config,
                        config_id,
                        gseed,
                        table.path,
                        table.sha256,
                        specs[model],
                    )
                )
    return tasks


# --- rows --------------------------------------------------------------------------------------
@functools.cache
def _versions() -> dict[str, str]:
    from importlib.metadata import PackageNotFoundError, version

    try:
        ipctk_version = version("ipctk")
    except PackageNotFoundError:
        ipctk_version = ""
    return {
        "ipcgrasp_version": build_id(),
        "python_version": platform.python_version(),
        "numpy_version": np.__version__,
        "ipctk_version": ipctk_version,
        "host": socket.gethostname(),
    }


def now_iso() -> str:
    """The time now (UTC, ISO 8601 to the millisecond): a row's started_at and finished_at."""
    return datetime.now(UTC).isoformat(timespec="milliseconds")


def one_line(text: str) -> str:
    """One physical CSV line per row: the resume logic repairs the file line by line."""
    return " | ".join(part.strip() for part in str(text).splitlines() if part.strip())


def base_row(task: Task) -> dict[str, object]:
    """The columns known before running: identity, inputs, parameters, versions."""
    spec, cfg = task.grasp, task.config
    row: dict[str, object] = {c: "" for c in RESULT_COLUMNS}
    row.update(
        {
            "task_key": task.key,
            "model": task.model,
            "grasp_id": spec.grasp_id,
            "trial": task.trial if task.trial >= 0 else "",
            "config": task.config_id,
            "seed": cfg.spec.seed,
            "grasp_seed": task.grasp_seed,
            "translation_sigma": cfg.spec.translation_sigma_m,
            "rotation_sigma": cfg.spec.rotation_sigma_rad,
            "samples": cfg.samples if not _is_trial_model(task.model) else "",
            "grasps_file": task.grasps_file,
            "grasps_sha256": task.grasps_sha256,
            "source_row": spec.source_row,
            "object": spec.object,
            "object_mass_kg": "" if spec.mass_kg is None else spec.mass_kg,
            "stable_pose": spec.stable_pose if spec.object_pose is None else "",
            "pid": os.getpid(),
            **_versions(),
        }
    )
    row.update(schema.to_row(task.params))
    return row


def _describe_scene(
    row: dict[str, object], obj: RestingObject, mesh: ObjectMesh, grasp: Grasp
) -> None:
    row["object"] = mesh.source
    row["object_sha256"] = mesh.sha256 or ""
    row.update(mesh_columns(mesh))
    row.update(ObjectFacts.of(obj).columns())
    if obj.stable_pose_index >= 0:
        row["stable_pose"] = obj.stable_pose_index
    else:
        row["object_rotation"] = " ".join(f"{v:.9g}" for v in obj.pose_transform[:3, :3].ravel())
    g = grasp.to_dict()
    for i, c in enumerate("xyz"):
        row[f"grasp_center_{c}"] = g["center"][i]
        row[f"grasp_axis_{c}"] = g["axis"][i]
    row["approach_angle"] = g["approach_angle_rad"]


def error_row(task: Task, reason: str, message: str) -> dict[str, object]:
    """A row for a task that never returned (its worker died, it was lost)."""
    row = base_row(task)
    row.update(status=STATUS_ERROR, reason=reason, error=one_line(message), finished_at=now_iso())
    return row
