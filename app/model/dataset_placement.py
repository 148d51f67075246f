"""A data-set grasp shown on a document of its object, and its simulated trials replayed
(Qt-free; the data set is app.model.dataset)."""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass

import numpy as np

from app.model.dataset import (
    DataSet,
    DataSetError,
    DataSetGrasp,
    DataSetObject,
    SimTrial,
)
from app.model.document import Document
from engine.grasp.antipodal import grasp_from_pose
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.io.results_csv import params_from_row, trial_result_from_row
from engine.io.session import TrialRecord


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
