"""What a frame reports about contact: who touches whom, grip force per pad, minimum distance."""

from __future__ import annotations

from dataclasses import dataclass

import ipctk
import numpy as np

from engine.ipc.system import OBJECT_OWNER, GraspSystem


@dataclass(frozen=True)
class ContactSummary:
    """Active contact pairs (distance < dhat) by kind, forces and clearances at one state."""

    pad_object: tuple[int, int]  # contact pairs between pad k and the object
    object_ground: int  # object vertices closer than dhat to the ground
    pad_ground: int  # pad vertices closer than dhat to the ground
    pad_pad: int
    grip_force_n: tuple[float, float]  # contact force on pad k along its closing direction
    min_distance_m: float  # smallest distance between any two bodies or a vertex and the ground
    object_min_z_m: float  # lowest object vertex above the ground
    intersection_free: bool

    def as_dict(self) -> dict:
        return {
            "contacts_pad1_object": self.pad_object[0],
            "contacts_pad2_object": self.pad_object[1],
            "contacts_object_ground": self.object_ground,
            "contacts_pad_ground": self.pad_ground,
            "contacts_pad_pad": self.pad_pad,
        }


def grip_forces(
    system: GraspSystem,
    barrier: ipctk.BarrierPotential,
    collisions: ipctk.NormalCollisions,
    x: np.ndarray,
    closing_normals: tuple[np.ndarray, np.ndarray],
) -> tuple[float, float]:
    """Barrier contact force on each pad projected on its closing direction (N).

    In the divided-by-h^2 potential the barrier gradient is the contact force (sign flipped),
    so summing it over a pad's vertices gives the force the object exerts on that pad.
    """
    if not len(collisions):
        return (0.0, 0.0)
    g = barrier.gradient(collisions, system.collision_mesh, x).reshape(-1, 3)
    out = []
    for blk, n in zip(system.pads, closing_normals, strict=True):
        out.append(float(g[blk.collision_rows].sum(axis=0) @ n))
    return (out[0], out[1])


def summarize_contacts(
    system: GraspSystem,
    barrier: ipctk.BarrierPotential,
    u: np.ndarray,
    dhat: float,
    closing_normals: tuple[np.ndarray, np.ndarray],
    check_intersections: bool = True,
) -> ContactSummary:
    x = system.collision_vertices(u)
    # Built at dhat, every mesh-mesh pair in the set is active; ground contacts come from the
    # vertex heights (ipctk 1.6.1 only lists plane-vertex pairs below dhat/2).
    collisions = ipctk.NormalCollisions()
    collisions.build(system.collision_mesh, x, dhat, 0.0, ipctk.LBVH())
    edges, faces, owner = system.collision_edges, system.collision_faces, system.collision_owner
    pad_object = [0, 0]
    pad_pad = 0
    for group in (
        collisions.fv_collisions,
        collisions.ee_collisions,
        collisions.ev_collisions,
        collisions.vv_collisions,
    ):
        for c in group:
            owners = {int(owner[i]) for i in c.vertex_ids(edges, faces) if i >= 0}
            if OBJECT_OWNER in owners:
                for k in (0, 1):
                    if k in owners:
                        pad_object[k] += 1
            elif owners == {0, 1}:
                pad_pad += 1
    z = x[:, 2]
    on_ground = z < dhat
    object_ground = int(on_ground[system.object_rows].sum())
    pad_ground = int(on_ground.sum()) - object_ground
    d2 = (
        collisions.compute_minimum_distance(system.collision_mesh, x) if len(collisions) else np.inf
    )
    min_z = float(z.min())
    free = True
    if check_intersections:
        free = (not ipctk.has_intersections(system.collision_mesh, x, ipctk.LBVH())) and min_z > 0
    return ContactSummary(
        pad_object=(pad_object[0], pad_object[1]),
        object_ground=object_ground,
        pad_ground=pad_ground,
        pad_pad=pad_pad,
        grip_force_n=grip_forces(system, barrier, collisions, x, closing_normals),
        min_distance_m=float(min(np.sqrt(d2), min_z)),
        object_min_z_m=float(z[system.object_rows].min()),
        intersection_free=bool(free),
    )
