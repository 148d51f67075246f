"""The length units a mesh file may be in, which one its size suggests, and how big it then is.

Mesh files carry no unit. The loader (engine.scene.object_mesh) reads a file in metres unless a
unit is given; a size no graspable object has gets a hint naming the unit the size suggests,
with the size each unit would give. The app's unit chooser (app/mesh_units.py) uses the same
suggestion.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

UNIT_SCALE_M = {"m": 1.0, "cm": 0.01, "mm": 0.001, "in": 0.0254}
"""Metres per file unit, for the `unit` argument (the --unit choices)."""
UNIT_NAMES = {"m": "metres", "cm": "centimetres", "mm": "millimetres", "in": "inches"}

# Plausible size of a graspable object: bounding-box diagonal in metres.
MIN_DIAGONAL_M = 0.002
MAX_DIAGONAL_M = 1.5
TYPICAL_DIAGONAL_M = 0.1  # a can, a mug, a box of tea: what the suggestion aims at
HINT_UNITS = ("mm", "cm", "in")
"""The units a file read as metres but far too large may really be in."""


def plausible(diagonal: float, unit: str) -> bool:
    """Whether a file diagonal of `diagonal` (file units) is a graspable size in `unit`."""
    return MIN_DIAGONAL_M <= diagonal * UNIT_SCALE_M[unit] <= MAX_DIAGONAL_M


def suggest_unit(diagonal: float, units: Iterable[str] = tuple(UNIT_SCALE_M)) -> str | None:
    """The unit among `units` that makes the object's diagonal closest to an everyday object's
    (log scale), among those that give a graspable size; None when none does."""
    fitting = [u for u in units if plausible(diagonal, u)]
    if not fitting or not diagonal > 0:
        return None
    return min(
        fitting, key=lambda u: abs(math.log(diagonal * UNIT_SCALE_M[u] / TYPICAL_DIAGONAL_M))
    )


def size_mm(extents_m: Sequence[float]) -> str:
    """'66 x 115 x 11.5 mm' (three significant digits, whole millimetres from 1 m)."""
    return " x ".join(f"{e * 1e3:.3g}" if e < 1.0 else f"{e * 1e3:.0f}" for e in extents_m) + " mm"


def unit_hint(extents: Sequence[float]) -> tuple[str, str] | None:
    """For a file whose size `extents` (file units) is far too large read as metres: the unit
    its size suggests among HINT_UNITS and what each of them would make it ("as centimetres
    66 x 115 x 66 mm, as millimetres ..."); None when no unit gives a graspable size."""
    diagonal = math.sqrt(sum(e * e for e in extents))
    unit = suggest_unit(diagonal, HINT_UNITS)
    if unit is None:
        return None
    order = [unit, *(u for u in HINT_UNITS if u != unit)]
    sizes = ", ".join(
        f"as {UNIT_NAMES[u]} {size_mm([e * UNIT_SCALE_M[u] for e in extents])}" for u in order
    )
    return unit, sizes
