"""How many triangles a mesh file may bring, counted from the bytes before any reader builds them.

Repair, the self-intersection test and the resting poses cost time and memory in proportion
to the triangles: a 330k-face sphere took 37 s and 740 MB to load on the 2-core machine, and a
6 MB GLB placing one sphere at 100,000 nodes took 265 s and 14.5 GB before trimesh's reader
returned. The count here reads only what each format declares (face lines, a binary STL's
count, PLY/OFF header counts, a GLB's nodes and the index counts of their meshes), so a file
over the budget is refused in milliseconds; the loader checks the triangles it got again.
"""

from __future__ import annotations

import json
import re
import struct

from engine.errors import MeshError

MAX_MESH_FACES = 500_000
"""Most triangles an object mesh may have (scans of household objects have 16k-300k)."""

_OBJ_FACE = re.compile(rb"^[ \t]*f[ \t]", re.MULTILINE)
_PLY_FACES = re.compile(rb"^element[ \t]+face[ \t]+(\d+)", re.MULTILINE)
_TRIANGLES = 4  # glTF primitive mode
_STRIP_OR_FAN = (5, 6)


def check_face_budget(where: str, faces: int, what: str = "triangles") -> None:
    """MeshError when `faces` is over MAX_MESH_FACES."""
    if faces > MAX_MESH_FACES:
        raise MeshError(
            f"{where} has {faces:,} {what}, over the {MAX_MESH_FACES:,} an object mesh may "
            "have: simplify it (e.g. MeshLab's Quadric Edge Collapse Decimation or Blender's "
            "Decimate modifier) to at most that many"
        )


def declared_faces(ext: str, data: bytes) -> tuple[int, str] | None:
    """(faces the file declares, what they are) from its bytes, or None when its format
    declares nothing countable (the reader's triangles are checked afterwards)."""
    if ext == ".obj":
        return len(_OBJ_FACE.findall(data)), "face lines"
    if ext == ".stl":
        if len(data) >= 84:
            (n,) = struct.unpack_from("<I", data, 80)
            if 84 + 50 * n == len(data):
                return n, "triangles"
        return data.count(b"endfacet"), "triangles"
    if ext == ".ply":
        head = data[: data.find(b"end_header")] if b"end_header" in data else b""
        match = _PLY_FACES.search(head)
        return (int(match.group(1)), "faces") if match else None
    if ext == ".off":
        tokens = re.sub(rb"#[^\n]*", b"", data[:4096]).split()
        if len(tokens) >= 3 and tokens[0].endswith(b"OFF") and tokens[2].isdigit():
            return int(tokens[2]), "faces"
        return None
    if ext == ".glb":
        triangles = glb_triangles(data)
        return None if triangles is None else (triangles, "triangles over its nodes")
    return None


def glb_triangles(data: bytes) -> int | None:
    """Triangles a binary glTF draws: over every node that holds a mesh (times its GPU
    instances), each triangle primitive's index count (or vertex count) / 3. None when the
    JSON chunk cannot be read (the reader then reports the file)."""
    if len(data) < 20 or data[:4] != b"glTF":
        return None
    length, kind = struct.unpack_from("<I4s", data, 12)
    if kind != b"JSON":
        return None
    try:
        doc = json.loads(data[20 : 20 + length])
        accessors = doc.get("accessors", [])
        per_mesh = [_mesh_triangles(m, accessors) for m in doc.get("meshes", [])]
        total = 0
        for node in doc.get("nodes", []):
            if "mesh" not in node:
                continue
            instancing = node.get("extensions", {}).get("EXT_mesh_gpu_instancing", {})
            copies = max(
                [int(accessors[i]["count"]) for i in instancing.get("attributes", {}).values()]
                or [1]
            )
            total += copies * per_mesh[int(node["mesh"])]
    except (ValueError, TypeError, KeyError, IndexError, AttributeError, RecursionError):
        return None
    return total


def _mesh_triangles(mesh: dict, accessors: list) -> int:
    total = 0
    for prim in mesh.get("primitives", []):
        mode = int(prim.get("mode", _TRIANGLES))
        if "indices" in prim:
            count = int(accessors[int(prim["indices"])]["count"])
        else:
            count = int(accessors[int(prim["attributes"]["POSITION"])]["count"])
        if mode == _TRIANGLES:
            total += count // 3
        elif mode in _STRIP_OR_FAN:
            total += max(0, count - 2)
    return total
