"""Finding a session's object mesh: the recorded file if it still matches, else the copy
embedded in the session.

A session is untrusted input: a file it names outside its own folder is read (and hashed) only
with the caller's consent (`allow_outside`: the app asks), and only when it is a regular file
of at most MAX_MESH_FILE_BYTES (never a device, a FIFO or /proc/self/mem).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from pathlib import Path

from engine.errors import MeshError, ParameterError
from engine.io.session.files import file_sha256, session_paths
from engine.io.session.records import Session, SessionError
from engine.scene.object_mesh import MAX_MESH_FILE_BYTES, ObjectMesh, object_from_spec

Consent = bool | Callable[[Path], bool]
"""Whether a mesh file outside the session's folder may be read: a yes/no, or a question
asked with the file's path (the app's dialog)."""


def _inside(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _unusable(path: Path) -> str | None:
    """Why `path` is not a mesh file to read (None: a regular file within the size budget)."""
    try:
        info = path.stat()
    except OSError as exc:
        return f"cannot be read ({exc.strerror or exc})"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if info.st_size == 0:
        return "is empty (or a special file of the system)"
    if info.st_size > MAX_MESH_FILE_BYTES:
        return (
            f"is {info.st_size / 1024**2:.0f} MiB, over the {MAX_MESH_FILE_BYTES / 1024**2:.0f} "
            "MiB a mesh file may have"
        )
    return None


def resolve_object(
    session: Session, session_path: str | os.PathLike, allow_outside: Consent = False
) -> tuple[ObjectMesh, str]:
    """The session's object mesh and a note ('' when the referenced file matched).

    Tries the recorded path, then the path relative to the session file; uses the file when its
    sha256 matches, else falls back to the embedded copy with a note saying why. A file outside
    the session's folder is read only when `allow_outside` says so (asked once per file).
    """
    src = session.object_source
    if src.startswith("builtin:"):
        spec = src.removeprefix("builtin:")
        return object_from_spec(spec), ""
    json_path, _ = session_paths(session_path)
    folder = json_path.parent.resolve()
    candidates = [Path(src)]
    rel = session.extras.get("_relative_path")
    if rel:
        candidates.append(json_path.parent / rel)
    note = f"the object file {src} was not found"
    seen: set[Path] = set()
    for cand in candidates:
        try:
            cand = cand.expanduser().resolve()
            exists = cand.exists()
        except (OSError, RuntimeError, ValueError):
            continue
        if not exists or cand in seen:
            continue
        seen.add(cand)
        if not _inside(cand, folder):
            consent = allow_outside(cand) if callable(allow_outside) else allow_outside
            if not consent:
                note = (
                    f"the object file {cand} is outside the session's folder {folder} and was "
                    "not read (allow it when asked, or keep the mesh next to the session)"
                )
                continue
        why = _unusable(cand)
        if why is not None:
            note = f"the object file {cand} {why}"
            continue
        try:
            digest = file_sha256(cand)
        except OSError as exc:
            note = f"the object file {cand} cannot be read ({exc.strerror or exc})"
            continue
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
