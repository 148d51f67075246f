"""Unit-twist sampling (paper Appendix D; layout of the authors' fine levels, see the design note).

A unit twist is either a screw motion about an axis with direction e through a point q with
pitch h (|omega| = 1), or a pure translation along e (Eq. 2). Samples, in the contact frame
(origin at the pressure centre o, extents L of the patch's bounding box):

- axis directions: a Fibonacci sphere whose points nearest +-x, +-y, +-z are replaced by the
  exact axes, so the extreme wrench components (Table II) are reached exactly;
- offset axes: `offset_directions` directions, each through every q = d1 b1 + d2 b2 (b1, b2 an
  orthonormal basis normal to e) with d1, d2 in D = {0} u {+-c min(L), +-c max(L)}, c over the
  level's coefficients; solving for q normal to e this way avoids the paper's division by e_z;
- axes through o: `center_directions` directions;
- pitches {0, +-p l} with l = mean(L) for every axis;
- pure translations along the directions through o.

Friction is odd in the twist (w(-xi) = -w(xi)), so directions come in antipodal pairs and only
one half is integrated; the other half of the wrenches is their negation.
The paper's text samples q at random within 0.25 l_s and h in [-2, 2]; the fixed grid here is
deterministic, so every model run sees the same twists.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.analytic.sixdls.elements import PatchElements
from engine.analytic.sixdls.friction import DEFAULT_CHUNK, frictional_wrenches
from engine.errors import ParameterError


@dataclass(frozen=True)
class TwistLevel:
    """Sampling density of one fine level."""

    offset_coefficients: tuple[float, ...]
    offset_directions: int  # directions of the offset axes (full sphere)
    center_directions: int  # directions of the axes through o and of the translations
    pitches: tuple[float, ...]  # |h| / l besides h = 0


FINE_LEVELS: dict[int, TwistLevel] = {
    -1: TwistLevel((), 0, 26, ()),
    0: TwistLevel((0.01, 0.05, 0.1, 0.2, 0.3, 1.0), 26, 500, (0.25,)),
    1: TwistLevel((0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 1.0), 30, 5000, (0.25,)),
    2: TwistLevel(
        (0.01, 0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 1.0), 16, 5000, (0.125, 0.25, 0.5, 1.0, 2.0)
    ),
}


@dataclass(frozen=True, eq=False)
class UnitTwists:
    """Sampled unit twists [v0; omega] at the contact-frame origin; rows come in +- pairs."""

    half: np.ndarray  # (H,6); the full set is [half; -half]
    pitch: np.ndarray  # (H,) m, nan for pure translations

    @property
    def xi(self) -> np.ndarray:
        """(2H,6) all sampled twists."""
        return np.concatenate([self.half, -self.half])

    def __len__(self) -> int:
        return 2 * len(self.half)


def fibonacci_hemisphere(count: int) -> np.ndarray:
    """(count,3) Fibonacci points on the z >= 0 hemisphere; nearest to +z, +x, +y made exact."""
    if count <= 0:
        return np.zeros((0, 3))
    i = np.arange(count) + 0.5
    z = i[::-1] / count
    rho = np.sqrt(1.0 - z * z)
    phi = np.arange(count) * np.pi * (3.0 - np.sqrt(5.0))
    pts = np.column_stack([rho * np.cos(phi), rho * np.sin(phi), z])
    taken: set[int] = set()
    for axis in (np.array([0.0, 0.0, 1.0]), np.array([1.0, 0.0, 0.0]), np.array([0.0, 1.0, 0.0])):
        order = np.argsort(-(pts @ axis))
        idx = next((int(j) for j in order if int(j) not in taken), None)
        if idx is None:
            break
        pts[idx] = axis
        taken.add(idx)
    return pts


def normal_basis(e: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(b1, b2), each (n,3): orthonormal vectors with e, b1, b2 right-handed."""
    helper = np.eye(3)[np.argmin(np.abs(e), axis=1)]
    b1 = np.cross(e, helper)
    b1 /= np.linalg.norm(b1, axis=1, keepdims=True)
    return b1, np.cross(e, b1)


def screw_twists(e: np.ndarray, q: np.ndarray, h: np.ndarray) -> np.ndarray:
    """(n,6) unit twists [h e + q x e; e] about axes e through q with pitch h (Eq. 1-2)."""
    return np.concatenate([h[:, None] * e + np.cross(q, e), e], axis=1)


def offset_values(extents: np.ndarray, coefficients: tuple[float, ...]) -> np.ndarray:
    """D = {0} u {+-c min(L), +-c max(L)} over the nonzero extents L."""
    ext = np.asarray(extents, dtype=float)
    ext = ext[ext > 1e-9 * max(float(ext.max(initial=0.0)), 1e-300)]
    if not len(ext) or not coefficients:
        return np.zeros(1)
    c = np.asarray(coefficients, dtype=float)
    vals = np.concatenate([c * ext.min(), c * ext.max()])
    vals = np.concatenate([[0.0], vals, -vals])
    scale = float(ext.max())
    return np.unique(np.round(vals / scale, 9)) * scale


def sample_unit_twists(extents: np.ndarray, fine_level: int = 0) -> UnitTwists:
    """Unit twists for a patch with bounding-box extents `extents` (m) at a fine level."""
    if fine_level not in FINE_LEVELS:
        raise ParameterError(
            f"fine_level must be one of {sorted(FINE_LEVELS)} (got {fine_level!r})"
        )
    level = FINE_LEVELS[fine_level]
    ext = np.asarray(extents, dtype=float)
    length = float(np.mean(ext)) if ext.max(initial=0.0) > 0 else 1.0
    pitches = np.unique(
        np.concatenate(
            [[0.0], np.asarray(level.pitches) * length, -np.asarray(level.pitches) * length]
        )
    )
    blocks, pitch_rows = [], []

    e_off = fibonacci_hemisphere((level.offset_directions + 1) // 2)
    if len(e_off):
        d = offset_values(ext, level.offset_coefficients)
        d1, d2 = (g.reshape(-1) for g in np.meshgrid(d, d, indexing="ij"))
        b1, b2 = normal_basis(e_off)
        q = d1[None, :, None] * b1[:, None, :] + d2[None, :, None] * b2[:, None, :]  # (ne, nd, 3)
        e = np.broadcast_to(e_off[:, None, :], q.shape)
        for h in pitches:
            hh = np.full(q.shape[0] * q.shape[1], h)
            blocks.append(screw_twists(e.reshape(-1, 3), q.reshape(-1, 3), hh))
            pitch_rows.append(hh)

    e_c = fibonacci_hemisphere((level.center_directions + 1) // 2)
    for h in pitches:
        hh = np.full(len(e_c), h)
        blocks.append(screw_twists(e_c, np.zeros_like(e_c), hh))
        pitch_rows.append(hh)
    blocks.append(np.concatenate([e_c, np.zeros_like(e_c)], axis=1))  # pure translations
    pitch_rows.append(np.full(len(e_c), np.nan))
    return UnitTwists(np.concatenate(blocks), np.concatenate(pitch_rows))


def sampled_wrenches(
    elements: PatchElements, twists: UnitTwists, mu: float = 1.0, chunk: int = DEFAULT_CHUNK
) -> np.ndarray:
    """(2H,6) frictional wrenches on the object of every sampled twist, about the local origin.

    `elements` must be in the contact frame (the twists are measured at its origin).
    """
    half = frictional_wrenches(elements, twists.half, mu=mu, chunk=chunk)
    return np.concatenate([half, -half])


def sample_planar_twists(extents: np.ndarray, fine_level: int = 0) -> UnitTwists:
    """Unit twists of planar sliding in the contact plane (the motions a 3-D limit surface sees).

    Rotations about axes parallel to z through centres of rotation (d1, d2, 0), d1, d2 in the
    level's offset set D, and translations along `center_directions` directions of the xy
    half-circle (Appendix A); negations give the opposite half as for the 6-D samples.
    """
    if fine_level not in FINE_LEVELS:
        raise ParameterError(
            f"fine_level must be one of {sorted(FINE_LEVELS)} (got {fine_level!r})"
        )
    level = FINE_LEVELS[fine_level]
    ext = np.asarray(extents, dtype=float)
    d = offset_values(ext[:2], level.offset_coefficients or (0.1, 0.3, 1.0))
    d1, d2 = (g.reshape(-1) for g in np.meshgrid(d, d, indexing="ij"))
    q = np.column_stack([d1, d2, np.zeros_like(d1)])
    e = np.broadcast_to(np.array([0.0, 0.0, 1.0]), q.shape)
    rotations = screw_twists(e, q, np.zeros(len(q)))
    count = max((level.center_directions + 1) // 2, 2)
    angle = np.pi * (np.arange(count) + 0.5) / count
    angle[0] = 0.0  # the exact +x translation (its negation is -x)
    angle[count // 2] = 0.5 * np.pi  # and +y
    trans = np.column_stack([np.cos(angle), np.sin(angle), np.zeros((count, 4))])
    return UnitTwists(
        np.concatenate([rotations, trans]),
        np.concatenate([np.zeros(len(q)), np.full(count, np.nan)]),
    )
