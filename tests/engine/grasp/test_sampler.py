"""Grasp sampler: every candidate is antipodal within the friction cone, the open gripper is clear
of the object and the ground (checked here by the simulator's own checks and by points on the
gripper's boxes), candidates keep their distance, the same seed gives the same file, and the
CSV is the grasp table `batch` reads. Objects are generated here (never stored)."""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from engine.analytic.from_simulation import analytic_params_for
from engine.analytic.ranking import margin_ranker, soft_point_margins
from engine.batch.grasp_table import read_grasp_table
from engine.cli.main import main
from engine.errors import ParameterError
from engine.grasp.params import SimulationParams
from engine.grasp.sampler import (
    GraspCandidate,
    SamplerSettings,
    _triangles_hit_box,
    grasp_distance,
    gripper_boxes,
    sample_candidates,
    sample_grasps,
    settings_for,
)
from engine.grasp.trials import check_grasp
from engine.gripper.pad_geometry import pad_outline
from engine.scene.object_mesh import ObjectMesh
from engine.scene.resting import RestingObject, rest_object
from tests.engine import procedural_objects as po
from tests.engine.batch.conftest import fake_analytic

__all__ = ["fake_analytic"]  # the batch tests' fixture, used here too

PARAMS = SimulationParams()


def _rest(mesh: trimesh.Trimesh, pose: int = 0) -> RestingObject:
    om = ObjectMesh(np.asarray(mesh.vertices), np.asarray(mesh.faces), "obj", "generated", None)
    return rest_object(om, pose)


def _settings(params: SimulationParams = PARAMS, **kw: object) -> SamplerSettings:
    return settings_for(params.open_width_m, pad_outline(params.pad), params.mu, **kw)


def _box_surface_points(lo: np.ndarray, hi: np.ndarray, n: int = 6) -> np.ndarray:
    axes = [np.linspace(lo[i], hi[i], n) for i in range(3)]
    grid = np.stack(np.meshgrid(*axes, indexing="ij"), axis=-1).reshape(-1, 3)
    return grid


@pytest.mark.parametrize("name", ["l_bracket", "spool", "mug", "bar_clamp", "sphere_stack"])
def test_candidates_are_antipodal_and_the_open_gripper_is_clear(name):
    obj = _rest(po.ISSUE_OBJECTS[name]())
    settings = _settings()
    found = sample_grasps(obj, settings, 12, 3, margin_ranker(analytic_params_for(PARAMS)))
    assert len(found) == 12
    cone = math.atan(PARAMS.mu)
    mesh = trimesh.Trimesh(obj.vertices, obj.faces, process=False)
    boxes = gripper_boxes(settings.open_width_m, settings.outline, 0.0)
    for c in found:
        x = c.grasp.axis
        # Antipodal: the line between the contacts is the closing axis, inside both cones.
        assert np.allclose(np.cross(c.contact1 - c.contact0, x), 0.0, atol=1e-9)
        assert float(np.dot(c.contact1 - c.contact0, x)) > 0
        assert math.acos(float(np.clip(-np.dot(c.normal0, x), -1, 1))) <= cone + 1e-9
        assert math.acos(float(np.clip(np.dot(c.normal1, x), -1, 1))) <= cone + 1e-9
        assert c.width_m <= PARAMS.open_width_m - 2 * settings.clearance_m
        # The contacts lie on the surface and between the open pads.
        _, dist, _ = trimesh.proximity.closest_point(mesh, np.array([c.contact0, c.contact1]))
        assert dist.max() < 1e-7
        # The simulator accepts the nominal grasp (open jaws clear of the object by dhat, above
        # the ground, closing onto the object).
        check_grasp(obj, c.grasp, PARAMS)
        # No point of the gripper's boxes (pads, plates, fingers, palm) is in the object or
        # below the ground.
        pose = c.grasp.pose()
        pts = np.vstack([_box_surface_points(b[0], b[1]) for b in boxes])
        world = pts @ pose[:3, :3].T + pose[:3, 3]
        assert world[:, 2].min() > 0.0
        assert not mesh.contains(world).any()
    # Qualities are Soft Point margins, best first.
    q = [c.quality for c in found]
    assert q == sorted(q, reverse=True) and all(np.isfinite(q))
    assert q == pytest.approx(soft_point_margins(obj, found, analytic_params_for(PARAMS)))


def test_several_approaches_per_axis_including_tilted_and_side():
    obj = _rest(po.sphere_stack())
    found = sample_grasps(obj, _settings(), 60, 0)
    tilt = [math.degrees(math.acos(-float(c.grasp.pose()[2, 2]))) for c in found]
    assert min(tilt) < 30  # from above
    assert any(60 < t < 120 for t in tilt)  # from the side
    assert any(30 <= t <= 60 for t in tilt)  # tilted


def test_candidates_keep_the_minimum_distance():
    obj = _rest(po.mug())
    for distance in (0.005, 0.02):
        found = sample_grasps(obj, _settings(min_distance_m=distance), 40, 1)
        assert len(found) >= 10
        for i, a in enumerate(found):
            for b in found[i + 1 :]:
                assert grasp_distance(a.grasp, b.grasp) >= distance - 1e-12
    close = sample_grasps(obj, _settings(min_distance_m=0.0), 40, 1)
    assert len(close) == 40


def test_the_same_seed_gives_the_same_candidates_and_another_seed_others():
    obj = _rest(po.sphere_stack())
    s = _settings()

    def key(cands: list[GraspCandidate]) -> list[tuple]:
        return [(*c.grasp.center.round(12), *c.grasp.axis.round(12), c.grasp.approach_angle_rad)
                for c in cands]  # fmt: skip

    a, b = sample_candidates(obj, s, 20, 7), sample_candidates(obj, s, 20, 7)
    assert key(a) == key(b)
    assert key(sample_candidates(obj, s, 20, 8)) != key(a)


def test_the_resting_pose_is_respected():
    bracket = po.l_bracket()
    for pose in (0, 2):
        obj = _rest(bracket, pose)
        for c in sample_grasps(obj, _settings(), 6, 0):
            check_grasp(obj, c.grasp, PARAMS)  # in this pose's resting frame


def test_a_wide_flat_plate_has_no_grasp_for_the_yumi_but_for_the_franka():
    obj = _rest(po.flat_plate())
    assert sample_grasps(obj, _settings(), 5, 0) == []
    franka = SimulationParams.for_gripper("franka_hand")
    found = sample_grasps(obj, _settings(franka), 5, 0)
    assert found
    check_grasp(obj, found[0].grasp, franka)


def test_fingertips_over_the_ground_move_the_grasp_back_along_the_approach():
    obj = _rest(po.bar_clamp())  # 10 mm thick, lying flat
    found = sample_grasps(obj, _settings(), 10, 0)
    assert found
    for c in found:
        # The jaw centre sits above the contacts' midpoint: the pad tips clear the ground.
        assert c.grasp.center[2] > 0.5 * (c.contact0 + c.contact1)[2] + 1e-4
        check_grasp(obj, c.grasp, PARAMS)


def test_triangle_box_test_agrees_with_dense_point_sampling():
    rng = np.random.default_rng(0)
    lo, hi = np.array([-1.0, -0.5, -0.2]), np.array([1.0, 0.5, 0.2])
    tris = rng.uniform(-1.6, 1.6, (400, 3, 3)) * np.array([1.0, 0.8, 0.6])
    hit = _triangles_hit_box(tris, lo, hi)
    w = rng.random((4000, 2))
    w[w.sum(axis=1) > 1] = 1 - w[w.sum(axis=1) > 1]
    for t, h in zip(tris, hit, strict=True):
        pts = t[0] + w[:, :1] * (t[1] - t[0]) + w[:, 1:] * (t[2] - t[0])
        sampled = bool(np.all((pts >= lo) & (pts <= hi), axis=1).any())
        if sampled:
            assert h  # a point of the triangle is in the box
    # A triangle that slices through the box without a corner inside it.
    big = np.array([[[-5.0, -5.0, 0.0], [5.0, -5.0, 0.0], [0.0, 5.0, 0.0]]])
    assert _triangles_hit_box(big, lo, hi)[0]
    assert not _triangles_hit_box(big + np.array([0.0, 0.0, 0.3]), lo, hi)[0]


def test_the_compiled_box_test_answers_as_the_check_or_leaves_the_face_to_it():
    """engine.scene.box_faces sorts a triangle near a box as apart, meeting, or too close to
    call: apart and meeting are always what _triangles_hit_box answers, and only triangles
    within a hair of the box are left to it. Random triangles around a box, and triangles
    touching it or a hair (1e-12 m) off it."""
    from engine.scene.box_faces import _separation

    rng = np.random.default_rng(4)
    lo, hi = np.array([-0.02, -0.01, -0.004]), np.array([0.02, 0.01, 0.004])
    tris = list(rng.uniform(-0.04, 0.04, (3000, 3, 3)))
    for gap in (0.0, 1e-12):  # a corner on a face of the box or a hair off, the rest outside
        for _ in range(300):
            t = rng.uniform(-0.04, 0.04, (3, 3))
            t[0] = rng.uniform(lo, hi)
            a = rng.integers(3)
            t[0, a] = hi[a] + gap
            t[1:, a] = hi[a] + gap + rng.uniform(0.0, 0.01, 2)
            tris.append(t)
    tris = np.asarray(tris)
    exact = _triangles_hit_box(tris, lo, hi)
    centre, half = 0.5 * (lo + hi), 0.5 * (hi - lo)
    states = np.array([_separation(t - centre, half, 1e-9) for t in tris])
    assert np.all(exact[states == 1]) and not np.any(exact[states == 0])
    assert (states == 1).sum() > 100 and (states == 0).sum() > 1000
    assert (states == 2).sum() <= 600  # left to the check: the touching ones at most


@pytest.mark.parametrize("name", ["mug", "bar_clamp"])
def test_the_open_gripper_check_finds_what_testing_every_face_finds(name):
    """The check tries against each box only the faces whose centres lie within the box's
    bounding ball grown by the largest face radius (a k-d tree): the answer is the one of
    testing every face against every box (the check before, restated here), over poses at
    and around the object, clear, touching and through it."""
    from engine.grasp.grasp import Grasp
    from engine.grasp.sampler import _OpenGripperCheck

    obj = _rest(po.ISSUE_OBJECTS[name]())
    check = _OpenGripperCheck(obj, _settings())
    tri_all = np.asarray(obj.vertices)[np.asarray(obj.faces)]

    def every_face(pose: np.ndarray) -> str:
        rot, t = pose[:3, :3], pose[:3, 3]
        if float((check.corners @ rot.T + t)[..., 2].min()) < check.clearance:
            return "ground"
        tri = (tri_all - t) @ rot
        hits = any(_triangles_hit_box(tri, box[0], box[1]).any() for box in check.boxes)
        return "object" if hits else ""

    rng = np.random.default_rng(1)
    v = np.asarray(obj.vertices)
    answers = []
    for _ in range(300):
        centre = v[rng.integers(len(v))] + rng.normal(scale=0.01, size=3) + [0.0, 0.0, 0.02]
        axis = rng.normal(size=3) * [1.0, 1.0, 0.2]
        pose = Grasp(centre, axis / np.linalg.norm(axis), float(rng.uniform(-0.6, 0.6))).pose()
        answers.append(check.reason(pose))
        assert answers[-1] == every_face(pose)
    assert {"", "object", "ground"} <= set(answers)


@pytest.mark.parametrize(
    ("kw", "match"),
    [
        ({"mu": -0.1}, "mu"),
        ({"approach_angles": 0}, "approach_angles"),
        ({"open_width_m": 0.001}, "no room"),
    ],
)
def test_bad_settings_are_refused(kw, match):
    base = {"open_width_m": 0.05, "outline": pad_outline("rounded"), "mu": 0.4}
    with pytest.raises(ParameterError, match=match):
        SamplerSettings(**{**base, **kw}).validate()


def test_cli_writes_the_batch_grasp_table_and_the_same_seed_gives_the_same_file(tmp_path, capsys):
    mesh = po.write_obj(*po.damaged(po.mug(), seed=3, hole=False), tmp_path / "mug.obj")
    a, b, c = tmp_path / "a.csv", tmp_path / "b.csv", tmp_path / "c.csv"
    assert main(["sample", str(mesh), "--n", "15", "--out", str(a), "--seed", "4"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("15 grasps of mug in stable pose 0 for the ABB YuMi")
    assert "repaired on load: merged 30 duplicate vertices" in out
    assert main(["sample", str(mesh), "--n", "15", "--out", str(b), "--seed", "4"]) == 0
    assert a.read_bytes() == b.read_bytes()
    assert main(["sample", str(mesh), "--n", "15", "--out", str(c), "--seed", "5"]) == 0
    assert a.read_bytes() != c.read_bytes()
    table = read_grasp_table(a)
    assert len(table.grasps) == 15 and not table.errors and not table.warnings
    g = table.grasps[0]
    assert g.object == str(mesh.resolve()) and g.grasp_id == "mug_s4_00"
    assert main(["sample", str(mesh), "--n", "15", "--out", str(a)]) == 2  # exists: --force
    assert "--force" in capsys.readouterr().err


def test_cli_grippers_use_their_stroke_and_name_one_that_fits(tmp_path, capsys):
    plate = po.write_obj(*(np.asarray(x) for x in (po.flat_plate().vertices, po.flat_plate().faces)),
                         tmp_path / "plate.obj")  # fmt: skip
    out = tmp_path / "g.csv"
    assert main(["sample", str(plate), "--n", "5", "--out", str(out)]) == 2
    err = capsys.readouterr().err
    assert "no grasp fits the ABB YuMi smart gripper's 50 mm opening" in err
    assert "--gripper franka_hand (Franka Hand, 80 mm)" in err
    assert not out.exists()
    assert main(["sample", str(plate), "--n", "5", "--out", str(out), "--gripper",
                 "franka_hand"]) == 0  # fmt: skip
    obj = _rest(po.flat_plate())
    franka = SimulationParams.for_gripper("franka_hand")
    for spec in read_grasp_table(out).grasps:
        from engine.grasp.grasp import Grasp

        check_grasp(obj, Grasp(spec.center, spec.axis, spec.approach_angle_rad), franka)


def test_batch_runs_the_sampled_table(tmp_path, fake_analytic):
    grasps = tmp_path / "g.csv"
    assert main(["sample", "cube", "--n", "4", "--out", str(grasps)]) == 0
    out = tmp_path / "r.csv"
    assert main(["batch", str(grasps), "--out", str(out), "--models", "reach", "--workers", "0",
                 "--quiet"]) == 0  # fmt: skip
    from tests.engine.batch.conftest import read_rows

    rows = read_rows(out)
    assert [r["status"] for r in rows] == ["ok"] * 4
    assert rows[0]["grasp_id"] == "cube_s0_0"
