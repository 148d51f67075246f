"""A labelled data set of grasps for the browser (Qt-free): what File > Open data set reads.

Three kinds of file open as a data set:

- a grasp CSV (`ipcgrasp sample` writes them; engine.batch.grasp_table): grasps, no outcomes;
- a REACH JSON of physical trials: grasps with their physical outcomes (engine.evaluation);
- a batch results CSV (`ipcgrasp batch`): each model's predicted robustness per grasp (reduced as
  `ipcgrasp evaluate` does, engine.evaluation.labels.predictions_from_rows), the simulated trials
  with their frames when the batch kept them (`--frames DIR`, engine.batch.trial_frames), and
  the physical outcomes when the batch's grasp table (its `grasps_file` column) is a REACH JSON.

Every grasp is kept with its resting frame (a stable pose index, or a recorded rotation for REACH
data) and its gripper pose in the object's mesh frame, so it can be drawn on the object however
the object rests in the window, and shown on a stable pose of the object whose support face is
the same (a rotation about the vertical and a shift along the ground: the same trial
physically). Agreement marks compare a model's predicted robustness with the physical success
rate at 0.5, as `ipcgrasp evaluate`'s confusion matrix does.
"""

from __future__ import annotations

import csv
import dataclasses
import io
import math
import os
from collections import defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.model.document import Document
from engine.analytic import registry
from engine.errors import IpcGraspError, ParameterError
from engine.grasp.antipodal import grasp_from_pose
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.io.results_csv import cell_float, cell_int, params_from_row, trial_result_from_row
from engine.io.session import TrialRecord
from engine.scene.object_mesh import ObjectMesh, object_from_spec
from engine.scene.resting import RestingObject, stable_poses

GRASPS, REACH, RESULTS = "grasps", "reach", "results"
KIND_NAMES = {GRASPS: "grasp table", REACH: "REACH physical trials", RESULTS: "batch results"}
PHYSICAL = "physical"

FALSE_POSITIVE, FALSE_NEGATIVE = "FP", "FN"
MARK_NAMES = {FALSE_POSITIVE: "false positive", FALSE_NEGATIVE: "false negative"}

SAME_SUPPORT_COS = math.cos(math.radians(0.5))
"""Two resting frames share their support face when their down directions (mesh frame) are
within 0.5 degrees."""


class DataSetError(ParameterError):
    """A file that cannot be opened as a data set (the message says why and what to do)."""


@dataclass
class SimTrial:
    """One simulated trial of a grasp in a batch results file."""

    model: str  # the model column it belongs to ("ipc", or "ipc E=1e+07" in a grid)
    trial: int
    status: str  # the row's status: "ok" or "error"
    success: bool | None
    reason: str
    frames: int  # frames the trial had (its row's count)
    task_key: str
    frames_file: Path | None  # its frames file, when the batch kept it
    row: dict[str, str] = field(repr=False, default_factory=dict)

    @property
    def outcome(self) -> str:
        """ "success", "fail" or "error"."""
        if self.status != "ok" or self.success is None:
            return "error"
        return "success" if self.success else "fail"


@dataclass
class DataSetGrasp:
    """One grasp of a data set, its physical outcomes and what each model predicts for it."""

    index: int  # position in the data set
    grasp_id: str
    object_key: str  # key into DataSet.objects ("" when the row had no usable object)
    rest: tuple[str, int] | tuple[str, tuple[float, ...]]  # ("pose", k) or ("rotation", R 3x3)
    # (centre, closing axis, approach angle) in the resting frame of `rest`; None: no grasp.
    geometry: tuple[np.ndarray, np.ndarray, float] | None
    mesh_pose: np.ndarray | None = None  # 4x4 gripper pose in the object's mesh frame
    width_m: float = math.nan  # the object's extent along the closing axis (glyph size)
    physical: tuple[bool, ...] = ()  # physical trial outcomes, in order (empty: unknown)
    robustness: dict[str, float] = field(default_factory=dict)  # model column -> predicted R
    trials: list[SimTrial] = field(default_factory=list)
    plan: tuple[int, int] | None = None  # (n_trials, grasp seed) of the batch's IPC trials
    mass_kg: float | None = None
    density_kg_m3: float | None = None
    error: str = ""

    @property
    def grasp(self) -> Grasp | None:
        """The grasp in the resting frame of `rest` (None when the row had none)."""
        if self.geometry is None:
            return None
        return Grasp(*self.geometry)

    @property
    def physical_rate(self) -> float:
        """Physical success rate (NaN when unknown)."""
        return sum(self.physical) / len(self.physical) if self.physical else math.nan

    def mark(self, model: str) -> str:
        """FP when `model` predicts success (R >= 0.5) and the grasp mostly fails physically,
        FN the other way round, "" when they agree or either is unknown."""
        q = self.robustness.get(model, math.nan)
        p = self.physical_rate
        if math.isnan(q) or math.isnan(p):
            return ""
        if q >= 0.5 > p:
            return FALSE_POSITIVE
        if p >= 0.5 > q:
            return FALSE_NEGATIVE
        return ""

    def marks(self) -> dict[str, str]:
        """model -> FP/FN for the models that disagree with the physical outcome."""
        return {m: k for m in self.robustness if (k := self.mark(m))}

    def frames_trials(self) -> list[SimTrial]:
        """The trials whose frames were kept."""
        return [t for t in self.trials if t.frames_file is not None]


@dataclass
class DataSetObject:
    """An object of a data set: its mesh and what places a grasp's resting frame on it."""

    key: str
    spec_text: str  # what Document.open_object takes ("cube", "cube:N" or the mesh path)
    unit: str | None
    body: str | None
    mesh: ObjectMesh
    # Per stable pose: 4x4 mesh -> resting frame (engine.scene.resting.rest_object's).
    stable_transforms: list[np.ndarray]
    com_mesh: np.ndarray  # centre of mass in the mesh frame (uniform density)
    hull: np.ndarray  # convex hull vertices, mesh frame (extents and the lowest point)
    # REACH placements met so far: rotation bytes -> the object resting so (mass irrelevant).
    reach_rests: dict[bytes, RestingObject] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, key: str, spec_text: str, unit: str | None, body: str | None) -> DataSetObject:
        """Load the mesh (repaired as every command does) and its stable poses."""
        mesh = object_from_spec(spec_text, unit, body or None)
        tm = mesh.to_trimesh()
        com = np.asarray(tm.center_mass, dtype=float)
        hull = np.asarray(tm.convex_hull.vertices, dtype=float)
        obj = cls(key, spec_text, unit, body, mesh, [], com, hull)
        obj.stable_transforms = [obj.rest_transform(p.transform) for p in stable_poses(mesh)]
        return obj

    def rest_transform(self, placed: np.ndarray) -> np.ndarray:
        """mesh -> resting frame of the placement `placed` (4x4, or a 3x3 rotation): as
        engine.scene.resting places an object, the lowest point on z = 0 and the centre of
        mass on the z axis."""
        m = np.eye(4)
        placed = np.asarray(placed, dtype=float)
        if placed.shape == (3, 3):
            m[:3, :3] = placed
        else:
            m[:] = placed
        com = m[:3, :3] @ self.com_mesh + m[:3, 3]
        low = float(np.min(self.hull @ m[2, :3])) + m[2, 3]
        shift = np.eye(4)
        shift[:3, 3] = (-com[0], -com[1], -low)
        return shift @ m

    def rest_of(self, rest: tuple) -> np.ndarray | None:
        """mesh -> resting frame of a grasp's `rest` (None for a pose index out of range)."""
        kind, value = rest
        if kind == "pose":
            k = int(value)
            return self.stable_transforms[k] if 0 <= k < len(self.stable_transforms) else None
        return self.rest_transform(np.asarray(value, dtype=float).reshape(3, 3))

    def matching_pose(self, rest: tuple) -> tuple[int, bool]:
        """The stable pose to show a grasp of `rest` on, and whether it rests on the same
        support face (then the grasp is the same trial up to a turn about the vertical)."""
        kind, value = rest
        if kind == "pose" and 0 <= int(value) < len(self.stable_transforms):
            return int(value), True
        t = self.rest_of(rest)
        if t is None or not self.stable_transforms:
            return 0, False
        down = -t[2, :3]
        cos = [float(np.dot(-s[2, :3], down)) for s in self.stable_transforms]
        k = int(np.argmax(cos))
        return k, cos[k] >= SAME_SUPPORT_COS


@dataclass
class DataSet:
    """The grasps of one data-set file, their objects and which models it has predictions of."""

    path: Path
    kind: str  # GRASPS, REACH or RESULTS
    grasps: list[DataSetGrasp]
    objects: dict[str, DataSetObject]
    models: list[str]  # model columns (with predicted robustness), in evaluate's order
    frames_dir: Path | None = None
    labels_file: Path | None = None
    notes: list[str] = field(default_factory=list)

    @property
    def has_physical(self) -> bool:
        """Whether any grasp has physical outcomes."""
        return any(g.physical for g in self.grasps)

    @property
    def frames_count(self) -> int:
        """How many simulated trials have their frames."""
        return sum(len(g.frames_trials()) for g in self.grasps)

    def summary(self) -> str:
        """One line: what was opened."""
        parts = [f"{len(self.grasps)} grasps ({KIND_NAMES[self.kind]})"]
        if self.has_physical:
            parts.append(f"physical outcomes of {sum(bool(g.physical) for g in self.grasps)}")
        if self.models:
            parts.append(f"models {', '.join(self.models)}")
        fp = sum(FALSE_POSITIVE in g.marks().values() for g in self.grasps)
        fn = sum(FALSE_NEGATIVE in g.marks().values() for g in self.grasps)
        if self.has_physical and self.models:
            parts.append(f"{fp} with a false positive, {fn} with a false negative")
        if self.kind == RESULTS:
            n = self.frames_count
            parts.append(
                f"frames of {n} trials in {self.frames_dir.name}"
                if self.frames_dir is not None and n
                else "no frames folder"
            )
        bad = sum(bool(g.error) for g in self.grasps)
        if bad:
            parts.append(f"{bad} without a usable grasp")
        return ", ".join(parts)

    def value(self, g: DataSetGrasp, column: str) -> float:
        """The outcome `column` (PHYSICAL or a model) of grasp `g` in [0, 1]; NaN if unknown."""
        if column == PHYSICAL:
            return g.physical_rate
        return g.robustness.get(column, math.nan)

    def colour_columns(self) -> list[str]:
        """What the glyphs can be coloured by: the physical rate (when known), then models."""
        return ([PHYSICAL] if self.has_physical else []) + list(self.models)

    def matches(self, g: DataSetGrasp, text: str = "", show: str = "all", model: str = "") -> bool:
        """Whether grasp `g` passes the browser's filter: `text` in its id, and `show` one of
        "all", "disagree" (any FP/FN), FP, FN, "frames" (a trial with frames), "errors";
        `model` restricts FP/FN/disagree to one model ("" for any)."""
        if text and text.lower() not in g.grasp_id.lower():
            return False
        if show == "all":
            return True
        if show == "frames":
            return bool(g.frames_trials())
        if show == "errors":
            return bool(g.error) or any(t.status != "ok" for t in g.trials)
        marks = g.marks()
        if model:
            marks = {m: k for m, k in marks.items() if m == model}
        if show == "disagree":
            return bool(marks)
        return show in marks.values()

    def grasps_on(self, object_key: str) -> list[DataSetGrasp]:
        """The grasps (with a pose) on object `object_key`."""
        return [g for g in self.grasps if g.object_key == object_key and g.mesh_pose is not None]


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


# --- showing a grasp and replaying its trials ---------------------------------------------------
@dataclass(frozen=True)
class Placement:
    """How a data-set grasp is shown on a document of its object."""

    grasp: Grasp  # in the resting frame of stable pose `pose_index`
    pose_index: int
    density_kg_m3: float | None  # the grasp's object density (None: the document's default)
    same_support: bool  # the grasp's own resting, up to a turn about the vertical


def placement(obj: DataSetObject, g: DataSetGrasp, doc: Document) -> Placement:
    """Grasp `g` on `doc` (a document of `obj`'s mesh): the stable pose resting on the grasp's
    support face, the grasp placed on it, and the density that gives the grasp's mass."""
    assert g.mesh_pose is not None
    k, same = obj.matching_pose(g.rest)
    if g.rest == ("pose", k) and g.grasp is not None:
        grasp = g.grasp  # the file's own numbers
    else:
        grasp = grasp_from_pose(obj.stable_transforms[k] @ g.mesh_pose)
    density = doc.density_kg_m3
    if g.density_kg_m3 is not None:
        density = g.density_kg_m3
    elif g.mass_kg is not None and not math.isclose(g.mass_kg, doc.obj.mass_kg, rel_tol=1e-9):
        density = g.mass_kg / doc.obj.volume_m3
    return Placement(grasp, k, density, same)


def pose_on(obj: DataSetObject, g: DataSetGrasp, rest_transform: np.ndarray) -> np.ndarray:
    """Grasp `g`'s 4x4 gripper pose on its object resting as `rest_transform` (mesh -> rest)."""
    assert g.mesh_pose is not None
    return np.asarray(rest_transform) @ g.mesh_pose


def glyph_arrays(
    ds: DataSet, object_key: str, column: str
) -> tuple[list[int], np.ndarray, np.ndarray, np.ndarray]:
    """(grasp indices, gripper poses (N,4,4) in the object's mesh frame, widths (N,), values
    (N,)) of the grasps on `object_key`, coloured by `column`."""
    members = ds.grasps_on(object_key)
    if not members:
        return [], np.zeros((0, 4, 4)), np.zeros(0), np.zeros(0)
    poses = np.stack([g.mesh_pose for g in members if g.mesh_pose is not None])
    widths = np.array([g.width_m for g in members])
    values = np.array([ds.value(g, column) for g in members])
    return [g.index for g in members], poses, widths, values


def rigid_transform(src: np.ndarray, dst: np.ndarray) -> np.ndarray:
    """The 4x4 rigid transform that maps points `src` onto `dst` (same order; Kabsch)."""
    a, b = np.asarray(src, dtype=float), np.asarray(dst, dtype=float)
    ca, cb = a.mean(axis=0), b.mean(axis=0)
    u, _s, vt = np.linalg.svd((a - ca).T @ (b - cb))
    d = np.sign(np.linalg.det(vt.T @ u.T))
    r = vt.T @ np.diag([1.0, 1.0, d]) @ u.T
    t = np.eye(4)
    t[:3, :3] = r
    t[:3, 3] = cb - r @ ca
    return t


def recorded_trial(
    trial: SimTrial, target_vertices: np.ndarray
) -> tuple[TrialRecord, SimulationParams | None]:
    """The TrialRecord of a data-set trial with frames, moved onto an object whose resting
    vertices are `target_vertices` (the frames file stores the batch's own resting frame; the
    same mesh resting on the same face differs by a turn about the vertical), and the
    parameters it was simulated with. ParameterError for a file that does not load."""
    from engine.io.frames_npz import frames_from_arrays, load_frames

    if trial.frames_file is None:
        raise DataSetError(f"trial {trial.trial} of {trial.model} has no frames file")
    meta, arrays = load_frames(trial.frames_file)
    k = trial.trial if f"t{trial.trial}/time_s" in arrays else int(meta["trials"][0])
    result = trial_result_from_row(trial.row)
    frames = frames_from_arrays(arrays, f"t{k}/", result.intersection_free)
    pose = np.asarray(meta.get("gripper_pose", np.eye(4)), dtype=float)
    if pose.shape != (4, 4) or not np.all(np.isfinite(pose)):
        raise DataSetError(f"{trial.frames_file}: its gripper_pose is not a 4x4 matrix")
    src = np.asarray(arrays["object_vertices"], dtype=float)
    dst = np.asarray(target_vertices, dtype=float)
    if src.shape == dst.shape and not np.allclose(src, dst, rtol=0.0, atol=1e-12):
        t = rigid_transform(src, dst)
        inv = np.linalg.inv(t)
        r, c = t[:3, :3], t[:3, 3]
        frames = [
            dataclasses.replace(
                f,
                pad_vertices=(f.pad_vertices[0] @ r.T + c, f.pad_vertices[1] @ r.T + c),
                object_pose=t @ f.object_pose @ inv,
                contact_points=f.contact_points @ r.T + c,
                contact_normal_n=f.contact_normal_n @ r.T,
                contact_friction_n=f.contact_friction_n @ r.T,
            )
            for f in frames
        ]
        pose = t @ pose
    rec = TrialRecord(k, pose, "done", frames, [], result)
    return rec, params_from_row(trial.row)


def physical_text(g: DataSetGrasp) -> str:
    """ "3/5" for three physical successes in five trials, "" when unknown."""
    return f"{sum(g.physical)}/{len(g.physical)}" if g.physical else ""


def outcomes_text(values: Iterable[bool]) -> str:
    """Physical trial outcomes as a row of ✓ and ✗."""
    return "".join("✓" if v else "✗" for v in values)
