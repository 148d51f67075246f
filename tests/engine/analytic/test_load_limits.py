"""Which part of the load a model's verdict turns on (engine.analytic.load_limits): gravity split
at the grasp centre into the weight's pull through it and its moment about it.

Laws (Soft Point, F per jaw, friction mu, torsion coefficient gamma per unit normal force):
- through the centre of mass there is no moment: the pull's margin is the whole margin,
  2 mu F / (m g) (61.16 for a 20 g, 3 cm cube at 20 N and mu 0.3);
- a grasp d off the centre of mass along a bar's length adds gravity's moment m g d about the
  closing axis, which the two contacts' torsion alone resists: its margin is 2 gamma F / (m g d)
  (the contacts sit on the closing axis, so their friction forces have no arm about it), while
  the pull's margin stays 2 mu F / (m g); past the d where that falls below 1 the grasp is a
  torsion failure though it holds the pull many times over.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import trimesh

from engine.analytic.load_limits import TORSION, TRANSLATION, limiting_part
from engine.analytic.params import AnalyticParams
from engine.analytic.pipeline import analyze_grasp
from engine.grasp.grasp import Grasp
from tests.engine.analytic.scenes import G, cube, resting

MU, FORCE = 0.3, 20.0


def test_a_centred_grasp_has_no_moment_and_its_pull_is_the_margin():
    obj = cube(0.03, 0.02)
    grasp = Grasp(obj.center_of_mass, [1.0, 0.0, 0.0], 0.0)
    (r,) = analyze_grasp(obj, grasp, AnalyticParams(), ["soft_point"], 0, 0, explain=True)
    d = r.details
    assert d["moment_nm"] == pytest.approx(0.0, abs=1e-12)
    assert d["moment_margin"] == math.inf
    assert d["pull_margin"] == pytest.approx(2 * MU * FORCE / (0.02 * G), rel=0.01)
    assert d["pull_margin"] == pytest.approx(r.margin, rel=1e-6)
    assert d["limit"] == TRANSLATION
    assert d["limit_text"].startswith("translation: holds the pull 61")


@pytest.mark.parametrize(("offset_mm", "holds"), [(10.0, True), (40.0, False)])
def test_an_off_centre_grasp_on_a_bar_is_limited_by_torsion(offset_mm, holds):
    # A 200 x 20 x 20 mm bar of 300 g, grasped across its width, offset along its length:
    # gamma = 2 mm (uniform disc), so the moment's margin is 2.7 at 10 mm and 0.68 at 40 mm,
    # the pull's 4.08 at both.
    bar = resting(trimesh.creation.box(extents=(0.02, 0.2, 0.02)), 0.3)
    params = AnalyticParams()
    d = offset_mm * 1e-3
    grasp = Grasp(bar.center_of_mass + np.array([0.0, d, 0.0]), [1.0, 0.0, 0.0], 0.0)
    (r,) = analyze_grasp(bar, grasp, params, ["soft_point"], 0, 0, explain=True)
    gamma = params.torsion_coefficient_m()
    weight = 0.3 * G
    assert r.details["moment_about_closing_axis_nm"] == pytest.approx(weight * d, rel=1e-9)
    assert r.details["moment_margin"] == pytest.approx(2 * gamma * FORCE / (weight * d), rel=0.01)
    assert r.details["pull_margin"] == pytest.approx(2 * MU * FORCE / weight, rel=0.01)
    assert r.margin <= min(r.details["pull_margin"], r.details["moment_margin"]) * (1 + 1e-6)
    assert r.details["limit"] == TORSION
    assert r.success == holds and (r.details["moment_margin"] >= 1.0) == holds


def test_the_limit_is_the_part_short_of_one_or_both_at_once():
    assert limiting_part(0.5, 3.0, 0.4) == TORSION
    assert limiting_part(0.5, 0.6, 4.0) == TRANSLATION
    assert limiting_part(0.3, 0.6, 0.7) == "translation and torsion together"
    assert limiting_part(0.8, 1.5, 1.2) == "translation and torsion together"
    assert limiting_part(2.0, 3.0, 2.5) == TORSION  # holds; the weaker part named
