"""A grasp when the user gives none: through the centre of mass when it fits, else sampled.

`choose_default_grasp(obj, params, rank)` tries, in order:

1. the top-down grasp through the centre of mass, closing along the object's narrowest
   horizontal extent (`default_grasp`), if the simulator accepts it (the open jaws clear the
   object and the ground, and closing them meets the object) and the open fingers and palm
   behind the pads clear them too (the sampler's test);
2. else the best of DEFAULT_SAMPLES sampled antipodal grasps (engine.grasp.sampler, ranked by
   `rank`: an analytic margin from engine.analytic.ranking; most antipodal first without one)
   that the simulator accepts;
3. else it raises GraspError saying that no grasp fits this gripper and naming the presets
   whose stroke fits one (a sampled grasp exists for them).

Everything respects the object's resting pose (the grasps are in its resting frame).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.errors import GraspError, IpcGraspError, Message, literal
from engine.grasp.grasp import Grasp
from engine.grasp.params import SimulationParams
from engine.grasp.sampler import (
    GraspCandidate,
    Ranker,
    SamplerSettings,
    open_gripper_clearance,
    sample_grasps,
    settings_for,
)
from engine.gripper.pad_geometry import PadOutline, pad_outline
from engine.gripper.presets import GRIPPERS, gripper_setting
from engine.scene.resting import RestingObject
from engine.scene.scene_settings import stable_pose_setting

DEFAULT_SAMPLES = 30
"""Sampled candidates the fallback ranks."""
CHECKED = 8
"""Most sampled candidates tried against the simulator's own checks, best first."""

THROUGH_CENTRE = "through the centre of mass"


def narrowest_horizontal_axis(vertices: np.ndarray, steps: int = 360) -> tuple[np.ndarray, float]:
    """Unit horizontal direction along which the object is narrowest, and that width (m), over
    `steps` directions (0.5 degrees apart; `narrowest_width` is exact)."""
    theta = np.linspace(0.0, np.pi, steps, endpoint=False)
    dirs = np.column_stack([np.cos(theta), np.sin(theta), np.zeros_like(theta)])
    proj = vertices @ dirs.T
    widths = proj.max(axis=0) - proj.min(axis=0)
    k = int(np.argmin(widths))
    return dirs[k], float(widths[k])


def narrowest_width(vertices: np.ndarray) -> float:
    """The object's least width across over every horizontal direction (m): the least width of
    its outline seen from above, exact (rotating calipers: the least width of a convex polygon
    is reached with one of its edges flush)."""
    from scipy.spatial import ConvexHull, QhullError

    xy = np.asarray(vertices, dtype=np.float64)[:, :2]
    try:
        hull = xy[ConvexHull(xy).vertices]  # counter-clockwise
    except (QhullError, ValueError):  # an outline without area (flat as seen from above)
        return narrowest_horizontal_axis(np.asarray(vertices))[1]
    edges = np.roll(hull, -1, axis=0) - hull
    normals = np.column_stack([edges[:, 1], -edges[:, 0]]) / np.linalg.norm(edges, axis=1)[:, None]
    # Each edge's width: the farthest hull point from its line (one edge at a time: a scan's
    # outline can have thousands of points).
    return min(float(np.abs((hull - hull[k]) @ normals[k]).max()) for k in range(len(hull)))


def default_grasp(obj: RestingObject, outline: PadOutline, clearance_m: float = 0.002) -> Grasp:
    """Top-down grasp through the centre of mass, closing along the narrowest horizontal extent.

    The centre is raised when needed so the open pads' fingertips clear the ground. Whether
    the gripper's opening fits is not checked here: `choose_default_grasp` does that.
    """
    axis, _ = narrowest_horizontal_axis(np.asarray(obj.vertices))
    tip = float(outline.polygon[:, 0].max())  # pad extent beyond the jaw centre, towards the tips
    top = float(np.asarray(obj.vertices)[:, 2].max())
    z = max(float(obj.center_of_mass[2]), tip + clearance_m)
    if z >= top:
        raise GraspError(
            f"the object is only {top * 1e3:.1f} mm tall: a top-down grasp cannot reach it without "
            "the pad tips hitting the ground; give a grasp with a tilted approach angle"
        )
    return Grasp(center=np.array([0.0, 0.0, z]), axis=axis, approach_angle_rad=0.0)


@dataclass(frozen=True)
class DefaultGrasp:
    """The default grasp and how it was chosen."""

    grasp: Grasp
    how: str  # THROUGH_CENTRE or "best of N sampled grasps (...)"
    candidate: GraspCandidate | None = None  # the sampled candidate, when sampled
    centre_refusal: str = ""  # why the through-the-centre grasp did not fit ('' if it did)
    # The grasp's analytic margin (how many times the object's weight it holds; NaN when not
    # evaluated) and, when it is below 1, a notice naming the presets whose default grasp can
    # carry the object (engine.analytic.ranking.default_grasp_for).
    margin: float = float("nan")
    weak: Message | None = None


def _accepted(obj: RestingObject, grasp: Grasp, params: SimulationParams) -> str:
    """'' when the simulator accepts the nominal grasp, else its reason."""
    from engine.grasp.trials import check_grasp  # the simulator: imported when needed

    try:
        check_grasp(obj, grasp, params)
    except IpcGraspError as exc:
        return str(exc)
    return ""


def _fingers_clear(obj: RestingObject, grasp: Grasp, settings: SamplerSettings) -> str:
    """'' when the open fingers and palm (the sampler's gripper boxes) clear the object and the
    ground, else what they hit (the simulator models the pads only)."""
    hit = open_gripper_clearance(obj, grasp, settings)
    if not hit:
        return ""
    return (
        f"the open gripper's fingers or palm would hit the {hit} (the pads fit, but the "
        "fingers behind them do not)"
    )


def choose_default_grasp(
    obj: RestingObject,
    params: SimulationParams,
    rank: Ranker | None = None,
    *,
    seed: int = 0,
    samples: int = DEFAULT_SAMPLES,
) -> DefaultGrasp:
    """The through-the-centre grasp when it fits, else the best sampled grasp (see module).

    Raises GraspError naming a preset whose stroke fits when no grasp fits this gripper.
    """
    params.validate()
    outline = pad_outline(params.pad, params.pad_edge_length_m)
    settings = settings_for(params.open_width_m, outline, params.mu)
    try:
        centre = default_grasp(obj, outline)
        refusal = _accepted(obj, centre, params) or _fingers_clear(obj, centre, settings)
    except GraspError as exc:
        refusal = str(exc)
    else:
        if not refusal:
            return DefaultGrasp(centre, THROUGH_CENTRE)
    candidates = sample_grasps(obj, settings, samples, seed, rank)
    sampled_refusal = ""
    for k, c in enumerate(candidates[:CHECKED]):
        why = _accepted(obj, c.grasp, params)
        if why:
            sampled_refusal = sampled_refusal or why
            continue
        quality = f", margin {c.quality:.3g}" if np.isfinite(c.quality) else ""
        how = f"best of {len(candidates)} sampled grasps ({_ordinal(k)}{quality})"
        return DefaultGrasp(c.grasp, how, c, refusal)
    tried = min(len(candidates), CHECKED)
    raise no_grasp_error(obj, params, seed, refusal, (tried, sampled_refusal))


def _ordinal(k: int) -> str:
    return "the first" if k == 0 else f"number {k + 1} by quality"


def no_grasp_error(
    obj: RestingObject,
    params: SimulationParams,
    seed: int,
    refusal: str,
    sampled: tuple[int, str] = (0, ""),
) -> GraspError:
    """That no grasp fits this gripper on `obj`, and which presets' strokes fit one (or that
    another resting pose may). `sampled`: how many sampled grasps the simulator's checks
    refused, and the best one's reason (none sampled: (0, ""))."""
    preset = params.preset
    fitting = []
    for other in GRIPPERS.values():
        if other.name == preset.name or other.stroke_m <= params.open_width_m:
            continue
        alt = params.with_gripper(other.name)
        found = sample_grasps(
            obj,
            settings_for(alt.open_width_m, pad_outline(alt.pad, alt.pad_edge_length_m), alt.mu),
            3,
            seed,
        )
        if any(not _accepted(obj, c.grasp, alt) for c in found):
            fitting.append(
                gripper_setting(other.name, f"{other.label}, {other.stroke_m * 1e3:.0f} mm")
            )
    # Across the object, over every horizontal direction (not its axis-aligned box, which a
    # brick turned on the table makes wider).
    width = narrowest_width(np.asarray(obj.vertices))
    text = (
        f"no grasp fits the {preset.label}'s {params.open_width_m * 1e3:.0f} mm opening on this "
        f"object in this resting pose (its narrowest width across, over every horizontal "
        f"direction, is {width * 1e3:.0f} mm): "
    )
    tried, why = sampled
    if tried:
        best = "the best" if tried == 1 else f"all {tried} best"
        text += f"{best} sampled grasps within the opening fail the simulator's checks (the best: {why})"
    else:
        text += (
            "no antipodal pair of surface points within the opening has an approach where the "
            "open gripper clears the object and the ground"
        )
    if refusal:
        text += f" (through the centre of mass: {refusal})"
    text = literal(text)
    if fitting:
        text += f". A gripper whose stroke fits: {', '.join(['{}'] * len(fitting))}"
        return GraspError(text, settings=fitting)
    text += ". No preset gripper fits either: try another resting pose ({0})"
    return GraspError(text, settings=[stable_pose_setting()])
