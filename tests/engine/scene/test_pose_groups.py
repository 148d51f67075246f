"""Resting poses as a person tells them apart (engine.scene.pose_groups). Laws checked: a body of
revolution lying on its side is one pose whatever its roll (its 64 rolled facets merge, with
their probabilities summed, so "lying" outranks "standing"); a box rests the same on opposite
faces (6 poses, 3 heights); a cup upright and upside down have the same height and footprint
but not the same centre-of-mass height, so they stay apart; the pose keeping the file's +z up
is marked "as in the file"; indices stay those of stable_poses (what --stable-pose takes)."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from engine.scene.object_mesh import ObjectMesh, solid_from_arrays
from engine.scene.pose_groups import pose_groups
from engine.scene.resting import stable_poses


def _mesh(tm: trimesh.Trimesh, name: str) -> ObjectMesh:
    vertices, faces, repair = solid_from_arrays(tm.vertices, tm.faces, name, None, None)
    return ObjectMesh(
        vertices=vertices, faces=faces, name=name, source=name, sha256="", repair=repair
    )


@pytest.mark.parametrize("saved", ["standing", "lying"])
def test_a_bottle_lying_at_any_roll_is_one_pose(saved):
    bottle = trimesh.creation.cylinder(radius=0.03, height=0.2, sections=64)
    if saved == "lying":
        bottle.apply_transform(trimesh.transformations.rotation_matrix(np.pi / 2, [1, 0, 0]))
    mesh = _mesh(bottle, "bottle")
    poses = stable_poses(mesh)
    groups = pose_groups(mesh, poses)
    assert len(poses) > 60 and len(groups) == 2
    lying, standing = groups
    assert len(lying.members) == 64 and len(standing.members) == 2
    assert lying.probability == pytest.approx(sum(poses[i].probability for i in lying.members))
    assert lying.probability > 0.9 > standing.probability
    assert lying.height_m == pytest.approx(0.06, abs=1e-4)
    assert standing.height_m == pytest.approx(0.2, abs=1e-4)
    assert lying.footprint_m == pytest.approx((0.2, 0.06), abs=1e-3)
    for g in groups:  # the index asked for is the group's most probable member
        assert g.index == min(g.members, key=lambda i: (-poses[i].probability, i))
    assert standing.as_in_file == (saved == "standing") and not lying.as_in_file
    assert standing.description() == "200 mm high on a 60 x 60 mm footprint" + (
        ", as in the file" if saved == "standing" else ""
    )


def test_a_box_rests_alike_on_opposite_faces():
    mesh = _mesh(trimesh.creation.box(extents=(0.03, 0.02, 0.01)), "box")
    groups = pose_groups(mesh, stable_poses(mesh))
    assert sorted(round(1e3 * g.height_m) for g in groups) == [10, 20, 30]
    assert all(len(g.members) == 2 for g in groups)
    assert sum(g.probability for g in groups) == pytest.approx(1.0)


def test_a_cup_upright_and_upside_down_stay_two_poses():
    # An open cup: 80 mm high, 8 mm base, 3 mm wall: its centre of mass sits low.
    profile = [(0.0, 0.0), (0.04, 0.0), (0.04, 0.08), (0.037, 0.08), (0.037, 0.008), (0.0, 0.008)]
    cup = trimesh.creation.revolve(np.array(profile), sections=48)
    mesh = _mesh(cup, "cup")
    poses = stable_poses(mesh)
    groups = pose_groups(mesh, poses)
    tall = [g for g in groups if g.height_m == pytest.approx(0.08, abs=1e-4)]
    assert len(tall) == 2, [g.description() for g in groups]
    assert sum(g.as_in_file for g in tall) == 1


def test_ipcgrasp_poses_lists_the_groups_with_the_index_to_ask_for(tmp_path, capsys):
    from engine.cli.main import main

    bottle = trimesh.creation.cylinder(radius=0.03, height=0.2, sections=64)
    path = tmp_path / "bottle.stl"
    bottle.export(path)
    assert main(["poses", str(path)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "bottle: 2 resting poses (66 before merging look-alikes)"
    mesh = _mesh(bottle, "bottle")
    lying = pose_groups(mesh, stable_poses(mesh))[0]
    assert lines[2].split()[0] == str(lying.index)
    assert lines[2].endswith("60 mm high on a 200 x 60 mm footprint (merges 64 poses)")
    assert lines[3].endswith(
        "200 mm high on a 60 x 60 mm footprint, as in the file (merges 2 poses)"
    )
    assert main(["poses", str(path), "--json"]) == 0
    import json

    doc = json.loads(capsys.readouterr().out)
    assert [p["stable_pose"] for p in doc["poses"]] == [
        g.index for g in pose_groups(mesh, stable_poses(mesh))
    ]
