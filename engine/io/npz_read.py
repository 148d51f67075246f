"""Reading a .npz of NumPy arrays that a user handed in, with explicit caps (never pickle).

`read_npz` checks the file size, each member's declared uncompressed size (a zip bomb is
refused before it is inflated), each array's header (dtype without objects, shape within the
element cap: a header declaring (1e12, 3) is refused before anything is allocated) and reads
only `.npy` members. Every problem is a `NpzError` naming the file, the member and the fix;
callers turn it into their format's error (SessionError, ParameterError).
"""

from __future__ import annotations

import os
import tokenize
import zipfile
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import IO

import numpy as np

from engine.errors import ParameterError

MAX_FILE_BYTES = 2 * 1024**3
"""Largest .npz read (2 GiB): a session of many long trials stays well below it."""

MAX_TOTAL_BYTES = 3 * 1024**3 // 2
"""Largest sum of the members' uncompressed sizes (1.5 GiB: a session of 20 trials of a
thousand frames each inflates to about 1 GB), so a reading process stays under 2 GB."""

MAX_ARRAY_ELEMENTS = 200_000_000
"""Largest array (elements); 200 M float32 is 800 MB."""

MAX_MEMBERS = 100_000


class NpzError(ParameterError):
    """A .npz that is not a readable, reasonably sized set of NumPy arrays."""


def read_npz(
    path: str | os.PathLike,
    *,
    max_file_bytes: int | None = None,
    max_total_bytes: int | None = None,
    max_elements: int | None = None,
    member_elements: Mapping[str, int] | None = None,
) -> dict[str, np.ndarray]:
    """Every array of the .npz at `path` by name (without the `.npy` suffix).

    The caps default to the module's MAX_* values (read at call time); `member_elements`
    caps named arrays further (an embedded mesh within the mesh budget), checked on their
    headers before they are inflated."""
    max_file_bytes = MAX_FILE_BYTES if max_file_bytes is None else max_file_bytes
    max_total_bytes = MAX_TOTAL_BYTES if max_total_bytes is None else max_total_bytes
    max_elements = MAX_ARRAY_ELEMENTS if max_elements is None else max_elements
    p = Path(path)
    try:
        size = p.stat().st_size
    except OSError as exc:
        raise NpzError(f"cannot read {p}: {exc.strerror or exc}") from exc
    if size > max_file_bytes:
        raise NpzError(
            f"{p} is {size / 1024**2:.0f} MiB, over the {max_file_bytes / 1024**2:.0f} MiB a "
            "NumPy arrays file may have here; it is not an ipcgrasp file or it is damaged"
        )
    arrays: dict[str, np.ndarray] = {}
    try:
        with zipfile.ZipFile(p) as zf:
            infos = zf.infolist()
            if len(infos) > MAX_MEMBERS:
                raise NpzError(f"{p} holds {len(infos)} entries (at most {MAX_MEMBERS})")
            total = sum(i.file_size for i in infos)
            if total > max_total_bytes:
                raise NpzError(
                    f"{p} would inflate to {total / 1024**2:.0f} MiB (at most "
                    f"{max_total_bytes / 1024**2:.0f} MiB): refused (damaged or a zip bomb)"
                )
            for info in infos:
                name = info.filename
                if not name.endswith(".npy"):
                    raise NpzError(f"{p}: entry {name!r} is not a NumPy array (.npy)")
                key = name[: -len(".npy")]
                with zf.open(info) as member:
                    cap = min(max_elements, (member_elements or {}).get(key, max_elements))
                    arrays[key] = _read_member(p, key, member, cap)
    except NpzError:
        raise
    except (zipfile.BadZipFile, zlib.error, EOFError) as exc:
        raise NpzError(
            f"{p} is not a complete NumPy arrays file (.npz): {exc}; it is truncated, damaged "
            "or of another format"
        ) from exc
    except (OSError, ValueError, OverflowError, NotImplementedError, RuntimeError) as exc:
        raise NpzError(f"{p} is not a readable NumPy arrays file (.npz): {exc}") from exc
    return arrays


def _read_member(p: Path, key: str, member: IO[bytes], max_elements: int) -> np.ndarray:
    fmt = np.lib.format
    try:
        version = fmt.read_magic(member)
        if version == (1, 0):
            shape, fortran, dtype = fmt.read_array_header_1_0(member)
        elif version in ((2, 0), (3, 0)):
            shape, fortran, dtype = fmt.read_array_header_2_0(member)
        else:
            raise NpzError(f"{p}: array {key!r} has an unknown .npy version {version}")
    except NpzError:
        raise
    # numpy parses the header text with tokenize: an unterminated quote raises TokenError.
    except (ValueError, SyntaxError, TypeError, tokenize.TokenError) as exc:
        raise NpzError(f"{p}: array {key!r} has a damaged header ({exc})") from exc
    if dtype.hasobject:
        raise NpzError(
            f"{p}: array {key!r} holds Python objects; ipcgrasp files never do (not loaded)"
        )
    count = 1
    for n in shape:
        count *= int(n)
    if count > max_elements:
        raise NpzError(
            f"{p}: array {key!r} declares shape {tuple(shape)} ({count:.3g} elements, at most "
            f"{max_elements:.3g}); refused before reading (damaged file?)"
        )
    data = member.read(count * dtype.itemsize)
    if len(data) != count * dtype.itemsize:
        raise NpzError(
            f"{p}: array {key!r} is truncated ({len(data)} of {count * dtype.itemsize} bytes)"
        )
    array = np.frombuffer(data, dtype=dtype)
    if fortran:
        return array.reshape(shape[::-1]).transpose().copy()
    return array.reshape(shape).copy()
