"""The analytic models' contacts: arrows along the contact normals (point contact models) or
patches coloured by pressure (area contact models)."""

from __future__ import annotations

from app.scene_style import contact_mesh
from app.visuals.base import Visual
from engine.analytic.contact_patch import ContactPatch, ContactPoint


class ContactsVisual(Visual):
    """One actor per contact, `names` the actors drawn."""

    names: list[str]

    def forget(self) -> None:
        self.names = []

    def show(self, contacts: list[ContactPoint] | list[ContactPatch]) -> None:
        """Draw `contacts` in place of those drawn."""
        self.clear()
        for i, c in enumerate(contacts):
            name = f"contact{i}"
            mesh, options = contact_mesh(c)
            self.scene.add_mesh(mesh, name=name, pickable=False, **options)
            self.names.append(name)

    def clear(self) -> None:
        """Remove the drawn contacts."""
        for name in self.names:
            self.scene.remove(name)
        self.names = []
