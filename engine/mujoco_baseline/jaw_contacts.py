"""What the MuJoCo baseline's rigid jaws meet at the open pose: each jaw's gap to the object and
its contact area (rays from the pad's face), the pads' prisms, and the grip force it applies.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.grasp.params import SimulationParams
from engine.grasp.placement_checks import pad_face_points
from engine.gripper.jaws import place_jaws
from engine.gripper.pad_geometry import PadOutline
from engine.mujoco_baseline import contact
from engine.mujoco_baseline.params import MujocoParams
from engine.scene.resting import RestingObject

_AREA_GRID = (24, 16)  # rays cast from each pad face to measure its contact area


@dataclass(frozen=True)
class JawContact:
    """One jaw's view of the object along its closing direction at the open pose."""

    gap_m: float  # closing travel to first touch (inf: the jaw misses)
    area_m2: float  # pad area whose ray meets the object within one pad thickness of first touch


def jaw_contacts(
    obj: RestingObject, pose: np.ndarray, outline: PadOutline, open_width_m: float
) -> tuple[JawContact, JawContact]:
    """Each jaw's gap to the object and contact area, by rays from its open contact face."""
    import trimesh

    pts = pad_face_points(outline, _AREA_GRID)
    mesh = trimesh.Trimesh(np.asarray(obj.vertices), np.asarray(obj.faces), process=False)
    out = []
    for jaw in place_jaws(pose, open_width_m):
        origins = jaw.to_world(np.column_stack([pts, np.zeros(len(pts))]))
        dirs = np.tile(jaw.normal, (len(origins), 1))
        locs, rays, _ = mesh.ray.intersects_location(origins, dirs, multiple_hits=False)
        dist = np.full(len(origins), math.inf)
        if len(rays):
            d = np.einsum("ij,ij->i", locs - origins[rays], dirs[rays])
            np.minimum.at(dist, rays, d)
        reach = dist[np.isfinite(dist) & (dist <= open_width_m)]
        if not len(reach):
            out.append(JawContact(math.inf, 0.0))
            continue
        gap = float(reach.min())
        share = float(np.count_nonzero(reach <= gap + outline.thickness_m)) / len(pts)
        out.append(JawContact(gap, share * outline.area_m2))
    return out[0], out[1]


def grip_force(params: SimulationParams, mj: MujocoParams, pad_stiffness_n_m: float) -> float:
    """F: --mj-grip-force, else the IPC squeeze stop's force, or sqrt(2 k Psi_th) for a Psi stop."""
    if mj.grip_force_n is not None:
        return mj.grip_force_n
    stop = getattr(params, "squeeze_stop", None)  # the IPC simulator's stop rule, when it has one
    if callable(stop):
        kind, value = stop()
    elif params.squeeze_force_n is not None:
        kind, value = "force", params.squeeze_force_n
    else:
        kind, value = "psi", params.psi_th_j
    if kind == "force":
        return float(value)
    return contact.grip_force_from_psi(float(value), pad_stiffness_n_m)


def jaw_prism(outline: PadOutline) -> np.ndarray:
    """The pad as a prism in its jaw frame: its outline at the contact face and at its back."""
    poly = np.asarray(outline.polygon, dtype=float)
    return np.vstack(
        [
            np.column_stack([poly, np.zeros(len(poly))]),
            np.column_stack([poly, np.full(len(poly), -outline.thickness_m)]),
        ]
    )
