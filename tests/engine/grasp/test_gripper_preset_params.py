"""One Python path applies a gripper's preset: constructing SimulationParams with a gripper gives
that gripper's opening, closing speed, pad and finger mass unless they are given, as
`for_gripper` and the command line do."""

from __future__ import annotations

import pytest

from engine import schema
from engine.errors import ParameterError
from engine.grasp.params import PRESET_FIELDS, SimulationParams
from engine.gripper.presets import GRIPPERS


@pytest.mark.parametrize("name", list(GRIPPERS))
def test_constructing_with_a_gripper_applies_its_preset(name):
    preset = GRIPPERS[name]
    params = SimulationParams(gripper=name)
    for field, attribute in PRESET_FIELDS.items():
        assert getattr(params, field) == getattr(preset, attribute), field
    assert params == SimulationParams.for_gripper(name)
    assert params.validate() is params


def test_the_franka_hand_opens_80_mm_not_the_yumis_50():
    assert SimulationParams(gripper="franka_hand").open_width_m == 0.080
    assert SimulationParams().open_width_m == 0.050  # the YuMi


def test_values_given_explicitly_win_even_when_they_equal_another_grippers():
    params = SimulationParams(gripper="franka_hand", open_width_m=0.05, pad="rounded")
    assert (params.open_width_m, params.pad) == (0.05, "rounded")
    assert params.closing_speed_m_s == GRIPPERS["franka_hand"].closing_speed_m_s
    assert params == SimulationParams.for_gripper("franka_hand", open_width_m=0.05, pad="rounded")


def test_a_dict_or_row_without_the_preset_fields_gets_the_grippers_values():
    assert schema.from_dict(SimulationParams, {"gripper": "robotiq_2f85"}) == SimulationParams(
        gripper="robotiq_2f85"
    )
    row = schema.to_row(SimulationParams(gripper="franka_hand", mu=0.7))
    assert schema.from_row(SimulationParams, row) == SimulationParams(gripper="franka_hand", mu=0.7)


def test_an_unknown_gripper_is_named_by_validate():
    with pytest.raises(ParameterError, match=r"gripper \(--gripper\) must be one of"):
        SimulationParams(gripper="bogus").validate()


def test_the_command_line_help_says_the_grippers_value():
    import argparse

    parser = argparse.ArgumentParser()
    schema.add_arguments(parser, SimulationParams)
    text = " ".join(parser.format_help().split())
    assert "(default: the gripper's)" in text
