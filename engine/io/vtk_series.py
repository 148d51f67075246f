"""Frames of one trial as a VTK time series that ParaView opens (`.pvd` + one `.vtp` per frame).

Written as plain VTK XML PolyData (ASCII) without the VTK library. Each `.vtp` holds the object
(moved by the frame's object pose) and both pad surfaces; cell data `body` is 0 for the object,
1 and 2 for the pads; point data `energy_density` (J/m^3, 0 on the object) when given.
The `.pvd` collection maps each file to its simulated time in seconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from engine.errors import ParameterError
from engine.grasp.frames import Frame
from engine.io.safe_write import (
    OutputExistsError,
    atomic_write_text,
    new_file_mode,
    refuse_existing,
)
from engine.io.trial_exports import TrialFrames


def _array(name: str | None, values: np.ndarray, vtk_type: str, components: int = 1) -> str:
    head = f'<DataArray type="{vtk_type}"'
    if name:
        head += f' Name="{name}"'
    if components > 1:
        head += f' NumberOfComponents="{components}"'
    fmt = "%d" if vtk_type.startswith("Int") else "%.7g"
    body = " ".join(fmt % v for v in np.asarray(values).ravel())
    return f'{head} format="ascii">{body}</DataArray>'


def frame_polydata(
    frame: Frame,
    object_vertices: np.ndarray,
    object_faces: np.ndarray,
    pad_faces: np.ndarray,
    energy: tuple[np.ndarray, np.ndarray] | None = None,
) -> str:
    """The VTK XML PolyData text of one frame."""
    pose = np.asarray(frame.object_pose, dtype=float)
    obj = np.asarray(object_vertices, dtype=float) @ pose[:3, :3].T + pose[:3, 3]
    parts = [obj, np.asarray(frame.pad_vertices[0]), np.asarray(frame.pad_vertices[1])]
    faces = [np.asarray(object_faces), np.asarray(pad_faces), np.asarray(pad_faces)]
    offsets = np.cumsum([0] + [len(p) for p in parts[:-1]])
    points = np.vstack(parts)
    polys = np.vstack([f + o for f, o in zip(faces, offsets, strict=True)])
    body = np.concatenate([np.full(len(f), i, dtype=np.int32) for i, f in enumerate(faces)])
    density = np.zeros(len(points))
    if energy is not None:
        density[offsets[1] : offsets[1] + len(parts[1])] = energy[0]
        density[offsets[2] :] = energy[1]
    return "\n".join(
        [
            '<?xml version="1.0"?>',
            '<VTKFile type="PolyData" version="0.1" byte_order="LittleEndian">',
            "<PolyData>",
            f'<Piece NumberOfPoints="{len(points)}" NumberOfVerts="0" NumberOfLines="0" '
            f'NumberOfStrips="0" NumberOfPolys="{len(polys)}">',
            '<PointData Scalars="energy_density">',
            _array("energy_density", density, "Float32"),
            "</PointData>",
            '<CellData Scalars="body">',
            _array("body", body, "Int32"),
            "</CellData>",
            "<Points>",
            _array(None, points, "Float32", 3),
            "</Points>",
            "<Polys>",
            _array("connectivity", polys, "Int32"),
            _array("offsets", 3 * np.arange(1, len(polys) + 1), "Int32"),
            "</Polys>",
            "</Piece>",
            "</PolyData>",
            "</VTKFile>",
            "",
        ]
    )


MANIFEST = ".ipcgrasp-series.json"
"""The file in a frames folder naming the .pvd it belongs to and the files the export wrote: an
export replaces only a folder holding it (and nothing else)."""


def write_vtk_series(
    path: str | os.PathLike,
    frames: Sequence[Frame],
    object_vertices: np.ndarray,
    object_faces: np.ndarray,
    pad_faces: np.ndarray,
    energy: Sequence[tuple[np.ndarray, np.ndarray]] | None = None,
    progress: Callable[[int, int], bool | None] | None = None,
    *,
    overwrite: bool = False,
) -> Path:
    """Write `path` (.pvd) and its frames in the folder `<stem>_frames/`; returns the .pvd path.

    `progress(done, total)` is called after each frame and may return True to stop early (the
    collection then lists the frames written so far). An existing .pvd is refused unless
    `overwrite`. An existing frames folder is replaced only with `overwrite` and only when an
    earlier export of this same .pvd made it (the .pvd names it and the folder holds the
    export's manifest and only the files it lists); any other folder is refused and left as it
    is. The frames are written into a temporary folder that is renamed into place, then the .pvd
    is written atomically; the old frames are removed (file by file, as listed) only after that.
    """
    pvd = Path(path).expanduser()
    if pvd.suffix.lower() != ".pvd":
        pvd = pvd.with_suffix(".pvd")
    folder = pvd.with_name(pvd.stem + "_frames")
    refuse_existing(pvd, overwrite, "overwrite=True")
    old_files = _replaceable_frames(pvd, folder, overwrite)
    if energy is not None and len(energy) != len(frames):
        energy = None
    staging: Path | None = None
    aside: Path | None = None  # a hidden folder holding the old frames while they are replaced
    committed = False
    try:
        pvd.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name[:80]}.", dir=pvd.parent))
        os.chmod(staging, new_file_mode(folder, 0o777))
        entries = _write_frames(
            staging, folder.name, frames, object_vertices, object_faces, pad_faces, energy,
            progress,
        )  # fmt: skip
        names = [f"frame_{i:05d}.vtp" for i in range(len(entries))]
        manifest = {"format": "ipcgrasp-vtk-series", "pvd": pvd.name, "files": names}
        (staging / MANIFEST).write_text(json.dumps(manifest) + "\n", encoding="utf-8")
        if old_files is not None:  # set the old frames aside; removed once the .pvd is written
            aside = Path(tempfile.mkdtemp(prefix=f".{folder.name[:80]}.old.", dir=pvd.parent))
            os.replace(folder, aside / "frames")
        os.replace(staging, folder)
        staging = None
        try:
            atomic_write_text(
                pvd,
                '<?xml version="1.0"?>\n<VTKFile type="Collection" version="0.1" '
                'byte_order="LittleEndian">\n<Collection>\n'
                + "\n".join(entries)
                + "\n</Collection>\n</VTKFile>\n",
                overwrite=overwrite,
                flag="overwrite=True",
                encoding="ascii",
            )
        except BaseException:
            staging = folder.with_name(f".{folder.name[:80]}.failed.{os.getpid()}")
            os.replace(folder, staging)  # the new frames go (below)
            raise
        committed = True
    except OSError as exc:
        raise ParameterError(
            f"cannot write the VTK series {pvd}: {exc.strerror or exc}; choose a writable folder"
        ) from exc
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
        if aside is not None:
            if committed:
                _remove_listed(aside / "frames", old_files or [])
            elif not folder.exists():  # not replaced after all: the old frames come back
                with contextlib.suppress(OSError):
                    os.replace(aside / "frames", folder)
            with contextlib.suppress(OSError):
                aside.rmdir()
    return pvd


def write_trial(path: str | os.PathLike, trial: TrialFrames, *, overwrite: bool = False) -> Path:
    """The VTK series of engine.io.trial_exports' format "vtk": write_vtk_series of `trial`."""
    return write_vtk_series(
        path, trial.frames, trial.object_vertices, trial.object_faces, trial.pad_faces,
        trial.energy, overwrite=overwrite,
    )  # fmt: skip


def _write_frames(
    staging: Path,
    folder_name: str,
    frames: Sequence[Frame],
    object_vertices: np.ndarray,
    object_faces: np.ndarray,
    pad_faces: np.ndarray,
    energy: Sequence[tuple[np.ndarray, np.ndarray]] | None,
    progress: Callable[[int, int], bool | None] | None,
) -> list[str]:
    """Write each frame's .vtp into `staging`; the .pvd's DataSet lines of those written."""
    entries = []
    for i, frame in enumerate(frames):
        name = f"frame_{i:05d}.vtp"
        e = None if energy is None else energy[i]
        text = frame_polydata(frame, object_vertices, object_faces, pad_faces, e)
        (staging / name).write_text(text, encoding="ascii")
        entries.append(
            f'<DataSet timestep="{frame.time_s:.6g}" group="" part="0" '
            f'file="{folder_name}/{name}"/>'
        )
        if progress is not None and progress(i + 1, len(frames)):
            break
    return entries


def _replaceable_frames(pvd: Path, folder: Path, overwrite: bool) -> list[str] | None:
    """The files of an existing frames folder that an export of `pvd` made (None when there is
    no folder); OutputExistsError naming the folder and the fix for any other folder."""
    if not (folder.exists() or folder.is_symlink()):
        return None
    fix = f"move or rename {folder}, or choose another name for the series"
    if not overwrite:
        raise OutputExistsError(f"{folder} already exists; {fix}")
    why = _not_ours(pvd, folder)
    if why:
        raise OutputExistsError(
            f"{folder} exists and {why}: an export replaces only the frames folder it made "
            f"for {pvd.name}, so it is left as it is; {fix}"
        )
    return list(json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["files"])


def _not_ours(pvd: Path, folder: Path) -> str:
    """Why `folder` is not the frames folder of an earlier export of `pvd` ('' when it is)."""
    if folder.is_symlink() or not folder.is_dir():
        return "is not a folder"
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        files = manifest["files"]
        named = f'file="{folder.name}/' in pvd.read_text(encoding="utf-8", errors="replace")
        if not (
            manifest.get("format") == "ipcgrasp-vtk-series"
            and manifest.get("pvd") == pvd.name
            and isinstance(files, list)
            and all(isinstance(f, str) and f and Path(f).name == f for f in files)
        ):
            return "its manifest does not name this series"
        present = {e.name for e in os.scandir(folder)}
    except (OSError, ValueError, TypeError, KeyError, AttributeError, RecursionError):
        return f"holds no export manifest of {pvd.name} (or {pvd.name} is missing)"
    if not named:
        return f"{pvd.name} does not name it"
    others = sorted(present - set(files) - {MANIFEST})
    if others:
        return f"holds files the export did not write ({', '.join(others[:3])})"
    if any(not (folder / f).is_file() or (folder / f).is_symlink() for f in present):
        return "holds something other than plain files"
    return ""


def _remove_listed(folder: Path, files: list[str]) -> None:
    """Remove the export's own files from `folder`, then the folder if it is empty."""
    for name in [*files, MANIFEST]:
        with contextlib.suppress(OSError):
            (folder / name).unlink()
    with contextlib.suppress(OSError):
        folder.rmdir()
