"""The titles of a side-by-side comparison (app/model/compare.py, no window): each run's values
of the parameters that differ, by the field's declared label and unit, and the grasp's move on
the shown side."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from app.model.compare import side_labels
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams


def test_each_side_names_its_own_values_of_what_differs():
    grasp = Grasp(np.array([0.0, 0.0, 0.015]), np.array([1.0, 0.0, 0.0]), 0.0)
    pinned = SimulationParams()
    shown = replace(pinned, youngs_modulus_pa=1e7, mu=0.3)
    left, right = side_labels(replace(pinned, youngs_modulus_pa=1e8), shown, grasp, grasp)
    assert left[0] == "E 1e+08 Pa" and right[0] == "E 1e+07 Pa"
    assert len(left) == len(right) == (1 if pinned.mu == 0.3 else 2)
    assert side_labels(pinned, pinned, grasp, grasp) == ([], [])

    moved = Grasp(np.array([0.0, 0.002, 0.015]), np.array([1.0, 0.0, 0.0]), 0.0)
    left, right = side_labels(pinned, pinned, grasp, moved)
    assert left == [] and right == ["grasp moved 2.0 mm, axis turned 0.0°, approach 0.0°"]
