"""Header counts checked against the data: an OFF or ASCII PLY file whose header promises more
or fewer vertices and faces than it holds is damaged (cut short, or edited), and trimesh reads
whatever is there without a word.

Binary PLY and GLB declare sizes that their readers check themselves (a short binary body
fails to read); ASCII files hold one element per line, which is what is counted here.

OBJ declares no counts, but numbers its vertices from 1 (negative numbers count back from the
last): a face naming vertex 0 is damaged, and trimesh reads it as the last vertex, a wrong
triangle that the repair may then hide by filling the hole around it (a 5,120-face sphere with
one such face loaded with 'filled 1 hole'). Vertices past the end fail in the reader itself.
"""

from __future__ import annotations

import re

from engine.errors import MeshError

# A field that is zero after a space or tab (a vertex number: texture and normal numbers
# follow a slash); whether its line is a face is checked per match.
_ZERO_FIELD = re.compile(rb"[ \t][+-]?0+(?=[/ \t\r\n]|$)", re.M)


def _data_lines(lines: list[str]) -> int:
    return sum(1 for line in lines if line.strip() and not line.lstrip().startswith("#"))


def _off_counts(text: str) -> tuple[int, int, int] | None:
    """(vertices, faces, data lines after the counts) of an OFF file; None if not parseable
    (trimesh then reports the file)."""
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
    return n_vertices, n_faces, _data_lines(lines[k:])


def _ply_counts(text: str) -> tuple[int, int, int] | None:
    """(vertices, other elements, data lines) of an ASCII PLY file; None for binary PLY."""
    head, sep, body = text.partition("end_header")
    if not sep or "format ascii" not in head:
        return None
    counts = {}
    for line in head.splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[0] == "element" and parts[2].isdigit():
            counts[parts[1]] = int(parts[2])
    vertices = counts.pop("vertex", 0)
    return vertices, sum(counts.values()), _data_lines(body.splitlines()[1:])


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


def check_header_counts(where: str, ext: str, data: bytes) -> None:
    """MeshError when an OFF or ASCII PLY file's header counts disagree with its lines, or an
    OBJ face names vertex 0."""
    if ext == ".obj":
        _check_obj_faces(where, data)
        return
    if ext not in (".off", ".ply"):
        return
    text = data.decode("latin-1")
    found = _off_counts(text) if ext == ".off" else _ply_counts(text)
    if found is None:
        return
    n_vertices, n_other, lines = found
    if lines == n_vertices + n_other:
        return
    what = "faces" if ext == ".off" else "faces (with any other elements)"
    raise MeshError(
        f"{where}: its header declares {n_vertices} vertices and {n_other} {what} "
        f"({n_vertices + n_other} lines) but {lines} data lines follow: the file is cut short "
        "or was edited; re-export it"
    )
