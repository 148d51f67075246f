"""Session files round-trip (JSON + npz, no pickle) and fail with a useful message."""

from __future__ import annotations

import dataclasses
import json
import math
import shutil
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from engine.grasp.default_grasp import default_grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation, build_pad
from engine.grasp.trials import TrialSpec
from engine.gripper.pad_fields import PadFieldEvaluator, pad_displacement
from engine.io.session import (
    Session,
    SessionError,
    TrialRecord,
    load_session,
    resolve_object,
    save_session,
    session_paths,
)
from engine.io.vtk_series import write_vtk_series
from engine.scene.object_mesh import builtin_cube, load_object_mesh
from engine.scene.resting import rest_object


@pytest.fixture(scope="module")
def short_trial():
    """The first few squeeze frames of the default cube grasp (no lift: keeps the test short)."""
    obj = rest_object(builtin_cube())
    params = SimulationParams()
    pad = build_pad(params)
    grasp = default_grasp(obj, pad.outline)
    sim = GraspSimulation(obj, grasp.pose(), params, pad=pad)
    frames = []
    for f in sim.frames():
        frames.append(f)
        if len(frames) == 4:
            break
    return obj, params, pad, grasp, frames


def _session(obj, params, grasp, frames, pad, mesh=None, source="builtin:cube", sha=None):
    ev = PadFieldEvaluator(pad, params.youngs_modulus_pa, params.poisson_ratio)
    energy = [
        (ev.energy_density(f.pad_vertices[0]), ev.energy_density(f.pad_vertices[1])) for f in frames
    ]
    rec = TrialRecord(0, grasp.pose(), "cancelled", frames, energy, None)
    rec2 = TrialRecord(1, grasp.pose(), "queued")
    return Session(
        source,
        sha,
        None,
        0,
        obj.density_kg_m3,
        grasp,
        params,
        TrialSpec(2, 7),
        [rec, rec2],
        mesh=mesh or obj.mesh,
        object_name="cube",
        extras={"x": math.inf},
    )


def test_round_trip(tmp_path, short_trial):
    obj, params, pad, grasp, frames = short_trial
    s = _session(obj, params, grasp, frames, pad)
    json_path, npz_path = save_session(tmp_path / "study", s)
    assert json_path.name == "study.ipcgrasp.json" and npz_path.is_file()
    doc = json.loads(json_path.read_text())  # strict JSON: no NaN tokens
    assert doc["format"] == "ipcgrasp-session" and doc["extras"]["x"] == "Infinity"
    with np.load(npz_path, allow_pickle=False) as data:
        assert "t0/pad1" in data.files and "t0/energy2" in data.files
    back = load_session(npz_path)  # either file's path works
    assert back.params == params and back.spec == TrialSpec(2, 7)
    np.testing.assert_allclose(back.grasp.pose(), grasp.pose())
    assert [r.status for r in back.trials] == ["cancelled", "queued"]
    assert len(back.trials[0].frames) == 4 and back.trials[1].frames == []
    f0, g0 = frames[2], back.trials[0].frames[2]
    assert g0.phase == f0.phase and g0.psi_j == pytest.approx(f0.psi_j)
    np.testing.assert_allclose(g0.pad_vertices[1], f0.pad_vertices[1], atol=1e-7)
    assert g0.contacts == f0.contacts
    np.testing.assert_allclose(
        back.trials[0].energy_density[3][0], s.trials[0].energy_density[3][0], rtol=1e-6
    )
    mesh, note = resolve_object(back, json_path)
    assert note == "" and len(mesh.vertices) == 8


def test_per_frame_intersection_flag_survives_save_and_load(tmp_path, short_trial):
    """A frame the solver flagged as intersecting must not come back as intersection-free."""
    obj, params, pad, grasp, frames = short_trial
    flagged = [dataclasses.replace(f, intersection_free=(i != 2)) for i, f in enumerate(frames)]
    s = _session(obj, params, grasp, flagged, pad)
    json_path, npz_path = save_session(tmp_path / "flags", s)
    back = load_session(json_path)
    assert [f.intersection_free for f in back.trials[0].frames] == [True, True, False, True]

    # A session written before the per-frame array existed takes the trial result's flag.
    with np.load(npz_path, allow_pickle=False) as data:
        arrays = {k: data[k] for k in data.files if k != "t0/intersection_free"}
    np.savez_compressed(npz_path, **arrays)
    doc = json.loads(json_path.read_text())
    doc["results"][0]["result"] = {"trial": 0, "success": False, "reason": "x",
                                   "intersection_free": False}  # fmt: skip
    doc["frames_sha256"] = None
    json_path.write_text(json.dumps(doc))
    old = load_session(json_path)
    assert [f.intersection_free for f in old.trials[0].frames] == [False] * 4


def test_moved_mesh_falls_back_to_embedded_copy(tmp_path, short_trial):
    obj, params, pad, grasp, frames = short_trial
    src = tmp_path / "box.obj"
    obj.mesh.to_trimesh().export(src)
    mesh = load_object_mesh(src)
    s = _session(
        obj, params, grasp, frames[:1], pad, mesh=mesh, source=mesh.source, sha=mesh.sha256
    )
    json_path, _ = save_session(tmp_path / "s", s)
    assert resolve_object(load_session(json_path), json_path)[1] == ""
    src.write_text(src.read_text() + "\n# edited\n")
    got, note = resolve_object(load_session(json_path), json_path)
    assert "changed" in note and len(got.vertices) == len(mesh.vertices)
    # Moving the session folder keeps the relative path working.
    moved = tmp_path / "moved"
    moved.mkdir()
    src.unlink()
    for p in session_paths(json_path):
        shutil.move(p, moved / p.name)
    got, note = resolve_object(load_session(moved / json_path.name), moved / json_path.name)
    assert "embedded" in note


@pytest.mark.parametrize(
    ("content", "match"),
    [
        ("{not json", "not a readable"),
        ('{"format": "other"}', "not an ipcgrasp session"),
        ('{"format": "ipcgrasp-session", "version": 1}', "field 'object' must be an object"),
    ],
)
def test_broken_files_raise_session_error(tmp_path, content, match):
    p = tmp_path / "bad.ipcgrasp.json"
    p.write_text(content)
    with pytest.raises(SessionError, match=match):
        load_session(p)


def test_missing_session_file(tmp_path):
    with pytest.raises(SessionError, match="not found"):
        load_session(tmp_path / "nope.ipcgrasp.json")


def test_pad_fields_are_zero_at_rest_and_positive_when_squeezed(short_trial):
    _obj, params, pad, grasp, frames = short_trial
    ev = PadFieldEvaluator(pad, params.youngs_modulus_pa, params.poisson_ratio)
    np.testing.assert_allclose(ev.energy_density(pad.vertices), 0.0, atol=1e-9)
    last = frames[-1]
    d = pad_displacement(
        pad,
        last.pad_vertices,
        grasp.pose(),
        params.open_width_m,
        last.plate_travel_m,
        last.plate_lift_m,
    )
    assert d[0].shape == (len(pad.vertices),) and np.all(d[0] >= 0) and d[0].max() < 1e-4


def test_vtk_series_is_valid_xml(tmp_path, short_trial):
    obj, _params, pad, _grasp, frames = short_trial
    pvd = write_vtk_series(
        tmp_path / "out" / "trial0", frames, obj.vertices, obj.faces, pad.surface_faces
    )
    root = ET.parse(pvd).getroot()
    sets = root.findall("./Collection/DataSet")
    assert len(sets) == len(frames)
    first = ET.parse(pvd.parent / sets[0].get("file")).getroot()
    piece = first.find("./PolyData/Piece")
    n_points = len(obj.vertices) + 2 * len(pad.vertices)
    assert int(piece.get("NumberOfPoints")) == n_points
    coords = piece.find("./Points/DataArray").text.split()
    assert len(coords) == 3 * n_points
