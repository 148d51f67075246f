"""What the 3D view draws, one visual per layer kind (napari's layer -> visual table): each owns
its actors and draws, updates and clears itself from plain data; app/viewport.py hosts them
(plotter, camera, picking). GUI thread only, like every pyvista/VTK object."""

from __future__ import annotations

from typing import TypeVar

from app.visuals.base import Scene, Visual
from app.visuals.colour_bar import ColourBarVisual
from app.visuals.contacts import ContactsVisual
from app.visuals.forces import ForcesVisual
from app.visuals.ghost import GhostVisual
from app.visuals.gizmo import GizmoVisual
from app.visuals.glyphs import CandidatesVisual, DatasetSelectionVisual, DatasetVisual
from app.visuals.gripper import GripperVisual, LabelsVisual
from app.visuals.object import GroundVisual, ObjectVisual
from app.visuals.preview import PreviewVisual
from app.visuals.push_arrow import PushArrowVisual
from app.visuals.side_by_side import SideBySideVisual

# Layer kind -> its visual. A new kind of thing to draw is a Visual subclass added here.
VISUAL_TYPES: dict[str, type[Visual]] = {
    "ground": GroundVisual,
    "object": ObjectVisual,
    "gripper": GripperVisual,
    "labels": LabelsVisual,
    "colour_bar": ColourBarVisual,
    "ghost": GhostVisual,
    "side_by_side": SideBySideVisual,
    "preview": PreviewVisual,
    "gizmo": GizmoVisual,
    "candidates": CandidatesVisual,
    "dataset": DatasetVisual,
    "dataset_selection": DatasetSelectionVisual,
    "contacts": ContactsVisual,
    "forces": ForcesVisual,
    "push_arrow": PushArrowVisual,
}

V = TypeVar("V", bound=Visual)


class Visuals:
    """One visual of each kind of VISUAL_TYPES, drawing in `scene`."""

    def __init__(self, scene: Scene) -> None:
        self.by_kind = {kind: cls(scene) for kind, cls in VISUAL_TYPES.items()}

    def get(self, kind: str, cls: type[V]) -> V:
        """The visual of `kind`, typed as `cls`."""
        visual = self.by_kind[kind]
        if not isinstance(visual, cls):
            raise TypeError(f"the {kind!r} visual is a {type(visual).__name__}, not {cls.__name__}")
        return visual

    def forget(self) -> None:
        """Every actor was removed from the scene (a new object)."""
        for visual in self.by_kind.values():
            visual.forget()


__all__ = ["VISUAL_TYPES", "Scene", "Visual", "Visuals"]
