"""A session's arrays file (NAME.ipcgrasp.npz) read back: confined to the session's folder,
its SHA-256 and size checked, the embedded mesh and the pads' energy density validated."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from engine.errors import MeshError, ParameterError
from engine.grasp.frames import Frame
from engine.io.npz_read import MAX_FILE_BYTES, NpzError, read_npz
from engine.io.session.files import file_sha256
from engine.io.session.json_values import _HEX64
from engine.io.session.records import Session, SessionError
from engine.scene import mesh_budget
from engine.scene.mesh_repair import MeshRepair
from engine.scene.object_mesh import ObjectMesh, solid_from_arrays


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
            actual = file_sha256(npz_path)
        except OSError as exc:
            raise SessionError(f"cannot read {npz_path}: {exc.strerror or exc}") from exc
        if actual.lower() != expected.lower():
            raise SessionError(
                f"{npz_path} does not match its session (sha256 differs from frames_sha256 in "
                f"{json_path.name}): it was changed or replaced after saving; restore the arrays "
                "file saved with this session"
            )
    try:
        return read_npz(npz_path, member_elements=_mesh_elements())
    except NpzError as exc:
        raise SessionError(f"the session's arrays file: {exc}") from exc


def _mesh_elements() -> dict[str, int]:
    """Caps (elements) on the embedded mesh's arrays, checked before they are inflated: the
    mesh budget's triangles, and at most three vertices per triangle (a 1.7 MB arrays file
    inflated to a 66.7M-vertex mesh, 3.5 GB, without them)."""
    faces = mesh_budget.MAX_MESH_FACES
    return {"object_faces": 3 * faces, "object_vertices": 9 * faces}


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
    if f.min() < 0 or f.max() >= len(v):
        raise SessionError(
            f"{npz}: object_faces index vertices outside 0..{len(v) - 1}; the file is damaged"
        )
    body = "all" if session.object_repair.body == "all" else None
    try:
        # The same checks and repair as a mesh file (it is in metres already).
        vertices, faces, repair = solid_from_arrays(v, f, f"the mesh embedded in {npz}", None, body)
    except (MeshError, ParameterError) as exc:
        raise SessionError(str(exc)) from exc
    if repair.changed:
        repair = MeshRepair(session.object_repair.changes + repair.changes, repair.body)
    else:
        repair = session.object_repair
    faces = faces.astype(np.int64)
    for a in (vertices, faces):
        a.flags.writeable = False
    return ObjectMesh(
        vertices=vertices,
        faces=faces,
        name=session.object_name or "object",
        source=session.object_source,
        sha256=session.object_sha256,
        repair=repair,
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
