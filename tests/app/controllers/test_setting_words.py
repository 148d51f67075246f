"""Engine errors carry the settings they name as fields (engine.errors.Setting); the command line
says their flags, the app its own controls (app.controllers.default_grasp.setting_in_app_words)
instead of rewriting the command line's text with patterns."""

from __future__ import annotations

from app.controllers.default_grasp import problem_text, setting_in_app_words
from app.workers.messages import DefaultGraspFound
from engine.errors import GraspError, Message, Setting
from engine.gripper.presets import gripper_setting
from engine.scene.scene_settings import body_setting, stable_pose_setting, unit_setting


def test_each_setting_is_named_by_the_apps_control():
    assert setting_in_app_words(gripper_setting("franka_hand", "Franka Hand, 80 mm")) == (
        "the Franka Hand, 80 mm (Parameters > Gripper)"
    )
    assert setting_in_app_words(stable_pose_setting()) == (
        "another stable pose (Object and grasp > Resting pose)"
    )
    assert setting_in_app_words(unit_setting("mm")) == "the unit (File > Reopen with another unit)"
    assert setting_in_app_words(body_setting()) == "another body (File > Reopen with another body)"
    words = setting_in_app_words(Setting("mu", "--mu"))
    assert words.endswith("(Parameters)") and "--" not in words


def test_a_no_grasp_reason_reads_in_the_apps_words_and_the_cli_keeps_its_flags():
    exc = GraspError(
        "no grasp fits. A gripper whose stroke fits: {0}; or try another resting pose ({1})",
        settings=[gripper_setting("franka_hand", "Franka Hand, 80 mm"), stable_pose_setting()],
    )
    assert "--gripper franka_hand (Franka Hand, 80 mm)" in str(exc)
    assert "(--stable-pose)" in str(exc)
    msg = DefaultGraspFound(0, None, "", str(exc), 0.1, problem=Message(exc.template, exc.settings))
    text = problem_text(msg)
    assert "--" not in text
    assert "the Franka Hand, 80 mm (Parameters > Gripper)" in text
    assert "(another stable pose (Object and grasp > Resting pose))" in text
    assert problem_text(DefaultGraspFound(0, None, "", "plain text", 0.1)) == "plain text"
