"""A squeeze whose jaws close on each other beside the object ends, with that reason.

REACH grasp 19 holds the cube by a 2.5 mm strip along a pad's side edge. With the pads'
contact-face rims lowered by 1 mm (a chamfer), the cube turns out of the closing pads and sits
beside them, touching both pads' edges with ~0.01 N while the jaws press against each other
with the gripper's 20 N. The force stop can never be reached there: the squeeze used to wait
for it until max_steps and ended "solver failed" after 2,000 frames (80 s). A Psi stop of 1e-6 J
is reached there by the pads' strain from pressing each other (1.03e-6 J at 0.009 N on the
cube): the trial used to lift and end "object slipped" after 125 frames.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import pytest

from engine.grasp.params import SimulationParams
from engine.grasp.simulation import build_pad
from engine.grasp.trials import TrialSpec, plan_trials, run_trial
from engine.gripper.pad_geometry import PadMesh
from tests.conftest import reach_scene


def _chamfered(pad: PadMesh, depth_m: float) -> PadMesh:
    """The pad with its contact face's outline vertices lowered by depth_m (< one layer)."""
    poly = pad.outline.polygon
    start, end = poly, np.roll(poly, -1, axis=0)
    v = pad.vertices.copy()
    top = np.flatnonzero(v[:, 2] == 0.0)
    p = v[top, :2]
    on_rim = np.zeros(len(top), dtype=bool)
    for a, b in zip(start, end, strict=True):
        t = np.clip(((p - a) @ (b - a)) / ((b - a) @ (b - a)), 0.0, 1.0)
        on_rim |= np.hypot(*(p - (a + t[:, None] * (b - a))).T) < 1e-9
    v[top[on_rim], 2] = -depth_m
    e = v[pad.tets]
    volumes = np.einsum(
        "ij,ij->i", np.cross(e[:, 1] - e[:, 0], e[:, 2] - e[:, 0]), e[:, 3] - e[:, 0]
    )
    assert on_rim.sum() > 20 and volumes.min() > 0
    return replace(pad, vertices=v, rest_volumes=volumes / 6.0)


@pytest.mark.slow
@pytest.mark.parametrize(
    "stop",
    [{}, {"psi_th_j": 1e-6}],
    ids=["force stop", "Psi stop reached by the pads pressing each other"],
)
def test_jaws_closed_beside_the_object_end_the_squeeze(stop):
    obj, grasp = reach_scene(19)
    params = SimulationParams.from_values(youngs_modulus_pa=1e8, mu=0.4, auto_open_m=0.02, **stop)
    pad = _chamfered(build_pad(params), 0.001)
    (nominal,) = plan_trials(grasp, TrialSpec(n_trials=1))
    frames = []
    result = run_trial(obj, nominal, params, pad=pad, on_frame=lambda f: frames.append(f))
    assert result.reason == "jaws closed on each other without gripping the object"
    last = frames[-1]
    # The jaws met (pad-pad pairs) while both pads still touched the cube, lightly.
    assert last.contacts["contacts_pad_pad"] > 0
    assert min(last.contacts["contacts_pad1_object"], last.contacts["contacts_pad2_object"]) > 0
    assert max(last.grip_force_n) < 0.4
    assert result.frames < 400
    assert result.intersection_free
