"""What the MuJoCo baseline reads off a contact state: each pad's touches, force and contact
points on the object, the object's ground contacts, pad-pad contacts, the closest distance, and
each pad's centre of contact.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from engine.mujoco_baseline.model import SceneModel


def contact_readings(mj: Any, s: SceneModel, d: Any) -> dict[str, object]:
    """Forces and touches: pad k on the object, the object on the ground, pad-pad (`mj` the
    mujoco module, `d` its MjData)."""
    m = s.model
    force = [0.0, 0.0]
    points = [0, 0]
    touch = [0, 0]
    ground = 0
    pad_pad = 0
    min_dist = math.inf
    wrench = np.zeros(6)
    for i in range(d.ncon):
        c = d.contact[i]
        g1, g2 = int(c.geom1), int(c.geom2)
        dist = float(c.dist)
        pads = [k for k in range(2) if s.pad_geoms[k] in (g1, g2)]
        on_object = g1 in s.object_geoms or g2 in s.object_geoms
        min_dist = min(min_dist, dist)
        if len(pads) == 2:
            pad_pad += 1
        elif pads and on_object:
            k = pads[0]
            touch[k] += 1
            if c.efc_address >= 0:
                mj.mj_contactForce(m, d, i, wrench)
                force[k] += float(wrench[0])
                points[k] += 1
        elif on_object and s.ground_geom in (g1, g2):
            ground += 1
    return {
        "force": force,
        "points": points,
        "touch": touch,
        "ground": ground,
        "pad_pad": pad_pad,
        "min_dist": min_dist,
    }


def pad_contact_centres(
    mj: Any, s: SceneModel, d: Any
) -> tuple[np.ndarray | None, np.ndarray | None]:
    """Each pad's centre of contact on the object (its normal forces' centroid, world m; None
    for a pad without contact force)."""
    wrench = np.zeros(6)
    sums = [np.zeros(3), np.zeros(3)]
    weights = [0.0, 0.0]
    for i in range(d.ncon):
        c = d.contact[i]
        g1, g2 = int(c.geom1), int(c.geom2)
        pads = [k for k in range(2) if s.pad_geoms[k] in (g1, g2)]
        if len(pads) != 1 or not (g1 in s.object_geoms or g2 in s.object_geoms):
            continue
        if c.efc_address < 0:
            continue
        mj.mj_contactForce(s.model, d, i, wrench)
        f = abs(float(wrench[0]))
        sums[pads[0]] += f * np.asarray(c.pos, dtype=float)
        weights[pads[0]] += f
    out = [sums[k] / weights[k] if weights[k] > 0 else None for k in range(2)]
    return (out[0], out[1])
