"""The contact-force arrows of a simulated frame: which arrows, where and how long (no Qt, no
VTK; the view and the video exporter draw them, app/force_arrows.py).

A frame carries the contact forces on the object (engine.grasp.frames.Frame.contact_*): per
contact point, the normal and the friction force and who exerts it. Each is drawn as an arrow
that ends at its point (the force pushes the object there), its length the force at a scale in
newtons per millimetre of arrow, one for normal forces and one for friction (friction is often
a hundred times smaller). A trial's scale is fixed for all its frames, so lengths compare
across the timeline; each patch's resultant is stated in numbers (totals_text).

Two ways to draw them (MODES): one arrow per contact point, or one resultant per contact patch
(pad 1, pad 2, the ground) at the patch's centre of pressure (patches). The object's weight m g
is drawn from its centre of mass at the normal forces' scale (weight_arrow). Nothing here is
physics beyond summing what the engine reported.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.constants import GRAVITY_M_S2
from engine.grasp.frames import Frame

FORCE_KINDS = ("normal", "friction")
SOURCES = ("pad 1", "pad 2", "ground")  # Frame.contact_source 0, 1, 2
# A trial's scale draws the typical arrow of its busiest frame (the 90th percentile of that
# frame's forces of the kind) at most this long (mm): the next 1, 2 or 5 times a power of ten
# newtons per millimetre. Larger forces are drawn longer, never clipped.
TYPICAL_ARROW_MM = 8.0
TYPICAL_PERCENTILE = 90.0
# Per pad and patch, a trial's largest resultant of each kind is drawn at most this long (mm).
PATCH_ARROW_MM = 25.0
MODES = ("points", "patches")
MODE_NAMES = {"points": "per contact point", "patches": "per pad and patch"}
WEIGHT_SOURCE = -1  # Arrows.source of the weight arrow (not a contact)


@dataclass(frozen=True)
class ForceScale:
    """Newtons per millimetre of arrow, for normal and for friction forces."""

    normal_n_per_mm: float = 1.0
    friction_n_per_mm: float = 1.0

    def n_per_mm(self, kind: str) -> float:
        """The scale of `kind` ("normal" or "friction")."""
        return self.normal_n_per_mm if kind == "normal" else self.friction_n_per_mm

    def legend(self, kind: str) -> str:
        """What an arrow of `kind` means, e.g. "normal force on the object: 1 mm = 0.2 N"."""
        what = "normal force" if kind == "normal" else "friction force"
        return f"{what} on the object: 1 mm = {self.n_per_mm(kind):g} N"


def nice_ceil(x: float) -> float:
    """The smallest 1, 2 or 5 times a power of ten that is >= x > 0."""
    exponent = math.floor(math.log10(x))
    for mantissa in (1.0, 2.0, 5.0, 10.0):
        step = float(f"{mantissa}e{exponent}")  # exact decimal: 0.2, not 0.20000000000000004
        if step >= x * (1 - 1e-12):
            return step
    return float(f"1e{exponent + 1}")


def typical_forces(frames: Sequence[Frame]) -> tuple[float, float]:
    """The typical normal and friction force (N) at a contact point of the busiest frame: the
    largest over `frames` of each frame's TYPICAL_PERCENTILE of its nonzero forces."""
    out = [0.0, 0.0]
    for f in frames:
        for i, forces in enumerate((f.contact_normal_n, f.contact_friction_n)):
            if len(forces):
                size = np.sqrt((forces * forces).sum(axis=1))
                size = size[size > 0]
                if len(size):
                    out[i] = max(out[i], float(np.percentile(size, TYPICAL_PERCENTILE)))
    return out[0], out[1]


def scale_for(typical_normal_n: float, typical_friction_n: float) -> ForceScale:
    """The scale that draws these typical forces at most TYPICAL_ARROW_MM long (1 N/mm for a
    kind without force)."""
    return _scale(typical_normal_n, typical_friction_n, TYPICAL_ARROW_MM)


def _scale(normal_n: float, friction_n: float, arrow_mm: float) -> ForceScale:
    n, f = (nice_ceil(x / arrow_mm) if x > 0 else 1.0 for x in (normal_n, friction_n))
    return ForceScale(n, f)


@dataclass(frozen=True)
class ForceSizes:
    """What a trial's scales are chosen from (N): the typical force at a contact point
    (typical_forces) and the largest resultant of a patch (patches), normal and friction."""

    point_normal_n: float = 0.0
    point_friction_n: float = 0.0
    patch_normal_n: float = 0.0
    patch_friction_n: float = 0.0

    def merged(self, other: ForceSizes) -> ForceSizes:
        """The larger of each size (frames streaming in only ever grow a scale)."""
        return ForceSizes(
            *(max(a, b) for a, b in zip(self.as_tuple(), other.as_tuple(), strict=True))
        )

    def as_tuple(self) -> tuple[float, float, float, float]:
        """The four sizes."""
        return (self.point_normal_n, self.point_friction_n, self.patch_normal_n,
                self.patch_friction_n)  # fmt: skip

    @property
    def empty(self) -> bool:
        """No contact force in any frame (frames without forces: MuJoCo replays, old files)."""
        return not any(self.as_tuple())

    def scale(self, mode: str) -> ForceScale:
        """The scale of `mode`: per contact point the typical force drawn at most
        TYPICAL_ARROW_MM long, per patch the largest resultant at most PATCH_ARROW_MM."""
        if mode == "patches":
            return _scale(self.patch_normal_n, self.patch_friction_n, PATCH_ARROW_MM)
        return _scale(self.point_normal_n, self.point_friction_n, TYPICAL_ARROW_MM)


def force_sizes(frames: Sequence[Frame]) -> ForceSizes:
    """The sizes of `frames` (ForceSizes)."""
    normal, friction = typical_forces(frames)
    patch_n = patch_f = 0.0
    for f in frames:
        for p in patches(f):
            patch_n = max(patch_n, float(np.linalg.norm(p.normal_n)))
            patch_f = max(patch_f, float(np.linalg.norm(p.friction_n)))
    return ForceSizes(normal, friction, patch_n, patch_f)


def force_scale(frames: Sequence[Frame], mode: str = "points") -> ForceScale:
    """The scale of a trial's arrows drawn `mode` (see TYPICAL_ARROW_MM, PATCH_ARROW_MM)."""
    return force_sizes(frames).scale(mode)


@dataclass(frozen=True, eq=False)
class Patch:
    """The resultant contact force of one patch (one pusher: pad 1, pad 2 or the ground)."""

    source: int  # 0 pad 1, 1 pad 2, 2 ground
    centre: np.ndarray  # (3,) m, the centre of pressure
    normal_n: np.ndarray  # (3,) N, the sum of the patch's normal forces
    friction_n: np.ndarray  # (3,) N, the sum of its friction forces
    points: int  # how many contact points it has


def patches(frame: Frame) -> list[Patch]:
    """Each contact patch of `frame` (the contact points of one source), in SOURCES order.

    The resultant of each kind is the plain sum of the patch's forces. Its centre of pressure
    is the normal-force-weighted mean of the patch's contact points, sum |N_i| p_i / sum |N_i|
    (the plain mean when the patch has no normal force): where the resultant is drawn. For a
    flat patch, where the normal forces are parallel, that is the point about which they have
    no moment; on a curved one it is the same weighted mean, an approximation.
    """
    source = np.asarray(frame.contact_source).reshape(-1)
    if not len(source):
        return []
    points = np.asarray(frame.contact_points, dtype=float).reshape(-1, 3)
    normal = np.asarray(frame.contact_normal_n, dtype=float).reshape(-1, 3)
    friction = np.asarray(frame.contact_friction_n, dtype=float).reshape(-1, 3)
    out = []
    for k in range(len(SOURCES)):
        mine = source == k
        if not mine.any():
            continue
        weights = np.sqrt((normal[mine] ** 2).sum(axis=1))
        total = weights.sum()
        if total > 0:
            centre = (weights[:, None] * points[mine]).sum(axis=0) / total
        else:
            centre = points[mine].mean(axis=0)
        out.append(
            Patch(k, centre, normal[mine].sum(axis=0), friction[mine].sum(axis=0), int(mine.sum()))
        )
    return out


def totals_text(frame: Frame) -> str:
    """Each contact patch's resultant force on the object, e.g.
    "pad 1 7.75 N / 0.062 N, pad 2 7.75 N / 0.062 N, ground 0.029 N / 0 N (normal / friction)"."""
    parts = [
        f"{SOURCES[p.source]} {float(np.linalg.norm(p.normal_n)):.3g} N / "
        f"{float(np.linalg.norm(p.friction_n)):.2g} N"
        for p in patches(frame)
    ]
    if not parts:
        return "no contact"
    return ", ".join(parts) + " (normal / friction)"


@dataclass(frozen=True, eq=False)
class Arrows:
    """Arrows of one kind: each from tails[i] to tails[i] + vectors[i] = the contact point."""

    tails: np.ndarray  # (n, 3) m
    vectors: np.ndarray  # (n, 3) m, the force times the scale
    forces_n: np.ndarray  # (n, 3) N
    source: np.ndarray  # (n,) 0 pad 1, 1 pad 2, 2 ground


def _arrows(points: np.ndarray, forces: np.ndarray, source: np.ndarray, n_per_mm: float) -> Arrows:
    """Arrows of `forces` ending at `points`, drawn at `n_per_mm`; zero forces left out."""
    keep = np.any(forces != 0.0, axis=1)
    forces = forces[keep]
    vectors = forces * (1e-3 / n_per_mm)
    return Arrows(points[keep] - vectors, vectors, forces, source[keep])


def frame_arrows(frame: Frame, scale: ForceScale, kind: str) -> Arrows:
    """The arrows of `kind` of `frame`: one per contact point with a nonzero force."""
    forces = np.asarray(frame.contact_normal_n if kind == "normal" else frame.contact_friction_n)
    return _arrows(
        np.asarray(frame.contact_points, dtype=float).reshape(-1, 3),
        forces.reshape(-1, 3),
        np.asarray(frame.contact_source).reshape(-1),
        scale.n_per_mm(kind),
    )


def patch_arrows(frame: Frame, scale: ForceScale, kind: str) -> Arrows:
    """The arrows of `kind` of `frame` per pad and patch: each patch's resultant, ending at its
    centre of pressure (patches); none for a patch whose resultant of `kind` is zero."""
    found = patches(frame)
    if not found:
        return _arrows(np.zeros((0, 3)), np.zeros((0, 3)), np.zeros(0, np.int8), 1.0)
    return _arrows(
        np.array([p.centre for p in found]),
        np.array([p.normal_n if kind == "normal" else p.friction_n for p in found]),
        np.array([p.source for p in found], dtype=np.int8),
        scale.n_per_mm(kind),
    )


@dataclass(frozen=True)
class ForceView:
    """How a trial's forces are drawn: the mode (MODES), the scale, and the object's mass and
    centre of mass in its resting frame (for the weight arrow and the centre-of-mass marker;
    None: neither is drawn)."""

    scale: ForceScale
    mode: str = "points"
    mass_kg: float | None = None
    com_rest_m: tuple[float, float, float] | None = None
    marker_radius_m: float = 1e-3  # the centre-of-mass marker's size in the view

    def arrows(self, frame: Frame, kind: str) -> Arrows:
        """The arrows of `kind` of `frame` in this view's mode."""
        if self.mode == "patches":
            return patch_arrows(frame, self.scale, kind)
        return frame_arrows(frame, self.scale, kind)

    def legend(self, kind: str) -> str:
        """What an arrow of `kind` means, e.g. "normal force on the object: 1 mm = 0.2 N" or,
        per patch, "normal force per patch (at its centre of pressure): 1 mm = 2 N"."""
        if self.mode != "patches":
            return self.scale.legend(kind)
        what = "normal force" if kind == "normal" else "friction force"
        return (
            f"{what} per patch (at its centre of pressure): 1 mm = {self.scale.n_per_mm(kind):g} N"
        )

    def weight_n(self) -> float:
        """The object's weight m g (N); 0 without a mass."""
        return 0.0 if self.mass_kg is None else self.mass_kg * GRAVITY_M_S2

    def weight_legend(self) -> str:
        """E.g. "weight 0.029 N at the centre of mass: 1 mm = 0.1 N" ("" without a mass)."""
        if self.mass_kg is None or self.com_rest_m is None:
            return ""
        return (
            f"weight {self.weight_n():.2g} N at the centre of mass: "
            f"1 mm = {self.scale.normal_n_per_mm:g} N"
        )

    def centre_of_mass(self, frame: Frame) -> np.ndarray | None:
        """The object's centre of mass in the world at `frame` (m): its pose (world <- resting
        frame) applied to the resting frame's centre of mass. None without one."""
        if self.com_rest_m is None:
            return None
        pose = np.asarray(frame.object_pose, dtype=float)
        return np.asarray(pose[:3, :3] @ np.asarray(self.com_rest_m) + pose[:3, 3])

    def weight_arrow(self, frame: Frame) -> Arrows | None:
        """The weight m g as an arrow from the centre of mass straight down, at the normal
        forces' scale (source WEIGHT_SOURCE). None without a mass or centre of mass."""
        com = self.centre_of_mass(frame)
        if com is None or not self.mass_kg:
            return None
        force = np.array([[0.0, 0.0, -self.weight_n()]])
        vector = force * (1e-3 / self.scale.normal_n_per_mm)
        return Arrows(com[None, :], vector, force, np.array([WEIGHT_SOURCE], dtype=np.int8))
