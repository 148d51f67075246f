"""Header counts checked against the data: an OFF or ASCII PLY file whose header promises more
or fewer vertices and faces than it holds is damaged (cut short, or edited), and trimesh reads
whatever is there without a word.

Binary PLY and GLB declare sizes that their readers check themselves (a short binary body
fails to read); ASCII files hold one element per line, which is what is counted here.
"""

from __future__ import annotations

from engine.errors import MeshError


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


def check_header_counts(where: str, ext: str, data: bytes) -> None:
    """MeshError when an OFF or ASCII PLY file's header counts disagree with its lines."""
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
