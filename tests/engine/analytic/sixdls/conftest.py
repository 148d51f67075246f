"""Shared contact profiles for the 6DLS tests."""

from __future__ import annotations

import numpy as np
import pytest

from engine.analytic.contact_patch import ContactPatch
from engine.analytic.sixdls.elements import PatchElements
from engine.analytic.sixdls.mesh import mesh_patch
from engine.analytic.sixdls.surfaces import (
    cylinder,
    elliptic_cylinder,
    surface_elements,
    uniform_pressure,
)


@pytest.fixture(scope="session")
def s1_elements() -> PatchElements:
    """S1 (unit half cylinder) with uniform pressure normalised to int p dS = 1, 300 x 300 nodes."""
    return surface_elements(cylinder(), uniform_pressure(), 300, 300, total_force=1.0)


@pytest.fixture(scope="session")
def antipodal_s1_jaws() -> list[ContactPatch]:
    """O6: S1 and its mirror as two jaws on a unit cylinder (axis z, COM at 0), F = 1 each."""
    shift = (0.0, 0.0, 0.5)
    a = elliptic_cylinder(1.0, 1.0, (0.0, np.pi), (0.0, 1.0), shift)
    b = elliptic_cylinder(1.0, 1.0, (np.pi, 2 * np.pi), (0.0, 1.0), shift)
    return [
        mesh_patch(a, uniform_pressure(), 1000, 1.0, 0),
        mesh_patch(b, uniform_pressure(), 1000, 1.0, 1),
    ]
