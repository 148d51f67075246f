"""Antipodal grasp candidates that fit a parallel-jaw gripper, collision-free when open.

`sample_candidates(obj, settings, n, seed)` draws surface points (area-weighted), casts a ray
from each into the object along its inward normal and along a direction tilted within the
friction cone (and, where that lies in the cone, horizontally), and pairs the point with the outermost surface where the ray leaves the
material within the opening. A pair is antipodal when the closing axis lies within both
contacts' friction cones (half-angle atan(mu)); engine.grasp.antipodal_pairs finds the pairs. Each pair is tried at `approach_angles`
approach angles about its axis (angle 0 approaches from as straight above as the axis allows;
the others tilt the approach round to the sides and below). Where the open fingertips would
reach the ground, the grasp moves back along its approach until they clear it, as long as the
contacts stay on the pads. A grasp is kept only if the open gripper - both pads with their backing plates and fingers, and the palm between the fingers,
as boxes grown by `clearance_m` - touches neither the object nor the ground. Candidates are at
least `min_distance_m` apart in the grasp distance below. The result depends only on the object,
the settings and the seed.

`sample_grasps` ranks the candidates with a `Ranker` (a quality per candidate, higher is
better: engine.analytic.ranking gives an analytic model's margin) and keeps the best `n`,
again `min_distance_m` apart.

Grasp distance: |c1 - c2| + RADIUS_M * (angle between the closing axes, either sign) +
RADIUS_M * (angle between the approach directions): 5 mm apart means 5 mm of centre, or
about 29 degrees of axis or approach.
"""

from __future__ import annotations

import math
import weakref
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

import numpy as np
import trimesh

from engine.errors import ParameterError
from engine.grasp.antipodal_pairs import antipodal_pairs
from engine.grasp.grasp import Grasp
from engine.gripper.pad_geometry import PadOutline
from engine.scene.box_faces import FaceGrid
from engine.scene.mesh_rays import points_inside
from engine.scene.resting import RestingObject

FINGER_LENGTH_M = 0.030
"""Finger behind the pad, towards the palm (as the app draws it)."""
PLATE_THICKNESS_M = 0.004
"""Backing plate behind the pad."""
PLATE_MARGIN_M = 0.001
"""Plate margin around the pad outline."""
PALM_DEPTH_M = 0.020
"""Palm between the fingers, beyond the finger length."""
CONTACT_MARGIN_M = 0.002
"""A contact stays at least this far inside the pad's fingertip end when the grasp is moved
back along its approach to clear the ground."""
ROUNDS = 6
"""Most rounds of fresh surface points the sampler draws while the pool is not full."""
RADIUS_M = 0.01
"""Metres per radian of axis or approach difference in the grasp distance."""


@dataclass(frozen=True)
class SamplerSettings:
    """What a sampled grasp must satisfy (SI units)."""

    open_width_m: float  # opening between the open jaws' contact faces (the stroke)
    outline: PadOutline  # the pad's outline (the gripper's pad preset)
    mu: float = 0.4  # friction coefficient of the antipodal test
    approach_angles: int = 8  # approach angles tried per closing axis
    clearance_m: float = 0.001  # free space around the open gripper
    min_distance_m: float = 0.005  # least grasp distance between two candidates
    surface_points: int | None = (
        None  # surface samples, one round (default: rounds of max(150, 2 n))
    )

    def validate(self) -> SamplerSettings:
        """Raise ParameterError naming a bad setting and its range; return self."""
        checks = (
            ("open_width_m", self.open_width_m, 0.0),
            ("mu", self.mu, 0.0),
            ("clearance_m", self.clearance_m, -1.0),
            ("min_distance_m", self.min_distance_m, -1.0),
        )
        for name, value, low in checks:
            if not (isinstance(value, int | float) and math.isfinite(value) and value > low):
                raise ParameterError(
                    f"sampler {name} must be a finite number > {low:g}, got {value!r}"
                )
        if self.clearance_m < 0 or self.min_distance_m < 0:
            raise ParameterError("sampler clearance_m and min_distance_m must be >= 0")
        if not (isinstance(self.approach_angles, int) and 1 <= self.approach_angles <= 72):
            raise ParameterError(
                f"approach_angles must be an integer in [1, 72], got {self.approach_angles!r}"
            )
        if self.surface_points is not None and not 1 <= self.surface_points <= 1_000_000:
            raise ParameterError(
                f"surface_points must be in [1, 1000000], got {self.surface_points!r}"
            )
        if self.open_width_m <= 2 * self.clearance_m:
            raise ParameterError(
                f"an opening of {self.open_width_m * 1e3:g} mm leaves no room inside a "
                f"{self.clearance_m * 1e3:g} mm clearance"
            )
        return self


@dataclass(frozen=True, eq=False)
class GraspCandidate:
    """A sampled grasp with its two contacts (resting frame, m) and quality (higher is better)."""

    grasp: Grasp
    contact0: np.ndarray  # jaw 0's contact (the -x side of the gripper frame)
    contact1: np.ndarray
    normal0: np.ndarray  # outward surface normals at the contacts
    normal1: np.ndarray
    cone_angle_rad: float  # largest angle between the closing line and a contact's normal
    quality: float = math.nan  # the ranker's value (NaN: not ranked)

    @property
    def width_m(self) -> float:
        """Distance between the two contacts."""
        return float(np.linalg.norm(self.contact1 - self.contact0))

    def with_quality(self, quality: float) -> GraspCandidate:
        """This candidate with `quality`."""
        return replace(self, quality=float(quality))


Ranker = Callable[[RestingObject, Sequence[GraspCandidate]], Sequence[float]]
"""Quality of each candidate (higher is better; NaN or -inf: unusable)."""


def gripper_boxes(open_width_m: float, outline: PadOutline, clearance_m: float) -> np.ndarray:
    """(4, 2, 3) lower and upper corners, gripper frame, of the boxes the open gripper fills:
    each jaw's pad, backing plate and finger, and the palm between the fingers, grown by
    `clearance_m`. Gripper frame: x closes (jaw 0 at -x), z approaches (+z: fingertips)."""
    poly = np.asarray(outline.polygon)
    a_lo = float(poly[:, 0].min()) - FINGER_LENGTH_M
    a_hi = float(poly[:, 0].max()) + PLATE_MARGIN_M
    half_b = float(np.abs(poly[:, 1]).max()) + PLATE_MARGIN_M
    back = outline.thickness_m + PLATE_THICKNESS_M
    half = 0.5 * open_width_m
    c = clearance_m
    boxes = [
        [[-half - back - c, -half_b - c, a_lo - c], [-half + c, half_b + c, a_hi + c]],
        [[half - c, -half_b - c, a_lo - c], [half + back + c, half_b + c, a_hi + c]],
        [
            [-half - back - c, -half_b - c, a_lo - PALM_DEPTH_M - c],
            [half + back + c, half_b + c, a_lo + c],
        ],
    ]
    return np.asarray(boxes, dtype=float)


def _triangles_hit_box(tri: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Which triangles (k, 3, 3) intersect the box [lo, hi] (separating axis test)."""
    centre = 0.5 * (lo + hi)
    h = 0.5 * (hi - lo)
    v = tri - centre
    tlo, thi = v.min(axis=1), v.max(axis=1)
    hit = np.all((tlo <= h) & (thi >= -h), axis=1)
    if not hit.any():
        return hit
    idx = np.flatnonzero(hit)
    v = v[idx]
    e = np.stack([v[:, 1] - v[:, 0], v[:, 2] - v[:, 1], v[:, 0] - v[:, 2]], axis=1)
    n = np.cross(e[:, 0], e[:, 1])
    ok = np.abs(np.einsum("ij,ij->i", n, v[:, 0])) <= np.abs(n) @ h
    x, y, z = v[..., 0], v[..., 1], v[..., 2]  # (k, 3): the three corners
    for i in range(3):
        ex, ey, ez = e[:, i, 0:1], e[:, i, 1:2], e[:, i, 2:3]
        # Axes e_i x (unit x, y, z): (0, ez, -ey), (-ez, 0, ex), (ey, -ex, 0).
        for p, r in (
            (ez * y - ey * z, np.abs(ez) * h[1] + np.abs(ey) * h[2]),
            (ex * z - ez * x, np.abs(ez) * h[0] + np.abs(ex) * h[2]),
            (ey * x - ex * y, np.abs(ey) * h[0] + np.abs(ex) * h[1]),
        ):
            ok &= (p.min(axis=1) <= r[:, 0]) & (p.max(axis=1) >= -r[:, 0])
    out = np.zeros(len(tri), dtype=bool)
    out[idx] = ok
    return out


# How far (m) from meeting a box the compiled test leaves a face to this check's own test: far
# beyond the rounding of coordinates turned in either, so both answer the same.
_SPHERE_MARGIN_M = 1e-9


class _OpenGripperCheck:
    """Whether the open gripper at a pose clears the object and the ground."""

    def __init__(self, obj: RestingObject, settings: SamplerSettings) -> None:
        self.vertices = np.asarray(obj.vertices, dtype=float)
        self.faces = np.asarray(obj.faces, dtype=np.int64)
        self.boxes = gripper_boxes(settings.open_width_m, settings.outline, settings.clearance_m)
        corners = np.array([[i, j, k] for i in (0, 1) for j in (0, 1) for k in (0, 1)])
        self.corners = np.stack(
            [np.where(corners == 0, b[0], b[1]) for b in self.boxes]
        )  # (boxes, 8, 3)
        self.clearance = settings.clearance_m
        self.union = (self.boxes[:, 0].min(axis=0), self.boxes[:, 1].max(axis=0))
        # Each box against the faces near it, in compiled code (engine.scene.box_faces); this
        # check's own test decides the faces within rounding of meeting it.
        self.grid = _surface(obj).grid

    def reason(self, pose: np.ndarray) -> str:
        """'' when clear, else what the open gripper hits ('ground' or 'object')."""
        rot, t = pose[:3, :3], pose[:3, 3]
        world = self.corners @ rot.T + t
        if float(world[..., 2].min()) < self.clearance:
            return "ground"
        lo, hi = self.union
        meets, unsure, boxes = self.grid.meets(pose, self.boxes, _SPHERE_MARGIN_M)
        if meets:
            return "object"
        for b, box in enumerate(self.boxes):
            faces = unsure[boxes == b]
            if not len(faces):
                continue
            tri = (self.vertices[self.faces[faces]] - t) @ rot  # object in the gripper frame
            near = np.all((tri.min(axis=1) <= hi) & (tri.max(axis=1) >= lo), axis=1)
            if near.any() and _triangles_hit_box(tri[near], box[0], box[1]).any():
                return "object"
        return ""

    def box_centres(self, pose: np.ndarray) -> np.ndarray:
        """World centres of the boxes (a box wholly inside the object crosses no face)."""
        centres = self.boxes.mean(axis=1)
        return centres @ pose[:3, :3].T + pose[:3, 3]


def open_gripper_clearance(obj: RestingObject, grasp: Grasp, settings: SamplerSettings) -> str:
    """'' when the open gripper at `grasp` (pads, plates, fingers, palm, grown by the
    clearance) is clear of the object and the ground, else 'ground' or 'object'."""
    check = _OpenGripperCheck(obj, settings)
    pose = grasp.pose()
    hit = check.reason(pose)
    if hit:
        return hit
    inside = points_inside(check.box_centres(pose), obj.vertices, obj.faces)
    return "object" if bool(inside.any()) else ""


def _clear_of_ground(
    grasp: Grasp, check: _OpenGripperCheck, settings: SamplerSettings
) -> Grasp | None:
    """The grasp, or the grasp moved back along its approach just enough for the open gripper
    to clear the ground while the contacts stay on the pads (at most MAX_SHIFT_M towards the
    fingertips); None when that is not enough (or the approach does not point down)."""
    pose = grasp.pose()
    low = float((check.corners @ pose[:3, :3].T + pose[:3, 3])[..., 2].min())
    if low >= settings.clearance_m:
        return grasp
    down = -float(pose[2, 2])  # how fast moving back along the approach raises the gripper
    if down <= 1e-6:
        return None
    shift = (settings.clearance_m - low) / down + 1e-6
    limit = float(np.asarray(settings.outline.polygon)[:, 0].max()) - CONTACT_MARGIN_M
    if shift > limit:
        return None
    return Grasp(grasp.center - shift * pose[:3, 2], grasp.axis, grasp.approach_angle_rad)


def grasp_distance(a: Grasp, b: Grasp) -> float:
    """|c1 - c2| + RADIUS_M (axis angle, either sign) + RADIUS_M (approach angle), in m."""
    axis = math.acos(min(1.0, abs(float(np.dot(a.axis, b.axis)))))
    za, zb = a.pose()[:3, 2], b.pose()[:3, 2]
    approach = math.acos(max(-1.0, min(1.0, float(np.dot(za, zb)))))
    return float(np.linalg.norm(a.center - b.center)) + RADIUS_M * (axis + approach)


class _Spacing:
    """The grasps kept so far, to test a new one's grasp distance to all of them at once."""

    def __init__(self) -> None:
        self.rows = np.zeros((0, 9))  # centre, axis, approach direction

    def far(self, centre: np.ndarray, axis: np.ndarray, approach: np.ndarray | None,
            min_distance_m: float) -> bool:  # fmt: skip
        """Whether the grasp is at least `min_distance_m` from every kept one (without an
        approach, only centre and axis count)."""
        if len(self.rows) == 0 or min_distance_m <= 0:
            return True
        d = np.linalg.norm(self.rows[:, :3] - centre, axis=1)
        d += RADIUS_M * np.arccos(np.clip(np.abs(self.rows[:, 3:6] @ axis), 0.0, 1.0))
        if approach is not None:
            d += RADIUS_M * np.arccos(np.clip(self.rows[:, 6:] @ approach, -1.0, 1.0))
        return bool(d.min() >= min_distance_m)

    def add(self, centre: np.ndarray, axis: np.ndarray, approach: np.ndarray | None) -> None:
        row = np.concatenate([centre, axis, np.zeros(3) if approach is None else approach])
        self.rows = np.vstack([self.rows, row])


def _spaced(
    candidates: Sequence[GraspCandidate], min_distance_m: float, limit: int
) -> list[GraspCandidate]:
    """Greedy: each candidate in order unless it is within min_distance_m of one kept."""
    kept: list[GraspCandidate] = []
    spacing = _Spacing()
    for c in candidates:
        if len(kept) >= limit:
            break
        approach = c.grasp.pose()[:3, 2]
        if spacing.far(c.grasp.center, c.grasp.axis, approach, min_distance_m):
            kept.append(c)
            spacing.add(c.grasp.center, c.grasp.axis, approach)
    return kept


@dataclass(frozen=True)
class _Surface:
    """An object's surface indexed for sampling: as trimesh holds it, with the faces' R-tree
    the antipodal search queries (~0.3 s to build on a 16k-face scan), and its faces binned
    for the open-gripper check (~12 ms)."""

    mesh: trimesh.Trimesh
    grid: FaceGrid


# Built once per object while it lives, not per sampling: a default grasp samples again for
# each other gripper it names.
_SURFACES: weakref.WeakKeyDictionary[RestingObject, _Surface] = weakref.WeakKeyDictionary()


def _surface(obj: RestingObject) -> _Surface:
    """The object's indexed surface (kept while the object lives)."""
    kept = _SURFACES.get(obj)
    if kept is None:
        v, f = np.asarray(obj.vertices), np.asarray(obj.faces)
        kept = _Surface(trimesh.Trimesh(v, f, process=False), FaceGrid.of(v, f))
        _SURFACES[obj] = kept
    return kept


def sample_candidates(
    obj: RestingObject, settings: SamplerSettings, n: int, seed: int
) -> list[GraspCandidate]:
    """Up to `n` (about; see below) antipodal, collision-free candidates, most antipodal first.

    Returns at most `n + max(20, n // 2)` candidates (a pool for ranking) that are
    `min_distance_m` apart. Surface points are drawn in rounds of `surface_points` (default
    max(150, 2 n)) until the pool is full, at most ROUNDS rounds, and no more once a round adds
    fewer than 2 % of the pool. Deterministic for a given object, settings and seed.
    """
    settings.validate()
    if isinstance(n, bool) or not isinstance(n, int) or n < 1:
        raise ParameterError(f"the number of grasps must be an integer >= 1, got {n!r}")
    if isinstance(seed, bool) or not isinstance(seed, int | np.integer) or seed < 0:
        raise ParameterError(f"the seed must be an integer >= 0, got {seed!r}")
    rng = np.random.default_rng(int(seed))
    mesh = _surface(obj).mesh
    check = _OpenGripperCheck(obj, settings)
    pool = n + max(20, n // 2)
    k = settings.approach_angles
    offsets = 2.0 * np.pi * np.arange(k) / k
    # Pairs too close to one already tried add nothing new (same axis through the same place).
    lines = _Spacing()
    found: list[GraspCandidate] = []
    spacing = _Spacing()
    # Rounds of fresh surface points until the pool is full (an easy object needs one).
    count = settings.surface_points or max(150, 2 * n)
    for round_ in range(1 if settings.surface_points else ROUNDS):
        if len(found) >= pool:
            break
        before = len(found)
        pairs = antipodal_pairs(
            mesh, settings.mu, settings.open_width_m, settings.clearance_m, count, rng
        )
        for p, q, x, n_p, n_q, worst in pairs:
            if len(found) >= pool:
                break
            centre = 0.5 * (p + q)
            if not lines.far(centre, x, None, 0.5 * settings.min_distance_m):
                continue
            lines.add(centre, x, None)
            for angle in offsets:
                grasp = _clear_of_ground(Grasp(centre, x, float(angle)), check, settings)
                if grasp is None:
                    continue
                pose = grasp.pose()
                if not spacing.far(grasp.center, x, pose[:3, 2], settings.min_distance_m):
                    continue
                if check.reason(pose):
                    continue
                found.append(GraspCandidate(grasp, p, q, n_p, n_q, worst))
                spacing.add(grasp.center, x, pose[:3, 2])
        if round_ > 0 and len(found) - before < max(1, pool // 50):
            break  # fresh points hardly find new grasps: the object has no more
    if not found:
        return []
    # A box wholly inside the object crosses no face: test the boxes' centres too.
    points = np.vstack([check.box_centres(c.grasp.pose()) for c in found])
    inside = points_inside(points, obj.vertices, obj.faces).reshape(len(found), -1)
    bad: list[bool] = np.any(inside, axis=1).astype(bool).tolist()
    return [c for c, b in zip(found, bad, strict=True) if not b]


def sample_grasps(
    obj: RestingObject,
    settings: SamplerSettings,
    n: int,
    seed: int,
    rank: Ranker | None = None,
) -> list[GraspCandidate]:
    """The best `n` sampled candidates, `min_distance_m` apart, best first.

    With `rank`, each candidate of the pool gets its quality and they are ordered by it
    (ties: the more antipodal first); candidates whose quality is NaN come last. Without it,
    the most antipodal come first.
    """
    pool = sample_candidates(obj, settings, n, seed)
    if rank is not None and pool:
        qualities = list(rank(obj, pool))
        if len(qualities) != len(pool):
            raise ValueError(f"the ranker gave {len(qualities)} qualities for {len(pool)} grasps")
        pool = [c.with_quality(q) for c, q in zip(pool, qualities, strict=True)]
        order = sorted(
            range(len(pool)),
            key=lambda i: (
                -pool[i].quality if math.isfinite(pool[i].quality) else math.inf,
                pool[i].cone_angle_rad,
                i,
            ),
        )
        pool = [pool[i] for i in order]
    return _spaced(pool, settings.min_distance_m, n)


def settings_for(
    open_width_m: float, outline: PadOutline, mu: float, **overrides: object
) -> SamplerSettings:
    """SamplerSettings for a gripper's opening and pad and the pads' friction coefficient."""
    return replace(SamplerSettings(open_width_m, outline, mu), **overrides).validate()  # type: ignore[arg-type]
