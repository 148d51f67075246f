"""Which length unit a mesh file is in: its size in each unit and the suggested one (no Qt).

Mesh files carry no unit. The app shows what the object's size would be in metres,
centimetres, millimetres and inches and preselects the unit that makes it an everyday
graspable size; the choice is remembered per file (app/settings.py).
"""

from __future__ import annotations

from engine.scene import mesh_units
from engine.scene.mesh_units import UNIT_NAMES as UNIT_NAMES
from engine.scene.mesh_units import UNIT_SCALE_M
from engine.scene.mesh_units import plausible as plausible


def suggest_unit(diagonal: float) -> str:
    """The unit that makes the object's diagonal closest to an everyday object's (log scale),
    among those that give a graspable size (the engine's suggestion); metres when nothing fits."""
    return mesh_units.suggest_unit(diagonal) or "m"


def size_text(extents: tuple[float, float, float], unit: str) -> str:
    """'40 x 40 x 80 mm' for the object read in `unit`, in a readable unit."""
    metres = [e * UNIT_SCALE_M[unit] for e in extents]
    biggest = max(metres)
    shown, scale = ("m", 1.0) if biggest >= 1.0 else ("mm", 1000.0)
    if biggest < 0.01:
        return " x ".join(f"{m * scale:.2g}" for m in metres) + f" {shown}"
    return " x ".join(f"{m * scale:.0f}" if shown == "mm" else f"{m:.2f}" for m in metres) + (
        f" {shown}"
    )
