"""Which part of the load a model's verdict turns on: the weight's pull along the pads, or its
moment about the grasp centre (torsion when the centre of mass is off the closing axis).

Gravity at the centre of mass c is the wrench [f; 0] about c. At the grasp centre g (the jaws'
midpoint) it splits into the weight acting through g, [f; (g - c) x f], and gravity's moment
about g, [0; (c - g) x f]; the two sum to gravity. A model's margin against each part alone
(the same evaluate function, the same contacts) says which one its contacts cannot hold: a
grasp whose contacts hold the pull three times over but the moment only half is a torsion
failure, whatever the combined margin. The simulator's counterparts are the slip along the
pads and the turn in the grip it measures (engine.grasp.grip_measures).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from engine.analytic.wrench import gravity_wrench

TRANSLATION = "translation"
TORSION = "torsion"
TOGETHER = "translation and torsion together"


@dataclass(frozen=True)
class LoadParts:
    """Gravity split at the grasp centre (wrenches about the centre of mass, (6,))."""

    pull: np.ndarray  # the weight acting through the grasp centre
    moment: np.ndarray  # gravity's moment about the grasp centre
    moment_nm: float  # its size (N m)
    about_closing_axis_nm: float  # its component about the closing axis (N m)


def load_parts(
    mass_kg: float, com: np.ndarray, centre: np.ndarray, closing_axis: np.ndarray
) -> LoadParts:
    """Gravity on an object of `mass_kg` split at the grasp `centre` (resting frame, m)."""
    weight = gravity_wrench(mass_kg)
    f = weight[:3]
    arm = np.asarray(centre, dtype=float) - np.asarray(com, dtype=float)
    pull = np.concatenate([f, np.cross(arm, f)])
    moment = np.concatenate([np.zeros(3), np.cross(-arm, f)])
    axis = np.asarray(closing_axis, dtype=float)
    axis = axis / max(float(np.linalg.norm(axis)), 1e-300)
    return LoadParts(
        pull=pull,
        moment=moment,
        moment_nm=float(np.linalg.norm(moment[3:])),
        about_closing_axis_nm=abs(float(moment[3:] @ axis)),
    )


def limiting_part(margin: float, pull_margin: float, moment_margin: float) -> str:
    """The part of the load a verdict turns on: the one whose own margin is smaller (below 1:
    the part that fails; both below 1: together), or TOGETHER when each part alone is held but
    not both at once."""
    pull_short = not pull_margin >= 1.0
    moment_short = not moment_margin >= 1.0
    if pull_short and moment_short:
        return TOGETHER
    if pull_short:
        return TRANSLATION
    if moment_short:
        return TORSION
    if margin >= 1.0 or math.isnan(margin):
        return TRANSLATION if pull_margin <= moment_margin else TORSION
    return TOGETHER


def describe(margin: float, pull_margin: float, moment_margin: float, parts: LoadParts) -> str:
    """One line: which part limits, with both parts' margins ("torsion: holds the pull 3.1 x,
    gravity's moment of 12 N mm 0.45 x")."""
    part = limiting_part(margin, pull_margin, moment_margin)
    moment = (
        "no moment about the grasp centre"
        if parts.moment_nm == 0.0
        else f"gravity's moment of {1e3 * parts.moment_nm:.3g} N mm {moment_margin:.3g} x"
    )
    return f"{part}: holds the pull {pull_margin:.3g} x, {moment}"
