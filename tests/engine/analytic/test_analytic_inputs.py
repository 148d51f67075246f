"""Bad input and failures become reasons per grasp, never exceptions (issue 3 "Bad input")."""

from __future__ import annotations

import dataclasses
import math
import sys
import types

import numpy as np
import pytest

from engine.analytic import exact_area, pipeline, resistance_lp
from engine.analytic.contact_points import ContactFailure, jaw_view, object_geometry
from engine.analytic.contact_profile import _patch
from engine.analytic.params import AnalyticParams
from engine.analytic.pipeline import analyze_grasp
from engine.analytic.registry import analytic_models, names
from engine.analytic.result import FAILURE_REASONS, wilson_interval
from engine.errors import ParameterError
from engine.grasp.grasp import Grasp
from engine.gripper.jaws import JawPlacement, place_jaws
from tests.engine.analytic.scenes import cube

FAST = ["soft_point", "reach", "6dfc", "exact"]


def _run(obj, grasp, models=FAST, samples=0, **params):
    return analyze_grasp(obj, grasp, AnalyticParams(**params), list(models), samples, 0)


def _reasons(results) -> dict[str, str]:
    """Reasons by model; each starts with one of result.FAILURE_REASONS."""
    out = {r.model: r.reason for r in results}
    assert all(r.split(":")[0] in FAILURE_REASONS for r in out.values() if r), out
    return out


def test_wilson_interval_values():
    """95 % Wilson score interval (Wilson 1927): p = 1/2, n = 10 -> [0.2366, 0.7634];
    20/20 -> [0.8389, 1]; 0/5 -> [0, 0.4345]; n = 0 -> NaN."""
    assert wilson_interval(5, 10) == pytest.approx((0.2366, 0.7634), abs=1e-4)
    assert wilson_interval(20, 20) == pytest.approx((0.8389, 1.0), abs=1e-4)
    assert wilson_interval(0, 5) == pytest.approx((0.0, 0.4345), abs=1e-4)
    assert all(math.isnan(v) for v in wilson_interval(0, 0))


def test_robustness_uses_samples_with_wilson_interval():
    obj = cube(0.03, 0.02)
    (r,) = _run(obj, Grasp(obj.center_of_mass, [1, 0, 0]), ["soft_point"], samples=8)
    assert r.samples == 8 and r.robustness == 1.0
    assert r.robustness_ci == pytest.approx(wilson_interval(8, 8))
    assert r.time_s > 0 and r.time_per_sample_s > 0
    assert set(r.as_json()) >= {"model", "success", "margin", "robustness", "reason", "time_s"}


def test_too_wide_object():
    """A 6 cm box does not fit the 50 mm opening: "too wide" for every model."""
    obj = cube(0.06, 0.05)
    results = _run(obj, Grasp(obj.center_of_mass, [1, 0, 0]), samples=2)
    _reasons(results)
    for r in results:
        assert r.reason.startswith("too wide") and not r.success and r.margin == 0.0
        assert r.robustness == 0.0


def test_approach_collision():
    """Grasp centre 12 mm off along the axis: jaw 0's open pad sits inside the 3 cm cube."""
    obj = cube(0.03, 0.02)
    results = _run(obj, Grasp(obj.center_of_mass + np.array([0.012, 0, 0]), [1, 0, 0]))
    assert all(r.startswith("approach collision") for r in _reasons(results).values())


def test_grasp_that_misses_the_object_has_no_contact():
    obj = cube(0.03, 0.02)
    results = _run(obj, Grasp([0.0, 0.08, 0.015], [1, 0, 0]))
    assert all(r.startswith("no contact on a jaw") for r in _reasons(results).values())


def test_one_jaw_only_touching(monkeypatch):
    """A gripper whose jaw 1 is offset sideways (its pad misses the cube) touches with jaw 0
    only: "no contact on a jaw", naming jaw 1."""
    original = place_jaws

    def offset(pose, width):
        j0, j1 = original(pose, width)
        return j0, JawPlacement(j1.rotation, j1.origin + 0.05 * j1.rotation[:, 1], j1.normal)

    monkeypatch.setattr(pipeline, "place_jaws", offset)
    obj = cube(0.03, 0.02)
    results = _run(obj, Grasp(obj.center_of_mass, [1, 0, 0]), samples=2)
    for r in results:
        assert r.reason.startswith("no contact on a jaw") and "jaw 1" in r.reason, r.reason
        assert not r.success and r.robustness == 0.0


def test_slip_at_a_contact():
    """Soft Point (note 2.1 step 2): closing 45 deg off the face normals of a cube, beyond the
    friction angle atan(0.3) = 16.7 deg: "slip at a contact"."""
    obj = cube(0.03, 0.02)
    (r,) = _run(obj, Grasp(obj.center_of_mass, [1, 1, 0]), ["soft_point"])
    assert r.reason.startswith("slip at a contact") and not r.success


def test_insufficient_friction_reason():
    """mu = 0.001 on the 20 g cube: s* = 2 mu F / (m g) = 0.2 < 1."""
    obj = cube(0.03, 0.02)
    results = _run(obj, Grasp(obj.center_of_mass, [1, 0, 0]), mu=0.001)
    for r in results:
        assert r.reason.startswith("insufficient friction") and not r.success
        assert r.margin == pytest.approx(0.2039, rel=1e-2)


def test_degenerate_patch():
    """Contact elements without area under pressure: "degenerate contact patch"."""
    obj = cube(0.03, 0.02)
    geom = object_geometry(obj)
    view = jaw_view(geom, place_jaws(Grasp(obj.center_of_mass, [1, 0, 0]).pose(), 0.05)[0])
    flat = np.array([[[0.0, 0.0, 0.01], [0.001, 0.0, 0.01], [0.002, 0.0, 0.01]]])
    with pytest.raises(ContactFailure) as info:
        _patch(geom, view, 0, flat, np.array([0]), 0.015, 20.0)
    assert info.value.reason == "degenerate contact patch"


def test_nan_patch_gives_reasons_not_exceptions(monkeypatch):
    real = pipeline.contact_profile

    def broken(*args, **kwargs):
        return tuple(
            dataclasses.replace(p, forces=np.full(len(p), np.nan)) for p in real(*args, **kwargs)
        )

    monkeypatch.setattr(pipeline, "contact_profile", broken)
    obj = cube(0.03, 0.02)
    results = _run(obj, Grasp(obj.center_of_mass, [1, 0, 0]))
    _reasons(results)
    for r in results:
        if r.model == "soft_point":
            assert r.success
        else:
            assert r.reason.startswith("degenerate contact patch") and not r.success, r.reason


def test_failing_solvers_are_reported(monkeypatch):
    """A solver that raises or stops early is a "solver failure" for that model only."""

    def boom(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(resistance_lp, "linprog", boom)

    class Stalled:
        def __init__(self, *args):
            pass

        def solve(self):
            return types.SimpleNamespace(status="MaxIterations", x=[0.0])

    monkeypatch.setattr(exact_area.clarabel, "DefaultSolver", Stalled)
    obj = cube(0.03, 0.02)
    results = _run(obj, Grasp(obj.center_of_mass, [1, 0, 0]), samples=2)
    for r in results:
        assert r.reason.startswith("solver failure"), r.reason
        assert math.isnan(r.margin) and r.robustness == 0.0
    assert "boom" in _reasons(results)["reach"]
    assert "MaxIterations" in _reasons(results)["exact"]


def test_missing_6dls_module_is_a_solver_failure(monkeypatch):
    monkeypatch.setitem(sys.modules, "engine.analytic.sixdls.model", types.ModuleType("stub"))
    obj = cube(0.03, 0.02)
    results = _run(obj, Grasp(obj.center_of_mass, [1, 0, 0]), ["soft_point", "6dls"], samples=3)
    six = results[1]
    assert six.reason.startswith("solver failure") and "6DLS" in six.reason
    assert six.samples == 0 and math.isnan(six.robustness)
    assert results[0].success and results[0].samples == 3


def test_non_watertight_mesh_is_invalid_input():
    obj = cube(0.03, 0.02)
    holed = dataclasses.replace(obj, faces=obj.faces[:-1])
    for r in _run(
        holed, Grasp(obj.center_of_mass, [1, 0, 0]), list(names(analytic_models())), samples=2
    ):
        assert r.reason.startswith("invalid input") and "watertight" in r.reason
        assert not r.success and math.isnan(r.margin)


def test_bad_parameters_and_models_raise_parameter_error():
    obj = cube(0.03, 0.02)
    grasp = Grasp(obj.center_of_mass, [1, 0, 0])
    with pytest.raises(ParameterError, match="soft_point, reach, 6dfc, 6dls, exact"):
        analyze_grasp(obj, grasp, AnalyticParams(), ["softpoint"], 0, 0)
    with pytest.raises(ParameterError, match="mu"):
        analyze_grasp(obj, grasp, AnalyticParams(mu=-0.1), ["exact"], 0, 0)
    with pytest.raises(ParameterError, match="samples"):
        analyze_grasp(obj, grasp, AnalyticParams(), ["exact"], -1, 0)
    for bad in (
        {"closing_force_n": 0.0},
        {"silicone_depth_m": math.nan},
        {"torsion_model": "hertz"},
        {"pad": "round"},
        {"cone_edges": 2},
    ):
        field = next(iter(bad))
        with pytest.raises(ParameterError, match=field):
            AnalyticParams(**bad).validate()
