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
- Friction: the tangential forces t_i (and, at a soft point, the torsional moment m_i about
  its normal) that, with the normal forces, balance the held load in force and in moment
  about the centre of mass, chosen with the smallest pressure-weighted norm
  sum_i |t_i|^2 / F_i + (mu / gamma)^2 m_i^2 / F_i (under a pure pull every cell then uses the
  same fraction of its Coulomb cone: t_i proportional to F_i), among those inside every cone,
  |t_i| <= mu F_i, and a soft point's torsion limit, |m_i| <= gamma F_i. When the plain
  smallest-norm forces leave a cone (a moment at the limit load) the constrained ones come from
  one small convex QP (Clarabel); when none exist within the cones (a model whose linearised
  limit surface holds slightly more than the cones allow), the plain ones are kept and
  `cone_use` (the largest |t_i| / (mu F_i), or |m_i| / (gamma F_i)) says by how much they
  exceed. `residual` is the part of the load no tangential force can balance (a hard point
  cannot resist torsion about the line through the two points).

Conventions of engine.analytic.contact_patch: resting frame, forces on the object, N.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace

import numpy as np

from engine.analytic.contact_patch import ContactPatch, ContactPoint
from engine.analytic.contact_profile import friction_cells
from engine.analytic.wrench import gravity_wrench, tangent_basis, wrench_columns
from engine.constants import GRAVITY_M_S2


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
    # (n,) N m, the torsion a soft point resists at most, gamma F (0: none; patches)
    torsion_limit_nm: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def per_jaw(self, kind: str) -> list[float]:
        """The size of each jaw's resultant of `kind` ("normal" or "friction"), N."""
        f = self.normal_n if kind == "normal" else self.friction_n
        return [float(np.linalg.norm(f[self.jaw == j].sum(axis=0))) for j in (0, 1)]

    def describe(self, label: str) -> str:
        """One line naming the model and its forces, e.g. "REACH: normal 20 N per jaw, friction
        0.098 N per jaw (16 % of the friction limit at the busiest contact) hold 0.02 kg (its
        weight)" (the app's legend, `ipcgrasp analyze`)."""
        mass = float(np.linalg.norm(self.weight_n)) / GRAVITY_M_S2
        held = (
            "its weight"
            if self.scale >= 1.0
            else f"{self.scale:.3g} x its weight, the most it holds"
        )
        parts = [
            f"{label}: normal {_pair(self.per_jaw('normal'), '.3g')} N per jaw",
            f"friction {_pair(self.per_jaw('friction'), '.2g')} N per jaw "
            f"({100 * self.cone_use:.2g} % of the friction limit at the busiest contact)",
        ]
        torsion = np.linalg.norm(self.torsion_nm, axis=1)
        if len(torsion) and torsion.max() > 1e-9:  # N m: round-off of a centred grasp is 1e-20
            parts.append(f"torsion {1e3 * float(torsion.max()):.2g} N mm at a point")
        text = ", ".join(parts) + f" hold {self.scale * mass:.3g} kg ({held})"
        if self.residual > 1e-6:
            text += f"; {100 * self.residual:.2g} % of the load is not balanced"
        return text

    @property
    def cone_use(self) -> float:
        """The largest |friction| / (mu |normal|) over the contacts, and at a soft point
        |torsion| / (gamma |normal|) (<= 1: inside every cone and torsion limit)."""
        fn = np.linalg.norm(self.normal_n, axis=1)
        use = [_ratio(np.linalg.norm(self.friction_n, axis=1), self.mu * fn)]
        if len(self.torsion_limit_nm):
            use.append(_ratio(np.linalg.norm(self.torsion_nm, axis=1), self.torsion_limit_nm))
        return max(use)


def _pair(values: list[float], fmt: str) -> str:
    """Both jaws' values, "20 / 18", or one when they agree to 0.1 %."""
    a, b = values
    if abs(a - b) <= 1e-3 * max(abs(a), abs(b)):
        return format(a, fmt)
    return f"{a:{fmt}} / {b:{fmt}}"


def _ratio(value: np.ndarray, cap: np.ndarray) -> float:
    """The largest value / cap (0 when every value is 0; inf where a value has no cap)."""
    if not len(value) or not value.max() > 0:
        return 0.0
    return float(
        np.max(np.where(cap > 0, value / np.maximum(cap, 1e-300), np.where(value > 0, np.inf, 0.0)))
    )


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


def _min_norm(a: np.ndarray, need: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The x with a x = need (least squares when none) of the smallest sum x_k^2 / weights_k.
    Rows of a: 3 forces then 3 torques, the torques already divided by a length."""
    root = np.sqrt(weights)
    y, *_ = np.linalg.lstsq(a * root, need, rcond=None)
    return root * y


def _min_norm_in_cones(
    a: np.ndarray, need: np.ndarray, weights: np.ndarray, caps: np.ndarray, pairs: int
) -> np.ndarray | None:
    """As _min_norm with each tangential pair (x_2i, x_2i+1), i < pairs, of norm at most
    caps[i] and the j-th further x (a torsion, x_2pairs+j) of size at most caps[pairs + j]: one
    small convex QP (Clarabel). None when no such x exists or the solver does not say solved."""
    import clarabel
    from scipy import sparse

    k = a.shape[1]
    unit = max(float(caps.max()), 1e-300)  # variables in units of the largest cap: O(1)
    p_mat = sparse.diags(weights.max() / np.maximum(weights, 1e-300), format="csc")
    rows, b = [sparse.csc_matrix(a * unit)], [need]
    cones: list = [clarabel.ZeroConeT(6)]
    extra = k - 2 * pairs
    if extra:  # |m| <= cap: cap - m >= 0 and cap + m >= 0
        eye = sparse.eye(extra, format="csc")
        pick = sparse.hstack([sparse.csc_matrix((extra, 2 * pairs)), eye])
        rows.append(sparse.vstack([pick, -pick]))
        b.append(np.tile(caps[pairs:] / unit, 2))
        cones.append(clarabel.NonnegativeConeT(2 * extra))
    # Per pair: (cap_i, x_2i, x_2i+1) in the second-order cone: rows (0, -1, -1), b (cap_i, 0, 0).
    i = np.arange(pairs)
    soc = sparse.coo_matrix(
        (-np.ones(2 * pairs), (np.r_[3 * i + 1, 3 * i + 2], np.r_[2 * i, 2 * i + 1])),
        shape=(3 * pairs, k),
    )
    rows.append(soc)
    cap_rows = np.zeros(3 * pairs)
    cap_rows[3 * i] = caps[:pairs] / unit
    b.append(cap_rows)
    cones += [clarabel.SecondOrderConeT(3)] * pairs
    settings = clarabel.DefaultSettings()
    settings.verbose = False
    solver = clarabel.DefaultSolver(
        p_mat, np.zeros(k), sparse.vstack(rows, format="csc"), np.concatenate(b), cones, settings
    )
    sol = solver.solve()
    if str(sol.status) not in ("Solved", "AlmostSolved"):
        return None
    x = np.asarray(sol.x) * unit
    # The solver meets a x = need to its tolerance: the smallest correction makes it exact.
    return x + _min_norm(a, need - a @ x, weights)


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
    weight = gravity_wrench(mass_kg)
    # Torque rows per RMS arm (conditioning only: the constraint is met exactly or not at all).
    arm = max(float(np.sqrt(np.mean(np.sum((pos - com) ** 2, axis=1)))), 1e-6)
    row = np.array([1.0, 1.0, 1.0, 1 / arm, 1 / arm, 1 / arm])
    # Friction must supply what the normal forces and the held load leave: sum = 0.
    need = (-scale * weight - wrench_columns(pos, normal, com).sum(axis=0)) * row
    basis = np.swapaxes(tangent_basis(nrm), 1, 2)  # (n, 2, 3) tangent directions
    cols = [wrench_columns(pos[:, None, :], basis, com).reshape(-1, 6)]
    weights, caps = [np.repeat(fn, 2)], [mu * fn]
    torsion_limit = np.zeros(len(fn))
    if contacts and isinstance(contacts[0], ContactPoint) and torsion_m > 0 and mu > 0:
        cols.append(np.hstack([np.zeros_like(nrm), nrm]))
        weights.append(fn * (torsion_m / mu) ** 2)
        torsion_limit = torsion_m * fn
        caps.append(torsion_limit)
    a = np.vstack(cols).T * row[:, None]  # (6, k)
    w = np.concatenate(weights)
    x = _min_norm(a, need, w)
    forces = _forces(pos, jaw, normal, x, basis, weight, com, scale, mu, torsion_limit)
    if forces.cone_use > 1.0 and mu > 0:
        inside = _min_norm_in_cones(a, need, w, np.concatenate(caps), len(fn))
        if inside is not None:
            forces = _forces(pos, jaw, normal, inside, basis, weight, com, scale, mu, torsion_limit)
            x = inside
    unbalanced = float(np.linalg.norm(a @ x - need))
    return replace(forces, residual=unbalanced / max(float(np.linalg.norm(weight * row)), 1e-300))


def _forces(
    pos: np.ndarray,
    jaw: np.ndarray,
    normal: np.ndarray,
    x: np.ndarray,
    basis: np.ndarray,
    weight: np.ndarray,
    com: np.ndarray,
    scale: float,
    mu: float,
    torsion_limit: np.ndarray,
) -> ContactForces:
    """ContactForces from the solved tangential components (and torsions) x."""
    n = len(pos)
    friction = np.einsum("nk,nki->ni", x[: 2 * n].reshape(-1, 2), basis)
    torsion = np.zeros_like(pos)
    if len(x) > 2 * n:
        torsion = x[2 * n :, None] * normal / np.linalg.norm(normal, axis=1, keepdims=True)
    return ContactForces(
        points=pos,
        jaw=jaw,
        normal_n=normal,
        friction_n=friction,
        torsion_nm=torsion,
        weight_n=weight[:3],
        com=com,
        scale=float(scale),
        mu=float(mu),
        residual=0.0,
        torsion_limit_nm=torsion_limit,
    )
