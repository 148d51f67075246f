"""The scene's settings an error can point the user to (engine.errors.Setting): the mesh file's
length unit, the body of a multi-body file and the resting pose. Their command-line flags are
declared here once (engine/cli/scene_args.py adds them)."""

from __future__ import annotations

from engine.errors import Setting

UNIT_FLAG = "--unit"
BODY_FLAG = "--body"
STABLE_POSE_FLAG = "--stable-pose"


def unit_setting(value: str | None = None) -> Setting:
    """The mesh file's length unit (m, cm, mm, in)."""
    return Setting("unit", UNIT_FLAG, value)


def body_setting(value: int | str | None = None, note: str = "") -> Setting:
    """Which body of a multi-body mesh to grasp (an index, or "all")."""
    return Setting("body", BODY_FLAG, value, note)


def stable_pose_setting(value: int | None = None) -> Setting:
    """Which resting pose the object lies in."""
    return Setting("stable_pose", STABLE_POSE_FLAG, value)
