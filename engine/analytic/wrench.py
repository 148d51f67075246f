"""Wrenches on the object: w = [f; tau] with tau about the centre of mass (object frame)."""

from __future__ import annotations

import numpy as np

from engine.constants import GRAVITY_M_S2


def gravity_wrench(mass_kg: float) -> np.ndarray:
    """Gravity at the centre of mass; the object rests in its resting frame (z up)."""
    return np.array([0.0, 0.0, -float(mass_kg) * GRAVITY_M_S2, 0.0, 0.0, 0.0])


def wrench_columns(points: np.ndarray, forces: np.ndarray, com: np.ndarray) -> np.ndarray:
    """(..., 6) wrenches [f; (x - com) x f] of forces f (..., 3) applied at points x (..., 3)."""
    f = np.asarray(forces, dtype=float)
    r = np.asarray(points, dtype=float) - np.asarray(com, dtype=float)
    return np.concatenate([f, np.cross(r, f)], axis=-1)


def pure_torque(torque: np.ndarray) -> np.ndarray:
    """A wrench with zero force and the given torque (N m)."""
    return np.concatenate([np.zeros(3), np.asarray(torque, dtype=float).reshape(3)])


def tangent_basis(normals: np.ndarray, preferred: np.ndarray | None = None) -> np.ndarray:
    """(n, 3, 2) orthonormal tangent bases of unit normals (n, 3).

    The first tangent is `preferred` projected on the tangent plane when that projection is not
    degenerate (so a friction-cone edge can point straight at the load), otherwise the
    projection of the coordinate axis least aligned with the normal.
    """
    n = np.atleast_2d(np.asarray(normals, dtype=float))
    least = np.eye(3)[np.argmin(np.abs(n), axis=1)]
    t1 = least - np.sum(least * n, axis=1, keepdims=True) * n
    if preferred is not None:
        p = np.broadcast_to(np.asarray(preferred, dtype=float), n.shape)
        proj = p - np.sum(p * n, axis=1, keepdims=True) * n
        good = np.linalg.norm(proj, axis=1) > 1e-6 * max(float(np.linalg.norm(p[0])), 1e-300)
        t1 = np.where(good[:, None], proj, t1)
    t1 /= np.linalg.norm(t1, axis=1, keepdims=True)
    t2 = np.cross(n, t1)
    return np.stack([t1, t2], axis=2)
