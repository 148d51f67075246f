"""An analytic model's forces as drawn (app/model/model_forces.py, no Qt): a patch's friction
cells are summed per jaw on a drawing grid of about ARROWS_PER_JAW squares; each jaw's sums are
the engine's, each arrow sits at its cells' normal-force-weighted centre, and a jaw with few
contacts (a soft point) is drawn as it is."""

from __future__ import annotations

import numpy as np

from app.model.model_forces import ARROWS_PER_JAW, drawn_forces, jaw_resultants
from engine.analytic.contact_forces import ContactForces


def _forces(per_jaw: int) -> ContactForces:
    rng = np.random.default_rng(3)
    pts, jaw, fn, ft = [], [], [], []
    for j, x in ((0, -0.015), (1, 0.015)):
        yz = rng.uniform(-0.01, 0.01, (per_jaw, 2))
        pts.append(np.column_stack([np.full(per_jaw, x), yz]))
        jaw.append(np.full(per_jaw, j))
        f = rng.uniform(0.5, 1.5, per_jaw)
        fn.append(np.outer(f, [1.0 if j == 0 else -1.0, 0.0, 0.0]))
        ft.append(np.column_stack([np.zeros(per_jaw), rng.normal(size=(per_jaw, 2)) * 0.01]))
    cat = np.concatenate
    return ContactForces(
        points=cat(pts), jaw=cat(jaw), normal_n=cat(fn), friction_n=cat(ft),
        torsion_nm=np.zeros((2 * per_jaw, 3)), weight_n=np.array([0.0, 0.0, -0.2]),
        com=np.zeros(3), scale=1.0, mu=0.3, residual=0.0,
    )  # fmt: skip


def test_a_patch_is_drawn_as_sums_on_a_grid_that_keep_each_jaws_total():
    f = _forces(400)
    d = drawn_forces(f)
    for j in (0, 1):
        mine, drawn = f.jaw == j, d.jaw == j
        assert 8 <= drawn.sum() <= 2 * ARROWS_PER_JAW
        np.testing.assert_allclose(d.normal_n[drawn].sum(0), f.normal_n[mine].sum(0), atol=1e-12)
        np.testing.assert_allclose(
            d.friction_n[drawn].sum(0), f.friction_n[mine].sum(0), atol=1e-12
        )
        # Normal-force-weighted centres: the jaw's moment of the normal forces is kept.
        w, wd = np.linalg.norm(f.normal_n[mine], axis=1), np.linalg.norm(d.normal_n[drawn], axis=1)
        np.testing.assert_allclose(
            (wd[:, None] * d.points[drawn]).sum(0), (w[:, None] * f.points[mine]).sum(0)
        )


def test_a_soft_point_is_drawn_as_it_is_and_its_text_names_the_model():
    f = _forces(1)
    d = drawn_forces(f)
    np.testing.assert_array_equal(d.points, f.points)
    np.testing.assert_array_equal(d.friction_n, f.friction_n)
    text = f.describe("Soft point")
    assert text.startswith("Soft point: normal ")
    assert text.endswith("hold 0.0204 kg (its weight)")


def test_per_pad_and_patch_each_jaw_is_one_resultant_at_its_centre_of_pressure():
    # The View menu's "per pad and patch": a jaw's contact is one patch, drawn as the sum of
    # its forces at the normal-force-weighted centre (the centre of pressure on a flat patch).
    f = _forces(400)
    d = jaw_resultants(f)
    assert list(d.jaw) == [0, 1]
    for j in (0, 1):
        mine = f.jaw == j
        np.testing.assert_allclose(d.normal_n[j], f.normal_n[mine].sum(0), atol=1e-12)
        np.testing.assert_allclose(d.friction_n[j], f.friction_n[mine].sum(0), atol=1e-12)
        w = np.linalg.norm(f.normal_n[mine], axis=1)
        np.testing.assert_allclose(d.points[j], (w[:, None] * f.points[mine]).sum(0) / w.sum())
    # A soft point's one contact per jaw is its own resultant.
    one = _forces(1)
    np.testing.assert_allclose(jaw_resultants(one).points, one.points)
