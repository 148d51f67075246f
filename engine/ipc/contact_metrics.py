"""What a frame reports about contact: who touches whom, grip force per pad, minimum distance."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.ipc import ipctk_gateway as ipc
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
        """The contact counts by kind under the frame's `contacts_*` names."""
        return {
            "contacts_pad1_object": self.pad_object[0],
            "contacts_pad2_object": self.pad_object[1],
            "contacts_object_ground": self.object_ground,
            "contacts_pad_ground": self.pad_ground,
            "contacts_pad_pad": self.pad_pad,
        }


# grip_forces' result: each pad's grip force (N), its pad-object pairs, the closest gap (m).
GripForces = tuple[tuple[float, float], tuple[int, int], float]


def grip_forces(
    system: GraspSystem,
    barrier: ipc.BarrierPotential,
    x: np.ndarray,
    dhat: float,
    closing_normals: tuple[np.ndarray, np.ndarray],
) -> GripForces:
    """Object-on-pad contact force along each pad's closing direction (N), the number of
    active pad-object pairs, and the smallest pad-object distance (m).

    In the divided-by-h^2 potential the barrier gradient is the contact force (sign flipped),
    so summing it over a pad's vertices of the pad-object pairs gives that pad's grip force.
    """
    forces, counts, d_min = [], [], np.inf
    for k, n in enumerate(closing_normals):
        mesh, rows = system.pair_mesh(k, OBJECT_OWNER)
        xs = x[rows]
        c = ipc.collisions_within(mesh, xs, dhat)
        counts.append(len(c))
        if not len(c):
            forces.append(0.0)
            continue
        g = barrier.gradient(c, mesh, xs).reshape(-1, 3)
        pad_rows = system.collision_owner[rows] == k
        forces.append(float(g[pad_rows].sum(axis=0) @ n))
        d_min = min(d_min, ipc.minimum_distance(c, mesh, xs))
    return (forces[0], forces[1]), (counts[0], counts[1]), d_min


def summarize_contacts(
    system: GraspSystem,
    barrier: ipc.BarrierPotential,
    u: np.ndarray,
    dhat: float,
    closing_normals: tuple[np.ndarray, np.ndarray],
    check_intersections: bool = True,
    grip: GripForces | None = None,
) -> ContactSummary:
    """`grip`: the result of grip_forces at u, when the caller has it already."""
    x = system.collision_vertices(u)
    if grip is None:
        grip = grip_forces(system, barrier, x, dhat, closing_normals)
    forces, pad_object, d_min = grip
    mesh, rows = system.pair_mesh(0, 1)
    pads = ipc.collisions_within(mesh, x[rows], dhat)
    d_min = min(d_min, ipc.minimum_distance(pads, mesh, x[rows]))
    # Ground contacts from vertex heights (ipctk 1.6.1 lists plane pairs only below dhat/2).
    z = x[:, 2]
    on_ground = z < dhat
    object_ground = int(on_ground[system.object_rows].sum())
    min_z = float(z.min())
    free = True
    if check_intersections:
        free = (not ipc.has_intersections(system.collision_mesh, x)) and min_z > 0
    return ContactSummary(
        pad_object=pad_object,
        object_ground=object_ground,
        pad_ground=int(on_ground.sum()) - object_ground,
        pad_pad=len(pads),
        grip_force_n=forces,
        min_distance_m=float(min(d_min, min_z)),
        object_min_z_m=float(z[system.object_rows].min()),
        intersection_free=bool(free),
    )
