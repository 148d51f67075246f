"""The contact forces an analytic model holds the object's weight with, for drawing.

The models decide how large a load their contacts can hold (the margin s*); the forces that
hold a given load are not unique (the grasp is statically indeterminate), and the LP / SOCP
solutions at s* are an arbitrary vertex at the limit load. So every model's forces are drawn by
one stated rule, on that model's own contacts:

- Load held: the object's weight m g at its centre of mass, times `scale` = min(1, s*): the
  whole weight when the model holds it, the largest multiple it holds when it fails (s* < 1).
- Normal forces: the grip as the model presses: a point contact (Soft point) pushes with the
  closing force F along its normal; a patch (REACH, 6DFC, 6DLS, exact area) with each friction
  cell's share of the pressure (engine.analytic.contact_profile.friction_cells, the cells the
  models use), summing to the jaw's closing force.
- Friction: the tangential forces (and, at a soft point, the torsional moment about its normal,
  up to gamma F) that, with the normal forces, balance the held load in force and in moment
  about the centre of mass, chosen with the smallest pressure-weighted norm
  sum_i |t_i|^2 / F_i + (mu / gamma)^2 m_i^2 / F_i. Under a pure pull every cell then uses the
  same fraction of its Coulomb cone (t_i proportional to F_i). The rule does not clip at the
  cone: `cone_use` (the largest |t_i| / (mu F_i)) says how much of it the busiest contact needs,
  and `residual` how much of the load no tangential force can balance (a hard point cannot
  resist torsion about the line through the two points).

Conventions of engine.analytic.contact_patch: resting frame, forces on the object, N.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.analytic.contact_patch import ContactPatch, ContactPoint
from engine.analytic.contact_profile import friction_cells
from engine.analytic.wrench import gravity_wrench, tangent_basis, wrench_columns


@dataclass(frozen=True, eq=False)
class ContactForces:
    """One model's contact forces on the object (module docstring: the rule), per contact
    point or friction cell i, in the object's resting frame."""

    points: np.ndarray  # (n, 3) m, where each force acts
    jaw: np.ndarray  # (n,) the jaw of each point (0, 1)
    normal_n: np.ndarray  # (n, 3) N, normal force on the object
    friction_n: np.ndarray  # (n, 3) N, friction (tangential) force on the object
    torsion_nm: np.ndarray  # (n, 3) N m, torsional moment about the normal (soft point only)
    weight_n: np.ndarray  # (3,) N, the object's weight m g (pointing down)
    com: np.ndarray  # (3,) m, the centre of mass it acts at
    scale: float  # the multiple of the weight these forces hold: min(1, margin)
    mu: float
    residual: float  # |unbalanced wrench| / |weight| (0: in equilibrium)

    def per_jaw(self, kind: str) -> list[float]:
        """The size of each jaw's resultant of `kind` ("normal" or "friction"), N."""
        f = self.normal_n if kind == "normal" else self.friction_n
        return [float(np.linalg.norm(f[self.jaw == j].sum(axis=0))) for j in (0, 1)]

    @property
    def cone_use(self) -> float:
        """The largest |friction| / (mu |normal|) over the contacts (<= 1: inside every cone)."""
        fn = np.linalg.norm(self.normal_n, axis=1)
        ft = np.linalg.norm(self.friction_n, axis=1)
        if not len(ft) or not ft.max() > 0:
            return 0.0
        cap = self.mu * fn
        return float(np.max(np.where(cap > 0, ft / np.maximum(cap, 1e-300), math.inf)))


def held_scale(margin: float) -> float | None:
    """The multiple of the weight drawn for a model's margin: min(1, s*); None for NaN."""
    if math.isnan(margin):
        return None
    return min(1.0, max(margin, 0.0))


def _points(
    contacts: list[ContactPoint] | list[ContactPatch], closing_force_n: float, cell_m: float
) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(positions, unit normals, normal forces F_i, jaw) of the contacts' force points."""
    pos, nrm, force, jaw = [], [], [], []
    for c in contacts:
        if isinstance(c, ContactPoint):
            p, n = np.asarray(c.position, float)[None], np.asarray(c.normal, float)[None]
            f = np.array([float(closing_force_n)])
        else:
            cells = friction_cells(c, cell_m)
            p, n, f = cells.positions, cells.normals, cells.forces
        pos.append(p)
        nrm.append(n)
        force.append(f)
        jaw.append(np.full(len(f), int(c.jaw)))
    return np.vstack(pos), np.vstack(nrm), np.concatenate(force), np.concatenate(jaw)


def contact_forces(
    contacts: list[ContactPoint] | list[ContactPatch],
    mass_kg: float,
    com: np.ndarray,
    mu: float,
    scale: float,
    closing_force_n: float,
    torsion_m: float = 0.0,
    cell_m: float = 0.0,
) -> ContactForces:
    """The forces on `contacts` holding `scale` times the weight of `mass_kg` at `com` (module
    docstring). torsion_m: gamma of a soft point (N m of torsion per N of normal force; 0: none,
    and for patches, whose cells resist torsion by their spread). cell_m: friction cell size."""
    com = np.asarray(com, dtype=float).reshape(3)
    pos, nrm, fn, jaw = _points(contacts, closing_force_n, cell_m)
    normal = fn[:, None] * nrm
    load = scale * gravity_wrench(mass_kg)
    # Friction must supply what the normal forces and the held load leave: sum = 0.
    need = -load - wrench_columns(pos, normal, com).sum(axis=0)
    basis = np.swapaxes(tangent_basis(nrm), 1, 2)  # (n, 2, 3) tangent directions
    cols = [wrench_columns(pos[:, None, :], basis, com).reshape(-1, 6)]
    weights = [np.repeat(fn, 2)]
    points = isinstance(contacts[0], ContactPoint) if contacts else False
    if points and torsion_m > 0 and mu > 0:
        cols.append(np.hstack([np.zeros_like(nrm), nrm]))
        weights.append(fn * (torsion_m / mu) ** 2)
    a = np.vstack(cols).T  # (6, k)
    root = np.sqrt(np.concatenate(weights))
    # Torque rows per RMS arm (conditioning only: the constraint is met exactly or not at all).
    arm = max(float(np.sqrt(np.mean(np.sum((pos - com) ** 2, axis=1)))), 1e-6)
    row = np.array([1.0, 1.0, 1.0, 1 / arm, 1 / arm, 1 / arm])
    y, *_ = np.linalg.lstsq(a * root * row[:, None], need * row, rcond=None)
    x = root * y
    friction = np.einsum("nk,nki->ni", x[: 2 * len(fn)].reshape(-1, 2), basis)
    torsion = np.zeros_like(nrm)
    if len(x) > 2 * len(fn):
        torsion = x[2 * len(fn) :, None] * nrm
    unbalanced = (a @ x - need) * row
    size = max(float(np.linalg.norm(gravity_wrench(mass_kg) * row)), 1e-300)
    return ContactForces(
        points=pos,
        jaw=jaw,
        normal_n=normal,
        friction_n=friction,
        torsion_nm=torsion,
        weight_n=gravity_wrench(mass_kg)[:3],
        com=com,
        scale=float(scale),
        mu=float(mu),
        residual=float(np.linalg.norm(unbalanced)) / size,
    )
