"""A rigid object as an affine body (ABD): 12 DOF, x = p + A X, with a stiff orthogonality energy.

DOF layout q = [p, a0, a1, a2] where a_j is column j of A, so a surface point with body
coordinates X (relative to the centre of mass) sits at x = p + X0 a0 + X1 a1 + X2 a2.
The map is linear in q, so contact quantities map through a constant Jacobian.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sp


@dataclass(frozen=True)
class AffineBody:
    """Rest data of one affine body."""

    body_points: np.ndarray  # (n,3) surface points relative to the centre of mass, resting frame
    mass_kg: float
    second_moment: np.ndarray  # (3,3) integral of rho X X^T dV about the centre of mass
    volume_m3: float
    stiffness_pa: float  # orthogonality stiffness k in E = k V ||A^T A - I||_F^2

    def mass_matrix(self) -> np.ndarray:
        """12x12 mass matrix: integral of rho J(X)^T J(X) dV with J(X) = [1, X0, X1, X2] (x) I3."""
        w = np.zeros((4, 4))
        w[0, 0] = self.mass_kg
        w[1:, 1:] = self.second_moment
        return np.kron(w, np.eye(3))

    def jacobian(self) -> sp.csr_matrix:
        """(3n x 12) map from q to stacked surface-point coordinates."""
        n = len(self.body_points)
        weights = np.hstack([np.ones((n, 1)), self.body_points])  # (n,4)
        rows = np.repeat(np.arange(3 * n), 4)
        cols = (np.arange(4)[None, None, :] * 3 + np.arange(3)[None, :, None]).repeat(n, axis=0)
        vals = np.repeat(weights[:, None, :], 3, axis=1)
        return sp.csr_matrix((vals.ravel(), (rows, cols.ravel())), shape=(3 * n, 12))


def identity_state(position: np.ndarray) -> np.ndarray:
    """q for the body translated to `position` (its centre of mass) and not rotated."""
    q = np.zeros(12)
    q[:3] = position
    q[3:] = np.eye(3).T.ravel()  # columns a0, a1, a2
    return q


def affine_matrix(q: np.ndarray) -> np.ndarray:
    """A (3x3) from q; columns are a0, a1, a2."""
    return q[3:12].reshape(3, 3).T


def pose_matrix(q: np.ndarray) -> np.ndarray:
    """4x4 world <- body transform of the (nearly rigid) affine state."""
    t = np.eye(4)
    t[:3, :3] = affine_matrix(q)
    t[:3, 3] = q[:3]
    return t


# The identity the orthogonality terms subtract (made once: np.eye costs ~1 us a call, and a
# Newton iteration evaluates these terms several times).
_EYE3 = np.eye(3)
_EYE3.flags.writeable = False


def orthogonality_energy(q: np.ndarray, k_volume: float) -> float:
    """k V ||A^T A - I||_F^2 (J); k_volume = k * V."""
    a = affine_matrix(q)
    g = a.T @ a - _EYE3
    return float(k_volume * np.sum(g * g))


def orthogonality_gradient(q: np.ndarray, k_volume: float) -> np.ndarray:
    """Gradient (12,) of the orthogonality energy: dE/da_i = 4 k V sum_j G_ij a_j."""
    a = affine_matrix(q)
    return _gradient_of(a, a.T @ a - _EYE3, k_volume)


def _gradient_of(a: np.ndarray, gram: np.ndarray, k_volume: float) -> np.ndarray:
    """The orthogonality gradient (12,) from A and its Gram matrix A^T A - I."""
    grad = np.zeros(12)
    grad[3:] = 4.0 * k_volume * (a @ gram).T.ravel()
    return grad


def orthogonality_gradient_hessian(
    q: np.ndarray, k_volume: float, project: bool = True
) -> tuple[float, np.ndarray, np.ndarray]:
    """Energy, gradient (12,) and Hessian (12,12) of the orthogonality energy, PSD-projected
    when `project`.

    With columns a_i of A and G = A^T A - I: dE/da_i = 4 k V sum_j G_ij a_j and
    d2E/da_i da_m = 4 k V (a_m a_i^T + G_im I + [i = m] A A^T).
    """
    a = affine_matrix(q)
    gram = a.T @ a - _EYE3
    energy = float(k_volume * np.sum(gram * gram))
    grad = _gradient_of(a, gram, k_volume)
    eye = _EYE3
    # block[i, :, m, :] is d2E / da_i da_m (rows: components of a_i).
    block = a[None, :, :, None] * a.T[:, None, None, :]
    block += gram[:, None, :, None] * eye[None, :, None, :]
    block += eye[:, None, :, None] * (a @ a.T)[None, :, None, :]
    affine = 4.0 * k_volume * block.reshape(9, 9)
    affine = 0.5 * (affine + affine.T)
    if project:
        w, v = np.linalg.eigh(affine)
        affine = (v * np.maximum(w, 0.0)) @ v.T
    hess = np.zeros((12, 12))
    hess[3:, 3:] = affine
    return energy, grad, hess
