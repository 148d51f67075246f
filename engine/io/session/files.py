"""A session's two files: their names (`session_paths`) and the digest that ties them."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

SESSION_SUFFIX = ".ipcgrasp.json"
ARRAYS_SUFFIX = ".ipcgrasp.npz"
NEXT_ARRAYS_SUFFIX = ".ipcgrasp.2.npz"
"""The arrays file's other name: saving over a session writes its arrays under the name its JSON
does not use, so the old pair opens until the new JSON (naming the new file) replaces the old
one in one rename (engine.io.session.writing)."""


def session_paths(path: str | os.PathLike) -> tuple[Path, Path]:
    """(json, npz) paths of a session given either file's path or a bare name (npz: the
    arrays file's first name; a session saved over names its arrays file in its JSON)."""
    p = Path(path)
    name = p.name
    for suffix in (SESSION_SUFFIX, ARRAYS_SUFFIX, NEXT_ARRAYS_SUFFIX, ".json"):
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
