"""Writing a session, all or nothing: the arrays file first, under the name the existing JSON
does not use (its hash goes into the new JSON), then the JSON in one atomic rename, which commits
the pair; the old arrays file goes only after that. A kill or a full disk at any moment leaves
the old session or the new one, each openable."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import json
import os
from pathlib import Path
from typing import Any

import numpy as np

from engine import schema
from engine.errors import ParameterError
from engine.io.frames_npz import frames_to_arrays
from engine.io.safe_write import (
    OutputExistsError,
    atomic_path,
    atomic_write_text,
    refuse_existing,
)
from engine.io.session.files import (
    ARRAYS_SUFFIX,
    NEXT_ARRAYS_SUFFIX,
    SESSION_SUFFIX,
    file_sha256,
    session_paths,
)
from engine.io.session.json_values import _encode
from engine.io.session.reading import MAX_JSON_BYTES
from engine.io.session.records import FORMAT, TRIAL_STATUSES, VERSION, Session, SessionError
from engine.scene.object_facts import ObjectFacts
from engine.version import build_id


def save_session(
    path: str | os.PathLike, session: Session, *, overwrite: bool = False
) -> tuple[Path, Path]:
    """Write the session's JSON and arrays files; returns their paths.

    Existing files are refused unless `overwrite` (OutputExistsError, a SessionError-like
    ParameterError naming the fix). All or nothing (see the module docstring): the old session
    opens until the new one is complete. Raises SessionError when a file cannot be written
    (with the path and the reason). The arrays file returned is the one the JSON names.
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
    arrays, results = _arrays_and_results(session)
    current = _arrays_name(json_path)  # the arrays file the existing JSON names, if any
    if current == npz_path.name:
        npz_path = json_path.with_name(npz_path.name[: -len(ARRAYS_SUFFIX)] + NEXT_ARRAYS_SUFFIX)
    doc = _document(session, results, json_path, npz_path)
    wrote_arrays = committed = False
    try:
        # The arrays under a name the existing session does not use (their hash goes into the
        # JSON), then the JSON, whose rename commits the new pair.
        with atomic_path(npz_path, overwrite=overwrite) as tmp, open(tmp, "wb") as f:
            # numpy >= 2.1 stubs declare an `allow_pickle` keyword that **arrays could match;
            # the names here are "object_*" and "t<k>/*" (and numpy 1.26 has no such keyword).
            np.savez_compressed(f, **arrays)  # type: ignore[arg-type]
            f.flush()
            doc["frames_sha256"] = file_sha256(tmp)
        wrote_arrays = True
        text = json.dumps(_encode(doc), indent=2, allow_nan=False)
        atomic_write_text(json_path, text + "\n", overwrite=overwrite)
        committed = True
    except (OSError, ParameterError) as exc:
        if isinstance(exc, SessionError):
            raise
        raise SessionError(
            f"{exc}; choose a writable folder"
            + (f" (the session {json_path.name} there is unchanged)" if current else "")
        ) from exc
    finally:
        if wrote_arrays and not committed:
            with contextlib.suppress(OSError):
                npz_path.unlink()  # written by this save, named by no session
    if current and current != npz_path.name and _own_arrays_name(json_path, current):
        with contextlib.suppress(OSError):
            (json_path.parent / current).unlink()  # the old pair's arrays, no longer named
    return json_path, npz_path


def _own_arrays_name(json_path: Path, name: str) -> bool:
    """Whether `name` is one of the two names this session's arrays file takes."""
    stem = json_path.name[: -len(SESSION_SUFFIX)]
    return name in (stem + ARRAYS_SUFFIX, stem + NEXT_ARRAYS_SUFFIX)


def _arrays_name(json_path: Path) -> str | None:
    """The arrays file named by the session JSON at `json_path` (None: no such JSON, or one
    that does not name a file of this session)."""
    try:
        if json_path.stat().st_size > MAX_JSON_BYTES:
            return None
        doc = json.loads(json_path.read_text(encoding="utf-8-sig"))
    except (OSError, ValueError, RecursionError):
        return None
    name = doc.get("frames_file") if isinstance(doc, dict) else None
    return name if isinstance(name, str) and _own_arrays_name(json_path, name) else None


def _arrays_and_results(session: Session) -> tuple[dict[str, np.ndarray], list[dict]]:
    """The arrays file's arrays (the mesh, each trial's frames and energy density) and the
    JSON's per-trial results; SessionError for a trial of unknown status."""
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
    return arrays, results


def _object_facts(session: Session) -> dict[str, Any] | None:
    """The object as a result row records it (ObjectFacts: unit, scale, mass, density, size),
    for a reader of the JSON alone; None without the embedded mesh."""
    if session.mesh is None:
        return None
    return schema.to_dict(ObjectFacts.of_mesh(session.mesh, session.density_kg_m3))


def _document(
    session: Session, results: list[dict], json_path: Path, npz_path: Path
) -> dict[str, Any]:
    """The session JSON (frames_sha256 still empty: the arrays file is written first)."""
    relative = None
    if not session.object_source.startswith("builtin:"):
        try:
            relative = os.path.relpath(session.object_source, json_path.parent)
        except ValueError:  # another drive on Windows
            relative = None
    return {
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
            "facts": _object_facts(session),
        },
        "grasp": session.grasp.to_dict(),
        "params": schema.to_dict(session.params),
        "trials": schema.to_dict(session.spec),
        "results": results,
        "frames_file": npz_path.name,
        "frames_sha256": "",
        "extras": session.extras,
    }
