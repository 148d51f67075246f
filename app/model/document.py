"""The app's state, free of Qt: the object, the grasp, the parameters and the current run.

Everything the GUI shows is derived from a Document, and a session file is a Document on disk.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.model.pose_choices import PoseChoice, pose_choices
from engine.analytic.ranking import default_grasp_for
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.push import Push
from engine.grasp.trials import TrialSpec
from engine.gripper.pad_geometry import PadMesh, mesh_pad, pad_outline
from engine.io.session import Session, TrialRecord
from engine.scene.object_mesh import ObjectMesh, object_from_spec
from engine.scene.resting import RestingObject, StablePose, rest_object, stable_poses

EXAMPLE_OBJECT = "cube"


def build_pad(params: SimulationParams) -> PadMesh:
    """The pad mesh the simulator builds for these parameters (same call as the engine's)."""
    return mesh_pad(pad_outline(params.pad), params.pad_edge_length_m, params.pad_layers)


AS_IN_FILE_MIN = 0.01
"""The least probability at which the file's own orientation is where a file opens: whoever
saved it standing meant it standing; an orientation it would hardly ever land in (a ball
balanced on a facet) is not a resting pose worth opening in."""


def default_pose_of(choices: list[PoseChoice]) -> int:
    """The stable pose of the file's own orientation when it is one of at least AS_IN_FILE_MIN
    probability, else of the most probable group (Document.default_pose)."""
    for choice in choices:
        if choice.group.as_in_file and choice.group.probability >= AS_IN_FILE_MIN:
            return choice.group.index
    return choices[0].group.index if choices else 0


@dataclass
class Run:
    """One Simulate press: the inputs it used and one record per trial."""

    run_id: int
    grasp: Grasp
    params: SimulationParams
    spec: TrialSpec
    trials: dict[int, TrialRecord] = field(default_factory=dict)
    object_version: int = 0  # the document's object version it ran on (Document.version)
    # The object as it rested when the run started (its mass and centre of mass for the weight
    # drawn with the contact forces; None: the document's object).
    obj: RestingObject | None = None
    # A push run (the app's push, engine.grasp.push): the push, and the metres of arrow drawn
    # per newton of it (the drag that asked for it); None for a plain run.
    push: Push | None = None
    push_arrow_m_per_n: float = 0.0

    def finished(self) -> bool:
        """True when every trial is done, failed or cancelled."""
        return all(r.status in ("done", "failed", "cancelled") for r in self.trials.values())


@dataclass
class Document:
    """Object + grasp + parameters + results of one study."""

    spec_text: str  # "cube", "cube:N" or a mesh path (what the user opened)
    unit: str | None
    mesh: ObjectMesh
    poses: list[StablePose]
    pose_index: int
    density_kg_m3: float | None  # None: the object's default (3 g cube, else 1000 kg/m^3)
    obj: RestingObject
    grasp: Grasp
    params: SimulationParams
    spec: TrialSpec
    analytic_force_n: float = 0.2
    run: Run | None = None
    path: Path | None = None  # the session file, once saved or opened
    dirty: bool = False  # results not yet saved
    # The run the session file at `path` holds (None: none, or no results): Ctrl+S asks before
    # a later run replaces it there (a session holds one run).
    saved_run: Run | None = None
    version: int = 0  # bumps whenever the object changes (cache key for workers)
    # The pose list: one choice per group of look-alike stable poses, most probable first
    # (app.model.pose_choices; found with the poses, in the reading worker for files).
    pose_choices: list[PoseChoice] = field(default_factory=list, repr=False)

    @classmethod
    def open_object(
        cls,
        spec_text: str,
        unit: str | None = None,
        params: SimulationParams | None = None,
        mesh: ObjectMesh | None = None,
        body: str | None = None,
        find_default: bool = True,
        poses: list[StablePose] | None = None,
        choices: list[PoseChoice] | None = None,
    ) -> Document:
        """Load a mesh (or the built-in cube) resting in its default pose (default_pose_of: as
        saved, else the most probable group of look-alike poses), with the default grasp;
        `body` chooses among several bodies in the file (engine.scene.mesh_repair).
        With `find_default` False the grasp is a ProvisionalGrasp (milliseconds) that the
        caller replaces once a worker process has found the default (the app does this:
        finding it can take a second). `mesh` and its `poses` are the object read already (the
        app reads files in a worker process), `choices` their pose list (pose_choices).
        Raises MeshError/ParameterError/GraspError."""
        mesh = mesh if mesh is not None else object_from_spec(spec_text, unit, body)
        params = params or SimulationParams()
        poses = poses if poses is not None else stable_poses(mesh)
        choices = choices if choices is not None else pose_choices(mesh, poses)
        index = default_pose_of(choices)
        obj = rest_object(mesh, index, poses=poses)
        grasp = (
            safe_default_grasp(obj, params)
            if find_default
            else provisional_default_grasp(obj, params)
        )
        return cls(
            spec_text, unit, mesh, poses, index, None, obj, grasp, params, TrialSpec(1, 0),
            pose_choices=choices,
        )  # fmt: skip

    @property
    def default_pose(self) -> int:
        """The stable pose a file opens in when none was chosen for it: the file's own
        orientation when it is a stable pose of at least AS_IN_FILE_MIN probability (a mug
        saved standing opens standing, though lying on its side is likelier), else the most
        probable member of the most probable pose group (not pose 0: a bottle lying on its
        side has its probability split over ~64 rolled facets)."""
        return default_pose_of(self.pose_choices)

    def pose_choice_of(self, index: int) -> int | None:
        """The position in the pose list of the group holding stable pose `index` (None: none)."""
        for k, choice in enumerate(self.pose_choices):
            if index in choice.group.members:
                return k
        return None

    @property
    def object_source(self) -> str:
        """What a session stores to find the object again ("builtin:cube" or the mesh path)."""
        if self.mesh.source.startswith("builtin:"):
            return "builtin:" + self.spec_text.strip()
        return self.mesh.source

    @property
    def display_name(self) -> str:
        """The object's name as shown in the window ("example cube" for the built-in one)."""
        return self.mesh.name if not self.mesh.source.startswith("builtin:") else "example cube"

    def suggested_path(self, tail: str) -> str:
        """A file name to propose in a save dialog: the object's name + `tail` (e.g.
        "_results.csv"), next to the session file, else next to the mesh file."""
        stem = re.sub(r"[^\w.-]+", "_", self.display_name).strip("_") or "ipcgrasp"
        if self.path is not None:
            folder: Path | None = Path(self.path).parent
            stem = Path(self.path).name.split(".ipcgrasp")[0] or stem
        elif not self.mesh.source.startswith("builtin:"):
            folder = Path(self.mesh.source).parent
        else:
            folder = None
        name = stem + tail
        return str(folder / name) if folder is not None else name

    def set_pose(self, index: int, find_default: bool = True) -> None:
        """Rest the object in stable pose `index` and reset the grasp to the default (with
        `find_default` False: to a ProvisionalGrasp, or leave it to the caller to set)."""
        self.obj = rest_object(self.mesh, index, density_kg_m3=self.density_kg_m3, poses=self.poses)
        self.pose_index = index
        self.grasp = (
            safe_default_grasp(self.obj, self.params)
            if find_default
            else provisional_default_grasp(self.obj, self.params)
        )
        self.version += 1

    def set_density(self, density: float | None) -> None:
        """Re-rest the object with this density (None: the object's default)."""
        self.density_kg_m3 = density
        self.obj = rest_object(self.mesh, self.pose_index, density_kg_m3=density, poses=self.poses)
        self.version += 1

    def new_run(self, run_id: int) -> Run:
        """Start a run with the current grasp, parameters and trial spec (results unsaved)."""
        self.run = Run(
            run_id, self.grasp, self.params, self.spec, object_version=self.version, obj=self.obj
        )
        self.dirty = True
        return self.run

    def replaces_saved_run(self) -> bool:
        """Whether saving to `path` would replace a run with results that the file holds by
        another run (or by none): a session holds one run."""
        saved = self.saved_run
        return (
            self.path is not None
            and saved is not None
            and saved is not self.run
            and any(r.frames or r.result is not None for r in saved.trials.values())
        )

    def to_session(self, extras: dict | None = None) -> Session:
        """The document as a session (the run's inputs when there is a run)."""
        trials = [] if self.run is None else [self.run.trials[k] for k in sorted(self.run.trials)]
        grasp, params, spec = self.grasp, self.params, self.spec
        if self.run is not None:  # the results belong to the run's inputs
            grasp, params, spec = self.run.grasp, self.run.params, self.run.spec
        return Session(
            object_source=self.object_source,
            object_sha256=self.mesh.sha256,
            object_unit=self.unit,
            stable_pose=self.pose_index,
            density_kg_m3=float(self.obj.density_kg_m3),
            grasp=grasp,
            params=params,
            spec=spec,
            trials=trials,
            mesh=self.mesh,
            object_name=self.mesh.name,
            object_repair=self.mesh.repair,
            extras={"analytic_force_n": self.analytic_force_n, **(extras or {})},
        )

    @classmethod
    def from_session(
        cls, session: Session, mesh: ObjectMesh, path: Path, poses: list[StablePose] | None = None,
        choices: list[PoseChoice] | None = None,
    ) -> Document:  # fmt: skip
        """A document from a loaded session and its resolved mesh (and the mesh's stable poses
        and pose list, when they were found already). The session's pose is a stable-pose
        index, whichever member of its group it is."""
        spec_text = session.object_source.removeprefix("builtin:")
        poses = poses if poses is not None else stable_poses(mesh)
        choices = choices if choices is not None else pose_choices(mesh, poses)
        index = min(max(session.stable_pose, 0), len(poses) - 1)
        density = None if mesh.source.startswith("builtin:") else session.density_kg_m3
        if not np.isfinite(session.density_kg_m3):
            density = None
        obj = rest_object(mesh, index, density_kg_m3=density, poses=poses)
        doc = cls(
            spec_text, session.object_unit, mesh, poses, index, density, obj, session.grasp,
            session.params, session.spec, pose_choices=choices,
        )  # fmt: skip
        doc.analytic_force_n = float(session.extras.get("analytic_force_n", 0.2))
        if session.trials:
            run = Run(1, session.grasp, session.params, session.spec, obj=obj)
            run.trials = {r.trial: r for r in session.trials}
            doc.run = run
            doc.saved_run = run
        doc.path = path
        return doc


def safe_default_grasp(obj: RestingObject, params: SimulationParams) -> Grasp:
    """The engine's default grasp (through the centre of mass when it fits, else the best
    sampled grasp); when no grasp fits the gripper, a grasp through the centre of mass (drawn
    as invalid, with the engine's reason, until the user moves it or samples grasps)."""
    from engine.errors import GraspError

    try:
        return default_grasp_for(obj, params).grasp
    except GraspError:
        return Grasp(np.asarray(obj.center_of_mass, dtype=float), np.array([1.0, 0.0, 0.0]), 0.0)


@dataclass(frozen=True)
class ProvisionalGrasp(Grasp):
    """A stand-in for the default grasp while a worker process finds it (the app's
    DefaultGraspController replaces it, in the document and in the undo history, by the grasp
    found). Nothing checks or predicts it meanwhile: it is drawn as "finding a grasp"."""

    def resolved(self) -> Grasp:
        """The same grasp as a plain Grasp (what stays when no grasp fits the gripper)."""
        return Grasp(self.center.copy(), self.axis.copy(), self.approach_angle_rad)


def provisional_default_grasp(obj: RestingObject, params: SimulationParams) -> ProvisionalGrasp:
    """The grasp shown until the default is found: the top-down grasp through the centre of
    mass along the narrowest horizontal extent (engine.grasp.default_grasp.default_grasp,
    geometry only: about a millisecond, no simulator check), or, for an object too flat for
    it, one through the centre of mass along x."""
    from engine.errors import GraspError
    from engine.grasp.default_grasp import default_grasp

    try:
        g = default_grasp(obj, pad_outline(params.pad, params.pad_edge_length_m))
    except GraspError:
        g = Grasp(np.asarray(obj.center_of_mass, dtype=float), np.array([1.0, 0.0, 0.0]), 0.0)
    return ProvisionalGrasp(g.center, g.axis, g.approach_angle_rad)
