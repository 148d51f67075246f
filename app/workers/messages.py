"""Messages between the GUI process and its worker processes (frozen, picklable, no Qt).

Jobs carry plain engine data (the resting object, a pose, parameters); replies carry engine
Frames and results plus numpy fields, so nothing VTK or Qt ever crosses a process boundary.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.analytic.registry import ModelSpec
from engine.analytic.result import ModelResult
from engine.errors import Message
from engine.grasp.calibration import PsiStopForce
from engine.grasp.frames import Frame, TrialResult
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.push import Push
from engine.grasp.trials import PlannedTrial
from engine.scene.resting import RestingObject


@dataclass(frozen=True, eq=False)
class TrialJob:
    """Run one planned squeeze-lift trial (engine.grasp.trials.plan_trials made its pose)."""

    run_id: int
    planned: PlannedTrial
    obj: RestingObject
    params: SimulationParams
    max_frames: int | None = None  # stop after this many frames (smoke test, benchmarks)
    push: Push | None = None  # after a trial that lifted, push the held object (engine.grasp.push)

    @property
    def trial(self) -> int:
        return self.planned.index


@dataclass(frozen=True)
class WorkerReady:
    worker: int
    warmup_s: float


@dataclass(frozen=True)
class TrialStarted:
    worker: int
    run_id: int
    trial: int


@dataclass(frozen=True, eq=False)
class FramePacket:
    worker: int
    run_id: int
    trial: int
    frame: Frame
    energy: tuple[np.ndarray, np.ndarray]  # strain energy density per pad vertex, J/m^3


@dataclass(frozen=True, eq=False)
class TrialEnded:
    worker: int
    run_id: int
    trial: int
    result: TrialResult
    cancelled: bool


@dataclass(frozen=True)
class AnalysisJob:
    """Check a grasp and run the analytic models on it (latest request wins)."""

    request: int
    obj: RestingObject | None  # None: same object as the previous job
    grasp: Grasp
    params: SimulationParams
    # Registry entries, not names: a model registered at run time in the GUI process is
    # registered in the worker too (engine.analytic.registry).
    models: tuple[ModelSpec, ...]
    samples: int
    seed: int
    closing_force_n: float = 0.2
    check: bool = True  # check the grasp with the simulator's input checks first


@dataclass(frozen=True)
class GraspCheck:
    request: int
    valid: bool
    reason: str


@dataclass(frozen=True, eq=False)
class Predictions:
    request: int
    available: bool
    results: list[ModelResult]  # [] when unavailable
    error: str = ""
    stage: str = "nominal"  # "nominal" (fast, no samples) then "robust" (with samples)


@dataclass(frozen=True, eq=False)
class SampleJob:
    """Sample `n` grasps of `obj` for the gripper of `params` (engine.grasp.sampler)."""

    request: int
    obj: RestingObject
    params: SimulationParams
    n: int
    seed: int


@dataclass(frozen=True, eq=False)
class SampledGrasps:
    """The sampled grasps of a SampleJob, best first (engine GraspCandidates), or the reason
    there are none."""

    request: int
    candidates: list
    error: str = ""
    seconds: float = 0.0


@dataclass(frozen=True, eq=False)
class DefaultGraspJob:
    """Find the default grasp of `obj` for the gripper of `params`
    (engine.analytic.ranking.default_grasp_for: through the centre when it fits, else the best
    sampled grasp)."""

    request: int
    obj: RestingObject
    params: SimulationParams
    seed: int = 0


@dataclass(frozen=True, eq=False)
class DefaultGraspFound:
    """The answer to a DefaultGraspJob: the grasp and how it was chosen, or (grasp None) the
    engine's reason that no grasp fits, which names a preset whose stroke fits."""

    request: int
    grasp: Grasp | None
    how: str = ""
    error: str = ""
    seconds: float = 0.0
    # The engine's notice that even this grasp cannot carry the object's weight (its margin
    # is below 1), naming the presets whose default grasp can (DefaultGrasp.weak).
    weak: Message | None = None
    # The engine's reason that no grasp fits with its settings as fields (the presets whose
    # stroke fits, the resting pose), for the app to name its own controls; `error` is the
    # same in the command line's words.
    problem: Message | None = None


@dataclass(frozen=True, eq=False)
class PsiForceJob:
    """Squeeze `grasp` with the Psi_th stop of `params` and report the grip force it ends
    with (engine.grasp.calibration.force_at_psi)."""

    request: int
    obj: RestingObject
    grasp: Grasp
    params: SimulationParams


@dataclass(frozen=True, eq=False)
class PsiForceFound:
    """The answer to a PsiForceJob: the engine's PsiStopForce (which may be "no grip" with its
    reason), or (result None) why the grasp could not be squeezed."""

    request: int
    result: PsiStopForce | None
    error: str = ""
    seconds: float = 0.0


@dataclass(frozen=True)
class ReadObjectJob:
    """Read a mesh file (or a built-in object spec) as engine.scene.object_mesh.object_from_spec
    does and find its stable poses; with `extents_only`, only measure the file's size in its
    own units (for the unit chooser)."""

    request: int
    spec_text: str
    unit: str | None = None
    body: str | None = None
    extents_only: bool = False


@dataclass(frozen=True)
class ReadSessionJob:
    """Read a session file, find its object (engine.io.session.resolve_object) and the object's
    stable poses. An object file outside the session's folder is read only when its path is in
    `allowed`; one neither allowed nor in `refused` is asked about (the answer's
    `ask_outside`), and the GUI sends the job again with the user's answer."""

    request: int
    path: str
    allowed: frozenset[str] = frozenset()
    refused: frozenset[str] = frozenset()


@dataclass(frozen=True)
class ReadDataSetJob:
    """Read a data set (app.model.dataset_reading.load_data_set: its table and its objects)."""

    request: int
    path: str
    frames_dir: str | None = None


@dataclass(frozen=True, eq=False)
class ObjectRead:
    """The answer to a read job. `value` is what was read: (ObjectMesh, [StablePose]) for a mesh,
    (Session, ObjectMesh, note, [StablePose]) for a session, a DataSet for a data set; None
    with `error` (the engine's exception, with its settings) when it could not be read.
    `extents` is the file's size in its own units when it was measured; `ask_outside` a file
    outside a session's folder the user must allow or refuse first. `pose_choices` is the
    read object's pose list (app.model.pose_choices.PoseChoice, one per group of look-alike
    stable poses) for a mesh or a session."""

    request: int
    value: object = None
    error: Exception | None = None
    extents: tuple[float, float, float] | None = None
    ask_outside: str | None = None
    seconds: float = 0.0
    pose_choices: list | None = None
