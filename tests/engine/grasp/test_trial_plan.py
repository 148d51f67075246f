"""The one trial plan: N = 1 runs the nominal grasp, N >= 2 runs N perturbed poses drawn with
IPC-GraspSim's noise (Kim 2022, Sec. 3.2: translation sigma 1 mm, rotation sigma 0.003 rad)."""

from __future__ import annotations

import numpy as np
import pytest

from engine.errors import ParameterError
from engine.grasp.grasp import Grasp
from engine.grasp.trials import TrialSpec, plan_trials, planned_trial

GRASP = Grasp(center=[0.0, 0.0, 0.015], axis=[1.0, 0.0, 0.0], approach_angle_rad=0.2)


def test_one_trial_is_the_nominal_grasp():
    (only,) = plan_trials(GRASP, TrialSpec(n_trials=1, seed=7))
    assert only.index == 0 and only.perturbation is None and only.perturbation_dict == {}
    np.testing.assert_array_equal(only.pose, GRASP.pose())


def test_several_trials_are_perturbed_with_the_published_sigmas():
    spec = TrialSpec(n_trials=400, seed=3)
    assert (spec.translation_sigma_m, spec.rotation_sigma_rad) == (0.001, 0.003)
    plan = plan_trials(GRASP, spec)
    assert [t.index for t in plan] == list(range(400))
    t = np.array([p.perturbation.translation for p in plan])
    r = np.array([p.perturbation.rotation for p in plan])
    # Sample standard deviations of 1200 normal draws are within 10 % of sigma (5 sigma band).
    assert np.std(t) == pytest.approx(0.001, rel=0.1)
    assert np.std(r) == pytest.approx(0.003, rel=0.1)
    # The offset is applied in the gripper frame: pose = nominal @ offset.
    p0 = plan[0]
    offset = np.linalg.solve(GRASP.pose(), p0.pose)
    np.testing.assert_allclose(offset[:3, 3], p0.perturbation.translation, atol=1e-15)


def test_trial_k_depends_only_on_seed_and_k():
    five = plan_trials(GRASP, TrialSpec(n_trials=5, seed=11))
    ten = plan_trials(GRASP, TrialSpec(n_trials=10, seed=11))
    for a, b in zip(five, ten[:5], strict=True):
        np.testing.assert_array_equal(a.pose, b.pose)
    other = plan_trials(GRASP, TrialSpec(n_trials=5, seed=12))
    assert not np.allclose(five[0].pose, other[0].pose)
    np.testing.assert_array_equal(planned_trial(GRASP, TrialSpec(5, 11), 3).pose, five[3].pose)


def test_bad_plans_are_refused():
    with pytest.raises(ParameterError, match=r"n_trials \(--trials\) must be in \[1,"):
        plan_trials(GRASP, TrialSpec(n_trials=0))
    with pytest.raises(ParameterError, match="rotation_sigma_rad"):
        plan_trials(GRASP, TrialSpec(n_trials=2, rotation_sigma_rad=-1.0))
    with pytest.raises(ParameterError, match=r"outside 0\.\.4"):
        planned_trial(GRASP, TrialSpec(n_trials=5), 5)


def test_the_plan_draws_with_the_spec_sigmas():
    """A spec's own sigmas reach the draws: rotation sigma 0 gives no rotation at all, a 2 mm
    translation sigma a sample standard deviation within 10 % of 2 mm (600 draws)."""
    plan = plan_trials(
        GRASP, TrialSpec(n_trials=200, seed=4, translation_sigma_m=0.002, rotation_sigma_rad=0.0)
    )
    r = np.array([p.perturbation.rotation for p in plan])
    t = np.array([p.perturbation.translation for p in plan])
    np.testing.assert_array_equal(r, np.zeros((200, 3)))
    assert np.std(t) == pytest.approx(0.002, rel=0.1)


def test_trial_zero_is_a_valid_index_and_negative_ones_are_refused():
    spec = TrialSpec(n_trials=3, seed=9)
    np.testing.assert_array_equal(
        planned_trial(GRASP, spec, 0).pose, plan_trials(GRASP, spec)[0].pose
    )
    with pytest.raises(ParameterError, match=r"trial index -1 is outside 0\.\.2"):
        planned_trial(GRASP, spec, -1)
