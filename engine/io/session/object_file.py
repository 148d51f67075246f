"""Finding a session's object mesh: the recorded file if it still matches, else the copy
embedded in the session."""

from __future__ import annotations

import os
from pathlib import Path

from engine.errors import MeshError, ParameterError
from engine.io.session.files import file_sha256, session_paths
from engine.io.session.records import Session, SessionError
from engine.scene.object_mesh import ObjectMesh, object_from_spec


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
        digest = file_sha256(cand)
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
