"""Errors carry the settings that fix them as fields: the command line says them as flags, another
front end in its own words, and the fields survive the trip from a worker process."""

from __future__ import annotations

import pickle

import pytest

from engine.errors import GraspError, IpcGraspError, NewtonNotConverged, Setting, literal
from engine.grasp.params import SimulationParams
from engine.gripper.presets import GRIPPERS
from engine.scene.mesh_bodies import SeveralBodiesError
from engine.scene.object_mesh import object_from_spec


def _app_words(s: Setting) -> str:
    return f"<{s.name}={s.value}>"


def test_a_message_names_its_settings_in_each_front_ends_words():
    exc = GraspError(
        "no grasp fits {0}; try {1} {{literally}}",
        settings=[Setting("gripper", "--gripper", "franka_hand", "Franka Hand, 80 mm"),
                  Setting("stable_pose", "--stable-pose")],
    )  # fmt: skip
    assert str(exc) == (
        "no grasp fits --gripper franka_hand (Franka Hand, 80 mm); try --stable-pose {literally}"
    )
    assert exc.render(_app_words) == (
        "no grasp fits <gripper=franka_hand>; try <stable_pose=None> {literally}"
    )
    # Without settings a message is taken as it is, braces and all.
    assert str(IpcGraspError("a {dict} as text")) == "a {dict} as text"
    assert GraspError(literal("{x}") + " {0}", settings=[Setting("body", "--body")]).render(
        _app_words
    ) == ("{x} <body=None>")


@pytest.mark.parametrize(
    "exc",
    [
        GraspError("fits {0}", settings=[Setting("gripper", "--gripper", "yumi")]),
        NewtonNotConverged("no convergence", 12),
        SeveralBodiesError("{0}", ("body 0", "body 1"), settings=[Setting("body", "--body", 1)]),
    ],
)
def test_errors_keep_their_fields_through_pickling(exc):
    back = pickle.loads(pickle.dumps(exc))
    assert type(back) is type(exc)
    assert str(back) == str(exc) and back.settings == exc.settings
    assert back.render(_app_words) == exc.render(_app_words)
    assert back.__dict__ == exc.__dict__  # iterations, bodies


def test_engine_refusals_carry_the_setting_that_fixes_them():
    with pytest.raises(IpcGraspError) as err:
        object_from_spec("cube", body=2)
    assert [(s.name, s.value) for s in err.value.settings] == [("body", 2)]
    assert str(err.value).startswith("--body 2 applies to mesh files")
    # A force outside the gripper's range names the gripper setting.
    with pytest.raises(IpcGraspError) as err:
        SimulationParams(squeeze_force_n=30.0).validate()
    assert [s.name for s in err.value.settings] == ["gripper"]
    # An object too wide for every jaw opening but the widest names the presets that fit.
    with pytest.raises(IpcGraspError) as err:
        GRIPPERS["yumi"].check_width(0.07)
    fits = [s.value for s in err.value.settings]
    assert fits == [g.name for g in GRIPPERS.values() if g.stroke_m > 0.07] and fits
    assert "--gripper franka_hand (80 mm)" in str(err.value)
