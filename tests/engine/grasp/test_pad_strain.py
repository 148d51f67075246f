"""The pads' nominal strain at the squeeze's force cap, and the advice for a soft pad under a
strong gripper (engine.grasp.pad_strain)."""

from __future__ import annotations

import re

import pytest

from engine.grasp.pad_strain import STRAIN_ADVICE, nominal_pad_strain, pad_strain_advice
from engine.grasp.params import SimulationParams
from engine.gripper.pad_geometry import pad_outline

GRIPPERS = ("yumi", "franka_hand", "robotiq_2f85")


def test_strain_is_the_force_cap_over_modulus_times_the_pad_face():
    # Hooke's nominal strain F / (E A): the YuMi's 20 N on its D-shaped pad (506 mm^2) at 1 MPa.
    p = SimulationParams.for_gripper("yumi", youngs_modulus_pa=1e6)
    area = pad_outline("rounded").area_m2
    assert area == pytest.approx(5.06e-4, rel=1e-3)
    assert nominal_pad_strain(p) == pytest.approx(20.0 / (1e6 * area))
    assert nominal_pad_strain(p) == pytest.approx(0.0395, abs=5e-4)
    # A force stop below the gripper's force is the cap; a Psi_th stop presses up to the
    # gripper's force.
    p10 = SimulationParams.for_gripper("yumi", youngs_modulus_pa=1e6, squeeze_force_n=10.0)
    assert nominal_pad_strain(p10) == pytest.approx(0.5 * nominal_pad_strain(p))
    psi = SimulationParams.for_gripper("robotiq_2f85", youngs_modulus_pa=1e6, psi_th_j=1e-4)
    assert nominal_pad_strain(psi) == pytest.approx(
        235.0 / (1e6 * pad_outline("rectangular").area_m2)
    )


@pytest.mark.parametrize("gripper", GRIPPERS)
def test_no_advice_for_the_defaults_or_the_validated_soft_pad(gripper):
    assert pad_strain_advice(SimulationParams.for_gripper(gripper)) is None
    # The setting docs/validation.md recommends where edge grasps matter: 1 MPa with the YuMi.
    assert pad_strain_advice(SimulationParams.for_gripper("yumi", youngs_modulus_pa=1e6)) is None


@pytest.mark.parametrize(("gripper", "percent"), [("franka_hand", 13), ("robotiq_2f85", 43)])
def test_a_soft_pad_under_a_strong_gripper_gets_advice_that_works(gripper, percent):
    p = SimulationParams.for_gripper(gripper, youngs_modulus_pa=1e6)
    advice = pad_strain_advice(p)
    assert advice is not None
    assert f"about {percent} %" in advice
    assert f"{p.squeeze_force_cap_n:g} N" in advice
    # Following either suggestion, as printed (rounded to the safe side), silences it.
    e_mpa = float(re.search(r"E >= ([\d.]+) MPa", advice).group(1))
    force = float(re.search(r"Closing force\) <= ([\d.]+) N", advice).group(1))
    assert (
        nominal_pad_strain(SimulationParams.for_gripper(gripper, youngs_modulus_pa=e_mpa * 1e6))
        <= STRAIN_ADVICE * 1.01
    )
    stopped = SimulationParams.for_gripper(gripper, youngs_modulus_pa=1e6, squeeze_force_n=force)
    assert pad_strain_advice(stopped) is None
    assert nominal_pad_strain(stopped) == pytest.approx(STRAIN_ADVICE, rel=0.05)
