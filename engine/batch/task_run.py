"""Running one batch task in a worker: build its scene (cached per worker), run the IPC or
MuJoCo trial or the analytic model, and fill its row. `run_task` never raises: a failure
becomes a row with status 'error', the reason and the message."""

from __future__ import annotations

import dataclasses
import functools
import json
import logging
import math
import os
import time
import traceback
from typing import TYPE_CHECKING

import numpy as np

from engine.analytic import registry
from engine.analytic.registry import IPC, MUJOCO
from engine.batch.grasp_scene import build_scene
from engine.batch.grasp_spec import GraspSpec
from engine.batch.tasks import (
    IPC_OUTCOMES,
    STATUS_ERROR,
    STATUS_OK,
    Task,
    _describe_scene,
    base_row,
    error_row,
    now_iso,
    one_line,
)
from engine.errors import IpcGraspError, ParameterError
from engine.grasp.frames import TrialResult
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.time_limit import TIMED_OUT, TrialTimedOut, wall_clock_limit
from engine.grasp.trials import planned_trial, run_trial
from engine.scene.object_mesh import ObjectMesh, object_from_spec
from engine.scene.resting import StablePose, stable_poses

if TYPE_CHECKING:
    from engine.grasp.frames import Frame
    from engine.gripper.pad_geometry import PadMesh
    from engine.scene.resting import RestingObject

log = logging.getLogger(__name__)


_SCENES: dict[str, tuple[RestingObject, ObjectMesh, Grasp]] = {}
_OBJECTS: dict[tuple, ObjectCache] = {}


@dataclasses.dataclass
class ObjectCache:
    """One object file as a worker loaded it, and its stable poses once asked for."""

    mesh: ObjectMesh
    poses: list[StablePose] | None = None

    def stable_poses(self) -> list[StablePose]:
        """The mesh's stable poses (the slow part of putting it at rest), computed once."""
        if self.poses is None:
            self.poses = stable_poses(self.mesh)
        return self.poses


def _scene(spec: GraspSpec) -> tuple[RestingObject, ObjectMesh, Grasp]:
    """build_scene, cached per worker: the tasks of one grasp reuse its scene, and the grasps
    of one object its loaded mesh and stable poses (loading, repairing and finding the poses
    of a 16k-face scan took seconds per task)."""
    key = json.dumps(spec.identity(), default=str)
    if key not in _SCENES:
        if len(_SCENES) >= 8:
            _SCENES.pop(next(iter(_SCENES)))
        cached = _object(spec)
        if cached is None:
            _SCENES[key] = build_scene(spec)
        else:
            _SCENES[key] = build_scene(spec, cached.mesh, cached.stable_poses)
    return _SCENES[key]


def _object(spec: GraspSpec) -> ObjectCache | None:
    """The worker's copy of the row's object file, loaded once while the file keeps its size
    and modification time; None for rows that name no readable file (built-in cubes, errors:
    build_scene reports those)."""
    if spec.error:
        return None
    try:
        stat = os.stat(spec.object)
    except (OSError, ValueError, TypeError):
        return None
    key = (spec.object, spec.unit, spec.body, stat.st_size, stat.st_mtime_ns)
    if key not in _OBJECTS:
        if len(_OBJECTS) >= 4:
            _OBJECTS.pop(next(iter(_OBJECTS)))
        mesh = object_from_spec(spec.object, unit=spec.unit, body=spec.body or None)
        _OBJECTS[key] = ObjectCache(mesh)
    return _OBJECTS[key]


@functools.lru_cache(maxsize=4)
def _pad(pad: str, edge: float, layers: int | None) -> PadMesh:
    """The pad mesh of these settings, cached per worker (meshing takes a while)."""
    from engine.grasp.simulation import build_pad

    return build_pad(SimulationParams(pad=pad, pad_edge_length_m=edge, pad_layers=layers))


def _run_ipc(task: Task, row: dict[str, object], obj: RestingObject, grasp: Grasp) -> None:
    from engine.batch.trial_frames import save_trial_frames

    p, cfg = task.params, task.config
    plan = dataclasses.replace(cfg.spec, seed=task.grasp_seed)
    planned = planned_trial(grasp, plan, task.trial)
    pad = _pad(p.pad, p.pad_edge_length_m, p.pad_layers)
    frames: list[Frame] = []  # kept with --frames DIR (engine.batch.trial_frames)
    keep = frames.append if cfg.frames_dir else None
    result = run_trial(obj, planned, p, pad=pad, on_frame=keep)
    _trial_outcome(row, result)
    try:
        save_trial_frames(task, planned.pose, frames, pad, obj)
    except ParameterError as exc:  # the trial's row stands; a resume writes the frames again
        log.warning("task %s: frames not saved: %s", task.key, exc)
        note = f"frames not saved: {exc}"
        row["error"] = one_line("; ".join(filter(None, [str(row["error"]), note])))


def _run_mujoco(task: Task, row: dict[str, object], obj: RestingObject, grasp: Grasp) -> None:
    """Trial k of the grasp's plan in the MuJoCo baseline (the IPC task's pose and row columns)."""
    from engine.mujoco_baseline.simulation import run_mujoco_trial

    plan = dataclasses.replace(task.config.spec, seed=task.grasp_seed)
    trial = planned_trial(grasp, plan, task.trial)
    result = run_mujoco_trial(obj, trial, task.params, task.config.mujoco)
    _trial_outcome(row, result)


def _trial_outcome(row: dict[str, object], result: TrialResult) -> None:
    """A trial model's outcome columns (IPC or MuJoCo: the same TrialResult)."""
    data = result.as_json()
    row.update({k: data.get(k, "") for k in IPC_OUTCOMES})
    row["success"] = bool(result.success)
    row["robustness"] = 1.0 if result.success else 0.0
    row["reason"] = result.reason
    row["error"] = one_line(result.error)
    row["wall_time_s"] = result.wall_time_s


def _run_analytic(task: Task, row: dict[str, object], obj: RestingObject, grasp: Grasp) -> None:
    from engine.analytic.pipeline import analyze_grasp

    params = task.analytic_params()
    row["analytic_params"] = json.dumps(dataclasses.asdict(params), sort_keys=True, default=str)
    results = analyze_grasp(obj, grasp, params, [task.model], task.config.samples, task.grasp_seed)
    res = next((r for r in results if r.model == task.model), results[0])
    row["success"] = bool(res.success)
    row["robustness"] = float(res.robustness)
    row["robustness_ci_low"], row["robustness_ci_high"] = (float(v) for v in res.robustness_ci)
    row["margin"] = float(res.margin)
    row["reason"] = one_line(res.reason) or ("success" if res.success else "")
    row["wall_time_s"] = float(res.time_s)
    row["time_per_sample_s"] = float(res.time_per_sample_s)
    row["samples"] = res.samples or task.config.samples


def run_task(task: Task) -> dict[str, object]:
    """Run one task and return its result row (status 'error' with the reason on failure)."""
    start, cpu = time.perf_counter(), time.process_time()
    if task.model_spec is not None:
        try:  # a model registered at run time in the driver (a no-op for the built-in ones)
            registry.register(task.model_spec)
        except ParameterError as exc:
            return error_row(task, "bad input", str(exc))
    row = base_row(task)
    row["started_at"] = now_iso()
    try:
        with wall_clock_limit(task.config.trial_timeout_s):
            obj, mesh, grasp = _scene(task.grasp)
            _describe_scene(row, obj, mesh, grasp)
            if task.model == IPC:
                _run_ipc(task, row, obj, grasp)
            elif task.model == MUJOCO:
                _run_mujoco(task, row, obj, grasp)
            else:
                _run_analytic(task, row, obj, grasp)
        row["status"] = STATUS_OK
    except Exception as exc:  # a failing task is recorded and the batch goes on
        unexpected = not isinstance(exc, IpcGraspError)
        log.log(
            logging.ERROR if unexpected else logging.INFO,
            "task %s (%s, grasp %s) failed: %s",
            task.key,
            task.model,
            task.grasp.grasp_id,
            exc,
            exc_info=unexpected,
        )
        row["status"] = STATUS_ERROR
        row["success"] = ""
        row["robustness"] = ""
        row["reason"] = _failure_reason(exc)
        row["error"] = one_line(
            str(exc) if isinstance(exc, IpcGraspError) else traceback.format_exc(limit=3)
        )
    row["task_time_s"] = time.perf_counter() - start
    # CPU time of this process: far below task_time_s means the worker waited for a core.
    row["task_cpu_s"] = time.process_time() - cpu
    row["finished_at"] = now_iso()
    return {k: _finite(v) for k, v in row.items()}


def _failure_reason(exc: BaseException) -> str:
    from engine.errors import GraspError, MeshError, SolverError

    if isinstance(exc, TrialTimedOut):
        return TIMED_OUT
    if isinstance(exc, MeshError):
        return "bad or missing mesh"
    if isinstance(exc, GraspError):
        return "invalid grasp"
    if isinstance(exc, SolverError):
        return "solver failed"
    if isinstance(exc, ParameterError):
        return "bad input"
    if isinstance(exc, ImportError):
        return "model not available"
    return f"unexpected {type(exc).__name__}"


def _finite(v: object) -> object:
    if isinstance(v, float) and math.isnan(v):
        return "nan"
    if isinstance(v, np.floating):
        return float(v)
    if isinstance(v, str):
        return one_line(v) if "\n" in v or "\r" in v else v
    return v
