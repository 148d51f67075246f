"""Session files: everything needed to reopen a grasp study, as JSON plus NumPy arrays.

A session is two files side by side (never pickle):

`NAME.ipcgrasp.json` (UTF-8 JSON, human readable):
    format "ipcgrasp-session", version 1, ipcgrasp_version, saved_at (ISO 8601 UTC);
    object: source ("builtin:cube", "builtin:cube:N" or the absolute mesh path),
        relative_path (from the session's folder, or null), sha256 (of the mesh file, null for
        built-ins), unit (the file unit it was loaded with, or null = metres), stable_pose
        (index, most probable first), density_kg_m3, name, body (which body of a file holding
        several: "K", "all" or "" for the only one; absent in older files) and repair (what
        loading repaired: {"changes": [one line per change], "body": "K of N" | "all" | ""});
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
import re
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
from engine.io.frames_npz import FramesError, frames_from_arrays, frames_to_arrays
from engine.io.npz_read import MAX_FILE_BYTES, NpzError, read_npz
from engine.io.safe_write import (
    OutputExistsError,
    atomic_path,
    atomic_write_text,
    refuse_existing,
)
from engine.scene.mesh_repair import NO_REPAIR, MeshRepair
from engine.scene.object_mesh import UNIT_SCALE_M, ObjectMesh, object_from_spec
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
    object_repair: MeshRepair = NO_REPAIR  # what loading repaired, and the body used


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


_RESULT_FIELDS = {f.name: f for f in dataclasses.fields(TrialResult)}


def _result_from_dict(d: Any, where: str) -> TrialResult:
    """A TrialResult from its saved dict, each field checked against its type (SessionError)."""
    if not isinstance(d, dict):
        raise SessionError(f"{where}: 'result' must be an object or null, got {_kind(d)}")
    kwargs: dict[str, Any] = {}
    for k, v in d.items():
        f = _RESULT_FIELDS.get(k)
        if f is None:
            continue
        at = f"{where}: result field {k!r}"
        default = f.default
        if k == "perturbation":
            if not isinstance(v, dict):
                raise SessionError(f"{at} must be an object of numbers, got {_kind(v)}")
            kwargs[k] = {str(a): _float(b, f"{at}[{a!r}]") for a, b in v.items()}
        elif f.type in ("bool", bool):
            if not isinstance(v, bool):
                raise SessionError(f"{at} must be true or false, got {v!r:.60}")
            kwargs[k] = v
        elif f.type in ("int", int):
            kwargs[k] = _int(v, at, 0)
        elif f.type in ("str", str):
            if not isinstance(v, str):
                raise SessionError(f"{at} must be text, got {_kind(v)}")
            kwargs[k] = v
        elif isinstance(default, float):
            kwargs[k] = _float(v, at)
    for k in ("trial", "success", "reason"):
        if k not in kwargs:
            raise SessionError(f"{where}: result field {k!r} is missing")
    return TrialResult(**kwargs)


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def _float(value: Any, where: str) -> float:
    """A saved float (number, "NaN"/"Infinity"/"-Infinity" or null = NaN) or SessionError."""
    if isinstance(value, bool) or not (
        value is None
        or isinstance(value, int | float)
        or (isinstance(value, str) and value in _NON_FINITE)
    ):
        raise SessionError(f"{where} must be a number, got {value!r:.60}")
    try:
        return _decode_float(value)
    except OverflowError:
        raise SessionError(f"{where} is too large ({value!r:.60})") from None


def _int(value: Any, where: str, low: int | None = None) -> int:
    """A saved integer (not a bool, not a float) >= `low`, or SessionError."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise SessionError(f"{where} must be an integer, got {value!r:.60}")
    if low is not None and value < low:
        raise SessionError(f"{where} must be >= {low} (got {value})")
    return value


def _vector(value: Any, n: int, where: str) -> np.ndarray:
    """`n` finite numbers, or SessionError."""
    if (
        not isinstance(value, list)
        or len(value) != n
        or not all(isinstance(x, int | float) and not isinstance(x, bool) for x in value)
    ):
        raise SessionError(f"{where} must be a list of {n} numbers, got {value!r:.80}")
    try:
        a = np.array(value, dtype=float)
    except OverflowError:
        raise SessionError(f"{where} holds a number too large for a float") from None
    if not np.all(np.isfinite(a)):
        raise SessionError(f"{where} holds NaN or infinite values")
    return a


def _matrix4(value: Any, where: str) -> np.ndarray:
    if not isinstance(value, list) or len(value) != 4:
        raise SessionError(f"{where} must be a 4x4 matrix of finite numbers")
    return np.array([_vector(row, 4, where) for row in value], dtype=float)


def _object_dict(doc: dict, where: str, name: str) -> dict:
    value = doc.get(name)
    if not isinstance(value, dict):
        raise SessionError(f"{where}: field {name!r} must be an object, got {_kind(value)}")
    return value


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def save_session(
    path: str | os.PathLike, session: Session, *, overwrite: bool = False
) -> tuple[Path, Path]:
    """Write the session's JSON and arrays files; returns their paths.

    Existing files are refused unless `overwrite` (OutputExistsError, a SessionError-like
    ParameterError naming the fix); both files are written atomically (temporary file, then
    rename), so a crash never leaves half a session. Raises SessionError when a file cannot be
    written (with the path and the reason).
    """
    json_path, npz_path = session_paths(path)
    for p in (json_path, npz_path):
        try:
            refuse_existing(p, overwrite, "overwrite=True")
        except OutputExistsError as exc:
            raise SessionError(
                f"{exc}; the session {json_path.name} would replace it (save under another name)"
                if not overwrite
                else str(exc)
            ) from exc
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
    relative = None
    if not session.object_source.startswith("builtin:"):
        try:
            relative = os.path.relpath(session.object_source, json_path.parent)
        except ValueError:  # another drive on Windows
            relative = None
    doc: dict[str, Any] = {
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
            "body": session.object_repair.body_option,
            "repair": session.object_repair.to_dict(),
        },
        "grasp": session.grasp.to_dict(),
        "params": schema.to_dict(session.params),
        "trials": schema.to_dict(session.spec),
        "results": results,
        "frames_file": npz_path.name,
        "frames_sha256": "",
        "extras": session.extras,
    }
    try:
        # The arrays first (their hash goes into the JSON), each atomically: a crash leaves the
        # old session (or none) and at most a stray temporary file.
        with atomic_path(npz_path, overwrite=overwrite) as tmp, open(tmp, "wb") as f:
            # numpy >= 2.1 stubs declare an `allow_pickle` keyword that **arrays could match;
            # the names here are "object_*" and "t<k>/*" (and numpy 1.26 has no such keyword).
            np.savez_compressed(f, **arrays)  # type: ignore[arg-type]
            f.flush()
            doc["frames_sha256"] = _sha256(tmp)
        text = json.dumps(_encode(doc), indent=2, allow_nan=False)
        atomic_write_text(json_path, text + "\n", overwrite=overwrite)
    except (OSError, ParameterError) as exc:
        if isinstance(exc, SessionError):
            raise
        raise SessionError(f"{exc}; choose a writable folder") from exc
    return json_path, npz_path


def load_session(path: str | os.PathLike) -> Session:
    """Read a session (either file's path). Raises SessionError naming what is wrong.

    Everything is validated as it is read: the format and version, every field's type, the
    parameters (their declared ranges), finite poses, trial statuses and results, the arrays
    file (confined to the session's folder, its sha256, size caps, mesh shapes and face
    indices, per-trial frame arrays).
    """
    json_path, _ = session_paths(path)
    if not json_path.is_file():
        raise SessionError(f"session file {json_path} not found: check the path")
    try:
        size = json_path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise SessionError(
                f"{json_path} is {size / 1024**2:.0f} MiB, over the "
                f"{MAX_JSON_BYTES / 1024**2:.0f} MiB a session file has: it is not a session"
            )
        doc = json.loads(json_path.read_text(encoding="utf-8-sig"))
    except SessionError:
        raise
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise SessionError(f"{json_path} is not a readable session file ({exc})") from exc
    except RecursionError:
        raise SessionError(
            f"{json_path} is not a readable session file (nested too deeply)"
        ) from None
    if not isinstance(doc, dict) or doc.get("format") != FORMAT:
        raise SessionError(f"{json_path} is not an ipcgrasp session (no format {FORMAT!r})")
    where = str(json_path)
    version = doc.get("version")
    if isinstance(version, bool) or not isinstance(version, int) or version < 1:
        raise SessionError(
            f"{where}: field 'version' must be a positive integer (got {version!r:.40}); the "
            "file is damaged"
        )
    if version > VERSION:
        raise SessionError(
            f"{where} was written by a newer ipcgrasp (session version {version}); "
            "update ipcgrasp to open it"
        )
    obj = _object_dict(doc, where, "object")
    source = obj.get("source")
    if not isinstance(source, str) or not source or len(source) > 4096 or "\0" in source:
        raise SessionError(f"{where}: field 'object.source' must be a path or 'builtin:cube'")
    if source.startswith("builtin:") and not _BUILTIN.fullmatch(source):
        raise SessionError(
            f"{where}: field 'object.source' {source[:80]!r} is not a built-in object "
            "('builtin:cube' or 'builtin:cube:N')"
        )
    sha = obj.get("sha256")
    if sha is not None and not (isinstance(sha, str) and _HEX64.fullmatch(sha)):
        raise SessionError(f"{where}: field 'object.sha256' must be 64 hex digits or null")
    unit = obj.get("unit")
    if unit is not None and not (isinstance(unit, str) and unit in UNIT_SCALE_M):
        raise SessionError(
            f"{where}: field 'object.unit' must be one of {', '.join(UNIT_SCALE_M)} or null "
            f"(got {unit!r:.40})"
        )
    stable_pose = _int(obj.get("stable_pose", 0), f"{where}: field 'object.stable_pose'", 0)
    density = _float(obj.get("density_kg_m3"), f"{where}: field 'object.density_kg_m3'")
    if not (math.isfinite(density) and density > 0):
        raise SessionError(
            f"{where}: field 'object.density_kg_m3' must be a finite number > 0 (got {density})"
        )
    name = obj.get("name", "")
    if not isinstance(name, str):
        raise SessionError(f"{where}: field 'object.name' must be text")
    relative = obj.get("relative_path")
    if relative is not None and not (isinstance(relative, str) and "\0" not in relative):
        raise SessionError(f"{where}: field 'object.relative_path' must be a path or null")
    try:
        repair = MeshRepair.from_dict(obj.get("repair", {}))
    except ParameterError as exc:
        raise SessionError(f"{where}: field 'object.repair': {exc}") from None
    g = _object_dict(doc, where, "grasp")
    try:
        grasp = Grasp(
            _vector(g.get("center"), 3, f"{where}: field 'grasp.center'"),
            _vector(g.get("axis"), 3, f"{where}: field 'grasp.axis'"),
            _float(g.get("approach_angle_rad"), f"{where}: field 'grasp.approach_angle_rad'"),
        )
        unknown: list[str] = []
        params = schema.from_dict(
            SimulationParams, _object_dict(doc, where, "params"), unknown=unknown
        ).validate()
        spec = schema.from_dict(
            TrialSpec, _object_dict(doc, where, "trials"), unknown=unknown
        ).validate()
    except ParameterError as exc:
        if isinstance(exc, SessionError):
            raise
        raise SessionError(f"{where} has a bad parameter: {exc}") from exc
    if unknown:
        log.warning(
            "%s: ignoring parameters this version does not know: %s",
            json_path,
            ", ".join(unknown),
        )
    extras = doc.get("extras")
    if extras is not None and not isinstance(extras, dict):
        raise SessionError(f"{where}: field 'extras' must be an object or null")
    session = Session(
        object_source=source,
        object_sha256=sha,
        object_unit=unit,
        stable_pose=stable_pose,
        density_kg_m3=density,
        grasp=grasp,
        params=params,
        spec=spec,
        object_name=name,
        extras=dict(extras or {}),
        object_repair=repair,
    )
    session.extras["_relative_path"] = relative

    arrays = _load_arrays(doc, json_path)
    if "object_vertices" in arrays or "object_faces" in arrays:
        session.mesh = _embedded_mesh(arrays, session, json_path)
    results = doc.get("results", [])
    if not isinstance(results, list):
        raise SessionError(f"{where}: field 'results' must be a list, got {_kind(results)}")
    seen: set[int] = set()
    for i, entry in enumerate(results):
        at = f"{where}: results[{i}]"
        if not isinstance(entry, dict):
            raise SessionError(f"{at} must be an object, got {_kind(entry)}")
        k = _int(entry.get("trial"), f"{at} field 'trial'", 0)
        if k in seen:
            raise SessionError(f"{at}: trial {k} appears twice")
        seen.add(k)
        status = entry.get("status", "done")
        if status not in TRIAL_STATUSES:
            raise SessionError(
                f"{at}: unknown trial status {status!r:.40} (one of {', '.join(TRIAL_STATUSES)})"
            )
        raw = entry.get("result")
        rec = TrialRecord(
            trial=k,
            gripper_pose=_matrix4(entry.get("gripper_pose"), f"{at} field 'gripper_pose'"),
            status=status,
            result=None if raw is None else _result_from_dict(raw, at),
        )
        prefix = f"t{k}/"
        if f"{prefix}time_s" in arrays:
            free = rec.result.intersection_free if rec.result is not None else True
            try:
                rec.frames = frames_from_arrays(arrays, prefix, free)
            except FramesError as exc:
                raise SessionError(f"{json_path.with_suffix('')}.npz, trial {k}: {exc}") from exc
            if f"{prefix}energy1" in arrays or f"{prefix}energy2" in arrays:
                rec.energy_density = _energy(arrays, prefix, rec.frames, json_path)
        session.trials.append(rec)
    return session


MAX_JSON_BYTES = 256 * 1024**2
"""Largest session JSON read (its per-trial results and extras stay far below this)."""

_HEX64 = re.compile(r"[0-9a-fA-F]{64}")
_BUILTIN = re.compile(r"builtin:cube(:[0-9]{1,9})?")


def _load_arrays(doc: dict, json_path: Path) -> dict[str, np.ndarray]:
    """The arrays file named by `frames_file` (in the session's folder, hash checked)."""
    frames_file = doc.get("frames_file")
    if frames_file is None or frames_file == "":
        return {}
    where = str(json_path)
    if (
        not isinstance(frames_file, str)
        or "\0" in frames_file
        or frames_file in (".", "..")
        or Path(frames_file).name != frames_file
        or "/" in frames_file
        or "\\" in frames_file
    ):
        raise SessionError(
            f"{where}: field 'frames_file' must be a file name in the session's folder "
            f"(got {frames_file!r:.80}); the arrays file is always saved next to the session"
        )
    folder = json_path.parent.resolve()
    npz_path = folder / frames_file
    if not npz_path.is_file():
        raise SessionError(
            f"the session's arrays file {npz_path} is missing: keep it next to {json_path.name}"
        )
    if npz_path.resolve().parent != folder:
        raise SessionError(
            f"{where}: the arrays file {npz_path} links outside the session's folder; copy the "
            "file itself next to the session"
        )
    expected = doc.get("frames_sha256")
    if expected is not None and expected != "":
        if not (isinstance(expected, str) and _HEX64.fullmatch(expected)):
            raise SessionError(f"{where}: field 'frames_sha256' must be 64 hex digits")
        try:
            size = npz_path.stat().st_size
            if size > MAX_FILE_BYTES:
                raise SessionError(
                    f"{npz_path} is {size / 1024**2:.0f} MiB, over the "
                    f"{MAX_FILE_BYTES / 1024**2:.0f} MiB a session's arrays file may have"
                )
            actual = _sha256(npz_path)
        except OSError as exc:
            raise SessionError(f"cannot read {npz_path}: {exc.strerror or exc}") from exc
        if actual.lower() != expected.lower():
            raise SessionError(
                f"{npz_path} does not match its session (sha256 differs from frames_sha256 in "
                f"{json_path.name}): it was changed or replaced after saving; restore the arrays "
                "file saved with this session"
            )
    try:
        return read_npz(npz_path)
    except NpzError as exc:
        raise SessionError(f"the session's arrays file: {exc}") from exc


def _embedded_mesh(arrays: dict[str, np.ndarray], session: Session, json_path: Path) -> ObjectMesh:
    npz = f"{json_path.name}'s arrays file"
    v, f = arrays.get("object_vertices"), arrays.get("object_faces")
    if v is None or f is None:
        raise SessionError(f"{npz} has only one of object_vertices and object_faces")
    if v.ndim != 2 or v.shape[1] != 3 or len(v) < 4 or v.dtype.kind not in "fiu":
        raise SessionError(
            f"{npz}: object_vertices has shape {v.shape} and type {v.dtype}; expected (v, 3) "
            "numbers with v >= 4"
        )
    if f.ndim != 2 or f.shape[1] != 3 or len(f) < 4 or f.dtype.kind not in "iu":
        raise SessionError(
            f"{npz}: object_faces has shape {f.shape} and type {f.dtype}; expected (m, 3) "
            "integers with m >= 4"
        )
    v = v.astype(np.float64)
    if not np.all(np.isfinite(v)):
        raise SessionError(f"{npz}: object_vertices holds NaN or infinite values")
    if f.min() < 0 or f.max() >= len(v):
        raise SessionError(
            f"{npz}: object_faces index vertices outside 0..{len(v) - 1}; the file is damaged"
        )
    f = f.astype(np.int64)
    for a in (v, f):
        a.flags.writeable = False
    return ObjectMesh(
        vertices=v,
        faces=f,
        name=session.object_name or "object",
        source=session.object_source,
        sha256=session.object_sha256,
        repair=session.object_repair,
    )


def _energy(
    arrays: dict[str, np.ndarray], prefix: str, frames: list[Frame], json_path: Path
) -> list[tuple[np.ndarray, np.ndarray]]:
    n_vertices = len(frames[0].pad_vertices[0]) if frames else 0
    pair = []
    for j in (1, 2):
        e = arrays.get(f"{prefix}energy{j}")
        if (
            e is None
            or e.dtype.kind != "f"
            or e.shape != (len(frames), n_vertices)
            or not np.all(np.isfinite(e))
        ):
            raise SessionError(
                f"{json_path.name}'s arrays file: {prefix}energy{j} must be ({len(frames)}, "
                f"{n_vertices}) finite floats (got "
                f"{'nothing' if e is None else f'{e.shape} {e.dtype}'})"
            )
        pair.append(e)
    return [(pair[0][i], pair[1][i]) for i in range(len(frames))]


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
            body = session.object_repair.body_option or None
            return object_from_spec(str(cand), session.object_unit, body), ""
        except (MeshError, ParameterError) as exc:
            note = f"the object file {cand} could not be loaded ({exc})"
    if session.mesh is None:
        raise SessionError(f"{note}, and the session has no embedded copy of the mesh")
    return session.mesh, f"{note}; using the copy embedded in the session"
