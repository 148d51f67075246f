"""A grasp off the centre of mass turns out of the pads when gravity's moment about the closing
axis exceeds the friction moment the two contact patches can resist (soft-finger contact: the
limit surface's torsional limit, ../shared/seeds/003 Eq. 8-14, and 002's limit-surface ellipse).

A 240 x 20 x 20 mm bar of 100 g, held across its width by the YuMi with 5 N per pad at mu = 0.5,
grasped at a distance d from its centre of mass along its length:
- the labels are monotone in d: lifted up to some offset, not lifted beyond it (they flipped
  on a 0.1 mm sag of the far end while the success test required the lowest point within
  dhat of the lift height);
- that offset lies in the bracket of the torsion law, M_f / (m g), with M_f = mu sum_i
  |N_i| rho_i the patches' friction moment from the simulated contact pressure (each pad's
  contact normal forces N_i at their distances rho_i from the patch's centre of pressure), at
  the end of the centred grasp's squeeze: lifted below 0.8 of it, not lifted above 1.25 of it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.simulation import GraspSimulation
from engine.scene.object_mesh import load_object_mesh
from engine.scene.resting import rest_object

MASS_KG = 0.1
PARAMS = SimulationParams.from_values(squeeze_force_n=5.0, mu=0.5)
OFFSETS_M = (0.0, 0.01, 0.02, 0.025, 0.03, 0.035, 0.04, 0.05, 0.06)


@pytest.fixture(scope="module")
def bar(tmp_path_factory):
    mesh = trimesh.creation.box(extents=[0.24, 0.02, 0.02])
    mesh.apply_translation([0.0, 0.0, 0.01])
    path = tmp_path_factory.mktemp("bar") / "bar.stl"
    mesh.export(path)
    return rest_object(load_object_mesh(path), 0, mass_kg=MASS_KG)


def _grasp(d: float) -> Grasp:
    # Across the bar's width, the pads' tips 2 mm above the ground.
    return Grasp(center=[d, 0.0, 0.012], axis=[0.0, 1.0, 0.0])


def _friction_moment(frame, mu: float) -> float:
    """mu sum |N_i| rho_i over both pads' contact points, about each patch's centre of
    pressure, in the plane normal to the closing axis (y)."""
    total = 0.0
    for pad in (0, 1):
        mine = frame.contact_source == pad
        points = frame.contact_points[mine][:, [0, 2]]
        normal = np.linalg.norm(frame.contact_normal_n[mine], axis=1)
        centre = (points * normal[:, None]).sum(0) / normal.sum()
        total += mu * float((normal * np.linalg.norm(points - centre, axis=1)).sum())
    return total


@pytest.fixture(scope="module")
def trials(bar):
    out = {}
    for d in OFFSETS_M:
        sim = GraspSimulation(bar, _grasp(d).pose(), PARAMS)
        frames = list(sim.frames())
        out[d] = (sim.result, frames)
    return out


@pytest.mark.slow
def test_labels_are_monotone_along_the_offset(trials):
    labels = [trials[d][0].success for d in OFFSETS_M]
    assert labels[0] and not labels[-1], labels
    first_fail = labels.index(False)
    assert not any(labels[first_fail:]), f"labels flip along the offset: {labels}"
    # Held ones sag and turn a little in the compliant grip, well within the tolerances: some
    # end below the lift height by more than dhat, and they are lifted all the same.
    sagged = [
        d
        for d in OFFSETS_M[:first_fail]
        if trials[d][0].lift_height_m < PARAMS.lift_height_m - PARAMS.dhat_m
    ]
    assert sagged, "no held offset sagged: the test no longer checks the sag"
    for d in OFFSETS_M[:first_fail]:
        r = trials[d][0]
        assert max(r.slip1_m, r.slip2_m) < 0.2 * PARAMS.slip_tolerance_m
        assert r.rotation_rad < 0.2 * PARAMS.rotation_tolerance_rad
        assert r.min_lift_grip_n > 0.9 * PARAMS.squeeze_force_n


@pytest.mark.slow
def test_the_grip_turns_out_where_gravitys_moment_passes_the_patches_friction_moment(trials):
    result, frames = trials[0.0]
    assert result.success
    squeezed = [f for f in frames if f.phase == "squeeze"][-1]
    moment = _friction_moment(squeezed, PARAMS.mu)
    critical = moment / (MASS_KG * 9.81)
    assert 0.01 < critical < 0.06, critical  # the offsets above bracket it
    for d in OFFSETS_M:
        lifted = trials[d][0].success
        if d < 0.8 * critical:
            assert lifted, (d, critical, trials[d][0].reason)
        if d > 1.25 * critical:
            assert not lifted, (d, critical)
            assert "turned" in trials[d][0].reason or "slipped" in trials[d][0].reason
    assert math.isfinite(moment)
