"""The discrete grasp system: DOF layout, masses, elastic pads, the affine object, collision mesh.

DOF vector u = [pad 0 vertices (3 n0), pad 1 vertices (3 n1), object affine state q (12)].
Glued (back-face) pad vertices are Dirichlet: moved with their plate, never solved for.
Collision vertices X = J u stack the pads' surface vertices and the object's surface vertices.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import scipy.sparse as sp
from numba import njit

from engine.constants import GRAVITY_M_S2
from engine.fem.element_hessian_cache import ElementHessianCache
from engine.fem.neohookean import HessianAssembler, TetRest, lame_parameters, tet_rest
from engine.gripper.pad_geometry import PadMesh
from engine.ipc import ipctk_gateway as ipc
from engine.ipc.affine_body import AffineBody, identity_state
from engine.ipc.candidate_cover import CandidateCover
from engine.scene.resting import RestingObject

PAD_OWNER = (0, 1)
OBJECT_OWNER = 2


# Room a pair cover leaves the bodies' relative motion, in units of the pair radius.
PAIR_COVER_MARGIN = 1.0


@dataclass(frozen=True)
class PadBlock:
    """One pad's slice of the system."""

    mesh: PadMesh
    rest: TetRest
    assembler: HessianAssembler
    hessians: ElementHessianCache  # the assembled elastic Hessian, kept between iterates
    dof: slice  # into u
    vertex_masses: np.ndarray  # (n,) lumped, kg
    collision_rows: slice  # rows of collision vertices owned by this pad
    surface_ids: np.ndarray  # pad vertex ids of its collision vertices


class GraspSystem:
    """Static structure of one grasp simulation (built once per trial)."""

    def __init__(
        self,
        pads: tuple[PadMesh, PadMesh],
        pad_world: tuple[np.ndarray, np.ndarray],
        obj: RestingObject,
        object_lift_m: float,
        youngs_modulus_pa: float,
        poisson_ratio: float,
        pad_density_kg_m3: float,
        object_stiffness_pa: float,
    ) -> None:
        self.mu_lame, self.lambda_lame = lame_parameters(youngs_modulus_pa, poisson_ratio)
        blocks = []
        offset = 0
        crow = 0
        for mesh in pads:
            n = len(mesh.vertices)
            rest = tet_rest(mesh.vertices, mesh.tets)
            assembler = HessianAssembler(rest)
            masses = np.zeros(n)
            np.add.at(masses, mesh.tets.ravel(), np.repeat(rest.volumes * pad_density_kg_m3 / 4, 4))
            ns = len(mesh.surface_vertices)
            blocks.append(
                PadBlock(
                    mesh=mesh,
                    rest=rest,
                    assembler=assembler,
                    hessians=ElementHessianCache(rest, self.mu_lame, self.lambda_lame, assembler),
                    dof=slice(offset, offset + 3 * n),
                    vertex_masses=masses,
                    collision_rows=slice(crow, crow + ns),
                    surface_ids=np.asarray(mesh.surface_vertices, dtype=np.int64),
                )
            )
            offset += 3 * n
            crow += ns
        self.pads: tuple[PadBlock, PadBlock] = (blocks[0], blocks[1])
        self.obj_dof = slice(offset, offset + 12)
        self.ndof = offset + 12

        # Object: affine body about its centre of mass, lifted by object_lift_m off the ground.
        com = np.asarray(obj.center_of_mass, dtype=float)
        self.object = AffineBody(
            body_points=np.asarray(obj.vertices, dtype=float) - com,
            mass_kg=float(obj.mass_kg),
            second_moment=np.asarray(obj.second_moment, dtype=float),
            volume_m3=float(obj.volume_m3),
            stiffness_pa=object_stiffness_pa,
        )
        self.object_faces = np.asarray(obj.faces, dtype=np.int64)
        self.object_rows = slice(crow, crow + len(obj.vertices))
        self.n_collision = crow + len(obj.vertices)

        u0 = np.zeros(self.ndof)
        for blk, xw in zip(self.pads, pad_world, strict=True):
            u0[blk.dof] = np.asarray(xw, dtype=float).ravel()
        u0[self.obj_dof] = identity_state(com + np.array([0.0, 0.0, object_lift_m]))
        self.u_initial = u0

        # Mass matrix (pads lumped, object consistent 12x12) and gravity force.
        diag = np.concatenate([np.repeat(b.vertex_masses, 3) for b in self.pads])
        self.mass = sp.block_diag(
            [sp.diags(diag), sp.csr_matrix(self.object.mass_matrix())], format="csr"
        )
        g = np.zeros(self.ndof)
        for b in self.pads:
            g[b.dof.start + 2 : b.dof.stop : 3] = -GRAVITY_M_S2 * b.vertex_masses
        g[self.obj_dof.start + 2] = -GRAVITY_M_S2 * self.object.mass_kg
        self.gravity_force = g

        # Dirichlet DOFs: glued pad vertices.
        fixed = np.zeros(self.ndof, dtype=bool)
        for b in self.pads:
            idx = np.flatnonzero(b.mesh.glued)
            for k in range(3):
                fixed[b.dof.start + 3 * idx + k] = True
        self.fixed_mask = fixed
        self.free = np.flatnonzero(~fixed)
        self.fixed = np.flatnonzero(fixed)

        # Collision mesh: pad surfaces then the object surface; X = J u.
        j_blocks = []
        faces = []
        for b in self.pads:
            s = b.surface_ids
            remap = -np.ones(len(b.mesh.vertices), dtype=np.int64)
            remap[s] = np.arange(len(s)) + b.collision_rows.start
            faces.append(remap[b.mesh.surface_faces])
            rows = np.arange(3 * len(s))
            cols = b.dof.start + (3 * s[:, None] + np.arange(3)[None, :]).ravel()
            j_blocks.append(
                sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(3 * len(s), self.ndof))
            )
        j_obj = self.object.jacobian().tocoo()
        j_blocks.append(
            sp.csr_matrix(
                (j_obj.data, (j_obj.row, j_obj.col + self.obj_dof.start)),
                shape=(j_obj.shape[0], self.ndof),
            )
        )
        faces.append(self.object_faces + self.object_rows.start)
        self.jacobian = sp.vstack(j_blocks, format="csr")
        self.jacobian_free = self.jacobian[:, self.free].tocsr()
        self.collision_faces = np.ascontiguousarray(np.vstack(faces), dtype=np.int32)
        x0 = self.collision_vertices(u0)
        owner = np.full(self.n_collision, OBJECT_OWNER, dtype=np.int8)
        for k, b in enumerate(self.pads):
            owner[b.collision_rows] = k
        self.collision_owner = owner
        # Only contacts between bodies (ipc.collision_mesh filters same-body pairs), plus the ground.
        self.collision_mesh = ipc.collision_mesh(x0, self.collision_faces, owner, ground=True)
        span = x0.max(axis=0) - x0.min(axis=0)
        self.bbox_diagonal = float(np.linalg.norm(span))

    @cached_property
    def ground_mesh(self) -> ipc.CollisionMesh:
        """Every collision vertex and the ground, no edges or faces (ipc.ground_mesh)."""
        return ipc.ground_mesh(self.collision_vertices(self.u_initial))

    def pair_mesh(self, a: int, b: int) -> tuple[ipc.CollisionMesh, np.ndarray]:
        """Collision mesh of two bodies only (owners a, b), no ground, and its collision rows.

        Building contacts on it counts exactly the a-b pairs without a Python loop.
        """
        cache = self.__dict__.setdefault("_pair_meshes", {})
        if (a, b) not in cache:
            rows = np.flatnonzero((self.collision_owner == a) | (self.collision_owner == b))
            remap = -np.ones(self.n_collision, dtype=np.int64)
            remap[rows] = np.arange(len(rows))
            faces = remap[self.collision_faces]
            faces = faces[(faces >= 0).all(axis=1)]
            x0 = self.collision_vertices(self.u_initial)[rows]
            mesh = ipc.collision_mesh(x0, faces, self.collision_owner[rows], ground=False)
            cache[(a, b)] = (mesh, rows)
        return cache[(a, b)]

    def pair_collisions(
        self, a: int, b: int, x: np.ndarray, radius: float
    ) -> tuple[ipc.CollisionMesh, np.ndarray, ipc.NormalCollisions]:
        """(pair_mesh(a, b), the a-b pairs closer than `radius` at collision positions x).

        Bodies whose bounding boxes are further apart than `radius` along an axis have no such
        pair: the set is then empty without a broad phase (~0.8 ms per build; the pads are
        almost always that far apart, and the object is from both pads in free flight)."""
        mesh, rows = self.pair_mesh(a, b)
        xs = x[rows]
        if self._boxes_apart(a, b, xs, rows, radius):
            return mesh, rows, ipc.NormalCollisions()
        # One broad phase per pair and radius while the bodies' relative positions hold it
        # (a lift moves them together): the narrow phase is ~0.1 of the 0.7 ms build.
        covers = self.__dict__.setdefault("_pair_covers", {})
        cover = covers.get((a, b, radius))
        if cover is None or not cover.covers(xs):
            margin = PAIR_COVER_MARGIN * radius
            cover = CandidateCover.of_move(mesh, xs, xs, 0.5 * radius, margin)
            covers[(a, b, radius)] = cover
        return mesh, rows, ipc.collisions_within_among(cover.candidates, mesh, xs, radius)

    def pair_distance(self, a: int, b: int, x: np.ndarray, radius: float) -> float:
        """The smallest distance (m) between bodies a and b at collision positions x if it is
        below `radius`, else inf: pair_collisions' minimum distance, its queries on
        ipctk_gateway's query threads (a count and a minimum need no pair order)."""
        mesh, rows = self.pair_mesh(a, b)
        xs = x[rows]
        if self._boxes_apart(a, b, xs, rows, radius):
            return float("inf")
        return ipc.distance_within(mesh, xs, radius)

    def _boxes_apart(self, a: int, b: int, xs: np.ndarray, rows: np.ndarray, radius: float) -> bool:
        """Whether bodies a and b (positions xs of the pair mesh's rows) have bounding boxes
        further apart than radius along an axis."""
        return bool(_boxes_apart(xs, self.collision_owner[rows], a, b, radius))

    def collision_vertices(self, u: np.ndarray) -> np.ndarray:
        """(n_collision, 3) world positions of the collision vertices."""
        return (self.jacobian @ u).reshape(-1, 3)

    def pad_positions(self, u: np.ndarray, k: int) -> np.ndarray:
        """(n, 3) positions of pad k's vertices in u (a view)."""
        return u[self.pads[k].dof].reshape(-1, 3)

    def object_state(self, u: np.ndarray) -> np.ndarray:
        """The object's 12 affine DOFs in u (translation, then the 3x3 matrix; a view)."""
        return u[self.obj_dof]


@njit(cache=True)
def _boxes_apart(xs: np.ndarray, owners: np.ndarray, a: int, b: int, radius: float) -> bool:
    # One pass over the pair's vertices (masking and reducing each body with numpy took
    # ~50 us per call, ~140 calls per trial).
    lo = np.full((2, 3), np.inf)
    hi = np.full((2, 3), -np.inf)
    for i in range(xs.shape[0]):
        o = owners[i]
        j = 0 if o == a else 1 if o == b else -1
        if j < 0:
            continue
        for k in range(3):
            v = xs[i, k]
            lo[j, k] = min(lo[j, k], v)
            hi[j, k] = max(hi[j, k], v)
    for k in range(3):
        if lo[0, k] > hi[1, k] + radius or lo[1, k] > hi[0, k] + radius:
            return True
    return False
