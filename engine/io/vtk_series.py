"""Frames of one trial as a VTK time series that ParaView opens (`.pvd` + one `.vtp` per frame).

Written as plain VTK XML PolyData (ASCII) without the VTK library. Each `.vtp` holds the object
(moved by the frame's object pose) and both pad surfaces; cell data `body` is 0 for the object,
1 and 2 for the pads; point data `energy_density` (J/m^3, 0 on the object) when given.
The `.pvd` collection maps each file to its simulated time in seconds.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from engine.errors import ParameterError
from engine.grasp.frames import Frame
from engine.io.safe_write import OutputExistsError, atomic_write_text, refuse_existing


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
    collection then lists the frames written so far). An existing .pvd or frames folder is
    refused unless `overwrite` (then both are replaced). The frames are written into a temporary
    folder that is renamed into place, then the .pvd is written atomically: a crash leaves the
    old series (or none), never half of one.
    """
    pvd = Path(path).expanduser()
    if pvd.suffix.lower() != ".pvd":
        pvd = pvd.with_suffix(".pvd")
    folder = pvd.with_name(pvd.stem + "_frames")
    refuse_existing(pvd, overwrite, "overwrite=True")
    if not overwrite and (folder.exists() or folder.is_symlink()):
        raise OutputExistsError(
            f"{folder} already exists; choose another name for the series or allow replacing it"
        )
    if folder.exists() and not folder.is_dir():
        raise OutputExistsError(f"{folder} is a file; choose another name for the series")
    if energy is not None and len(energy) != len(frames):
        energy = None
    entries = []
    staging: Path | None = None
    try:
        pvd.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{folder.name[:80]}.", dir=pvd.parent))
        for i, frame in enumerate(frames):
            name = f"frame_{i:05d}.vtp"
            text = frame_polydata(
                frame,
                object_vertices,
                object_faces,
                pad_faces,
                None if energy is None else energy[i],
            )
            (staging / name).write_text(text, encoding="ascii")
            entries.append(
                f'<DataSet timestep="{frame.time_s:.6g}" group="" part="0" '
                f'file="{folder.name}/{name}"/>'
            )
            if progress is not None and progress(i + 1, len(frames)):
                break
        if folder.is_dir():  # overwrite: the old frames go only once the new ones are complete
            shutil.rmtree(folder)
        os.replace(staging, folder)
        staging = None
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
    except OSError as exc:
        raise ParameterError(
            f"cannot write the VTK series {pvd}: {exc.strerror or exc}; choose a writable folder"
        ) from exc
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    return pvd
