"""Reading a REACH-format JSON of physical trials (Danielczuk et al. 2019; IPC-GraspSim's
physical data) as grasps.

A list of records, one per physical trial, each with `obj`, `attempt` (the grasp), `trial`,
`result`, `grasp` (4x4 world <- gripper) and `pose` (4x4 world <- object). Records of one
attempt share one grasp; its id is '<obj>/<attempt>' and its mesh `<mesh_dir>/<obj>.obj`. The
gripper pose becomes a grasp in the resting frame later, with the scene
(engine.batch.grasp_scene.reach_grasp).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np

from engine.batch.grasp_spec import (
    MAX_TABLE_BYTES,
    GraspSpec,
    GraspTableError,
    RowError,
    bad_row,
)
from engine.io import json_text

# Printed masses of the REACH / IPC-GraspSim objects (IPC-GraspSim's phys_grasp_ipc.py), kg.
REACH_OBJECT_MASSES_KG = {
    "bar_clamp": 0.0185,
    "book": 0.0348,
    "bowl": 0.0157,
    "cat": 0.0099,
    "cube_3cm": 0.0030,
    "endstop_holder": 0.0163,
    "engine_part": 0.0286,
    "fan_extruder": 0.0074,
    "gearbox": 0.0074,
    "large_marker": 0.0032,
    "mount1": 0.0104,
    "mug": 0.0202,
    "nozzle": 0.0063,
    "part1": 0.0068,
    "part3": 0.0136,
    "pawn": 0.0186,
    "pear": 0.0065,
    "pipe_connector": 0.0235,
    "sardines": 0.0112,
    "sulfur_neutron": 0.0070,
    "vase": 0.0131,
    "yoda": 0.0204,
}


REACH_BUILTIN_OBJECTS = {"cube_3cm": "cube"}
"""REACH objects that are built in: the 3 cm cube's file holds the built-in cube's 8 vertices
(+-15 mm about its centre), so a JSON without cube_3cm.obj beside it uses the built-in cube."""


def load_reach_records(path: Path, text: str | None = None) -> list:
    """The list of records of a REACH JSON file (GraspTableError if it is not one)."""
    try:
        if text is None:
            if path.stat().st_size > MAX_TABLE_BYTES:
                raise GraspTableError(
                    f"{path} is over {MAX_TABLE_BYTES / 1024**2:.0f} MiB; split it into several files"
                )
            text = path.read_bytes().decode("utf-8-sig")
        records = json_text.loads(text)
    except (OSError, UnicodeDecodeError) as exc:
        raise GraspTableError(f"cannot read {path}: {exc}") from exc
    except RecursionError:
        raise GraspTableError(
            f"{path} is nested too deeply to be REACH records (a list of flat objects)"
        ) from None
    except json.JSONDecodeError as exc:
        raise GraspTableError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})"
        ) from exc
    except json_text.JsonNumberError as exc:
        raise GraspTableError(f"{path} cannot be REACH records: {exc}") from None
    if not isinstance(records, list):
        raise GraspTableError(
            f"{path}: expected a JSON list of REACH records (obj, attempt, trial, result, grasp, "
            f"pose), got a {type(records).__name__}"
        )
    return records


def _matrix(record: dict, name: str) -> np.ndarray:
    if name not in record:
        raise RowError(name, "is missing (a 4x4 matrix)")
    try:
        m = np.asarray(record[name], dtype=float)
    except (TypeError, ValueError):
        raise RowError(name, "is not a 4x4 matrix of numbers") from None
    if m.shape != (4, 4) or not np.all(np.isfinite(m)):
        raise RowError(name, f"must be a finite 4x4 matrix (got shape {m.shape})")
    return m


def reach_grasp_id(record: dict) -> str:
    """'<obj>/<attempt>', the id shared by a REACH grasp and its physical trials."""
    obj, attempt = record.get("obj"), record.get("attempt")
    if not isinstance(obj, str) or not obj:
        raise RowError("obj", "is missing or not a string (the object name)")
    if isinstance(attempt, bool) or not isinstance(attempt, int):
        raise RowError("attempt", f"must be an integer grasp number (got {attempt!r})")
    return f"{obj}/{attempt}"


def read_reach(
    path: Path,
    text: str,
    mesh_dir: Path,
    mass_default: float | None,
    warnings: list[str] | None = None,
) -> list[GraspSpec]:
    """The grasps of a REACH JSON; a built-in object's file missing from `mesh_dir`
    (REACH_BUILTIN_OBJECTS) is replaced by the built-in object, with a note in `warnings`."""
    records = load_reach_records(path, text)
    groups: dict[str, list[tuple[int, dict]]] = {}
    specs: dict[str, GraspSpec] = {}
    order: list[str] = []
    for i, rec in enumerate(records):
        where = f"record {i}"
        try:
            if not isinstance(rec, dict):
                raise RowError("record", "is not a JSON object")
            gid = reach_grasp_id(rec)
        except RowError as exc:
            gid = f"record{i}"
            order.append(gid)
            specs[gid] = bad_row(gid, where, f"{path} {where}, field {exc.field!r}: {exc.message}")
            continue
        if gid not in groups:
            order.append(gid)
            groups[gid] = []
        groups[gid].append((i, rec))
    for gid, members in groups.items():
        first_index, first = members[0]
        where = f"record {first_index}"
        try:
            grasp = _matrix(first, "grasp")
            pose = _matrix(first, "pose")
            for j, rec in members[1:]:
                for name, ref in (("grasp", grasp), ("pose", pose)):
                    if not np.allclose(_matrix(rec, name), ref, atol=1e-9):
                        raise RowError(
                            name, f"differs between records {first_index} and {j} of {gid}"
                        )
        except RowError as exc:
            specs[gid] = bad_row(gid, where, f"{path} {where}, field {exc.field!r}: {exc.message}")
            continue
        obj = first["obj"]
        try:
            mesh_path = _reach_mesh(mesh_dir, obj)
        except RowError as exc:
            specs[gid] = bad_row(gid, where, f"{path} {where}, field {exc.field!r}: {exc.message}")
            continue
        if obj in REACH_BUILTIN_OBJECTS and not Path(mesh_path).is_file():
            note = (
                f"{obj}.obj is not in {Path(mesh_path).parent}: the grasps of {obj} use the "
                f"built-in '{REACH_BUILTIN_OBJECTS[obj]}' (the same 3 cm cube; put {obj}.obj "
                "there, or pass --mesh-dir, to use the file)"
            )
            if warnings is not None and note not in warnings:
                warnings.append(note)
            mesh_path = REACH_BUILTIN_OBJECTS[obj]
        mass = mass_default if mass_default is not None else REACH_OBJECT_MASSES_KG.get(obj)
        specs[gid] = GraspSpec(
            grasp_id=gid,
            source_row=where,
            object=mesh_path,
            mass_kg=mass,
            gripper_pose=grasp,
            object_pose=pose,
        )
    return [specs[g] for g in order]


def _reach_mesh(mesh_dir: Path, obj: str) -> str:
    """The mesh `<mesh_dir>/<obj>.obj`; `obj` must be a plain name that stays in `mesh_dir`."""
    if (
        len(obj) > 255
        or "\0" in obj
        or "/" in obj
        or "\\" in obj
        or obj in (".", "..")
        or obj.startswith("~")
    ):
        raise RowError(
            "obj",
            f"{obj[:80]!r} is not an object name (a file name without folders: the mesh is "
            "<obj>.obj in --mesh-dir)",
        )
    try:
        folder = mesh_dir.resolve()
        mesh = (folder / f"{obj}.obj").resolve()
    except (OSError, RuntimeError, ValueError) as exc:
        raise RowError("obj", f"{obj!r}: not a usable mesh path ({exc})") from None
    if mesh.parent != folder:
        raise RowError("obj", f"the mesh of {obj!r} links outside --mesh-dir {folder}")
    return str(mesh)
