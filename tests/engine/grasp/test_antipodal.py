"""Antipodal completion of a picked point, and the inverse of Grasp.pose."""

from __future__ import annotations

import numpy as np
import pytest
import trimesh

from engine.errors import GraspError
from engine.grasp.antipodal import antipodal_grasp, grasp_from_pose
from engine.grasp.grasp import Grasp
from engine.scene.object_mesh import ObjectMesh, builtin_cube
from engine.scene.resting import rest_object


@pytest.fixture(scope="module")
def cube():
    return rest_object(builtin_cube())


def test_click_on_a_cube_side_gives_the_opposite_side(cube):
    done = antipodal_grasp(cube, [0.015, 0.004, 0.012], [1.0, 0.0, 0.0])
    np.testing.assert_allclose(done.grasp.axis, [-1.0, 0.0, 0.0])
    np.testing.assert_allclose(done.contact1, [-0.015, 0.004, 0.012], atol=1e-9)
    np.testing.assert_allclose(done.grasp.center, [0.0, 0.004, 0.012], atol=1e-9)
    assert done.width_m == pytest.approx(0.03)


def test_point_off_the_object_is_refused(cube):
    with pytest.raises(GraspError, match="opposite surface"):
        antipodal_grasp(cube, [0.2, 0.0, 0.012], [1.0, 0.0, 0.0])
    with pytest.raises(GraspError, match="normal"):
        antipodal_grasp(cube, [0.015, 0.0, 0.012], [0.0, 0.0, 0.0])


@pytest.mark.parametrize(
    "axis", [[1.0, 0.0, 0.0], [0.3, -0.8, 0.2], [0.0, 0.0, 1.0], [0.05, 0.0, -1.0]]
)
@pytest.mark.parametrize("angle", [0.0, 0.7, -2.5])
def test_grasp_from_pose_inverts_pose(axis, angle):
    g = Grasp(np.array([0.01, -0.02, 0.03]), np.array(axis), angle)
    back = grasp_from_pose(g.pose())
    np.testing.assert_allclose(back.pose(), g.pose(), atol=1e-12)


def test_contacts_along_axis(cube):
    from engine.grasp.antipodal import contacts_along_axis

    a, b = contacts_along_axis(cube, Grasp(np.array([0.0, 0.0, 0.015]), np.array([0.0, 1.0, 0.0])))
    np.testing.assert_allclose(a, [0.0, -0.015, 0.015], atol=1e-9)
    np.testing.assert_allclose(b, [0.0, 0.015, 0.015], atol=1e-9)
    assert (
        contacts_along_axis(cube, Grasp(np.array([0.0, 0.0, 0.1]), np.array([0.0, 1.0, 0.0])))
        is None
    )


def test_contacts_along_axis_between_the_open_jaws():
    """Issue 39 point 10: a pinch of a cup's 5 mm wall (60 mm across) is 5 mm between the open
    jaws' contacts; along the whole line the far wall made it 60 mm ("Width 60.0 mm" beside
    "contacts 5.0 mm apart")."""
    import trimesh

    from engine.grasp.antipodal import contacts_along_axis
    from engine.scene.object_mesh import ObjectMesh
    from engine.scene.resting import rest_object

    profile = [[0, 0], [0.03, 0], [0.03, 0.08], [0.025, 0.08], [0.025, 0.006], [0, 0.006]]
    cup = trimesh.creation.revolve(np.array(profile, dtype=float), sections=48)
    om = ObjectMesh(np.asarray(cup.vertices), np.asarray(cup.faces), "cup", "generated", None)
    obj = rest_object(om, 0)
    v = np.asarray(obj.vertices)
    tall = int(np.argmax(np.ptp(v, axis=0)))
    assert tall == 2, "the cup stands upright in pose 0"
    centre = v.min(0) + 0.5 * np.ptp(v, axis=0)
    side = np.array([1.0, 0.0, 0.0])
    grasp = Grasp(centre + 0.0275 * side, side, 0.0)  # across the +x wall, its middle
    a, b = contacts_along_axis(obj, grasp, open_width_m=0.05)
    assert float(np.dot(b - a, side)) == pytest.approx(0.005, abs=3e-4)
    a, b = contacts_along_axis(obj, grasp)
    assert float(np.dot(b - a, side)) == pytest.approx(0.06, abs=1e-3)


# --- curved, faceted and concave objects -------------------------------------------------------


def _rest(mesh: trimesh.Trimesh, name: str):
    return rest_object(
        ObjectMesh(np.array(mesh.vertices), np.array(mesh.faces, dtype=np.int64), name, name, None)
    )


def _mug() -> trimesh.Trimesh:
    """A 60 x 80 mm cup with 5 mm walls and a 6 mm bottom: its profile revolved (trimesh has
    no boolean engine here), closed and outward like a cylinder minus an inner cylinder."""
    outer, inner, height, bottom = 0.03, 0.025, 0.08, 0.006
    profile = [[0, 0], [outer, 0], [outer, height], [inner, height], [inner, bottom], [0, bottom]]
    return trimesh.creation.revolve(np.array(profile, dtype=float), sections=48)


SHAPES = {
    "cylinder": lambda: trimesh.creation.cylinder(radius=0.02, height=0.08, sections=48),
    "sphere": lambda: trimesh.creation.icosphere(subdivisions=3, radius=0.025),
    "cone": lambda: trimesh.creation.cone(radius=0.025, height=0.05, sections=48),
    "mug": _mug,
}


@pytest.mark.parametrize("shape", sorted(SHAPES))
def test_random_surface_points_of_curved_objects_are_placeable(shape):
    """Every shape fits within an 85 mm opening along every normal, so an antipodal grasp
    exists at each point: at least 95 of 100 random points must give one, with both contacts
    on the surface, the second one where the ray leaves the material, within the opening."""
    mesh = SHAPES[shape]()
    assert mesh.is_watertight and mesh.volume > 0
    obj = _rest(mesh, shape)
    surface = trimesh.Trimesh(obj.vertices, obj.faces, process=False)
    points, faces = trimesh.sample.sample_surface(surface, 100, seed=7)
    placed = 0
    for p, f in zip(points, faces, strict=True):
        normal = surface.face_normals[f]
        try:
            done = antipodal_grasp(obj, p, normal, 0.3, open_width_m=0.085, clearance_m=1e-4)
        except GraspError:
            continue
        placed += 1
        np.testing.assert_allclose(done.grasp.axis, -normal, atol=1e-12)
        assert 0.0 < done.width_m <= 0.085 - 2e-4
        _, distance, tri = trimesh.proximity.closest_point(surface, done.contact1[None])
        assert distance[0] < 1e-7
        # Jaw 1 presses on a face that looks back at jaw 0 (the ray leaves the object there).
        assert surface.face_normals[tri[0]] @ done.grasp.axis > 0.0
        np.testing.assert_allclose(done.grasp.center, 0.5 * (p + done.contact1), atol=1e-12)
    assert placed >= 95, f"{shape}: only {placed} of 100 points placeable"


def test_the_old_failure_a_point_on_a_cylinder_side():
    """Issue 15: the ray found the picked face again at distance ~1e-19 and gave up."""
    obj = _rest(trimesh.creation.cylinder(radius=0.02, height=0.08, sections=64), "can")
    # The resting can lies on its side or stands; take a vertex-free point on a side face.
    surface = trimesh.Trimesh(obj.vertices, obj.faces, process=False)
    side = int(np.argmin(np.abs(surface.face_normals[:, 2]) + np.abs(surface.face_normals[:, 1])))
    p = surface.triangles_center[side]
    done = antipodal_grasp(obj, p, surface.face_normals[side], open_width_m=0.05)
    assert done.width_m == pytest.approx(0.04, abs=1e-3)


def test_a_mug_is_grasped_across_when_it_fits_and_by_its_wall_otherwise():
    obj = _rest(_mug(), "mug")
    surface = trimesh.Trimesh(obj.vertices, obj.faces, process=False)
    # A point on the outer wall, half-way up, facing the gripper horizontally.
    centre = surface.bounds.mean(axis=0)
    origin = centre + np.array([0.1, 0.0, 0.0])
    hit, _, tri = surface.ray.intersects_location(origin[None], np.array([[-1.0, 0.0, 0.0]]))
    k = int(np.argmax(hit[:, 0]))
    p, normal = hit[k], surface.face_normals[tri[k]]
    across = antipodal_grasp(obj, p, normal, open_width_m=0.085)
    assert across.width_m == pytest.approx(0.06, abs=1e-3)
    wall = antipodal_grasp(obj, p, normal, open_width_m=0.05)
    assert wall.width_m == pytest.approx(0.005, abs=1e-3)


def test_no_opposite_surface_within_the_opening_says_what_to_try():
    """Picked on the end of an 80 mm can with a 50 mm opening: nothing fits; the message names
    the thickness, the opening, and what to do (a narrower place, a wider gripper)."""
    obj = _rest(trimesh.creation.cylinder(radius=0.02, height=0.08, sections=48), "can")
    surface = trimesh.Trimesh(obj.vertices, obj.faces, process=False)
    axis_of_can = int(np.ptp(np.asarray(obj.vertices), axis=0).argmax())
    end = int(np.argmax(np.abs(surface.face_normals[:, axis_of_can])))
    with pytest.raises(GraspError) as info:
        antipodal_grasp(
            obj, surface.triangles_center[end], surface.face_normals[end], open_width_m=0.05
        )
    text = str(info.value)
    assert "80.0 mm thick" in text and "opens 50 mm" in text
    assert "narrower" in text and "Robotiq 2F-85 (85 mm)" in text and "Franka" not in text


def test_a_point_on_a_bowl_rim_edge_pinches_the_rim_along_the_edge_normal():
    """The app's picker can report a point on the sharp outer edge of a bowl's rim with the
    normal of the outer wall: the ray along that inward normal grazes the rim's top and leaves
    the material at once (it gave a grasp 0.03 mm wide, or, when a ray cast a hair aside hit
    nothing, a ValueError in the app). On such an edge the grasp closes along the edge's normal
    and pinches the rim; a point just below the edge pinches the wall along its own normal."""
    profile = [(0, 0), (0.03, 0), (0.06, 0.045), (0.056, 0.045), (0.026, 0.004), (0, 0.004)]
    bowl = trimesh.creation.revolve(np.array(profile, dtype=float), sections=48)
    mesh = ObjectMesh(np.array(bowl.vertices), np.array(bowl.faces, dtype=np.int64), "bowl",
                      "bowl", None)  # fmt: skip
    obj = None
    for k in range(4):
        obj = rest_object(mesh, k)
        v = np.asarray(obj.vertices)
        if np.ptp(v[v[:, 2] < 1e-6][:, :2], axis=0).max() < 0.07:  # standing on its 60 mm foot
            break
    assert obj is not None
    surface = trimesh.Trimesh(obj.vertices, obj.faces, process=False)
    v = surface.vertices
    top = v[:, 2].max()
    axis_xy = v[v[:, 2] < 1e-6][:, :2].mean(axis=0)
    r = np.linalg.norm(v[:, :2] - axis_xy, axis=1)
    rim = np.nonzero((v[:, 2] > top - 1e-6) & (r > 0.0599))[0]
    a = rim[0]
    b = min(rim[1:], key=lambda j: np.linalg.norm(v[j] - v[a]))
    edge_mid = 0.5 * (v[a] + v[b])
    # The outer wall's face on that edge: its normal points outward and down.
    faces = [f for f in range(len(surface.faces)) if {a, b} <= set(surface.faces[f])]
    wall = next(f for f in faces if surface.face_normals[f][2] < -0.1)
    normal = surface.face_normals[wall]
    edge = antipodal_grasp(obj, edge_mid, normal, open_width_m=0.05)
    top_normal = np.array([0.0, 0.0, 1.0])
    bisector = -(normal + top_normal) / np.linalg.norm(normal + top_normal)
    np.testing.assert_allclose(edge.grasp.axis, bisector, atol=1e-6)
    np.testing.assert_allclose(edge.contact0, edge_mid, atol=1e-9)
    assert 0.004 < edge.width_m < 0.01  # across the 4 mm wall, diagonally
    r1 = np.linalg.norm(edge.contact1[:2] - axis_xy)
    assert r1 < 0.0599 and edge.contact1[2] < top  # on the inner wall, below the rim
    below = (
        edge_mid
        - 0.003 * np.array([0.0, 0.0, 1.0])
        - 0.002 * np.append((edge_mid[:2] - axis_xy) / np.linalg.norm(edge_mid[:2] - axis_xy), 0.0)
    )  # on the outer wall, 3 mm down its slope
    on_wall = trimesh.proximity.closest_point(surface, below[None])[0][0]
    pinch = antipodal_grasp(obj, on_wall, normal, open_width_m=0.05)
    np.testing.assert_allclose(pinch.grasp.axis, -normal, atol=1e-9)
    assert 0.002 < pinch.width_m < 0.008
    # A ray that meets nothing at all (cast up from above the bowl): no crossings, no error.
    from engine.grasp.antipodal import _crossings

    up = np.array([0.0, 0.0, 1.0])
    reach, entering = _crossings(surface, edge_mid + 0.01 * up, up, 0.17)
    assert reach.shape == entering.shape == (0,)
