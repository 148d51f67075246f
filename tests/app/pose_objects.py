"""Objects whose resting poses a person tells apart at a glance (issue 39 point 4): a bottle
saved lying on its side, whose lying pose trimesh splits into 64 rolled facets, and a mug."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import trimesh


def lying_bottle(path: Path, diameter_m: float = 0.04) -> Path:
    """A 64-sided prism 3 diameters long saved lying on one of its facets (the file's own
    orientation is a stable pose)."""
    prism = trimesh.creation.cylinder(
        radius=diameter_m / 2, height=3 * diameter_m, sections=64
    )  # axis z; its facets' normals sit half a section off the vertices
    prism.apply_transform(trimesh.transformations.rotation_matrix(np.pi / 64, [0, 0, 1]))
    prism.apply_transform(trimesh.transformations.rotation_matrix(np.pi / 2, [1, 0, 0]))
    prism.export(path)
    return path


def mug(path: Path) -> Path:
    """A 70 mm x 120 mm cup with a ring handle (one watertight body), standing in the file."""
    cup = trimesh.creation.cylinder(radius=0.035, height=0.12, sections=48)
    cup.apply_translation([0, 0, 0.06])
    handle = trimesh.creation.torus(
        major_radius=0.028, minor_radius=0.007, major_sections=32, minor_sections=12
    )
    handle.apply_transform(trimesh.transformations.rotation_matrix(np.pi / 2, [1, 0, 0]))
    handle.apply_translation([0.04, 0, 0.06])
    trimesh.boolean.union([cup, handle], engine="manifold").export(path)
    return path
