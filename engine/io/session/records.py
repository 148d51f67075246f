"""What a session holds: the study (object, grasp, parameters, trial plan) and its trials."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from engine.errors import IpcGraspError
from engine.grasp.frames import Frame, TrialResult
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.trials import TrialSpec
from engine.scene.mesh_repair import NO_REPAIR, MeshRepair
from engine.scene.object_mesh import ObjectMesh

FORMAT = "ipcgrasp-session"
VERSION = 1
TRIAL_STATUSES = ("queued", "running", "done", "failed", "cancelled")


class SessionError(IpcGraspError, ValueError):
    """A session file that cannot be read or written (the message says what to do)."""


@dataclass
class TrialRecord:
    """One trial of a run: its perturbed gripper pose, streamed frames and outcome."""

    trial: int
    gripper_pose: np.ndarray
    status: str = "queued"
    frames: list[Frame] = field(default_factory=list)
    # Per frame (pad 1, pad 2) strain energy density per vertex, J/m^3; may be empty.
    energy_density: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    result: TrialResult | None = None


@dataclass
class Session:
    """The saved state of a study (see the module docstring for the file format)."""

    object_source: str
    object_sha256: str | None
    object_unit: str | None
    stable_pose: int
    density_kg_m3: float
    grasp: Grasp
    params: SimulationParams
    spec: TrialSpec
    trials: list[TrialRecord] = field(default_factory=list)
    mesh: ObjectMesh | None = None  # the embedded copy of the object mesh
    object_name: str = ""
    extras: dict = field(default_factory=dict)
    object_repair: MeshRepair = NO_REPAIR  # what loading repaired, and the body used
