"""Header counts checked against the data: an OFF or ASCII PLY file whose header promises more
or fewer vertices and faces than it holds is damaged (cut short, or edited), and trimesh reads
whatever is there without a word.

Binary PLY and GLB declare sizes that their readers check themselves (a short binary body
fails to read); ASCII files hold one element per line, which is what is counted here.

When the counts agree, each face line must still be 'k i1 .. ik' with k >= 3 vertex numbers: a vertex line repeated among the faces, with a face count raised to match,
loaded as the same cube (trimesh skipped the odd line).

OBJ declares no counts, but numbers its vertices from 1 (negative numbers count back from the
last): a face naming vertex 0 is damaged, and trimesh reads it as the last vertex, a wrong
triangle that the repair may then hide by filling the hole around it (a 5,120-face sphere with
one such face loaded with 'filled 1 hole'). Vertices past the end fail in the reader itself.
"""

from __future__ import annotations

import re
import struct

from engine.errors import MeshError

# A field that is zero after a space or tab (a vertex number: texture and normal numbers
# follow a slash); whether its line is a face is checked per match.
_ZERO_FIELD = re.compile(rb"[ \t][+-]?0+(?=[/ \t\r\n]|$)", re.M)


def _data_lines(lines: list[str]) -> list[str]:
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


# What an OFF or ASCII PLY file declares: vertices, the other elements, its data lines, and
# where its faces are among them (first line, count; None when the file has no face list).
_Counts = tuple[int, int, list[str], tuple[int, int] | None]


def _off_counts(text: str) -> _Counts | None:
    """The counts and data lines of an OFF file; None if not parseable (trimesh then
    reports the file)."""
    lines = text.splitlines()
    tokens: list[str] = []
    k = 0
    while k < len(lines) and len(tokens) < 4:
        line = lines[k].split("#")[0]
        k += 1
        tokens += line.split()
    if not tokens or not tokens[0].endswith("OFF") or len(tokens) < 3:
        return None
    try:
        n_vertices, n_faces = int(tokens[1]), int(tokens[2])
    except ValueError:
        return None
    return n_vertices, n_faces, _data_lines(lines[k:]), (n_vertices, n_faces)


def _ply_counts(text: str) -> _Counts | None:
    """The counts and data lines of an ASCII PLY file; None for binary PLY. Its faces are
    checked when the face element starts with the vertex-index list, as exporters write it."""
    head, sep, body = text.partition("end_header")
    if not sep or "format ascii" not in head:
        return None
    counts: dict[str, int] = {}
    first_property: dict[str, str] = {}
    element = ""
    for line in head.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "element" and _index(parts[2]):
            element = parts[1]
            counts[element] = int(parts[2])
        elif parts[:1] == ["property"] and element and element not in first_property:
            first_property[element] = parts[1] if len(parts) > 1 else ""
    faces = None
    if first_property.get("face") == "list":
        start = sum(counts[e] for e in list(counts)[: list(counts).index("face")])
        faces = (start, counts["face"])
    vertices = counts.pop("vertex", 0)
    return vertices, sum(counts.values()), _data_lines(body.splitlines()[1:]), faces


def _index(token: str) -> bool:
    """Whether `token` is a count or index: digits 0-9, few enough for int() (a 5000-digit
    one is refused by Python's integer-string limit)."""
    return token.isascii() and token.isdigit() and len(token) <= 18


def _bad_face(lines: list[str]) -> int | None:
    """The first of `lines` that is not a face 'k i1 .. ik' (k >= 3 whole numbers; anything
    after them, e.g. a colour, is not read), or None. An index past the vertices is left to
    the loader, which names the face and the vertex count."""
    for j, line in enumerate(lines):
        tokens = line.split()
        if not (tokens and _index(tokens[0])):
            return j
        k = int(tokens[0])
        if k < 3 or len(tokens) < 1 + k:
            return j
        if not all(_index(t) for t in tokens[1 : 1 + k]):
            return j
    return None


def _check_obj_faces(where: str, data: bytes) -> None:
    """MeshError naming the first OBJ face line that uses vertex 0."""
    for match in _ZERO_FIELD.finditer(data):
        start = data.rfind(b"\n", 0, match.start()) + 1
        head = data[start : match.start() + 1].lstrip(b" \t")
        if head[:1] == b"f" and head[1:2] in (b" ", b"\t") and b"#" not in head:
            break
    else:
        return
    line_no = data.count(b"\n", 0, start) + 1
    end = data.find(b"\n", start)
    line = data[start : end if end >= 0 else len(data)].decode("latin-1").strip()
    raise MeshError(
        f"{where} line {line_no}: face {line[:60]!r} uses vertex 0, but OBJ numbers vertices "
        "from 1 (negative numbers count back from the last): the file is damaged; re-export it"
    )


def _check_binary_stl(where: str, data: bytes) -> None:
    """MeshError when a binary STL's triangle count disagrees with its size (84 bytes of header
    and count, 50 per triangle); ASCII STL (starting 'solid', with facets) is left to its
    reader."""
    if len(data) < 84 or (data[:5].lower() == b"solid" and b"facet" in data[:1024]):
        return
    (count,) = struct.unpack_from("<I", data, 80)
    if 84 + 50 * count != len(data):
        raise MeshError(
            f"{where}: a binary STL whose header declares {count} triangles ({84 + 50 * count} "
            f"bytes) but the file has {len(data)} bytes: it is cut short or damaged; re-export it"
        )


def check_header_counts(where: str, ext: str, data: bytes) -> None:
    """MeshError when an OFF or ASCII PLY file's header counts disagree with its lines or a
    face line is not 'k i1 .. ik', an OBJ face names vertex 0, or a binary STL's triangle
    count disagrees with its size."""
    if ext == ".obj":
        _check_obj_faces(where, data)
        return
    if ext == ".stl":
        _check_binary_stl(where, data)
        return
    if ext not in (".off", ".ply"):
        return
    text = data.decode("latin-1")
    found = _off_counts(text) if ext == ".off" else _ply_counts(text)
    if found is None:
        return
    n_vertices, n_other, data_lines, faces = found
    lines = len(data_lines)
    if lines == n_vertices + n_other:
        if faces is None:
            return
        start, count = faces
        bad = _bad_face(data_lines[start : start + count])
        if bad is None:
            return
        raise MeshError(
            f"{where}: face {bad} of its {count} ({data_lines[start + bad].strip()[:60]!r}) is "
            "not 'k i1 .. ik' with k >= 3 vertex numbers: the file is damaged or was edited (a "
            "vertex line among the faces?); re-export it"
        )
    what = "faces" if ext == ".off" else "faces (with any other elements)"
    raise MeshError(
        f"{where}: its header declares {n_vertices} vertices and {n_other} {what} "
        f"({n_vertices + n_other} lines) but {lines} data lines follow: the file is cut short "
        "or was edited; re-export it"
    )
