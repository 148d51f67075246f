"""The analytic models' contacts: arrows along the contact normals (point contact models) or
patches coloured by pressure (area contact models), and the model's contact forces holding the
weight (engine.analytic.contact_forces; a patch's cells summed on a drawing grid,
app/model/model_forces.py) as normal and friction arrows over the scene, in a
render layer of their own (app/force_arrows.py's ForceArrowLayer, the simulated forces' code)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from app.force_arrows import ForceArrowLayer
from app.model.forces import FORCE_KINDS
from app.model.model_forces import (
    drawn_forces,
    held_arrow,
    held_legend,
    jaw_resultants,
    model_arrows,
    model_scale,
)
from app.scene_style import contact_mesh
from app.visuals.base import Scene, Visual
from engine.analytic.contact_patch import ContactPatch, ContactPoint

if TYPE_CHECKING:
    from engine.analytic.contact_forces import ContactForces


class ContactsVisual(Visual):
    """One actor per contact, `names` the actors drawn; `layer` the model's force arrows."""

    names: list[str]

    def __init__(self, scene: Scene) -> None:
        super().__init__(scene)
        self.layer = ForceArrowLayer(scene.plotter)
        self.forces_text = ""  # the line naming the model and its forces drawn ("" none)

    def forget(self) -> None:
        self.names = []

    def show(
        self,
        contacts: list[ContactPoint] | list[ContactPatch],
        forces: ContactForces | None = None,
        label: str = "",
        mode: str = "points",
    ) -> None:
        """Draw `contacts` in place of those drawn, and the forces of model `label` on them:
        `mode` "points" per contact (a patch's cells summed on a drawing grid), "patches" one
        resultant per jaw (app.model.forces.MODES)."""
        self.clear()
        for i, c in enumerate(contacts):
            name = f"contact{i}"
            mesh, options = contact_mesh(c)
            self.scene.add_mesh(mesh, name=name, pickable=False, **options)
            self.names.append(name)
        if forces is None or not len(forces.points):
            return
        drawn = jaw_resultants(forces) if mode == "patches" else drawn_forces(forces)
        scale = model_scale(drawn)
        self.forces_text = forces.describe(label)
        self.layer.draw(
            {k: (model_arrows(drawn, scale, k), scale.legend(k)) for k in FORCE_KINDS},
            self.forces_text,
            (held_arrow(forces, scale), held_legend(forces, scale)),
            forces.com,
        )

    def clear(self) -> None:
        """Remove the drawn contacts and forces."""
        for name in self.names:
            self.scene.remove(name)
        self.names = []
        self.layer.clear()
        self.forces_text = ""
