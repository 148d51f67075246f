"""The contact-force arrows of a simulated frame: which arrows, where and how long (no Qt, no
VTK; the view and the video exporter draw them, app/force_arrows.py).

A frame carries the contact forces on the object (engine.grasp.frames.Frame.contact_*): per
contact point, the normal and the friction force and who exerts it. Each is drawn as an arrow
that ends at its point (the force pushes the object there), its length the force at a scale in
newtons per millimetre of arrow, one for normal forces and one for friction (friction is often
a hundred times smaller). A trial's scale is fixed for all its frames, so lengths compare
across the timeline; each patch's resultant is stated in numbers (totals_text).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.grasp.frames import Frame

FORCE_KINDS = ("normal", "friction")
SOURCES = ("pad 1", "pad 2", "ground")  # Frame.contact_source 0, 1, 2
# A trial's scale draws the typical arrow of its busiest frame (the 90th percentile of that
# frame's forces of the kind) at most this long (mm): the next 1, 2 or 5 times a power of ten
# newtons per millimetre. Larger forces are drawn longer, never clipped.
TYPICAL_ARROW_MM = 8.0
TYPICAL_PERCENTILE = 90.0


@dataclass(frozen=True)
class ForceScale:
    """Newtons per millimetre of arrow, for normal and for friction forces."""

    normal_n_per_mm: float = 1.0
    friction_n_per_mm: float = 1.0

    def n_per_mm(self, kind: str) -> float:
        """The scale of `kind` ("normal" or "friction")."""
        return self.normal_n_per_mm if kind == "normal" else self.friction_n_per_mm

    def legend(self, kind: str) -> str:
        """What an arrow of `kind` means, e.g. "normal force on the object: 1 mm = 0.2 N"."""
        what = "normal force" if kind == "normal" else "friction force"
        return f"{what} on the object: 1 mm = {self.n_per_mm(kind):g} N"


def nice_ceil(x: float) -> float:
    """The smallest 1, 2 or 5 times a power of ten that is >= x > 0."""
    exponent = math.floor(math.log10(x))
    for mantissa in (1.0, 2.0, 5.0, 10.0):
        step = float(f"{mantissa}e{exponent}")  # exact decimal: 0.2, not 0.20000000000000004
        if step >= x * (1 - 1e-12):
            return step
    return float(f"1e{exponent + 1}")


def typical_forces(frames: Sequence[Frame]) -> tuple[float, float]:
    """The typical normal and friction force (N) at a contact point of the busiest frame: the
    largest over `frames` of each frame's TYPICAL_PERCENTILE of its nonzero forces."""
    out = [0.0, 0.0]
    for f in frames:
        for i, forces in enumerate((f.contact_normal_n, f.contact_friction_n)):
            if len(forces):
                size = np.sqrt((forces * forces).sum(axis=1))
                size = size[size > 0]
                if len(size):
                    out[i] = max(out[i], float(np.percentile(size, TYPICAL_PERCENTILE)))
    return out[0], out[1]


def scale_for(typical_normal_n: float, typical_friction_n: float) -> ForceScale:
    """The scale that draws these typical forces at most TYPICAL_ARROW_MM long (1 N/mm for a
    kind without force)."""
    n, f = (
        nice_ceil(x / TYPICAL_ARROW_MM) if x > 0 else 1.0
        for x in (typical_normal_n, typical_friction_n)
    )
    return ForceScale(n, f)


def force_scale(frames: Sequence[Frame]) -> ForceScale:
    """The scale of a trial's arrows (see TYPICAL_ARROW_MM)."""
    return scale_for(*typical_forces(frames))


def totals_text(frame: Frame) -> str:
    """Each contact patch's resultant force on the object, e.g.
    "pad 1 7.75 N / 0.062 N, pad 2 7.75 N / 0.062 N, ground 0.029 N / 0 N (normal / friction)"."""
    parts = []
    source = np.asarray(frame.contact_source)
    for k, name in enumerate(SOURCES):
        mine = source == k
        if not mine.any():
            continue
        normal = float(np.linalg.norm(np.asarray(frame.contact_normal_n)[mine].sum(axis=0)))
        friction = float(np.linalg.norm(np.asarray(frame.contact_friction_n)[mine].sum(axis=0)))
        parts.append(f"{name} {normal:.3g} N / {friction:.2g} N")
    if not parts:
        return "no contact"
    return ", ".join(parts) + " (normal / friction)"


@dataclass(frozen=True, eq=False)
class Arrows:
    """Arrows of one kind: each from tails[i] to tails[i] + vectors[i] = the contact point."""

    tails: np.ndarray  # (n, 3) m
    vectors: np.ndarray  # (n, 3) m, the force times the scale
    forces_n: np.ndarray  # (n, 3) N
    source: np.ndarray  # (n,) 0 pad 1, 1 pad 2, 2 ground


def frame_arrows(frame: Frame, scale: ForceScale, kind: str) -> Arrows:
    """The arrows of `kind` of `frame`: one per contact point with a nonzero force."""
    forces = np.asarray(frame.contact_normal_n if kind == "normal" else frame.contact_friction_n)
    forces = forces.reshape(-1, 3)
    keep = np.any(forces != 0.0, axis=1)
    forces = forces[keep]
    vectors = forces * (1e-3 / scale.n_per_mm(kind))
    points = np.asarray(frame.contact_points, dtype=float).reshape(-1, 3)[keep]
    return Arrows(points - vectors, vectors, forces, np.asarray(frame.contact_source)[keep])
