"""Session files: everything needed to reopen a grasp study, as JSON plus NumPy arrays.

A session is two files side by side (never pickle):

`NAME.ipcgrasp.json` (UTF-8 JSON, human readable):
    format "ipcgrasp-session", version 1, ipcgrasp_version, saved_at (ISO 8601 UTC);
    object: source ("builtin:cube", "builtin:cube:N" or the absolute mesh path),
        relative_path (from the session's folder, or null), sha256 (of the mesh file, null for
        built-ins), unit (the file unit it was loaded with, or null = metres), stable_pose
        (index, most probable first), density_kg_m3, name;
    grasp: center [m], axis (unit), approach_angle_rad (resting frame, see engine.grasp.grasp);
    params: every SimulationParams field (SI units; engine.schema declares each field's unit
        and range, and reading checks them; fields a newer version added are ignored with a
        warning, fields missing take their defaults);
    trials: the TrialSpec fields n_trials, seed, translation_sigma_m, rotation_sigma_rad;
    results: one object per trial: trial, status (queued | running | done | failed |
        cancelled), gripper_pose (4x4, world <- gripper of the perturbed trial) and result
        (the TrialResult fields, or null when the trial has not finished);
    frames_file: the arrays file name (relative to the session file) and frames_sha256;
    extras: free-form (the app keeps its analytic predictions and camera here).
    Non-finite numbers are written as the strings "NaN", "Infinity", "-Infinity".

`NAME.ipcgrasp.npz` (numpy.savez_compressed, read with allow_pickle=False):
    object_vertices (v,3) float64 and object_faces (m,3) int64: the mesh in its file frame, in
    metres, so a session opens even when the mesh file has moved;
    per trial k with frames, the arrays of engine.io.frames_npz under the prefix `t{k}/`
    (time_s, phase, pad1, pad2, object_pose, psi, grip_force, contacts, min_distance,
    object_min_z, plate, newton_iterations, intersection_free) plus, when present,
    `t{k}/energy1` and `t{k}/energy2` (F,n) float32 pad strain energy density per vertex
    (J/m^3). Sessions saved before the per-frame intersection_free array existed read it
    from the trial result's flag.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import hashlib
import json
import logging
import math
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from engine import schema
from engine.errors import IpcGraspError, MeshError, ParameterError
from engine.grasp.frames import Frame, TrialResult
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.trials import TrialSpec
from engine.io.frames_npz import frames_from_arrays, frames_to_arrays
from engine.scene.object_mesh import ObjectMesh, object_from_spec
from engine.version import build_id

log = logging.getLogger(__name__)

FORMAT = "ipcgrasp-session"
VERSION = 1
SESSION_SUFFIX = ".ipcgrasp.json"
ARRAYS_SUFFIX = ".ipcgrasp.npz"
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


def session_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """(json, npz) paths of a session given either file's path or a bare name."""
    p = Path(path)
    name = p.name
    for suffix in (SESSION_SUFFIX, ARRAYS_SUFFIX, ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return p.with_name(name + SESSION_SUFFIX), p.with_name(name + ARRAYS_SUFFIX)


def _encode(value: object) -> object:
    """`value` as JSON data: arrays as lists, non-finite floats as "NaN"/"Infinity" strings."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    if isinstance(value, np.ndarray):
        return _encode(value.tolist())
    if isinstance(value, np.generic):
        return _encode(value.item())
    if isinstance(value, dict):
        return {str(k): _encode(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_encode(v) for v in value]
    return value


_NON_FINITE = {"NaN": math.nan, "Infinity": math.inf, "-Infinity": -math.inf}


def _decode_float(value: Any) -> float:
    """The inverse of `_encode` for a float field (JSON data, hence Any); null is NaN."""
    if isinstance(value, str) and value in _NON_FINITE:
        return _NON_FINITE[value]
    if value is None:
        return math.nan
    return float(value)


def _result_from_dict(d: dict[str, Any]) -> TrialResult:
    names = {f.name: f for f in dataclasses.fields(TrialResult)}
    kwargs: dict[str, Any] = {}
    for k, v in d.items():
        if k not in names:
            continue
        default = names[k].default
        if isinstance(default, float):
            kwargs[k] = _decode_float(v)
        elif k == "perturbation":
            kwargs[k] = {str(a): _decode_float(b) for a, b in dict(v).items()}
        else:
            kwargs[k] = v
    return TrialResult(**kwargs)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save_session(path: str | os.PathLike, session: Session) -> tuple[Path, Path]:
    """Write the session's JSON and arrays files; returns their paths.

    Raises SessionError when a file cannot be written (with the path and the reason).
    """
    json_path, npz_path = session_paths(path)
    arrays: dict[str, np.ndarray] = {}
    if session.mesh is not None:
        arrays["object_vertices"] = np.asarray(session.mesh.vertices, dtype=np.float64)
        arrays["object_faces"] = np.asarray(session.mesh.faces, dtype=np.int64)
    results = []
    for rec in session.trials:
        if rec.status not in TRIAL_STATUSES:
            raise SessionError(f"trial {rec.trial} has unknown status {rec.status!r}")
        if rec.frames:
            for name, arr in frames_to_arrays(rec.frames).items():
                arrays[f"t{rec.trial}/{name}"] = arr
            if len(rec.energy_density) == len(rec.frames):
                for j in (0, 1):
                    arrays[f"t{rec.trial}/energy{j + 1}"] = np.array(
                        [e[j] for e in rec.energy_density], dtype=np.float32
                    )
        results.append(
            {
                "trial": rec.trial,
                "status": rec.status,
                "gripper_pose": np.asarray(rec.gripper_pose, dtype=float),
                "frames": len(rec.frames),
                "result": None if rec.result is None else dataclasses.asdict(rec.result),
            }
        )
    try:
        json_path.parent.mkdir(parents=True, exist_ok=True)
        # numpy >= 2.1 stubs declare an `allow_pickle` keyword that **arrays could match; the
        # names here are "object_*" and "t<k>/*" (and numpy 1.26 has no such keyword).
        np.savez_compressed(npz_path, **arrays)  # type: ignore[arg-type]
    except OSError as exc:
        raise SessionError(
            f"cannot write {npz_path}: {exc.strerror or exc}; choose a writable folder"
        ) from exc
    relative = None
    if not session.object_source.startswith("builtin:"):
        try:
            relative = os.path.relpath(session.object_source, json_path.parent)
        except ValueError:  # another drive on Windows
            relative = None
    doc = {
        "format": FORMAT,
        "version": VERSION,
        "ipcgrasp_version": build_id(),
        "saved_at": _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds"),
        "object": {
            "source": session.object_source,
            "relative_path": relative,
            "sha256": session.object_sha256,
            "unit": session.object_unit,
            "stable_pose": int(session.stable_pose),
            "density_kg_m3": float(session.density_kg_m3),
            "name": session.object_name,
        },
        "grasp": session.grasp.to_dict(),
        "params": schema.to_dict(session.params),
        "trials": schema.to_dict(session.spec),
        "results": results,
        "frames_file": npz_path.name,
        "frames_sha256": _sha256(npz_path),
        "extras": session.extras,
    }
    try:
        text = json.dumps(_encode(doc), indent=2, allow_nan=False)
        json_path.write_text(text + "\n", encoding="utf-8")
    except OSError as exc:
        raise SessionError(
            f"cannot write {json_path}: {exc.strerror or exc}; choose a writable folder"
        ) from exc
    return json_path, npz_path


def load_session(path: str | os.PathLike) -> Session:
    """Read a session (either file's path). Raises SessionError naming what is wrong."""
    json_path, _ = session_paths(path)
    if not json_path.is_file():
        raise SessionError(f"session file {json_path} not found: check the path")
    try:
        doc = json.loads(json_path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SessionError(f"{json_path} is not a readable session file ({exc})") from exc
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SessionError(f"{json_path} is not an ipcgrasp session (no format {FORMAT!r})")
    if int(doc.get("version", 0)) > VERSION:
        raise SessionError(
            f"{json_path} was written by a newer ipcgrasp (session version {doc['version']}); "
            "update ipcgrasp to open it"
        )
    try:
        obj = doc["object"]
        g = doc["grasp"]
        grasp = Grasp(
            np.array(g["center"], float), np.array(g["axis"], float), float(g["approach_angle_rad"])
        )
        unknown: list[str] = []
        params = schema.from_dict(SimulationParams, doc["params"], unknown=unknown).validate()
        spec = schema.from_dict(TrialSpec, doc["trials"], unknown=unknown).validate()
        if unknown:
            log.warning(
                "%s: ignoring parameters this version does not know: %s",
                json_path,
                ", ".join(unknown),
            )
        session = Session(
            object_source=str(obj["source"]),
            object_sha256=obj.get("sha256"),
            object_unit=obj.get("unit"),
            stable_pose=int(obj.get("stable_pose", 0)),
            density_kg_m3=_decode_float(obj.get("density_kg_m3")),
            grasp=grasp,
            params=params,
            spec=spec,
            object_name=str(obj.get("name", "")),
            extras=dict(doc.get("extras") or {}),
        )
        relative = obj.get("relative_path")
    except ParameterError as exc:
        raise SessionError(f"{json_path} has a bad parameter: {exc}") from exc
    except (KeyError, TypeError, ValueError) as exc:
        raise SessionError(f"{json_path} is damaged: {type(exc).__name__}: {exc}") from exc
    session.extras["_relative_path"] = relative

    arrays: dict[str, np.ndarray] = {}
    frames_file = doc.get("frames_file")
    if frames_file:
        npz_path = json_path.parent / frames_file
        if not npz_path.is_file():
            raise SessionError(
                f"the session's arrays file {npz_path} is missing: keep it next to {json_path.name}"
            )
        try:
            with np.load(npz_path, allow_pickle=False) as data:
                arrays = {k: data[k] for k in data.files}
        except (OSError, ValueError) as exc:
            raise SessionError(f"{npz_path} is not a readable arrays file ({exc})") from exc
    if "object_vertices" in arrays:
        v, f = arrays["object_vertices"], arrays["object_faces"]
        for a in (v, f):
            a.flags.writeable = False
        session.mesh = ObjectMesh(
            vertices=v,
            faces=f,
            name=session.object_name or "object",
            source=session.object_source,
            sha256=session.object_sha256,
        )
    try:
        for entry in doc.get("results", []):
            k = int(entry["trial"])
            status = str(entry.get("status", "done"))
            if status not in TRIAL_STATUSES:
                raise ValueError(f"unknown trial status {status!r}")
            rec = TrialRecord(
                trial=k,
                gripper_pose=np.array(entry["gripper_pose"], dtype=float).reshape(4, 4),
                status=status,
                result=None if entry.get("result") is None else _result_from_dict(entry["result"]),
            )
            prefix = f"t{k}/"
            if f"{prefix}time_s" in arrays:
                free = rec.result.intersection_free if rec.result is not None else True
                rec.frames = frames_from_arrays(arrays, prefix, free)
                if f"{prefix}energy1" in arrays:
                    e1, e2 = arrays[f"{prefix}energy1"], arrays[f"{prefix}energy2"]
                    rec.energy_density = [(e1[i], e2[i]) for i in range(len(e1))]
            session.trials.append(rec)
    except (KeyError, TypeError, ValueError, IndexError) as exc:
        raise SessionError(f"{json_path} has damaged trial data: {exc}") from exc
    return session


def resolve_object(session: Session, session_path: str | os.PathLike) -> tuple[ObjectMesh, str]:
    """The session's object mesh and a note ('' when the referenced file matched).

    Tries the recorded path, then the path relative to the session file; uses the file when its
    sha256 matches, else falls back to the embedded copy with a note saying why.
    """
    src = session.object_source
    if src.startswith("builtin:"):
        spec = src.removeprefix("builtin:")
        return object_from_spec(spec), ""
    json_path, _ = session_paths(session_path)
    candidates = [Path(src)]
    rel = session.extras.get("_relative_path")
    if rel:
        candidates.append((json_path.parent / rel).resolve())
    note = f"the object file {src} was not found"
    for cand in candidates:
        if not cand.is_file():
            continue
        digest = _sha256(cand)
        if session.object_sha256 and digest != session.object_sha256:
            note = (
                f"the object file {cand} has changed since the session was saved (sha256 differs)"
            )
            continue
        try:
            return object_from_spec(str(cand), session.object_unit), ""
        except (MeshError, ParameterError) as exc:
            note = f"the object file {cand} could not be loaded ({exc})"
    if session.mesh is None:
        raise SessionError(f"{note}, and the session has no embedded copy of the mesh")
    return session.mesh, f"{note}; using the copy embedded in the session"
