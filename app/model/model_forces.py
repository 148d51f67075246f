"""An analytic model's contact forces as arrows (no Qt, no VTK): what the engine returned
(engine.analytic.contact_forces.ContactForces: per contact point or friction cell, the normal
and the friction force holding min(1, s*) times the weight), drawn as the simulation's forces
are (app/model/forces.py: an arrow ending at its point, its length at a scale in newtons per
millimetre chosen by the same rule, one for normal and one for friction forces) with the weight
held at the centre of mass. Nothing here is physics beyond summing what the engine reported.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from app.model.forces import (
    TYPICAL_PERCENTILE,
    WEIGHT_SOURCE,
    Arrows,
    ForceScale,
    scale_for,
)

if TYPE_CHECKING:
    from engine.analytic.contact_forces import ContactForces

# A patch's friction cells (1.5 mm) would draw a forest of arrows: per jaw, neighbouring cells'
# forces are summed into at most about this many arrows (a drawing grid, like the simulated
# contact points' spacing).
ARROWS_PER_JAW = 48


@dataclass(frozen=True, eq=False)
class DrawnForces:
    """The forces as drawn: per jaw, the sums over the cells of a square grid, each at its
    cells' normal-force-weighted centre (the cells themselves when a jaw has few)."""

    points: np.ndarray  # (n, 3) m
    jaw: np.ndarray  # (n,)
    normal_n: np.ndarray  # (n, 3) N
    friction_n: np.ndarray  # (n, 3) N


def drawn_forces(forces: ContactForces, per_jaw: int = ARROWS_PER_JAW) -> DrawnForces:
    """Each jaw's forces summed on a grid of about `per_jaw` squares over its contacts (the
    grid's side: the square root of the jaw's bounding box's two largest sides' product over
    `per_jaw`); the sums per jaw are those of the engine's forces."""

    def grid(p: np.ndarray) -> np.ndarray | None:
        if len(p) <= per_jaw:
            return None
        sides = np.sort(np.ptp(p, axis=0))
        side = max(float(np.sqrt(sides[1] * sides[2] / per_jaw)), 1e-6)
        keys = np.floor((p - p.min(axis=0)) / side).astype(np.int64)
        return np.unique(keys, axis=0, return_inverse=True)[1].ravel()

    return _per_jaw(forces, grid)


def jaw_resultants(forces: ContactForces) -> DrawnForces:
    """One normal and one friction arrow per jaw: its forces summed, at their normal-force-
    weighted centre (a jaw's contact is one patch: the simulated forces' "patches" mode)."""
    return _per_jaw(forces, lambda p: np.zeros(len(p), dtype=np.int64))


def _per_jaw(
    forces: ContactForces, cells: Callable[[np.ndarray], np.ndarray | None]
) -> DrawnForces:
    """Each jaw's forces summed per cell (`cells` of its contact points: a cell index per
    point, or None to draw the points as they are), each sum at its points'
    normal-force-weighted centre."""
    out: list[tuple[np.ndarray, ...]] = []
    for j in np.unique(forces.jaw):
        mine = forces.jaw == j
        p, fn, ft = forces.points[mine], forces.normal_n[mine], forces.friction_n[mine]
        cell = cells(p)
        if cell is not None:
            count = int(cell.max()) + 1
            w = np.linalg.norm(fn, axis=1) + 1e-300

            def summed(v: np.ndarray, cell: np.ndarray = cell, count: int = count) -> np.ndarray:
                return np.column_stack(
                    [np.bincount(cell, weights=v[:, k], minlength=count) for k in range(3)]
                )

            p = summed(p * w[:, None]) / np.bincount(cell, weights=w, minlength=count)[:, None]
            fn, ft = summed(fn), summed(ft)
        out.append((p, np.full(len(p), int(j)), fn, ft))
    if not out:
        empty = np.zeros((0, 3))
        return DrawnForces(empty, np.zeros(0, dtype=int), empty, empty)
    return DrawnForces(*(np.concatenate(parts) for parts in zip(*out, strict=True)))


def _typical(forces: np.ndarray) -> float:
    size = np.linalg.norm(forces, axis=1)
    size = size[size > 0]
    return float(np.percentile(size, TYPICAL_PERCENTILE)) if len(size) else 0.0


def model_scale(forces: DrawnForces) -> ForceScale:
    """The scale of a model's arrows: its typical normal and friction force at a contact drawn
    at most TYPICAL_ARROW_MM long, as a simulated trial's (app.model.forces.scale_for)."""
    return scale_for(_typical(forces.normal_n), _typical(forces.friction_n))


def model_arrows(forces: DrawnForces, scale: ForceScale, kind: str) -> Arrows:
    """The arrows of `kind` ("normal" or "friction"): one per contact with a nonzero force,
    ending at it (source: the jaw)."""
    f = forces.normal_n if kind == "normal" else forces.friction_n
    keep = np.any(f != 0.0, axis=1)
    vectors = f[keep] * (1e-3 / scale.n_per_mm(kind))
    return Arrows(forces.points[keep] - vectors, vectors, f[keep], forces.jaw[keep])


def held_arrow(forces: ContactForces, scale: ForceScale) -> Arrows:
    """The load the forces hold (scale x the weight) from the centre of mass, straight down, at
    the normal forces' scale."""
    load = forces.scale * np.asarray(forces.weight_n, dtype=float)[None]
    vector = load * (1e-3 / scale.normal_n_per_mm)
    return Arrows(forces.com[None], vector, load, np.array([WEIGHT_SOURCE], dtype=np.int8))


def held_legend(forces: ContactForces, scale: ForceScale) -> str:
    """E.g. "weight held 0.196 N at the centre of mass: 1 mm = 0.02 N"."""
    held = forces.scale * float(np.linalg.norm(forces.weight_n))
    return f"weight held {held:.3g} N at the centre of mass: 1 mm = {scale.normal_n_per_mm:g} N"
