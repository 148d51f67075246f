"""Opening a data set (app.model.dataset): a grasp CSV, a REACH JSON or a batch results CSV
becomes a DataSet with every grasp placed in its object's mesh frame (Qt-free). The files
themselves are read by the engine's readers (engine.batch.grasp_table, engine.batch.results_store
with engine.io.results_csv, engine.evaluation.labels); this module assembles what they give."""

from __future__ import annotations

import csv
import io
import math
import os
from collections import defaultdict
from pathlib import Path

import numpy as np

from app.model.dataset import (
    GRASPS,
    REACH,
    RESULTS,
    DataSet,
    DataSetError,
    DataSetGrasp,
    DataSetObject,
    SimTrial,
)
from engine.analytic import registry
from engine.errors import IpcGraspError, ParameterError
from engine.io.results_csv import cell_float, cell_int


# --- opening ------------------------------------------------------------------------------------
def data_set_kind(path: Path) -> str:
    """GRASPS, REACH or RESULTS from the file's name and first line (DataSetError otherwise)."""
    if path.suffix.lower() == ".json":
        return REACH
    try:
        with path.open(encoding="utf-8-sig", newline="") as f:
            first = f.readline()
    except (OSError, UnicodeDecodeError) as exc:
        raise DataSetError(f"cannot read {path}: {exc}") from exc
    if first.lstrip().startswith(("[", "{")):
        return REACH
    try:
        header = next(csv.reader(io.StringIO(first)))
    except (StopIteration, csv.Error):
        raise DataSetError(f"{path} is empty or not a CSV file") from None
    names = {h.strip().lower() for h in header}
    return RESULTS if {"task_key", "status"} <= names else GRASPS


def load_data_set(path: str | os.PathLike, frames_dir: str | os.PathLike | None = None) -> DataSet:
    """Open `path` as a data set (see the module docstring); `frames_dir` is a batch's frames
    folder (default: found next to a results CSV). DataSetError says what is wrong."""
    p = Path(path).expanduser()
    if not p.is_file():
        raise DataSetError(f"{p} not found: give a grasp CSV, a REACH JSON or a batch results CSV")
    kind = data_set_kind(p)
    try:
        if kind == RESULTS:
            ds = _load_results(p, None if frames_dir is None else Path(frames_dir))
        else:
            ds = _load_table(p, kind)
    except DataSetError:
        raise
    except IpcGraspError as exc:
        raise DataSetError(str(exc)) from exc
    _place_grasps(ds)
    return ds


def _object_key(spec_text: str, unit: str | None, body: str | None) -> str:
    return f"{spec_text}|{unit or ''}|{body or ''}"


def _load_table(p: Path, kind: str) -> DataSet:
    from engine.batch.grasp_table import read_grasp_table

    table = read_grasp_table(p)
    labels = _labels(p) if kind == REACH else {}
    ds = DataSet(p, kind, [], {}, [], labels_file=p if labels else None)
    ds.notes.extend(table.warnings)
    for i, spec in enumerate(table.grasps):
        g = DataSetGrasp(i, spec.grasp_id, "", ("pose", 0), None, error=spec.error)
        g.physical = labels.get(spec.grasp_id, ())
        if not spec.error:
            key = _object_key(spec.object, spec.unit, spec.body)
            _add_object(ds, key, spec.object, spec.unit, spec.body, g)
            g.mass_kg, g.density_kg_m3 = spec.mass_kg, spec.density_kg_m3
            if spec.gripper_pose is not None and spec.object_pose is not None:
                _reach_rest(ds, g, spec.gripper_pose, spec.object_pose)
            elif spec.center is not None and spec.axis is not None:
                g.rest = ("pose", int(spec.stable_pose))
                g.geometry = (spec.center, spec.axis, spec.approach_angle_rad)
        ds.grasps.append(g)
    return ds


def _add_object(
    ds: DataSet, key: str, spec_text: str, unit: str | None, body: str | None, g: DataSetGrasp
) -> None:
    """Load the grasp's object once per data set; a mesh that does not load is the grasp's
    error (the other grasps still open)."""
    if key not in ds.objects:
        try:
            ds.objects[key] = DataSetObject.load(key, spec_text, unit, body)
        except IpcGraspError as exc:
            g.error = f"object {spec_text}: {exc}"
            return
    g.object_key = key


def _reach_rest(
    ds: DataSet, g: DataSetGrasp, gripper_pose: np.ndarray, object_pose: np.ndarray
) -> None:
    """A REACH record's grasp in the resting frame the batch uses (engine.batch.grasp_table:
    the recorded rotation, laid flat on its support face)."""
    from engine.batch.grasp_table import REACH_SNAP_DEG, reach_grasp
    from engine.scene.resting import rest_object_from_rotation

    obj = ds.objects.get(g.object_key)
    if obj is None:
        return
    key = np.asarray(object_pose[:3, :3], dtype=float).tobytes()
    rested = obj.reach_rests.get(key)
    if rested is None:  # records of one placement share it (the REACH cube: 6 for 25 grasps)
        rested = rest_object_from_rotation(
            obj.mesh, object_pose[:3, :3], snap_to_support_deg=REACH_SNAP_DEG
        )
        obj.reach_rests[key] = rested
    g.rest = (
        "rotation",
        tuple(float(v) for v in np.asarray(rested.pose_transform)[:3, :3].ravel()),
    )
    grasp = reach_grasp(rested, gripper_pose, object_pose)
    g.geometry = (grasp.center, grasp.axis, grasp.approach_angle_rad)


def _labels(p: Path) -> dict[str, tuple[bool, ...]]:
    from engine.evaluation.labels import load_labels

    try:
        return {gid: label.outcomes for gid, label in load_labels([str(p)]).items()}
    except ParameterError:
        return {}


def _load_results(p: Path, frames_dir: Path | None) -> DataSet:
    from engine.batch.results_store import read_results
    from engine.evaluation.labels import describe, predictions_from_rows

    rows = read_results([p])
    if not rows:
        raise DataSetError(f"{p} holds no result rows yet")
    predictions = predictions_from_rows(rows)
    names = describe(predictions)
    column_of = {(pr.model, pr.config): names[i] for i, pr in enumerate(predictions)}
    ds = DataSet(p, RESULTS, [], {}, [names[i] for i in range(len(predictions))])
    # Physical outcomes: the batch's grasp table when it is a REACH JSON; a grasp CSV gives the
    # meshes' units and bodies (the rows name the mesh only).
    tables = {r.get("grasps_file", "") for r in rows} - {""}
    labels: dict[str, tuple[bool, ...]] = {}
    units: dict[str, tuple[str | None, str | None]] = {}
    for t in sorted(tables):
        tp = Path(t)
        if not tp.is_file():
            continue
        if tp.suffix.lower() == ".json":
            found = _labels(tp)
            if found:
                labels.update(found)
                ds.labels_file = tp
        else:
            units.update(_table_units(tp))
    by_grasp: dict[str, list[dict[str, str]]] = defaultdict(list)
    for r in rows:
        by_grasp[r.get("grasp_id", "")].append(r)
    trial_models = registry.names(registry.trial_models())  # one row per simulated trial
    trial_keys = [
        r["task_key"]
        for r in rows
        if r.get("model") in trial_models
        and r.get("status") == "ok"
        and cell_float(r.get("frames")) > 0
    ]
    ds.frames_dir = frames_dir if frames_dir is not None else find_frames_dir(p, trial_keys)
    present = _frames_present(ds.frames_dir)
    for i, (gid, grows) in enumerate(by_grasp.items()):
        g = DataSetGrasp(i, gid, "", ("pose", 0), None)
        g.physical = labels.get(gid, ())
        for pr in predictions:
            if gid in pr.robustness:
                g.robustness[column_of[(pr.model, pr.config)]] = pr.robustness[gid]
        for r in grows:
            if r.get("model") in trial_models and r.get("trial", "") != "":
                g.trials.append(
                    _sim_trial(
                        r,
                        column_of.get((r["model"], r.get("config", "")), r["model"]),
                        ds.frames_dir,
                        present,
                    )
                )
        g.trials.sort(key=lambda t: (t.model, t.trial))
        ipc = [t for t in g.trials if t.row.get("model") == registry.IPC]
        if ipc:
            seed = ipc[0].row.get("grasp_seed", "")
            if seed.isdigit():
                g.plan = (max(t.trial for t in ipc) + 1, int(seed))
        _results_geometry(ds, g, grows, *units.get(gid, (None, None)))
        ds.grasps.append(g)
    return ds


def _frames_present(folder: Path | None) -> set[str]:
    if folder is None:
        return set()
    try:
        return {e.name for e in os.scandir(folder) if e.name.endswith(".npz")}
    except OSError:
        return set()


def find_frames_dir(results: Path, keys: list[str]) -> Path | None:
    """The folder next to `results` that holds frames files of these task keys (a batch's
    `--frames DIR`): `<stem>_frames`, `<stem>.frames` and `frames` first, then any other
    folder beside it. None when there is none (or no trial had frames)."""
    if not keys:
        return None
    probe = keys[: min(len(keys), 8)]
    parent = results.parent
    first = [
        parent / f"{results.stem}_frames",
        parent / f"{results.stem}.frames",
        parent / "frames",
    ]
    try:
        others = sorted(
            (Path(e.path) for e in os.scandir(parent) if e.is_dir() and Path(e.path) not in first),
            key=lambda q: q.name,
        )[:200]
    except OSError:
        others = []
    for folder in [*first, *others]:
        if folder.is_dir() and any((folder / f"{k}.npz").is_file() for k in probe):
            return folder
    return None


def _sim_trial(
    row: dict[str, str], column: str, folder: Path | None, present: set[str]
) -> SimTrial:
    key = row.get("task_key", "")
    success = {"True": True, "False": False}.get(row.get("success", ""))
    name = f"{key}.npz"
    return SimTrial(
        model=column,
        trial=cell_int(row.get("trial"), -1),
        status=row.get("status", ""),
        success=success,
        reason=row.get("reason", ""),
        frames=cell_int(row.get("frames")),
        task_key=key,
        frames_file=folder / name if folder is not None and name in present else None,
        row=row,
    )


def _table_units(path: Path) -> dict[str, tuple[str | None, str | None]]:
    """grasp id -> (unit, body) of a grasp CSV ({} when it does not read)."""
    from engine.batch.grasp_table import read_grasp_table

    try:
        table = read_grasp_table(path)
    except IpcGraspError:
        return {}
    return {s.grasp_id: (s.unit, s.body or None) for s in table.grasps if not s.error}


def _results_geometry(
    ds: DataSet,
    g: DataSetGrasp,
    rows: list[dict[str, str]],
    unit: str | None = None,
    body: str | None = None,
) -> None:
    """The grasp, its object and resting frame from its first row that has them (error rows
    of a bad grasp have none); `unit` and `body` from the batch's grasp table."""
    row = next((r for r in rows if r.get("grasp_center_x", "") != ""), None)
    if row is None:
        errors = [
            r.get("error", "") or r.get("reason", "") for r in rows if r.get("status") != "ok"
        ]
        g.error = errors[0] if errors else "no grasp in its rows"
        return
    source = row.get("object", "")
    spec_text = source.removeprefix("builtin:") if source.startswith("builtin:") else source
    body_option = body or (row.get("object_body", "").split(" ")[0] or None)
    key = _object_key(spec_text, unit, body_option)
    _add_object(ds, key, spec_text, unit, body_option, g)
    mass = cell_float(row.get("object_mass_kg"))
    g.mass_kg = mass if math.isfinite(mass) and mass > 0 else None
    try:
        center = np.array([float(row[f"grasp_center_{c}"]) for c in "xyz"])
        axis = np.array([float(row[f"grasp_axis_{c}"]) for c in "xyz"])
        angle = float(row.get("approach_angle") or 0.0)
        rotation = row.get("object_rotation", "").split()
        if len(rotation) == 9:
            g.rest = ("rotation", tuple(float(v) for v in rotation))
        else:
            g.rest = ("pose", cell_int(row.get("stable_pose")))
    except (KeyError, ValueError) as exc:
        g.error = f"its grasp columns do not read: {exc}"
        return
    if not (np.all(np.isfinite(center)) and math.isfinite(angle) and np.linalg.norm(axis) > 1e-12):
        g.error = "its grasp columns are not a grasp (NaN, or a zero closing axis)"
        return
    g.geometry = (center, axis, angle)


def grasp_poses(centers: np.ndarray, axes: np.ndarray, angles: np.ndarray) -> np.ndarray:
    """Grasp.pose of many grasps at once: (N,4,4) gripper frames of centres (N,3), closing
    axes (N,3, any length) and approach angles (N,), the same numbers as one Grasp at a time
    to round-off."""
    c = np.asarray(centers, dtype=float).reshape(-1, 3)
    x = np.asarray(axes, dtype=float).reshape(-1, 3)
    x = x / np.linalg.norm(x, axis=1, keepdims=True)
    ref = np.where(np.abs(x[:, 2:3]) < 0.99, [[0.0, 0.0, -1.0]], [[-1.0, 0.0, 0.0]])
    z0 = ref - np.sum(ref * x, axis=1, keepdims=True) * x
    z0 /= np.linalg.norm(z0, axis=1, keepdims=True)
    a = np.asarray(angles, dtype=float).reshape(-1, 1)
    z = np.cos(a) * z0 + np.sin(a) * np.cross(x, z0)
    y = np.cross(z, x)
    t = np.zeros((len(c), 4, 4))
    t[:, :3, 0], t[:, :3, 1], t[:, :3, 2], t[:, :3, 3] = x, y, z, c
    t[:, 3, 3] = 1.0
    return t


def _place_grasps(ds: DataSet) -> None:
    """Each grasp's gripper pose in its object's mesh frame and its glyph width, vectorised."""
    by_object: dict[str, list[DataSetGrasp]] = defaultdict(list)
    for g in ds.grasps:
        if g.geometry is not None and g.object_key in ds.objects:
            by_object[g.object_key].append(g)
    for key, members in by_object.items():
        obj = ds.objects[key]
        inverse: dict[tuple, np.ndarray | None] = {}
        placed: list[DataSetGrasp] = []
        rests: list[np.ndarray] = []
        for g in members:
            if g.rest not in inverse:
                t = obj.rest_of(g.rest)
                inverse[g.rest] = None if t is None else np.linalg.inv(t)
            inv = inverse[g.rest]
            if inv is None:
                g.error = g.error or f"stable pose {g.rest[1]} is not one of the object's"
                continue
            placed.append(g)
            rests.append(inv)
        if not placed:
            continue
        geo = [g.geometry for g in placed if g.geometry is not None]
        poses = grasp_poses(
            np.array([c for c, _a, _t in geo]),
            np.array([a for _c, a, _t in geo]),
            np.array([t for _c, _a, t in geo]),
        )
        mesh_poses = np.einsum("nij,njk->nik", np.stack(rests), poses)
        extent = np.ptp(obj.hull @ mesh_poses[:, :3, 0].T, axis=0)
        for g, m, w in zip(placed, mesh_poses, extent, strict=True):
            g.mesh_pose = m
            g.width_m = float(w)
