"""Frames of one or more trials in a single .npz (NumPy arrays only; no pickle).

Layout: `meta` is a JSON string (version, trial ids, phases legend); per trial k the arrays
`t{k}/time_s` (F,), `t{k}/phase` (F,) int8 index into meta["phases"], `t{k}/pad1` and
`t{k}/pad2` (F,n,3) float32 world vertex positions, `t{k}/object_pose` (F,4,4),
`t{k}/psi` (F,2) J, `t{k}/grip_force` (F,2) N, `t{k}/contacts` (F,5) int32 in the order of
meta["contact_columns"], `t{k}/min_distance` (F,) m, `t{k}/object_min_z` (F,) m,
`t{k}/plate` (F,2) closing travel and lift in m, `t{k}/newton_iterations` (F,),
`t{k}/intersection_free` (F,) bool (absent in older files; readers then take the trial's flag).
Shared: `pad_tets` (t,4), `pad_surface_faces` (f,3), `object_vertices` (v,3) in the resting
frame, `object_faces` (m,3).
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from engine import __version__
from engine.errors import ParameterError
from engine.grasp.frames import PHASES, Frame

CONTACT_COLUMNS = (
    "contacts_pad1_object",
    "contacts_pad2_object",
    "contacts_object_ground",
    "contacts_pad_ground",
    "contacts_pad_pad",
)


def frames_to_arrays(frames: list[Frame]) -> dict[str, np.ndarray]:
    """One trial's frames as the per-trial arrays of the file (see the module docstring)."""
    return {
        "time_s": np.array([f.time_s for f in frames]),
        "phase": np.array([PHASES.index(f.phase) for f in frames], dtype=np.int8),
        "pad1": np.array([f.pad_vertices[0] for f in frames], dtype=np.float32),
        "pad2": np.array([f.pad_vertices[1] for f in frames], dtype=np.float32),
        "object_pose": np.array([f.object_pose for f in frames]),
        "psi": np.array([f.psi_j for f in frames]),
        "grip_force": np.array([f.grip_force_n for f in frames]),
        "contacts": np.array([[f.contacts[c] for c in CONTACT_COLUMNS] for f in frames], np.int32),
        "min_distance": np.array([f.min_distance_m for f in frames]),
        "object_min_z": np.array([f.object_min_z_m for f in frames]),
        "plate": np.array([(f.plate_travel_m, f.plate_lift_m) for f in frames]),
        "newton_iterations": np.array([f.newton_iterations for f in frames], dtype=np.int32),
        "intersection_free": np.array([f.intersection_free for f in frames], dtype=bool),
    }


def frames_from_arrays(
    arrays: dict[str, np.ndarray], prefix: str = "", intersection_free: bool = True
) -> list[Frame]:
    """Rebuild Frames from the arrays of `frames_to_arrays` (keys under `prefix`).

    `intersection_free` is used only for files without the per-frame flag: pass the trial
    result's flag (a trial is intersection-free exactly when all its frames are).
    """
    a = {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
    n = len(a["time_s"])
    free = a.get("intersection_free")
    if free is None:
        free = np.full(n, bool(intersection_free))
    if len(free) != n:
        raise ValueError(f"{prefix}intersection_free has {len(free)} entries for {n} frames")
    return [
        Frame(
            index=i,
            time_s=float(a["time_s"][i]),
            phase=PHASES[int(a["phase"][i])],
            pad_vertices=(np.asarray(a["pad1"][i]), np.asarray(a["pad2"][i])),
            object_pose=np.asarray(a["object_pose"][i], dtype=float),
            plate_travel_m=float(a["plate"][i][0]),
            plate_lift_m=float(a["plate"][i][1]),
            psi_j=(float(a["psi"][i][0]), float(a["psi"][i][1])),
            grip_force_n=(float(a["grip_force"][i][0]), float(a["grip_force"][i][1])),
            contacts={c: int(a["contacts"][i][j]) for j, c in enumerate(CONTACT_COLUMNS)},
            min_distance_m=float(a["min_distance"][i]),
            object_min_z_m=float(a["object_min_z"][i]),
            newton_iterations=int(a["newton_iterations"][i]),
            intersection_free=bool(free[i]),
        )
        for i in range(n)
    ]


def save_frames(
    path: str | os.PathLike,
    trials: dict[int, list[Frame]],
    pad_tets: np.ndarray,
    pad_surface_faces: np.ndarray,
    object_vertices: np.ndarray,
    object_faces: np.ndarray,
) -> None:
    """Write the frames of `trials` (trial id -> frames) and the shared meshes to one .npz.

    Raises ParameterError when the file cannot be written.
    """
    meta = {
        "format": "ipcgrasp-frames",
        "version": 1,
        "ipcgrasp_version": __version__,
        "trials": sorted(trials),
        "phases": list(PHASES),
        "contact_columns": list(CONTACT_COLUMNS),
    }
    # Values typed Any: numpy's stub reserves the keyword `allow_pickle` among savez's **arrays
    # (our names never collide with it: meta, pad_*, object_*, t{k}/...).
    arrays: dict[str, Any] = {
        "meta": np.array(json.dumps(meta)),
        "pad_tets": np.asarray(pad_tets, dtype=np.int32),
        "pad_surface_faces": np.asarray(pad_surface_faces, dtype=np.int32),
        "object_vertices": np.asarray(object_vertices, dtype=np.float64),
        "object_faces": np.asarray(object_faces, dtype=np.int32),
    }
    for k, frames in trials.items():
        if frames:
            for name, arr in frames_to_arrays(frames).items():
                arrays[f"t{k}/{name}"] = arr
    p = Path(path)
    try:
        p.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(p, **arrays)
    except OSError as exc:
        raise ParameterError(f"cannot write frames to {p}: {exc}; choose a writable path") from exc


def load_frames(path: str | os.PathLike) -> tuple[dict, dict[str, np.ndarray]]:
    """(meta, arrays) of a frames file; raises ParameterError for files that are not one."""
    try:
        with np.load(path, allow_pickle=False) as data:
            arrays = {k: data[k] for k in data.files}
        meta = json.loads(str(arrays.pop("meta")))
    except (OSError, ValueError, KeyError) as exc:
        raise ParameterError(f"{path} is not an ipcgrasp frames file ({exc})") from exc
    if meta.get("format") != "ipcgrasp-frames":
        raise ParameterError(f"{path} is not an ipcgrasp frames file")
    return meta, arrays
