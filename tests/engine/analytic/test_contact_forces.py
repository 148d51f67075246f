"""The contact forces each analytic model holds the weight with (engine.analytic.contact_forces).

Laws checked, per model, on a 3 cm cube gripped with F = 20 N per jaw at mu = 0.3:
- equilibrium: the normal and friction forces (and a soft point's torsional moments) plus the
  held load s m g (s = min(1, s*)) sum to zero, in force and in moment about the centre of mass;
- Coulomb: every friction force is tangential and within its cone, |f_t| <= mu |f_n|;
- the grip: each jaw's normal forces sum to its closing force F;
- a centred grasp of a 20 g cube: friction carries the weight straight up, m g / 2 per jaw;
- a failing model (a 0.6 kg cube at F = 5 N, s* = 2 mu F / (m g) = 0.51) draws the forces at
  s* m g, where the friction fills its cones.
"""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

from engine.analytic.params import AnalyticParams
from engine.analytic.pipeline import analyze_grasp
from engine.grasp.grasp import Grasp
from tests.engine.analytic.scenes import G, cube

MU, FORCE = 0.3, 20.0
MODELS = ["soft_point", "reach", "6dfc", "exact"]
if importlib.util.find_spec("cvxpy") is not None:
    MODELS.append("6dls")


def _results(
    mass_kg: float, offset_m: float = 0.0, models: list[str] | None = None, force_n: float = FORCE
) -> list:
    obj = cube(0.03, mass_kg)
    centre = obj.center_of_mass + np.array([0.0, offset_m, 0.0])
    grasp = Grasp(centre, [1.0, 0.0, 0.0], 0.0)
    params = AnalyticParams(closing_force_n=force_n)
    return analyze_grasp(obj, grasp, params, models or MODELS, 0, 0, explain=True)


def _check_equilibrium(f, mass_kg: float) -> None:
    weight = np.array([0.0, 0.0, -mass_kg * G])
    assert np.allclose(f.weight_n, weight)
    contact = f.normal_n + f.friction_n
    net = contact.sum(axis=0) + f.scale * weight
    assert np.linalg.norm(net) <= 1e-6 * mass_kg * G, net
    arm = np.linalg.norm(f.points - f.com, axis=1).max()
    moment = np.cross(f.points - f.com, contact).sum(axis=0) + f.torsion_nm.sum(axis=0)
    assert np.linalg.norm(moment) <= 1e-6 * mass_kg * G * arm, moment
    assert f.residual < 1e-9


def _check_cones_and_grip(f, force_n: float = FORCE, tol: float = 1e-9) -> None:
    fn = np.linalg.norm(f.normal_n, axis=1)
    unit = f.normal_n / fn[:, None]
    assert np.abs(np.sum(f.friction_n * unit, axis=1)).max() <= 1e-9 * fn.max()  # tangential
    assert np.all(np.linalg.norm(f.friction_n, axis=1) <= MU * fn * (1 + tol))
    assert f.cone_use <= 1.0 + tol
    for j in (0, 1):
        assert fn[f.jaw == j].sum() == pytest.approx(force_n, rel=1e-9)


@pytest.mark.parametrize("offset_mm", [0.0, 4.0])
def test_each_model_holds_the_weight_in_equilibrium_inside_its_cones(offset_mm):
    """A 20 g cube, gripped through its centre of mass and 4 mm beside it (gravity then has a
    moment about the closing axis, which the friction's spread or a soft point's torsion holds)."""
    for r in _results(0.02, offset_mm * 1e-3):
        assert r.success, (r.model, r.reason)
        f = r.forces
        assert f is not None, r.model
        assert f.scale == 1.0
        _check_equilibrium(f, 0.02)
        _check_cones_and_grip(f)


def test_a_centred_grasp_has_friction_carry_the_weight_straight_up():
    for r in _results(0.02):
        f = r.forces
        for j in (0, 1):
            up = f.friction_n[f.jaw == j].sum(axis=0)
            assert up == pytest.approx([0.0, 0.0, 0.02 * G / 2], abs=1e-9), r.model
        assert f.per_jaw("friction") == pytest.approx([0.02 * G / 2] * 2, rel=1e-9)
        assert f.per_jaw("normal") == pytest.approx([FORCE, FORCE], rel=1e-9)
        # Under a pure pull each contact uses the same share of its cone: 1 / s*.
        assert f.cone_use == pytest.approx(0.02 * G / (2 * MU * FORCE), rel=1e-6), r.model


def test_a_failing_model_draws_the_forces_of_the_largest_load_it_holds():
    results = _results(0.6, models=["soft_point", "reach", "exact"], force_n=5.0)
    for r in results:
        assert not r.success
        assert r.margin == pytest.approx(2 * MU * 5.0 / (0.6 * G), rel=0.01)
        f = r.forces
        assert f.scale == r.margin
        _check_equilibrium(f, 0.6)
        _check_cones_and_grip(f, 5.0, tol=1e-6)  # at the solvers' margin
        assert f.cone_use == pytest.approx(1.0, rel=0.01)  # at the limit: the cones are full


def test_at_its_limit_with_a_moment_the_friction_stays_inside_the_cones():
    """A 0.6 kg cube gripped at 5 N 8 mm beside its centre of mass: every model fails, and at
    the largest load it holds (s* m g with gravity's moment about the closing axis) the
    smallest-norm friction alone would leave some cells' cones (up to 1.5 x for the exact
    model); the forces drawn are the smallest within them, which the model's s* says exist,
    and a soft point's torsion stays within gamma F."""
    for r in _results(0.6, 0.008, ["soft_point", "reach", "6dfc", "exact"], force_n=5.0):
        assert not r.success
        f = r.forces
        assert f.scale == r.margin
        _check_equilibrium(f, 0.6)
        _check_cones_and_grip(f, 5.0, tol=1e-6)
        if r.model == "soft_point":
            torsion = np.linalg.norm(f.torsion_nm, axis=1)
            assert np.all(torsion <= f.torsion_limit_nm * (1 + 1e-6))
            assert torsion.max() > 0
        else:
            assert f.cone_use == pytest.approx(1.0, abs=1e-6), r.model  # the cones are full


def test_forces_are_computed_only_when_explained():
    obj = cube(0.03, 0.02)
    grasp = Grasp(obj.center_of_mass, [1.0, 0.0, 0.0], 0.0)
    (r,) = analyze_grasp(obj, grasp, AnalyticParams(), ["reach"], 0, 0)
    assert r.forces is None


def test_forces_that_cannot_be_computed_leave_the_verdict_and_say_why(monkeypatch):
    """The forces are a drawing aid: their failure is no model failure (nothing but
    ParameterError escapes analyze_grasp)."""
    from engine.analytic import pipeline

    def broken(*_args, **_kwargs):
        raise FloatingPointError("planted")

    monkeypatch.setattr(pipeline, "contact_forces", broken)
    (r,) = _results(0.02, models=["reach"])
    assert r.success and r.forces is None
    assert r.details["forces_error"] == "FloatingPointError: planted"
