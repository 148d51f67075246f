"""The discrete grasp system: DOF layout, masses, elastic pads, the affine object, collision mesh.

DOF vector u = [pad 0 vertices (3 n0), pad 1 vertices (3 n1), object affine state q (12)].
Glued (back-face) pad vertices are Dirichlet: moved with their plate, never solved for.
Collision vertices X = J u stack the pads' surface vertices and the object's surface vertices.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp

from engine.constants import GRAVITY_M_S2
from engine.fem.element_hessian_cache import ElementHessianCache
from engine.fem.neohookean import (
    HessianAssembler,
    TetRest,
    elastic_energy,
    lame_parameters,
    tet_rest,
)
from engine.gripper.pad_geometry import PadMesh
from engine.ipc.affine_body import AffineBody, identity_state
from engine.ipc.collision_layout import OBJECT_OWNER as OBJECT_OWNER  # re-exported
from engine.ipc.collision_layout import PAD_OWNER as PAD_OWNER  # re-exported
from engine.ipc.collision_layout import CollisionLayout, stacked_surfaces
from engine.ipc.sparse_products import stacked_positions
from engine.scene.resting import RestingObject


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


class GraspSystem(CollisionLayout):
    """Static structure of one grasp simulation (built once per trial): the collision layout
    (engine.ipc.collision_layout) and the DOFs, masses and elasticity that move it."""

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
        object_surface: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """`object_surface`: (vertex ids, faces over those ids) of the part of the object's
        surface that takes part in contact (engine.grasp.contact_region); the whole surface by
        default. Its mass properties are the whole object's either way."""
        self.mu_lame, self.lambda_lame = lame_parameters(youngs_modulus_pa, poisson_ratio)
        self.pads = _pad_blocks(pads, self.mu_lame, self.lambda_lame, pad_density_kg_m3)
        offset = self.pads[1].dof.stop
        self.obj_dof = slice(offset, offset + 12)
        self.ndof = offset + 12

        # Object: affine body about its centre of mass, lifted by object_lift_m off the ground.
        com = np.asarray(obj.center_of_mass, dtype=float)
        whole = np.asarray(obj.vertices, dtype=float) - com
        if object_surface is None:
            ids, object_faces = np.arange(len(whole)), np.asarray(obj.faces, dtype=np.int64)
        else:
            ids, object_faces = object_surface
        # The whole body's reach about its centre (its residual's torque scale) and extent (the
        # barrier stiffness's scale) do not depend on which faces take part in contact.
        self.object_radius_m = float(np.linalg.norm(whole, axis=1).max())
        self.object = AffineBody(
            body_points=whole[ids],
            mass_kg=float(obj.mass_kg),
            second_moment=np.asarray(obj.second_moment, dtype=float),
            volume_m3=float(obj.volume_m3),
            stiffness_pa=object_stiffness_pa,
        )
        self.object_faces = np.asarray(object_faces, dtype=np.int64)

        u0 = np.zeros(self.ndof)
        for blk, xw in zip(self.pads, pad_world, strict=True):
            u0[blk.dof] = np.asarray(xw, dtype=float).ravel()
        u0[self.obj_dof] = identity_state(com + np.array([0.0, 0.0, object_lift_m]))
        self.u_initial = u0
        self.mass, self.gravity_force = self._mass_and_gravity()

        # Dirichlet DOFs: glued pad vertices.
        fixed = np.zeros(self.ndof, dtype=bool)
        for b in self.pads:
            idx = np.flatnonzero(b.mesh.glued)
            for k in range(3):
                fixed[b.dof.start + 3 * idx + k] = True
        self.fixed_mask = fixed
        self.free = np.flatnonzero(~fixed)
        self.fixed = np.flatnonzero(fixed)

        # Collision vertices: pad surfaces then the object surface; X = J u.
        # J's pad rows each pick one DOF: these (collision_vertices computes J u from them).
        self._pad_columns = np.concatenate(
            [b.dof.start + (3 * b.surface_ids[:, None] + np.arange(3)).ravel() for b in self.pads]
        ).astype(np.int64)
        self.jacobian = self._collision_jacobian()
        self.jacobian_free = self.jacobian[:, self.free].tocsr()
        faces, owner, _ = stacked_surfaces(pads, self.object_faces, len(ids))
        super().__init__(self.collision_vertices(u0), faces, owner)
        if object_surface is not None:
            placed = whole + u0[self.obj_dof][:3]
            x0 = np.vstack([self.collision_vertices(u0)[: self.object_rows.start], placed])
            self.bbox_diagonal = float(np.linalg.norm(x0.max(axis=0) - x0.min(axis=0)))

    def _mass_and_gravity(self) -> tuple[sp.csr_matrix, np.ndarray]:
        """The mass matrix (pads lumped, the object's consistent 12x12) and gravity's force."""
        diag = np.concatenate([np.repeat(b.vertex_masses, 3) for b in self.pads])
        mass = sp.block_diag(
            [sp.diags(diag), sp.csr_matrix(self.object.mass_matrix())], format="csr"
        )
        g = np.zeros(self.ndof)
        for b in self.pads:
            g[b.dof.start + 2 : b.dof.stop : 3] = -GRAVITY_M_S2 * b.vertex_masses
        g[self.obj_dof.start + 2] = -GRAVITY_M_S2 * self.object.mass_kg
        return mass, g

    def _collision_jacobian(self) -> sp.csr_matrix:
        """J with X = J u: the pads' surface vertices picked, the object's from its state."""
        cols = self._pad_columns
        rows = np.arange(len(cols))
        j_blocks = [sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=(len(rows), self.ndof))]
        j_obj = self.object.jacobian().tocoo()
        j_blocks.append(
            sp.csr_matrix(
                (j_obj.data, (j_obj.row, j_obj.col + self.obj_dof.start)),
                shape=(j_obj.shape[0], self.ndof),
            )
        )
        return sp.vstack(j_blocks, format="csr")

    def collision_vertices(self, u: np.ndarray) -> np.ndarray:
        """(n_collision, 3) world positions of the collision vertices: J u, computed from J's
        structure (sparse_products.stacked_positions), the same floats as the product."""
        points = self.object.body_points
        return stacked_positions(
            np.ascontiguousarray(u, dtype=np.float64), self._pad_columns, self.obj_dof.start, points
        )

    def pad_positions(self, u: np.ndarray, k: int) -> np.ndarray:
        """(n, 3) positions of pad k's vertices in u (a view)."""
        return u[self.pads[k].dof].reshape(-1, 3)

    def object_state(self, u: np.ndarray) -> np.ndarray:
        """The object's 12 affine DOFs in u (translation, then the 3x3 matrix; a view)."""
        return u[self.obj_dof]

    def pad_energies(self, u: np.ndarray) -> tuple[float, float]:
        """Each pad's strain energy (J) at u."""
        out = [
            elastic_energy(self.pad_positions(u, k), blk.rest, self.mu_lame, self.lambda_lame)
            for k, blk in enumerate(self.pads)
        ]
        return (out[0], out[1])


# Each pad mesh's rest data and element Hessian pattern, made once per mesh: both pads of a
# grasp and every trial of a batch share one mesh (~2.6 ms per pad and trial on the 3 mm pad).
# Both hold read-only data only.
_PAD_REST: weakref.WeakKeyDictionary[PadMesh, tuple[TetRest, HessianAssembler]] = (
    weakref.WeakKeyDictionary()
)


def _rest_of(mesh: PadMesh) -> tuple[TetRest, HessianAssembler]:
    made = _PAD_REST.get(mesh)
    if made is None:
        rest = tet_rest(mesh.vertices, mesh.tets)
        made = _PAD_REST[mesh] = (rest, HessianAssembler(rest))
    return made


def _pad_blocks(
    pads: tuple[PadMesh, PadMesh], mu_lame: float, lambda_lame: float, density_kg_m3: float
) -> tuple[PadBlock, PadBlock]:
    """Each pad's slice of the system: its DOFs (pad 0's first), lumped masses, elastic
    assembly and collision rows (its surface vertices, pad 0's first)."""
    blocks = []
    offset = 0
    crow = 0
    for mesh in pads:
        n = len(mesh.vertices)
        rest, assembler = _rest_of(mesh)
        masses = np.zeros(n)
        np.add.at(masses, mesh.tets.ravel(), np.repeat(rest.volumes * density_kg_m3 / 4, 4))
        ns = len(mesh.surface_vertices)
        blocks.append(
            PadBlock(
                mesh=mesh,
                rest=rest,
                assembler=assembler,
                hessians=ElementHessianCache(rest, mu_lame, lambda_lame, assembler),
                dof=slice(offset, offset + 3 * n),
                vertex_masses=masses,
                collision_rows=slice(crow, crow + ns),
                surface_ids=np.asarray(mesh.surface_vertices, dtype=np.int64),
            )
        )
        offset += 3 * n
        crow += ns
    return (blocks[0], blocks[1])
