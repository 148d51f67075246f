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

This module holds the data set's types; app.model.dataset_reading opens the files and
app.model.dataset_placement shows a grasp and replays its trials on a document.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.model.pose_choices import PoseChoice, pose_choices
from engine.errors import ParameterError
from engine.grasp.grasp import Grasp
from engine.scene.object_mesh import ObjectMesh, object_from_spec
from engine.scene.resting import RestingObject, StablePose, stable_poses

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
    # The mesh's stable poses (found once, where the data set is read: a worker process).
    poses: list[StablePose] = field(default_factory=list, repr=False)
    # Their pose list (app.model.pose_choices), found there too: a scan's takes seconds.
    choices: list[PoseChoice] = field(default_factory=list, repr=False)
    # REACH placements met so far: rotation bytes -> the object resting so (mass irrelevant).
    reach_rests: dict[bytes, RestingObject] = field(default_factory=dict, repr=False)

    @classmethod
    def load(cls, key: str, spec_text: str, unit: str | None, body: str | None) -> DataSetObject:
        """Load the mesh (repaired as every command does) and its stable poses."""
        mesh = object_from_spec(spec_text, unit, body or None)
        tm = mesh.to_trimesh()
        com = np.asarray(tm.center_mass, dtype=float)
        hull = np.asarray(tm.convex_hull.vertices, dtype=float)
        obj = cls(key, spec_text, unit, body, mesh, [], com, hull, stable_poses(mesh))
        obj.stable_transforms = [obj.rest_transform(p.transform) for p in obj.poses]
        obj.choices = pose_choices(mesh, obj.poses)
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


def robustness_lines(g: DataSetGrasp, mark_format: str) -> list[str]:
    """One line per model's predicted robustness of `g` ("soft_point 0.73"), followed by the
    name of its agreement mark, if any, put into `mark_format` (" ({})": " (false positive)")."""
    lines = []
    for m, q in g.robustness.items():
        mark = g.mark(m)
        lines.append(f"{m} {q:.2f}" + (mark_format.format(MARK_NAMES[mark]) if mark else ""))
    return lines


def physical_text(g: DataSetGrasp) -> str:
    """ "3/5" for three physical successes in five trials, "" when unknown."""
    return f"{sum(g.physical)}/{len(g.physical)}" if g.physical else ""


def outcomes_text(values: Iterable[bool]) -> str:
    """Physical trial outcomes as a row of ✓ and ✗."""
    return "".join("✓" if v else "✗" for v in values)
