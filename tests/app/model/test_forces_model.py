"""app/model/forces.py without a window: the patches' resultants and centres of pressure, the
trial scales per mode, the weight at the centre of mass (no Qt, no VTK)."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

from app.model.forces import (
    WEIGHT_SOURCE,
    ForceScale,
    ForceSizes,
    ForceView,
    force_scale,
    force_sizes,
    patch_arrows,
    patches,
    totals_text,
)
from engine.constants import GRAVITY_M_S2
from engine.grasp.frames import Frame


def _frame(points, normal, friction, source, pose=None) -> Frame:
    return Frame(
        index=0, time_s=0.0, phase="squeeze",
        pad_vertices=(np.zeros((1, 3)), np.zeros((1, 3))),
        object_pose=np.eye(4) if pose is None else pose, plate_travel_m=0.0, plate_lift_m=0.0,
        psi_j=(0.0, 0.0), grip_force_n=(0.0, 0.0), contacts={}, min_distance_m=1.0,
        object_min_z_m=0.0, newton_iterations=0, intersection_free=True,
        contact_points=np.asarray(points, float), contact_normal_n=np.asarray(normal, float),
        contact_friction_n=np.asarray(friction, float),
        contact_source=np.asarray(source, np.int8),
    )  # fmt: skip


# Pad 1 presses at two points, 3 N and 1 N; the ground carries the object at two points with
# no normal force at one of them; pad 2 touches with friction only.
FRAME = _frame(
    points=[[0, 0, 0], [0, 0.004, 0], [0.01, 0, 0], [0.01, 0.002, 0], [0.02, 0, 0], [0.02, 0, 0.002]],
    normal=[[3, 0, 0], [1, 0, 0], [0, 0, 0.2], [0, 0, 0], [0, 0, 0], [0, 0, 0]],
    friction=[[0, 0, 0.01], [0, 0, 0.03], [0, 0, 0], [0, 0, 0], [0, 0.5, 0], [0, 0.5, 0]],
    source=[0, 0, 2, 2, 1, 1],
)  # fmt: skip


def test_patches_sum_their_forces_at_the_normal_weighted_centre_of_pressure():
    found = {p.source: p for p in patches(FRAME)}
    assert [p.source for p in patches(FRAME)] == [0, 1, 2]  # pad 1, pad 2, ground
    np.testing.assert_allclose(found[0].normal_n, [4, 0, 0])
    np.testing.assert_allclose(found[0].friction_n, [0, 0, 0.04])
    # (3 * y=0 + 1 * y=4 mm) / 4 N: 1 mm, not the plain mean's 2 mm.
    np.testing.assert_allclose(found[0].centre, [0, 0.001, 0])
    # A point without normal force does not move the centre of pressure.
    np.testing.assert_allclose(found[2].centre, [0.01, 0, 0])
    # Friction only: the plain mean of the patch's points.
    np.testing.assert_allclose(found[1].centre, [0.02, 0, 0.001])
    assert [found[k].points for k in (0, 1, 2)] == [2, 2, 2]
    assert totals_text(FRAME) == (
        "pad 1 4 N / 0.04 N, pad 2 0 N / 1 N, ground 0.2 N / 0 N (normal / friction)"
    )
    assert patches(_frame(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros((0, 3)), [])) == []


def test_patch_arrows_end_at_the_centres_of_pressure_at_the_scale():
    scale = ForceScale(normal_n_per_mm=2.0, friction_n_per_mm=0.01)
    normal = patch_arrows(FRAME, scale, "normal")
    assert normal.source.tolist() == [0, 2]  # pad 2 has no normal resultant: no arrow
    np.testing.assert_allclose(normal.vectors, [[0.002, 0, 0], [0, 0, 0.0001]])  # 2 mm, 0.1 mm
    np.testing.assert_allclose(normal.tails + normal.vectors, [[0, 0.001, 0], [0.01, 0, 0]])
    friction = patch_arrows(FRAME, scale, "friction")
    assert friction.source.tolist() == [0, 1]
    np.testing.assert_allclose(friction.vectors[1], [0, 0.1, 0])  # 1 N at 0.01 N/mm: 100 mm
    np.testing.assert_allclose(friction.forces_n[1], [0, 1, 0])


def test_scales_per_mode_in_one_two_five_steps():
    sizes = force_sizes([FRAME])
    assert sizes.patch_normal_n == pytest.approx(4.0)
    assert sizes.patch_friction_n == pytest.approx(1.0)
    # The largest resultant drawn at most 25 mm: 4 N -> 0.2 N/mm, 1 N -> 0.05 N/mm.
    assert force_scale([FRAME], "patches") == ForceScale(0.2, 0.05)
    assert sizes.scale("points") == force_scale([FRAME])
    merged = ForceSizes(1, 2, 30, 0).merged(ForceSizes(3, 1, 10, 0.5))
    assert merged.as_tuple() == (3, 2, 30, 0.5)
    assert ForceSizes().empty and not merged.empty
    assert ForceSizes().scale("patches") == ForceScale(1.0, 1.0)  # no force: 1 N/mm


def test_weight_from_the_centre_of_mass_at_the_normal_scale():
    pose = np.eye(4)
    pose[:3, :3] = [[0, -1, 0], [1, 0, 0], [0, 0, 1]]  # turned 90 degrees about z
    pose[:3, 3] = [0.1, 0.2, 0.3]
    frame = _frame(FRAME.contact_points, FRAME.contact_normal_n, FRAME.contact_friction_n,
                   FRAME.contact_source, pose)  # fmt: skip
    view = ForceView(ForceScale(0.1, 0.001), "patches", 0.003, (0.01, 0.0, 0.015))
    com = view.centre_of_mass(frame)
    np.testing.assert_allclose(com, [0.1, 0.21, 0.315])
    w = view.weight_arrow(frame)
    assert w is not None and w.source.tolist() == [WEIGHT_SOURCE]
    np.testing.assert_allclose(w.tails[0], com)
    np.testing.assert_allclose(w.forces_n[0], [0, 0, -0.003 * GRAVITY_M_S2])
    np.testing.assert_allclose(w.vectors[0], [0, 0, -0.003 * GRAVITY_M_S2 * 1e-3 / 0.1])
    assert view.weight_legend() == "weight 0.029 N at the centre of mass: 1 mm = 0.1 N"
    assert view.arrows(frame, "normal").source.tolist() == [0, 2]  # per patch
    assert len(ForceView(view.scale).arrows(frame, "normal").tails) == 3  # per contact point
    # Without a mass (nothing known about the object): no weight, no marker.
    bare = ForceView(view.scale)
    assert bare.weight_arrow(frame) is None and bare.centre_of_mass(frame) is None
    assert bare.weight_legend() == ""
    # The video exporter gets the view in another process.
    assert pickle.loads(pickle.dumps(view)) == view
