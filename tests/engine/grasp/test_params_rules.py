"""The set-up decisions of engine.grasp.params: which quantity ends the squeeze and with what
force the servo may press, the object's stiffness, the barrier-distance check, and what moving
to another gripper keeps. Gripper numbers are the manufacturers' published values: ABB YuMi
smart gripper 50 mm stroke, 25 mm/s, 20 N; Franka Hand 80 mm, 50 mm/s, 70 N continuous;
Robotiq 2F-85 85 mm, 150 mm/s, 20-235 N."""

from __future__ import annotations

import pytest

from engine.errors import ParameterError
from engine.grasp.params import SimulationParams
from engine.gripper.presets import GRIPPERS


def test_a_given_force_wins_then_psi_th_then_the_grippers_force():
    assert SimulationParams(squeeze_force_n=5.0, psi_th_j=1e-8).squeeze_stop() == ("force", 5.0)
    assert SimulationParams(psi_th_j=1e-8).squeeze_stop() == ("psi", 1e-8)
    assert SimulationParams().squeeze_stop() == ("force", 20.0)  # the YuMi's 20 N
    franka = SimulationParams.for_gripper("franka_hand")
    assert franka.squeeze_stop() == ("force", 70.0)


def test_the_servo_presses_with_the_force_stop_or_the_grippers_maximum():
    assert SimulationParams(squeeze_force_n=5.0).squeeze_force_cap_n == 5.0
    assert SimulationParams(psi_th_j=1e-8).squeeze_force_cap_n == 20.0
    robotiq = SimulationParams.for_gripper("robotiq_2f85", psi_th_j=1e-8)
    assert robotiq.squeeze_force_cap_n == 235.0


def test_the_objects_stiffness_is_the_affine_body_papers_1e8_pa_whatever_the_pads():
    """Lan et al. 2022 (affine body dynamics) use 1e8 Pa. It is the object's rigidity, so a
    stiffer pad leaves it alone; k V |A^T A - I|^2 resists a uniaxial strain like a modulus of
    8 k, so the strongest preset grip (Robotiq 2F-85, 235 N) on a 1 cm^2 face strains the
    object by under 0.5 %, and the YuMi's 20 N on the 3 cm cube's face by under 1e-4."""
    for e in (1e6, 1e8, 3e9, 1e11):
        assert SimulationParams(youngs_modulus_pa=e).effective_object_stiffness_pa == 1e8
    given = SimulationParams(youngs_modulus_pa=3e9, object_stiffness_pa=5e7)
    assert given.effective_object_stiffness_pa == 5e7
    k = SimulationParams().effective_object_stiffness_pa
    strongest = max(g.force_max_n for g in GRIPPERS.values())
    assert strongest / 1e-4 / (8 * k) < 5e-3
    assert 20.0 / 0.03**2 / (8 * k) < 1e-4


def test_dhat_may_be_at_most_five_percent_of_the_opening():
    # The YuMi opens 50 mm: 2.5 mm is allowed, 2.6 mm is not.
    assert SimulationParams(dhat_m=0.0025).validate().dhat_m == 0.0025
    with pytest.raises(ParameterError) as err:
        SimulationParams(dhat_m=0.0026).validate()
    assert str(err.value) == "dhat_m=0.0026 m is too large for a 0.05 m opening; use ~1e-4 m"


def test_a_force_the_gripper_cannot_apply_is_refused():
    with pytest.raises(ParameterError, match=r"outside the ABB YuMi smart gripper's range"):
        SimulationParams(squeeze_force_n=25.0).validate()
    assert SimulationParams(squeeze_force_n=20.0).validate().squeeze_force_n == 20.0


def test_a_gripper_preset_sets_its_hardware_and_given_values_win():
    franka = SimulationParams.for_gripper("franka_hand")
    assert (franka.gripper, franka.open_width_m, franka.closing_speed_m_s) == (
        "franka_hand",
        0.080,
        0.05,
    )
    assert (franka.pad, franka.finger_mass_kg) == ("rectangular", 0.03)
    mine = SimulationParams.for_gripper("franka_hand", closing_speed_m_s=0.01, mu=0.7)
    assert (mine.closing_speed_m_s, mine.mu, mine.open_width_m) == (0.01, 0.7, 0.080)
    values = SimulationParams.from_values(gripper="robotiq_2f85", mu=0.6)
    assert (values.gripper, values.open_width_m, values.mu) == ("robotiq_2f85", 0.085, 0.6)
    assert values.closing_speed_m_s == 0.15
    assert SimulationParams.from_values(mu=0.6).gripper == "yumi"
    with pytest.raises(ParameterError, match="unknown gripper 'nope'"):
        SimulationParams.from_values(gripper="nope")


def test_moving_to_another_gripper_keeps_a_force_it_can_apply():
    yumi = SimulationParams(squeeze_force_n=15.0, mu=0.55, youngs_modulus_pa=1e7)
    franka = yumi.with_gripper("franka_hand")
    assert (franka.gripper, franka.open_width_m, franka.closing_speed_m_s) == (
        "franka_hand",
        0.080,
        0.05,
    )
    assert (franka.pad, franka.finger_mass_kg) == ("rectangular", 0.03)
    assert franka.squeeze_force_n == 15.0  # within the Franka Hand's 1-70 N
    assert (franka.mu, franka.youngs_modulus_pa) == (0.55, 1e7)  # not gripper values: kept
    # 15 N is below the Robotiq's 20 N minimum: the stop falls back to its grip force.
    assert yumi.with_gripper("robotiq_2f85").squeeze_force_n is None
    # 70 N is the Franka's maximum, inclusive; the YuMi cannot press with it.
    strong = SimulationParams.for_gripper("franka_hand", squeeze_force_n=70.0)
    assert strong.with_gripper("franka_hand").squeeze_force_n == 70.0
    assert strong.with_gripper("yumi").squeeze_force_n is None
    weak = SimulationParams.for_gripper("franka_hand", squeeze_force_n=1.0)
    assert weak.with_gripper("franka_hand").squeeze_force_n == 1.0  # the minimum, inclusive


def test_every_field_by_name():
    d = SimulationParams(mu=0.7, psi_th_j=2e-8).to_dict()
    assert (d["mu"], d["psi_th_j"], d["gripper"], d["mu_ground"]) == (0.7, 2e-8, "yumi", None)


def test_dhat_of_exactly_five_percent_is_allowed():
    edge = 0.05 * 0.05  # 5 % of the YuMi's 50 mm, computed as the check computes it
    assert SimulationParams(dhat_m=edge).validate().dhat_m == edge
