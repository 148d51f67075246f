"""Normalisation (Eq. 9) and grid down-sampling of sampled frictional wrenches before fitting."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True, eq=False)
class NormalizedSamples:
    """Wrenches scaled per component into [-1, 1], restricted to the active components."""

    w_max: np.ndarray  # (6,) max |w_k| over the samples (physical units)
    active: np.ndarray  # (d,) indices of the components with a non-negligible w_max
    wrenches: np.ndarray  # (K,d) normalised wrenches w_k / w_max,k of the active components
    normals: np.ndarray  # (K,d) unit outward normals of the limit surface at each sample


def active_components(w_max: np.ndarray, length: float, rel_tol: float = 1e-9) -> np.ndarray:
    """Indices k whose w_max,k is not negligible.

    Torques are compared after dividing by the patch size so forces (N) and torques (N m)
    are judged on one scale; a flat patch has no f_z, tau_x, tau_y friction, so its limit
    surface is 3-D and is fitted in those 3 components only.
    """
    scaled = np.asarray(w_max, dtype=float) * np.array(
        [1, 1, 1, 1 / length, 1 / length, 1 / length]
    )
    top = float(scaled.max(initial=0.0))
    if top <= 0:
        return np.zeros(0, dtype=int)
    return np.flatnonzero(scaled > rel_tol * top)


def normalize_samples(wrenches: np.ndarray, twists: np.ndarray, length: float) -> NormalizedSamples:
    """Eq. 9: w_hat = w / w_max per component, and the limit-surface normals in those units.

    By the maximum-power principle the twist is normal to the limit surface; the friction
    wrench on the object opposes the motion, so the outward normal at w is -xi. In normalised
    coordinates w_hat = w / w_max a normal transforms as -xi * w_max (then unit length).
    """
    w = np.asarray(wrenches, dtype=float)
    w_max = np.abs(w).max(axis=0) if len(w) else np.zeros(6)
    active = active_components(w_max, length)
    w_hat = w[:, active] / w_max[active]
    nrm = -np.asarray(twists, dtype=float)[:, active] * w_max[active]
    size = np.linalg.norm(nrm, axis=1, keepdims=True)
    nrm = np.divide(nrm, size, out=np.zeros_like(nrm), where=size > 0)
    return NormalizedSamples(w_max, active, w_hat, nrm)


def downsample_indices(points: np.ndarray, cells_per_range: float = 2.5) -> np.ndarray:
    """Indices of one representative sample per occupied cell of a grid over `points`.

    The grid step is range / `cells_per_range` per dimension (at most 3 cells each, so at most
    3^6 = 729 samples in 6-D); each occupied cell keeps the sample nearest to the mean of its
    samples. Evens out the density of the sampled wrenches before the fit.
    """
    x = np.asarray(points, dtype=float)
    if len(x) == 0:
        return np.zeros(0, dtype=int)
    lo, span = x.min(axis=0), np.ptp(x, axis=0)
    step = np.where(span > 0, span / cells_per_range, 1.0)
    cell = np.floor((x - lo) / step).astype(np.int64)
    cells = max(int(np.ceil(cells_per_range)), 1)
    cell = np.minimum(cell, cells - 1)  # the maximum lands in the last cell, not a new one
    code = cell @ (cells ** np.arange(x.shape[1], dtype=np.int64))  # one integer per cell
    _, inverse = np.unique(code, return_inverse=True)
    inverse = inverse.reshape(-1)
    m = int(inverse.max()) + 1
    counts = np.bincount(inverse, minlength=m)
    sums = np.stack(
        [np.bincount(inverse, weights=x[:, k], minlength=m) for k in range(x.shape[1])], axis=1
    )
    means = sums / counts[:, None]
    dist = np.sum((x - means[inverse]) ** 2, axis=1)
    # By cell, then by distance to the cell mean; rounding lets exact ties (symmetric patches
    # give mirror-image samples) go to the lower index instead of to float noise.
    order = np.lexsort((np.round(dist, 9), inverse))
    first = np.ones(len(order), dtype=bool)
    first[1:] = inverse[order][1:] != inverse[order][:-1]
    return np.sort(order[first])
