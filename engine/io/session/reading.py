"""Reading a session: every field is validated as it is read (SessionError naming the file, the
field and what is wrong), in the order the file holds them."""

from __future__ import annotations

import logging
import os
import re
from pathlib import Path
from typing import NamedTuple

import numpy as np

from engine import schema
from engine.errors import ParameterError
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.trials import TrialSpec
from engine.io import json_text
from engine.io.frames_npz import FramesError, frames_from_arrays
from engine.io.session.arrays import _embedded_mesh, _energy, _load_arrays
from engine.io.session.files import session_paths
from engine.io.session.json_values import (
    _HEX64,
    _float,
    _int,
    _kind,
    _matrix4,
    _object_dict,
    _result_from_dict,
    _vector,
)
from engine.io.session.records import (
    FORMAT,
    TRIAL_STATUSES,
    VERSION,
    Session,
    SessionError,
    TrialRecord,
)
from engine.scene.mesh_repair import MeshRepair
from engine.scene.object_facts import MAX_DENSITY_KG_M3, MIN_DENSITY_KG_M3
from engine.scene.object_mesh import UNIT_SCALE_M

log = logging.getLogger(__name__)

MAX_JSON_BYTES = 256 * 1024**2
"""Largest session JSON read (its per-trial results and extras stay far below this)."""

_BUILTIN = re.compile(r"builtin:cube(:[0-9]{1,9})?")


class _SavedObject(NamedTuple):
    """The JSON's `object` fields, checked."""

    source: str
    sha256: str | None
    unit: str | None
    stable_pose: int
    density_kg_m3: float
    name: str
    relative_path: str | None
    repair: MeshRepair


def load_session(path: str | os.PathLike) -> Session:
    """Read a session (either file's path). Raises SessionError naming what is wrong.

    Everything is validated as it is read: the format and version, every field's type, the
    parameters (their declared ranges), finite poses, trial statuses and results, the arrays
    file (confined to the session's folder, its sha256, size caps, mesh shapes and face
    indices, per-trial frame arrays).
    """
    json_path, _ = session_paths(path)
    doc = _read_document(json_path)
    where = str(json_path)
    obj = _saved_object(doc, where)
    grasp, params, spec = _study(doc, where, json_path)
    extras = doc.get("extras")
    if extras is not None and not isinstance(extras, dict):
        raise SessionError(f"{where}: field 'extras' must be an object or null")
    session = Session(
        object_source=obj.source,
        object_sha256=obj.sha256,
        object_unit=obj.unit,
        stable_pose=obj.stable_pose,
        density_kg_m3=obj.density_kg_m3,
        grasp=grasp,
        params=params,
        spec=spec,
        object_name=obj.name,
        extras=dict(extras or {}),
        object_repair=obj.repair,
    )
    session.extras["_relative_path"] = obj.relative_path

    arrays = _load_arrays(doc, json_path)
    if "object_vertices" in arrays or "object_faces" in arrays:
        session.mesh = _embedded_mesh(arrays, session, json_path)
    session.trials.extend(_trial_records(doc, where, arrays, json_path))
    return session


def _read_document(json_path: Path) -> dict:
    """The session JSON as a dict of this format, in a version this code reads."""
    if not json_path.is_file():
        raise SessionError(f"session file {json_path} not found: check the path")
    try:
        size = json_path.stat().st_size
        if size > MAX_JSON_BYTES:
            raise SessionError(
                f"{json_path} is {size / 1024**2:.0f} MiB, over the "
                f"{MAX_JSON_BYTES / 1024**2:.0f} MiB a session file has: it is not a session"
            )
        doc = json_text.loads(json_path.read_text(encoding="utf-8-sig"))
    except SessionError:
        raise
    except (OSError, UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError, JsonNumberError
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
    return doc


def _saved_object(doc: dict, where: str) -> _SavedObject:
    """The `object` fields: where the mesh came from, how it was loaded and its density."""
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
    if not MIN_DENSITY_KG_M3 <= density <= MAX_DENSITY_KG_M3:  # NaN fails too
        raise SessionError(
            f"{where}: field 'object.density_kg_m3' is {density:.4g} kg/m^3, not a density an "
            f"object has ({MIN_DENSITY_KG_M3:g} to {MAX_DENSITY_KG_M3:,.0f} kg/m^3); the file "
            "was edited or damaged: set it to the object's density (water is 1000)"
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
    return _SavedObject(source, sha, unit, stable_pose, density, name, relative, repair)


def _study(doc: dict, where: str, json_path: Path) -> tuple[Grasp, SimulationParams, TrialSpec]:
    """The grasp, the simulation parameters (their declared ranges checked; unknown ones
    ignored with a warning) and the trial plan."""
    g = _object_dict(doc, where, "grasp")
    axis = _vector(g.get("axis"), 3, f"{where}: field 'grasp.axis'")
    with np.errstate(over="ignore"):  # Grasp normalises with this norm: inf gives a zero axis
        length = np.linalg.norm(axis)
    if not np.isfinite(length):
        raise SessionError(
            f"{where}: field 'grasp.axis' {axis.tolist()} is too long to be a direction (its "
            "length overflows); give a unit direction such as [1, 0, 0]"
        )
    try:
        grasp = Grasp(
            _vector(g.get("center"), 3, f"{where}: field 'grasp.center'"),
            axis,
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
    return grasp, params, spec


def _trial_records(
    doc: dict, where: str, arrays: dict[str, np.ndarray], json_path: Path
) -> list[TrialRecord]:
    """The trials of `results`, each with its frames and energy density from the arrays."""
    results = doc.get("results", [])
    if not isinstance(results, list):
        raise SessionError(f"{where}: field 'results' must be a list, got {_kind(results)}")
    records: list[TrialRecord] = []
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
        records.append(rec)
    return records
