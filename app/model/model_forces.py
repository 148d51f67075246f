"""An analytic model's contact forces as arrows (no Qt, no VTK): what the engine returned
(engine.analytic.contact_forces.ContactForces: per contact point or friction cell, the normal
and the friction force holding min(1, s*) times the weight), drawn as the simulation's forces
are (app/model/forces.py: an arrow ending at its point, its length at a scale in newtons per
millimetre chosen by the same rule, one for normal and one for friction forces) with the weight
held at the centre of mass. Nothing here is physics beyond summing what the engine reported.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from app.model.forces import (
    TYPICAL_PERCENTILE,
    WEIGHT_SOURCE,
    Arrows,
    ForceScale,
    scale_for,
)
from engine.constants import GRAVITY_M_S2

if TYPE_CHECKING:
    from engine.analytic.contact_forces import ContactForces


def _typical(forces: np.ndarray) -> float:
    size = np.linalg.norm(forces, axis=1)
    size = size[size > 0]
    return float(np.percentile(size, TYPICAL_PERCENTILE)) if len(size) else 0.0


def model_scale(forces: ContactForces) -> ForceScale:
    """The scale of a model's arrows: its typical normal and friction force at a contact drawn
    at most TYPICAL_ARROW_MM long, as a simulated trial's (app.model.forces.scale_for)."""
    return scale_for(_typical(forces.normal_n), _typical(forces.friction_n))


def model_arrows(forces: ContactForces, scale: ForceScale, kind: str) -> Arrows:
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


def _pair(values: list[float], fmt: str) -> str:
    """Both jaws' values, "20 / 18", or one when they agree to 0.1 %."""
    a, b = values
    if abs(a - b) <= 1e-3 * max(abs(a), abs(b)):
        return format(a, fmt)
    return f"{a:{fmt}} / {b:{fmt}}"


def model_text(label: str, forces: ContactForces) -> str:
    """One line naming the model and its forces, e.g. "REACH: normal 20 N per jaw, friction
    0.098 N per jaw (16 % of the cone at the busiest contact) holds 0.02 kg (its weight)"."""
    normal = forces.per_jaw("normal")
    friction = forces.per_jaw("friction")
    mass = float(np.linalg.norm(forces.weight_n)) / GRAVITY_M_S2
    held = (
        "its weight"
        if forces.scale >= 1.0
        else f"{forces.scale:.3g} x its weight, the most it holds"
    )
    parts = [
        f"{label}: normal {_pair(normal, '.3g')} N per jaw",
        f"friction {_pair(friction, '.2g')} N per jaw "
        f"({100 * forces.cone_use:.0f} % of the cone at the busiest contact)",
    ]
    torsion = np.linalg.norm(forces.torsion_nm, axis=1)
    if torsion.any():
        parts.append(f"torsion {1e3 * float(torsion.max()):.2g} N mm at a point")
    text = ", ".join(parts) + f" hold {forces.scale * mass:.3g} kg ({held})"
    if forces.residual > 1e-6:
        text += f"; {100 * forces.residual:.2g} % of the load is not balanced"
    return text
