"""Property-based fuzzing of every file reader: generated and mutated inputs either load or raise
one of the project's errors (engine.errors.IpcGraspError) - never another exception, never a
hang (pytest-timeout bounds each test).

Quick profile (default): a few dozen deterministic examples per reader (derandomize=True), the
whole file in well under a minute. Long profile on demand: IPCGRASP_FUZZ_PROFILE=long (5,000
examples per test; IPCGRASP_FUZZ_EXAMPLES=N sets any other count), or
benchmarks/bench_fuzz.py, which runs the long profile case by case and writes the counts to
benchmarks/results/fuzz.md.
"""

from __future__ import annotations

import json
import os
import string
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.batch.grasp_table import read_grasp_table
from engine.batch.results_store import ResultsStore, read_results
from engine.errors import IpcGraspError
from engine.evaluation.labels import load_labels
from engine.io.frames_npz import load_frames
from engine.io.session import load_session, save_session
from engine.scene.object_mesh import load_object_mesh
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


def must_load_or_refuse(read: Callable[[], object]) -> None:
    """`read()` returns or raises IpcGraspError; anything else fails the property."""
    try:
        read()
    except IpcGraspError:
        pass


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
    must_load_or_refuse(lambda: load_session(folder / "s.ipcgrasp.json"))


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
    must_load_or_refuse(lambda: load_session(folder / "m.ipcgrasp.json"))


@FUZZ
@given(st.binary(max_size=300) | st.text(max_size=300).map(str.encode))
def test_session_json_bytes(folder, raw):
    (folder / "b.ipcgrasp.json").write_bytes(raw)
    must_load_or_refuse(lambda: load_session(folder / "b.ipcgrasp.json"))


# --- frames files -------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def frames_bytes(folder):
    return _save_frames(folder / "orig_frames.npz").read_bytes()


@FUZZ
@given(st.data())
def test_frames_file_mutations(folder, frames_bytes, data):
    p = folder / "f.npz"
    p.write_bytes(data.draw(mutations(frames_bytes)))
    must_load_or_refuse(lambda: load_frames(p))


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
    p.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode("utf-8", "surrogatepass"))
    must_load_or_refuse(lambda: read_grasp_table(p, mesh_dir=folder))


@FUZZ
@given(st.binary(max_size=400))
def test_grasp_table_bytes(folder, raw):
    p = folder / "raw.csv"
    p.write_bytes(raw)
    must_load_or_refuse(lambda: read_grasp_table(p))


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
    must_load_or_refuse(lambda: read_grasp_table(p, mesh_dir=folder / "meshes"))
    must_load_or_refuse(lambda: load_labels([str(p)]))


# --- labels and results CSVs --------------------------------------------------------------------
@FUZZ
@given(
    st.sampled_from([["grasp_id", "result"], ["grasp_id", "successes", "trials"], ["x"], []]),
    st.lists(st.lists(cells, max_size=4), max_size=5),
    st.booleans(),
)
def test_labels_csv(folder, header, rows, bom):
    p = folder / "labels.csv"
    p.write_bytes((b"\xef\xbb\xbf" if bom else b"") + _csv_text(header, rows, "\n").encode())
    must_load_or_refuse(lambda: load_labels([str(p)]))


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
    p.write_bytes((b"\xef\xbb\xbf" if bom else b"") + text.encode())
    must_load_or_refuse(lambda: read_results([p]))

    def resume() -> None:
        with ResultsStore(p, header or ["task_key", "status"]):
            pass

    must_load_or_refuse(resume)


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
    p.write_bytes(data.draw(mutations(CUBE_OBJ)))
    must_load_or_refuse(lambda: load_object_mesh(p, unit="cm"))


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
    must_load_or_refuse(lambda: load_object_mesh(p))


def test_the_fuzzed_originals_load(folder, session_files, frames_bytes):
    """The unmutated inputs are valid, so the properties test real parsing, not only refusal."""
    (folder / "o.obj").write_bytes(CUBE_OBJ)
    assert len(load_object_mesh(folder / "o.obj", unit="cm").faces) == 12
    p = folder / "ok.npz"
    p.write_bytes(frames_bytes)
    assert load_frames(p)[0]["trials"] == [0]
    assert np.isfinite(load_session(folder / "orig.ipcgrasp.json").trials[0].gripper_pose).all()
