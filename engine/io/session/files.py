"""A session's two files: their names (`session_paths`) and the digest that ties them."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

SESSION_SUFFIX = ".ipcgrasp.json"
ARRAYS_SUFFIX = ".ipcgrasp.npz"


def session_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """(json, npz) paths of a session given either file's path or a bare name."""
    p = Path(path)
    name = p.name
    for suffix in (SESSION_SUFFIX, ARRAYS_SUFFIX, ".json"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    return p.with_name(name + SESSION_SUFFIX), p.with_name(name + ARRAYS_SUFFIX)


def file_sha256(path: Path) -> str:
    """The SHA-256 of a file's bytes, as hex (read in 1 MiB chunks)."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()
