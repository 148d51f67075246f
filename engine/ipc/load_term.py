"""An external load on the object over one time step: a force at its centre of mass and a torque
(N, N m, world frame), held constant over the step, as a disturbance test applies them
(engine.grasp.disturbance).

The object is an affine body, q = [p, a0, a1, a2] (engine.ipc.affine_body): a force f at the
centre of mass does the work f . dp; a torque tau on a rotation A does tau . dtheta with
da_j = dtheta x a_j, which the generalized force (tau x a_j) / 2 on each column reproduces for
orthonormal columns (sum_j (tau x a_j) . (dtheta x a_j) / 2 = tau . dtheta). The columns are
taken at the step's start, so the term is linear in the unknowns: E = -f_q . u, no Hessian.
"""

from __future__ import annotations

import numpy as np

from engine.ipc.affine_body import affine_matrix
from engine.ipc.system import GraspSystem
from engine.ipc.terms import Assembly


def generalized_load(
    system: GraspSystem, u: np.ndarray, force_n: np.ndarray, torque_nm: np.ndarray
) -> np.ndarray:
    """The load over all DOFs (N, or N m for the affine columns) at state u."""
    a = affine_matrix(system.object_state(u))
    tau = np.asarray(torque_nm, dtype=float)
    out = np.zeros(system.ndof)
    obj = system.obj_dof.start
    out[obj : obj + 3] = np.asarray(force_n, dtype=float)
    for j in range(3):
        out[obj + 3 * (j + 1) : obj + 3 * (j + 2)] = 0.5 * np.cross(tau, a[:, j])
    return out


class LoadTerm:
    """-f_q . u over one step: a constant force and torque on the object (a Term)."""

    def __init__(
        self, system: GraspSystem, u_start: np.ndarray, force_n: np.ndarray, torque_nm: np.ndarray
    ) -> None:
        self.load = generalized_load(system, u_start, force_n, torque_nm)

    def value(self, u: np.ndarray) -> float:
        """The load's potential energy (J)."""
        return -float(self.load @ u)

    def add_gradient(self, u: np.ndarray, out: Assembly) -> None:
        """Add -f_q to `out`."""
        out.add_full_gradient(-self.load)

    def add_gradient_hessian(self, u: np.ndarray, project: bool, out: Assembly) -> None:
        """Add -f_q (the term is linear: no Hessian)."""
        out.add_full_gradient(-self.load)

    def max_step(self, u: np.ndarray, du_free: np.ndarray, du: np.ndarray) -> float:
        """Any step."""
        return 1.0

    def begin(self, u: np.ndarray) -> None:
        """Nothing to prepare."""

    def accept(self, u: np.ndarray) -> bool:
        """Its form never changes."""
        return False

    def structure(self) -> None:
        """No Hessian."""
        return None
