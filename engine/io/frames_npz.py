"""Frames of one or more trials in a single .npz (NumPy arrays only; no pickle).

Layout: `meta` is a JSON string (version, trial ids, phases legend); per trial k the arrays
`t{k}/time_s` (F,), `t{k}/phase` (F,) int8 index into meta["phases"], `t{k}/pad1` and
`t{k}/pad2` (F,n,3) float32 world vertex positions, `t{k}/object_pose` (F,4,4),
`t{k}/psi` (F,2) J, `t{k}/grip_force` (F,2) N, `t{k}/contacts` (F,5) int32 in the order of
meta["contact_columns"], `t{k}/min_distance` (F,) m, `t{k}/object_min_z` (F,) m,
`t{k}/plate` (F,2) closing travel and lift in m, `t{k}/newton_iterations` (F,),
`t{k}/intersection_free` (F,) bool (absent in older files; readers then take the trial's flag).
The contact forces on the object (engine.grasp.frames.Frame.contact_*), absent in older files
(their frames then have none): `t{k}/contact_count` (F,) int32 rows per frame, and the rows of
all frames one after the other: `t{k}/contact_points` (R,3) float32 world positions in m,
`t{k}/contact_normal` and `t{k}/contact_friction` (R,3) float32 forces in N,
`t{k}/contact_source` (R,) int8 (0 pad 1, 1 pad 2, 2 ground).
Shared: `pad_tets` (t,4), `pad_surface_faces` (f,3), `object_vertices` (v,3) in the resting
frame, `object_faces` (m,3).

`ipcgrasp batch --frames DIR` writes one such file per IPC trial, `DIR/<task key>.npz`, whose
meta also holds `task_key`, `grasp_id`, `trial` and `gripper_pose` (the trial's 4x4 gripper
pose in the resting frame, a list of rows); `frames_file_complete` tells a whole file from a
missing or cut one without inflating its arrays. meta["arrays_sha256"] (files since issue 42) is
the SHA-256 of every other array (`arrays_digest`: name, dtype, shape and bytes, in name order):
`frames_file_damage` verifies it, so a resumed batch never trusts a damaged file.
"""

from __future__ import annotations

import hashlib
import json
import os
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from engine import __version__
from engine.errors import ParameterError
from engine.grasp.frames import PHASES, Frame
from engine.io.npz_read import NpzError, read_npz
from engine.io.safe_write import atomic_path


class FramesError(ParameterError):
    """Frame arrays that are missing, of the wrong shape or type, or not finite."""


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
        "contact_count": np.array([len(f.contact_source) for f in frames], dtype=np.int32),
        "contact_points": _rows([f.contact_points for f in frames]),
        "contact_normal": _rows([f.contact_normal_n for f in frames]),
        "contact_friction": _rows([f.contact_friction_n for f in frames]),
        "contact_source": np.concatenate(
            [np.zeros(0, np.int8), *(f.contact_source for f in frames)]
        ).astype(np.int8),
    }


def _rows(per_frame: list[np.ndarray]) -> np.ndarray:
    """The (n_i, 3) arrays of the frames one after the other, as float32."""
    return np.concatenate([np.zeros((0, 3)), *per_frame]).astype(np.float32)


# The contact-force arrays: optional (older files have none), rows counted by contact_count.
_CONTACT_ROWS = ("contact_points", "contact_normal", "contact_friction")
_CONTACT_ARRAYS = ("contact_count", *_CONTACT_ROWS, "contact_source")


# name -> (trailing shape, kind); None in a shape is "any length" (the pad's vertex count).
_TRIAL_ARRAYS: dict[str, tuple[tuple[int | None, ...], str]] = {
    "time_s": ((), "f"),
    "phase": ((), "i"),
    "pad1": ((None, 3), "f"),
    "pad2": ((None, 3), "f"),
    "object_pose": ((4, 4), "f"),
    "psi": ((2,), "f"),
    "grip_force": ((2,), "f"),
    "contacts": ((len(CONTACT_COLUMNS),), "i"),
    "min_distance": ((), "f"),
    "object_min_z": ((), "f"),
    "plate": ((2,), "f"),
    "newton_iterations": ((), "i"),
}
# Arrays whose values must be finite (the others may hold inf/NaN, e.g. no contact yet).
_FINITE = ("time_s", "pad1", "pad2", "object_pose", "plate")


def check_trial_arrays(arrays: dict[str, np.ndarray], prefix: str = "", where: str = "") -> int:
    """The number of frames of the trial under `prefix`; FramesError says what is wrong.

    Checks that every array is present, numeric (integers where counts are stored), has one
    entry per frame and the documented shape, that phases index `PHASES` and that times, poses
    and positions are finite.
    """
    at = f"{where}: " if where else ""
    if f"{prefix}time_s" not in arrays:
        raise FramesError(f"{at}array {prefix}time_s is missing")
    n: int | None = None
    for name, (tail, kind) in _TRIAL_ARRAYS.items():
        key = prefix + name
        a = arrays.get(key)
        if a is None:
            raise FramesError(f"{at}array {key} is missing (the file is incomplete)")
        if a.dtype.kind not in ("iu" if kind == "i" else "fiu") or a.dtype.kind == "b":
            raise FramesError(f"{at}array {key} has type {a.dtype}; expected numbers")
        if a.ndim != 1 + len(tail) or any(
            t is not None and s != t for s, t in zip(a.shape[1:], tail, strict=True)
        ):
            want = ", ".join(["F", *("n" if t is None else str(t) for t in tail)])
            raise FramesError(f"{at}array {key} has shape {a.shape}; expected ({want})")
        if n is None:
            n = a.shape[0]
        elif a.shape[0] != n:
            raise FramesError(f"{at}array {key} has {a.shape[0]} entries for {n} frames")
    assert n is not None
    if arrays[prefix + "pad1"].shape != arrays[prefix + "pad2"].shape:
        raise FramesError(f"{at}arrays {prefix}pad1 and {prefix}pad2 differ in shape")
    phase = arrays[prefix + "phase"]
    if n and (phase.min() < 0 or phase.max() >= len(PHASES)):
        raise FramesError(f"{at}array {prefix}phase holds values outside 0..{len(PHASES) - 1}")
    for name in _FINITE:
        if not np.all(np.isfinite(arrays[prefix + name])):
            raise FramesError(f"{at}array {prefix}{name} holds NaN or infinite values")
    free = arrays.get(prefix + "intersection_free")
    if free is not None and (free.dtype.kind not in "biu" or free.shape != (n,)):
        raise FramesError(
            f"{at}array {prefix}intersection_free has shape {free.shape} and type "
            f"{free.dtype}; expected ({n},) bool"
        )
    _check_contact_arrays(arrays, prefix, n, at)
    return int(n)


def _check_contact_arrays(arrays: dict[str, np.ndarray], prefix: str, n: int, at: str) -> None:
    """The optional contact-force arrays: all or none, rows matching contact_count."""
    present = [name for name in _CONTACT_ARRAYS if prefix + name in arrays]
    if not present:
        return
    if len(present) != len(_CONTACT_ARRAYS):
        missing = sorted(set(_CONTACT_ARRAYS) - set(present))
        raise FramesError(f"{at}contact-force arrays {', '.join(missing)} are missing")
    count = arrays[prefix + "contact_count"]
    if count.dtype.kind not in "iu" or count.shape != (n,) or (n and count.min() < 0):
        raise FramesError(
            f"{at}array {prefix}contact_count has shape {count.shape} and type {count.dtype}; "
            f"expected ({n},) counts"
        )
    rows = int(count.sum())
    for name in _CONTACT_ROWS:
        a = arrays[prefix + name]
        if a.dtype.kind != "f" or a.shape != (rows, 3):
            raise FramesError(
                f"{at}array {prefix}{name} has shape {a.shape} and type {a.dtype}; expected "
                f"({rows}, 3) numbers"
            )
        if not np.all(np.isfinite(a)):
            raise FramesError(f"{at}array {prefix}{name} holds NaN or infinite values")
    source = arrays[prefix + "contact_source"]
    if source.dtype.kind not in "iu" or source.shape != (rows,):
        raise FramesError(
            f"{at}array {prefix}contact_source has shape {source.shape} and type "
            f"{source.dtype}; expected ({rows},) integers"
        )
    if rows and (source.min() < 0 or source.max() > 2):
        raise FramesError(f"{at}array {prefix}contact_source holds values outside 0..2")


def frames_from_arrays(
    arrays: dict[str, np.ndarray], prefix: str = "", intersection_free: bool = True
) -> list[Frame]:
    """Rebuild Frames from the arrays of `frames_to_arrays` (keys under `prefix`).

    `intersection_free` is used only for files without the per-frame flag: pass the trial
    result's flag (a trial is intersection-free exactly when all its frames are). Arrays that
    do not pass `check_trial_arrays` raise FramesError.
    """
    check_trial_arrays(arrays, prefix)
    a = {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
    n = len(a["time_s"])
    free = a.get("intersection_free")
    if free is None:
        free = np.full(n, bool(intersection_free))
    if len(free) != n:
        raise ValueError(f"{prefix}intersection_free has {len(free)} entries for {n} frames")
    forces = _contact_rows(a, n)
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
            contact_points=forces[i][0],
            contact_normal_n=forces[i][1],
            contact_friction_n=forces[i][2],
            contact_source=forces[i][3],
        )
        for i in range(n)
    ]


def _contact_rows(
    a: dict[str, np.ndarray], n: int
) -> list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]]:
    """Each frame's (points, normal, friction, source) rows; empty where the file has none."""
    if "contact_count" not in a:
        none = (np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0, np.int8))
        return [none] * n
    ends = np.cumsum(a["contact_count"])
    starts = ends - a["contact_count"]
    points, normal, friction = (np.asarray(a[k], dtype=float) for k in _CONTACT_ROWS)
    source = np.asarray(a["contact_source"], dtype=np.int8)
    return [
        (points[i:j], normal[i:j], friction[i:j], source[i:j])
        for i, j in zip(starts.tolist(), ends.tolist(), strict=True)
    ]


def save_frames(
    path: str | os.PathLike,
    trials: dict[int, list[Frame]],
    pad_tets: np.ndarray,
    pad_surface_faces: np.ndarray,
    object_vertices: np.ndarray,
    object_faces: np.ndarray,
    *,
    overwrite: bool = False,
    extra_meta: dict[str, Any] | None = None,
) -> Path:
    """Write the frames of `trials` (trial id -> frames) and the shared meshes to one .npz.

    `.npz` is appended to a name without it. An existing file is refused unless `overwrite`
    (OutputExistsError naming --force); the file is written atomically. Raises
    ParameterError when it cannot be written. Returns the path written. `extra_meta` adds
    JSON-able entries to the meta (the batch's task key, grasp id and gripper pose); it cannot
    replace the format's own entries.
    """
    meta: dict[str, Any] = dict(extra_meta or {})
    meta |= {
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
        "pad_tets": np.asarray(pad_tets, dtype=np.int32),
        "pad_surface_faces": np.asarray(pad_surface_faces, dtype=np.int32),
        "object_vertices": np.asarray(object_vertices, dtype=np.float64),
        "object_faces": np.asarray(object_faces, dtype=np.int32),
    }
    for k, frames in trials.items():
        if frames:
            for name, arr in frames_to_arrays(frames).items():
                arrays[f"t{k}/{name}"] = arr
    meta["arrays_sha256"] = arrays_digest(arrays)
    arrays["meta"] = np.array(json.dumps(meta))
    p = Path(path).expanduser()
    if not p.name.endswith(".npz"):
        p = p.with_name(p.name + ".npz")
    try:
        with atomic_path(p, overwrite=overwrite) as tmp, open(tmp, "wb") as f:
            np.savez_compressed(f, **arrays)
    except OSError as exc:
        raise ParameterError(f"cannot write frames to {p}: {exc}; choose a writable path") from exc
    return p


def load_frames(path: str | os.PathLike) -> tuple[dict, dict[str, np.ndarray]]:
    """(meta, arrays) of a frames file; raises ParameterError for files that are not one.

    Sizes are capped (engine.io.npz_read), every trial listed in meta must have valid arrays
    (`check_trial_arrays`), and the arrays must match meta["arrays_sha256"] when the file has
    one (files written before the checksum existed have none).
    """
    p = Path(path)
    try:
        arrays = read_npz(p)
    except NpzError as exc:
        raise FramesError(f"{p} is not an ipcgrasp frames file: {exc}") from exc
    raw = arrays.pop("meta", None)
    if raw is None or raw.shape != () or raw.dtype.kind != "U":
        raise FramesError(f"{p} is not an ipcgrasp frames file (no meta text)")
    try:
        meta = json.loads(str(raw))
    except (ValueError, RecursionError) as exc:
        raise FramesError(f"{p}: its meta is not valid JSON ({exc})") from None
    if not isinstance(meta, dict) or meta.get("format") != "ipcgrasp-frames":
        raise FramesError(f"{p} is not an ipcgrasp frames file")
    trials = meta.get("trials")
    if not isinstance(trials, list) or not all(
        isinstance(k, int) and not isinstance(k, bool) for k in trials
    ):
        raise FramesError(f"{p}: meta 'trials' must be a list of trial numbers")
    pad_vertices = None
    for k in trials:
        if f"t{k}/time_s" in arrays:
            check_trial_arrays(arrays, f"t{k}/", str(p))
            pad_vertices = arrays[f"t{k}/pad1"].shape[1]
    _check_shared_arrays(arrays, pad_vertices, str(p))
    expected = meta.get("arrays_sha256")
    if expected is not None and expected != arrays_digest(arrays):
        raise FramesError(
            f"{p}: its arrays do not match their checksum (meta arrays_sha256): the file was "
            "changed or damaged after it was written; write it again (a batch run again with "
            "the same --frames recomputes the trial)"
        )
    return meta, arrays


# The shared meshes: name -> (columns, the array whose rows its entries index).
_SHARED = {
    "object_vertices": (3, None),
    "object_faces": (3, "object_vertices"),
    "pad_surface_faces": (3, "pad"),
    "pad_tets": (4, "pad"),
}


def _check_shared_arrays(arrays: dict[str, np.ndarray], pad_vertices: int | None, p: str) -> None:
    """The shared meshes: present, (n, columns), finite vertices, and faces and tetrahedra
    whose indices are rows of their vertices (the pads' rows: `pad_vertices`, when a trial
    has frames). FramesError names the array."""
    for name, (columns, rows_of) in _SHARED.items():
        a = arrays.get(name)
        kind = "f" if rows_of is None else "iu"
        if a is None or a.ndim != 2 or a.shape[1] != columns or a.dtype.kind not in kind:
            what = "missing" if a is None else f"of shape {a.shape} and type {a.dtype}"
            raise FramesError(
                f"{p}: array {name} is {what}; expected (n, {columns}) "
                f"{'numbers' if rows_of is None else 'indices'} (the file is damaged)"
            )
        if rows_of is None:
            if not np.all(np.isfinite(a)):
                raise FramesError(f"{p}: array {name} holds NaN or infinite values")
            continue
        n = len(arrays["object_vertices"]) if rows_of == "object_vertices" else pad_vertices
        if n is not None and a.size and (a.min() < 0 or a.max() >= n):
            raise FramesError(
                f"{p}: array {name} indexes vertices outside 0..{n - 1} (the file is damaged)"
            )


def arrays_digest(arrays: Mapping[str, np.ndarray]) -> str:
    """The SHA-256 (hex) of a frames file's arrays but `meta`: each one's name, dtype, shape and
    bytes, in name order (what meta["arrays_sha256"] records)."""
    digest = hashlib.sha256()
    for name in sorted(arrays):
        if name == "meta":
            continue
        a = np.ascontiguousarray(arrays[name])
        digest.update(f"{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        digest.update(a.tobytes())
    return digest.hexdigest()


def frames_file_damage(path: str | os.PathLike) -> str:
    """'' when `path` is a whole frames file whose arrays match their checksum; else why not.

    Reads every array (the caps and checks of `load_frames`, each zip member's CRC, the
    arrays against meta["arrays_sha256"]); a file written before the checksum existed passes
    when it loads.
    """
    p = Path(path)
    if not frames_file_complete(p):
        return "missing or incomplete"
    try:
        load_frames(p)
    except ParameterError as exc:
        return f"unreadable ({exc})"
    return ""


def frames_file_complete(path: str | os.PathLike) -> bool:
    """Whether `path` is a whole frames file: a readable .npz whose meta names its trials and
    that holds every array of each of them. Only the zip's directory and the meta are read
    (milliseconds), so a batch can check thousands of files when it resumes; `load_frames`
    still validates the arrays themselves."""
    p = Path(path)
    try:
        with zipfile.ZipFile(p) as zf:
            names = set(zf.namelist())
            if "meta.npy" not in names:
                return False
            with zf.open("meta.npy") as member:
                raw = np.lib.format.read_array(member, allow_pickle=False)
        meta = json.loads(str(raw))
        trials = meta["trials"]
        return (
            meta.get("format") == "ipcgrasp-frames"
            and isinstance(trials, list)
            and bool(trials)
            and all(f"t{k}/{name}.npy" in names for k in trials for name in _TRIAL_ARRAYS)
        )
    except (OSError, zipfile.BadZipFile, zlib.error, EOFError, ValueError, KeyError, TypeError):
        return False
