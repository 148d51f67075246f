"""What a frame reports about contact: who touches whom, grip force per pad, minimum distance,
and the contact forces on the object (where they act, normal and friction parts)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.ipc import ipctk_gateway as ipc
from engine.ipc.contact_term import ContactTerm
from engine.ipc.system import OBJECT_OWNER, GraspSystem

# ContactForces.source: which body pushes the object at a point.
SOURCE_PAD1, SOURCE_PAD2, SOURCE_GROUND = 0, 1, 2


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
        mesh, rows, c = system.pair_collisions(k, OBJECT_OWNER, x, dhat)
        xs = x[rows]
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
    mesh, rows, pads = system.pair_collisions(0, 1, x, dhat)
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


@dataclass(frozen=True)
class ContactForces:
    """The contact forces acting on the object at one state, one row per contact point.

    `source` says who exerts each row's force (SOURCE_PAD1, SOURCE_PAD2, SOURCE_GROUND). A
    pad's forces are placed at the pad's own contact vertices (within dhat of the object's
    surface), the ground's at the object's vertices on the ground; see object_contact_forces.
    """

    points: np.ndarray  # (n, 3) world positions (m)
    normal_n: np.ndarray  # (n, 3) the barrier's (normal) contact force on the object (N)
    friction_n: np.ndarray  # (n, 3) the friction force on the object (N)
    source: np.ndarray  # (n,) int8

    @classmethod
    def empty(cls) -> ContactForces:
        """No contact."""
        z = np.zeros((0, 3))
        return cls(z, z.copy(), z.copy(), np.zeros(0, dtype=np.int8))

    def total_n(self, source: int | None = None) -> np.ndarray:
        """Resultant (normal + friction) of the rows of `source`, or of all rows (N)."""
        keep = slice(None) if source is None else self.source == source
        return np.asarray((self.normal_n[keep] + self.friction_n[keep]).sum(axis=0))


def object_contact_forces(
    system: GraspSystem, contact: ContactTerm, x: np.ndarray
) -> ContactForces:
    """The contact forces the pads and the ground exert on the object at collision positions x,
    the end of the time step whose contact term is `contact`.

    Normal forces: minus the gradient of the step's barrier over its contact set at x (in the
    divided-by-h^2 potential the gradient is a force in N, as in grip_forces). Friction forces:
    minus the gradient of the step's lagged friction potential (its pairs, normal forces and
    tangent bases fixed at the step's start, exactly as the solver used them).

    Where they act: the ground's forces at the object's vertices on the ground (plane-vertex
    pairs, exact). A pad's forces at the pad's contact vertices: a pair's barrier is unchanged
    by a rigid motion of its vertices, so its gradients sum to zero and so do their moments;
    the object's share of a pad's barrier forces therefore has the same resultant and the same
    moment about any point as the gradients at the pad's vertices placed there (Newton's third
    law, pair by pair). The pad's vertices lie on the pressed patch, within a pad edge of the
    contact, whereas the object's own vertices can be far from it (the built-in cube's are its 8
    corners). For friction the resultant is equal too, the moment nearly (lagged bases).
    """
    mesh = system.collision_mesh
    dhat = contact.dhat
    normal_all = np.zeros((system.n_collision, 3))
    friction_all = np.zeros_like(normal_all)
    normal_other, friction_other = contact.ground_gradients(x)
    if len(contact.collisions):
        normal_all = contact.barrier.gradient(contact.collisions, mesh, x).reshape(-1, 3)
        normal_other += _pad_pad_gradient(system, contact.barrier, contact.collisions, x, x, dhat)
    if len(contact.tangential):
        dx = x - contact.x_prev
        friction_all = contact.friction.gradient(contact.tangential, mesh, dx).reshape(-1, 3)
        friction_other += _pad_pad_gradient(
            system, contact.friction, contact.tangential, dx, contact.x_prev, dhat
        )
    # Pad rows: pad-object pairs only; object rows: the ground's pairs only (the other pairs on
    # pad rows are pad-ground and pad-pad pairs, which never reach the object's rows).
    parts = []
    for k, blk in enumerate(system.pads):
        r = blk.collision_rows
        normal = normal_all[r] - normal_other[r]
        friction = friction_all[r] - friction_other[r]
        parts.append((x[r], normal, friction, k))
    r = system.object_rows
    parts.append((x[r], -normal_other[r], -friction_other[r], SOURCE_GROUND))
    points, normals, frictions, sources = [], [], [], []
    for p, fn, ff, src in parts:
        active = np.any(fn != 0.0, axis=1) | np.any(ff != 0.0, axis=1)
        points.append(p[active])
        normals.append(fn[active])
        frictions.append(ff[active])
        sources.append(np.full(int(active.sum()), src, dtype=np.int8))
    return ContactForces(
        np.concatenate(points),
        np.concatenate(normals),
        np.concatenate(frictions),
        np.concatenate(sources),
    )


def _pad_pad_gradient(
    system: GraspSystem,
    potential: ipc.BarrierPotential | ipc.FrictionPotential,
    pairs: ipc.NormalCollisions | ipc.TangentialCollisions,
    x: np.ndarray,
    x_pairs: np.ndarray,
    dhat: float,
) -> np.ndarray:
    """(n_collision, 3) gradient of `potential` at x (positions, or displacements for friction)
    over the pad-pad pairs. `x_pairs`: the positions the pairs were found at.

    Present only when the jaws touch each other: then every pair is evaluated one by one
    (about 30 us each); the vertex-ground pairs, the other pairs that do not act between a pad
    and the object, come from ContactTerm.ground_gradients in one call.
    """
    out = np.zeros((system.n_collision, 3))
    if not len(pairs) or not _pads_touch(system, x_pairs, dhat):
        return out
    mesh = system.collision_mesh
    for pair in pairs:
        if ipc.is_plane_vertex(pair):
            continue
        ids, g = ipc.pair_gradient(potential, pair, mesh, x)
        if np.all(system.collision_owner[ids] != OBJECT_OWNER):
            np.add.at(out, ids, g)
    return out


def _pads_touch(system: GraspSystem, x: np.ndarray, dhat: float) -> bool:
    """Whether any pad-pad pair is closer than dhat at x."""
    return len(system.pair_collisions(0, 1, x, dhat)[2]) > 0
