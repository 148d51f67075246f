"""Rank sampled grasps by an analytic model's margin: the Soft Point model at their contacts.

The sampler (engine.grasp.sampler) knows each candidate's two contacts and surface normals, so
the Soft Point margin s* (engine.analytic.soft_point: friction cones with torsion, the LP of
the largest multiple of the object's weight the two contacts hold with the grip force) is
evaluated there directly, without ray casting: about a millisecond per candidate. A candidate
whose closing axis leaves a friction cone gets 0.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np

from engine.analytic import soft_point
from engine.analytic.contact_patch import ContactPoint
from engine.analytic.contact_points import ContactFailure
from engine.analytic.from_simulation import analytic_params_for
from engine.analytic.params import AnalyticParams
from engine.analytic.wrench import gravity_wrench
from engine.errors import GraspError, Message
from engine.grasp.default_grasp import DefaultGrasp, choose_default_grasp
from engine.grasp.params import SimulationParams
from engine.grasp.sampler import GraspCandidate, Ranker
from engine.gripper.presets import GRIPPERS, gripper_setting
from engine.scene.resting import RestingObject

QUALITY_MODEL = "soft_point"
"""The model whose margin ranks sampled grasps."""


def soft_point_margins(
    obj: RestingObject, candidates: Sequence[GraspCandidate], params: AnalyticParams
) -> list[float]:
    """The Soft Point margin s* of each candidate at its sampled contacts (0: it slips)."""
    params.validate()
    w_ext = gravity_wrench(float(obj.mass_kg))
    com = np.asarray(obj.center_of_mass, dtype=float)
    out = []
    for c in candidates:
        axis = np.asarray(c.grasp.axis, dtype=float)
        points = (
            ContactPoint(jaw=0, position=np.asarray(c.contact0), normal=-np.asarray(c.normal0)),
            ContactPoint(jaw=1, position=np.asarray(c.contact1), normal=-np.asarray(c.normal1)),
        )
        try:
            margin = soft_point.evaluate(points, [axis, -axis], w_ext, com, params).margin
        except ContactFailure:
            margin = 0.0
        out.append(max(0.0, float(margin)) if math.isfinite(margin) else math.nan)
    return out


@dataclass(frozen=True)
class MarginRanker:
    """A Ranker giving each candidate its Soft Point margin under `params`."""

    params: AnalyticParams

    def __call__(self, obj: RestingObject, candidates: Sequence[GraspCandidate]) -> list[float]:
        return soft_point_margins(obj, candidates, self.params)


def margin_ranker(params: AnalyticParams) -> Ranker:
    """A Ranker giving each candidate its Soft Point margin under `params`."""
    return MarginRanker(params)


def simulation_ranker(params: SimulationParams) -> MarginRanker:
    """The ranker of grasps for a simulation: the Soft Point margin under its friction,
    opening, pad and grip force (engine.analytic.from_simulation.analytic_params_for)."""
    return MarginRanker(analytic_params_for(params))


def default_grasp_for(obj: RestingObject, params: SimulationParams, seed: int = 0) -> DefaultGrasp:
    """engine.grasp.default_grasp.choose_default_grasp with the sampled grasps ranked by their
    Soft Point margin under the simulation's friction and grip force, and that margin. When
    even this grasp cannot carry the object's weight (margin below 1), `weak` says so and names
    the preset grippers whose own default grasp can, at their own grip force."""
    chosen = _with_margin(obj, params, seed)
    if not chosen.margin < 1.0:
        return chosen
    holders = []
    for name, preset in GRIPPERS.items():
        if name == params.gripper:
            continue
        alt = replace(params.with_gripper(name), squeeze_force_n=None, psi_th_j=None)
        try:
            other = _with_margin(obj, alt, seed)
        except GraspError:
            continue
        if other.margin >= 1.0:
            note = f"{preset.label}, {preset.force_max_n:g} N: margin {other.margin:.2g}"
            holders.append(gripper_setting(name, note))
    text = (
        f"the default grasp holds only {chosen.margin:.2g} times the object's weight (Soft Point "
        f"margin below 1 at {analytic_params_for(params).closing_force_n:g} N per jaw and mu "
        f"{params.mu:g}): it will likely slip"
    )
    if holders:
        text += "; a gripper whose default grasp can hold it: " + ", ".join(["{}"] * len(holders))
    else:
        text += (
            "; no preset gripper's default grasp holds it: give a grasp, or another resting pose"
        )
    return replace(chosen, weak=Message(text, tuple(holders)))


def _with_margin(obj: RestingObject, params: SimulationParams, seed: int) -> DefaultGrasp:
    """The default grasp of `params` with its Soft Point margin (the sampled candidate's, or the
    nominal pose's for the grasp through the centre of mass)."""
    chosen = choose_default_grasp(obj, params, simulation_ranker(params), seed=seed)
    if chosen.candidate is not None and math.isfinite(chosen.candidate.quality):
        return replace(chosen, margin=float(chosen.candidate.quality))
    from engine.analytic.pipeline import analyze_grasp

    aparams = analytic_params_for(params)
    (result,) = analyze_grasp(obj, chosen.grasp, aparams, [QUALITY_MODEL], 0, seed)
    return replace(chosen, margin=float(result.margin))
