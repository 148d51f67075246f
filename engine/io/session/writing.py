"""Writing a session: the arrays file first (its hash goes into the JSON), then the JSON, each
atomically."""

from __future__ import annotations

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
from engine.io.session.files import file_sha256, session_paths
from engine.io.session.json_values import _encode
from engine.io.session.records import FORMAT, TRIAL_STATUSES, VERSION, Session, SessionError
from engine.version import build_id


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
    arrays, results = _arrays_and_results(session)
    doc = _document(session, results, json_path, npz_path)
    try:
        # The arrays first (their hash goes into the JSON), each atomically: a crash leaves the
        # old session (or none) and at most a stray temporary file.
        with atomic_path(npz_path, overwrite=overwrite) as tmp, open(tmp, "wb") as f:
            # numpy >= 2.1 stubs declare an `allow_pickle` keyword that **arrays could match;
            # the names here are "object_*" and "t<k>/*" (and numpy 1.26 has no such keyword).
            np.savez_compressed(f, **arrays)  # type: ignore[arg-type]
            f.flush()
            doc["frames_sha256"] = file_sha256(tmp)
        text = json.dumps(_encode(doc), indent=2, allow_nan=False)
        atomic_write_text(json_path, text + "\n", overwrite=overwrite)
    except (OSError, ParameterError) as exc:
        if isinstance(exc, SessionError):
            raise
        raise SessionError(f"{exc}; choose a writable folder") from exc
    return json_path, npz_path


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
        },
        "grasp": session.grasp.to_dict(),
        "params": schema.to_dict(session.params),
        "trials": schema.to_dict(session.spec),
        "results": results,
        "frames_file": npz_path.name,
        "frames_sha256": "",
        "extras": session.extras,
    }
