"""Frictional wrench of a unit twist over a discretised contact surface (Eq. 4-6, Appendix B).

Sign convention: the returned wrench is the one the contact applies TO THE OBJECT while the
object moves with the twist relative to the (static) jaw, w = -mu sum F_i [v_i; r_i x v_i] with
v_i the unit tangential velocity of the object at element i. This is the paper's Eq. 6 / 23;
the authors' MATLAB code returns the opposite sign (the force on the finger).

A twist is stored as xi = [v0; omega]: the object's velocity at the reference point and its
angular velocity, so the velocity at a point r (relative to the reference point) is
v(r) = v0 + omega x r. The paper's unit twist (e, m = q x e, h) about an axis through q
(Eq. 1-2, 4) is xi = [h e + m; e] with q measured from the reference point; a pure
translation is [e; 0].
"""

from __future__ import annotations

import numpy as np

from engine.analytic.sixdls.elements import PatchElements

# Twists per block; 0 picks chunk ~ 12000 / n. The two products per block then stay under
# OpenBLAS's threading threshold: on 2 busy cores its threads made larger blocks up to 20x
# slower, while ~16-30 ns per twist-element pair is what single-threaded blocks reach here.
DEFAULT_CHUNK = 0


def _skew(r: np.ndarray) -> np.ndarray:
    """(n,3,3) cross-product matrices [r]x with [r]x a = r x a."""
    s = np.zeros((len(r), 3, 3))
    s[:, 0, 1], s[:, 0, 2] = -r[:, 2], r[:, 1]
    s[:, 1, 0], s[:, 1, 2] = r[:, 2], -r[:, 0]
    s[:, 2, 0], s[:, 2, 1] = -r[:, 1], r[:, 0]
    return s


def frictional_wrenches(
    elements: PatchElements,
    twists: np.ndarray,
    mu: float = 1.0,
    point: np.ndarray | None = None,
    chunk: int = DEFAULT_CHUNK,
) -> np.ndarray:
    """(K,6) frictional wrenches on the object for K twists (K,6) = [v0; omega] at `point`.

    Torques are about `point` (default the origin), which is also where v0 is measured. An
    element whose tangential velocity vanishes (it lies on the screw axis) contributes nothing.
    Vectorised over twists x elements: the tangential velocities of a chunk of twists are one
    matrix product with the per-element 3x6 maps P_i [I, -[r_i]x], and the wrenches another
    with [I; [r_i]x]; only the normalisation is element-wise.
    """
    xi = np.atleast_2d(np.asarray(twists, dtype=float))
    ref = np.zeros(3) if point is None else np.asarray(point, dtype=float)
    r = elements.positions - ref
    n = elements.normals
    count = len(r)
    proj = np.eye(3) - n[:, :, None] * n[:, None, :]  # I - n n^T (Eq. 5)
    velocity_map = np.concatenate([np.broadcast_to(np.eye(3), (count, 3, 3)), -_skew(r)], axis=2)
    tangential = (proj @ velocity_map).reshape(3 * count, 6)  # v_t = T xi, rows 3i..3i+2
    moment_map = np.concatenate(
        [np.broadcast_to(np.eye(3), (count, 3, 3)), _skew(r).transpose(0, 2, 1)], axis=2
    ).reshape(3 * count, 6)  # u_i^T [I, [r_i]x^T] = [u_i; r_i x u_i]^T
    weights = elements.forces
    out = np.empty((len(xi), 6))
    step = int(chunk) if chunk > 0 else int(np.clip(12_000 // max(count, 1), 8, 512))
    for start in range(0, len(xi), step):
        v = xi[start : start + step] @ tangential.T  # (k, 3n)
        v3 = v.reshape(len(v), count, 3)
        speed = np.sqrt(np.einsum("kij,kij->ki", v3, v3))
        scale = np.divide(weights, speed, out=np.zeros_like(speed), where=speed > 1e-300)
        v3 *= scale[:, :, None]
        out[start : start + step] = v @ moment_map
    return -mu * out


def frictional_wrench_integrand(
    elements: PatchElements, twist: np.ndarray, mu: float = 1.0, point: np.ndarray | None = None
) -> np.ndarray:
    """(n,6) per-element frictional wrenches of one twist (for drawing the force field, Fig. 3)."""
    ref = np.zeros(3) if point is None else np.asarray(point, dtype=float)
    r = elements.positions - ref
    xi = np.asarray(twist, dtype=float)
    v = xi[:3] + np.cross(xi[3:], r)
    v_t = v - np.sum(v * elements.normals, axis=1, keepdims=True) * elements.normals
    speed = np.linalg.norm(v_t, axis=1, keepdims=True)
    unit = np.divide(v_t, speed, out=np.zeros_like(v_t), where=speed > 1e-300)
    f = -mu * elements.forces[:, None] * unit
    return np.concatenate([f, np.cross(r, f)], axis=1)


def support_wrench_max(elements: PatchElements, point: np.ndarray | None = None) -> np.ndarray:
    """Exact per-component maxima of |w_k| over all twists, per unit mu (Table II).

    Component k of a force is at most sum F_i |P_i e_k| (pure translation along -e_k); of a
    torque about `point` at most sum F_i |P_i (e_k x r_i)| (pure rotation about -e_k through
    `point`), since each element's unit friction can align with those vectors.
    """
    ref = np.zeros(3) if point is None else np.asarray(point, dtype=float)
    r = elements.positions - ref
    n = elements.normals
    eye = np.eye(3)
    out = np.empty(6)
    for k in range(3):
        g = np.broadcast_to(eye[k], r.shape)
        out[k] = elements.forces @ np.linalg.norm(g - (n @ eye[k])[:, None] * n, axis=1)
        g = np.cross(eye[k], r)
        out[3 + k] = elements.forces @ np.linalg.norm(
            g - np.sum(g * n, axis=1)[:, None] * n, axis=1
        )
    return out
