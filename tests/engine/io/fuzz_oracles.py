"""Oracles of the reader fuzz suite (test_fuzz_readers.py): what a reader returned, checked
against the invariants a valid file guarantees, each written from the format's definition (the
readers' docstrings, docs/batch.md, docs/real_objects.md, docs/simulating.md) and computed here
from the input's bytes, not by calling the reader's own checks.

Every oracle returns the invariants the value breaks (empty: none). A reader that returns a
value breaking one has accepted a damaged or absurd input in silence: a *silent acceptance*.
"""

from __future__ import annotations

import csv
import hashlib
import io
import json
import math
import re
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

import numpy as np

from engine import schema
from engine.scene.mesh_budget import MAX_MESH_FACES

MIN_DENSITY, MAX_DENSITY = 10.0, 25_000.0
"""Densities an object can have (issue 42: foam ~15 kg/m^3 to osmium 22,590 kg/m^3)."""

# --- meshes -------------------------------------------------------------------------------------


def mesh_problems(vertices: object, faces: object, what: str = "mesh") -> list[str]:
    """A solid as every loaded mesh is (engine.scene.object_mesh): finite x, y, z vertices,
    1..MAX_MESH_FACES triangles indexing them, closed and consistently oriented (each directed
    edge once, its reverse once), enclosing a positive volume."""
    v = np.asarray(vertices)
    f = np.asarray(faces)
    if v.ndim != 2 or v.shape[1:] != (3,) or v.dtype.kind != "f":
        return [f"{what}: vertices of shape {v.shape} and type {v.dtype}, not (n, 3) floats"]
    if not np.all(np.isfinite(v)):
        return [f"{what}: a vertex coordinate is NaN or infinite"]
    if f.ndim != 2 or f.shape[1:] != (3,) or f.dtype.kind not in "iu":
        return [f"{what}: faces of shape {f.shape} and type {f.dtype}, not (m, 3) integers"]
    if not 1 <= len(f) <= MAX_MESH_FACES:
        return [f"{what}: {len(f)} triangles, not 1..{MAX_MESH_FACES}"]
    if f.min() < 0 or f.max() >= len(v):
        return [f"{what}: a face index is outside 0..{len(v) - 1}"]
    out = []
    edges = Counter(
        (int(a), int(b)) for tri in f.tolist() for a, b in zip(tri, tri[1:] + tri[:1], strict=True)
    )
    if any(n != 1 for n in edges.values()) or any((b, a) not in edges for a, b in edges):
        out.append(f"{what}: not closed and consistently oriented (an edge is not shared once "
                   "each way by two triangles)")  # fmt: skip
    p = v.astype(np.float64)[f]
    volume = float(np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6.0)
    if not (math.isfinite(volume) and volume > 0):
        out.append(f"{what}: encloses a volume of {volume:.3g}, not > 0")
    return out


def _lines(text: str) -> list[str]:
    """The non-empty lines of `text` with #-comments removed."""
    out = []
    for line in text.splitlines():
        line = line.split("#")[0].strip()
        if line:
            out.append(line)
    return out


def _face_refs(lines: Iterable[str], n_vertices: int, where: str) -> list[str]:
    """Face lines 'k i1 .. ik': k >= 3 integer indices, each in 0..n_vertices-1."""
    for j, line in enumerate(lines):
        tokens = line.split()
        try:
            k = int(tokens[0])
            idx = [int(t) for t in tokens[1 : 1 + k]]
        except (ValueError, IndexError):
            return [f"{where}: face line {j} {line[:40]!r} is not 'k i1 .. ik'"]
        if k < 3 or len(idx) != k:
            return [f"{where}: face line {j} {line[:40]!r} does not list k >= 3 vertices"]
        if any(not 0 <= i < n_vertices for i in idx):
            return [f"{where}: face line {j} indexes a vertex outside 0..{n_vertices - 1}"]
    return []


def off_problems(data: bytes) -> list[str]:
    """An OFF file: 'OFF', then the counts 'V F E', then V vertex lines and F face lines, one
    element per line, each face's indices within the V vertices."""
    lines = _lines(data.decode("latin-1"))
    if not lines or not lines[0].split()[0].endswith("OFF"):
        return ["OFF: the file does not start with OFF"]
    head = lines[0].split()[1:]
    rest = lines[1:]
    if len(head) < 3 and rest:
        head, rest = rest[0].split(), rest[1:]
    try:
        nv, nf = int(head[0]), int(head[1])
    except (ValueError, IndexError):
        return ["OFF: no vertex and face counts after OFF"]
    if len(rest) != nv + nf:
        return [f"OFF: header declares {nv} vertices and {nf} faces ({nv + nf} lines), "
                f"{len(rest)} data lines follow"]  # fmt: skip
    return _face_refs(rest[nv:], nv, "OFF")


def ascii_ply_problems(data: bytes) -> list[str] | None:
    """An ASCII PLY file: each element's count equals its lines after end_header, each face's
    indices within the vertices; None for a binary PLY (not checked here)."""
    text = data.decode("latin-1")
    head, sep, body = text.partition("end_header")
    if not sep or "format ascii" not in head:
        return None
    counts: list[tuple[str, int]] = []
    for line in head.splitlines():
        parts = line.split()
        if parts[:1] == ["element"]:
            try:
                counts.append((parts[1], int(parts[2])))
            except (IndexError, ValueError):
                return [f"PLY: element line {line[:40]!r} has no count"]
    lines = [ln.strip() for ln in body.splitlines()[1:] if ln.strip()]
    declared = sum(n for _, n in counts)
    if len(lines) != declared:
        return [f"PLY: header declares {declared} element lines ({counts}), "
                f"{len(lines)} follow"]  # fmt: skip
    at = 0
    for name, n in counts:
        if name == "face":
            nv = dict(counts).get("vertex", 0)
            return _face_refs(lines[at : at + n], nv, "PLY")
        at += n
    return []


_OBJ_INDEX = re.compile(r"^[+-]?\d+$")


def obj_problems(data: bytes) -> list[str]:
    """An OBJ file's faces reference vertices that exist: 1..V, or -1..-V relative to the
    vertices defined before the face (0 is no vertex)."""
    defined = 0
    for line in data.decode("latin-1").splitlines():
        parts = line.split()
        if parts[:1] == ["v"]:
            defined += 1
        elif parts[:1] == ["f"]:
            for ref in parts[1:]:
                first = ref.split("/")[0]
                if not _OBJ_INDEX.match(first):
                    continue  # not an index at all: the reader's business to refuse
                i = int(first)
                if i == 0 or i < -defined:
                    return [f"OBJ: face {line.strip()[:40]!r} references vertex {i}, which "
                            f"does not exist ({defined} defined before it)"]  # fmt: skip
    total = defined
    for line in data.decode("latin-1").splitlines():
        parts = line.split()
        if parts[:1] == ["f"]:
            for ref in parts[1:]:
                first = ref.split("/")[0]
                if _OBJ_INDEX.match(first) and int(first) > total:
                    return [f"OBJ: face {line.strip()[:40]!r} references vertex {first} of "
                            f"{total}"]  # fmt: skip
    return []


def object_mesh_problems(mesh: object, data: bytes, ext: str) -> list[str]:
    """A loaded ObjectMesh (engine.scene.object_mesh.load_object_mesh) of file bytes `data`."""
    out = mesh_problems(mesh.vertices, mesh.faces)  # type: ignore[attr-defined]
    if ext == ".off":
        out += off_problems(data)
    elif ext == ".ply":
        out += ascii_ply_problems(data) or []
    elif ext == ".obj":
        out += obj_problems(data)
    return out


# --- sessions -----------------------------------------------------------------------------------


def _params_problems(params: object, what: str) -> list[str]:
    """Every declared field within its declared range (engine.schema)."""
    for d in schema.declared(params):
        try:
            schema.check_value(d, getattr(params, d.name))
        except Exception as exc:
            return [f"{what}: {d.name} = {getattr(params, d.name)!r:.40} breaks its range ({exc})"]
    return []


def _finite(values: Iterable[object]) -> bool:
    return all(np.all(np.isfinite(np.asarray(x, dtype=float))) for x in values)


def trial_result_problems(r: object, where: str) -> list[str]:
    """A TrialResult: success a bool; trial, frames, Newton iterations and rollbacks counts
    >= 0; the wall time >= 0 and not infinite (NaN: not recorded); the pads' grip forces not
    infinite (a projection of contact forces, so their sign is not fixed)."""
    out = []
    if not isinstance(r.success, bool):  # type: ignore[attr-defined]
        out.append(f"{where}: success {r.success!r} is not a bool")  # type: ignore[attr-defined]
    for name in ("trial", "frames", "newton_iterations", "rollbacks"):
        value = getattr(r, name)
        if isinstance(value, bool) or not isinstance(value, int) or value < 0:
            out.append(f"{where}: {name} {value!r} is not a count >= 0")
    wall = float(r.wall_time_s)  # type: ignore[attr-defined]
    if math.isinf(wall) or wall < 0:
        out.append(f"{where}: wall_time_s {wall!r} is not a time >= 0")
    for name in ("grip_force1_n", "grip_force2_n"):
        if math.isinf(float(getattr(r, name))):
            out.append(f"{where}: {name} is infinite")
    return out


def session_problems(session: object, folder: Path | None = None) -> list[str]:
    """A loaded Session (engine.io.session): parameters and trial plan within their ranges, a
    finite grasp with a closing axis, a density and (with the embedded mesh) a mass that are
    finite and > 0, a solid embedded mesh, trials with distinct numbers, known statuses,
    finite 4x4 poses and finite frames (times, pad vertices, object poses)."""
    s = session
    out = _params_problems(s.params, "params") + _params_problems(s.spec, "trials")  # type: ignore[attr-defined]
    g = s.grasp  # type: ignore[attr-defined]
    if not _finite([g.center, g.axis, g.approach_angle_rad]) or np.linalg.norm(g.axis) == 0:
        out.append("grasp: centre, axis or angle not finite, or a zero axis")
    density = s.density_kg_m3  # type: ignore[attr-defined]
    if not (isinstance(density, float | int) and MIN_DENSITY <= density <= MAX_DENSITY):
        out.append(
            f"object: density {density!r} kg/m^3 is outside {MIN_DENSITY:g}..{MAX_DENSITY:g}"
        )
    mesh = s.mesh  # type: ignore[attr-defined]
    if mesh is not None:
        found = mesh_problems(mesh.vertices, mesh.faces, "embedded mesh")
        out += found
        if not found:
            p = np.asarray(mesh.vertices, dtype=float)[np.asarray(mesh.faces)]
            volume = np.einsum("ij,ij->i", p[:, 0], np.cross(p[:, 1], p[:, 2])).sum() / 6
            mass = float(density) * float(volume)
            if not (math.isfinite(mass) and mass > 0):
                out.append(f"object: mass {mass!r} kg (density x volume) is not finite and > 0")
    seen = set()
    for rec in s.trials:  # type: ignore[attr-defined]
        at = f"trial {rec.trial}"
        if rec.trial in seen or not isinstance(rec.trial, int) or rec.trial < 0:
            out.append(f"{at}: trial number repeated or not an integer >= 0")
        seen.add(rec.trial)
        if rec.status not in ("queued", "running", "done", "failed", "cancelled"):
            out.append(f"{at}: unknown status {rec.status!r:.40}")
        pose = np.asarray(rec.gripper_pose, dtype=float)
        if pose.shape != (4, 4) or not np.all(np.isfinite(pose)):
            out.append(f"{at}: gripper_pose is not a finite 4x4 matrix")
        for fr in rec.frames:
            if not _finite([fr.time_s, *fr.pad_vertices, fr.object_pose]):
                out.append(f"{at}: frame {fr.index} holds a NaN or infinite time or position")
                break
        if rec.energy_density and (
            len(rec.energy_density) != len(rec.frames)
            or not _finite(e for pair in rec.energy_density for e in pair)
        ):
            out.append(f"{at}: energy density not finite or not one pair per frame")
        if rec.result is not None:
            out += trial_result_problems(rec.result, f"{at} result")
    return out


# --- frames files -------------------------------------------------------------------------------

_TRIAL_SHAPES = {  # name -> trailing shape (None: the pad's vertex count), from frames_npz's doc
    "time_s": (),
    "phase": (),
    "pad1": (None, 3),
    "pad2": (None, 3),
    "object_pose": (4, 4),
    "psi": (2,),
    "grip_force": (2,),
    "contacts": (5,),
    "min_distance": (),
    "object_min_z": (),
    "plate": (2,),
    "newton_iterations": (),
}
_SHARED_SHAPES = {"pad_tets": 4, "pad_surface_faces": 3, "object_vertices": 3, "object_faces": 3}


def _digest(arrays: Mapping[str, np.ndarray]) -> str:
    """meta['arrays_sha256'] as the format defines it: every array but meta, in name order, as
    name NUL dtype NUL shape NUL then its C-order bytes."""
    h = hashlib.sha256()
    for name in sorted(k for k in arrays if k != "meta"):
        a = np.ascontiguousarray(arrays[name])
        h.update(f"{name}\0{a.dtype.str}\0{a.shape}\0".encode())
        h.update(a.tobytes())
    return h.hexdigest()


def frames_problems(meta: object, arrays: Mapping[str, np.ndarray]) -> list[str]:
    """A frames file (engine/io/frames_npz.py's docstring): meta names the format and its
    trials; each trial has every per-trial array with one entry per frame, finite times, pads,
    poses and plate, phases indexing meta['phases']; the shared meshes are there and their
    faces index their vertices; the arrays match meta['arrays_sha256'] when it is given."""
    if not isinstance(meta, dict) or meta.get("format") != "ipcgrasp-frames":
        return ["meta: not an ipcgrasp-frames meta"]
    trials = meta.get("trials")
    if not isinstance(trials, list) or not trials:
        return ["meta: 'trials' is not a non-empty list"]
    out = []
    for k in trials:
        at = f"trial {k!r:.20}"
        a = {n: arrays.get(f"t{k}/{n}") for n in _TRIAL_SHAPES}
        if any(x is None for x in a.values()):
            out.append(f"{at}: listed in meta but its arrays are missing")
            continue
        lengths = {x.shape[0] if x.ndim else -1 for x in a.values()}
        if len(lengths) != 1:
            out.append(f"{at}: arrays disagree on the number of frames")
            continue
        for n, tail in _TRIAL_SHAPES.items():
            shape = a[n].shape[1:]
            if len(shape) != len(tail) or any(
                t is not None and s != t for s, t in zip(shape, tail, strict=True)
            ):
                out.append(f"{at}: {n} has shape {a[n].shape}")
        if a["pad1"].shape != a["pad2"].shape:
            out.append(f"{at}: pad1 and pad2 differ in shape")
        if not _finite(a[n] for n in ("time_s", "pad1", "pad2", "object_pose", "plate")):
            out.append(f"{at}: a time, pad vertex, pose or plate value is NaN or infinite")
        phases = meta.get("phases", [])
        ph = a["phase"]
        if ph.size and (ph.dtype.kind not in "iu" or ph.min() < 0 or ph.max() >= len(phases)):
            out.append(f"{at}: a phase is outside meta['phases']")
    for name, width in _SHARED_SHAPES.items():
        x = arrays.get(name)
        if x is None or x.ndim != 2 or x.shape[1] != width:
            out.append(f"shared array {name} missing or not (n, {width})")
    faces, verts = arrays.get("object_faces"), arrays.get("object_vertices")
    if faces is not None and verts is not None and faces.size and faces.ndim == 2:
        if faces.dtype.kind not in "iu" or faces.min() < 0 or faces.max() >= len(verts):
            out.append("object_faces index vertices outside object_vertices")
    expected = meta.get("arrays_sha256")
    if expected is not None and expected != _digest(arrays):
        out.append("arrays do not match meta['arrays_sha256'] (the file was damaged)")
    return out


# --- CSV tables ---------------------------------------------------------------------------------


def csv_records(data: bytes) -> tuple[list[str], list[list[str]]] | None:
    """(header, non-blank records) of CSV bytes read with the csv module (a BOM dropped);
    None when they are not UTF-8 or not valid CSV."""
    try:
        rows = list(csv.reader(io.StringIO(data.decode("utf-8-sig"), newline="")))
    except (UnicodeDecodeError, csv.Error):
        return None
    if not rows:
        return [], []
    return rows[0], [r for r in rows[1:] if any(c.strip() for c in r)]


def _number(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


_GRASP_NUMBERS = {  # CSV column -> GraspSpec attribute (and index)
    "center_x": ("center", 0), "center_y": ("center", 1), "center_z": ("center", 2),
    "axis_x": ("axis", 0), "axis_y": ("axis", 1), "axis_z": ("axis", 2),
    "approach_angle": ("approach_angle_rad", None), "mass": ("mass_kg", None),
    "density": ("density_kg_m3", None),
}  # fmt: skip


def grasp_csv_problems(table: object, data: bytes) -> list[str]:
    """A grasp CSV (engine/batch/grasp_csv.py, docs/batch.md): one grasp per non-blank record,
    each either an error row or a grasp whose every number is the number in its cell, finite,
    within its documented range (|centre| <= 10 m, a non-zero axis, mass or density > 0 but not
    both, stable_pose an index, E, mu, mu_ground, psi_th within their schema ranges), with
    distinct grasp ids."""
    parsed = csv_records(data)
    grasps = list(table.grasps)  # type: ignore[attr-defined]
    out = []
    ids = Counter(g.grasp_id for g in grasps if not g.error)
    if any(n > 1 for n in ids.values()):
        out.append("two grasps share a grasp_id")
    if parsed is None:
        return out
    header, records = parsed
    if len(records) != len(grasps):
        return [*out, f"{len(records)} records, {len(grasps)} grasps"]
    names = [h.strip().lower() for h in header]
    for k, (values, g) in enumerate(zip(records, grasps, strict=True)):
        if g.error:
            continue
        at = f"record {k + 1}"
        if len(values) != len(names):
            out.append(f"{at}: {len(values)} cells under a {len(names)}-column header, accepted")
            continue
        row = {n: v.strip() for n, v in zip(names, values, strict=True) if n}
        for column, (attr, i) in _GRASP_NUMBERS.items():
            cell = row.get(column, "")
            got = getattr(g, attr)
            got = None if got is None else float(got if i is None else got[i])
            if cell == "":
                continue
            want = _number(cell)
            if want is None or not math.isfinite(want) or got != want:
                out.append(f"{at}: {column} cell {cell!r:.30} read as {got!r}")
        c, a = np.asarray(g.center, dtype=float), np.asarray(g.axis, dtype=float)
        if not (_finite([c, a]) and np.all(np.abs(c) <= 10.0) and np.linalg.norm(a) > 0):
            out.append(f"{at}: centre beyond 10 m, or an axis not finite and non-zero")
        for attr in ("mass_kg", "density_kg_m3"):
            v = getattr(g, attr)
            if v is not None and not (math.isfinite(v) and v > 0):
                out.append(f"{at}: {attr} {v!r} is not finite and > 0")
        if g.mass_kg is not None and g.density_kg_m3 is not None and row.get("mass"):
            out.append(f"{at}: both mass and density accepted")
        if not (isinstance(g.stable_pose, int) and g.stable_pose >= 0):
            out.append(f"{at}: stable_pose {g.stable_pose!r} is not an index")
        out += _row_param_problems(g.params, at)
    return out


def _row_param_problems(params: Mapping[str, float], at: str) -> list[str]:
    from engine.grasp.params import SimulationParams

    for name, value in params.items():
        try:
            schema.check_value(schema.field_spec(SimulationParams, name), value)
        except Exception as exc:
            return [f"{at}: {name} = {value!r} breaks its range ({exc})"]
    return []


def reach_table_problems(table: object, records: object) -> list[str]:
    """A REACH JSON read as grasps: one grasp per distinct '<obj>/<attempt>' (or an error for a
    record without one); each valid grasp has finite 4x4 gripper and object poses, and a mass
    that is None or finite and > 0."""
    grasps = list(table.grasps)  # type: ignore[attr-defined]
    out = []
    ids = Counter(g.grasp_id for g in grasps)
    if any(n > 1 for n in ids.values()):
        out.append("two grasps share a grasp id (one attempt counted twice)")
    for g in grasps:
        if g.error:
            continue
        for name in ("gripper_pose", "object_pose"):
            m = np.asarray(getattr(g, name), dtype=float)
            if m.shape != (4, 4) or not np.all(np.isfinite(m)):
                out.append(f"grasp {g.grasp_id}: {name} is not a finite 4x4 matrix")
        if g.mass_kg is not None and not (math.isfinite(g.mass_kg) and g.mass_kg > 0):
            out.append(f"grasp {g.grasp_id}: mass {g.mass_kg!r} is not finite and > 0")
    return out


# --- labels -------------------------------------------------------------------------------------

# What a label outcome may be written as: engine.evaluation.labels reads this vocabulary (the
# docs name true/false/1/0); anything else must be refused.
TRUE_WORDS = {"1", "true", "yes", "y", "t", "success"}
FALSE_WORDS = {"0", "false", "no", "n", "f", "fail", "failure"}


def _outcome(value: object) -> bool | None:
    if isinstance(value, bool):
        return value
    if isinstance(value, int | float) and value in (0, 1):
        return bool(value)
    text = str(value).strip().lower()
    return True if text in TRUE_WORDS else False if text in FALSE_WORDS else None


def _label_totals(labels: Mapping[str, object]) -> tuple[dict[str, list[bool]], list[str]]:
    out = []
    got = {}
    for gid, label in labels.items():
        outcomes = list(label.outcomes)  # type: ignore[attr-defined]
        if not outcomes or not all(isinstance(o, bool) for o in outcomes):
            out.append(f"grasp {gid}: outcomes {outcomes[:5]!r} are not one or more bools")
        got[gid] = outcomes
    return got, out


def reach_labels_problems(labels: Mapping[str, object], records: object) -> list[str]:
    """Labels from a REACH JSON (docs/batch.md): one outcome per record, the record's result;
    no record twice (an identical copy would count one physical trial twice). Two records of
    one grasp with the same trial number but other fields different are read as two trials
    (tests/engine/evaluation/test_labels_files.py pins that)."""
    got, out = _label_totals(labels)
    if not isinstance(records, list):
        return [*out, "labels read from a JSON that is not a list of records"]
    copies = Counter(json.dumps(r, sort_keys=True) for r in records)
    if any(n > 1 for n in copies.values()):
        out.append("a REACH record appears twice and was counted as another physical trial")
    want: dict[str, list[bool | None]] = defaultdict(list)
    for r in records:
        gid = f"{r.get('obj')}/{r.get('attempt')}" if isinstance(r, dict) else "?"
        want[gid].append(_outcome(r.get("result")) if isinstance(r, dict) else None)
    for gid, outcomes in want.items():
        if None in outcomes:
            out.append(f"grasp {gid}: a result outside true/false/1/0 was accepted")
        elif sorted(got.get(gid, [])) != sorted(o for o in outcomes if o is not None):
            out.append(f"grasp {gid}: {len(outcomes)} records, outcomes {got.get(gid)}")
    if set(got) - set(want):
        out.append(f"labels for grasps no record names: {sorted(set(got) - set(want))[:3]}")
    return out


_COUNT = re.compile(r"^[0-9]+$")  # decimal digits (int() also takes '1_0', '+3' and other scripts)


def labels_csv_problems(labels: Mapping[str, object], data: bytes) -> list[str]:
    """Labels from a CSV (docs/batch.md): per grasp, one outcome per row of the result form
    (its cell true/false/1/0) or `trials` outcomes with `successes` of them True (decimal
    counts, 0 <= successes <= trials, trials > 0); each row holds as many cells as the header
    (a longer or shorter row is damaged); the total equals what the rows declare."""
    got, out = _label_totals(labels)
    parsed = csv_records(data)
    if parsed is None:
        return out
    header, records = parsed
    names = [h.strip().lower() for h in header]
    want: dict[str, list[bool]] = defaultdict(list)
    for k, values in enumerate(records):
        at = f"labels row {k + 1}"
        if len(values) != len(names):
            out.append(f"{at}: {len(values)} cells under a {len(names)}-column header, accepted")
            continue
        row = dict(zip(names, (v.strip() for v in values), strict=True))
        gid = row.get("grasp_id", "")
        if row.get("result", "") != "":
            o = _outcome(row["result"])
            if o is None:
                out.append(f"{at}: result {row['result']!r:.30} accepted")
            else:
                want[gid].append(o)
            continue
        s, n = row.get("successes", ""), row.get("trials", "")
        if not (_COUNT.match(s) and _COUNT.match(n)) or not 0 <= int(s) <= int(n) or int(n) == 0:
            out.append(f"{at}: successes {s!r:.20} of trials {n!r:.20} accepted")
            continue
        want[gid] += [True] * int(s) + [False] * (int(n) - int(s))
    if not out:
        for gid in set(got) | set(want):
            if sorted(got.get(gid, [])) != sorted(want.get(gid, [])):
                out.append(f"grasp {gid!r:.30}: {len(got.get(gid, []))} outcomes "
                           f"({sum(got.get(gid, []))} successes), the file declares "
                           f"{len(want.get(gid, []))} ({sum(want.get(gid, []))})")  # fmt: skip
    return out


# --- results ------------------------------------------------------------------------------------

TRIAL_MODELS = ("ipc", "mujoco")
_TIMES = ("wall_time_s",)
_COUNTS = ("trial", "frames", "newton_iterations", "rollbacks")
_NUMBERS = ("grip_force_1", "grip_force_2", "psi1", "psi2", "lift_height", "min_lift_grip")


def results_rows_problems(rows: list[dict[str, str]], data: bytes) -> list[str]:
    """Rows of read_results: each one a whole record of the file (as many cells as its header),
    one row per task key."""
    out = []
    parsed = csv_records(data)
    if parsed is None:
        return out
    header = parsed[0]
    keys = Counter(r.get("task_key") for r in rows)
    if any(n > 1 for n in keys.values()):
        out.append("two rows share a task key")
    for r in rows:
        if list(r) != header:
            out.append(f"row {r.get('task_key')!r:.30}: columns {list(r)[:4]} are not the header's")
            break
    return out


def resume_problems(info: object, data: bytes) -> list[str]:
    """What resuming a results file found (ResultsStore.open's ResumeInfo): the finished keys
    are task keys of whole rows whose status is ok, never also counted as errors."""
    ok, errors = info.ok_keys, info.error_keys  # type: ignore[attr-defined]
    out = ["a key counted as finished and as an error"] if ok & errors else []
    full = csv_records(data if data.endswith(b"\n") else data[: data.rfind(b"\n") + 1])
    if full is None or not full[0]:
        return out
    header, records = full
    if "task_key" not in header or "status" not in header:
        return [*out, "a file without task_key and status columns resumed"]
    at_key, at_status = header.index("task_key"), header.index("status")
    whole_ok = {r[at_key] for r in records if len(r) == len(header) and r[at_status] == "ok"}
    if ok - whole_ok:
        out.append(f"keys {sorted(ok - whole_ok)[:3]} finished without a whole 'ok' row")
    return out


def predictions_problems(preds: list[object], rows: list[dict[str, str]]) -> list[str]:
    """Predictions from results rows (docs/batch.md, docs/simulating.md): per model and grasp,
    the mean of the 'ok' trial rows' success cells, each exactly true or false (IPC, MuJoCo),
    or the last 'ok' row's robustness cell, a number in [0, 1] or empty (analytic); a grasp
    without 'ok' rows predicted 0."""
    out = []
    for p in preds:
        for gid, q in p.robustness.items():  # type: ignore[attr-defined]
            at = f"model {p.model!r:.20} grasp {gid!r:.20}"  # type: ignore[attr-defined]
            if not (math.isfinite(q) and 0.0 <= q <= 1.0):
                out.append(f"{at}: robustness {q!r} outside [0, 1]")
                continue
            ok = [
                r for r in rows
                if (r.get("model", ""), r.get("config", ""), r.get("grasp_id", ""))
                == (p.model, p.config, gid) and r.get("status") == "ok"  # type: ignore[attr-defined]
            ]  # fmt: skip
            if not ok:
                continue
            if p.model in TRIAL_MODELS:  # type: ignore[attr-defined]
                cells = [r.get("success", "").strip().lower() for r in ok]
                if any(c not in ("true", "false") for c in cells):
                    out.append(f"{at}: success cells {cells[:3]} accepted")
                elif q != cells.count("true") / len(cells):
                    out.append(f"{at}: robustness {q}, the success cells give another")
            else:
                cell = ok[-1].get("robustness", "").strip()
                v = _number(cell) if cell else math.nan
                if cell and (v is None or (not math.isnan(v) and not 0 <= v <= 1)):
                    out.append(f"{at}: robustness cell {cell!r:.20} accepted")
                elif v is not None and not math.isnan(v) and q != v:
                    out.append(f"{at}: robustness {q}, its cell says {cell!r:.20}")
    return out


def trial_row_problems(result: object, row: Mapping[str, str]) -> list[str]:
    """A TrialResult read back from a results row (engine.io.results_csv): success the row's
    true/false (results rows write True/False; any case); times finite and >= 0, counts whole
    numbers >= 0, other numeric cells numbers (or empty / nan: not measured)."""
    at = f"row {row.get('task_key', '')!r:.30}"
    out = trial_result_problems(result, at)
    cell = row.get("success", "").strip().lower()
    if cell not in ("true", "false") or result.success != (cell == "true"):  # type: ignore[attr-defined]
        out.append(f"{at}: success cell {row.get('success')!r:.20} read as {result.success!r}")  # type: ignore[attr-defined]
    for name in (*_TIMES, *_COUNTS, *_NUMBERS):
        text = row.get(name, "").strip()
        if not text:
            continue
        v = _number(text)
        if v is None:
            out.append(f"{at}: {name} cell {text!r:.20} is not a number, accepted")
        elif name in _TIMES and not (math.isfinite(v) and v >= 0):
            out.append(f"{at}: {name} cell {text!r:.20} is not a time >= 0, accepted")
        elif name in _COUNTS and not _COUNT.match(text):
            out.append(f"{at}: {name} cell {text!r:.20} is not a count, accepted")
    return out
