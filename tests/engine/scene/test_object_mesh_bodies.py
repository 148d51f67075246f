"""Object meshes: overlapping bodies of one object are merged by a boolean union (its volume
counts the overlap once: two 3 cm cubes offset by 1 cm along each axis are 54 - 8 = 46 cm^3),
inner shells and unusable paths are refused with the count and the fix, separate bodies need a
choice; one solid loads with the right volume."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from engine.errors import IpcGraspError, MeshError
from engine.scene.mesh_repair import MeshRepair
from engine.scene.object_mesh import load_object_mesh, object_from_spec


def _box(size: float, center: tuple[float, float, float], inward: bool = False) -> trimesh.Trimesh:
    box = trimesh.creation.box(extents=[size] * 3)
    box.apply_translation(center)
    if inward:
        box.invert()
    return box


def _write(path, *boxes: trimesh.Trimesh):
    mesh = trimesh.util.concatenate(list(boxes))
    mesh.export(path)
    return path


def test_one_solid_has_its_volume(tmp_path):
    mesh = load_object_mesh(_write(tmp_path / "cube.stl", _box(0.03, (0, 0, 0))))
    assert mesh.to_trimesh().volume == pytest.approx(27e-6)


def test_two_overlapping_bodies_merge_into_one_solid_and_say_so(tmp_path):
    # Two 3 cm cubes offset 1 cm in x and y overlap in 2 x 2 x 3 cm: 27 + 27 - 12 = 42 cm^3.
    path = _write(tmp_path / "two.stl", _box(0.03, (0, 0, 0)), _box(0.03, (0.01, 0.01, 0)))
    mesh = load_object_mesh(path)
    assert mesh.to_trimesh().volume == pytest.approx(42e-6)
    assert mesh.to_trimesh().is_watertight
    assert mesh.repair.body == "merged 2"
    assert (
        "merged 2 overlapping bodies into one solid by a boolean union (42 cm^3; their volumes "
        "summed to 54 cm^3)" in mesh.repair.changes
    )
    # One of them alone is still a choice (K indexes the separate surfaces, largest first),
    # and the repair lists them for a front end to offer.
    assert [b.split(":")[0] for b in mesh.repair.bodies] == ["body 0", "body 1"]
    assert "27 cm^3" in mesh.repair.bodies[1]
    assert load_object_mesh(path, body=1).to_trimesh().volume == pytest.approx(27e-6)
    assert load_object_mesh(path, body=1).repair.bodies == ()
    assert MeshRepair.from_dict(mesh.repair.to_dict()) == mesh.repair  # sessions keep them


def test_a_cup_and_its_handle_exported_as_two_bodies_open_as_one_mug(tmp_path):
    # A CAD mug: a closed cup (r 40 mm, 90 mm high) and a torus handle whose ends sink into
    # the wall. The union is one solid, less than the two volumes summed (the sunk ends).
    cup = trimesh.creation.cylinder(radius=0.04, height=0.09, sections=48)
    handle = trimesh.creation.torus(major_radius=0.025, minor_radius=0.006)
    handle.apply_transform(trimesh.transformations.rotation_matrix(1.5708, [1, 0, 0]))
    handle.apply_translation([0.045, 0, 0])
    path = _write(tmp_path / "mug.obj", cup, handle)
    mesh = load_object_mesh(path)
    volume = mesh.to_trimesh().volume
    assert cup.volume < volume < cup.volume + handle.volume
    assert mesh.repair.body == "merged 2"


def test_overlapping_pieces_and_a_separate_body_need_a_choice(tmp_path):
    # Two overlapping cubes and a third far away: the union is two solids, so no body is
    # taken silently; 'all' keeps the merged pair and the third as one rigid object.
    boxes = [_box(0.03, (0, 0, 0)), _box(0.03, (0.01, 0.01, 0)), _box(0.01, (0.1, 0, 0))]
    path = _write(tmp_path / "three.obj", *boxes)
    with pytest.raises(MeshError, match=r"holds 3 separate bodies"):
        load_object_mesh(path)
    together = load_object_mesh(path, body="all")
    assert together.to_trimesh().volume == pytest.approx(43e-6)
    assert (
        "merged 3 overlapping bodies into 2 solids kept as one rigid object by a boolean "
        "union (43 cm^3; their volumes summed to 55 cm^3)" in together.repair.changes
    )


def test_an_inner_shell_is_refused_and_named(tmp_path):
    outer, inner = _box(0.03, (0, 0, 0)), _box(0.01, (0, 0, 0), inward=True)
    path = _write(tmp_path / "hollow.obj", outer, inner)
    with pytest.raises(
        MeshError, match=r"2 separate closed surfaces, 1 inside another \(an inner shell"
    ):
        load_object_mesh(path)


def test_separate_bodies_are_refused_unless_one_or_all_is_chosen(tmp_path):
    boxes = [_box(0.01, (x, 0, 0)) for x in (0.0, 0.03, 0.06)]
    path = _write(tmp_path / "three.ply", *boxes)
    with pytest.raises(MeshError, match=r"holds 3 separate bodies \(body 0: 1 cm\^3, 12 faces"):
        load_object_mesh(path)
    together = load_object_mesh(path, body="all")
    assert together.to_trimesh().volume == pytest.approx(3e-6)
    one = load_object_mesh(path, body=2)
    assert one.to_trimesh().volume == pytest.approx(1e-6)
    # Equal bodies are numbered by position: body 2 is the one at x = 60 mm.
    assert one.vertices[:, 0].mean() == pytest.approx(0.06)
    assert one.repair.body == "2 of 3"
    with pytest.raises(MeshError, match=r"--body 3 is out of range.*choose 0 to 2"):
        load_object_mesh(path, body=3)


def test_a_nested_part_with_outward_normals_is_refused(tmp_path):
    path = _write(tmp_path / "nested.stl", _box(0.03, (0, 0, 0)), _box(0.01, (0.005, 0, 0)))
    with pytest.raises(MeshError, match="1 inside another"):
        load_object_mesh(path)


def test_the_issue_cases_overlap_46_not_54_and_hollow_refused_not_28(tmp_path):
    two = _write(tmp_path / "a.obj", _box(0.03, (0, 0, 0)), _box(0.03, (0.01, 0.01, 0.01)))
    assert trimesh.load(two, force="mesh").volume == pytest.approx(54e-6)  # what was accepted
    assert load_object_mesh(two).to_trimesh().volume == pytest.approx(46e-6)
    hollow = _write(tmp_path / "b.obj", _box(0.03, (0, 0, 0)), _box(0.01, (0, 0, 0)))
    with pytest.raises(MeshError, match="1 inside another"):
        load_object_mesh(hollow)


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("x" * 5000 + ".obj", "not a usable path"),
        ("a\0b.obj", "NUL character"),
        ("m" * 300 + ".obj", "cannot be used"),  # a file name over the system's limit
        ("cube:20001", "too large \\(max 20000"),
    ],
)
def test_unusable_object_specs_are_mesh_or_parameter_errors(spec, match):
    with pytest.raises(IpcGraspError, match=match):
        object_from_spec(spec)


def test_a_symlink_loop_is_a_mesh_error(tmp_path):
    loop = tmp_path / "loop.obj"
    loop.symlink_to(loop)
    with pytest.raises(MeshError, match="cannot be used"):
        load_object_mesh(loop)


def _open_bar(centre: tuple[float, float, float], open_end: float = -1.0) -> trimesh.Trimesh:
    """A 10 x 10 x 40 mm bar (long along x) whose end face on the `open_end` side of x is
    missing: an open end 14 mm across, a third of the bar's size, well over what hole filling
    takes on its own."""
    bar = trimesh.creation.box(extents=(0.04, 0.01, 0.01))
    keep = ~np.isclose(bar.triangles_center[:, 0], 0.02 * open_end)
    bar = trimesh.Trimesh(bar.vertices, bar.faces[keep], process=False)
    bar.apply_translation(centre)
    return bar


def test_a_handle_whose_open_end_is_sunk_in_the_cup_is_closed_and_merged(tmp_path):
    # pybullet's mug: the handle is an open tube whose ends sit inside the cup's wall. Its
    # holes are filled whatever their size because the union covers them; the same handle
    # with its open end out in the air is refused as before.
    cup = _box(0.03, (0, 0, 0))
    sunk = _write(tmp_path / "sunk.obj", cup, _open_bar((0.025, 0, 0)))  # open end at x = 5 mm
    mesh = load_object_mesh(sunk)
    # The bar reaches from x = 5 to 45 mm; 30 mm of it outside the cube: 27 + 3 cm^3.
    assert mesh.to_trimesh().volume == pytest.approx(30e-6, rel=1e-6)
    assert mesh.repair.body == "merged 2"
    assert any(c.startswith("filled 1 hole") for c in mesh.repair.changes)
    # The same bar with its closed end sunk and its open end at x = 45 mm, in the air.
    out = _write(tmp_path / "out.obj", cup, _open_bar((0.025, 0, 0), open_end=1.0))
    with pytest.raises(MeshError, match="too large to fill"):
        load_object_mesh(out)


def test_pieces_of_a_convex_decomposition_that_only_touch_open_as_one_object(tmp_path):
    # pybullet's teddy (15 convex pieces, V-HACD): some overlap, others meet face to face a
    # micron apart, which a union leaves as separate solids. Within 1e-4 of the size they
    # touch: one rigid object, said in the report. 1 mm apart they do not: a choice is needed.
    a, b = _box(0.03, (0, 0, 0)), _box(0.03, (0.01, 0.01, 0))
    touching = _write(tmp_path / "toy.obj", a, b, _box(0.02, (0.01, 0.035 + 1e-6, 0)))
    mesh = load_object_mesh(touching)
    assert mesh.repair.body == "merged 3"
    assert any(
        "into 2 solids that touch, kept as one rigid object" in c for c in mesh.repair.changes
    )
    assert mesh.to_trimesh().volume == pytest.approx(42e-6 + 8e-6, rel=1e-6)
    apart = _write(tmp_path / "apart.obj", a, b, _box(0.02, (0.01, 0.036, 0)))
    with pytest.raises(MeshError, match="holds 3 separate bodies"):
        load_object_mesh(apart)
