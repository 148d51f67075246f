"""Where an open gripper may start: the checks a grasp pose must pass before any simulation.

The open jaws must clear the ground and the object (or, with `auto_open_m`, open further until
they clear it, as IPC-GraspSim does), and closing them must bring both pads onto the object;
before any simulation (`check_grasp`) each pad must also first touch it where friction holds
(`check_pads_grip`), else the simulation would end with the object pushed out. The
IPC simulation (engine.grasp.simulation), `check_grasp` (engine.grasp.trials: the app's and the
CLI's validity check, which builds no simulation) and the MuJoCo baseline share these.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from engine.errors import GraspError
from engine.grasp.params import SimulationParams
from engine.gripper.jaws import JawPlacement, place_jaws
from engine.gripper.pad_geometry import PadMesh, PadOutline
from engine.gripper.presets import GRIPPERS
from engine.ipc import ipctk_gateway as ipc
from engine.ipc.collision_layout import OBJECT_OWNER, PAD_OWNER, CollisionLayout
from engine.scene.mesh_rays import first_hits, points_inside
from engine.scene.resting import RestingObject

L = TypeVar("L", bound=CollisionLayout)

# Rays cast from a pad's contact face (a grid over its outline's bounding box).
PAD_RAY_GRID = (24, 16)
# IPC-GraspSim's auto-open step and the clearance it opens to (m).
AUTO_OPEN_STEP_M = 0.001


@dataclass(frozen=True)
class OpenJaws:
    """An admissible open gripper: its opening (m), the jaws, the pads' vertices in the world
    and the collision layout (or system) built for them."""

    open_width_m: float
    jaws: tuple[JawPlacement, JawPlacement]
    pad_world: tuple[np.ndarray, np.ndarray]
    layout: CollisionLayout

    @property
    def normals(self) -> tuple[np.ndarray, np.ndarray]:
        """Each jaw's closing direction."""
        return (self.jaws[0].normal, self.jaws[1].normal)


def place_open_jaws(
    obj: RestingObject,
    pose: np.ndarray,
    params: SimulationParams,
    pad: PadMesh,
    build: Callable[[tuple[np.ndarray, np.ndarray]], L],
) -> tuple[OpenJaws, L]:
    """The open gripper at `pose`, opened further 1 mm at a time up to `auto_open_m` until its
    jaws clear the object by 1 mm (by dhat without auto-open); `build(pad_world)` makes the
    layout the checks query (a CollisionLayout, or the simulation's GraspSystem). Raises
    GraspError naming the fix when no opening clears."""
    extra_steps = math.floor(params.auto_open_m / AUTO_OPEN_STEP_M + 1e-9)
    for k in range(extra_steps + 1):
        width = params.open_width_m + AUTO_OPEN_STEP_M * k
        jaws = place_jaws(pose, width)
        pad_world = (jaws[0].to_world(pad.vertices), jaws[1].to_world(pad.vertices))
        check_open_jaws_clear_ground(pad_world)
        layout = build(pad_world)
        placed = OpenJaws(width, jaws, pad_world, layout)
        try:
            clearance = AUTO_OPEN_STEP_M if extra_steps else params.dhat_m
            check_open_jaws_clear_object(placed, obj, pose, params, clearance)
            return placed, layout
        except GraspError:
            if k == extra_steps:
                raise
    raise AssertionError("unreachable: the last opening raises")


def layout_builder(
    obj: RestingObject, pad: PadMesh, object_lift_m: float
) -> Callable[[tuple[np.ndarray, np.ndarray]], CollisionLayout]:
    """A `build` for place_open_jaws that makes only the collision layout (no simulation), the
    object lifted as the simulation starts it."""
    com = np.asarray(obj.center_of_mass, dtype=float)
    # As the simulation's affine body places it: body points about the centre of mass, moved
    # to the lifted centre.
    placed = (np.asarray(obj.vertices, dtype=float) - com) + (com + [0.0, 0.0, object_lift_m])

    def build(pad_world: tuple[np.ndarray, np.ndarray]) -> CollisionLayout:
        return CollisionLayout.of_placement((pad, pad), pad_world, placed, obj.faces)

    return build


def check_open_jaws_clear_ground(pad_world: tuple[np.ndarray, np.ndarray]) -> None:
    """GraspError when an open pad reaches below the ground plane (z = 0)."""
    low = min(float(x[:, 2].min()) for x in pad_world)
    if low <= 0.0:
        raise GraspError(
            f"the open jaws reach {low * 1e3:.1f} mm below the ground plane; raise the grasp "
            f"centre by at least {-low * 1e3 + 1:.0f} mm or tilt the approach"
        )


def check_open_jaws_clear_object(
    placed: OpenJaws,
    obj: RestingObject,
    pose: np.ndarray,
    params: SimulationParams,
    clearance_m: float,
) -> None:
    """GraspError when the open pads intersect the object, lie inside it, or come closer to it
    (or to each other) than `clearance_m`."""
    layout = placed.layout
    x = layout.x_initial
    if ipc.has_intersections(layout.collision_mesh, x) or pad_inside_object(layout, x, obj):
        axis = pose[:3, 0]
        width = float(np.ptp(np.asarray(obj.vertices) @ axis))
        preset = params.preset
        wider = [g.label for g in GRIPPERS.values() if g.stroke_m > max(width, preset.stroke_m)]
        hint = f", or a gripper with a larger stroke ({', '.join(wider)})" if wider else ""
        raise GraspError(
            "the open jaws intersect the object: it is "
            f"{width * 1e3:.1f} mm wide along the closing axis and the {preset.label} "
            f"opens {placed.open_width_m * 1e3:.0f} mm, or the grasp centre is off the object; "
            f"move the grasp or choose a narrower closing axis{hint}"
        )
    pairs = [(0, OBJECT_OWNER), (1, OBJECT_OWNER), (0, 1)]
    gap = layout.closest_gap(x, pairs, clearance_m, placed.normals[0])
    if gap < clearance_m:
        raise GraspError(
            "the open jaws touch the object before closing (closer than "
            f"{clearance_m * 1e3:.2f} mm); move the grasp so the open jaws "
            "are clear of the object"
        )


def pad_inside_object(layout: CollisionLayout, x: np.ndarray, obj: RestingObject) -> bool:
    """Whether a pad lies inside the object: a pad wholly inside crosses no surface, so the
    intersection test alone misses it. Asked of pads that cross no surface, so each is wholly
    inside or wholly outside: one vertex of each decides."""
    first = [int(np.argmax(layout.collision_owner == k)) for k in PAD_OWNER]
    return bool(points_inside(x[first], x[layout.object_rows], obj.faces).any())


def pad_face_points(outline: PadOutline, grid: tuple[int, int] = PAD_RAY_GRID) -> np.ndarray:
    """(n, 2) points of a grid over the pad's outline that lie inside it (pad frame, m)."""
    polygon = np.asarray(outline.polygon, dtype=float)
    lo, hi = polygon.min(axis=0), polygon.max(axis=0)
    a, b = np.meshgrid(np.linspace(lo[0], hi[0], grid[0]), np.linspace(lo[1], hi[1], grid[1]))
    pts = np.column_stack([a.ravel(), b.ravel()])
    return pts[inside_polygon(pts, polygon)]


# A pad's first touch: the rays that meet the object within this much of the first one.
FIRST_TOUCH_M = 5e-4
# A first touch on a surface sloped more than the friction cone's half-angle plus this (for a
# faceted curved surface) squeezes the object out sideways instead of gripping it.
SLOPE_SLACK_DEG = 10.0


def check_pads_close_on_object(
    obj: RestingObject,
    jaws: tuple[JawPlacement, JawPlacement],
    outline: PadOutline,
    open_width_m: float,
) -> list[tuple[np.ndarray, np.ndarray]]:
    """GraspError, naming the pad and the fix, when a pad's closing sweep (its contact face
    moving towards the grasp centre, where the jaws meet after half the opening) meets no
    surface of the object: closing would not touch it. Returns each pad's sweep (first_hits'
    distances and triangles) for `check_pads_grip`."""
    face = _pad_face(outline)
    sweeps = [_sweep(obj, jaw, face, open_width_m) for jaw in jaws]
    for k, (dist, _) in enumerate(sweeps):
        if not np.isfinite(dist).any():
            raise GraspError(
                f"the grasp misses the object: pad {k + 1} would close on nothing (its sweep "
                "towards the grasp centre meets no surface of the object before the jaws "
                f"meet). Move the grasp centre onto the object ({_bounds_text(obj)}), e.g. "
                "right-click a point on it"
            )
    return sweeps


def check_pads_grip(
    obj: RestingObject,
    jaws: tuple[JawPlacement, JawPlacement],
    sweeps: list[tuple[np.ndarray, np.ndarray]],
    mu: float,
) -> None:
    """GraspError, naming the pad and the fix, when a pad would first touch the object only
    where its surface slopes away from the pad beyond the friction cone (atan mu, plus
    SLOPE_SLACK_DEG): closing would squeeze the object out sideways, as a grasp between two
    separate parts of an object does, whose pads reach them with their rims only. The
    simulation runs such a grasp and ends it "pushed out" (engine.grasp.squeeze_rules); the
    check before any simulation (`check_grasp`) refuses it. Pads that meet nothing are
    `check_pads_close_on_object`'s, whose `sweeps` this reads."""
    limit = math.degrees(math.atan(mu)) + SLOPE_SLACK_DEG
    for k, (jaw, (dist, tri)) in enumerate(zip(jaws, sweeps, strict=True)):
        if not np.isfinite(dist).any():
            continue
        first = tri[dist <= dist.min() + FIRST_TOUCH_M]
        # Only the triangles first touched need their normals (not every face of a scan).
        tris = np.asarray(obj.vertices, dtype=float)[np.asarray(obj.faces)[first]]
        normals = np.cross(tris[:, 1] - tris[:, 0], tris[:, 2] - tris[:, 0])
        normals /= np.maximum(np.linalg.norm(normals, axis=1, keepdims=True), 1e-300)
        closing = np.asarray(jaw.normal, dtype=float)
        slope = math.degrees(math.acos(min(1.0, float(np.abs(normals @ closing).max()))))
        if slope > limit:
            raise GraspError(
                f"pad {k + 1} would touch the object only with its rim, where the surface "
                f"slopes {slope:.0f} deg from the pad (friction at mu {mu:g} holds up to "
                f"{limit:.0f} deg): closing would squeeze it out sideways. The grasp's closing "
                "line passes through empty space; move the grasp centre onto the object "
                f"({_bounds_text(obj)}), e.g. right-click a point on it"
            )


def _pad_face(outline: PadOutline) -> np.ndarray:
    """Points of the pad's contact face (pad frame, m) that the closing rays start from."""
    pts = pad_face_points(outline)
    return np.column_stack([pts, np.zeros(len(pts))])


def _sweep(
    obj: RestingObject, jaw: JawPlacement, face: np.ndarray, open_width_m: float
) -> tuple[np.ndarray, np.ndarray]:
    """Where each ray of the jaw's pad face first meets the object before the jaws meet."""
    closing = np.asarray(jaw.normal, dtype=float)
    return first_hits(jaw.to_world(face), closing, obj.vertices, obj.faces, 0.5 * open_width_m)


def _bounds_text(obj: RestingObject) -> str:
    return (
        f"resting-frame bounds {np.round(obj.vertices.min(0) * 1e3, 1).tolist()} .. "
        f"{np.round(obj.vertices.max(0) * 1e3, 1).tolist()} mm"
    )


def inside_polygon(points: np.ndarray, polygon: np.ndarray) -> np.ndarray:
    """Even-odd point-in-polygon test for (n,2) points against a (k,2) closed polygon."""
    x, y = points[:, 0:1], points[:, 1:2]
    x0, y0 = polygon[:, 0], polygon[:, 1]
    x1, y1 = np.roll(x0, -1), np.roll(y0, -1)
    crosses = (y0 > y) != (y1 > y)
    with np.errstate(divide="ignore", invalid="ignore"):
        xi = x0 + (y - y0) * (x1 - x0) / (y1 - y0)
    result: np.ndarray = np.logical_and(crosses, x < xi).sum(axis=1) % 2 == 1
    return result
