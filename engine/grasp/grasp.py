"""Grasp poses: jaw centre, closing axis and approach angle, and the gripper frame they define.

Gripper frame (as in the REACH / Dex-Net convention): x is the closing axis, z the approach
direction (towards the fingertips), y = z x x. The jaw centre is the midpoint between the two
jaw contact faces. All coordinates are in the object's resting frame (z up, origin at the
centre of mass projected on the ground).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.errors import ParameterError

_WORLD_DOWN = np.array([0.0, 0.0, -1.0])


def _cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """a x b of two 3-vectors, the products and differences np.cross takes (the same bits),
    without its broadcasting (~10 us a call)."""
    return np.array(
        [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
    )


def _unit(v: np.ndarray, name: str) -> np.ndarray:
    v = np.asarray(v, dtype=float).reshape(3)
    if not np.all(np.isfinite(v)):
        raise ParameterError(f"{name} contains NaN or inf: {v.tolist()}")
    with np.errstate(over="ignore"):
        n = float(np.linalg.norm(v))
    if not math.isfinite(n):
        # The norm of (1.3e154, 0, 0) overflows to inf, and v / inf is the zero vector: scale
        # by the largest component first (only then, so ordinary axes keep their last bits).
        v = v / float(np.abs(v).max())
        n = float(np.linalg.norm(v))
    if n < 1e-12:
        raise ParameterError(f"{name} is the zero vector; give a direction such as 1 0 0")
    return v / n


@dataclass(frozen=True)
class Grasp:
    """A parallel-jaw grasp: centre (m), unit closing axis, approach angle (rad) about the axis.

    Approach angle 0 approaches as close to straight down (-z) as the axis allows.
    """

    center: np.ndarray
    axis: np.ndarray
    approach_angle_rad: float = 0.0

    def __post_init__(self) -> None:
        c = np.asarray(self.center, dtype=float).reshape(3)
        if not np.all(np.isfinite(c)):
            raise ParameterError(f"grasp centre contains NaN or inf: {c.tolist()}")
        if not math.isfinite(self.approach_angle_rad):
            raise ParameterError("approach angle is NaN or inf; give radians, e.g. 0")
        object.__setattr__(self, "center", c)
        object.__setattr__(self, "axis", _unit(self.axis, "grasp axis"))

    def pose(self) -> np.ndarray:
        """4x4 world <- gripper transform (a fresh copy: the grasp keeps its own)."""
        kept = self.__dict__.get("_pose")
        if kept is None:
            x = self.axis
            ref = _WORLD_DOWN if abs(x[2]) < 0.99 else np.array([-1.0, 0.0, 0.0])
            z0 = ref - np.dot(ref, x) * x
            z0 /= np.linalg.norm(z0)
            c, s = math.cos(self.approach_angle_rad), math.sin(self.approach_angle_rad)
            z = c * z0 + s * _cross(x, z0)
            y = _cross(z, x)
            kept = np.eye(4)
            kept[:3, 0], kept[:3, 1], kept[:3, 2], kept[:3, 3] = x, y, z, self.center
            # The sampler asks a grasp for its pose several times (a frozen dataclass: stored
            # beside its fields, outside equality and to_dict).
            object.__setattr__(self, "_pose", kept)
        return kept.copy()

    def to_dict(self) -> dict:
        """Centre, axis (lists) and approach angle (rad) as plain data."""
        return {
            "center": self.center.tolist(),
            "axis": self.axis.tolist(),
            "approach_angle_rad": float(self.approach_angle_rad),
        }


def rotation_from_vector(omega: np.ndarray) -> np.ndarray:
    """Rodrigues: rotation matrix of the axis-angle vector omega (rad)."""
    theta = float(np.linalg.norm(omega))
    if theta < 1e-15:
        return np.eye(3)
    k = omega / theta
    kx = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(theta) * kx + (1 - math.cos(theta)) * kx @ kx


@dataclass(frozen=True)
class Perturbation:
    """A gripper-frame pose offset: translation (m) and axis-angle rotation (rad)."""

    translation: np.ndarray
    rotation: np.ndarray

    def apply(self, pose: np.ndarray) -> np.ndarray:
        """world <- gripper pose composed with this gripper-frame offset."""
        d = np.eye(4)
        d[:3, :3] = rotation_from_vector(self.rotation)
        d[:3, 3] = self.translation
        return pose @ d

    def to_dict(self) -> dict:
        """The offset as plain floats: translation dx, dy, dz and rotation vector components."""
        return {
            "dx": float(self.translation[0]),
            "dy": float(self.translation[1]),
            "dz": float(self.translation[2]),
            "rx": float(self.rotation[0]),
            "ry": float(self.rotation[1]),
            "rz": float(self.rotation[2]),
        }


NO_PERTURBATION = Perturbation(np.zeros(3), np.zeros(3))


def sample_perturbations(
    n: int, seed: int, translation_sigma_m: float = 0.001, rotation_sigma_rad: float = 0.003
) -> list[Perturbation]:
    """n Gaussian gripper-frame pose perturbations (IPC-GraspSim: sigma 1 mm and 0.003 rad).

    Trial k's perturbation depends only on (seed, k), so asking for more trials keeps the first ones.
    """
    if n < 0:
        raise ParameterError(f"number of trials must be >= 0 (got {n})")
    for name, s in (
        ("translation sigma", translation_sigma_m),
        ("rotation sigma", rotation_sigma_rad),
    ):
        if not math.isfinite(s) or s < 0:
            raise ParameterError(f"{name} must be a finite number >= 0 (got {s})")
    out = []
    for child in np.random.SeedSequence(seed).spawn(n):
        rng = np.random.default_rng(child)
        out.append(
            Perturbation(
                rng.normal(0.0, translation_sigma_m, 3), rng.normal(0.0, rotation_sigma_rad, 3)
            )
        )
    return out
