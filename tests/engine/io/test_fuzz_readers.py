"""Property-based fuzzing of every file reader: generated and mutated inputs either load or raise
one of the project's errors (engine.errors.IpcGraspError) - never another exception, never a
hang (pytest-timeout bounds each test) - and what loads keeps the invariants a valid file
guarantees (tests/engine/io/fuzz_oracles.py: finite meshes with every face index in range and
a positive volume, header counts equal to the data, results and label cells of their type and
range, no REACH record counted twice, sessions within their parameter ranges with a positive
mass, frames matching their checksum). A returned value that breaks one is a silent
acceptance, and fails the property like a crash.

Quick profile (default): a few dozen deterministic examples per reader (derandomize=True), the
whole file in well under a minute. Long profile on demand: IPCGRASP_FUZZ_PROFILE=long (5,000
examples per test; IPCGRASP_FUZZ_EXAMPLES=N sets any other count), or
benchmarks/bench_fuzz.py, which runs the long profile case by case and writes the counts to
benchmarks/results/fuzz.md.
"""

from __future__ import annotations

import io
import json
import math
import os
import string
import tempfile
from collections.abc import Callable
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import trimesh
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.batch.grasp_table import read_grasp_table
from engine.batch.results_store import ResultsStore, read_results
from engine.errors import IpcGraspError
from engine.evaluation.labels import load_labels, predictions_from_rows
from engine.io.frames_npz import arrays_digest, load_frames
from engine.io.results_csv import trial_result_from_row
from engine.io.session import load_session, save_session
from engine.scene.object_mesh import load_object_mesh
from tests.engine.io import fuzz_oracles as oracle
from tests.engine.io.test_safe_write import _save_frames
from tests.engine.io.test_session_validation import make_session

PROFILES = {"quick": 40, "long": 5000}  # examples per test
EXAMPLES = int(
    os.environ.get("IPCGRASP_FUZZ_EXAMPLES")
    or PROFILES[os.environ.get("IPCGRASP_FUZZ_PROFILE", "quick")]
)
FUZZ = settings(
    max_examples=EXAMPLES,
    derandomize=True,  # the same cases on every run: CI stays stable
    deadline=None,  # timing is bounded by pytest-timeout, not per example (shared CI cores)
    database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
# A hang guard per test, not a benchmark: ~25 ms per example on a loaded 2-core machine.
pytestmark = pytest.mark.timeout(max(300, EXAMPLES // 5))


class SilentAcceptance(AssertionError):
    """A reader returned a value that breaks an invariant of a valid file."""


def case_summary(case: object, width: int = 160) -> str:
    """A short printable description of a fuzzed input."""
    text = repr(case)
    return text if len(text) <= width else f"{text[:width]}... ({len(text)} chars)"


def must_load_or_refuse(
    read: Callable[[], object],
    check: Callable[[object], list[str]] | None = None,
    case: object = None,
) -> None:
    """`read()` returns or raises IpcGraspError; anything else fails the property, and so does
    a returned value that `check` (an oracle of fuzz_oracles) finds breaking an invariant."""
    try:
        value = read()
    except IpcGraspError:
        return
    problems = check(value) if check is not None else []
    if problems:
        raise SilentAcceptance(f"silent acceptance: {'; '.join(problems)} (input: "
                               f"{case_summary(case)})")  # fmt: skip


# --- strategies ---------------------------------------------------------------------------------
NASTY_TEXT = [
    "", " ", "nan", "NaN", "inf", "-inf", "1e308", "-1e308", "1e-320", "-1", "0", "-0", "3",
    "1e999", "abc", "\0", "../../x", "/etc/passwd", "~", "cube", "cube:9", "cube:-1",
    "cube:99999999999", "x" * 300, "\ufeff", "\r\n", '"', ",", "true", "false", "[]", "{}",
]  # fmt: skip
cells = st.one_of(
    st.sampled_from(NASTY_TEXT),
    st.text(string.printable, max_size=12),
    st.floats(allow_nan=True, allow_infinity=True).map(repr),
    st.integers(min_value=-(10**20), max_value=10**20).map(str),
)
json_values = st.recursive(
    st.one_of(
        st.none(),
        st.booleans(),
        st.integers(min_value=-(10**30), max_value=10**30),
        st.floats(allow_nan=False, allow_infinity=False),
        st.sampled_from(NASTY_TEXT),
    ),
    lambda inner: st.one_of(
        st.lists(inner, max_size=5), st.dictionaries(st.sampled_from(NASTY_TEXT), inner, max_size=5)
    ),
    max_leaves=20,
)


def mutations(data: bytes) -> st.SearchStrategy[bytes]:
    """Truncations, byte flips, inserted junk and repeated slices of `data`."""
    n = len(data)

    def flip(args: tuple[int, int]) -> bytes:
        i, b = args
        return data[:i] + bytes([b]) + data[i + 1 :]

    return st.one_of(
        st.integers(0, n).map(lambda i: data[:i]),
        st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, 255)).map(flip),
        st.tuples(st.integers(0, n), st.binary(max_size=64)).map(
            lambda a: data[: a[0]] + a[1] + data[a[0] :]
        ),
        st.lists(st.tuples(st.integers(0, max(n - 1, 0)), st.integers(0, 255)), max_size=20).map(
            lambda fl: _flip_many(data, fl)
        ),
        st.binary(max_size=256),
    )


def _flip_many(data: bytes, flips: list[tuple[int, int]]) -> bytes:
    b = bytearray(data)
    for i, v in flips:
        if i < len(b):
            b[i] = v
    return bytes(b)


@pytest.fixture(scope="module")
def folder():
    with tempfile.TemporaryDirectory() as d:
        yield Path(d)


# --- sessions -----------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def session_files(folder):
    json_path, npz_path = save_session(folder / "orig", make_session())
    return json.loads(json_path.read_text()), npz_path.read_bytes()


def _set_path(doc: object, path: list[object], value: object) -> object:
    """`doc` with the item at `path` (keys / indices, as far as they exist) replaced."""
    if not path:
        return value
    key = path[0]
    if isinstance(doc, dict) and doc:
        k = list(doc)[hash(key) % len(doc)] if key not in doc else key
        return {**doc, k: _set_path(doc[k], path[1:], value)}
    if isinstance(doc, list) and doc:
        i = hash(key) % len(doc)
        return [*doc[:i], _set_path(doc[i], path[1:], value), *doc[i + 1 :]]
    return value


@FUZZ
@given(st.lists(st.sampled_from(["object", "grasp", "params", "trials", "results", 0, 1, "x"]),
                max_size=4), json_values)  # fmt: skip
def test_session_json_mutations(folder, session_files, path, value):
    doc, npz = session_files
    (folder / "s.ipcgrasp.npz").write_bytes(npz)
    (folder / "s.ipcgrasp.json").write_text(json.dumps(_set_path(doc, path, value)))
    must_load_or_refuse(
        lambda: load_session(folder / "s.ipcgrasp.json"), oracle.session_problems, (path, value)
    )


ABSURD = [0, -1, 1e300, -1e300, 1e-300, -1e-300, 5e-324, "NaN", "Infinity", "-Infinity", None,
          True, 10**30, 0.5, 1, 3, 1e6, -0.0]  # fmt: skip
absurd_numbers = st.sampled_from(ABSURD) | st.floats(allow_nan=False, allow_infinity=False)
_RESULT_NUMBERS = ["psi1_j", "grip_force1_n", "grip_force2_n", "lift_height_m", "wall_time_s",
                   "min_lift_grip_n", "frames", "newton_iterations", "rollbacks"]  # fmt: skip
saved_results = st.fixed_dictionaries(
    {"trial": st.sampled_from([1, 0, -1, 2.0]), "success": st.sampled_from([True, False, "yes", 1]),
     "reason": st.just("lifted")},
    optional={k: absurd_numbers for k in _RESULT_NUMBERS},
)  # fmt: skip


def _session_fields(doc: dict) -> list[tuple[object, ...]]:
    """The paths of a session's number fields (object, grasp, params, trials, a pose)."""
    return [
        ("object", "density_kg_m3"), ("object", "stable_pose"), ("grasp", "approach_angle_rad"),
        *(("grasp", v, i) for v in ("center", "axis") for i in range(3)),
        *(("params", k) for k in doc["params"]), *(("trials", k) for k in doc["trials"]),
        ("results", 0, "gripper_pose", 2, 3), ("results", 0, "gripper_pose", 0, 0),
    ]  # fmt: skip


def _with(doc: object, path: tuple[object, ...], value: object) -> object:
    """A copy of `doc` with the item at `path` replaced by `value`."""
    if not path:
        return value
    copy = list(doc) if isinstance(doc, list) else dict(doc)  # type: ignore[call-overload]
    copy[path[0]] = _with(copy[path[0]], path[1:], value)
    return copy


@FUZZ
@given(st.data(), absurd_numbers, st.booleans())
def test_session_fields(folder, session_files, data, value, as_result):
    """Absurd numbers in a session's fields (a density of 1e300, a time step of 1e-300, a
    negative force in a saved result): refused, or within the field's range."""
    doc, npz = session_files
    if as_result:
        path: tuple[object, ...] = ("results", 1, "result")
        value = data.draw(saved_results)
    else:
        path = data.draw(st.sampled_from(_session_fields(doc)))
    (folder / "v.ipcgrasp.npz").write_bytes(npz)
    edited = _with(doc, path, value) | {"frames_file": "v.ipcgrasp.npz"}
    (folder / "v.ipcgrasp.json").write_text(json.dumps(edited))
    must_load_or_refuse(
        lambda: load_session(folder / "v.ipcgrasp.json"), oracle.session_problems, (path, value)
    )


@FUZZ
@given(st.data())
def test_session_arrays_mutations(folder, session_files, data):
    doc, npz = session_files
    (folder / "m.ipcgrasp.npz").write_bytes(data.draw(mutations(npz)))
    keep_hash = data.draw(st.booleans())
    (folder / "m.ipcgrasp.json").write_text(
        json.dumps({**doc, "frames_file": "m.ipcgrasp.npz"}
                   | ({} if keep_hash else {"frames_sha256": ""}))
    )  # fmt: skip
    must_load_or_refuse(
        lambda: load_session(folder / "m.ipcgrasp.json"),
        oracle.session_problems,
        (folder / "m.ipcgrasp.npz").read_bytes(),
    )


MESH_EDITS = ["reverse_all", "reverse_one", "index_past_end", "index_negative", "nan_vertex",
              "scale", "drop_face", "duplicate_face", "duplicate_vertex", "move_vertex"]  # fmt: skip


@FUZZ
@given(
    st.lists(st.tuples(st.sampled_from(MESH_EDITS), st.integers(0, 50),
                       st.sampled_from([1e-9, 1e-3, 0.5, 10.0, 1e6, -1.0, 1e300])),
             min_size=1, max_size=3),
)  # fmt: skip
def test_session_embedded_mesh(folder, session_files, edits):
    """A session's embedded mesh (used when the object file is gone) edited as a damaged or
    hand-made file could be: inside out (a negative mass), a face past the vertices, a NaN,
    scaled, holes, copies; the arrays file written again without its hash. Loads only as a
    solid with a positive, finite mass."""
    doc, npz = session_files
    arrays = _arrays_of(npz)
    v = arrays["object_vertices"].copy()
    f = arrays["object_faces"].copy()
    for op, i, x in edits:
        k = i % len(f)
        if op == "reverse_all":
            f = f[:, ::-1].copy()
        elif op == "reverse_one":
            f[k] = f[k][::-1]
        elif op == "index_past_end":
            f[k, i % 3] = len(v) + i % 3
        elif op == "index_negative":
            f[k, i % 3] = -1 - i % 3
        elif op == "nan_vertex":
            v[i % len(v), i % 3] = math.nan
        elif op == "scale":
            with np.errstate(over="ignore"):
                v = v * x
        elif op == "drop_face":
            f = np.delete(f, k, axis=0)
        elif op == "duplicate_face":
            f = np.vstack([f, f[k : k + 1]])
        elif op == "duplicate_vertex":
            v = np.vstack([v, v[i % len(v) : i % len(v) + 1]])
        else:
            v[i % len(v)] = v[i % len(v)] * (1 + x)
    arrays["object_vertices"], arrays["object_faces"] = v, f
    with open(folder / "e.ipcgrasp.npz", "wb") as out:
        np.savez_compressed(out, **arrays)
    edited = {**doc, "frames_file": "e.ipcgrasp.npz", "frames_sha256": ""}
    (folder / "e.ipcgrasp.json").write_text(json.dumps(edited))
    must_load_or_refuse(
        lambda: load_session(folder / "e.ipcgrasp.json"), oracle.session_problems, edits
    )


@FUZZ
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_session_json_bytes(folder, raw):
    (folder / "b.ipcgrasp.json").write_bytes(raw)
    must_load_or_refuse(
        lambda: load_session(folder / "b.ipcgrasp.json"), oracle.session_problems, raw
    )


# --- frames files -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def frames_bytes(folder):
    return _save_frames(folder / "orig_frames.npz").read_bytes()


@FUZZ
@given(st.data())
def test_frames_file_mutations(folder, frames_bytes, data):
    p = folder / "f.npz"
    raw = data.draw(mutations(frames_bytes))
    p.write_bytes(raw)
    must_load_or_refuse(lambda: load_frames(p), lambda v: oracle.frames_problems(*v), raw)


def _arrays_of(npz: bytes) -> dict[str, np.ndarray]:
    with np.load(io.BytesIO(npz), allow_pickle=False) as data:
        return {k: data[k] for k in data.files}


@FUZZ
@given(st.data(), st.sampled_from([math.nan, math.inf, -1.0, 1e300, 7.0, 0.0, 0.5]), st.booleans())
def test_frames_file_values(folder, frames_bytes, data, value, rewritten):
    """One value of a frames file changed and the zip written again (its CRCs valid: a file
    edited, or damaged before it was zipped), the checksum in meta recomputed (`rewritten`:
    a file written with that value) or kept: loads only when it still holds what was written,
    or, rewritten, values a frames file may hold."""
    arrays = _arrays_of(frames_bytes)
    meta = json.loads(str(arrays["meta"]))
    name = data.draw(st.sampled_from(sorted(k for k in arrays if k != "meta")))
    target = arrays[name].copy()
    if target.size:
        flat = target.reshape(-1)
        at = data.draw(st.integers(0, flat.size - 1))
        cast = value if target.dtype.kind == "f" else (int(value) if math.isfinite(value) and
                                                       abs(value) < 100 else 99)  # fmt: skip
        with np.errstate(over="ignore"):  # 1e300 in a float32 array is inf
            flat[at] = np.asarray(cast).astype(flat.dtype)
    arrays[name] = target
    if rewritten:
        meta["arrays_sha256"] = arrays_digest({k: a for k, a in arrays.items() if k != "meta"})
    arrays["meta"] = np.array(json.dumps(meta))
    p = folder / "v.npz"
    with open(p, "wb") as f:
        np.savez_compressed(f, **arrays)
    must_load_or_refuse(
        lambda: load_frames(p), lambda v: oracle.frames_problems(*v), (name, value, rewritten)
    )


# --- grasp tables (CSV, REACH JSON) -------------------------------------------------------------
HEADER = ["grasp_id", "object", "center_x", "center_y", "center_z", "axis_x", "axis_y", "axis_z"]
OPTIONAL = ["approach_angle", "unit", "mass", "density", "stable_pose", "E", "mu", "psi_th",
            "mu_ground", "psi_thh", "notes", ""]  # fmt: skip


def _csv_text(header: list[str], rows: list[list[str]], sep: str) -> str:
    def quote(c: str) -> str:
        return '"' + c.replace('"', '""') + '"' if any(ch in c for ch in ',"\r\n') else c

    return sep.join(",".join(quote(c) for c in r) for r in [header, *rows]) + sep


@FUZZ
@given(
    st.lists(st.sampled_from(OPTIONAL), max_size=3),
    st.lists(st.lists(cells, min_size=0, max_size=12), max_size=4),
    st.sampled_from(["\n", "\r\n"]),
    st.booleans(),
)
def test_grasp_csv(folder, extra, rows, sep, bom):
    header = HEADER + extra
    text = _csv_text(header, rows, sep)
    p = folder / "g.csv"
    raw = (b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8", "surrogatepass")
    p.write_bytes(raw)
    must_load_or_refuse(lambda: read_grasp_table(p, mesh_dir=folder), _table_check(raw), raw)


@FUZZ
@given(st.binary(max_size=400))
def test_grasp_table_bytes(folder, raw):
    p = folder / "raw.csv"
    p.write_bytes(raw)
    must_load_or_refuse(lambda: read_grasp_table(p), _table_check(raw), raw)


def _table_check(raw: bytes) -> Callable[[object], list[str]]:
    """The oracle of a grasp table read from `raw`: its CSV's, or its REACH records'."""

    def check(table: object) -> list[str]:
        if table.kind == "csv":  # type: ignore[attr-defined]
            return oracle.grasp_csv_problems(table, raw)
        return oracle.reach_table_problems(table, None)

    return check


POSE = [[1, 0, 0, 0], [0, 1, 0, 0], [0, 0, 1, 0.16], [0, 0, 0, 1]]
REACH_KEYS = ["obj", "attempt", "trial", "result", "grasp", "pose"]


@FUZZ
@given(
    st.lists(
        st.dictionaries(st.sampled_from(REACH_KEYS), json_values, max_size=6).map(
            lambda d: (
                {"obj": "cube_3cm", "attempt": 0, "grasp": POSE, "pose": POSE, "result": True} | d
            )
        )
        | json_values,
        max_size=4,
    )
    | json_values
)
def test_reach_json(folder, records):
    p = folder / "reach.json"
    p.write_text(json.dumps(records))
    must_load_or_refuse(
        lambda: read_grasp_table(p, mesh_dir=folder / "meshes"),
        lambda t: oracle.reach_table_problems(t, records),
        records,
    )
    must_load_or_refuse(
        lambda: load_labels([str(p)]), lambda v: oracle.reach_labels_problems(v, records), records
    )


# --- labels and results CSVs --------------------------------------------------------------------
@FUZZ
@given(
    st.sampled_from([["grasp_id", "result"], ["grasp_id", "successes", "trials"], ["x"], []]),
    st.lists(st.lists(cells, max_size=4), max_size=5),
    st.booleans(),
)
def test_labels_csv(folder, header, rows, bom):
    p = folder / "labels.csv"
    raw = (b"\xef\xbb\xbf" if bom else b"") + _csv_text(header, rows, "\n").encode()
    p.write_bytes(raw)
    must_load_or_refuse(
        lambda: load_labels([str(p)]), lambda v: oracle.labels_csv_problems(v, raw), raw
    )


LABEL_WORDS = ["true", "false", "1", "0", "yes", "n", "success", "TRUE", " 1 ", "maybe", "2",
               "", "-1", "1.0", "nan"]  # fmt: skip
LABEL_COUNTS = ["0", "1", "3", "5", " 2 ", "", "-1", "1_0", "+3", "3.0", "1e3", "\u0663", "x"]
label_cells = {
    "grasp_id": st.sampled_from(["g1", "g2", "a,b", "", " g1 "]),
    "result": st.sampled_from(LABEL_WORDS),
    "successes": st.sampled_from(LABEL_COUNTS),
    "trials": st.sampled_from(LABEL_COUNTS),
}


@FUZZ
@given(
    st.sampled_from([["grasp_id", "result"], ["grasp_id", "successes", "trials"],
                     ["grasp_id", "result", "successes", "trials"]]),
    st.data(),
)  # fmt: skip
def test_labels_cells(folder, header, data):
    """Labels CSVs of plausible rows: outcome words, counts (negative, '1_0', '3.0', '1e3', an
    Arabic-Indic 3), a cell too many or too few: every file that loads holds exactly the
    trials its rows declare, each outcome a bool."""
    rows = data.draw(
        st.lists(
            st.tuples(st.fixed_dictionaries({c: label_cells[c] for c in header}),
                      st.sampled_from([0, 0, 0, 1, -1])),
            min_size=1, max_size=5,
        )
    )  # fmt: skip
    cells = [[r[c] for c in header] + (["x"] if extra > 0 else []) for r, extra in rows]
    cells = [c[:-1] if extra < 0 else c for c, (_, extra) in zip(cells, rows, strict=True)]
    raw = _csv_text(header, cells, "\n").encode()
    p = folder / "cells_labels.csv"
    p.write_bytes(raw)
    must_load_or_refuse(
        lambda: load_labels([str(p)]), lambda v: oracle.labels_csv_problems(v, raw), raw
    )


@FUZZ
@given(
    st.sampled_from([["task_key", "status", "model", "grasp_id"], ["task_key"], ["a", "b"]]),
    st.lists(st.lists(cells, max_size=5), max_size=5),
    st.booleans(),
    st.booleans(),
)
def test_results_csv(folder, header, rows, bom, cut):
    text = _csv_text(header, rows, "\n")
    if cut:
        text = text[: len(text) // 2]
    p = folder / "results.csv"
    raw = (b"\xef\xbb\xbf" if bom else b"") + text.encode()
    p.write_bytes(raw)
    must_load_or_refuse(
        lambda: read_results([p]), lambda rows: oracle.results_rows_problems(rows, raw), raw
    )

    def resume() -> object:
        with ResultsStore(p, header or ["task_key", "status"]) as store:
            return store.info

    must_load_or_refuse(resume, lambda info: oracle.resume_problems(info, raw), raw)


# --- meshes -------------------------------------------------------------------------------------
CUBE_OBJ = (
    b"v -1 -1 -1\nv -1 -1 1\nv -1 1 -1\nv -1 1 1\nv 1 -1 -1\nv 1 -1 1\nv 1 1 -1\nv 1 1 1\n"
    b"f 1 2 4\nf 1 4 3\nf 5 7 8\nf 5 8 6\nf 1 5 6\nf 1 6 2\nf 3 4 8\nf 3 8 7\nf 1 3 7\n"
    b"f 1 7 5\nf 2 6 8\nf 2 8 4\n"
)


@FUZZ
@given(st.data(), st.sampled_from([".obj", ".stl", ".off", ".ply"]))
def test_mesh_files(folder, data, ext):
    p = folder / f"m{ext}"
    raw = data.draw(mutations(CUBE_OBJ))
    p.write_bytes(raw)
    must_load_or_refuse(
        lambda: load_object_mesh(p, unit="cm"),
        lambda m: oracle.object_mesh_problems(m, raw, ext),
        (ext, raw),
    )


@FUZZ
@given(
    st.lists(
        st.tuples(*[(st.floats(-1e6, 1e6) | st.just(float("nan")))] * 3), min_size=0, max_size=12
    ),
    st.lists(st.tuples(*[st.integers(-3, 14)] * 3), max_size=20),
)
def test_mesh_obj_structure(folder, vertices, faces):
    text = "".join(f"v {x} {y} {z}\n" for x, y, z in vertices)
    text += "".join(f"f {a} {b} {c}\n" for a, b, c in faces)
    p = folder / "s.obj"
    p.write_text(text)
    must_load_or_refuse(
        lambda: load_object_mesh(p),
        lambda m: oracle.object_mesh_problems(m, text.encode(), ".obj"),
        text,
    )


@cache
def mesh_seeds() -> dict[str, bytes]:
    """A 3 cm cube (in cm) in every format the loader reads, as trimesh writes it: the seeds
    the format tests mutate. Keys: the file extension, with '@binary' / '@ascii' variants."""
    box = trimesh.creation.box(extents=(3.0, 3.0, 3.0))

    def as_bytes(data: str | bytes) -> bytes:
        return data.encode() if isinstance(data, str) else data

    return {
        ".obj": as_bytes(box.export(file_type="obj")),
        ".off": as_bytes(box.export(file_type="off")),
        ".ply@ascii": as_bytes(box.export(file_type="ply", encoding="ascii")),
        ".ply@binary": as_bytes(box.export(file_type="ply")),
        ".stl@binary": as_bytes(box.export(file_type="stl")),
        ".stl@ascii": as_bytes(box.export(file_type="stl_ascii")),
        ".glb": as_bytes(box.export(file_type="glb")),
    }


@FUZZ
@given(st.data(), st.sampled_from(sorted(mesh_seeds())))
def test_mesh_formats(folder, data, fmt):
    ext = fmt.split("@")[0]
    raw = data.draw(mutations(mesh_seeds()[fmt]))
    p = folder / f"f{ext}"
    p.write_bytes(raw)
    must_load_or_refuse(
        lambda: load_object_mesh(p, unit="cm"),
        lambda m: oracle.object_mesh_problems(m, raw, ext),
        (fmt, raw),
    )


def _element_lines(fmt: str) -> tuple[list[str], list[str]]:
    """The seed's vertex and face lines (OFF, ASCII PLY or OBJ)."""
    text = mesh_seeds()[fmt].decode()
    if fmt == ".obj":
        lines = text.splitlines()
        return [x for x in lines if x.startswith("v ")], [x for x in lines if x.startswith("f ")]
    body = text.split("end_header\n")[1] if fmt.startswith(".ply") else text.split("\n", 2)[2]
    lines = [ln for ln in body.splitlines() if ln.strip()]
    return lines[:8], lines[8:]


@FUZZ
@given(
    st.sampled_from([".off", ".ply@ascii", ".obj"]),
    st.integers(-2, 2),  # declared vertices - present
    st.integers(-2, 2),  # declared faces - present
    st.lists(st.tuples(st.sampled_from(["drop_v", "dup_v", "drop_f", "dup_f", "index"]),
                       st.integers(0, 30), st.integers(-2, 10)), max_size=3),
)  # fmt: skip
def test_mesh_header_counts(folder, fmt, dv, df, edits):
    """OFF and ASCII PLY cubes whose header counts and element lines are edited apart, and OBJ
    cubes with vertex lines dropped or repeated and face indices changed (0, negative, past
    the end): every file that loads must hold the elements its header declares, each face
    naming a vertex that exists."""
    verts, faces = _element_lines(fmt)
    for op, i, value in edits:
        target = verts if op.endswith("_v") else faces
        k = i % len(target) if target else 0
        if op.startswith("drop") and target:
            del target[k]
        elif op.startswith("dup") and target:
            target.insert(k, target[k])
        elif op == "index" and faces:
            parts = faces[k].split()
            parts[1 + i % 3] = str(value)
            faces[k] = " ".join(parts)
    nv, nf = max(0, len(verts) + dv), max(0, len(faces) + df)
    if fmt == ".obj":
        text = ""
    elif fmt == ".off":
        text = f"OFF\n{nv} {nf} 0\n"
    else:
        text = (
            f"ply\nformat ascii 1.0\nelement vertex {nv}\nproperty float x\nproperty float y\n"
            f"property float z\nelement face {nf}\nproperty list uchar int vertex_indices\n"
            "end_header\n"
        )
    raw = (text + "\n".join(verts + faces) + "\n").encode()
    ext = fmt.split("@")[0]
    p = folder / f"h{ext}"
    p.write_bytes(raw)
    must_load_or_refuse(
        lambda: load_object_mesh(p, unit="cm"),
        lambda m: oracle.object_mesh_problems(m, raw, ext),
        raw.decode(),
    )


# --- results cells ------------------------------------------------------------------------------
RESULT_HEADER = ["task_key", "status", "model", "grasp_id", "trial", "config", "success",
                 "robustness", "grip_force_1", "wall_time_s", "frames"]  # fmt: skip
_RESULT_CELLS = {
    "task_key": st.sampled_from(["k1", "k2", "k3", "k4"]),
    "status": st.sampled_from(["ok", "ok", "error", "running", ""]),
    "model": st.sampled_from(["ipc", "mujoco", "soft_point", "reach", "6dfc", "other"]),
    "grasp_id": st.sampled_from(["g1", "g2"]),
    "trial": st.sampled_from(["0", "1", "2", "-1", "1.5", ""]),
    "config": st.sampled_from(["", "c"]),
    "success": st.sampled_from(["True", "False", "true", "yes", "no", "1", "0", "", "nan"]),
    "robustness": st.sampled_from(["0", "0.4", "1", "1.0", "5", "-0.1", "", "nan", "inf", "x"]),
    "grip_force_1": st.sampled_from(["2.5", "0", "-3", "inf", "nan", "", "abc"]),
    "wall_time_s": st.sampled_from(["1.2", "0", "-1", "nan", "inf", ""]),
    "frames": st.sampled_from(["10", "0", "-4", "3.7", "", "1e3"]),
}
result_rows = st.lists(
    st.fixed_dictionaries({c: _RESULT_CELLS[c] | cells for c in RESULT_HEADER}), max_size=6
)


@FUZZ
@given(result_rows)
def test_results_cells(folder, rows):
    """A results CSV's cells as `evaluate` and the data-set browser read them: predictions and
    replayed trial results keep their type and range, or the row and column are refused."""
    text = _csv_text(RESULT_HEADER, [[r[c] for c in RESULT_HEADER] for r in rows], "\n")
    p = folder / "cells.csv"
    p.write_bytes(text.encode())
    read: list[list[dict[str, str]]] = []

    def read_rows() -> list[dict[str, str]]:
        read.append(read_results([p]))
        return read[0]

    must_load_or_refuse(read_rows, lambda v: oracle.results_rows_problems(v, text.encode()), text)
    if not read:
        return
    rows_read = read[0]
    must_load_or_refuse(
        lambda: predictions_from_rows(rows_read),
        lambda preds: oracle.predictions_problems(preds, rows_read),
        text,
    )
    for row in rows_read:
        if row.get("status") == "ok" and row.get("model") in oracle.TRIAL_MODELS:
            must_load_or_refuse(
                lambda row=row: trial_result_from_row(row),
                lambda r, row=row: oracle.trial_row_problems(r, row),
                row,
            )


def test_the_fuzzed_originals_load(folder, session_files, frames_bytes):
    """The unmutated inputs are valid, so the properties test real parsing, not only refusal."""
    (folder / "o.obj").write_bytes(CUBE_OBJ)
    assert len(load_object_mesh(folder / "o.obj", unit="cm").faces) == 12
    p = folder / "ok.npz"
    p.write_bytes(frames_bytes)
    assert load_frames(p)[0]["trials"] == [0]
    session = load_session(folder / "orig.ipcgrasp.json")
    assert np.isfinite(session.trials[0].gripper_pose).all()
    # The oracles find nothing wrong with valid files (else every case would be a finding).
    assert oracle.session_problems(session) == []
    assert oracle.frames_problems(*load_frames(p)) == []
    for fmt, raw in mesh_seeds().items():
        ext = fmt.split("@")[0]
        (folder / f"seed{ext}").write_bytes(raw)
        mesh = load_object_mesh(folder / f"seed{ext}", unit="cm")
        assert len(mesh.faces) == 12 and oracle.object_mesh_problems(mesh, raw, ext) == [], fmt
